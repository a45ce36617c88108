import CZlib
import Foundation

/// Whether a PDF can act by itself when a browser's viewer opens it.
///
/// Chromium's viewer runs a PDF's JavaScript, and a document can ask its
/// reader to submit a form, launch a program, play rich media or open
/// another address as it opens. Opened from the archive's `media/` folder
/// (or its host), such a file would do what whoever posted it wrote; kept
/// as `.bin`, it only downloads. A PDF is active when one of its
/// dictionaries, written out or inside an object stream, names JavaScript,
/// a launch, a form submission or import, rich media, XFA or additional
/// actions (`/AA`), or when it opens with anything but a view of a page
/// (the catalog the trailer names, as the cross-references place it;
/// where they cannot be read, every catalog).
/// Links a reader clicks stay: they are links, as in a post.
///
/// Every object is read, wherever its `obj` is (a cross-reference table
/// may point anywhere, even into another stream's data), with the
/// trailers and the objects of every object stream; names are read as a
/// PDF reader reads them (`/J#53` is `/JS`), and not inside strings (a
/// link to `…/wiki/JavaScript`), except in an object that cannot be read
/// as a value, where every `/` counts. What cannot be read for sure counts
/// as active: an object stream in a filter this reader does not decode,
/// more than `decodeBudget` bytes of them, or objects that overlap over
/// and over. A false alarm costs a reader a file to save; a miss runs
/// script.
enum PDFActions {
    /// Bytes of object streams decoded for one file, at most.
    static let decodeBudget = 64 << 20

    /// The names that make a document act, wherever they are.
    static let acting: [[UInt8]] = [
        "JavaScript", "JS", "Launch", "SubmitForm", "ImportData", "RichMedia", "RichMediaExecute", "XFA", "AA",
    ].map { Array($0.utf8) }

    /// Whether `name` is one of `acting`: compared by length first, as
    /// almost every name of a document is none of them (hashing each one
    /// was a fifth of the time).
    static func acts(_ name: [UInt8]) -> Bool {
        acting.contains { $0.count == name.count && $0 == name }
    }

    static func isActive(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            let file = raw.bindMemory(to: UInt8.self)
            var reading = PDFReading(file: file, workLimit: 4 * file.count + (1 << 20))
            return reading.isActive()
        }
    }
}

/// One pass over a PDF's bytes for `PDFActions.isActive`.
private struct PDFReading {
    struct ObjectID: Hashable {
        var number: Int
        var generation: Int
    }

    /// Where an object's value starts: in the file, or in a decoded object
    /// stream (`decoded[buffer]`).
    enum Place {
        case file(Int)
        case inner(buffer: Int, offset: Int)
    }

    var budget = PDFActions.decodeBudget
    /// Every definition of an object, in the order found (a table is
    /// made of them only for an `/OpenAction` that names one).
    var objects: [(id: ObjectID, place: Place)] = []
    var decoded: [[UInt8]] = []
    /// Objects an `/OpenAction` names, judged once every object is known.
    var openedWith: [ObjectID] = []

    /// The file being read.
    let file: PDFBytes

    /// Bytes read so far, and the bound: a file whose objects overlap
    /// (an `obj` inside another object's string, again and again) would
    /// otherwise cost its length once for every one of them.
    var work = 0
    var workLimit: Int

    /// Counts `bytes` more read; false past the bound, which makes the
    /// file active: what cannot be read for sure.
    mutating func spend(_ bytes: Int) -> Bool {
        work += bytes
        return work <= workLimit
    }

    init(file: PDFBytes, workLimit: Int) {
        self.file = file
        self.workLimit = workLimit
    }

    mutating func isActive() -> Bool {
        var objectStreams: [(entries: [[UInt8]: Range<Int>], data: Range<Int>, at: Int)] = []
        // Every object, wherever its `obj` is (a cross-reference table may
        // point anywhere, even into another stream's data).
        var search = 0
        while let keyword = file.find("obj", from: search) {
            search = keyword + 3
            guard keyword > 0, file[keyword - 1].isPDFWhite,
                keyword + 3 == file.count || !file[keyword + 3].isPDFRegular
            else { continue }
            let start = file.skipBlank(keyword + 3)
            if let id = file.objectID(before: keyword) { objects.append((id, .file(start))) }
            guard let end = file.skipValue(start) else {
                // Not a value as this reader reads one: every name up to
                // its `endobj` counts, in strings too.
                let end = file.find("endobj", from: start) ?? file.count
                if !spend(end - start) || scanNames(file, in: start..<end, tokens: false) { return true }
                continue
            }
            if !spend(end - start) || scanNames(file, in: start..<end, tokens: true) { return true }
            guard file.starts("<<", at: start), file.keyword("stream", at: file.skipBlank(end)),
                let entries = file.dictionary(start)?.entries,
                let data = file.streamData(after: end, length: entries[Array("Length".utf8)])
            else { continue }
            if !spend(data.count) { return true }
            if file.isObjectStream(entries) { objectStreams.append((entries, data, start)) }
        }
        // The trailers' dictionaries.
        search = 0
        while let keyword = file.find("trailer", from: search) {
            search = keyword + 7
            let start = file.skipBlank(keyword + 7)
            let value = file.skipValue(start)
            let end = value ?? file.find("startxref", from: start) ?? file.count
            if !spend(end - start) || scanNames(file, in: start..<end, tokens: value != nil) { return true }
        }
        // Every object stream, decoded, each object from where its header says.
        for (entries, data, at) in objectStreams {
            guard let bytes = decode(file, data, entries: entries) else { return true }
            decoded.append(bytes)
            workLimit += 4 * bytes.count
            let index = decoded.count - 1
            let active = bytes.withUnsafeBufferPointer { inner -> Bool in
                let starts = innerObjects(inner, buffer: index, entries: entries, file: file)
                streamsAt[at] = (index, starts)
                for start in starts {
                    let value = inner.skipBlank(start)
                    let end = inner.skipValue(value)
                    if !spend((end ?? inner.count) - value) { return true }
                    if scanNames(inner, in: value..<(end ?? inner.count), tokens: end != nil) { return true }
                }
                return false
            }
            if active { return true }
        }
        if openedWith.isEmpty { return false }
        table = crossReferences(file)
        // The catalog the trailer names is the one a reader opens with;
        // another (an older revision's, one copied in from another file)
        // is never read. Where it cannot be found, every one counts.
        if let root, let opening = withValue(of: root, { $0.catalogOpening(at: $1) }) ?? nil {
            switch opening {
            case .page: return false
            case .acts: return true
            case .object(let number, let generation):
                return !opensAPage(ObjectID(number: number, generation: generation))
            }
        }
        return !openedWith.allSatisfy(opensAPage)
    }

    /// Whether any name in `range` makes the document act; an
    /// `/OpenAction` that names another object is judged later. With
    /// `tokens`, the range is read as PDF values, whose strings hold no
    /// names (a link to `…/wiki/JavaScript`); without, every `/` counts.
    mutating func scanNames(_ bytes: PDFBytes, in range: Range<Int>, tokens: Bool) -> Bool {
        var position = range.lowerBound
        var name: [UInt8] = []
        while position < range.upperBound {
            let slash: Int
            if tokens {
                switch bytes[position] {
                case UInt8(ascii: "/"): slash = position
                case UInt8(ascii: "("):
                    position = bytes.skipValue(position) ?? range.upperBound
                    continue
                case UInt8(ascii: "<"):
                    // `<<` opens a dictionary; a lone `<`, a hex string.
                    position =
                        bytes.starts("<<", at: position) ? position + 2 : bytes.skipValue(position) ?? range.upperBound
                    continue
                case UInt8(ascii: "%"):
                    while position < range.upperBound, bytes[position] != 0x0A, bytes[position] != 0x0D {
                        position += 1
                    }
                    continue
                default:
                    position += 1
                    continue
                }
            } else {
                guard let found = bytes.find(byte: UInt8(ascii: "/"), in: position..<range.upperBound) else { break }
                slash = found
            }
            let end = bytes.name(at: slash, into: &name)
            position = max(end, slash + 1)
            if PDFActions.acts(name) { return true }
            guard name.elementsEqual("OpenAction".utf8) else { continue }
            switch bytes.openAction(at: end) {
            case .page: continue
            case .acts: return true
            case .object(let number, let generation):
                openedWith.append(ObjectID(number: number, generation: generation))
            }
        }
        return false
    }

    /// Whether the object an `/OpenAction` names shows a page: the one
    /// definition the cross-reference tables point to, or, where they do
    /// not tell, every definition of it (a later update of the file may be
    /// the one a reader reads).
    func opensAPage(_ id: ObjectID) -> Bool {
        if let shows = withValue(of: id, { $0.showsAPage(at: $1) }) { return shows }
        let places = objects.filter { $0.id == id }.map(\.place)
        guard !places.isEmpty else { return false }
        return places.allSatisfy { place in
            switch place {
            case .file(let offset): return file.showsAPage(at: offset)
            case .inner(let buffer, let offset):
                return decoded[buffer].withUnsafeBufferPointer { $0.showsAPage(at: offset) }
            }
        }
    }

    /// Where an object is, as a cross-reference table or stream says.
    enum Location {
        case offset(Int)
        case inStream(stream: Int, index: Int)
        case free
    }

    /// `body` of the bytes that hold object `id` and where its value
    /// starts, as the cross-reference tables place it; `nil` where they
    /// do not.
    func withValue<T>(of id: ObjectID, _ body: (PDFBytes, Int) -> T) -> T? {
        switch table?[id.number] {
        case .offset(let offset):
            return file.objectValue(at: offset, id).map { body(file, $0) }
        case .inStream(let stream, let index):
            guard case .offset(let offset) = table?[stream], let value = file.objectValue(at: offset, nil),
                let (buffer, starts) = streamsAt[value], index < starts.count
            else { return nil }
            return decoded[buffer].withUnsafeBufferPointer { body($0, starts[index]) }
        case .free, nil: return nil
        }
    }

    /// The catalog the newest trailer names (`/Root`).
    var root: ObjectID?

    /// The cross-reference tables and streams, from the last `startxref`
    /// back through each `/Prev` (and a hybrid file's `/XRefStm`): where
    /// each object number is, the newest section first. `nil` when they
    /// cannot be read; a reader then rebuilds them, and so every
    /// definition counts.
    var table: [Int: Location]?
    /// The object streams decoded, by where their value starts in the
    /// file: the buffer, and where each object of theirs starts.
    var streamsAt: [Int: (buffer: Int, starts: [Int])] = [:]

    mutating func crossReferences(_ file: PDFBytes) -> [Int: Location]? {
        var last: Int?
        var search = 0
        while let found = file.find("startxref", from: search) {
            last = found
            search = found + 9
        }
        guard let last, let (first, _) = file.unsignedInteger(at: file.skipBlank(last + 9)) else { return nil }
        var locations: [Int: Location] = [:]
        var pending = [first]
        var visited = Set<Int>()
        while let offset = pending.popLast(), visited.count < 64 {
            guard offset < file.count, visited.insert(offset).inserted else { continue }
            let start = file.skipBlank(offset)
            let trailer: [[UInt8]: Range<Int>]
            if file.keyword("xref", at: start) {
                guard let (entries, end) = file.crossReferenceTable(after: start + 4) else { return nil }
                for (number, location) in entries where locations[number] == nil { locations[number] = location }
                guard file.keyword("trailer", at: end), let dictionary = file.dictionary(file.skipBlank(end + 7))
                else { return nil }
                trailer = dictionary.entries
            } else {
                guard let value = file.objectValue(at: start, nil), let dictionary = file.dictionary(value),
                    let data = file.streamData(after: dictionary.end, length: dictionary.entries[Array("Length".utf8)]),
                    let bytes = decode(file, data, entries: dictionary.entries),
                    let entries = file.crossReferenceStream(bytes, dictionary.entries)
                else { return nil }
                for (number, location) in entries where locations[number] == nil { locations[number] = location }
                trailer = dictionary.entries
            }
            if root == nil, let value = trailer[Array("Root".utf8)],
                let (number, generation) = file.reference(at: value.lowerBound)
            {
                root = ObjectID(number: number, generation: generation)
            }
            // Looked at in this order: the section's own stream, then the older sections.
            if let previous = trailer[Array("Prev".utf8)].flatMap(file.integer) { pending.append(previous) }
            if let stream = trailer[Array("XRefStm".utf8)].flatMap(file.integer) { pending.append(stream) }
        }
        return locations
    }

    /// Where the objects of an object stream start, by the numbers and
    /// offsets of its header (`/N` pairs before `/First`), each recorded.
    mutating func innerObjects(_ bytes: PDFBytes, buffer: Int, entries: [[UInt8]: Range<Int>], file: PDFBytes) -> [Int]
    {
        guard let count = entries[Array("N".utf8)].flatMap(file.integer),
            let first = entries[Array("First".utf8)].flatMap(file.integer), first <= bytes.count
        else { return [] }
        var starts: [Int] = []
        var position = 0
        for _ in 0..<min(count, 1_000_000) {
            position = bytes.skipBlank(position)
            guard let (number, afterNumber) = bytes.unsignedInteger(at: position) else { break }
            position = bytes.skipBlank(afterNumber)
            guard let (offset, afterOffset) = bytes.unsignedInteger(at: position) else { break }
            position = afterOffset
            guard offset < bytes.count - first else { continue }
            starts.append(first + offset)
            objects.append((ObjectID(number: number, generation: 0), .inner(buffer: buffer, offset: first + offset)))
        }
        return starts
    }

    /// An object stream's bytes through its filters; `nil` when a filter is
    /// one this reader does not know, or the budget runs out.
    mutating func decode(_ file: PDFBytes, _ data: Range<Int>, entries: [[UInt8]: Range<Int>]) -> [UInt8]? {
        guard let filters = file.names(entries[Array("Filter".utf8)]) else { return nil }
        guard let parameters = file.parameters(entries[Array("DecodeParms".utf8)], count: filters.count) else {
            return nil
        }
        var bytes = Array(file[data])
        for (filter, parameter) in zip(filters, parameters) {
            switch String(decoding: filter, as: UTF8.self) {
            case "FlateDecode", "Fl":
                guard let inflated = PDFFilters.inflate(bytes, budget: budget),
                    let prediction = file.prediction(parameter),
                    let predicted = PDFFilters.unpredict(inflated, prediction)
                else { return nil }
                bytes = predicted
            case "ASCIIHexDecode", "AHx": bytes = PDFFilters.hex(bytes)
            case "ASCII85Decode", "A85":
                guard let text = PDFFilters.ascii85(bytes, limit: budget) else { return nil }
                bytes = text
            default: return nil
            }
            budget -= bytes.count
            guard budget >= 0 else { return nil }
        }
        return bytes
    }
}

private typealias PDFBytes = UnsafeBufferPointer<UInt8>

extension UInt8 {
    /// PDF's white-space characters: NUL, tab, line feed, form feed,
    /// carriage return and space.
    fileprivate var isPDFWhite: Bool {
        self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 || self == 0x0C || self == 0x00
    }

    fileprivate var isPDFDelimiter: Bool {
        switch self {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "/"), UInt8(ascii: "%"):
            true
        default: false
        }
    }

    fileprivate var isPDFRegular: Bool { !isPDFWhite && !isPDFDelimiter }

    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}

/// What an `/OpenAction` does, as far as its own bytes tell.
private enum OpenAction {
    /// Shows a page (a destination array, or a go-to action).
    case page
    /// Anything else: a script, an address, something unread.
    case acts
    /// Names another object, judged once every object is known.
    case object(number: Int, generation: Int)
}

extension UnsafeBufferPointer<UInt8> {
    fileprivate func find(_ text: StaticString, from start: Int) -> Int? {
        var position = start
        while let first = find(byte: text.utf8Start[0], in: position..<count) {
            if starts(text, at: first) { return first }
            position = first + 1
        }
        return nil
    }

    fileprivate func find(byte: UInt8, in range: Range<Int>) -> Int? {
        guard !range.isEmpty, let base = baseAddress else { return nil }
        let found = memchr(base + range.lowerBound, Int32(byte), range.count)
        return found.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) }
    }

    fileprivate func starts(_ text: StaticString, at position: Int) -> Bool {
        let length = text.utf8CodeUnitCount
        guard position >= 0, position + length <= count else { return false }
        for index in 0..<length where self[position + index] != text.utf8Start[index] { return false }
        return true
    }

    /// Whether the keyword `text` is at `position`, ending there.
    fileprivate func keyword(_ text: StaticString, at position: Int) -> Bool {
        let end = position + text.utf8CodeUnitCount
        return starts(text, at: position) && (end == count || !self[end].isPDFRegular)
    }

    /// Past white space and comments.
    fileprivate func skipBlank(_ start: Int) -> Int {
        var position = start
        while position < count {
            if self[position].isPDFWhite {
                position += 1
            } else if self[position] == UInt8(ascii: "%") {
                while position < count, self[position] != 0x0A, self[position] != 0x0D { position += 1 }
            } else {
                break
            }
        }
        return position
    }

    /// The name that starts with the `/` at `slash`, its `#xx` escapes
    /// read, into `name`; returns where it ends.
    fileprivate func name(at slash: Int, into name: inout [UInt8]) -> Int {
        name.removeAll(keepingCapacity: true)
        var position = slash + 1
        while position < count, self[position].isPDFRegular {
            if self[position] == UInt8(ascii: "#"), position + 2 < count,
                let high = Self.hexValue(self[position + 1]), let low = Self.hexValue(self[position + 2])
            {
                name.append(high << 4 | low)
                position += 3
            } else {
                name.append(self[position])
                position += 1
            }
        }
        return position
    }

    fileprivate static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A run of decimal digits at `position`, and where it ends.
    fileprivate func unsignedInteger(at position: Int) -> (Int, Int)? {
        var end = position
        var value = 0
        while end < count, self[end].isDigit, end - position < 18 {
            value = value * 10 + Int(self[end] - UInt8(ascii: "0"))
            end += 1
        }
        guard end > position, end == count || !self[end].isDigit else { return nil }
        return (value, end)
    }

    /// The value in `range` as a whole number, when it is one.
    fileprivate func integer(_ range: Range<Int>) -> Int? {
        guard let (value, end) = unsignedInteger(at: range.lowerBound), end == range.upperBound else { return nil }
        return value
    }

    /// The `N G` before the `obj` keyword at `keyword`.
    fileprivate func objectID(before keyword: Int) -> PDFReading.ObjectID? {
        func digits(endingAt end: Int) -> (Int, Int)? {
            var start = end
            while start > 0, self[start - 1].isDigit, end - start < 18 { start -= 1 }
            guard start < end, let (value, _) = unsignedInteger(at: start) else { return nil }
            return (value, start)
        }
        var position = keyword
        while position > 0, self[position - 1].isPDFWhite { position -= 1 }
        guard let (generation, generationStart) = digits(endingAt: position) else { return nil }
        position = generationStart
        while position > 0, self[position - 1].isPDFWhite { position -= 1 }
        guard position < generationStart, let (number, _) = digits(endingAt: position) else { return nil }
        return PDFReading.ObjectID(number: number, generation: generation)
    }

    /// Past one value at `start` (a dictionary, array, string, name,
    /// number, reference or keyword); `nil` when none can be read there.
    /// Nesting deeper than 64 is not read, as PDF readers refuse it.
    fileprivate func skipValue(_ start: Int, depth: Int = 0) -> Int? {
        guard depth < 64, start < count else { return nil }
        let byte = self[start]
        if starts("<<", at: start) {
            // Keys and values alike, nothing recorded.
            var position = start + 2
            while true {
                position = skipBlank(position)
                guard position < count else { return nil }
                if starts(">>", at: position) { return position + 2 }
                guard let end = skipValue(position, depth: depth + 1) else { return nil }
                position = end
            }
        }
        switch byte {
        case UInt8(ascii: "["):
            var position = start + 1
            while true {
                position = skipBlank(position)
                guard position < count else { return nil }
                if self[position] == UInt8(ascii: "]") { return position + 1 }
                guard let end = skipValue(position, depth: depth + 1) else { return nil }
                position = end
            }
        case UInt8(ascii: "("):
            var nesting = 0
            var position = start
            while position < count {
                switch self[position] {
                case UInt8(ascii: "\\"): position += 1
                case UInt8(ascii: "("): nesting += 1
                case UInt8(ascii: ")"):
                    nesting -= 1
                    if nesting == 0 { return position + 1 }
                default: break
                }
                position += 1
            }
            return nil
        case UInt8(ascii: "<"):
            return find(byte: UInt8(ascii: ">"), in: start..<count).map { $0 + 1 }
        case UInt8(ascii: "/"):
            // A name ends where its regular characters do (`#xx` included).
            var end = start + 1
            while end < count, self[end].isPDFRegular { end += 1 }
            return end
        default:
            guard byte.isPDFRegular else { return nil }
            var end = start
            while end < count, self[end].isPDFRegular { end += 1 }
            // `N G R`, a reference, is one value.
            if unsignedInteger(at: start)?.1 == end {
                let generation = skipBlank(end)
                if let (_, afterGeneration) = unsignedInteger(at: generation) {
                    let reference = skipBlank(afterGeneration)
                    if keyword("R", at: reference) { return reference + 1 }
                }
            }
            return end
        }
    }

    /// The dictionary at `start`: its keys (names as read), where each
    /// value is, and where it ends.
    fileprivate func dictionary(_ start: Int, depth: Int = 0) -> (entries: [[UInt8]: Range<Int>], end: Int)? {
        guard starts("<<", at: start) else { return nil }
        var entries: [[UInt8]: Range<Int>] = [:]
        var key: [UInt8] = []
        var position = start + 2
        while true {
            position = skipBlank(position)
            guard position < count else { return nil }
            if starts(">>", at: position) { return (entries, position + 2) }
            guard self[position] == UInt8(ascii: "/") else {
                // Not a key: read past it, as lenient readers do.
                guard let end = skipValue(position, depth: depth + 1) else { return nil }
                position = end
                continue
            }
            position = skipBlank(name(at: position, into: &key))
            guard let end = skipValue(position, depth: depth + 1) else { return nil }
            entries[key] = position..<end
            position = end
        }
    }

    /// The data of the stream whose dictionary ends at `end`, if a
    /// `stream` keyword follows: `/Length` bytes when `endstream` comes
    /// after them, else up to the first `endstream`.
    fileprivate func streamData(after end: Int, length: Range<Int>?) -> Range<Int>? {
        let keywordAt = skipBlank(end)
        guard keyword("stream", at: keywordAt) else { return nil }
        var start = keywordAt + 6
        if start < count, self[start] == 0x0D { start += 1 }
        if start < count, self[start] == 0x0A { start += 1 }
        if let length = length.flatMap(integer), length <= count - start,
            keyword("endstream", at: skipBlank(start + length))
        {
            return start..<start + length
        }
        return start..<(find("endstream", from: start) ?? count)
    }

    /// Where the value of object `id` starts, when an `N G obj` of it (of
    /// any object, without `id`) is at `offset`.
    fileprivate func objectValue(at offset: Int, _ id: PDFReading.ObjectID?) -> Int? {
        guard let (number, afterNumber) = unsignedInteger(at: skipBlank(offset)) else { return nil }
        let generationAt = skipBlank(afterNumber)
        guard let (generation, afterGeneration) = unsignedInteger(at: generationAt) else { return nil }
        let keywordAt = skipBlank(afterGeneration)
        guard keyword("obj", at: keywordAt) else { return nil }
        if let id, id.number != number || id.generation != generation { return nil }
        return skipBlank(keywordAt + 3)
    }

    /// A classic cross-reference table's entries after its `xref`, and
    /// where its `trailer` is; free entries are left out (a hybrid file's
    /// stream, or an older section, tells of those objects).
    fileprivate func crossReferenceTable(after start: Int) -> (entries: [(Int, PDFReading.Location)], end: Int)? {
        var entries: [(Int, PDFReading.Location)] = []
        var position = skipBlank(start)
        while !keyword("trailer", at: position) {
            guard let (first, afterFirst) = unsignedInteger(at: position),
                let (count, afterCount) = unsignedInteger(at: skipBlank(afterFirst)),
                count <= (self.count - position) / 18
            else { return nil }
            position = skipBlank(afterCount)
            for number in first..<first + count {
                guard let (offset, afterOffset) = unsignedInteger(at: position),
                    let (_, afterGeneration) = unsignedInteger(at: skipBlank(afterOffset))
                else { return nil }
                let kind = skipBlank(afterGeneration)
                guard kind < self.count else { return nil }
                if self[kind] == UInt8(ascii: "n") { entries.append((number, .offset(offset))) }
                position = skipBlank(kind + 1)
            }
        }
        return (entries, position)
    }

    /// A cross-reference stream's entries, by its `/W` and `/Index`.
    fileprivate func crossReferenceStream(_ bytes: [UInt8], _ entries: [[UInt8]: Range<Int>]) -> [(
        Int, PDFReading.Location
    )]? {
        guard let widths = entries[Array("W".utf8)].flatMap(integers), widths.count == 3,
            widths.allSatisfy({ (0...8).contains($0) })
        else { return nil }
        let size = entries[Array("Size".utf8)].flatMap(integer) ?? 0
        let index = entries[Array("Index".utf8)].flatMap(integers) ?? [0, size]
        let row = widths.reduce(0, +)
        guard row > 0, index.count % 2 == 0 else { return nil }
        var result: [(Int, PDFReading.Location)] = []
        var position = 0
        for pair in stride(from: 0, to: index.count, by: 2) {
            for number in index[pair]..<index[pair] + index[pair + 1] {
                guard position + row <= bytes.count else { return result }
                var fields = [0, 0, 0]
                var at = position
                for field in 0..<3 {
                    for _ in 0..<widths[field] {
                        fields[field] = fields[field] << 8 | Int(bytes[at])
                        at += 1
                    }
                }
                position += row
                switch widths[0] == 0 ? 1 : fields[0] {
                case 0: result.append((number, .free))
                case 1: result.append((number, .offset(fields[1])))
                case 2: result.append((number, .inStream(stream: fields[1], index: fields[2])))
                default: break
                }
            }
        }
        return result
    }

    /// An array of whole numbers.
    fileprivate func integers(_ range: Range<Int>) -> [Int]? {
        guard self[range.lowerBound] == UInt8(ascii: "[") else { return nil }
        var values: [Int] = []
        var position = range.lowerBound + 1
        while true {
            position = skipBlank(position)
            guard position < range.upperBound else { return nil }
            if self[position] == UInt8(ascii: "]") { return values }
            guard let (value, end) = unsignedInteger(at: position), values.count < 1_000_000 else { return nil }
            values.append(value)
            position = end
        }
    }

    /// An object stream: `/Type /ObjStm`, or the `/N` and `/First` that
    /// readers go by.
    fileprivate func isObjectStream(_ entries: [[UInt8]: Range<Int>]) -> Bool {
        if let type = entries[Array("Type".utf8)], self[type.lowerBound] == UInt8(ascii: "/") {
            var name: [UInt8] = []
            _ = self.name(at: type.lowerBound, into: &name)
            if name.elementsEqual("ObjStm".utf8) { return true }
        }
        return entries[Array("N".utf8)] != nil && entries[Array("First".utf8)] != nil
    }

    /// The names of a `/Filter` value (one name, or an array of them); an
    /// empty list when there is none; `nil` for anything else.
    fileprivate func names(_ range: Range<Int>?) -> [[UInt8]]? {
        guard let range else { return [] }
        var names: [[UInt8]] = []
        var position = range.lowerBound
        if self[position] == UInt8(ascii: "[") { position += 1 }
        while true {
            position = skipBlank(position)
            guard position < range.upperBound else { return names }
            if self[position] == UInt8(ascii: "]") { return names }
            guard self[position] == UInt8(ascii: "/") else { return nil }
            var name: [UInt8] = []
            position = self.name(at: position, into: &name)
            names.append(name)
        }
    }

    /// A `/DecodeParms` value as one dictionary (or none) per filter;
    /// `nil` when it is something else (such as a reference).
    fileprivate func parameters(_ range: Range<Int>?, count filters: Int) -> [Range<Int>?]? {
        guard let range else { return Array(repeating: nil, count: filters) }
        if starts("<<", at: range.lowerBound) {
            return [range] + Array(repeating: nil, count: Swift.max(0, filters - 1))
        }
        guard self[range.lowerBound] == UInt8(ascii: "[") else {
            return keyword("null", at: range.lowerBound) ? Array(repeating: nil, count: filters) : nil
        }
        var parameters: [Range<Int>?] = []
        var position = range.lowerBound + 1
        while parameters.count < filters {
            position = skipBlank(position)
            guard position < range.upperBound, self[position] != UInt8(ascii: "]") else { break }
            guard let end = skipValue(position) else { return nil }
            if starts("<<", at: position) {
                parameters.append(position..<end)
            } else if keyword("null", at: position) {
                parameters.append(nil)
            } else {
                return nil
            }
            position = end
        }
        return parameters + Array(repeating: nil, count: filters - parameters.count)
    }

    /// The predictor a `/DecodeParms` dictionary asks for; `nil` for one
    /// this reader does not undo (TIFF's) or an unreadable dictionary.
    fileprivate func prediction(_ range: Range<Int>?) -> PDFFilters.Prediction? {
        guard let range else { return PDFFilters.Prediction() }
        guard let entries = dictionary(range.lowerBound)?.entries else { return nil }
        func value(_ key: String, _ fallback: Int) -> Int? {
            guard let range = entries[Array(key.utf8)] else { return fallback }
            return integer(range)
        }
        guard let predictor = value("Predictor", 1), let colors = value("Colors", 1),
            let bits = value("BitsPerComponent", 8), let columns = value("Columns", 1)
        else { return nil }
        guard predictor == 1 || (10...15).contains(predictor), (1...32).contains(colors),
            [1, 2, 4, 8, 16].contains(bits),
            (1...(1 << 20)).contains(columns)
        else { return nil }
        return PDFFilters.Prediction(png: predictor >= 10, colors: colors, bits: bits, columns: columns)
    }

    /// What the `/OpenAction` value at `start` does.
    fileprivate func openAction(at start: Int) -> OpenAction {
        let position = skipBlank(start)
        guard position < count else { return .acts }
        if self[position] == UInt8(ascii: "[") { return .page }
        if starts("<<", at: position) { return goesToAPage(position) ? .page : .acts }
        guard let (number, generation) = reference(at: position) else { return .acts }
        return .object(number: number, generation: generation)
    }

    /// What the catalog at `start` opens with: its `/OpenAction`, or the
    /// first page when it has none; `nil` when it is no dictionary.
    fileprivate func catalogOpening(at start: Int) -> OpenAction? {
        guard let entries = dictionary(skipBlank(start))?.entries else { return nil }
        guard let value = entries[Array("OpenAction".utf8)] else { return .page }
        return openAction(at: value.lowerBound)
    }

    /// The object an `N G R` at `start` names.
    fileprivate func reference(at start: Int) -> (Int, Int)? {
        let position = skipBlank(start)
        guard let (number, afterNumber) = unsignedInteger(at: position),
            let (generation, afterGeneration) = unsignedInteger(at: skipBlank(afterNumber)),
            keyword("R", at: skipBlank(afterGeneration))
        else { return nil }
        return (number, generation)
    }

    /// Whether the object at `start` shows a page: a destination array, or
    /// an action that only goes to one.
    fileprivate func showsAPage(at start: Int) -> Bool {
        let position = skipBlank(start)
        guard position < count else { return false }
        return self[position] == UInt8(ascii: "[") || goesToAPage(position)
    }

    /// A go-to action (`/S /GoTo`), or a destination written as a
    /// dictionary (`<< /D [...] >>`, no action type at all), with nothing
    /// after it (`/Next`).
    private func goesToAPage(_ start: Int) -> Bool {
        guard let entries = dictionary(start)?.entries, entries[Array("Next".utf8)] == nil else { return false }
        guard let kind = entries[Array("S".utf8)] else { return entries[Array("D".utf8)] != nil }
        guard self[kind.lowerBound] == UInt8(ascii: "/") else { return false }
        var name: [UInt8] = []
        _ = self.name(at: kind.lowerBound, into: &name)
        return name.elementsEqual("GoTo".utf8)
    }
}

/// The stream filters an object stream may come in.
private enum PDFFilters {
    struct Prediction {
        var png = false
        var colors = 1
        var bits = 8
        var columns = 1
    }

    /// zlib data inflated, as far as it reads (a reader shows what a
    /// damaged stream gives up to the damage); `nil` past `budget` bytes.
    static func inflate(_ input: [UInt8], budget: Int) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        return input.withUnsafeBufferPointer { source -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = uInt(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                guard output.count <= budget else { return nil }
                if status != Z_OK || produced == 0 { return output }
            }
        }
    }

    /// PNG predictors undone, row by row (a short last row as far as it goes).
    static func unpredict(_ input: [UInt8], _ prediction: Prediction) -> [UInt8]? {
        guard prediction.png else { return input }
        let pixelBytes = max(1, (prediction.colors * prediction.bits + 7) / 8)
        let rowBytes = (prediction.colors * prediction.bits * prediction.columns + 7) / 8
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var previous = [UInt8](repeating: 0, count: rowBytes)
        var row = [UInt8](repeating: 0, count: rowBytes)
        var position = 0
        while position < input.count {
            let kind = input[position]
            let length = min(rowBytes, input.count - position - 1)
            guard kind <= 4 else { return nil }
            for index in 0..<length {
                let raw = input[position + 1 + index]
                let left = index >= pixelBytes ? row[index - pixelBytes] : 0
                let up = previous[index]
                let upLeft = index >= pixelBytes ? previous[index - pixelBytes] : 0
                switch kind {
                case 1: row[index] = raw &+ left
                case 2: row[index] = raw &+ up
                case 3: row[index] = raw &+ UInt8((Int(left) + Int(up)) / 2)
                case 4:
                    let estimate = Int(left) + Int(up) - Int(upLeft)
                    let (a, b, c) = (abs(estimate - Int(left)), abs(estimate - Int(up)), abs(estimate - Int(upLeft)))
                    row[index] = raw &+ (a <= b && a <= c ? left : b <= c ? up : upLeft)
                default: row[index] = raw
                }
            }
            output.append(contentsOf: row[0..<length])
            swap(&previous, &row)
            position += 1 + rowBytes
        }
        return output
    }

    /// ASCIIHexDecode: pairs of hex digits up to `>`, white space skipped,
    /// an odd last digit read as followed by 0.
    static func hex(_ input: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var high: UInt8?
        for byte in input {
            if byte == UInt8(ascii: ">") { break }
            guard let value = PDFBytes.hexValue(byte) else { continue }
            if let first = high {
                output.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        if let high { output.append(high << 4) }
        return output
    }

    /// ASCII85Decode, up to `~>`; `nil` for a character outside it, or
    /// past `limit` bytes (`z` is four of them).
    static func ascii85(_ input: [UInt8], limit: Int) -> [UInt8]? {
        var output: [UInt8] = []
        var group: [UInt32] = []
        func flush(_ digits: [UInt32]) {
            var padded = digits
            while padded.count < 5 { padded.append(84) }
            let value = padded.reduce(UInt64(0)) { $0 * 85 + UInt64($1) }
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt64($0))) }
            output.append(contentsOf: bytes.prefix(digits.count - 1))
        }
        var start = 0
        if input.starts(with: Array("<~".utf8)) { start = 2 }
        for byte in input[start...] {
            if byte == UInt8(ascii: "~") { break }
            if byte.isPDFWhite { continue }
            if byte == UInt8(ascii: "z"), group.isEmpty {
                output.append(contentsOf: [0, 0, 0, 0])
                if output.count > limit { return nil }
                continue
            }
            guard byte >= 33, byte <= 117 else { return nil }
            group.append(UInt32(byte - 33))
            if group.count == 5 {
                flush(group)
                group.removeAll(keepingCapacity: true)
            }
        }
        if group.count > 1 { flush(group) }
        return output
    }
}

import Foundation

/// What search sees of a post, and how text becomes index terms.
///
/// A post's searchable text is the thread title (first post only), the
/// lines of its own text as the page shows them (quotes left out, the
/// signature and the FROM / edit lines in), and the signature the desktop
/// site gives apart. Lines are joined by `\n`, which no query term can hold,
/// so no match spans two lines.
///
/// Every character is indexed, whatever its script: a character alone (for
/// one-character queries) and every pair of neighbours with its position
/// (for everything longer). A term of n characters is found from the pairs
/// at offsets 0, 2, 4… (and n−2), whose positions must line up: that is an
/// exact substring match, so Chinese needs no word list and a Latin word
/// matches by prefix and by substring alike.
package enum SearchText {
    /// NFKC, then lower case: `ＧＰＳ` → `gps`, `iPhone` → `iphone`, and
    /// the final sigma `ς` as `σ` (`slowNormalize`). The client does the
    /// same (`normalize('NFKC').toLowerCase()`, then `ς` → `σ`).
    ///
    /// Characters NFKC and lower case leave alone (ASCII other than capitals,
    /// CJK ideographs) and full-width ASCII are mapped here; only the runs
    /// between them go through Foundation, each with the character before
    /// it, which a combining mark may join.
    package static func normalize(_ text: String) -> String {
        var text = text
        // ASCII is its own NFKC, and lower case changes only its capitals:
        // ids, boards and some posts need no scan of scalars (every
        // document's `b:` and `a:` filters came here, 1.1 % of indexing),
        // and without capitals not even a copy.
        let ascii = text.withUTF8 { bytes -> (all: Bool, capitals: Bool) in
            var capitals = false
            for byte in bytes {
                if byte >= 0x80 { return (false, false) }
                if byte >= 0x41 && byte <= 0x5A { capitals = true }
            }
            return (true, capitals)
        }
        if ascii.all {
            guard ascii.capitals else { return text }
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        // Read and spelled as UTF-8 bytes, the runs of characters the fast
        // path leaves as they are copied whole: decoded as scalars and each
        // encoded again, that was half of this function's instructions.
        return text.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            // Where the run of characters left as they are, not yet copied,
            // starts in `bytes` (-1: none); where the run for Foundation
            // starts (-1: none; never both); where the last character starts
            // when the fast path took it (-1: it did not).
            var copyStart = -1
            var slowStart = -1
            var previousStart = -1
            /// How many bytes the last fast character took in `out`, when it was mapped.
            var lastLength = 0
            func flush(upTo end: Int) {
                if copyStart >= 0 {
                    if end > copyStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copyStart..<end])) }
                    copyStart = -1
                }
                if slowStart >= 0 {
                    let run = String(decoding: UnsafeBufferPointer(rebasing: bytes[slowStart..<end]), as: UTF8.self)
                    out.append(contentsOf: slowNormalize(run).utf8)
                    slowStart = -1
                }
            }
            var index = 0
            while index < bytes.count {
                let lead = bytes[index]
                // Valid UTF-8 (a `String`'s): the lead byte says the length.
                let length: Int
                var value: UInt32
                if lead < 0x80 {
                    length = 1
                    value = UInt32(lead)
                } else if lead < 0xE0 {
                    length = 2
                    value = UInt32(lead & 0x1F)
                } else if lead < 0xF0 {
                    length = 3
                    value = UInt32(lead & 0x0F)
                } else {
                    length = 4
                    value = UInt32(lead & 0x07)
                }
                for offset in 1..<max(1, length) { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
                if let scalar = Unicode.Scalar(value), let fast = fastNormalized(scalar) {
                    if fast.value == value {
                        if slowStart >= 0 { flush(upTo: index) }
                        if copyStart < 0 { copyStart = index }
                    } else {
                        flush(upTo: index)
                        let before = out.count
                        appendUTF8(fast.value, to: &out)
                        lastLength = out.count - before
                    }
                    previousStart = index
                } else {
                    if slowStart < 0 {
                        if previousStart >= 0 {
                            // The character before goes with the run: a mark may join it.
                            if copyStart >= 0 {
                                flush(upTo: previousStart)
                            } else {
                                out.removeLast(lastLength)
                            }
                            slowStart = previousStart
                        } else {
                            flush(upTo: index)
                            slowStart = index
                        }
                    }
                    previousStart = -1
                }
                index += length
            }
            flush(upTo: bytes.count)
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// A scalar's UTF-8 bytes.
    static func appendUTF8(_ value: UInt32, to out: inout [UInt8]) {
        if value < 0x80 {
            out.append(UInt8(value))
        } else if value < 0x800 {
            out.append(UInt8(0xC0 | value >> 6))
            out.append(UInt8(0x80 | value & 0x3F))
        } else if value < 0x10000 {
            out.append(UInt8(0xE0 | value >> 12))
            out.append(UInt8(0x80 | (value >> 6) & 0x3F))
            out.append(UInt8(0x80 | value & 0x3F))
        } else {
            out.append(UInt8(0xF0 | value >> 18))
            out.append(UInt8(0x80 | (value >> 12) & 0x3F))
            out.append(UInt8(0x80 | (value >> 6) & 0x3F))
            out.append(UInt8(0x80 | value & 0x3F))
        }
    }

    /// NFKC and lower case through Foundation, then `ς` → `σ`.
    ///
    /// JavaScript's `toLowerCase` (the client's) spells a capital sigma at
    /// the end of a word `ς` and Swift's `lowercased` spells it `σ`, so a
    /// query `ΟΔΟΣ` was `οδος` in the page and `οδοσ` in the index, and
    /// found neither `ΟΔΟΣ` nor `ΟΔΟΣΑ`. Both sides fold it to `σ`, as
    /// Unicode's case folding does; where a word ends no longer matters.
    static func slowNormalize(_ text: String) -> String {
        let lowered = nfkc(text).lowercased()
        guard lowered.unicodeScalars.contains(finalSigma) else { return lowered }
        return String(String.UnicodeScalarView(lowered.unicodeScalars.map { $0 == finalSigma ? "\u{03C3}" : $0 }))
    }

    private static let finalSigma: Unicode.Scalar = "\u{03C2}"

    /// NFKC as Unicode (and the page's ICU) defines it: Foundation's
    /// decomposition, then its canonical composition for all but Hangul,
    /// whose jamo are composed by Unicode's own arithmetic.
    ///
    /// Foundation's NFKC (Swift 6.3.1) parts from ICU's on 3,455 of the
    /// 572,717 pairs of jamo, syllables, kana and marks the QA helper
    /// compared, so a post was filed under terms no query makes (QA F2):
    /// it leaves `ｶﾞ` as カ and a mark, and `ㅎㅏ` and `가`+`ᆨ` apart; it
    /// puts an archaic vowel (from U+1176) into a syllable (`ᄀᅶ` became
    /// 까, which the post does not hold); and after a compatibility
    /// character it leaves marks out of their canonical order (`¨ﾞ`). Its
    /// own decomposition and its canonical composition are right: this way
    /// all those pairs, and 169,670 of every compatibility character with
    /// ten marks and jamo, read as ICU 78 (node 20) reads them. Its tables
    /// predate Unicode 16: the 37 characters with compatibility mappings
    /// since (`laterMappings`) are mapped first.
    static func nfkc(_ text: String) -> String {
        var mapped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { mapped.append(laterMappings(scalar) ?? scalar) }
        let decomposed = Array(String(mapped).decomposedStringWithCompatibilityMapping.unicodeScalars)
        var composed = String.UnicodeScalarView()
        var start = 0
        while start < decomposed.count {
            // Runs of Hangul jamo and of everything else: no character of
            // one composes with a character of the other.
            let hangul = isJamo(decomposed[start])
            var end = start + 1
            while end < decomposed.count, isJamo(decomposed[end]) == hangul { end += 1 }
            let run = decomposed[start..<end]
            if hangul {
                composeHangul(run, into: &composed)
            } else {
                let text = String(String.UnicodeScalarView(run))
                composed.append(contentsOf: text.precomposedStringWithCanonicalMapping.unicodeScalars)
            }
            start = end
        }
        return String(composed)
    }

    /// Conjoining jamo (and their extensions), which only Hangul's own
    /// composition joins.
    private static func isJamo(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x11FF, 0xA960...0xA97F, 0xD7B0...0xD7FF: true
        default: false
        }
    }

    /// Unicode's composition of Hangul (section 3.12): a leading consonant
    /// and a vowel make a syllable, an LV syllable and a trailing consonant
    /// an LVT one; only the modern jamo (L < U+1113, V < U+1176,
    /// T < U+11C3) do.
    private static func composeHangul(_ run: ArraySlice<Unicode.Scalar>, into out: inout String.UnicodeScalarView) {
        var pending: UInt32?
        for scalar in run {
            let value = scalar.value
            if let last = pending {
                if (0x1100..<0x1113).contains(last), (0x1161..<0x1176).contains(value) {
                    pending = 0xAC00 + ((last - 0x1100) * 21 + (value - 0x1161)) * 28
                    continue
                }
                if (0xAC00..<0xAC00 + 11_172).contains(last), (last - 0xAC00) % 28 == 0,
                    (0x11A8..<0x11C3).contains(value)
                {
                    pending = last + (value - 0x11A7)
                    continue
                }
                if let previous = Unicode.Scalar(last) { out.append(previous) }
            }
            pending = value
        }
        if let last = pending, let scalar = Unicode.Scalar(last) { out.append(scalar) }
    }

    /// Compatibility mappings Unicode 16 and 17 added, which Foundation's
    /// tables lack and current browsers have: outlined Latin capitals and
    /// digits (U+1CCD6–U+1CCF9) and the modifier capital S (U+A7F1).
    private static func laterMappings(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x1CCD6...0x1CCEF: Unicode.Scalar(scalar.value - 0x1CCD6 + 0x41)
        case 0x1CCF0...0x1CCF9: Unicode.Scalar(scalar.value - 0x1CCF0 + 0x30)
        case 0xA7F1: "S"
        default: nil
        }
    }

    /// What NFKC and lower case make of a character that neither joins
    /// nor is joined by its neighbours; `nil` for every other character.
    static func fastNormalized(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        let value = scalar.value
        switch value {
        case 0x41...0x5A: return Unicode.Scalar(UInt8(value + 0x20))
        case 0...0x7F, 0x3400...0x4DBF, 0x4E00...0x9FFF: return scalar
        // CJK punctuation (、。 【】 〔〕 …) and box drawing: their own NFKC
        // and lower case, joined by no mark (。 alone sent 240,000 runs of
        // the 100k store through Foundation).
        case 0x3001...0x3003, 0x300A...0x3011, 0x3014...0x301F, 0x2500...0x259F: return scalar
        case 0xFF21...0xFF3A: return Unicode.Scalar(UInt8(value - 0xFF21 + 0x61))
        case 0xFF01...0xFF5E: return Unicode.Scalar(UInt8(value - 0xFF01 + 0x21))
        case 0x3000: return " "
        default: return nil
        }
    }

    /// The searchable text of a post, before normalization.
    ///
    /// Spelled from the UTF-8 bytes of its title, body and signature,
    /// line by line: a line goes out as it is unless it holds a control
    /// character (then `InlineText.plain` reads it), and only the lines
    /// the conventions may read as quotes (`mayQuote`) are asked
    /// (`isQuote`: by their bytes where the forum can, else as `String`s).
    /// The same text as `searchableByBlocks`, which reads the
    /// body's blocks (`PostNormalizer`) as the page does: that took 14.5 %
    /// of the instructions of indexing the 10k store, most of it a `String`
    /// for every line and the blocks, which search throws away. Text with
    /// a carriage return (`\r\n` is one `Character`) goes that way.
    package static func searchable(post: StoredPost, threadTitle: String, conventions: any PostConventions) -> String {
        let signature = post.signature ?? ""
        if post.body.containsUTF8(0x0D) || signature.containsUTF8(0x0D) {
            return searchableByBlocks(post: post, threadTitle: threadTitle, conventions: conventions)
        }
        var out = SearchableLines(capacity: post.body.utf8.count + signature.utf8.count + threadTitle.utf8.count + 2)
        if post.floor == 0 {
            var title = threadTitle
            title.withUTF8 { out.append($0) }
        }
        var body = post.body
        body.withUTF8 { bytes in
            // The post's own empty lines not yet written: they go out before
            // the next line of its own or the next quote, and are dropped at
            // the end (as `PostNormalizer` drops a body's last empty lines).
            var empty = 0
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != 0x0A { end += 1 }
                let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
                start = end + 1
                if conventions.mayQuote(line), conventions.isQuote(line) {
                    out.appendEmpty(empty)
                    empty = 0
                    continue
                }
                if line.isEmpty {
                    empty += 1
                } else {
                    out.appendEmpty(empty)
                    empty = 0
                    out.append(line)
                }
            }
        }
        if !signature.isEmpty {
            var signature = signature
            signature.withUTF8 { bytes in
                var start = 0
                while start <= bytes.count {
                    var end = start
                    while end < bytes.count && bytes[end] != 0x0A { end += 1 }
                    out.append(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                    start = end + 1
                }
            }
        }
        return out.text
    }

    /// Lines joined by `\n`, each as `InlineText.plain` makes it, up to the
    /// last that is not blank (`isBlank`), as UTF-8 bytes.
    private struct SearchableLines {
        var bytes: [UInt8] = []
        var lines = 0
        /// Where the last line that is not blank ends.
        var kept = 0

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        mutating func append(_ line: UnsafeBufferPointer<UInt8>) {
            if lines > 0 { bytes.append(0x0A) }
            lines += 1
            let start = bytes.count
            // `InlineText.plain` leaves a line alone unless it holds a control
            // character other than tab (ESC included).
            if line.contains(where: { $0 < 0x20 && $0 != 0x09 }) {
                bytes.append(contentsOf: InlineText.plain(String(decoding: line, as: UTF8.self)).utf8)
            } else {
                bytes.append(contentsOf: line)
            }
            if !Self.isBlank(bytes[start...]) { kept = bytes.count }
        }

        mutating func appendEmpty(_ count: Int) {
            for _ in 0..<count {
                if lines > 0 { bytes.append(0x0A) }
                lines += 1
            }
        }

        var text: String { String(decoding: bytes[..<kept], as: UTF8.self) }

        /// Whether every scalar of the line (valid UTF-8) is blank.
        static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
            var iterator = line.makeIterator()
            var decoder = UTF8()
            while case .scalarValue(let scalar) = decoder.decode(&iterator) {
                if !SearchText.isBlank(scalar) { return false }
            }
            return true
        }
    }

    /// The searchable text of a post read from its blocks, as the page
    /// shows them (`PostNormalizer`): what `searchable` must give.
    static func searchableByBlocks(post: StoredPost, threadTitle: String, conventions: any PostConventions) -> String {
        var lines: [String] = []
        if post.floor == 0 { lines.append(InlineText.plain(threadTitle)) }
        for block in PostNormalizer.normalize(post.body, conventions: conventions).blocks {
            guard case .text(let text) = block else { continue }
            lines += text.map(InlineText.plain)
        }
        if let signature = post.signature, !signature.isEmpty {
            lines += signature.split(separator: "\n", omittingEmptySubsequences: false).map {
                InlineText.plain(String($0))
            }
        }
        while let last = lines.last, last.unicodeScalars.allSatisfy(isBlank) { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// The terms of normalized text: each distinct character (`unigrams`)
    /// and each pair of neighbours with the positions (in Unicode scalars)
    /// where it starts (`bigrams`). Pairs across a line break are left out.
    package static func terms(_ normalized: String) -> (unigrams: Set<String>, bigrams: [String: [Int]]) {
        let scalars = Array(normalized.unicodeScalars)
        var unigrams = Set<String>()
        var bigrams: [String: [Int]] = [:]
        for (index, scalar) in scalars.enumerated() where !isSeparator(scalar) {
            // A character a query splits on is never a term; any other is,
            // U+0085 too (Unicode's White_Space, not JavaScript's `\s`).
            if !isQuerySpace(scalar) { unigrams.insert(String(scalar)) }
            guard index + 1 < scalars.count, !isSeparator(scalars[index + 1]) else { continue }
            var pair = String.UnicodeScalarView()
            pair.append(scalar)
            pair.append(scalars[index + 1])
            bigrams[String(pair), default: []].append(index)
        }
        return (unigrams, bigrams)
    }

    static func isSeparator(_ scalar: Unicode.Scalar) -> Bool { scalar == "\n" || scalar == "\r" }

    /// Whether `CharacterSet.whitespaces` holds a scalar; ASCII and CJK
    /// ideographs answered without it.
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 { return value == 0x20 || value == 0x09 }
        if (0x4E00...0x9FFF).contains(value) { return false }
        return CharacterSet.whitespaces.contains(scalar)
    }

    /// The same terms as `terms`, as numbers, for the index writer: each
    /// distinct character's scalar value (`unigrams`, in the order they
    /// first occur), and each pair's key (`pairKey`) with a position,
    /// grouped by key (the keys in the order they first occur, each key's
    /// positions ascending).
    ///
    /// Grouped through a small hash table rather than sorted: the writer
    /// needs each key's positions together, not the keys in order (a
    /// shard's file orders its terms by their text), and sorting every
    /// pair and every character (duplicates and all) was 6 % of indexing's
    /// user time at 100k; sorting the distinct characters alone, 2.7 %.
    static func termKeys(_ normalized: String) -> (unigrams: [UInt32], pairs: [(key: UInt64, position: Int)]) {
        let room = TermRoom()
        termKeys(normalized, into: room)
        return (Array(room.unigrams), Array(room.pairs))
    }

    /// `termKeys` into `room`, whose `unigrams` and `pairs` hold them
    /// until its next document.
    static func termKeys(_ normalized: String, into room: TermRoom) {
        let size = normalized.utf8.count
        // Sized for about one key in two scalars (at most one a UTF-8 byte).
        var characters = room.characters.take(capacity: size / 4)
        var pairKeys = room.pairKeys.take(capacity: size / 2)
        defer { room.putBack(characters: characters, pairKeys: pairKeys) }
        // Each pair's key number and position, written through buffers of
        // room enough (a pair a scalar at most, a scalar a byte at least):
        // `append` checked the capacity and the reference count of both
        // arrays for every pair.
        let (groups, places) = room.pairRoom(size)
        var pairCount = 0
        var previous: UInt32?
        var index = 0
        for scalar in normalized.unicodeScalars {
            let value = scalar.value
            defer { index += 1 }
            if value == 0x0A || value == 0x0D {
                previous = nil
                continue
            }
            if let previous, pairCount < size {
                groups[pairCount] = pairKeys.group(of: pairKey(previous, value))
                places[pairCount] = index - 1
                pairCount += 1
            }
            previous = value
            let whitespace: Bool
            if value < 0x80 {
                whitespace = value == 0x20 || (0x09...0x0D).contains(value)
            } else if (0x4E00...0x9FFF).contains(value) {
                whitespace = false
            } else {
                whitespace = isQuerySpace(scalar)
            }
            if !whitespace { _ = characters.group(of: UInt64(value)) }
        }
        let unigrams = room.unigramRoom(characters.keys.count)
        for (at, key) in characters.keys.enumerated() { unigrams[at] = UInt32(truncatingIfNeeded: key) }
        // Each key's positions in one run, in the order they came (ascending).
        let starts = room.startRoom(pairKeys.keys.count + 1)
        starts.update(repeating: 0)
        for group in groups[..<pairCount] { starts[Int(group) + 1] += 1 }
        for group in pairKeys.keys.indices { starts[group + 1] += starts[group] }
        let pairs = room.resultRoom(pairCount)
        for at in 0..<pairCount {
            let group = Int(groups[at])
            pairs[starts[group]] = (pairKeys.keys[group], places[at])
            starts[group] += 1
        }
        room.unigrams = UnsafeBufferPointer(unigrams)
        room.pairs = UnsafeBufferPointer(pairs)
    }

    /// What `termKeys` works in, kept by one thread from one document to
    /// the next: made anew for each document, its eight arrays were eight
    /// blocks taken and given back a document.
    final class TermRoom {
        /// The tables of characters and of pairs, taken by `termKeys` while
        /// it works (`KeyGroups.take`) and put back after.
        fileprivate var characters = KeyGroups()
        fileprivate var pairKeys = KeyGroups()
        private var groups = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
        private var places = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
        private var starts = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
        private var unigramBuffer = UnsafeMutableBufferPointer<UInt32>(start: nil, count: 0)
        private var pairBuffer = UnsafeMutableBufferPointer<(key: UInt64, position: Int)>(start: nil, count: 0)
        /// The last document's characters, in the order they first occur, and pairs, grouped by
        /// key: valid until its next `termKeys`.
        fileprivate(set) var unigrams = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
        fileprivate(set) var pairs = UnsafeBufferPointer<(key: UInt64, position: Int)>(start: nil, count: 0)

        init() {}

        deinit {
            groups.deallocate()
            places.deallocate()
            starts.deallocate()
            unigramBuffer.deallocate()
            pairBuffer.deallocate()
        }

        fileprivate func putBack(characters: KeyGroups, pairKeys: KeyGroups) {
            self.characters = characters
            self.pairKeys = pairKeys
        }

        /// Room for `count` pairs' key numbers and positions.
        fileprivate func pairRoom(_ count: Int) -> (UnsafeMutableBufferPointer<Int32>, UnsafeMutableBufferPointer<Int>)
        {
            groups.makeRoom(count)
            places.makeRoom(count)
            return (groups, places)
        }

        fileprivate func unigramRoom(_ count: Int) -> UnsafeMutableBufferPointer<UInt32> {
            unigramBuffer.makeRoom(count)
            return UnsafeMutableBufferPointer(rebasing: unigramBuffer[..<count])
        }

        fileprivate func startRoom(_ count: Int) -> UnsafeMutableBufferPointer<Int> {
            starts.makeRoom(count)
            return UnsafeMutableBufferPointer(rebasing: starts[..<count])
        }

        fileprivate func resultRoom(_ count: Int) -> UnsafeMutableBufferPointer<(key: UInt64, position: Int)> {
            pairBuffer.makeRoom(count)
            return UnsafeMutableBufferPointer(rebasing: pairBuffer[..<count])
        }
    }

    /// Distinct keys in the order they first came, each with its number:
    /// open addressing, a multiplicative hash, linear probing.
    struct KeyGroups {
        private(set) var keys: [UInt64] = []
        /// Places in `keys`, -1 where empty; a power of two, at most half full.
        private var slots: [Int32] = []
        private var shift: UInt64 = 64

        /// Empty; the slots come with the first key.
        init() {}

        init(capacity: Int) {
            keys.reserveCapacity(capacity)
            var size = 64
            while size < capacity * 2 { size *= 2 }
            slots = [Int32](repeating: -1, count: size)
            shift = UInt64(64 - size.trailingZeroBitCount)
        }

        /// The number of `key`, added when new.
        /// Probed through buffer pointers, and stored to only for a new key
        /// (a store to `slots` checked its uniqueness at every probe's end).
        @inline(__always)
        mutating func group(of key: UInt64) -> Int32 {
            if (keys.count + 1) * 2 > slots.count { grow() }
            let mask = slots.count - 1
            let start = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
            let (found, free) = slots.withUnsafeBufferPointer { slots in
                keys.withUnsafeBufferPointer { keys -> (Int32, Int) in
                    var slot = start
                    while true {
                        let found = slots[slot]
                        if found < 0 { return (-1, slot) }
                        if keys[Int(found)] == key { return (found, slot) }
                        slot = (slot + 1) & mask
                    }
                }
            }
            if found >= 0 { return found }
            let number = Int32(truncatingIfNeeded: keys.count)
            slots[free] = number
            keys.append(key)
            return number
        }

        /// This table, emptied for about `capacity` keys, its memory kept
        /// (`removeAll(capacity:)`); it is left empty meanwhile. For a
        /// table held by a class, taken out while it is changed: a class's
        /// property, changed in place, is checked for exclusive access at
        /// every change.
        mutating func take(capacity: Int) -> KeyGroups {
            var taken = KeyGroups()
            swap(&taken, &self)
            taken.removeAll(capacity: capacity)
            return taken
        }

        /// Empty, with slots for about `capacity` keys; the memory it has
        /// is kept when it is enough, and not far more.
        mutating func removeAll(capacity: Int) {
            keys.removeAll(keepingCapacity: keys.capacity <= 4 * max(capacity, 1024))
            keys.reserveCapacity(capacity)
            var size = 64
            while size < capacity * 2 { size *= 2 }
            // Kept unless far larger than asked (one long post before many short ones).
            if slots.count >= size && slots.count <= 4 * max(size, 2048) {
                size = slots.count
                slots.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
            } else {
                slots = [Int32](repeating: -1, count: size)
            }
            shift = UInt64(64 - size.trailingZeroBitCount)
        }

        private mutating func grow() {
            let capacity = max(64, slots.count * 2)
            shift = UInt64(64 - capacity.trailingZeroBitCount)
            slots = [Int32](repeating: -1, count: capacity)
            let mask = capacity - 1
            for (at, key) in keys.enumerated() {
                var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
                while slots[slot] >= 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(truncatingIfNeeded: at)
            }
        }
    }

    /// A pair of scalars as one number (21 bits each).
    static func pairKey(_ first: UInt32, _ second: UInt32) -> UInt64 { UInt64(first) << 21 | UInt64(second) }

    /// The text of a unigram (`pair == false`) or pair key.
    static func termText(_ key: UInt64, pair: Bool) -> String {
        var view = String.UnicodeScalarView()
        if pair, let first = Unicode.Scalar(UInt32(truncatingIfNeeded: key >> 21)) { view.append(first) }
        if let last = Unicode.Scalar(UInt32(truncatingIfNeeded: pair ? key & 0x1F_FFFF : key)) { view.append(last) }
        return String(view)
    }

    /// A query split as the client splits it: terms (normalized, each a
    /// substring that must occur) and filters. `"…"` keeps spaces in a term.
    package struct Query: Equatable, Sendable {
        package var terms: [String] = []
        package var board: String?
        package var author: String?
        /// `YYYY-MM-DD`, in the forum's zone, inclusive.
        package var after: String?
        package var before: String?
        /// Date filters whose value is not a day (`after:2025-13-45`): the
        /// client says so instead of searching.
        package var problems: [String] = []
        /// Two filters of one kind that no post can both meet (two boards).
        package var contradictory = false

        /// Nothing to look for: no term, no filter, nothing wrong.
        package var isEmpty: Bool {
            terms.isEmpty && board == nil && author == nil && after == nil && before == nil && problems.isEmpty
                && !contradictory
        }

        /// Whether any post can match: a query with a problem or contradictory filters finds none.
        package var canMatch: Bool { !isEmpty && problems.isEmpty && !contradictory }
    }

    /// The filters, named before a colon.
    private static let filterKeys: Set<String> = ["board", "author", "after", "before"]

    /// The filter a token names (its text NFKC-normalized and case-folded
    /// before the colon, so `board：X` is `board:X`), or nil.
    static func filterKey(_ text: String) -> String? {
        filterParts(normalize(text))?.key
    }

    /// A normalized token's name before its first colon, if that is a
    /// filter's, and the rest after the colon. Read by scalar, as the client
    /// reads code points (`board:\u{301}x`: a `Character` would hold the
    /// colon and the mark together).
    static func filterParts(_ folded: String) -> (key: String, value: String)? {
        let scalars = folded.unicodeScalars
        guard let colon = scalars.firstIndex(of: ":"), colon > scalars.startIndex else { return nil }
        let key = String(scalars[..<colon])
        guard filterKeys.contains(key) else { return nil }
        return (key, String(scalars[scalars.index(after: colon)...]))
    }

    /// What JavaScript's `\s` matches, where the client splits a query:
    /// not quite Unicode's White_Space (U+FEFF is one here, U+0085 is not).
    static func isQuerySpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
            return true
        default:
            return scalar.properties.generalCategory == .spaceSeparator
        }
    }

    /// Parses a query the way `assets/search.js` does, code point by code
    /// point (a space and the mark after it are two, not one `Character`).
    /// A filter with nothing after its colon is left out (it is being
    /// typed); `board:"X"` is `board:X`; a date filter whose value is not a
    /// day is a problem; two filters of one kind must both hold.
    package static func parse(_ query: String) -> Query {
        var result = Query()
        var tokens: [(text: String, quoted: Bool)] = []
        var current = String.UnicodeScalarView()
        var quoted = false
        var valueQuoted = false
        for scalar in query.unicodeScalars {
            if scalar == "\"" {
                if quoted {
                    tokens.append((String(current), !valueQuoted))
                    current = String.UnicodeScalarView()
                    valueQuoted = false
                } else if !current.isEmpty, filterKey(String(current)) != nil,
                    normalize(String(current)).unicodeScalars.last == ":"
                {
                    valueQuoted = true
                } else if !current.isEmpty {
                    tokens.append((String(current), false))
                    current = String.UnicodeScalarView()
                }
                quoted.toggle()
            } else if !quoted && isQuerySpace(scalar) {
                if !current.isEmpty { tokens.append((String(current), false)) }
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { tokens.append((String(current), quoted && !valueQuoted)) }
        for (text, isQuoted) in tokens {
            if !isQuoted, let (key, value) = filterParts(normalize(text)) {
                if value.isEmpty { continue }
                switch key {
                case "board":
                    if let board = result.board, board != value { result.contradictory = true }
                    result.board = value
                case "author":
                    if let author = result.author, author != value { result.contradictory = true }
                    result.author = value
                default:
                    guard let day = day(value) else {
                        result.problems.append(text)
                        continue
                    }
                    if key == "after" {
                        result.after = max(result.after ?? day, day)
                    } else {
                        result.before = min(result.before ?? day, day)
                    }
                }
                continue
            }
            let term = normalize(text)
            // A term twice is the same condition once (a link that repeats
            // a term thousands of times made the page do its work as often).
            if !term.isEmpty, !term.unicodeScalars.allSatisfy(isQuerySpace), !result.terms.contains(term) {
                result.terms.append(term)
            }
        }
        return result
    }

    /// `YYYY-M-D` of a day that exists (ASCII digits, month and day of one
    /// or two), spelled `YYYY-MM-DD`; nil for anything else.
    static func day(_ text: String) -> String? {
        guard text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month)
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return nil }
        return String(parts[0]) + (month < 10 ? "-0" : "-") + String(month) + (day < 10 ? "-0" : "-") + String(day)
    }

    /// Whether normalized searchable text matches a parsed query's terms:
    /// every term occurs as a substring. (Filters are checked apart.)
    package static func matches(_ normalized: String, terms: [String]) -> Bool {
        terms.allSatisfy { normalized.contains($0) }
    }
}

extension UnsafeMutableBufferPointer {
    /// Room for `count` elements at least, its contents not kept (written
    /// before they are read), for memory a thread keeps from one use to
    /// the next (`SearchText.TermRoom`, `DecodeRoom`). A smaller block
    /// grows by half again at least, so a run of slightly larger uses does
    /// not allocate each time; one far larger than asked (four times, past
    /// 1,024) is given back, as after one long post before many short ones.
    mutating func makeRoom(_ count: Int) {
        let grow = self.count < count
        guard grow || self.count > 4 * Swift.max(count, 1024) else { return }
        let size = grow ? Swift.max(count, 64, self.count + self.count / 2) : Swift.max(count, 64)
        deallocate()
        self = .allocate(capacity: size)
    }
}

import Foundation

/// HTML's rules for whitespace in text nodes, for readers that rebuild the
/// lines of a text from its markup.
///
/// ASCII whitespace (space, tab, newline, carriage return, form feed) is
/// collapsible: a run of it shows as one space, and none shows at the start
/// or the end of a line. A newline in a text node is therefore a space like
/// any other, never a line break: `<br>` (and the page's own structure)
/// decide the lines. `&nbsp;` is not collapsible; it is a space that counts.
enum HTMLWhitespace {
    static func isCollapsible(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy { scalar in
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
        }
    }

    /// Whether the text is empty or only spaces as `CharacterSet.whitespaces`
    /// counts them (tab, the Unicode space separators Zs, and U+200B): the same
    /// answer as `trimmingCharacters(in: .whitespaces).isEmpty`, without
    /// going through Foundation.
    static func isBlank(_ text: String) -> Bool { text.isBlankLine }

    /// `text.trimmingCharacters(in: .whitespaces)` (or, with `newlines`,
    /// `.whitespacesAndNewlines`) without going through Foundation: the same
    /// scalars go from both ends (`Unicode.Scalar.isBlank`, `isBlankOrNewline`).
    static func trimmed(_ text: String, newlines: Bool) -> String {
        newlines ? text.trimmingBlanksAndNewlines : text.trimmingBlanks
    }

    static func trimmed(_ text: Substring, newlines: Bool) -> String {
        String(text).trimmingScalars(where: newlines ? \.isBlankOrNewline : \.isBlank)
    }

    /// Every U+00A0 a plain space (scalar by scalar).
    static func plainSpaces(_ text: String) -> String {
        // U+00A0 is C2 A0 in UTF-8, and nothing else is: a quick no by bytes.
        guard ByteSearch.contains(text, "\u{00A0}") else { return text }
        // By bytes: C2 A0 becomes 20, every other byte stays (in valid
        // UTF-8, C2 always starts a scalar). Appending scalar by scalar
        // cost 15,000 instructions a board list row.
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var pendingC2 = false
        for byte in text.utf8 {
            if pendingC2 {
                pendingC2 = false
                if byte == 0xA0 {
                    out.append(0x20)
                    continue
                }
                out.append(0xC2)
            }
            if byte == 0xC2 { pendingC2 = true } else { out.append(byte) }
        }
        if pendingC2 { out.append(0xC2) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Text as one line: every run of collapsible whitespace is one space,
    /// none at either end; `&nbsp;` (U+00A0) becomes a plain space after.
    static func collapse(_ text: String) -> String {
        var line = CollapsingLine()
        line.append(text)
        return line.finish()
    }

    /// A short field (a title, a nick, a name) as the page shows it: the
    /// line-wrapping of its markup undone (`unwrap`), trimmed at both ends,
    /// and the spaces inside kept as they are. Every place a front end
    /// reads the same field (a thread's title on its list row and on its
    /// own page) reads it through this, so the readings agree however the
    /// markup around it is wrapped.
    static func field(_ text: String) -> String { trimmed(unwrap(text), newlines: true) }

    /// Undoes the line-wrapping of re-indented markup and nothing else: a
    /// run of whitespace that holds a line break becomes one space, other
    /// runs stay as they are. For short fields (titles, nicks) whose spaces
    /// the page writes as they are.
    static func unwrap(_ text: String) -> String {
        guard text.contains(where: { $0.unicodeScalars.contains { $0 == "\n" || $0 == "\r" } }) else { return text }
        var out = ""
        var run = ""
        func flush() {
            if run.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) {
                out += " "
            } else {
                out += run
            }
            run = ""
        }
        for character in text {
            if isCollapsible(character) {
                run.append(character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }
}

/// One line of text built from text nodes by HTML's whitespace rules, with
/// room for text that is not shown (colour codes) in between.
struct CollapsingLine {
    /// The line so far as UTF-8 (always valid: only whole pieces and runs
    /// cut at ASCII or U+00A0 go in), made a string once, at the end.
    private var bytes: [UInt8] = []
    /// The line so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }
    /// Whether the line shows anything yet (hidden codes do not count).
    private(set) var started = false
    /// Where the collapsible space that ends the line so far is (UTF-8
    /// offset): it goes when the line ends there, or when more whitespace
    /// follows.
    private var trailingSpace: Int?

    /// Text of a text node: collapsible whitespace collapses.
    ///
    /// Works on the UTF-8 bytes when that gives the same line as going
    /// character by character (`appendByCharacters`), which is whenever no
    /// space or U+00A0 joins a neighbour into one grapheme cluster (a
    /// combining mark after it, a prepended mark before it): then every
    /// whitespace character is one ASCII byte (or CR LF, two), U+00A0 is
    /// `C2 A0`, and everything else is copied in runs.
    mutating func append(_ piece: String) {
        var piece = piece
        let done = piece.withUTF8 { bytes -> Bool in
            guard Self.bytesAreCharacters(bytes) else { return false }
            appendBytes(bytes)
            return true
        }
        if !done { appendByCharacters(piece) }
    }

    /// `append` of a text node's bytes as libxml2 holds them, without
    /// making a string of them first; bytes that are not valid UTF-8 are
    /// read as `String(cString:)` reads them (each bad sequence U+FFFD).
    mutating func append(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        if TextEncodingDetector.isValidUTF8(bytes), Self.bytesAreCharacters(bytes) {
            appendBytes(bytes)
        } else {
            appendByCharacters(String(decoding: bytes, as: UTF8.self))
        }
    }

    private mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        func flushRun(_ end: Int) {
            guard end > runStart else { return }
            self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<end]))
            started = true
            trailingSpace = nil
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                flushRun(index)
                index += 1
                runStart = index
                guard started, trailingSpace == nil else { continue }
                trailingSpace = self.bytes.count
                self.bytes.append(0x20)
            } else if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0xA0 {
                flushRun(index)
                index += 2
                runStart = index
                self.bytes.append(0x20)
                started = true
                trailingSpace = nil
            } else {
                index += 1
            }
        }
        flushRun(bytes.count)
    }

    /// Whether no space (U+0020) or U+00A0 in `bytes` forms a grapheme
    /// cluster with the scalar before or after it: both are ASCII, absent,
    /// or in the ranges below, none of which holds a combining, joining or
    /// prepended mark (CJK text, its punctuation and full-width forms, the
    /// general punctuation and the symbol blocks qualify).
    static func bytesAreCharacters(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let width = byte == 0x20 ? 1 : (byte == 0xC2 && index + 1 < bytes.count && bytes[index + 1] == 0xA0 ? 2 : 0)
            guard width > 0 else {
                index += 1
                continue
            }
            if index > 0, !isPlainNeighbour(scalar(before: index, in: bytes)) { return false }
            if index + width < bytes.count, !isPlainNeighbour(scalar(at: index + width, in: bytes)) { return false }
            index += width
        }
        return true
    }

    private static func isPlainNeighbour(_ value: UInt32) -> Bool {
        switch value {
        case 0..<0x300, 0x2000...0x200B, 0x200E...0x206F, 0x2190...0x2BFF, 0x3000...0x3029, 0x3041...0x3096,
            0x30A0...0x30FF, 0x3400...0x4DBF,
            0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xFF01...0xFF5E:
            true
        default: false
        }
    }

    /// The scalar whose UTF-8 starts at `index` (valid UTF-8 assumed).
    private static func scalar(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let lead = UInt32(bytes[index])
        func continuation(_ offset: Int) -> UInt32 {
            index + offset < bytes.count ? UInt32(bytes[index + offset] & 0x3F) : 0
        }
        switch lead {
        case 0..<0x80: return lead
        case 0xC0..<0xE0: return (lead & 0x1F) << 6 | continuation(1)
        case 0xE0..<0xF0: return (lead & 0x0F) << 12 | continuation(1) << 6 | continuation(2)
        default: return (lead & 0x07) << 18 | continuation(1) << 12 | continuation(2) << 6 | continuation(3)
        }
    }

    /// The scalar that ends right before `index`.
    private static func scalar(before index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var start = index - 1
        while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return scalar(at: start, in: bytes)
    }

    /// `append`, a character (grapheme cluster) at a time.
    mutating func appendByCharacters(_ piece: String) {
        for character in piece {
            if HTMLWhitespace.isCollapsible(character) {
                guard started, trailingSpace == nil else { continue }
                trailingSpace = bytes.count
                bytes.append(0x20)
            } else {
                bytes.append(contentsOf: (character == "\u{00A0}" ? " " : character).utf8)
                started = true
                trailingSpace = nil
            }
        }
    }

    /// Text that shows, whitespace and all (an image's alt text).
    mutating func appendVisible(_ piece: String) {
        guard !piece.isEmpty else { return }
        bytes.append(contentsOf: piece.utf8)
        started = true
        trailingSpace = nil
    }

    /// Text that does not show (colour codes): whitespace around it still
    /// collapses across it.
    mutating func appendHidden(_ piece: String) {
        bytes.append(contentsOf: piece.utf8)
    }

    /// Replaces the text (after a reader took a piece off its end).
    mutating func replace(with newText: String) {
        bytes = Array(newText.utf8)
        trailingSpace = nil
        started = !newText.isEmpty
    }

    /// The line, without the collapsible space it may end with.
    mutating func finish() -> String {
        if let offset = trailingSpace { bytes.remove(at: offset) }
        let line = text
        self = CollapsingLine()
        return line
    }
}

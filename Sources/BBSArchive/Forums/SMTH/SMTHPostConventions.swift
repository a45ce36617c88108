import Foundation

/// How SMTH posts are written: `【 在 someone (昵称) 的大作中提到: 】` quote
/// headers (`的邮件中提到` in mail), `: ` quoted lines, UBB tags and the
/// `[em01]`, `[ema3]` emoticon codes.
struct SMTHPostConventions: PostConventions {
    /// `【 在 someone (昵称) 的大作中提到: 】` → `someone`.
    func quoteHeaderAuthor(_ line: String) -> String? {
        // Asked of every line of every post: most have no 【 at all.
        guard Self.hasLenticularBracket(line) else { return nil }
        // Colours aside: a quote of a coloured post keeps its colours, and
        // its header may be coloured whole or in part. Trimmed as Foundation
        // trims `.whitespaces`, without bridging to `NSString`.
        let trimmed = HTMLWhitespace.trimmed(ANSIText.strip(line), newlines: false)
        guard trimmed.hasPrefix("【"), trimmed.hasSuffix("】"),
            let start = Self.firstRange(of: "在 ", in: trimmed),
            let end = Self.firstRange(of: "的大作中提到", in: trimmed) ?? Self.firstRange(of: "的邮件中提到", in: trimmed),
            start.upperBound <= end.lowerBound
        else { return nil }
        let who = HTMLWhitespace.trimmed(trimmed[start.upperBound..<end.lowerBound], newlines: false)
        let id = who.split(separator: " ").first.map(String.init) ?? who
        return id.isEmpty ? nil : id
    }

    /// Where `pattern` (CJK ideographs and spaces) first occurs in `text`,
    /// as Foundation's `range(of:)` finds it. That search, through
    /// `NSString`, was half the cost of a quote header (2.7 % of indexing
    /// at 100k). When every character of `text` is printable ASCII, a CJK
    /// ideograph, CJK punctuation or a full-width form (no mark, no
    /// character with a canonical decomposition: each character one
    /// scalar, equal only to itself), it is the first match of the UTF-8
    /// bytes; any other text goes to Foundation.
    static func firstRange(of pattern: StaticString, in text: String) -> Range<String.Index>? {
        let plain = text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x20...0x7E, 0x3000...0x3029, 0x3030...0x303F, 0x4E00...0x9FFF, 0xFF01...0xFF5E: true
            default: false
            }
        }
        guard plain else { return text.range(of: pattern.description) }
        var text = text
        let offset: Int? = text.withUTF8 { bytes in
            let needle = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
            guard needle.count <= bytes.count else { return nil }
            for start in 0...(bytes.count - needle.count) {
                var at = 0
                while at < needle.count && bytes[start + at] == needle[at] { at += 1 }
                if at == needle.count { return start }
            }
            return nil
        }
        guard let offset else { return nil }
        let lower = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
        return lower..<text.utf8.index(lower, offsetBy: pattern.utf8CodeUnitCount)
    }

    /// Whether the line holds a 【 (U+3010): a scan of its UTF-8 bytes
    /// (E3 80 90 occur exactly where the scalar does), not a decoding of
    /// every scalar.
    static func hasLenticularBracket(_ line: String) -> Bool {
        var line = line
        return line.withUTF8 { bytes in
            guard bytes.count >= 3 else { return false }
            for index in 0..<(bytes.count - 2)
            where bytes[index] == 0xE3 && bytes[index + 1] == 0x80 && bytes[index + 2] == 0x90 {
                return true
            }
            return false
        }
    }

    /// `quoteHeaderAuthor(line) != nil || quotedLine(line) != nil`, read
    /// from the bytes when every scalar of the line is plain (as
    /// `firstRange` means it: one scalar a character, equal only to
    /// itself, none of them a mark), so `:` first is a quoted line, and a
    /// header's trimming, brackets and words are byte comparisons. Asked
    /// by search of every line `mayQuote` lets through: through `String`s,
    /// 6,300 instructions a header line and 4,800 a quoted line (82 M of
    /// the 10k store's 2,298 M in callgrind).
    func isQuote(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        if let quote = Self.plainQuote(line) { return quote }
        let text = String(decoding: line, as: UTF8.self)
        return quoteHeaderAuthor(text) != nil || quotedLine(text) != nil
    }

    /// `isQuote` of a line whose every scalar is plain, or `nil` for any other line.
    static func plainQuote(_ line: UnsafeBufferPointer<UInt8>) -> Bool? {
        // `:` then an ASCII byte (or nothing): the first character is `:`.
        if line.first == UInt8(ascii: ":"), line.count == 1 || line[1] < 0x80 { return true }
        var index = 0
        while index < line.count {
            let lead = line[index]
            let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            guard index + length <= line.count else { return nil }
            var value = UInt32(lead < 0x80 ? lead : lead < 0xE0 ? lead & 0x1F : lead < 0xF0 ? lead & 0x0F : lead & 0x07)
            for offset in 1..<max(1, length) { value = value << 6 | UInt32(line[index + offset] & 0x3F) }
            switch value {
            case 0x20...0x7E, 0x3000...0x3029, 0x3030...0x303F, 0x4E00...0x9FFF, 0xFF01...0xFF5E: break
            default: return nil
            }
            index += length
        }
        if line.first == UInt8(ascii: ":") { return true }
        // Trimmed of spaces and ideographic spaces (E3 80 80), the only
        // plain scalars `HTMLWhitespace.trimmed` takes off.
        func isSpace(at index: Int) -> Int {
            if line[index] == 0x20 { return 1 }
            if line[index] == 0xE3, index + 2 < line.count, line[index + 1] == 0x80, line[index + 2] == 0x80 {
                return 3
            }
            return 0
        }
        func trimmed(_ range: Range<Int>) -> Range<Int> {
            var start = range.lowerBound
            var end = range.upperBound
            while start < end {
                let skip = isSpace(at: start)
                guard skip > 0 else { break }
                start += skip
            }
            while end > start {
                if line[end - 1] == 0x20 {
                    end -= 1
                } else if end - start >= 3, line[end - 3] == 0xE3, line[end - 2] == 0x80, line[end - 1] == 0x80 {
                    end -= 3
                } else {
                    break
                }
            }
            return start..<end
        }
        func first(_ pattern: StaticString, in range: Range<Int>) -> Int? {
            ByteSearch.firstOffset(UnsafeBufferPointer(rebasing: line[range]), pattern).map { range.lowerBound + $0 }
        }
        let header = trimmed(0..<line.count)
        let marker: StaticString = "在 "
        // 【 is E3 80 90, 】 E3 80 91.
        guard header.count >= 6, line[header.lowerBound] == 0xE3, line[header.lowerBound + 1] == 0x80,
            line[header.lowerBound + 2] == 0x90, line[header.upperBound - 3] == 0xE3,
            line[header.upperBound - 2] == 0x80, line[header.upperBound - 1] == 0x91,
            let start = first(marker, in: header),
            let end = first("的大作中提到", in: header) ?? first("的邮件中提到", in: header),
            start + marker.utf8CodeUnitCount <= end
        else { return false }
        return !trimmed((start + marker.utf8CodeUnitCount)..<end).isEmpty
    }

    /// A quote header holds a 【 (E3 80 90, `hasLenticularBracket`); a
    /// quoted line's first `Character` is `:`, so its first byte is `:`.
    func mayQuote(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        // `:` first, or a colour code first (a coloured quoted line).
        if line.first == UInt8(ascii: ":") || line.first == 0x1B { return true }
        guard line.count >= 3 else { return false }
        for index in 0..<(line.count - 2)
        where line[index] == 0xE3 && line[index + 1] == 0x80 && line[index + 2] == 0x90 {
            return true
        }
        return false
    }

    /// `: : deeper` → (2, `deeper`). A quoted line coloured from its first
    /// character (the quoted post's own colours, which a quote keeps) is
    /// quoted all the same, and keeps its colour.
    func quotedLine(_ line: String) -> (depth: Int, text: String)? {
        guard line.utf8.first == 0x1B else { return QuotePrefix.colons(line) }
        let (codes, rest) = ANSIText.leadingCodes(line)
        guard let (depth, text) = QuotePrefix.colons(String(rest)) else { return nil }
        return (depth, codes + text)
    }

    var usesBracketTags: Bool { true }

    /// `em`, an optional letter, then one to three digits: `em01`, `ema3`.
    func emoticon(tag: String) -> String? {
        guard tag.hasPrefix("em") else { return nil }
        var digits = tag.unicodeScalars.dropFirst(2)
        if let first = digits.first, ("a"..."z").contains(first) { digits = digits.dropFirst() }
        return (1...3).contains(digits.count) && digits.allSatisfy { ("0"..."9").contains($0) } ? tag : nil
    }
}

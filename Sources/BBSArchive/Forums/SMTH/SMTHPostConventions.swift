import Foundation

/// How SMTH posts are written: `【 在 someone (昵称) 的大作中提到: 】` quote
/// headers (`的邮件中提到` in mail), `: ` quoted lines, UBB tags and the
/// `[em01]`, `[ema3]` emoticon codes.
struct SMTHPostConventions: PostConventions {
    /// `【 在 someone (昵称) 的大作中提到: 】` → `someone`.
    func quoteHeaderAuthor(_ line: String) -> String? {
        // Asked of every line of every post: most have no 【 at all.
        guard Self.hasLenticularBracket(line) else { return nil }
        // Trimmed as Foundation trims `.whitespaces`, without bridging to `NSString`.
        let trimmed = HTMLWhitespace.trimmed(line, newlines: false)
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

    /// A quote header holds a 【 (E3 80 90, `hasLenticularBracket`); a
    /// quoted line's first `Character` is `:`, so its first byte is `:`.
    func mayQuote(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        if line.first == UInt8(ascii: ":") { return true }
        guard line.count >= 3 else { return false }
        for index in 0..<(line.count - 2)
        where line[index] == 0xE3 && line[index + 1] == 0x80 && line[index + 2] == 0x90 {
            return true
        }
        return false
    }

    /// `: : deeper` → (2, `deeper`).
    func quotedLine(_ line: String) -> (depth: Int, text: String)? { QuotePrefix.colons(line) }

    var usesBracketTags: Bool { true }

    /// `em`, an optional letter, then one to three digits: `em01`, `ema3`.
    func emoticon(tag: String) -> String? {
        guard tag.hasPrefix("em") else { return nil }
        var digits = tag.unicodeScalars.dropFirst(2)
        if let first = digits.first, ("a"..."z").contains(first) { digits = digits.dropFirst() }
        return (1...3).contains(digits.count) && digits.allSatisfy { ("0"..."9").contains($0) } ? tag : nil
    }
}

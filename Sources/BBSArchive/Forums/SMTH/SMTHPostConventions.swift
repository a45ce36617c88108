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
            let start = trimmed.range(of: "在 "),
            let end = trimmed.range(of: "的大作中提到") ?? trimmed.range(of: "的邮件中提到"),
            start.upperBound <= end.lowerBound
        else { return nil }
        let who = HTMLWhitespace.trimmed(trimmed[start.upperBound..<end.lowerBound], newlines: false)
        let id = who.split(separator: " ").first.map(String.init) ?? who
        return id.isEmpty ? nil : id
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

import Foundation

/// How SMTH posts are written: `【 在 someone (昵称) 的大作中提到: 】` quote
/// headers (`的邮件中提到` in mail), `: ` quoted lines, UBB tags and the
/// `[em01]`, `[ema3]` emoticon codes.
struct SMTHPostConventions: PostConventions {
    /// `【 在 someone (昵称) 的大作中提到: 】` → `someone`.
    func quoteHeaderAuthor(_ line: String) -> String? {
        // Asked of every line of every post: most have no 【 at all.
        guard line.unicodeScalars.contains("\u{3010}") else { return nil }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("【"), trimmed.hasSuffix("】"),
            let start = trimmed.range(of: "在 "),
            let end = trimmed.range(of: "的大作中提到") ?? trimmed.range(of: "的邮件中提到"),
            start.upperBound <= end.lowerBound
        else { return nil }
        let who = trimmed[start.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespaces)
        let id = who.split(separator: " ").first.map(String.init) ?? who
        return id.isEmpty ? nil : id
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

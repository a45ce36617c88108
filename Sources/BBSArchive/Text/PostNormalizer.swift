import Foundation

/// A post's text split into the blocks a reader sees: plain text and quotes.
package struct PostBody: Sendable, Equatable {
    package enum Block: Sendable, Equatable {
        /// Consecutive lines of the post's own text.
        case text([String])
        /// A quote of another post: the `【 在 x 的大作中提到: 】` header (when
        /// present), whom it quotes, and the quoted lines with their depth
        /// (1 for `: `, 2 for `: : `).
        case quote(header: String?, author: String?, lines: [QuotedLine])
    }

    package struct QuotedLine: Sendable, Equatable {
        package var depth: Int
        package var text: String
    }

    package var blocks: [Block]
}

/// Recognises the structure of SMTH post text.
package enum PostNormalizer {
    /// Splits post text (lines joined by `\n`) into text and quote blocks.
    package static func normalize(_ text: String) -> PostBody {
        var blocks: [PostBody.Block] = []
        var plain: [String] = []
        var quote: (header: String?, author: String?, lines: [PostBody.QuotedLine])?

        func flushPlain() {
            if !plain.isEmpty { blocks.append(.text(plain)) }
            plain = []
        }
        func flushQuote() {
            if let q = quote { blocks.append(.quote(header: q.header, author: q.author, lines: q.lines)) }
            quote = nil
        }

        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let author = quotedAuthor(line) {
                flushPlain()
                flushQuote()
                quote = (line, author, [])
            } else if let (depth, rest) = quoteDepth(line) {
                flushPlain()
                if quote == nil { quote = (nil, nil, []) }
                quote?.lines.append(.init(depth: depth, text: rest))
            } else {
                flushQuote()
                plain.append(line)
            }
        }
        flushQuote()
        while let last = plain.last, last.isEmpty { plain.removeLast() }
        flushPlain()
        return PostBody(blocks: blocks)
    }

    /// `【 在 someone (昵称) 的大作中提到: 】` → `someone`.
    static func quotedAuthor(_ line: String) -> String? {
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

    /// `: : deeper` → (2, `deeper`); `nil` for a line that is not quoted.
    /// The space after a colon is optional: `:text` and `::deeper` are
    /// quoted lines as much as `: text` and `: : deeper`.
    static func quoteDepth(_ line: String) -> (Int, String)? {
        var rest = Substring(line)
        var depth = 0
        while rest.hasPrefix(":") {
            depth += 1
            rest = rest.dropFirst()
            if rest.hasPrefix(" ") { rest = rest.dropFirst() }
        }
        return depth > 0 ? (depth, String(rest)) : nil
    }
}

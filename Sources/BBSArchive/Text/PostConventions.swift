import Foundation

/// How one forum writes its posts' text: what the generic machinery in
/// `Text/` (quote blocks, inline markup, ANSI colours) asks a forum about.
///
/// Each forum's conventions live in its folder under `Forums/`; the build
/// gets them with the forum's `ForumProfile`, never by naming a forum.
package protocol PostConventions: Sendable {
    /// Whom a quote's header line quotes, or `nil` when the line is no
    /// quote header (SMTH: `【 在 someone 的大作中提到: 】` → `someone`).
    func quoteHeaderAuthor(_ line: String) -> String?
    /// A quoted line's depth (1 for the outermost quote) and text, or `nil`
    /// for a line of the post's own text.
    func quotedLine(_ line: String) -> (depth: Int, text: String)?
    /// Whether posts mark text up with bracket tags (`[b]`, `[url=…]`,
    /// `[color=…]`): read by `InlineText`.
    var usesBracketTags: Bool { get }
    /// The emoticon a bracket tag (lowercased, without brackets) stands
    /// for, e.g. `em01`; `nil` when the tag is no emoticon.
    func emoticon(tag: String) -> String?
    /// Whether `quoteHeaderAuthor` or `quotedLine` may read the line (its
    /// UTF-8 bytes, no line break) as a quote: `false` only when both give
    /// `nil` for it. A byte test that spares the lines it rules out a
    /// `String` of their own, where search reads a post's own text
    /// (`SearchText.searchable`). The default rules out nothing.
    func mayQuote(_ line: UnsafeBufferPointer<UInt8>) -> Bool
    /// Whether `quoteHeaderAuthor` or `quotedLine` reads the line (its
    /// UTF-8 bytes, no line break) as a quote, where only the answer
    /// counts (search leaves quotes out). The default asks them.
    func isQuote(_ line: UnsafeBufferPointer<UInt8>) -> Bool
}

extension PostConventions {
    package func mayQuote(_ line: UnsafeBufferPointer<UInt8>) -> Bool { true }

    package func isQuote(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        let text = String(decoding: line, as: UTF8.self)
        return quoteHeaderAuthor(text) != nil || quotedLine(text) != nil
    }
}

/// The conventions of no forum in particular: no quote headers, no quoted
/// lines, no tags. Text stays text.
package struct PlainPostConventions: PostConventions {
    package init() {}
    package func quoteHeaderAuthor(_ line: String) -> String? { nil }
    package func quotedLine(_ line: String) -> (depth: Int, text: String)? { nil }
    package var usesBracketTags: Bool { false }
    package func emoticon(tag: String) -> String? { nil }
    package func mayQuote(_ line: UnsafeBufferPointer<UInt8>) -> Bool { false }
}

/// Quoting conventions many forums share, for their `PostConventions`.
package enum QuotePrefix {
    /// `: : deeper` → (2, `deeper`); `nil` for a line that is not quoted.
    /// The space after a colon is optional: `:text` and `::deeper` are
    /// quoted lines as much as `: text` and `: : deeper`.
    package static func colons(_ line: String) -> (depth: Int, text: String)? {
        // A first `Character` that is `:` starts with the byte `:` (no
        // other character is canonically equivalent to it): most lines
        // are ruled out by that byte alone.
        guard line.utf8.first == UInt8(ascii: ":") else { return nil }
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

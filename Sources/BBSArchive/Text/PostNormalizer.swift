import Foundation

/// A post's text split into the blocks a reader sees: plain text and quotes.
package struct PostBody: Sendable, Equatable {
    package enum Block: Sendable, Equatable {
        /// Consecutive lines of the post's own text.
        case text([String])
        /// A quote of another post: its header line (when present), whom
        /// it quotes, and the quoted lines with their depth (1 for the
        /// outermost quote), as the forum's `PostConventions` read them.
        case quote(header: String?, author: String?, lines: [QuotedLine])
    }

    package struct QuotedLine: Sendable, Equatable {
        package var depth: Int
        package var text: String
    }

    package var blocks: [Block]
}

/// Recognises the structure of post text by its forum's conventions.
package enum PostNormalizer {
    /// Splits post text (lines joined by `\n`) into text and quote blocks.
    package static func normalize(_ text: String, conventions: any PostConventions) -> PostBody {
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

        func read(_ line: String, mayQuote: Bool) {
            if mayQuote, let author = conventions.quoteHeaderAuthor(line) {
                flushPlain()
                flushQuote()
                quote = (line, author, [])
            } else if mayQuote, let (depth, rest) = conventions.quotedLine(line) {
                flushPlain()
                if quote == nil { quote = (nil, nil, []) }
                quote?.lines.append(.init(depth: depth, text: rest))
            } else {
                flushQuote()
                plain.append(line)
            }
        }

        if text.containsUTF8(0x0D) {
            for line in lines(text) { read(line, mayQuote: true) }
        } else {
            // Line by line over the UTF-8 bytes: a line the conventions
            // rule out as a quote by its bytes (`mayQuote`) is not asked
            // about again as a `String`.
            var text = text
            text.withUTF8 { bytes in
                forEachLine(bytes) { line in
                    read(String(decoding: line, as: UTF8.self), mayQuote: conventions.mayQuote(line))
                }
            }
        }
        flushQuote()
        while let last = plain.last, last.isEmpty { plain.removeLast() }
        flushPlain()
        return PostBody(blocks: blocks)
    }

    /// The text's lines, as `split(separator: "\n")` by `Character` gives
    /// them. Without a carriage return (whose `\r\n` is one `Character`,
    /// no line break) that is a split of the UTF-8 bytes at `\n`, which
    /// spares every post the walk by grapheme.
    static func lines(_ text: String) -> [String] {
        if text.containsUTF8(0x0D) {
            return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        var result: [String] = []
        var text = text
        text.withUTF8 { bytes in
            forEachLine(bytes) { result.append(String(decoding: $0, as: UTF8.self)) }
        }
        return result
    }

    /// Calls `body` with each line of `bytes` (split at `\n`, empty lines
    /// kept, as many lines as `\n`s plus one), found by `memchr`. A line of
    /// valid UTF-8 split at `\n` (never part of another scalar) is valid too.
    static func forEachLine(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard let base = bytes.baseAddress else {
            body(bytes)
            return
        }
        var start = 0
        while start <= bytes.count {
            let rest = bytes.count - start
            let end: Int
            if rest > 0, let found = memchr(base + start, 0x0A, rest) {
                end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            } else {
                end = bytes.count
            }
            body(UnsafeBufferPointer(start: base + start, count: end - start))
            start = end + 1
        }
    }
}

import Foundation
import Testing

@testable import BBSArchive
@testable import SMTHReplica

/// The build's byte-level ways through post text and site paths give what
/// the ways they replaced give: splitting by `Character`, asking the
/// conventions of every line, scalar walks, string interpolation and an
/// escaper that looks at every byte.
@Suite struct BuildBytePathTests {
    /// Scalars that trip byte-level code: the specials, controls, C1
    /// (0xC2 0x80–0x9F) beside other 0xC2 characters, combining marks after
    /// `:` and `"`, box drawing at both ends of its range and just outside,
    /// ideographic spaces, the quote header's bracket, CJK, emoji.
    static let alphabet: [String] = [
        "a", "Z", "0", " ", "  ", "   ", "\t", "\n", "\r", "\r\n", ":", ": ", "::", ":\u{301}", "\"", "\"\u{301}", "'",
        "&", "<", ">", "?", "=", "[", "]", "\u{0}", "\u{1}", "\u{1B}", "\u{1B}[1;31m", "\u{1B}[m", "\u{1F}",
        "\u{7F}", "\u{80}", "\u{85}", "\u{9F}", "\u{A0}", "·", "é", "e\u{301}", "\u{24FF}", "\u{2500}", "\u{253F}",
        "\u{2540}", "\u{257F}", "\u{2580}", "\u{259F}", "\u{25A0}", "\u{2600}", "\u{3000}", "\u{3001}", "\u{3010}",
        "【 在 alice (爱丽丝) 的大作中提到: 】", "水", "木", "社区", "😀", "👨‍👩‍👧", "http://x.cn/a", "www.", "[b]", "[em01]",
    ]

    static func randomTexts(count: Int, seed: UInt64, pieces: ClosedRange<Int> = 0...24) -> [String] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in
            (0..<Int.random(in: pieces, using: &random)).map { _ in
                alphabet.randomElement(using: &random) ?? "a"
            }.joined()
        }
    }

    /// The escaper as it was: every byte looked at in turn.
    static func escapedByteByByte(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">"): out += Array("&gt;".utf8)
            case UInt8(ascii: "\""): out += Array("&quot;".utf8)
            case UInt8(ascii: "'"): out += Array("&#39;".utf8)
            case 0x09, 0x0A, 0x0D: out.append(byte)
            case 0..<0x20, 0x7F: break
            case 0xC2 where index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]): index += 1
            default: out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func escapingEightBytesAtATimeIsEscapingEveryByte() {
        // Long texts too, so that specials fall at every place of a word.
        for text in Self.randomTexts(count: 3000, seed: 21) + Self.randomTexts(count: 300, seed: 22, pieces: 40...120) {
            #expect(MarkupEscaper.escape(text) == Self.escapedByteByByte(text), "\(text.debugDescription)")
        }
        // Every byte value at every place of a word, amid CJK.
        for byte in UInt8(0)...UInt8(0x7F) {
            for offset in 0..<17 {
                let text = String(repeating: "水", count: offset) + String(UnicodeScalar(byte)) + "木木木木木"
                #expect(MarkupEscaper.escape(text) == Self.escapedByteByByte(text), "byte \(byte) at \(offset)")
            }
        }
    }

    /// `mayNeedWork` says yes for a word exactly when one of its bytes is
    /// a C0 control, `" & ' < >`, DEL or 0xC2, wherever it stands.
    @Test func mayNeedWorkFindsEveryByteThatNeedsALook() {
        for byte in 0...255 {
            let needs = byte < 0x20 || [0x22, 0x26, 0x27, 0x3C, 0x3E, 0x7F, 0xC2].contains(byte)
            for place in 0..<8 {
                for background: UInt8 in [0x3F, 0x80, 0xE6, 0xFF, 0x41] {
                    var bytes = [UInt8](repeating: background, count: 8)
                    bytes[place] = UInt8(byte)
                    let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    #expect(MarkupEscaper.mayNeedWork(word) == needs, "byte \(byte) at \(place) in \(background)")
                }
            }
        }
    }

    @Test func linesAreTheSplitByCharacter() {
        for text in Self.randomTexts(count: 3000, seed: 23) + ["", "\n", "\n\n", "a\n", "\na", "a\nb\n\nc"] {
            #expect(
                PostNormalizer.lines(text)
                    == text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
                "\(text.debugDescription)")
        }
    }

    /// Conventions that never rule a line out by its bytes: every line is
    /// asked, as before `mayQuote` was used.
    struct AskingEveryLine: PostConventions {
        let base: any PostConventions
        func quoteHeaderAuthor(_ line: String) -> String? { base.quoteHeaderAuthor(line) }
        func quotedLine(_ line: String) -> (depth: Int, text: String)? { base.quotedLine(line) }
        var usesBracketTags: Bool { base.usesBracketTags }
        func emoticon(tag: String) -> String? { base.emoticon(tag: tag) }
    }

    @Test func normalizingByBytesIsAskingEveryLine() {
        let texts = Self.randomTexts(count: 3000, seed: 24) + ReplicaLikePosts.posts(count: 300)
        for conventions in [Fixtures.smthForum.conventions, PlainPostConventions()] as [any PostConventions] {
            for text in texts {
                #expect(
                    PostNormalizer.normalize(text, conventions: conventions)
                        == PostNormalizer.normalize(text, conventions: AskingEveryLine(base: conventions)),
                    "\(text.debugDescription)")
            }
        }
    }

    /// SMTH's `isQuote` by bytes says what its `quoteHeaderAuthor` and
    /// `quotedLine` say of the line: random lines, and headers padded,
    /// emptied, reordered and cut.
    @Test func quotesByBytesAreQuotesByStrings() {
        let conventions = Fixtures.smthForum.conventions
        let headers = [
            "【 在 alice (爱丽丝) 的大作中提到: 】", "【 在 bob 的邮件中提到: 】", " \u{3000}【 在 c 的大作中提到: 】 \u{3000}",
            "\t【 在 d 的大作中提到: 】", "\u{A0}【 在 e 的大作中提到: 】", "【 在  的大作中提到: 】", "【 在 \u{3000} 的大作中提到: 】",
            "【 的大作中提到 在 f 】", "【 在 g 的大作中提到: ", "在 h 的大作中提到: 】", "【 在 i 的大作中提到: 】x", "【在 j的大作中提到】",
            "【 在 k 的邮件中提到 的大作中提到: 】", "【 在 l 的大作中提到 】\u{301}", "【\u{301} 在 m 的大作中提到: 】", "【】", "【",
            ":", ": a", ":中", ":\u{3000}", ":\u{301}", ":\u{301}a", "：a", "a:", "【 在 😀 的大作中提到: 】",
            "【 在 n\u{3000}o 的大作中提到: 】",
        ]
        for text in headers + Self.randomTexts(count: 4000, seed: 28) {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                var line = line
                let expected = conventions.quoteHeaderAuthor(line) != nil || conventions.quotedLine(line) != nil
                #expect(line.withUTF8 { conventions.isQuote($0) } == expected, "\(line.debugDescription)")
            }
        }
    }

    @Test func colonsByFirstByteAreColonsByCharacter() {
        for text in Self.randomTexts(count: 3000, seed: 25) {
            let quoted = QuotePrefix.colons(text)
            let first = text.first == ":"
            #expect((quoted != nil) == first, "\(text.debugDescription)")
        }
    }

    @Test func terminalArtByBytesIsByScalars() {
        func boxByScalars(_ line: String) -> Bool { line.unicodeScalars.contains(where: TerminalArt.isBoxDrawing) }
        func gapByScalars(_ line: String) -> Bool {
            var seenText = false
            var columns = 0
            for scalar in line.unicodeScalars {
                switch scalar {
                case " ": columns += 1
                case "\u{3000}": columns += 2
                case "\t": columns += 4
                default:
                    if seenText, columns >= 3 { return true }
                    seenText = true
                    columns = 0
                }
            }
            return false
        }
        for text in Self.randomTexts(count: 4000, seed: 26) {
            #expect(TerminalArt.hasBoxDrawing(text) == boxByScalars(text), "\(text.debugDescription)")
            #expect(TerminalArt.hasAlignmentGap(text) == gapByScalars(text), "\(text.debugDescription)")
        }
        for value in 0x24F0...0x25B0 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let line = "x\(scalar)y"
            #expect(TerminalArt.hasBoxDrawing(line) == boxByScalars(line), "U+\(String(value, radix: 16))")
        }
    }

    @Test func controlByteScanIsTheScalarScan() {
        for text in Self.randomTexts(count: 3000, seed: 27) {
            let expected = text.utf8.contains { $0 < 0x20 && $0 != 0x1B && $0 != UInt8(ascii: "\t") }
            #expect(InlineText.hasControlByte(text) == expected, "\(text.debugDescription)")
        }
    }

    /// The paths built in one buffer are the interpolated ones.
    @Test func pathsBuiltInOneBufferAreInterpolated() {
        let boards = ["Geography", "a", "水木", "x.y", "", String(repeating: "版", count: 60), "Name_with-dash"]
        let numbers = [Int.min, -100, -1, 0, 1, 2, 9, 10, 99, 105_595, 1_000_000_007, Int.max]
        for board in boards {
            let part = SitePaths.component(board)
            for gid in numbers {
                #expect(SitePaths.thread(board, gid: gid) == "board/\(part)/\(gid).html")
                for page in numbers where page > 1 {
                    #expect(SitePaths.thread(board, gid: gid, page: page) == "board/\(part)/\(gid)-\(page).html")
                }
                #expect(
                    SitePaths.board(board, page: gid)
                        == (gid <= 1 ? "board/\(part)/index.html" : "board/\(part)/page-\(gid).html"))
            }
            #expect(SitePaths.user(board) == "user/\(part).html")
        }
    }
}

/// Replica posts, in the forum's own text, for the tests above.
private enum ReplicaLikePosts {
    static func posts(count: Int) -> [String] {
        var random = SeededRandom(seed: 28)
        return (0..<count).map { index in
            var lines: [String] = []
            if index % 3 == 0 { lines.append("【 在 user\(index) (昵称) 的大作中提到: 】") }
            for depth in 0..<(index % 4) { lines.append(String(repeating: ": ", count: depth + 1) + "引用 \(depth)") }
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                lines.append(BuildBytePathTests.alphabet.randomElement(using: &random) ?? "")
            }
            return lines.joined(separator: "\n")
        }
    }
}

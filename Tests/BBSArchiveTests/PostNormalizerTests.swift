import Foundation
import Testing

@testable import BBSArchive

@Suite struct PostNormalizerTests {
    @Test func splitsTextAndQuotes() {
        let body = PostNormalizer.normalize(
            "我同意\n【 在 alice (爱丽丝) 的大作中提到: 】\n: 原文\n: : 更早\n\n后记", conventions: Fixtures.smthForum.conventions)
        #expect(
            body.blocks == [
                .text(["我同意"]),
                .quote(
                    header: "【 在 alice (爱丽丝) 的大作中提到: 】", author: "alice",
                    lines: [.init(depth: 1, text: "原文"), .init(depth: 2, text: "更早")]),
                .text(["", "后记"]),
            ])
    }

    @Test func keepsAQuoteHeaderWithoutQuotedLines() {
        let body = PostNormalizer.normalize("【 在 bob 的邮件中提到: 】\n好", conventions: Fixtures.smthForum.conventions)
        #expect(body.blocks == [.quote(header: "【 在 bob 的邮件中提到: 】", author: "bob", lines: []), .text(["好"])])
    }

    @Test func treatsColonLinesWithoutHeaderAsAQuote() {
        #expect(
            PostNormalizer.normalize(": 引用", conventions: Fixtures.smthForum.conventions).blocks == [
                .quote(header: nil, author: nil, lines: [.init(depth: 1, text: "引用")])
            ])
        #expect(
            PostNormalizer.normalize("a: b", conventions: Fixtures.smthForum.conventions).blocks == [.text(["a: b"])])
    }

    /// The quote header's search by bytes finds what Foundation's finds, in
    /// plain text and (through Foundation) beside marks and decompositions.
    @Test func quoteHeaderSearchIsFoundations() {
        let lines = [
            "【 在 alice (爱丽丝) 的大作中提到: 】", "【 在 ｂｏｂ (ＢＯＢ) 的邮件中提到: 】", "【在 x 的大作中提到】", "在 ", "",
            "【 在\u{301} alice 的大作中提到: 】", "【 在 alice 的大作中提到\u{301}: 】", "【 在 é 的大作中提到 】",
            "【 在 e\u{301} 的大作中提到 】", "【 在 \u{F900} 的大作中提到 】", "的大作中提到 在 的大作中提到", "【 在 👍🏻 的大作中提到 】",
            "【 在 a\u{3099} 的大作中提到 】", "【 在 ｶﾞ 的大作中提到 】", "【 在 a\u{AD} 的大作中提到 】", "ab在 在 cd",
        ]
        for line in lines {
            for pattern: StaticString in ["在 ", "的大作中提到", "的邮件中提到"] {
                let found = SMTHPostConventions.firstRange(of: pattern, in: line)
                let foundation = line.range(of: pattern.description)
                #expect(found == foundation, "\(line.debugDescription) \(pattern)")
            }
        }
        #expect(SMTHPostConventions().quoteHeaderAuthor("  【 在 alice (爱丽丝) 的大作中提到: 】 ") == "alice")
        #expect(SMTHPostConventions().quoteHeaderAuthor("【 在 的大作中提到: 】") == nil)
    }
}

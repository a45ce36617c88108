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
}

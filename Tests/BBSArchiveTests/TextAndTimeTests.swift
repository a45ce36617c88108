import Foundation
import Testing

@testable import BBSArchive

@Suite struct TextEncodingDetectorTests {
    /// 地理 in GBK / GB18030.
    let gbkBytes = Data([0xB5, 0xD8, 0xC0, 0xED])

    @Test func prefersTheHTTPHeader() {
        #expect(TextEncodingDetector.encoding(of: Data("abc".utf8), contentType: "text/html; charset=GBK") == "GB18030")
        #expect(TextEncodingDetector.encoding(of: gbkBytes, contentType: "text/html; charset=GBK") == "GB18030")
        #expect(
            TextEncodingDetector.encoding(of: Data("abc".utf8), contentType: "text/html;charset=\"utf-8\"") == "UTF-8")
    }

    @Test func thenThePageDeclaration() {
        let page = Data("<?xml version=\"1.0\" encoding=\"gb2312\"?><html></html>".utf8)
        #expect(TextEncodingDetector.encoding(of: page, contentType: "text/html") == "GB18030")
        let meta = Data("<html><head><meta charset=\"gbk\"></head></html>".utf8)
        #expect(TextEncodingDetector.encoding(of: meta, contentType: nil) == "GB18030")
    }

    @Test func thenUTF8ValidityElseGB18030() {
        #expect(TextEncodingDetector.encoding(of: Data("地理".utf8), contentType: nil) == "UTF-8")
        #expect(TextEncodingDetector.encoding(of: gbkBytes, contentType: nil) == "GB18030")
        // A header that claims UTF-8 over GBK bytes does not win, nor one
        // that claims GBK over UTF-8 Chinese.
        #expect(TextEncodingDetector.encoding(of: gbkBytes, contentType: "text/html; charset=utf-8") == "GB18030")
        #expect(TextEncodingDetector.encoding(of: Data("地理".utf8), contentType: "text/html; charset=GBK") == "UTF-8")
    }

    @Test func decodesGBKPagesThroughLibxml2() throws {
        let body = Data("<html><body><p id=\"t\">".utf8) + gbkBytes + Data("</p></body></html>".utf8)
        let encoding = TextEncodingDetector.encoding(of: body, contentType: "text/html; charset=GBK")
        let document = try HTMLDocument(data: body, url: "http://x/", encoding: encoding)
        #expect(document.first("//p[@id='t']")?.text == "地理")
    }
}

@Suite struct BeijingTimeTests {
    @Test func convertsWallClockBothWays() throws {
        let date = try #require(BeijingTime.date(.init(year: 2016, month: 3, day: 25, hour: 11, minute: 52, second: 4)))
        #expect(date.timeIntervalSince1970 == 1_458_877_924)
        #expect(BeijingTime.iso8601(date) == "2016-03-25T11:52:04+08:00")
        #expect(BeijingTime.display(date) == "2016-03-25 11:52:04")
        #expect(
            BeijingTime.components(of: date) == .init(year: 2016, month: 3, day: 25, hour: 11, minute: 52, second: 4))
    }

    @Test func rejectsImpossibleDates() {
        #expect(BeijingTime.date(.init(year: 2023, month: 2, day: 29)) == nil)
        #expect(BeijingTime.date(.init(year: 2024, month: 2, day: 29)) != nil)
        #expect(BeijingTime.date(.init(year: 2024, month: 13, day: 1)) == nil)
    }

    @Test func resolvesForumTimes() {
        // 23:30 UTC on July 31 is 07:30 on August 1 in Beijing: "today" is August 1.
        let fetchedAt = Date(timeIntervalSince1970: 1_785_540_600)
        #expect(BeijingTime.display(fetchedAt) == "2026-08-01 07:30:00")
        #expect(SMTHTimeParser.parse("06:01:22", fetchedAt: fetchedAt) == Fixtures.beijing(2026, 8, 1, 6, 1, 22))
        #expect(SMTHTimeParser.parse("2025-10-31", fetchedAt: fetchedAt) == Fixtures.beijing(2025, 10, 31))
        #expect(
            SMTHTimeParser.parse("2025-10-31 05:47:09", fetchedAt: fetchedAt)
                == Fixtures.beijing(2025, 10, 31, 5, 47, 9))
        #expect(SMTHTimeParser.parse("昨天", fetchedAt: fetchedAt) == nil)
        #expect(SMTHTimeParser.parse("25:00:00", fetchedAt: fetchedAt) == nil)
    }

    @Test func parsesISO8601Options() {
        #expect(BeijingTime.parseISO8601("2026-08-01T16:00:00+08:00") == Fixtures.beijing(2026, 8, 1, 16))
        #expect(BeijingTime.parseISO8601("2026-08-01T08:00:00Z") == Fixtures.beijing(2026, 8, 1, 16))
        #expect(BeijingTime.parseISO8601("yesterday") == nil)
    }
}

@Suite struct PostNormalizerTests {
    @Test func splitsTextAndQuotes() {
        let body = PostNormalizer.normalize("我同意\n【 在 alice (爱丽丝) 的大作中提到: 】\n: 原文\n: : 更早\n\n后记")
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
        let body = PostNormalizer.normalize("【 在 bob 的邮件中提到: 】\n好")
        #expect(body.blocks == [.quote(header: "【 在 bob 的邮件中提到: 】", author: "bob", lines: []), .text(["好"])])
    }

    @Test func treatsColonLinesWithoutHeaderAsAQuote() {
        #expect(
            PostNormalizer.normalize(": 引用").blocks == [
                .quote(header: nil, author: nil, lines: [.init(depth: 1, text: "引用")])
            ])
        #expect(PostNormalizer.normalize("a: b").blocks == [.text(["a: b"])])
    }
}

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func matchesTheStandardVectors(_ input: String, _ expected: String) {
        #expect(SHA256.hex(Data(input.utf8)) == expected)
    }

    @Test func hashesMultiBlockInput() {
        let million = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hex(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

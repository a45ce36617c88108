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

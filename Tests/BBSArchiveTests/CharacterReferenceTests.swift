import Foundation
import Testing

@testable import BBSArchive

/// Numeric character references that libxml2 dropped or misread are read
/// as a browser reads them, and a surrogate pair as the character it spells
/// (`CharacterReferences`): before, 😀 written as `&#55357;&#56832;`
/// vanished from the post (a browser shows two U+FFFD), and `&#150;`
/// became an invisible control where a reader saw –.
@Suite struct CharacterReferenceTests {
    func rewritten(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { CharacterReferences.rewrite($0) }.map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    @Test(arguments: [
        ("a&#55357;&#56832;b", "a&#x1F600;b"),
        ("&#xD83D;&#xdE00;", "&#x1F600;"),
        ("&#XD83D;&#56832", "&#x1F600;"),
        ("&#xD83D;x", "&#xFFFD;x"),
        ("&#xD83D;&#xD83D;&#xDE00;", "&#xFFFD;&#x1F600;"),
        ("&#56832;", "&#xFFFD;"),
        ("&#0;", "&#xFFFD;"),
        ("&#x110000;", "&#xFFFD;"),
        ("&#99999999999999999999;", "&#xFFFD;"),
        ("&#150;", "&#x2013;"),
        ("&#128;&#x9F;", "&#x20AC;&#x178;"),
        ("x&#150abc", "x&#x2013;abc"),
        // A low surrogate is only a reference that starts with `&`.
        ("&#55357;a#56832;", "&#xFFFD;a#56832;"),
        ("title=\"&#xD83D;\"#xDE00;", "title=\"&#xFFFD;\"#xDE00;"),
    ])
    func referencesABrowserReadsOtherwiseAreWrittenAsItReadsThem(text: String, expected: String) {
        #expect(rewritten(text) == expected)
    }

    /// Everything else stays as it was, and a page without such a
    /// reference is handed back as it is.
    @Test(arguments: ["&amp; &nbsp; &#20013;&#x41;", "& # &#; &#x; &#xZ", "&#129;&#x8D;&#x8f;&#144;&#157;", "", "a&"])
    func otherTextIsLeftAlone(text: String) {
        #expect(rewritten(text) == nil)
        let data = Data(text.utf8)
        #expect(CharacterReferences.asBrowsersRead(data) == data)
    }

    @Test func aParsedPageHoldsWhatTheReferencesSay() throws {
        let html = "<html><body><p id=\"p\">a&#55357;&#56832;b&#150;c&#0;d&#x110000;e&#128;</p></body></html>"
        let document = try HTMLDocument(data: Data(html.utf8), url: "https://example.org/", encoding: "UTF-8")
        let paragraph = try #require(document.select("//p").first)
        #expect(paragraph.text == "a😀b–c\u{FFFD}d\u{FFFD}e€")
    }

    /// Through both front ends' parsers, to the post's body.
    @Test func aMobilePostKeepsAnEmojiWrittenAsTwoReferences() throws {
        let html = MobileVariationTests.plain.replacingOccurrences(of: "第一行", with: "第一行&#55357;&#56832;")
        try #require(html != MobileVariationTests.plain)
        let post = try #require(try MobileThreadPageParserTests().parse(html).posts.first)
        #expect(post.body == "第一行😀\n第二行")
    }

    @Test func anNForumPostKeepsWhatWindows1252ReferencesShow() throws {
        let content = NForumVariationTests.varied("第二段<br />", "第二段&#147;引号&#148; &#150; &#128;5<br />")
        let post = try NForumVariationTests().post(content)
        #expect(post.body.contains("第二段“引号” – €5"))
    }
}

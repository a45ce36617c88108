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

    /// Named references that libxml2 kept as written, and a browser reads:
    /// HTML 5's upper-case names, and the names read without their `;`
    /// where no letter, digit or `=` follows.
    @Test(arguments: [
        ("a &AMP; b", "a &#x26; b"),
        ("&LT;&GT;&QUOT;&COPY;&REG;", "&#x3C;&#x3E;&#x22;&#xA9;&#xAE;"),
        ("&lt c", "&#x3C; c"),
        ("&amp e", "&#x26; e"),
        ("&copy 2024", "&#xA9; 2024"),
        ("&COPY 2024", "&#xA9; 2024"),
        ("x&nbsp", "x&#xA0;"),
        ("&Aacute.", "&#xC1;."),
        ("&frac12)", "&#xBD;)"),
        ("&yuml!", "&#xFF;!"),
        ("<a title=\"&quot\">", "<a title=\"&#x22;\">"),
        ("&lt&gt", "&#x3C;&#x3E;"),
        ("&lt中", "&#x3C;中"),
    ])
    func namedReferencesABrowserReadsAreWrittenAsItReadsThem(text: String, expected: String) {
        #expect(rewritten(text) == expected)
    }

    /// Names a browser reads as libxml2 does, names it would not read
    /// here (`=` or a letter after one without `;`: `?a=1&copy=2` is an
    /// address), and HTML 5's other names, which stay as written.
    @Test(arguments: [
        "&amp;&lt;&gt;&quot;&copy;&nbsp;&ensp;&emsp;", "?a=1&copy=2", "&ampx", "&copyright", "&notit;", "&Tab;",
        "&frac12345", "&COPYRIGHT;", "&Amp;", "&ab&", "&;",
    ])
    func namedReferencesLibxml2ReadsOrABrowserKeepsAreLeftAlone(text: String) {
        #expect(rewritten(text) == nil)
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

    /// As Chromium 156 shows the same paragraph, but for `&notit;` and
    /// `&ltx` (text only: a browser reads `¬it;` and `<x`).
    @Test func aParsedPageHoldsWhatNamedReferencesShow() throws {
        let paragraph = "a &AMP; b &lt c &LT; d &amp e &copy f &QUOT; g &gt; h &notit; i &Aacute j &nbsp k &ltx l"
        let html = "<html><body><p>\(paragraph)</p></body></html>"
        let document = try HTMLDocument(data: Data(html.utf8), url: "https://example.org/", encoding: "UTF-8")
        let text = try #require(document.select("//p").first).text
        #expect(text == "a & b < c < d & e © f \" g > h &notit; i Á j \u{A0} k &ltx l")
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

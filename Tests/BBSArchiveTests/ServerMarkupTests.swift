import Foundation
import Testing

@testable import BBSArchive

/// Markup that nForum's own templates write and the replica does not (found
/// by QA reading nForum's source and a client that reads m.newsmth.net):
/// the `--` a mobile page keeps of a cut signature, an image inside its own
/// link, emoticons sent as images, audio attachments, a `※ 修改` line
/// after the `※ 来源` line. Before, each left a stray line, lost a name or
/// an emoticon, or filed the editor's address as the poster's.
@Suite struct ServerMarkupTests {
    /// The plain mobile reply (`MobileVariationTests.plain`) with its
    /// first body line `第一行` written as `line`.
    func mobilePost(firstLine line: String) throws -> Post {
        let html = MobileVariationTests.plain.replacingOccurrences(of: "第一行", with: line)
        try #require(html != MobileVariationTests.plain)
        return try #require(try MobileThreadPageParserTests().parse(html).posts.first)
    }

    /// The tail lines in either order, and the BBS's own ※ lines, after the
    /// `--` of the cut signature: the address is always the post's (its
    /// FROM or 来源 line), never the editor's.
    @Test(arguments: [
        "<br>--<br />修改:bob FROM 9.9.9.*<br />FROM 1.2.3.*", "<br />-- <br />FROM 1.2.3.*<br />修改:bob FROM 9.9.9.*",
        "<br />--<br />※ 来源:·水木社区 http://www.newsmth.net·[FROM: 1.2.3.*]"
            + "<br />※ 修改:·bob 于 Aug  1 10:00:00 2026 修改本文·[FROM: 9.9.9.*]",
    ])
    func aMobilePageKeepsTheSeparatorOfTheSignatureItCut(tail: String) throws {
        let html = MobileVariationTests.plain.replacingOccurrences(
            of: "<br />修改:bob FROM 1.2.3.*<br />FROM 1.2.3.*", with: tail)
        try #require(html != MobileVariationTests.plain)
        let post = try #require(try MobileThreadPageParserTests().parse(html).posts.first)
        #expect(post.body == "第一行\n第二行")
        #expect(post.ip == "1.2.3.*")
        #expect(post.editedBy == "bob")
    }

    /// A `--` of the post's own, with text after it, stays.
    @Test func aSeparatorWithTextAfterItStays() throws {
        let post = try mobilePost(firstLine: "第一行<br />--<br />还有")
        #expect(post.body == "第一行\n--\n还有\n第二行")
    }

    @Test func aMobileImageInsideItsLinkIsThatImage() throws {
        let image =
            "<a target=\"_blank\" href=\"/nForum/att/Test/700/1234\"><img border=\"0\" title=\"map.png\" "
            + "src=\"/nForum/att/Test/700/1234\" alt=\"map.png\" class=\"resizeable\" /></a>"
        let post = try mobilePost(firstLine: "第一行<br />" + image)
        #expect(
            post.attachments == [
                Attachment(name: "map.png", url: "http://127.0.0.1:9/nForum/att/Test/700/1234", kind: .image, size: nil)
            ])
        #expect(post.body == "第一行\n第二行")
        // Without an alt, named by its address (its title is nForum's
        // tooltip); a thumbnail inside the link stands for the original.
        let titled = try mobilePost(
            firstLine: "<a href=\"/att/Test/700/99\"><img title=\"单击此在新窗口浏览图片\" src=\"/att/Test/700/99/middle\" /></a>")
        #expect(
            titled.attachments == [
                Attachment(name: "99", url: "http://127.0.0.1:9/att/Test/700/99", kind: .image, size: nil)
            ])
    }

    @Test func emoticonsSentAsImagesKeepTheirCodes() throws {
        let post = try mobilePost(
            firstLine: "笑<img src=\"/nForum/img/ubb/em/1.gif\" alt=\"em1\" />哭"
                + "<img src=\"https://www.newsmth.net/nForum/img/ubb/ema/3.gif\" alt=\"ema3\" />"
                + "<img src=\"/img/ubb/em/12.gif\" alt=\"em12\" /><img src=\"/img/other/1.gif\" alt=\"别的\" />")
        #expect(post.body == "笑[em01]哭[ema3][em12]别的\n第二行")
        let nforum = try NForumVariationTests().post(
            NForumVariationTests.varied(
                "第二段<br />", "第二段<img src=\"/nForum/img/ubb/emb/20.gif\" alt=\"emb20\" /><br />"))
        #expect(nforum.body.hasSuffix("第二段[emb20]"))
    }

    @Test(arguments: [
        "/img/ubb/em/1.png", "/img/ubb/emz/1.gif", "/img/ubb/em/1234.gif", "/img/ubb/em/x.gif", "/img/ubb/em/1.gif/2",
    ])
    func otherImagesAreNoEmoticons(source: String) {
        #expect(SMTHEmoticons.code(ofImage: source) == nil)
    }

    @Test func anAudioAttachmentIsNamedWithoutItsNote() throws {
        let post = try mobilePost(firstLine: "第一行<br /><a href=\"/att/Test/700/77\">歌.mp3(在新窗口打开)</a>")
        #expect(post.attachments.map(\.name) == ["歌.mp3"])
        let nforum = try NForumVariationTests().post(
            NForumVariationTests.varied(
                "第二段<br />", "第二段<br /><a href=\"/nForum/att/WorkLife/100683/88\">曲.swf(在新窗口打开)</a><br />"))
        #expect(nforum.attachments.map(\.name) == ["曲.swf"])
    }

    /// The poster's address is the 来源 line's, in either order.
    @Test func anEditAfterTheOriginLineKeepsThePostersAddress() throws {
        let edit = "<font class=\"f000\">※ 修改:·silent 于 Aug  1 10:00:00 2026 修改本文·[FROM: 1.1.1.*]</font>"
        let content = NForumVariationTests.plain + "<br />" + edit
        let post = try NForumVariationTests().post(content)
        #expect(post.ip == "28.127.20.*")
        #expect(post.editedBy == "silent")
        let before = try NForumVariationTests().post(
            NForumVariationTests.varied("<font class=\"f004\">※ 来源", edit + "<br /><font class=\"f004\">※ 来源"))
        #expect(before.ip == "28.127.20.*")
        #expect(before.editedBy == "silent")
    }

    /// Links keep their addresses as the UBB the post holds, which the
    /// renderer links again; before, only their text was kept.
    @Test(arguments: [
        ("看<a href=\"http://example.com/x\">这里</a>", "看[url=http://example.com/x]这里[/url]"),
        ("<a href=\"mailto:a@example.com\">写信给我</a>", "[email=a@example.com]写信给我[/email]"),
        (
            "<a href=\"http://example.com/a.jpg\"><img src=\"http://example.com/a.jpg\" alt=\"http://example.com/a.jpg\" /></a>",
            "[img]http://example.com/a.jpg[/img]"
        ),
        ("<a href=\"https://example.com/a[1]\">x</a>", "[url=https://example.com/a%5B1%5D]x[/url]"),
        ("<a href=\"http://example.com/x\">http://example.com/x</a>", "http://example.com/x"),
        ("<a href=\"http://www.newsmth.net/\">www.newsmth.net</a>", "www.newsmth.net"),
        ("<a href=\"mailto:a@example.com\">a@example.com</a>", "a@example.com"),
        ("<a href=\"/article/Test/1\">帖子</a>", "帖子"),
        ("<a href=\"javascript:alert(1)\">点我</a>", "点我"),
        // What a link without text holds, other than its own image, is read.
        ("<a href=\"http://x.example/\"><img src=\"/nForum/img/ubb/em/1.gif\" alt=\"em1\" /></a>", "[em01]"),
        // A tag longer than the renderer reads, or one over two lines, would
        // show as text: the text alone, as before.
        ("<a href=\"http://x.example/" + String(repeating: "a", count: 600) + "\">长</a>", "长"),
        ("<a href=\"http://x.example/\">上<br />下</a>", "上\n下"),
    ])
    func linksKeepTheirAddresses(markup: String, body: String) throws {
        let post = try mobilePost(firstLine: markup)
        #expect(post.body == body + "\n第二行")
        let nforum = try NForumVariationTests().post(
            NForumVariationTests.varied("第二段<br />", "第二段" + markup + "<br />"))
        #expect(nforum.body.hasSuffix("第二段" + body))
        #expect(nforum.ip == "28.127.20.*")
    }

    /// The 来源 line's link, spelled with a last `/`, is still the forum's line.
    @Test func theOriginLinesLinkStaysText() throws {
        let post = try NForumVariationTests().post(
            NForumVariationTests.varied(
                "<a href=\"http://www.newsmth.net\">", "<a href=\"http://www.newsmth.net/\">"))
        #expect(post.ip == "28.127.20.*")
        #expect(post.signature == "签名第一行\n签名第二行")
    }

    /// Blocks are lines of their own, as a browser shows them.
    @Test func blocksAreLinesOfTheirOwn() throws {
        let html = MobileVariationTests.plain.replacingOccurrences(
            of: "第一行<br />第二行", with: "<p>第一行</p><p>第二行</p><div>第三行</div>")
        try #require(html != MobileVariationTests.plain)
        let post = try #require(try MobileThreadPageParserTests().parse(html).posts.first)
        #expect(post.body == "第一行\n第二行\n第三行")
        #expect(post.ip == "1.2.3.*")
        // The first line of the body after a header that ends its `<p>`
        // was read into the header's last line, and lost.
        let plain = try NForumVariationTests().post(NForumVariationTests.plain)
        let paragraphs = try NForumVariationTests().post(NForumVariationTests.varied("站内<br /><br />", "站内</p><p>"))
        #expect(paragraphs.body == plain.body)
        #expect(paragraphs.body.hasPrefix("第一段第一行"))
        #expect(paragraphs.ip == plain.ip)
    }

    /// A `<pre>` keeps its lines and their indentation.
    @Test func codeKeepsItsLines() throws {
        let code = "<pre class=\"brush:c\">\nint main() {\n&nbsp;&nbsp;&nbsp;&nbsp;return 0;\n}\n</pre>"
        let post = try mobilePost(firstLine: code)
        #expect(post.body == "int main() {\n    return 0;\n}\n\n第二行")
        let nforum = try NForumVariationTests().post(NForumVariationTests.varied("第二段<br />", "第二段" + code))
        #expect(nforum.body.hasSuffix("第二段\nint main() {\n    return 0;\n}"))
        #expect(nforum.signature == "签名第一行\n签名第二行")
    }

    /// A logged-in reader's page shows the post's own id in its reply link.
    @Test func aMobilePostReadsItsIdFromItsReplyLink() throws {
        let actions =
            "<div><a href=\"/article/Test/post/700123\">回复</a>|<a href=\"/article/Test/edit/700123\">编辑</a></div>"
        let html = MobileVariationTests.plain.replacingOccurrences(
            of: "只看此ID</a></div>", with: "只看此ID</a></div>" + actions)
        try #require(html != MobileVariationTests.plain)
        let post = try #require(try MobileThreadPageParserTests().parse(html).posts.first)
        #expect(post.postID == 700123)
        #expect(
            try #require(try MobileThreadPageParserTests().parse(MobileVariationTests.plain).posts.first).postID == nil)
        // A link of the post's own to a post is no id of this one.
        let inBody = MobileVariationTests.plain.replacingOccurrences(
            of: "第一行", with: "<a href=\"/article/Test/post/5\">别的帖子</a>")
        #expect(try #require(try MobileThreadPageParserTests().parse(inBody).posts.first).postID == nil)
        #expect(SMTHMobileParser.postID(inReplyLink: "/article/Test/post/700123?s=1") == 700123)
        #expect(SMTHMobileParser.postID(inReplyLink: "/article/Test/post/12x") == nil)
        #expect(SMTHMobileParser.postID(inReplyLink: "/article/Test/post/") == nil)
    }

    /// Only a newline right after `<pre>` goes, as in a browser.
    @Test(arguments: [
        ("<pre>\nx\n</pre>", ["x"]), ("<pre><code>\nx</code></pre>", ["", "x"]), ("<pre>\n\nx</pre>", ["", "x"]),
        ("<pre>a<br />b&nbsp;c\r\nd</pre>", ["a", "b c", "d"]),
    ])
    func onlyTheNewlineRightAfterPreGoes(html: String, lines: [String]) throws {
        let document = try HTMLDocument(
            data: Data("<html><body>\(html)</body></html>".utf8), url: "https://example.org/", encoding: "UTF-8")
        let pre = try #require(document.select("//pre").first)
        #expect(PostMarkup.preformattedLines(pre) == lines)
    }
}

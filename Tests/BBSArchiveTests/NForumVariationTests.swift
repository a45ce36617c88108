import Foundation
import Testing

@testable import BBSArchive

/// nForum posts as real pages vary them: colours on any line, a line break
/// inside a header line, a header without its blank line, spacing and
/// full-width punctuation in `发信人`. Each variant reads as the plain post
/// does, colours aside; before, each lost or misfiled part of the post with
/// no warning (found by QA that varied real captures as real pages vary).
@Suite struct NForumVariationTests {
    let fetchedAt = Fixtures.beijing(2026, 8, 1, 16, 0, 0)

    /// The plain post: header, blank line, two paragraphs, signature, origin.
    static let plain =
        "发信人: silent (云狼), 信区: WorkLife<br />标&nbsp;&nbsp;题: 这家店还开着吗<br />"
        + "发信站: 水木社区 (Fri Jul 31 15:20:24 2026), 站内<br /><br />"
        + "第一段第一行<br />第一段第二行<br /><br />第二段<br />--<br />签名第一行<br />签名第二行<br />"
        + "<font class=\"f004\">※ 来源:·水木社区 <a href=\"http://www.newsmth.net\">http://www.newsmth.net</a>"
        + "·[FROM: 28.127.20.*]</font>"

    /// The post of a thread page holding `content` as its `td.a-content`.
    func post(_ content: String) throws -> Post {
        let html = """
            <div class="b-head corner"><span class="n-left">文章主题:&ensp;这家店还开着吗</span></div>
            <div class="b-content corner"><div class="a-wrap corner"><a name="a0"></a><table class="article">
            <tr class="a-head"><td class="a-left"><span class="a-u-name"><a href="/nForum/user/query/silent">silent</a></span></td>
            <td class="a-right"><span class="a-pos">楼主</span></td></tr>
            <tr class="a-body"><td class="a-left"></td><td class="a-content"><p>\(content)</p></td></tr>
            </table></div></div>
            """
        let page = FetchedPage(
            url: "https://www.newsmth.net/nForum/article/WorkLife/100683?ajax", body: Data(html.utf8),
            contentType: "text/html; charset=utf-8", fetchedAt: fetchedAt)
        guard case .thread(let thread) = try SMTHNForumSource().parse(page), let post = thread.posts.first else {
            throw ArchiveError.invalidOption("not a thread")
        }
        return post
    }

    /// The plain post with `variant` in place of `original`.
    static func varied(_ original: String, _ variant: String) -> String {
        plain.replacingOccurrences(of: original, with: variant)
    }

    static let variants: [(String, String, String)] = [
        // N1: the body's first paragraph went into the header, and was lost.
        ("no blank line after the header", "站内<br /><br />", "站内<br />"),
        (
            "a coloured blank line after the header", "站内<br /><br />",
            "站内<br /><font class=\"f001\">&nbsp;</font><br />"
        ),
        // N2: the signature stayed in the body, behind a coloured `--`.
        ("a coloured --", "<br />--<br />", "<br /><font class=\"f001\">--</font><br />"),
        (
            "a colour from -- over the signature", "<br />--<br />签名第一行<br />签名第二行<br />",
            "<br /><font class=\"f001\">--<br />签名第一行<br />签名第二行</font><br />"
        ),
        // N3: the author was the whole tail of the line.
        ("发信人 without spaces", "发信人: silent (云狼), 信区: WorkLife", "发信人:silent(云狼),信区:WorkLife"),
        ("发信人 with full-width brackets and colon", "发信人: silent (云狼), 信区: WorkLife", "发信人: silent （云狼）, 信区：WorkLife"),
        ("发信人 broken before 信区", "(云狼), 信区", "(云狼),<br />信区"),
        // N5: the title was lost or cut.
        (
            "a coloured title line", "标&nbsp;&nbsp;题: 这家店还开着吗",
            "<font class=\"f002\">标&nbsp;&nbsp;题: 这家店还开着吗</font>"
        ),
        ("a full-width colon after 标题", "题: 这家店", "题：这家店"),
        ("a line break inside the title", "这家店还开着吗<br />", "这家店<br />还开着吗<br />"),
        ("a line break inside the time", "(Fri Jul 31 15:20:24 2026)", "(Fri Jul 31<br />15:20:24 2026)"),
        // The time was lost (a warning, and a neighbour's time borrowed).
        ("the time in full-width brackets", "(Fri Jul 31 15:20:24 2026)", "（Fri Jul 31 15:20:24 2026）"),
        ("a site name with brackets", "水木社区 (Fri", "水木社区(newsmth) (Fri"),
        (
            "the header coloured", "发信人: silent (云狼), 信区: WorkLife",
            "<font class=\"f001\">发信人: silent (云狼), 信区: WorkLife</font>"
        ),
        ("the post's id hidden in a span", "发信人:", "<span style=\"DISPLAY:NONE\">100683</span>发信人:"),
        // What follows the time on a line of its own stayed in the body.
        ("站内 broken off the 发信站 line", "2026), 站内<br />", "2026),<br />站内<br />"),
        (", 转信 broken off the 发信站 line", "2026), 站内<br />", "2026)<br />, 转信<br />"),
        // The origin line with two spaces after ※ stayed in the signature.
        ("two spaces after ※", "※ 来源:", "※&nbsp;&nbsp;来源:"),
        // A blank line before 发信人 (a hidden id, then a line break).
        ("a hidden id and a line break first", "发信人:", "<font style=\"display: none\">100683</font><br />发信人:"),
        // N7: a colour over two lines coloured the first only.
        ("a colour over two lines", "第一段第一行<br />第一段第二行", "<font class=\"f001\">第一段第一行<br />第一段第二行</font>"),
    ]

    @Test(arguments: variants)
    func aVariedPostReadsAsThePlainOne(name: String, original: String, variant: String) throws {
        let content = Self.varied(original, variant)
        try #require(content != Self.plain, "the variant \(name) changes nothing")
        let expected = try post(Self.plain)
        let varied = try post(content)
        #expect(varied.warning == nil)
        #expect(varied.author == expected.author && varied.author == "silent")
        #expect(varied.nick == "云狼")
        #expect(varied.title == "这家店还开着吗")
        #expect(varied.postedAt == Fixtures.beijing(2026, 7, 31, 15, 20, 24))
        #expect(ANSIText.strip(varied.body) == expected.body)
        #expect(ANSIText.strip(varied.signature ?? "") == expected.signature)
        #expect(varied.ip == "28.127.20.*")
    }

    /// A colour over two lines colours both (N7), and a font inside a font
    /// gives the outer colour back when it ends.
    @Test func aColourOverLinesColoursEachLine() throws {
        let body = try post(
            Self.varied(
                "第一段第一行<br />第一段第二行",
                "<font class=\"f001\">第一段第一行<br />第一段<font class=\"f002\">第</font>二行</font>")
        ).body
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(ANSIText.runs(lines[0]).map(\.style) == [ANSIText.Style(foreground: 1, background: nil)])
        #expect(
            ANSIText.runs(lines[1]).map(\.text) == ["第一段", "第", "二行"]
                && ANSIText.runs(lines[1]).map(\.style.foreground) == [1, 2, 1])
    }

    /// A signature's own last line that starts with ※ is the author's and
    /// stays (N4); only the forum's 来源 and 修改 lines go.
    @Test func aSignatureLineThatStartsWithTheReferenceMarkStays() throws {
        let post = try post(Self.varied("签名第二行<br />", "签名第二行<br />※ 我的博客: http://blog.example.org<br />"))
        #expect(post.signature == "签名第一行\n签名第二行\n※ 我的博客: http://blog.example.org")
        #expect(post.ip == "28.127.20.*")
    }

    /// Without its blank line, a header is followed by the body, which may
    /// start like a header line or after a title with an open bracket: the
    /// header's title stays, and the body keeps its lines.
    @Test func aHeaderWithoutItsBlankLineKeepsItsTitleAndTheBodyItsLines() throws {
        let labelled = try post(Self.varied("站内<br /><br />第一段第一行", "站内<br />标题：第一段第一行"))
        #expect(labelled.title == "这家店还开着吗")
        #expect(labelled.body == "标题：第一段第一行\n第一段第二行\n\n第二段")
        let bracket = try post(
            Self.varied(
                "标&nbsp;&nbsp;题: 这家店还开着吗<br />发信站: 水木社区 (Fri Jul 31 15:20:24 2026), 站内<br /><br />",
                "发信站: 水木社区 (Fri Jul 31 15:20:24 2026), 站内<br />标&nbsp;&nbsp;题: 求助（急<br />"))
        #expect(bracket.title == "求助（急")
        #expect(bracket.body == "第一段第一行\n第一段第二行\n\n第二段")
    }

    /// The header in the order 发信人, 发信站, 标题, with the title broken
    /// onto a second line: one title, as a title broken between 发信人 and
    /// 发信站 is. Before, its second half began the body.
    @Test func aWrappedTitleThatEndsTheHeaderIsOneTitle() throws {
        let titleLast = Self.varied(
            "标&nbsp;&nbsp;题: 这家店还开着吗<br />发信站: 水木社区 (Fri Jul 31 15:20:24 2026), 站内<br />",
            "发信站: 水木社区 (Fri Jul 31 15:20:24 2026), 站内<br />标&nbsp;&nbsp;题: 这家店还开着吗<br />")
        try #require(titleLast != Self.plain)
        let plain = try post(Self.plain)
        let whole = try post(titleLast)
        #expect(whole.title == "这家店还开着吗" && whole.body == plain.body)
        let wrapped = try post(titleLast.replacingOccurrences(of: "这家店还开着吗<br />", with: "这家店<br />还开着吗<br />"))
        #expect(wrapped.title == "这家店还开着吗")
        #expect(wrapped.body == plain.body)
        #expect(wrapped.signature == plain.signature && wrapped.ip == "28.127.20.*")
        #expect(wrapped.postedAt == Fixtures.beijing(2026, 7, 31, 15, 20, 24) && wrapped.warning == nil)
    }

    /// Lines after the 来源 line (the BBS writes it last; real posts may
    /// have a line after it): the address is still read, and the line
    /// stays in the post, where it stood (after the signature, in it).
    /// Before, the 来源 line stayed in the signature, and the post had no
    /// address.
    @Test(arguments: [
        ("a line of text", "<br />本文已同步至微博", ["本文已同步至微博"]),
        ("two lines", "<br />第一行<br />第二行", ["第一行", "第二行"]),
        ("a blank line, then a line", "<br />&nbsp;&nbsp;<br />本文已同步至微博", ["本文已同步至微博"]),
        ("a coloured blank line", "<br /><font class=\"f001\">&nbsp;</font>", []),
        ("a coloured line", "<br /><font class=\"f001\">彩色的一行</font>", ["\u{1B}[31m彩色的一行\u{1B}[m"]),
    ])
    func aLineAfterTheOriginLineKeepsTheAddressAndTheLine(name: String, after: String, kept: [String]) throws {
        let plain = try post(Self.plain)
        let signed = try post(Self.plain + after)
        #expect(signed.ip == "28.127.20.*", "\(name)")
        #expect(signed.body == plain.body, "\(name)")
        #expect(signed.signature == (["签名第一行", "签名第二行"] + kept).joined(separator: "\n"), "\(name)")
        #expect(signed.warning == nil)
        // Without a signature, the line stays at the end of the body.
        let unsigned = try post(
            Self.varied("<br />--<br />签名第一行<br />签名第二行<br />", "<br />") + after)
        #expect(unsigned.ip == "28.127.20.*", "\(name)")
        #expect(unsigned.body == ([plain.body] + kept).joined(separator: "\n"), "\(name)")
        #expect(unsigned.signature == "")
    }

    /// A 来源 line above the signature's `--` is a line of the post (a
    /// forwarded post's), not its tail: it stays where it is.
    @Test func anOriginLineAboveTheSignatureStays() throws {
        let origin = "※ 来源:·水木社区 http://www.newsmth.net·[FROM: 9.9.9.*]"
        let post = try post(
            Self.varied("第二段<br />--<br />签名第一行<br />签名第二行<br />", "第二段<br />\(origin)<br />--<br />签名第一行<br />")
                .replacingOccurrences(of: "<font class=\"f004\">※ 来源", with: "<font class=\"f004\">※ 来自"))
        #expect(post.body.hasSuffix("第二段\n" + origin))
        #expect(post.ip == nil)
    }

    /// Lines of the post's own that look like the forum's: a last line
    /// `※来源：…` without the forum's address, a body that starts `站内信…`
    /// right after a header without its blank line. Both stay.
    @Test func linesOfThePostsOwnThatLookLikeTheForumsStay() throws {
        let signed = try post(Self.varied("签名第二行<br />", "签名第二行<br />※来源：新华社<br />"))
        #expect(signed.signature == "签名第一行\n签名第二行\n※来源：新华社")
        #expect(signed.ip == "28.127.20.*" && signed.editedBy == nil)
        let edited = try post(Self.varied("签名第二行<br />", "签名第二行<br />※修改：小明<br />"))
        #expect(edited.signature == "签名第一行\n签名第二行\n※修改：小明" && edited.editedBy == nil)
        let from = try post(Self.varied("签名第二行<br />", "签名第二行<br />※修改：FROM今天起<br />"))
        #expect(from.signature == "签名第一行\n签名第二行\n※修改：FROM今天起" && from.editedBy == nil)
        // The forum's own edit line, without its address, is still the forum's.
        let forum = try post(Self.varied("签名第二行<br />", "签名第二行<br />※ 修改:·silent 于 Jul 31 16:00:00 2026 修改本文<br />"))
        #expect(forum.signature == "签名第一行\n签名第二行" && forum.editedBy == "silent")
        let dotted = try post(Self.varied("签名第二行<br />", "签名第二行<br />※来源：·新华社<br />"))
        #expect(dotted.signature == "签名第一行\n签名第二行\n※来源：·新华社" && dotted.ip == "28.127.20.*")
        let spaced = try post(
            Self.varied("签名第二行<br />", "签名第二行<br />※ 修改:　·silent 于 Jul 31 16:00:00 2026 修改本文<br />"))
        #expect(spaced.signature == "签名第一行\n签名第二行" && spaced.editedBy == "silent")
        let message = try post(Self.varied("站内<br /><br />第一段第一行", "站内<br />站内信联系我<br />第一段第一行"))
        #expect(message.body == "站内信联系我\n第一段第一行\n第一段第二行\n\n第二段")
    }

    /// A nick that holds 信区, in a header without the board: the nick.
    @Test func aNickThatHoldsTheBoardsLabel() throws {
        let post = try post(Self.varied("发信人: silent (云狼), 信区: WorkLife", "发信人: silent (信区狼)"))
        #expect(post.nick == "信区狼")
        #expect(post.author == "silent")
    }

    /// A like whose parts sit in a colour is a like (it was left out).
    @Test func aLikeInAColourIsALike() throws {
        let likes = """
            <div class="likes"><ul><li><font color="red"><span class="like_score_1">[+5]</span>\
            <span class="like_user">river:</span><span class="like_msg">说得好</span>\
            <span class="like_time">(2026-07-31 16:00)</span></font></li></ul></div>
            """
        let post = try post(Self.plain + likes)
        #expect(post.likes.map(\.user) == ["river"])
        #expect(post.likes.first?.score == 5)
    }

    /// A header whose id the page reads otherwise is said in the warning,
    /// not filed silently under either.
    @Test func aHeaderThatNamesAnotherIdIsWarnedAbout() throws {
        let post = try post(Self.varied("发信人: silent (云狼)", "发信人: someone (云狼)"))
        #expect(post.warning?.contains("its header names someone, its page silent") == true)
    }

    /// A quote keeps the quoted post's colours (N6): a coloured header still
    /// names whom it quotes, and a coloured quoted line stays in the quote,
    /// with its colour; search leaves both out as it leaves out any quote.
    @Test func aColouredQuoteIsAQuote() {
        let conventions = Fixtures.smthForum.conventions
        let red = "\u{1B}[31m"
        let plain = "\u{1B}[m"
        let body = PostNormalizer.normalize(
            "\(red)【 在 river (猫飞翔的) 的大作中提到: 】\(plain)\n\(red): 被引用的一行\(plain)\n: 第二行\n回复正文",
            conventions: conventions)
        #expect(
            body.blocks == [
                .quote(
                    header: "\(red)【 在 river (猫飞翔的) 的大作中提到: 】\(plain)", author: "river",
                    lines: [.init(depth: 1, text: "\(red)被引用的一行\(plain)"), .init(depth: 1, text: "第二行")]),
                .text(["回复正文"]),
            ])
        let split = "【 在 river (猫飞翔的) \u{1B}[36m的大作中提到: 】\(plain)"
        #expect(conventions.quoteHeaderAuthor(split) == "river")
        let stored = StoredPost(
            board: "WorkLife", gid: 1, floor: 1, author: "silent", postedAt: fetchedAt,
            body: "\(red)【 在 river (猫飞翔的) 的大作中提到: 】\(plain)\n\(red): 被引用的一行\(plain)\n回复正文",
            ip: nil, editedBy: nil, attachments: [], nick: nil, title: nil, signature: nil, postID: nil, editedAt: nil)
        #expect(SearchText.searchable(post: stored, threadTitle: "t", conventions: conventions) == "回复正文")
    }
}

import Foundation
import Testing

@testable import BBSArchive

/// The desktop front end (nForum) over the real captured pages: the facts
/// PROVENANCE.md lists, in UTF-8 as captured and re-encoded as GBK.
@Suite struct NForumParserTests {
    let fetchedAt = Fixtures.beijing(2016, 5, 5, 22, 0, 0)
    let source = SMTHNForumSource()

    /// The file's bytes as captured, or converted to GB18030 and labelled GBK as the live site sends them.
    static func bytes(_ relative: String, gbk: Bool) throws -> (Data, String) {
        let utf8 = try Fixtures.data(relative)
        guard gbk else { return (utf8, "text/html; charset=utf-8") }
        return (try Iconv.convert(utf8, to: "GB18030"), "text/html; charset=GBK")
    }

    func board(gbk: Bool) throws -> BoardPage {
        let (body, type) = try Self.bytes("nforum/board-FamilyLife-p2.html", gbk: gbk)
        let page = FetchedPage(
            url: "https://www.newsmth.net/nForum/board/FamilyLife?ajax&p=2", body: body, contentType: type,
            fetchedAt: fetchedAt)
        guard case .board(let board) = try source.parse(page) else { throw ArchiveError.invalidOption("not a board") }
        return board
    }

    @Test(arguments: [false, true])
    func readsTheFamilyLifeBoardPage(gbk: Bool) throws {
        let board = try board(gbk: gbk)
        #expect(board.board == "FamilyLife")
        #expect(board.page.current == 2)
        #expect(board.page.total == 1217)
        #expect(board.threadCount == 36495)
        let first = try #require(board.threads.first)
        #expect(first.gid == 1_757_972_219)
        #expect(first.title == "2岁女孩找妈妈 其父母终于被找到")
        #expect(first.hasAttachment)
        #expect(first.replies == 14)
        #expect(first.author == "Muscle")
        #expect(first.postedAt == Fixtures.beijing(2016, 5, 5))
        #expect(first.lastReplier == "kxxx")
        #expect(first.lastReplyAt == Fixtures.beijing(2016, 5, 5, 21, 38, 58))
        #expect(board.threads.count == 30)
        #expect(!board.threads[1].hasAttachment)
    }

    /// The first row of the real page as real pages vary it: its link in a
    /// colour (left out in silence before), a board without the score and
    /// likes columns, a count with a thousands comma (both read as 0).
    @Test(arguments: [
        (
            "the title link in a colour", "<td class=\"title_9\"><a href=\"/nForum/article/FamilyLife/1757972219\">",
            "<td class=\"title_9\"><font color=\"red\"><a href=\"/nForum/article/FamilyLife/1757972219\">", 14
        ),
        (
            "no score and likes columns",
            "<td class=\"title_11 middle\"></td>\n            <td class=\"title_11 middle\"></td>\n            <td class=\"title_11 middle\">14</td>",
            "<td class=\"title_11 middle\">14</td>", 14
        ),
        (
            "the thread's page links before its title",
            "<td class=\"title_9\"><a href=\"/nForum/article/FamilyLife/1757972219\">",
            "<td class=\"title_9\"><span class=\"threads-tab\">[<a href=\"/nForum/article/FamilyLife/1757972219?p=2\">2</a>]</span><a href=\"/nForum/article/FamilyLife/1757972219\">",
            14
        ),
        (
            "a query on the title link", "<td class=\"title_9\"><a href=\"/nForum/article/FamilyLife/1757972219\">",
            "<td class=\"title_9\"><a href=\"/nForum/article/FamilyLife/1757972219?top=1\">", 14
        ),
        (
            "page links before a title link with a query",
            "<td class=\"title_9\"><a href=\"/nForum/article/FamilyLife/1757972219\">",
            "<td class=\"title_9\"><span class=\"threads-tab\">[<a href=\"/nForum/article/FamilyLife/1757972219#p2\">2</a>]</span><a href=\"/nForum/article/FamilyLife/1757972219?top=1\">",
            14
        ),
        ("full-width digits", "<td class=\"title_11 middle\">14</td>", "<td class=\"title_11 middle\">１４</td>", 14),
        (
            "a count with a comma", "<td class=\"title_11 middle\">14</td>", "<td class=\"title_11 middle\">1,014</td>",
            1014
        ),
    ])
    func aVariedRowReadsAsTheCapturedOne(name: String, original: String, variant: String, replies: Int) throws {
        let captured = String(decoding: try Fixtures.data("nforum/board-FamilyLife-p2.html"), as: UTF8.self)
        let html = captured.replacingOccurrences(of: original, with: variant)
        try #require(html != captured, "the variant \(name) changes nothing")
        let board = try parsedBoard(html)
        #expect(board.threads.count == 30)
        let first = try #require(board.threads.first)
        #expect(first.gid == 1_757_972_219 && first.author == "Muscle" && first.replies == replies)
        #expect(first.title == "2岁女孩找妈妈 其父母终于被找到")
    }

    /// A date or clock broken over two lines in the markup reads as the
    /// time it is. Before, `2016-05-0` / `5` refused the whole page as
    /// implausible, on every run.
    @Test func aTimeBrokenOverTwoLinesIsOneTime() throws {
        let captured = String(decoding: try Fixtures.data("nforum/board-FamilyLife-p2.html"), as: UTF8.self)
        let first = try parsedBoard(captured).threads[0]
        var html = captured
        let cell = try #require(html.range(of: "<td class=\"title_10\">2016-05-05</td>"))
        html.replaceSubrange(cell, with: "<td class=\"title_10\">2016-05-0\n5</td>")
        let last = try #require(html.range(of: "title=\"跳转至最后回复\">21:38:58&emsp;</a>"))
        html.replaceSubrange(last, with: "title=\"跳转至最后回复\">21:3\n8:58&emsp;</a>")
        let board = try parsedBoard(html)
        #expect(board.threads.count == 30 && board.unreadRows.isEmpty && board.partlyReadRows.isEmpty)
        let row = try #require(board.threads.first)
        #expect(row.gid == first.gid && row.postedAt == first.postedAt && row.lastReplyAt == first.lastReplyAt)
    }

    /// A row whose time cannot be read is said, thread and time, not left
    /// out in silence.
    @Test func aRowThatCannotBeReadIsSaid() throws {
        let captured = String(decoding: try Fixtures.data("nforum/board-FamilyLife-p2.html"), as: UTF8.self)
        // The first row's date alone (other rows show the same day).
        let cell = try #require(captured.range(of: "<td class=\"title_10\">2016-05-05</td>"))
        let html = captured.replacingCharacters(in: cell, with: "<td class=\"title_10\">2016/05/05</td>")
        let board = try parsedBoard(html)
        #expect(board.threads.count == 29)
        #expect(board.unreadRows.map(\.description) == ["thread 1757972219: its time \"2016/05/05\" could not be read"])
    }

    /// A row whose last reply's time cannot be read keeps its thread, with
    /// the post's time standing in, and says so; the captured page says
    /// nothing of the kind.
    @Test func aLastReplyTimeThatCannotBeReadIsSaid() throws {
        let captured = String(decoding: try Fixtures.data("nforum/board-FamilyLife-p2.html"), as: UTF8.self)
        #expect(try parsedBoard(captured).partlyReadRows.isEmpty)
        let last = "title=\"跳转至最后回复\">21:38:58&emsp;</a>"
        let cell = try #require(captured.range(of: last))
        let html = captured.replacingCharacters(in: cell, with: "title=\"跳转至最后回复\">昨天21点</a>")
        let board = try parsedBoard(html)
        #expect(board.threads.count == 30 && board.unreadRows.isEmpty)
        let first = try #require(board.threads.first)
        #expect(first.gid == 1_757_972_219 && first.lastReplyAt == first.postedAt)
        #expect(
            board.partlyReadRows.map(\.description) == [
                "thread 1757972219: its last reply's time \"昨天21点\" could not be read; its post time stands in"
            ])
    }

    /// A reply count that is not a count (`2万` is no 2) keeps its
    /// thread, with 0 standing in, and says so.
    @Test(arguments: ["很多", "2万", ""])
    func aReplyCountThatCannotBeReadIsSaid(count: String) throws {
        let board = try boardWithFirstCount(count)
        #expect(board.threads.count == 30 && board.unreadRows.isEmpty)
        let first = try #require(board.threads.first)
        #expect(first.gid == 1_757_972_219 && first.replies == 0)
        let what = count.isEmpty ? "its reply count is missing" : "its reply count \"\(count)\" could not be read"
        #expect(board.partlyReadRows.map(\.description) == ["thread 1757972219: \(what); 0 stands in"])
    }

    /// A count in another script's digits is exact; one the forum rounds
    /// or caps (`1.5k`, `17+`) is the least it says, not exact, and said.
    /// Before, each read as 0.
    @Test(arguments: [
        ("١٤", 14, true), ("¹⁴", 14, true), ("⑭", 14, true), ("1.5k", 1500, false), ("14+", 14, false),
        ("1,014+", 1014, false),
    ])
    func aCountInOtherFormsIsRead(count: String, replies: Int, exact: Bool) throws {
        let board = try boardWithFirstCount(count)
        #expect(board.threads.count == 30 && board.unreadRows.isEmpty)
        let first = try #require(board.threads.first)
        #expect(first.gid == 1_757_972_219 && first.replies == replies && first.repliesExact == exact)
        let note = "thread 1757972219: its reply count \"\(count)\" is not exact; at least \(replies) stands in"
        #expect(board.partlyReadRows.map(\.description) == (exact ? [] : [note]))
    }

    /// A title link inside the thread's page links (`span.threads-tab`,
    /// where real pages put only `?p=N` links), after them or before: the
    /// thread's title is still its link's, and the page's own pager is
    /// still read.
    @Test(arguments: [
        "<span class=\"threads-tab\">[<a href=\"/nForum/article/FamilyLife/1757972219?p=2\">2</a>]<a href=\"/nForum/article/FamilyLife/1757972219\">2岁女孩找妈妈 其父母终于被找到</a></span>",
        "<span class=\"threads-tab\"><a href=\"/nForum/article/FamilyLife/1757972219\">2岁女孩找妈妈 其父母终于被找到</a>[<a href=\"/nForum/article/FamilyLife/1757972219?p=2\">2</a>]</span>",
    ])
    func aTitleLinkAmongThePageLinksIsTheTitle(variant: String) throws {
        let captured = String(decoding: try Fixtures.data("nforum/board-FamilyLife-p2.html"), as: UTF8.self)
        let link = try #require(
            captured.range(
                of: "<a href=\"/nForum/article/FamilyLife/1757972219\">2岁女孩找妈妈 其父母终于被找到</a>"))
        let board = try parsedBoard(captured.replacingCharacters(in: link, with: variant))
        #expect(board.threads.count == 30 && board.unreadRows.isEmpty && board.partlyReadRows.isEmpty)
        let first = try #require(board.threads.first)
        #expect(first.gid == 1_757_972_219 && first.title == "2岁女孩找妈妈 其父母终于被找到")
        #expect(first.replies == 14 && first.author == "Muscle")
        #expect(board.page == PageInfo(current: 2, total: 1217))
    }

    /// The captured board page with its first row's reply count written `count`.
    func boardWithFirstCount(_ count: String) throws -> BoardPage {
        let captured = String(decoding: try Fixtures.data("nforum/board-FamilyLife-p2.html"), as: UTF8.self)
        let cell = try #require(captured.range(of: "<td class=\"title_11 middle\">14</td>"))
        return try parsedBoard(
            captured.replacingCharacters(in: cell, with: "<td class=\"title_11 middle\">\(count)</td>"))
    }

    func parsedBoard(_ html: String) throws -> BoardPage {
        let page = FetchedPage(
            url: "https://www.newsmth.net/nForum/board/FamilyLife?ajax&p=2", body: Data(html.utf8),
            contentType: "text/html; charset=utf-8", fetchedAt: fetchedAt)
        guard case .board(let board) = try source.parse(page) else { throw ArchiveError.invalidOption("not a board") }
        return board
    }

    @Test func gbkAndUTF8GiveTheSameModels() throws {
        #expect(try board(gbk: true) == (try board(gbk: false)))
        #expect(try post(gbk: true) == (try post(gbk: false)))
    }

    /// A thread's title keeps the spaces inside it, as the list's row does:
    /// collapsed, a title with two spaces read otherwise from the thread
    /// than from the list, and every fetch of it logged a new title (QA,
    /// replica seed 21: 4 to 7 retitles a fetch). A line break inside the
    /// header's markup reads as one space.
    @Test(arguments: [
        ("文章主题:&ensp;在美读大学  一年50万 州立大学", "在美读大学  一年50万 州立大学"),
        ("文章主题:&ensp;在美读大学\n      一年50万 州立大学 ", "在美读大学 一年50万 州立大学"),
        ("文章主题： A\tB ", "A\tB"),
    ])
    func aThreadsTitleKeepsItsSpaces(header: String, title: String) throws {
        #expect(try threadTitle(header: header) == title)
    }

    /// A list row's title is read as the thread's header is
    /// (`HTMLWhitespace.field`): with the row's link wrapped over lines, as
    /// re-indented markup has it, the row read the raw text (line breaks,
    /// indentation and all) where the thread read it unwrapped and trimmed,
    /// and every fetch of the thread would log a new title twice.
    @Test(arguments: [false, true])
    func aWrappedListRowReadsTheTitleItsThreadReads(gbk: Bool) throws {
        let title = "2岁女孩找妈妈 其父母终于被找到"
        let wrapped = "\n                2岁女孩找妈妈\n                其父母终于被找到 \n            "
        let captured = String(decoding: try Fixtures.data("nforum/board-FamilyLife-p2.html"), as: UTF8.self)
        let html = captured.replacingOccurrences(of: ">\(title)</a>", with: ">\(wrapped)</a>")
        try #require(html != captured)
        var body = Data(html.utf8)
        if gbk { body = try Iconv.convert(body, to: "GB18030") }
        let page = FetchedPage(
            url: "https://www.newsmth.net/nForum/board/FamilyLife?ajax&p=2", body: body,
            contentType: gbk ? "text/html; charset=GBK" : "text/html; charset=utf-8", fetchedAt: fetchedAt)
        guard case .board(let board) = try source.parse(page) else {
            Issue.record("not a board")
            return
        }
        let row = try #require(board.threads.first)
        #expect(row.title == title)
        #expect(try threadTitle(header: "文章主题:&ensp;" + wrapped) == row.title)
    }

    /// The title read from a hand-made thread page with this header.
    func threadTitle(header: String) throws -> String? {
        let html = """
            <div class="b-head corner"><span class="n-left">\(header)</span></div>
            <div class="b-content corner"><div class="a-wrap corner"><a name="a0"></a><table class="article">
            <tr class="a-head"><td class="a-left"><span class="a-u-name"><a href="/nForum/user/query/a">a</a></span></td>
            <td class="a-right"><span class="a-pos">楼主</span></td></tr>
            <tr class="a-body"><td class="a-left"></td><td class="a-content"><p>发信人: a (a), 信区: WorkLife<br />
            标&nbsp;&nbsp;题: x<br />发信站: 水木社区 (Fri Mar 25 11:52:04 2016), 站内<br /><br />正文<br /></p></td></tr>
            </table></div></div>
            """
        let page = FetchedPage(
            url: "https://www.newsmth.net/nForum/article/WorkLife/1234?ajax", body: Data(html.utf8),
            contentType: "text/html; charset=utf-8", fetchedAt: Fixtures.beijing(2016, 3, 26))
        guard case .thread(let thread) = try source.parse(page) else {
            Issue.record("not a thread")
            return nil
        }
        return thread.title
    }

    /// The real `td.a-content`, set in a hand-made thread page around it.
    func post(gbk: Bool) throws -> Post {
        let content = String(decoding: try Fixtures.data("nforum/post-content.html"), as: UTF8.self)
        let html = """
            <div class="b-head corner"><span class="n-left">文章主题:&ensp;如果面对国民党酷刑，你会变节吗</span></div>
            <div class="b-content corner"><div class="a-wrap corner"><a name="a0"></a><table class="article">
            <tr class="a-head"><td class="a-left"><span class="a-u-name"><a href="/nForum/user/query/schower">schower</a></span></td>
            <td class="a-right"><span class="a-pos">楼主</span> <a href="/nForum/article/WorkLife/post/1234" class="a-post">回复</a></td></tr>
            <tr class="a-body"><td class="a-left"><div class="a-u-uid">schower</div></td>
            """ + content + "</tr></table></div></div>"
        var body = Data(html.utf8)
        var type = "text/html; charset=utf-8"
        if gbk {
            body = try Iconv.convert(body, to: "GB18030")
            type = "text/html; charset=GBK"
        }
        let page = FetchedPage(
            url: "https://www.newsmth.net/nForum/article/WorkLife/1234?ajax", body: body, contentType: type,
            fetchedAt: fetchedAt)
        guard case .thread(let thread) = try source.parse(page), let post = thread.posts.first else {
            throw ArchiveError.invalidOption("not a thread")
        }
        #expect(thread.title == "如果面对国民党酷刑，你会变节吗")
        return post
    }

    @Test(arguments: [false, true])
    func readsTheWholePostText(gbk: Bool) throws {
        let post = try post(gbk: gbk)
        #expect(post.author == "schower")
        #expect(post.nick == "schower")
        #expect(post.title == "如果面对国民党酷刑，你会变节吗")
        #expect(post.postedAt == Fixtures.beijing(2016, 3, 25, 11, 52, 4))
        #expect(post.body.hasPrefix("你是个热血青年，入可党，但被国民党抓住了"))
        #expect(!post.body.contains("发信人") && !post.body.contains("※") && !post.body.contains("--"))
        #expect(
            !PostNormalizer.normalize(post.body, conventions: Fixtures.smthForum.conventions).blocks.contains {
                if case .quote = $0 { true } else { false }
            })
        #expect(post.signature == "")
        #expect(post.ip == "101.90.125.*")
        #expect(post.postID == 1234)
        #expect(!post.body.contains("\u{1B}"))
        #expect(post.likes.count == 36)
        let first = try #require(post.likes.first)
        #expect(
            first
                == Like(
                    score: 0, user: "fly891198061", message: "无法忍受，我不会变节，先斗智，不行就自杀！来个痛快的~！",
                    at: Fixtures.beijing(2016, 3, 27, 15, 4)))
        #expect(post.likes.first { $0.user == "Puritan" }?.score == 5)
        #expect(post.likes.first { $0.user == "virus27" }?.score == -5)
        #expect(post.likes.last?.user == "xyfhs")
    }

    @Test func splitsHeaderBodySignatureAndOrigin() {
        let text = PostText.split([
            "发信人: alice (爱丽丝 (A)), 信区: Test", "标  题: Re: 你好", "发信站: 水木社区 (Mon Mar  5 09:07:01 2018), 站内", "",
            "【 在 bob (Bob) 的大作中提到: 】", ": 原文", "正文", "--", "", "签名一行", "",
            "※ 修改:·alice 于 Mar  5 10:00:00 2018 修改本文·[FROM: 1.2.3.*]",
            "※ 来源:·水木社区 http://www.newsmth.net·[FROM: 5.6.7.*]",
        ])
        #expect(text.header?.author == "alice")
        #expect(text.header?.nick == "爱丽丝 (A)")
        #expect(text.header?.board == "Test")
        #expect(text.header?.title == "Re: 你好")
        #expect(text.header?.site == "水木社区")
        #expect(text.header?.postedAt == Fixtures.beijing(2018, 3, 5, 9, 7, 1))
        #expect(text.body == ["【 在 bob (Bob) 的大作中提到: 】", ": 原文", "正文"])
        #expect(text.signature == ["签名一行"])
        #expect(text.ip == "5.6.7.*")
        #expect(text.editedBy == "alice")
        #expect(text.editedAt == Fixtures.beijing(2018, 3, 5, 10))
    }

    @Test func turnsFontClassesBackIntoColourCodes() throws {
        let html = """
            <table class="article"><tr class="a-head"><td><span class="a-u-name"><a>u</a></span><span class="a-pos">第3楼</span></td></tr>
            <tr class="a-body"><td class="a-content"><p><font style="display: none">99</font>发信人: u (nick), 信区: B<br />标&nbsp;&nbsp;题: t<br />发信站: 水木社区 (Fri Mar 25 11:52:04 2016), 站内<br />&nbsp;&nbsp;<br />普通<font class="f009">红</font>普通<font class="f407">蓝底</font><br /><font class="f006">: 引文</font><br />--<br /><font class="f007">※ 来源:·水木社区 <a href="http://www.newsmth.net">http://www.newsmth.net</a>·[FROM: 1.1.1.*]</font></p></td></tr></table>
            """
        let page = FetchedPage(
            url: "http://x/nForum/article/B/1?ajax", body: Data(html.utf8), contentType: nil, fetchedAt: fetchedAt)
        guard case .thread(let thread) = try source.parse(page), let post = thread.posts.first else {
            Issue.record("not a thread")
            return
        }
        #expect(post.floor == 3)
        #expect(post.body == "普通\u{1B}[1;31m红\u{1B}[m普通\u{1B}[44m蓝底\u{1B}[m\n: 引文")
        #expect(
            ANSIText.runs(post.body.components(separatedBy: "\n")[0]).map(\.style) == [
                .plain, ANSIText.Style(foreground: 9, background: nil), .plain,
                ANSIText.Style(foreground: nil, background: 4),
            ])
        #expect(post.ip == "1.1.1.*")
    }

    @Test func readsErrorPages() throws {
        let html = String(decoding: try Fixtures.data("nforum/error-pages.html"), as: UTF8.self)
        let parts = html.components(separatedBy: "<body>").filter { $0.contains("table class=\"error\"") }
        #expect(parts.count == 2)
        let missing = FetchedPage(
            url: "http://x/nForum/article/Nope/1?ajax", body: Data(parts[0].utf8), contentType: nil,
            fetchedAt: fetchedAt)
        #expect(throws: ArchiveError.unknownBoard("Nope", message: "错误的版名或者文章号!")) { try source.parse(missing) }
        let login = FetchedPage(
            url: "http://x/nForum/board/Secret?ajax", body: Data(parts[1].utf8), contentType: nil, fetchedAt: fetchedAt)
        #expect {
            try source.parse(login)
        } throws: { error in
            guard case ArchiveError.forumError(_, let message) = error else { return false }
            return message.hasPrefix("您还没有登录")
        }
    }

    @Test func knowsItsAddresses() {
        let nforum = SMTHNForumSource(baseURL: "http://127.0.0.1:8080/nForum/")
        #expect(nforum.boardURL(board: "Geo", page: 2) == "http://127.0.0.1:8080/nForum/board/Geo?ajax&p=2")
        #expect(
            nforum.address(of: "http://127.0.0.1:8080/nForum/article/Geo/12?ajax&p=3")
                == .thread("Geo", gid: 12, page: 3))
        #expect(nforum.requestHeaders.first?.name == "X-Requested-With")
    }
}

/// glibc's iconv, for converting test pages the way the live site encodes them.
enum Iconv {
    static func convert(_ data: Data, to encoding: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/iconv")
        process.arguments = ["-f", "UTF-8", "-t", encoding]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let writer = DispatchQueue.global()
        writer.async {
            input.fileHandleForWriting.write(data)
            try? input.fileHandleForWriting.close()
        }
        let converted = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ArchiveError.invalidOption("iconv failed") }
        return converted
    }
}

import Foundation
import Testing

@testable import BBSArchive

/// Thread pages of the mobile site, written here by hand after the nForum
/// mobile templates (no real capture is public).
@Suite struct MobileThreadPageParserTests {
    static let head = """
        <?xml version="1.0" encoding="utf-8"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML Basic 1.1//EN" \
        "http://www.w3.org/TR/xhtml-basic/xhtml-basic11.dtd"><html xmlns="http://www.w3.org/1999/xhtml" xml:lang="cn">\
        <head><title>水木社区手机版</title></head><body><div id="wraper"><div class="menu sp">\
        <a href="/index">首页</a>|<a href="/board/Test">测试</a>|主题</div><div id="m_main">
        """
    static let tail = "</div></div></body></html>"

    static func post(floor: String, name: String, user: String, time: String, body: String, hla: Bool = false) -> String
    {
        """
        <li\(hla ? " class=\"hla\"" : "")><a name="\(name)"></a><div class="nav hl"><div><a class="plant">\(floor)</a>|\
        <a href="/user/query/\(user)">\(user)</a>|<a class="plant">\(time)</a>|\
        <a href="/article/Test/700?au=\(user)">只看此ID</a></div></div><div class="sp">\(body)</div></li>
        """
    }

    static let sample =
        head + """
            <div class="sec nav"><a href="/article/Test/700?p=3">下页</a>|<a class="plant">2/5</a></div>\
            <ul class="list sec"><li class="f">主题:&lt;b&gt;标题&lt;/b&gt; &amp; "引号"</li>
            """
        + post(
            floor: "楼主", name: "a0", user: "alice", time: "2026-08-01 09:15:02",
            body: "第一行 text<br />&nbsp;&nbsp;缩进&nbsp;&nbsp;两格<br />&lt;script&gt;alert(1)&lt;/script&gt;<br />"
                + "<a href=\"/att/Test/700/1234\">单击此查看原图(1.5KB)</a><br /><img src=\"/att/Test/700/1234/middle\" alt=\"map.png\" /><br />"
                + "<font color=\"blue\">附件(812B)</font>&nbsp;<a href=\"/att/Test/700/5678\">资料.txt</a><br />"
                + "修改:alice FROM 10.0.0.*<br />FROM 101.90.125.*")
        + post(
            floor: "11楼", name: "a11", user: "bob", time: "10:20:30",
            body: "【 在 alice (爱丽丝) 的大作中提到: 】<br />: 第一行 text<br />: : 更早的<br />同意<br />FROM 1.2.3.*",
            hla: true)
        + post(
            floor: "12楼", name: "a12", user: "carol", time: "2026-07-30 23:59:59",
            body: "<a href=\"//static.mysmth.net/nForum/att/Test/702/99\">单击此查看原图(3KB)</a><br />"
                + "<img src=\"//static.mysmth.net/nForum/att/Test/702/99/small\" alt=\"only.jpg\" /><br />FROM 5.6.7.*")
        + "</ul>" + tail

    let fetchedAt = Fixtures.beijing(2026, 8, 1, 12, 0, 0)

    func parse(_ html: String, url: String = "http://127.0.0.1:9/article/Test/700?p=2") throws -> ThreadPage {
        let page = FetchedPage(
            url: url, body: Data(html.utf8), contentType: "text/html; charset=utf-8", fetchedAt: fetchedAt)
        guard case .thread(let thread) = try SMTHMobileSource(baseURL: "http://127.0.0.1:9").parse(page) else {
            throw ArchiveError.notAForumPage(url: url, expected: "thread")
        }
        return thread
    }

    /// Markup nested past libxml2's depth limit ends its reading there, as
    /// if the page ended (QA 7: a post of 257 `<font>`s stored empty, and
    /// the thread counted as done). Colours nested so deep (tags left open)
    /// are read past, the page read without them; other nesting refuses
    /// the page, said as such and tried again.
    @Test func markupNestedPastTheParsersLimit() throws {
        func nested(_ tag: String, _ count: Int) -> String {
            Self.sample.replacingOccurrences(
                of: "FROM 5.6.7.*",
                with: String(repeating: "<\(tag)>", count: count) + "深" + String(repeating: "</\(tag)>", count: count)
                    + "<br />FROM 5.6.7.*")
        }
        let whole = try parse(Self.sample)
        for tag in ["font", "FONT color=\"red\""] {
            let read = try parse(nested(tag, 400))
            #expect(read.posts.count == whole.posts.count)
            #expect(read.posts.last?.body.contains("深") == true)
            #expect(read.posts.last?.ip == "5.6.7.*")
        }
        do {
            _ = try parse(nested("div", 257))
            Issue.record("a page the parser stopped reading was read")
        } catch {
            guard case .implausible(_, let what) = error as? ArchiveError else {
                Issue.record("\(error)")
                return
            }
            #expect(what.contains("nested more than 256 elements deep"))
        }
        // Nesting within the limit reads whole.
        #expect(try parse(nested("div", 200)).posts.count == whole.posts.count)
        #expect(HTMLDocument.withoutFontTags(Data("<p>a</p>".utf8)) == nil)
        #expect(HTMLDocument.withoutFontTags(Data("<Font class=x>a</FONT><fontx>".utf8)) == Data("a<fontx>".utf8))
    }

    @Test func readsTitlePagerAndIds() throws {
        let thread = try parse(Self.sample)
        #expect(thread.title == "<b>标题</b> & \"引号\"")
        #expect(thread.page == PageInfo(current: 2, total: 5))
        #expect(thread.board == "Test")
        #expect(thread.gid == 700)
        #expect(thread.posts.map(\.floor) == [0, 11, 12])
        #expect(thread.posts.map(\.author) == ["alice", "bob", "carol"])
    }

    @Test func keepsTextSpacesAndMarkupAsText() throws {
        let first = try parse(Self.sample).posts[0]
        #expect(first.body == "第一行 text\n  缩进  两格\n<script>alert(1)</script>")
        #expect(first.ip == "101.90.125.*")
        #expect(first.editedBy == "alice")
        #expect(first.postedAt == Fixtures.beijing(2026, 8, 1, 9, 15, 2))
    }

    @Test func readsAttachmentsAsFullSizeAbsoluteURLs() throws {
        let posts = try parse(Self.sample).posts
        #expect(
            posts[0].attachments == [
                Attachment(name: "map.png", url: "http://127.0.0.1:9/att/Test/700/1234", kind: .image, size: "1.5KB"),
                Attachment(name: "资料.txt", url: "http://127.0.0.1:9/att/Test/700/5678", kind: .file, size: "812B"),
            ])
        // Protocol-relative links take the page's scheme; thumbnails are never kept.
        #expect(
            posts[2].attachments == [
                Attachment(
                    name: "only.jpg", url: "http://static.mysmth.net/nForum/att/Test/702/99", kind: .image, size: "3KB")
            ])
        #expect(posts[2].body == "")
    }

    @Test func keepsQuotesAndResolvesTodayTimes() throws {
        let reply = try parse(Self.sample).posts[1]
        #expect(reply.body == "【 在 alice (爱丽丝) 的大作中提到: 】\n: 第一行 text\n: : 更早的\n同意")
        #expect(reply.postedAt == Fixtures.beijing(2026, 8, 1, 10, 20, 30))
        #expect(reply.ip == "1.2.3.*")
        #expect(reply.editedBy == nil)
    }

    @Test func readsAnEmptyThread() throws {
        let html = Self.head + "<ul class=\"list sec\"><li class=\"f\">主题:空</li><li>不存在任何文章</li></ul>" + Self.tail
        let thread = try parse(html, url: "http://127.0.0.1:9/article/Test/9")
        #expect(thread.title == "空")
        #expect(thread.posts.isEmpty)
        #expect(thread.page == PageInfo(current: 1, total: 1))
    }

    @Test func namesTheForumsOwnErrors() throws {
        let missingBoard = Self.head + "<div class=\"sp hl f\">指定的版面不存在</div>" + Self.tail
        #expect(throws: ArchiveError.unknownBoard("Nope", message: "指定的版面不存在")) {
            try parse(missingBoard, url: "http://127.0.0.1:9/board/Nope?p=1")
        }
        let login = Self.head + "<div class=\"sp hl f\">您无权阅读此版面</div>" + Self.tail
        #expect(throws: ArchiveError.forumError(url: "http://127.0.0.1:9/board/Secret?p=1", message: "您无权阅读此版面")) {
            try parse(login, url: "http://127.0.0.1:9/board/Secret?p=1")
        }
    }

    @Test(arguments: ["", "<html><body><p>hello</p></body></html>", "{\"json\": true}", "\u{1}\u{2}\u{3}binary"])
    func refusesPagesThatAreNotForumPages(_ body: String) throws {
        let page = FetchedPage(url: "http://x/board/A", body: Data(body.utf8), contentType: nil, fetchedAt: fetchedAt)
        #expect(throws: ArchiveError.self) { try SMTHMobileSource().parse(page) }
    }

    @Test func readsADeletedFirstPostRow() throws {
        let html =
            Self.head + """
                <ul class="list sec"><li><div><a href="/article/Test/42">没了楼主</a>(2)</div>\
                <div>2026-07-01&nbsp;原帖已删除|09:00:00&nbsp;<a href="/user/query/bob">bob</a></div></li></ul>
                """ + Self.tail
        let page = FetchedPage(
            url: "http://x/board/Test?p=1", body: Data(html.utf8), contentType: nil, fetchedAt: fetchedAt)
        guard case .board(let board) = try SMTHMobileSource().parse(page) else {
            Issue.record("expected a board page")
            return
        }
        let row = try #require(board.threads.first)
        #expect(row.author == nil)
        #expect(row.replies == 2)
        #expect(row.lastReplier == "bob")
        #expect(row.lastReplyAt == Fixtures.beijing(2026, 8, 1, 9, 0, 0))
    }
}

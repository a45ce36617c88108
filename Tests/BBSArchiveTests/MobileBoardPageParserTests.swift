import Foundation
import Testing

@testable import BBSArchive

/// The real Geography board page (PROVENANCE.md lists the facts asserted here).
@Suite struct MobileBoardPageParserTests {
    /// The capture's "today": its HH:MM:SS rows are 2026-08-01 in Beijing.
    let fetchedAt = Fixtures.beijing(2026, 8, 1, 16, 0, 0)

    /// The real page, with each of `changes` (text, its variant) made in
    /// it; a change that finds nothing to change fails the test.
    func parseFixture(_ changes: [(String, String)] = []) throws -> BoardPage {
        var html = String(decoding: try Fixtures.data("mobile/board-Geography-p1.xhtml"), as: UTF8.self)
        for (original, variant) in changes {
            let changed = html.replacingOccurrences(of: original, with: variant)
            try #require(changed != html, "nothing to change: \(original)")
            html = changed
        }
        let page = FetchedPage(
            url: "https://m.newsmth.net/board/Geography", body: Data(html.utf8),
            contentType: "text/html; charset=utf-8", fetchedAt: fetchedAt)
        let parsed = try SMTHMobileSource().parse(page)
        guard case .board(let board) = parsed else {
            Issue.record("expected a board page, got \(parsed)")
            throw ArchiveError.notAForumPage(url: page.url, expected: "board")
        }
        return board
    }

    /// A list row's title is read as the thread's own page reads it
    /// (`HTMLWhitespace.field`): with the row's link and the page's
    /// `主题:` line wrapped over lines, as re-indented markup has them, the
    /// row read the raw text (line breaks, indentation and all), the thread
    /// the unwrapped one, and every fetch would log a new title twice.
    @Test func aWrappedListRowReadsTheTitleItsThreadReads() throws {
        let title = "在美读大学  一年50万 州立大学"
        let wrapped = "\n        在美读大学  一年50万\n        州立大学 \n    "
        let board = try parseFixture([(">\(title)</a>", ">\(wrapped)</a>")])
        let row = try #require(board.threads.first { $0.gid == 679596 })
        #expect(row.title == "在美读大学  一年50万 州立大学")
        let thread = MobileThreadPageParserTests.sample.replacingOccurrences(
            of: "主题:&lt;b&gt;标题&lt;/b&gt; &amp; \"引号\"", with: "主题: " + wrapped)
        try #require(thread != MobileThreadPageParserTests.sample)
        #expect(try MobileThreadPageParserTests().parse(thread).title == row.title)
    }

    /// The first row of the real page as real pages vary it; each still
    /// reads as the captured row does. Before, the first three left the row
    /// out in silence, the fourth misread its people and last time, and the
    /// fifth rejected the whole page (`2023-04-03Tom41`, cut at the first
    /// space, read as a time with junk after it).
    @Test(arguments: [
        (
            "no space before the author", "2023-04-03&nbsp;<a href=\"/user/query/D600\">",
            "2023-04-03<a href=\"/user/query/D600\">"
        ),
        (
            "the title link in a colour",
            "<a href=\"/article/Geography/535772\" class=\"top\">Geography 版2023年3月文章数统计</a>",
            "<font color=\"red\"><a href=\"/article/Geography/535772\" class=\"top\">Geography 版2023年3月文章数统计</a></font>"
        ),
        (
            "an icon before the count", "Geography 版2023年3月文章数统计</a>(17)",
            "Geography 版2023年3月文章数统计</a><img src=\"/img/att.gif\" />(17)"
        ),
        (
            "the people re-indented", "<div>2023-04-03&nbsp;<a href=\"/user/query/D600\">D600</a>|2023-04-14&nbsp;",
            "<div>\n      2023-04-03&nbsp;<a href=\"/user/query/D600\">D600</a>\n      |\n      2023-04-14&nbsp;"
        ),
        (
            "a badge after the author", "<a href=\"/user/query/D600\">D600</a>|",
            "<a href=\"/user/query/D600\">D600</a>&nbsp;[版主]|"
        ),
        (
            "a word before the author", "2023-04-03&nbsp;<a href=\"/user/query/D600\">",
            "2023-04-03&nbsp;by&nbsp;<a href=\"/user/query/D600\">"
        ),
        (
            "a place after the last replier", "<a href=\"/user/query/sanford66\">sanford66</a></div>",
            "<a href=\"/user/query/sanford66\">sanford66</a>&nbsp;[北京]</div>"
        ),
        ("a count with a comma", "Geography 版2023年3月文章数统计</a>(17)", "Geography 版2023年3月文章数统计</a>(0,017)"),
        ("a bracket before the count", "Geography 版2023年3月文章数统计</a>(17)", "Geography 版2023年3月文章数统计</a>(图)(17)"),
        ("a CJK numeral before the count", "Geography 版2023年3月文章数统计</a>(17)", "Geography 版2023年3月文章数统计</a>(2万)(17)"),
        ("a full-width count", "Geography 版2023年3月文章数统计</a>(17)", "Geography 版2023年3月文章数统计</a>（17）"),
        (
            "a tag after the count", "Geography 版2023年3月文章数统计</a>(17)",
            "Geography 版2023年3月文章数统计</a>(17)<font color=\"red\">[新]</font>"
        ),
        (
            "no space before an id that starts with T", "2023-04-03&nbsp;<a href=\"/user/query/D600\">D600</a>",
            "2023-04-03<a href=\"/user/query/D600\">D600</a>"
        ),
    ])
    func aVariedRowReadsAsTheCapturedOne(name: String, original: String, variant: String) throws {
        var changes = [(original, variant)]
        if name.hasSuffix("starts with T") {
            changes.append(("D600\">D600</a>|2023-04-14", "Tom41\">Tom41</a>|2023-04-14"))
        }
        let board = try parseFixture(changes)
        #expect(board.threads.count == 30)
        #expect(board.unreadRows.isEmpty && board.partlyReadRows.isEmpty && board.rowReport == nil)
        let row = try #require(board.threads.first)
        #expect(row.gid == 535772)
        #expect(row.author == (name.hasSuffix("starts with T") ? "Tom41" : "D600"))
        #expect(row.replies == 17)
        #expect(row.postedAt == Fixtures.beijing(2023, 4, 3))
        #expect(row.lastReplier == "sanford66")
        #expect(row.lastReplyAt == Fixtures.beijing(2023, 4, 14))
    }

    /// A date or clock broken over two lines in the markup (a page wrapped
    /// at a column) reads as the time it is. Before, `2023-04-1` / `4` read
    /// as the 1st, in silence.
    @Test func aTimeBrokenOverTwoLinesIsOneTime() throws {
        let board = try parseFixture([
            ("<div>2023-04-03&nbsp;", "<div>2023-0\n4-03&nbsp;"),
            (
                "|2023-04-14&nbsp;<a href=\"/user/query/sanford66\">",
                "|2023-04-1\n4 15:3\n1:48&nbsp;<a href=\"/user/query/sanford66\">"
            ),
        ])
        #expect(board.unreadRows.isEmpty && board.partlyReadRows.isEmpty)
        let row = try #require(board.threads.first)
        #expect(row.postedAt == Fixtures.beijing(2023, 4, 3))
        #expect(row.lastReplyAt == Fixtures.beijing(2023, 4, 14, 15, 31, 48))
        #expect(row.author == "D600" && row.lastReplier == "sanford66")
    }

    /// A date with its clock is one time, not a date and a name.
    @Test func aDateWithItsClockIsOneTime() throws {
        let board = try parseFixture([
            (
                "|2023-04-14&nbsp;<a href=\"/user/query/sanford66\">",
                "|2023-04-14 15:31:48&nbsp;<a href=\"/user/query/sanford66\">"
            )
        ])
        let row = try #require(board.threads.first)
        #expect(row.lastReplyAt == Fixtures.beijing(2023, 4, 14, 15, 31, 48))
        #expect(row.lastReplier == "sanford66")
    }

    /// A row whose time cannot be read is said, thread and time, not left
    /// out in silence: `parse` and `fetch` report it.
    @Test func aRowThatCannotBeReadIsSaid() throws {
        let board = try parseFixture([("<div>2023-04-03&nbsp;", "<div>2023年4月3日&nbsp;")])
        #expect(board.threads.count == 29)
        #expect(board.unreadRows.map(\.description) == ["thread 535772: its time \"2023年4月3日\" could not be read"])
    }

    /// A row whose last reply's time cannot be read keeps its thread, with
    /// the post's time standing in, and says so.
    @Test(arguments: [
        (
            "|2023-04-14&nbsp;<a href=\"/user/query/sanford66\">",
            "|2023年4月14日&nbsp;<a href=\"/user/query/sanford66\">",
            "its last reply's time \"2023年4月14日\" could not be read; its post time stands in"
        ),
        (
            "|2023-04-14&nbsp;<a href=\"/user/query/sanford66\">", "|<a href=\"/user/query/sanford66\">",
            "its last reply has no time; its post time stands in"
        ),
    ])
    func aLastReplyTimeThatCannotBeReadIsSaid(original: String, variant: String, problem: String) throws {
        let board = try parseFixture([(original, variant)])
        #expect(board.threads.count == 30)
        #expect(board.unreadRows.isEmpty)
        let row = try #require(board.threads.first)
        #expect(row.gid == 535772 && row.lastReplier == "sanford66")
        #expect(row.lastReplyAt == row.postedAt)
        #expect(board.partlyReadRows.map(\.description) == ["thread 535772: " + problem])
        #expect(board.rowReport == "1 row(s) read in part: thread 535772: " + problem)
    }

    /// A row whose reply count cannot be read keeps its thread, with 0
    /// standing in, and says so.
    @Test func aReplyCountThatCannotBeReadIsSaid() throws {
        let board = try parseFixture([("统计</a>(17)", "统计</a>(很多)")])
        #expect(board.threads.count == 30 && board.unreadRows.isEmpty)
        let row = try #require(board.threads.first)
        #expect(row.gid == 535772 && row.replies == 0 && !row.repliesExact)
        #expect(
            board.partlyReadRows.map(\.description) == [
                "thread 535772: its reply count \"(很多)\" could not be read; 0 stands in"
            ])
    }

    /// A count in another script's digits is the count it writes: Arabic-
    /// Indic, full-width, superscript and circled digits, a circled number.
    /// Before, all but the full-width read as 0.
    @Test(arguments: ["(١٧)", "(۱۷)", "（１７）", "(¹⁷)", "(①⑦)", "(⑰)", "(❶❼)", "(१७)"])
    func aCountInOtherDigitsIsExact(count: String) throws {
        let board = try parseFixture([("统计</a>(17)", "统计</a>\(count)")])
        #expect(board.unreadRows.isEmpty && board.partlyReadRows.isEmpty)
        let row = try #require(board.threads.first)
        #expect(row.gid == 535772 && row.replies == 17 && row.repliesExact)
    }

    /// A count the forum rounds (`1.5k`) or caps (`17+`) is read as the
    /// least it says, and said: the row's count is then no reason to take
    /// its thread for archived as listed (`ThreadSummary.repliesExact`).
    @Test(arguments: [
        ("(1.5k)", 1500), ("(17+)", 17), ("(2K)", 2000), ("(1.25k+)", 1250), ("(０.５ｋ)", 500), ("(1,017+)", 1017),
        ("(1.2345k)", 1234),
    ])
    func anApproximateCountIsItsLeastAndSaid(count: String, least: Int) throws {
        let board = try parseFixture([("统计</a>(17)", "统计</a>\(count)")])
        #expect(board.threads.count == 30 && board.unreadRows.isEmpty)
        let row = try #require(board.threads.first)
        #expect(row.gid == 535772 && row.replies == least && !row.repliesExact)
        #expect(
            board.partlyReadRows.map(\.description) == [
                "thread 535772: its reply count \"\(count)\" is not exact; at least \(least) stands in"
            ])
    }

    /// What is no count stays none: a CJK numeral, a decimal without its
    /// `k`, digits past counting, a sign, a `k` alone.
    @Test(arguments: ["(2万)", "(1.5)", "(12345678901k)", "(-3)", "(k)", "(+)", "(1.k)", "(⑰⑰)", "(1e3)"])
    func whatIsNoCountIsSaid(count: String) throws {
        let board = try parseFixture([("统计</a>(17)", "统计</a>\(count)")])
        let row = try #require(board.threads.first)
        #expect(row.gid == 535772 && row.replies == 0 && !row.repliesExact)
        #expect(board.partlyReadRows.first?.problem.hasSuffix("could not be read; 0 stands in") == true)
    }

    /// A row whose count cannot be read and whose last reply shows no time:
    /// the post's time stands in for the last reply's, and that is said
    /// too, as for a row that shows replies. Before, only the count was.
    @Test func aLastReplyWithoutATimeIsSaidWhenTheCountIsUnread() throws {
        let board = try parseFixture([
            ("统计</a>(17)", "统计</a>(很多)"),
            ("|2023-04-14&nbsp;<a href=\"/user/query/sanford66\">", "|<a href=\"/user/query/sanford66\">"),
        ])
        #expect(board.threads.count == 30 && board.unreadRows.isEmpty)
        let row = try #require(board.threads.first)
        #expect(row.lastReplyAt == row.postedAt && row.lastReplier == "sanford66")
        #expect(
            board.partlyReadRows.map(\.description) == [
                "thread 535772: its reply count \"(很多)\" could not be read; 0 stands in; "
                    + "its last reply has no time; its post time stands in"
            ])
    }

    /// A row with no reply whose last half names a replier but shows no
    /// time: the post's time stands in, and that is said. A row with no
    /// reply and no last half at all (the forum's way, for some pages, of
    /// showing none) says nothing.
    @Test func aLastReplierWithoutATimeIsSaid() throws {
        let named = try parseFixture([
            ("统计</a>(17)", "统计</a>(0)"),
            ("|2023-04-14&nbsp;<a href=\"/user/query/sanford66\">", "|<a href=\"/user/query/sanford66\">"),
        ])
        let row = try #require(named.threads.first)
        #expect(row.replies == 0 && row.lastReplyAt == row.postedAt)
        #expect(
            named.partlyReadRows.map(\.description) == [
                "thread 535772: its last reply has no time; its post time stands in"
            ])
        let none = try parseFixture([
            ("统计</a>(17)", "统计</a>(0)"),
            ("|2023-04-14&nbsp;<a href=\"/user/query/sanford66\">sanford66</a>", ""),
        ])
        #expect(none.partlyReadRows.isEmpty && none.threads.first?.lastReplyAt == none.threads.first?.postedAt)
    }

    @Test func readsBoardNameTitleAndPager() throws {
        let board = try parseFixture()
        #expect(board.board == "Geography")
        #expect(board.title == "地理")
        #expect(board.page == PageInfo(current: 1, total: 1001))
    }

    @Test func readsThirtyRowsWithFourStickyFirst() throws {
        let board = try parseFixture()
        #expect(board.threads.count == 30)
        #expect(board.threads.prefix(4).allSatisfy { $0.sticky })
        #expect(board.threads.dropFirst(4).allSatisfy { !$0.sticky })
    }

    @Test func readsTheFirstRow() throws {
        let row = try #require(try parseFixture().threads.first)
        #expect(row.gid == 535772)
        #expect(row.title == "Geography 版2023年3月文章数统计")
        #expect(row.replies == 17)
        #expect(row.author == "D600")
        #expect(row.postedAt == Fixtures.beijing(2023, 4, 3))
        #expect(row.lastReplier == "sanford66")
        #expect(row.lastReplyAt == Fixtures.beijing(2023, 4, 14))
    }

    @Test func resolvesTodaysTimesAgainstTheFetchTime() throws {
        let row = try parseFixture().threads[5]
        #expect(row.gid == 679639)
        #expect(row.title == "不幸言中了")
        #expect(row.replies == 3)
        #expect(row.author == "jijjin")
        #expect(row.postedAt == Fixtures.beijing(2026, 8, 1, 11, 50, 5))
        #expect(row.lastReplier == "defeatyou")
        #expect(row.lastReplyAt == Fixtures.beijing(2026, 8, 1, 15, 31, 48))
    }

    @Test func decodesEntitiesInTitles() throws {
        let titles = try parseFixture().threads.map(\.title)
        #expect(titles.contains("欧美各国历年贫富差距的变化 - 美帝前1%的人拥有35%的社会财富"))
    }

    @Test func printsTheIssueJSONShape() async throws {
        let json = try await ParseAction(
            source: SMTHMobileSource(),
            input: Fixtures.smth.appendingPathComponent("mobile/board-Geography-p1.xhtml").path,
            fetchedAt: fetchedAt
        ).run()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "board")
        let page = try #require(object["page"] as? [String: Any])
        #expect(page["current"] as? Int == 1 && page["total"] as? Int == 1001)
        let rows = try #require(object["threads"] as? [[String: Any]])
        #expect(rows.count == 30)
        #expect(rows[5]["postedAt"] as? String == "2026-08-01T11:50:05+08:00")
        #expect(rows[0]["lastReplyAt"] as? String == "2023-04-14T00:00:00+08:00")
        #expect(
            Set(rows[0].keys).isSuperset(of: [
                "gid", "title", "replies", "sticky", "author", "postedAt", "lastReplier", "lastReplyAt",
            ]))
    }
}

import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// Boards group by section when the store knows sections, and never vanish.
@Suite struct SiteNavigationTests {
    static func board(_ name: String) -> StoredBoard {
        StoredBoard(name: name, title: name, source: nil, baseURL: nil, threadCount: 1, postCount: 1)
    }

    @Test func withoutSectionsEveryBoardIsInOneGroup() {
        let navigation = SiteNavigation(
            boards: [Self.board("A"), Self.board("B")], filing: StoredSectionFiling(sections: [], boardSection: [:]))
        #expect(!navigation.hasSections)
        // The templates and strings.toml name the group (全部版面).
        #expect(navigation.groups.map(\.name) == [""])
        #expect(navigation.groups.first?.boards.map(\.name) == ["A", "B"])
        #expect(navigation.groups.first?.code == nil)
    }

    @Test func sectionsGroupBoardsAndKeepUnfiledOnes() {
        let filing = StoredSectionFiling(
            sections: [
                StoredSection(code: "0", name: "本站系统", parent: nil),
                StoredSection(code: "1", name: "社会信息", parent: nil),
                StoredSection(code: "9", name: "空分区", parent: nil),
            ],
            boardSection: ["A": "1", "B": "0", "C": "7"])
        let navigation = SiteNavigation(boards: ["A", "B", "C"].map(Self.board), filing: filing)
        #expect(navigation.hasSections)
        // The templates and strings.toml name the last group (其他版面).
        #expect(navigation.groups.map(\.name) == ["本站系统", "社会信息", ""])
        #expect(navigation.groups.map(\.code) == ["0", "1", nil])
        #expect(navigation.groups.map { $0.boards.map(\.name) } == [["B"], ["A"], ["C"]])
        #expect(navigation.group(code: "1")?.boards.map(\.name) == ["A"])
    }

    /// `boards.js` hands every group to `site.js` as JSON, whatever the
    /// forum calls its boards and sections: quotes, markup, a closing
    /// script tag, line separators and control characters come back as the
    /// text they were (less the controls), and the file stays one call.
    @Test func theBoardsScriptKeepsHostileNamesAsText() throws {
        let hostile = "</script><script>alert(1)</script>\"'\u{2028}\u{2029}\n\u{1B}]0;x\u{07}版"
        var board = Self.board("A")
        board.title = hostile
        let filing = StoredSectionFiling(
            sections: [StoredSection(code: "1", name: hostile, parent: nil)], boardSection: ["A": "1"])
        let navigation = SiteNavigation(boards: [board, Self.board("B")], filing: filing)
        let script = BoardsScript.script(navigation)
        let text = String(decoding: script, as: UTF8.self)
        #expect(text.hasPrefix("BBSBoards(") && text.hasSuffix(");\n"))
        #expect(!text.contains("\u{1B}") && !text.dropLast().contains("\n"), "\(text)")
        let groups = try #require(BoardsScript.parse(script))
        let clean = SiteBuilder.displayable(hostile)
        #expect(!clean.contains("\u{1B}"))
        #expect(
            groups == [
                .init(
                    name: clean, kind: "section", href: "section/1.html", boards: [["A", clean, "board/A/index.html"]]),
                .init(name: "", kind: "other", href: nil, boards: [["B", "B", "board/B/index.html"]]),
            ])
    }

    @Test func topThreadsKeepsTheBestInOrder() {
        var top = TopThreads(limit: 3) { $0.thread.postCount > $1.thread.postCount }
        for (gid, posts) in [(1, 5), (2, 9), (3, 1), (4, 7), (5, 9), (6, 2)] {
            let thread = StoredThread(
                board: "A",
                heading: ThreadHeading(
                    gid: gid, title: "t", sticky: false, marked: false, author: "a", postedAt: Date(),
                    lastReplier: nil, lastReplyAt: Date()),
                postCount: posts, firstPostArchived: true)
            if top.wants(thread, boardTitle: "A") {
                top.offer(ThreadDigest(thread: thread, boardTitle: "A", excerpt: ""))
            }
        }
        #expect(top.items.map(\.thread.gid) == [2, 5, 4])
    }
}

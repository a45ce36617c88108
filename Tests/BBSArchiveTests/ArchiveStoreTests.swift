import BBSArchiveTestSupport
import Foundation
import GRDB
import Testing

@testable import BBSArchive

@Suite struct ArchiveStoreTests {
    let source = SMTHMobileSource(baseURL: "http://127.0.0.1:9")

    func sampleThread(gid: Int = 700, replies: Int = 1) -> [ThreadPage] {
        let posts = (0...replies).map { floor in
            Post(
                floor: floor, author: floor == 0 ? "alice" : "bob", postedAt: Fixtures.beijing(2026, 8, 1, 9, floor),
                body: "第\(floor)楼",
                attachments: floor == 0
                    ? [Attachment(name: "a.png", url: "http://127.0.0.1:9/att/T/700/1", kind: .image, size: "1KB")]
                    : [],
                ip: "1.2.3.*")
        }
        return [ThreadPage(board: "T", gid: gid, title: "标题", page: PageInfo(current: 1, total: 1), posts: posts)]
    }

    func summary(gid: Int = 700, replies: Int = 1) -> ThreadSummary {
        ThreadSummary(
            gid: gid, title: "标题", replies: replies, sticky: false, author: "alice",
            postedAt: Fixtures.beijing(2026, 8, 1), lastReplier: "bob",
            lastReplyAt: Fixtures.beijing(2026, 8, 1, 9, replies))
    }

    func openStore() throws -> ArchiveStore {
        try ArchiveStore(path: try Fixtures.temporaryFolder().appendingPathComponent("a.sqlite").path)
    }

    @Test func savingTwiceAddsNothing() throws {
        let store = try openStore()
        for _ in 0..<2 {
            try store.saveBoardPage(
                BoardPage(board: "T", title: "测试", page: PageInfo(current: 1, total: 1), threads: [summary()]),
                source: source)
            try store.saveThread(board: "T", pages: sampleThread(), summary: summary())
            try store.saveCapture(
                HTTPResponse(
                    url: "http://127.0.0.1:9/board/T?p=1", status: 200, headers: [("Content-Type", "text/html")],
                    body: Data("page".utf8), fetchedAt: Date()))
        }
        let counts = try store.counts()
        #expect(
            counts
                == StoreCounts(
                    boards: 1, threads: 1, posts: 2, users: 2, attachments: 1, media: 0, captures: 1, blobs: 1))
        #expect(try store.boards().first?.title == "测试")
        #expect(try store.posts(board: "T", gid: 700).map(\.body) == ["第0楼", "第1楼"])
    }

    /// The threads with files among the ones a build renders again: asked
    /// in statements of up to 500 gids, duplicates and unknown gids among
    /// them, another board's thread of the same gid left out.
    @Test func threadsWithFilesAmongManyGidsAreThoseOfTheBoard() throws {
        let store = try openStore()
        func thread(board: String, gid: Int, withFile: Bool) -> [ThreadPage] {
            let post = Post(
                floor: 0, author: "alice", postedAt: Fixtures.beijing(2026, 8, 1, 9, gid % 60), body: "帖\(gid)",
                attachments: withFile
                    ? [
                        Attachment(
                            name: "a.png", url: "http://127.0.0.1:9/att/\(board)/\(gid)/1", kind: .image, size: "1KB")
                    ]
                    : [])
            return [
                ThreadPage(board: board, gid: gid, title: "标题", page: PageInfo(current: 1, total: 1), posts: [post])
            ]
        }
        try store.saveBoardPage(
            BoardPage(
                board: "T", title: "测试", page: PageInfo(current: 1, total: 1),
                threads: (1...620).map { summary(gid: $0, replies: 0) }),
            source: source)
        try store.saveBoardPage(
            BoardPage(
                board: "U", title: "另一", page: PageInfo(current: 1, total: 1), threads: [summary(gid: 1, replies: 0)]),
            source: source)
        for gid in 1...620 {
            try store.saveThread(
                board: "T", pages: thread(board: "T", gid: gid, withFile: gid % 7 == 0),
                summary: summary(gid: gid, replies: 0))
        }
        try store.saveThread(
            board: "U", pages: thread(board: "U", gid: 1, withFile: true), summary: summary(gid: 1, replies: 0))
        let asked = Array(1...620) + [7, 14, 1, 9999]
        let expected = Set((1...620).filter { $0 % 7 == 0 })
        #expect(try store.threadsWithAttachments(board: "T", among: asked.reversed()) == expected)
        #expect(try store.threadsWithAttachments(board: "T") == expected)
        #expect(try store.threadsWithAttachments(board: "U", among: [1, 7]) == [1])
        #expect(try store.threadsWithAttachments(board: "T", among: []).isEmpty)
    }

    /// A user's posts (user pages) come with their threads' titles and their
    /// places in their threads (posts before them, not floors, where floors
    /// have gaps), in time order either way, paged by offset and limit.
    /// The query names the indexes it reads (`thread_title`, the posts'
    /// primary key), so this runs them too.
    @Test func aUsersPostsCarryTheirThreadsTitlesAndPlaces() throws {
        let store = try openStore()
        // Floors with gaps (deleted posts) in 700; bob posts in both threads.
        let threads: [(gid: Int, title: String, floors: [Int], bob: Set<Int>)] = [
            (700, "标题甲", [0, 1, 2, 4, 7, 9], [2, 4, 9]), (701, "标题乙", [0, 1, 2, 3], [2, 3]),
        ]
        var expected: [StoredUserPost] = []
        let countedFrom = 3
        for (index, thread) in threads.enumerated() {
            let posts = thread.floors.enumerated().map { place, floor in
                let author = thread.bob.contains(floor) ? "bob" : "alice"
                let time = Fixtures.beijing(2026, 8, 1, 9, floor * 2 + index)
                if author == "bob" {
                    expected.append(
                        StoredUserPost(
                            board: "T", gid: thread.gid, floor: floor, position: floor < countedFrom ? floor : place,
                            threadTitle: thread.title, postedAt: time))
                }
                return Post(floor: floor, author: author, postedAt: time, body: "第\(floor)楼", attachments: [])
            }
            var row = summary(gid: thread.gid, replies: thread.floors.count - 1)
            row.title = thread.title
            try store.saveBoardPage(
                BoardPage(board: "T", title: "测试", page: PageInfo(current: 1, total: 1), threads: [row]),
                source: source)
            try store.saveThread(
                board: "T",
                pages: [
                    ThreadPage(
                        board: "T", gid: thread.gid, title: thread.title, page: PageInfo(current: 1, total: 1),
                        posts: posts)
                ], summary: row)
        }
        expected.sort { ($0.postedAt, $0.gid, $0.floor) < ($1.postedAt, $1.gid, $1.floor) }
        #expect(expected.count == 5)
        #expect(expected.contains { $0.floor >= countedFrom && $0.position != $0.floor })
        #expect(try store.posts(byUser: "bob", countedFrom: countedFrom) == expected)
        #expect(try store.posts(byUser: "bob", newestFirst: true, countedFrom: countedFrom) == expected.reversed())
        #expect(
            try store.posts(byUser: "bob", offset: 1, limit: 2, countedFrom: countedFrom)
                == Array(expected[1..<3]))
    }

    /// A list page's rows are compared with the stored ones and only those
    /// that differ are written: every field a row shows still reaches the
    /// store, a page without a title keeps the board's, and a row listed as
    /// stored logs no change for the build.
    @Test func aListPageWritesEveryFieldThatDiffersAndNothingElse() throws {
        let path = try Fixtures.temporaryFolder().appendingPathComponent("a.sqlite").path
        let store = try ArchiveStore(path: path)
        let rows = (700..<703).map { summary(gid: $0) }
        func save(_ rows: [ThreadSummary], title: String? = "测试", pages: Int = 1) throws {
            try store.saveBoardPage(
                BoardPage(board: "T", title: title, page: PageInfo(current: 1, total: pages), threads: rows),
                source: source)
        }
        func stored() throws -> [[DatabaseValue]] {
            try GRDBTestAccess.open(path).queue.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT gid, title, replies, sticky, marked, author, postedAt, lastReplier, lastReplyAt, originalURL
                        FROM thread ORDER BY gid
                        """
                ).map { Array($0.databaseValues) }
            }
        }
        func changes() throws -> Int {
            try GRDBTestAccess.open(path).queue.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM build_change") ?? 0
            }
        }
        try save(rows)
        let logged = try changes()
        try save(rows)
        #expect(try changes() == logged)

        var changed = rows
        changed[0].title = "新标题"
        changed[0].sticky = true
        changed[1].replies = 5
        changed[1].lastReplier = nil
        changed[1].lastReplyAt = Fixtures.beijing(2026, 8, 2)
        changed[2].marked = true
        changed[2].author = "carol"
        changed[2].postedAt = Fixtures.beijing(2026, 7, 31)
        try save(changed, title: nil, pages: 2)
        let after = try stored()
        #expect(after.map { String.fromDatabaseValue($0[1]) } == ["新标题", "标题", "标题"])
        #expect(after.map { Bool.fromDatabaseValue($0[3]) } == [true, false, false])
        #expect(after.map { Int.fromDatabaseValue($0[2]) } == [1, 5, 1])
        #expect(after[1][7].isNull)
        #expect(Int64.fromDatabaseValue(after[1][8]) == ArchiveStore.seconds(Fixtures.beijing(2026, 8, 2)))
        #expect(after.map { Bool.fromDatabaseValue($0[4]) } == [false, false, true])
        #expect(String.fromDatabaseValue(after[2][5]) == "carol")
        #expect(Int64.fromDatabaseValue(after[2][6]) == ArchiveStore.seconds(Fixtures.beijing(2026, 7, 31)))
        #expect(after.allSatisfy { String.fromDatabaseValue($0[9]) != nil })
        // The untitled page kept the title; its page count is stored.
        #expect(try store.boards().first?.title == "测试")
        #expect(try store.boardPageCount(board: "T") == 2)
        #expect(try changes() > logged)
    }

    /// The page's stored rows are read once, before its rows are written:
    /// a thread listed twice on one page still ends as its last listing
    /// says, as when each row was compared with the store in turn.
    @Test func aThreadListedTwiceOnAPageEndsAsItsLastListing() throws {
        let path = try Fixtures.temporaryFolder().appendingPathComponent("a.sqlite").path
        let store = try ArchiveStore(path: path)
        func listedReplies() throws -> [Int] {
            try GRDBTestAccess.open(path).queue.read { db in try Int.fetchAll(db, sql: "SELECT replies FROM thread") }
        }
        let page = { (threads: [ThreadSummary]) in
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: threads)
        }
        try store.saveBoardPage(page([summary(gid: 700, replies: 1)]), source: source)
        // Changed, then back as stored: the second listing wins.
        try store.saveBoardPage(page([summary(gid: 700, replies: 4), summary(gid: 700, replies: 1)]), source: source)
        #expect(try listedReplies() == [1])
        try store.saveBoardPage(page([summary(gid: 700, replies: 1), summary(gid: 700, replies: 6)]), source: source)
        #expect(try listedReplies() == [6])
    }

    /// `areArchived` answers for every row, in the page's order, unknown
    /// threads and repeated ones included, across its reads of 500 gids.
    @Test func areArchivedAnswersEveryRowOfALongPage() throws {
        let store = try openStore()
        let time = Fixtures.smthForum.time
        let rows = (1...1_203).map { summary(gid: $0) }
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: rows), source: source)
        let archived = [2, 499, 500, 501, 1_000, 1_203]
        for gid in archived {
            try store.saveThread(board: "T", pages: sampleThread(gid: gid), summary: summary(gid: gid))
        }
        var asked = rows + [summary(gid: 9_999), summary(gid: 500), summary(gid: 2, replies: 3)]
        asked.swapAt(0, 1_202)
        let answers = try store.areArchived(board: "T", asked, time: time)
        let expected = asked.enumerated().map { index, row in
            index != asked.count - 1 && archived.contains(row.gid)
        }
        #expect(answers == expected)
        // What saving the page returns answers as `areArchived` does, with no read of its own.
        let listings = try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: asked), source: source)
        #expect(listings.areArchived(asked, time: time) == expected)
        #expect(try store.areArchived(board: "T", asked, time: time) == expected)
        #expect(try store.areArchived(board: "T", [], time: time) == [])
        #expect(try store.areArchived(board: "U", [summary(gid: 2)], time: time) == [false])
    }

    @Test func knowsWhichThreadsAreUnchanged() throws {
        let store = try openStore()
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [summary()]), source: source)
        #expect(try store.isArchived(board: "T", summary: summary(), time: Fixtures.smthForum.time) == false)
        try store.saveThread(board: "T", pages: sampleThread(), summary: summary())
        #expect(try store.isArchived(board: "T", summary: summary(), time: Fixtures.smthForum.time) == true)
        #expect(try store.isArchived(board: "T", summary: summary(replies: 2), time: Fixtures.smthForum.time) == false)
    }

    /// A thread whose row gives a count that is not exact (`1.5k`, `17+`,
    /// or none that could be read) is never archived as listed: the same
    /// count and a day-only time can hide replies made since. It is asked
    /// for at every fetch, and its pages' end never marks a post deleted.
    @Test func aCountThatIsNotExactNeverMakesAThreadArchived() throws {
        let store = try openStore()
        let time = Fixtures.smthForum.time
        var approximate = summary()
        approximate.repliesExact = false
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [approximate]),
            source: source)
        try store.saveThread(board: "T", pages: sampleThread(), summary: approximate)
        #expect(try store.isArchived(board: "T", summary: approximate, time: time) == false)
        let listings = try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [approximate]),
            source: source)
        #expect(listings.areArchived([approximate], time: time) == [false])
        var pending = try store.threadsNeedingFetch(board: "T", time: time).map(\.summary)
        #expect(pending.map(\.gid) == [700] && pending.map(\.repliesExact) == [false])
        // Listed exactly again and archived so, it is archived as listed.
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [summary()]), source: source)
        try store.saveThread(board: "T", pages: sampleThread(), summary: summary())
        #expect(try store.isArchived(board: "T", summary: summary(), time: time) == true)
        #expect(try store.isArchived(board: "T", summary: approximate, time: time) == false)
        #expect(try store.threadsNeedingFetch(board: "T", time: time).isEmpty)
        // Then listed with a count that is not exact: asked for again, the
        // count known for a hint.
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [approximate]),
            source: source)
        pending = try store.threadsNeedingFetch(board: "T", time: time).map(\.summary)
        #expect(pending.map(\.gid) == [700] && pending.map(\.repliesExact) == [false])
    }

    @Test func storesMediaOnceByContent() throws {
        let store = try openStore()
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [summary()]), source: source)
        try store.saveThread(board: "T", pages: sampleThread(), summary: summary())
        #expect(try store.missingMedia() == ["http://127.0.0.1:9/att/T/700/1"])
        let png = Data([0x89, 0x50, 0x4E, 0x47])
        let response = HTTPResponse(
            url: "http://127.0.0.1:9/att/T/700/1", status: 200, headers: [("Content-Type", "image/png")], body: png,
            fetchedAt: Date())
        try store.saveCapture(response)
        try store.saveMedia(url: response.url, response: response)
        #expect(try store.missingMedia().isEmpty)
        let attachment = try #require(try store.posts(board: "T", gid: 700).first?.attachments.first)
        #expect(attachment.hash == SHA256.hex(png))
        #expect(attachment.mime == "image/png")
        #expect(try store.blob(hash: SHA256.hex(png)) == png)
        #expect(try store.counts().blobs == 1)
    }

    @Test func aStoredCapturesHeadersReadBackTrimmedAndFoundByTheirASCIIName() throws {
        let store = try openStore()
        let url = "http://127.0.0.1:9/board/T?p=1"
        try store.saveCapture(
            HTTPResponse(
                url: url, status: 200,
                headers: [
                    ("ETag", "  \"v1\"\u{3000}"), ("content-TYPE", "text/html; charset=utf-8\t"),
                    ("\u{212A}eep-Alive", "timeout=5"),
                ],
                body: Data("page".utf8), fetchedAt: Date()))
        let stored = try #require(try store.latestCaptureHeaders(url: url))
        // Blanks at either end go, as `CharacterSet.whitespaces` has them (U+3000 and tab too).
        #expect(stored.header("etag") == "\"v1\"")
        #expect(stored.header("Content-Type") == "text/html; charset=utf-8")
        // A name is an ASCII token: the Kelvin sign is not a K in any case.
        #expect(stored.header("Keep-Alive") == nil)
        #expect(stored.header("\u{212A}eep-Alive") == "timeout=5")
    }

    /// A response with the body of its address's newest capture is that
    /// capture (nothing to write); another body, or the same body from
    /// another address, is a capture of its own, as `saveCapture` keeps it.
    @Test func aResponseLikeItsAddressesNewestCaptureIsThatCapture() throws {
        let store = try openStore()
        let url = "http://127.0.0.1:9/board/T?p=1"
        func response(_ text: String, at address: String = url) -> HTTPResponse {
            HTTPResponse(url: address, status: 200, headers: [], body: Data(text.utf8), fetchedAt: Date())
        }
        let first = try store.saveCapture(response("one"))
        let latest = try store.latestCaptureHeaders(url: url)
        #expect(try store.saveCapture(response("one"), latest: latest) == first)
        #expect(try store.counts().captures == 1)
        // Another body: a capture of its own, the address's newest.
        let second = try store.saveCapture(response("two"), latest: latest)
        #expect(second != first)
        #expect(try store.counts().captures == 2)
        #expect(try store.latestCaptureHeaders(url: url)?.captureHash == second)
        // The same body from another address: that address's capture.
        let other = "http://127.0.0.1:9/board/T?p=2"
        #expect(try store.saveCapture(response("one", at: other), latest: latest) == first)
        #expect(try store.latestCaptureHeaders(url: other)?.captureHash == first)
        #expect(try store.counts().captures == 3)
    }

    @Test func refusesAFileThatIsNotAStoreAndLeavesItAlone() throws {
        let path = try Fixtures.temporaryFolder().appendingPathComponent("notes.txt").path
        let original = Data(String(repeating: "my notes, not a database\n", count: 200).utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: original))
        #expect(throws: ArchiveError.storeUnavailable(path: path, reason: "it is not a SQLite database")) {
            try ArchiveStore(path: path)
        }
        #expect(FileManager.default.contents(atPath: path) == original)
    }

    /// A thread archived clears its failures under every address it was
    /// tried at: the other front end's, or an earlier forum address (QA 7:
    /// `status` listed them as pending for good).
    @Test func anArchivedThreadClearsItsFailuresUnderEveryAddress() throws {
        let store = try openStore()
        for url in [
            "http://127.0.0.1:1/article/T/700?p=1", "https://www.newsmth.net/nForum/article/T/700?ajax&p=2",
            "http://127.0.0.1:1/article/T/701?p=1", "http://127.0.0.1:1/board/T?p=3",
        ] {
            try store.recordFailure(url: url, board: "T", reason: "HTTP 500")
        }
        try store.recordFailure(url: "http://127.0.0.1:1/article/U/700?p=1", board: "U", reason: "HTTP 500")
        try store.clearThreadFailures(board: "T", gid: 700, address: ForumSources.address(of:))
        #expect(
            Set(try store.failures().map(\.url)) == [
                "http://127.0.0.1:1/article/T/701?p=1", "http://127.0.0.1:1/board/T?p=3",
                "http://127.0.0.1:1/article/U/700?p=1",
            ])
    }

    @Test func refusesAFolderThatDoesNotExist() {
        let path = "/nonexistent-\(UUID().uuidString)/a.sqlite"
        #expect(throws: ArchiveError.self) { try ArchiveStore(path: path) }
    }
}

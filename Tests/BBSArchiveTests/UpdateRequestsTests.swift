import BBSArchiveTestSupport
import Foundation
import GRDB
import SMTHReplica
import Testing

@testable import BBSArchive

/// An update asks the forum only for what can hold a change: list pages
/// until the list shows nothing newer than the last walk saw, and
/// robots.txt once a day; and still finds every new reply and thread.
@Suite(.serialized) struct UpdateRequestsTests {
    /// Three list pages a board (30 rows a page).
    static let config = ReplicaConfig(
        seed: 31, sections: 1, boardsPerSection: 2, threadsPerBoard: 75, maxPostsPerThread: 6)

    static func start(faults: ReplicaFaults = ReplicaFaults()) async throws -> ReplicaHarness {
        // Midday, held still: today's HH:MM:SS times cannot turn into dates between the runs.
        var config = Self.config
        config.now = Fixtures.beijing(2026, 8, 1, 12)
        return try await ReplicaHarness.start(
            forum: ReplicaForum(config: config), faults: faults, folder: try Fixtures.temporaryFolder("update"),
            clock: TestClock(config.now))
    }

    /// The list pages asked for since `start` of the log, as `board?p=N`.
    static func listPages(_ harness: ReplicaHarness, since start: Int) async -> [String] {
        await harness.server.requestLog().dropFirst(start).filter { $0.hasPrefix("/board/") }.map {
            String($0.dropFirst("/board/".count))
        }
    }

    @Test func anUpdateReadsTheListOnlyAsFarAsItCanHoldAChange() async throws {
        let harness = try await Self.start()
        let clock = try #require(harness.clock)
        let first = try await harness.fetch()
        #expect(first.failures.isEmpty)
        let (board, other) = (harness.forum.boardNames[0], harness.forum.boardNames[1])
        let listed = try #require(harness.forum.board(named: board)).threads.filter { !$0.sticky }
        #expect(listed.count > 60)

        // A reply to a thread listed on page 3: it moves to the top of page 1.
        clock.advance(by: 60)
        let deep = listed[65].gid
        #expect(harness.forum.addReplies(board: board, gid: deep, count: 1, at: clock.now()))
        var start = await harness.server.requestCount()
        let second = try await harness.fetch()
        #expect(second.failures.isEmpty)
        #expect(second.threadsFetched == 1)
        #expect(await Self.listPages(harness, since: start).sorted() == ["\(board)?p=1", "\(other)?p=1"].sorted())
        // The other board's page 1 is the one the first run kept: not read again.
        #expect(second.listsRepeated == 1)
        try ReplicaTruth.expectStore(try harness.store(), matches: harness.forum, base: harness.base)

        // More changes than page 1 holds: replies to 34 threads from all
        // over the list and two new threads. Page 1 ends with changed
        // threads, so the walk goes on until the list is as it was.
        clock.advance(by: 60)
        let grown = stride(from: 0, to: listed.count, by: 2).prefix(34).map { listed[$0].gid }.filter { $0 != deep }
        for (offset, gid) in grown.enumerated() {
            #expect(harness.forum.addReplies(board: board, gid: gid, count: 1 + offset % 2, at: clock.now()))
        }
        let added = [
            try #require(harness.forum.addThread(board: board, title: "新主题一", at: clock.now())),
            try #require(harness.forum.addThread(board: board, title: "新主题二", at: clock.now())),
        ]
        start = await harness.server.requestCount()
        let third = try await harness.fetch()
        let log = await harness.server.requestLog().dropFirst(start)
        await harness.stop()
        #expect(third.failures.isEmpty)
        let fetched = Set(log.compactMap { SMTHMobileParser.articlePath($0)?.1 })
        #expect(fetched == Set(grown + added))
        let pages = await Self.listPages(harness, since: start)
        #expect(pages.contains("\(board)?p=2"))
        #expect(pages.filter { $0.hasPrefix("\(other)?") } == ["\(other)?p=1"])
        try ReplicaTruth.expectStore(try harness.store(), matches: harness.forum, base: harness.base)
    }

    /// A list page 1 that is byte for byte what the last finished walk
    /// kept is neither parsed nor stored again; one that changed is, and
    /// an update finds every new reply either way.
    @Test func aFirstListPageAsTheLastWalkKeptItIsNotReadAgain() async throws {
        let harness = try await Self.start()
        let clock = try #require(harness.clock)
        let first = try await harness.fetch()
        #expect(first.failures.isEmpty)
        #expect(first.listsRepeated == 0)
        let stored = try harness.store().counts()

        // Nothing new: both boards' first pages repeat, nothing else is asked for.
        var start = await harness.server.requestCount()
        let second = try await harness.fetch()
        #expect(second.failures.isEmpty)
        #expect(second.listsRepeated == 2)
        #expect(second.boardPages == 2)
        #expect(second.threadsFetched == 0)
        let log = await harness.server.requestLog().dropFirst(start)
        #expect(log.filter { $0.hasPrefix("/board/") }.count == 2)
        #expect(log.compactMap { SMTHMobileParser.articlePath($0) }.isEmpty, "\(log)")
        #expect(try harness.store().counts() == stored)

        // A reply on one board: its page 1 changed and is read; the other's repeats.
        clock.advance(by: 60)
        let board = harness.forum.boardNames[1]
        let thread = try #require(harness.forum.board(named: board)).threads.filter { !$0.sticky }[40].gid
        #expect(harness.forum.addReplies(board: board, gid: thread, count: 2, at: clock.now()))
        start = await harness.server.requestCount()
        let third = try await harness.fetch()
        await harness.stop()
        #expect(third.failures.isEmpty)
        #expect(third.listsRepeated == 1)
        #expect(third.threadsFetched == 1)
        #expect(await Self.listPages(harness, since: start).contains("\(board)?p=1"))
        try ReplicaTruth.expectStore(try harness.store(), matches: harness.forum, base: harness.base)
    }

    @Test func anInterruptedWalkIsNotTrustedToStopEarly() async throws {
        let harness = try await Self.start()
        let clock = try #require(harness.clock)
        _ = try await harness.fetch()
        let board = harness.board
        // Asking for 45 unchanged threads in a row, which page 1 cannot show.
        let options = Archiver.Options(stopAfterUnchanged: 45)
        clock.advance(by: 60)
        var start = await harness.server.requestCount()
        _ = try await harness.fetch(boards: [board], options: options)
        #expect(await Self.listPages(harness, since: start) == ["\(board)?p=1"])

        // The last walk began long ago, stored its first list page and
        // never finished (too long ago to resume): what it listed says
        // nothing about the threads it did not reach.
        try await GRDBTestAccess.open(harness.storePath).queue.write { db in
            try db.execute(
                sql: "UPDATE crawl SET startedAt = 0, walkedPages = 1, finishedAt = NULL WHERE board = ?",
                arguments: [board])
        }
        #expect(try harness.store().newestListedActivity(board: board) == nil)
        clock.advance(by: 60)
        start = await harness.server.requestCount()
        let again = try await harness.fetch(boards: [board], options: options)
        await harness.stop()
        #expect(again.failures.isEmpty)
        #expect(await Self.listPages(harness, since: start) == ["\(board)?p=1", "\(board)?p=2"])
    }

    /// A run that resumes a walk stopped after list page 2 reads page 1
    /// again first, then goes on at page 3: a thread started since the
    /// stopped run is archived by this run. Before, it resumed at page 3
    /// alone, and the thread waited for the run after.
    @Test func aResumedWalkReadsPageOneAgainThenGoesOn() async throws {
        let harness = try await Self.start()
        let clock = try #require(harness.clock)
        _ = try await harness.fetch()
        let board = harness.board
        // What a run stopped after list page 2 leaves: a walk begun and not
        // finished, two pages walked.
        clock.advance(by: 60)
        let store = try harness.store()
        #expect(try store.beginWalk(board: board, resumeWindow: 0) == 0)
        try await GRDBTestAccess.open(harness.storePath).queue.write { db in
            try db.execute(
                sql: "UPDATE crawl SET startedAt = ?, walkedPages = 2, finishedAt = NULL WHERE board = ?",
                arguments: [Int64(clock.now().timeIntervalSince1970), board])
        }
        clock.advance(by: 60)
        let gid = try #require(harness.forum.addThread(board: board, title: "停下之后的新帖", at: clock.now()))
        let start = await harness.server.requestCount()
        let again = try await harness.fetch(boards: [board])
        await harness.stop()
        #expect(again.failures.isEmpty)
        #expect(await Self.listPages(harness, since: start) == ["\(board)?p=1", "\(board)?p=3"])
        #expect(try harness.store().posts(board: board, gid: gid).count == 1)
        try ReplicaTruth.expectStore(try harness.store(), matches: harness.forum, base: harness.base)
    }

    @Test func robotsTxtIsKeptForADayThenAskedForAgain() async throws {
        let robots = "User-agent: *\nDisallow: /att/\n"
        let clock = TestClock(Fixtures.beijing(2026, 8, 1, 12))
        let harness = try await ReplicaHarness.start(
            forum: ReplicaForum(config: ReplicaHarness.small), faults: ReplicaFaults(robots: robots),
            folder: try Fixtures.temporaryFolder("robots-kept"), clock: clock)
        let boards = [harness.board]
        func robotsRequests(since start: Int) async -> Int {
            await harness.server.requestLog().dropFirst(start).filter { $0 == "/robots.txt" }.count
        }

        let first = try await harness.fetch(boards: boards)
        #expect(await robotsRequests(since: 0) == 1)
        #expect(!first.failures.isEmpty)
        #expect(first.failures.allSatisfy { $0.error == .robotsDisallowed(url: $0.url) })

        // Within the day: the kept file is used, and still obeyed.
        clock.advance(by: 23 * 3600)
        var start = await harness.server.requestCount()
        let second = try await harness.fetch(boards: boards)
        #expect(await robotsRequests(since: start) == 0)
        #expect(!second.failures.isEmpty)
        #expect(second.failures.allSatisfy { $0.error == .robotsDisallowed(url: $0.url) })
        #expect(!(await harness.server.requestLog().dropFirst(start).contains { $0.hasPrefix("/att/") }))

        // A day after it was fetched: asked for again.
        clock.advance(by: 3600)
        start = await harness.server.requestCount()
        _ = try await harness.fetch(boards: boards)
        #expect(await robotsRequests(since: start) == 1)
        await harness.stop()
        let origin = harness.base.hasSuffix("/") ? String(harness.base.dropLast()) : harness.base
        let kept = try #require(try harness.store().cachedRobots(origin: origin))
        #expect(kept.fetchedAt == clock.now())
        #expect(String(decoding: kept.body, as: UTF8.self) == robots)
    }

    @Test func onlyADefiniteRobotsAnswerIsKeptAndOnlyForADay() {
        #expect(RobotsGate.isDefinite(200))
        #expect(RobotsGate.isDefinite(404))
        #expect(RobotsGate.isDefinite(403))
        // Says nothing about the file: asked again by the next run.
        #expect(!RobotsGate.isDefinite(429))
        #expect(!RobotsGate.isDefinite(503))
        #expect(!RobotsGate.isDefinite(301))
        let fetched = Fixtures.beijing(2026, 8, 1, 12)
        let kept = HTTPResponse(url: "http://h/robots.txt", status: 200, headers: [], body: Data(), fetchedAt: fetched)
        #expect(RobotsGate.isFresh(kept, now: fetched.addingTimeInterval(23 * 3600)))
        #expect(!RobotsGate.isFresh(kept, now: fetched.addingTimeInterval(24 * 3600)))
        // A clock set back does not make an old file new.
        #expect(!RobotsGate.isFresh(kept, now: fetched.addingTimeInterval(-60)))
    }

    /// Each run used to find no WAL file, and opening the store made one by
    /// writing to it (a schema change, synced): now the file stays, and a
    /// run that only reads leaves the store's bytes as they were.
    @Test func openingTheStoreAgainWritesNothing() throws {
        let path = try Fixtures.temporaryFolder("wal").appendingPathComponent("archive.sqlite").path
        // Each session's store is closed when it ends.
        func failures(recording url: String?) throws -> Int {
            let store = try ArchiveStore(path: path)
            if let url { try store.recordFailure(url: url, board: "B", reason: "x") }
            return try store.failures().count
        }
        #expect(try failures(recording: "http://h/board/B?p=1") == 1)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try failures(recording: nil) == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// The WAL file stays between runs, and with it the frames of the last
    /// run, which the next run read and copied into the store again: after
    /// a full build, 10-49 MB that a fetch with nothing new spent a second
    /// on. A run that leaves more frames than `largeWALFrames` empties the
    /// file when it ends.
    @Test func aRunThatLeavesALargeWALEmptiesIt() throws {
        let path = try Fixtures.temporaryFolder("large-wal").appendingPathComponent("archive.sqlite").path
        // SplitMix64's bytes do not compress: 512 words fill a 4 kB page,
        // so this is 100 pages of the store more than the bound.
        let pages = ArchiveStore.largeWALFrames + 100
        var state: UInt64 = 0
        let words = (0..<(pages * 512)).map { _ -> UInt64 in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let body = words.withUnsafeBytes { Data($0) }
        let url = "http://h/att/big"
        func walBytes() throws -> Int? {
            try URL(fileURLWithPath: path + "-wal").resourceValues(forKeys: [.fileSizeKey]).fileSize
        }
        do {
            let store = try ArchiveStore(path: path)
            try store.saveCapture(HTTPResponse(url: url, status: 200, headers: [], body: body, fetchedAt: Date()))
            #expect(try walBytes() ?? 0 > pages * 4096)
        }
        #expect(try walBytes() == 0)
        let store = try ArchiveStore(path: path)
        #expect(try store.latestCapture(url: url)?.body == body)
    }

    /// A walked list page is stored with its place in the walk in one
    /// commit: the rows, the walk's page count and the page's failure
    /// cleared; stored without a place, the walk is left as it was.
    @Test func aWalkedListPageIsStoredWithItsPlaceInTheWalk() throws {
        let path = try Fixtures.temporaryFolder("walked").appendingPathComponent("archive.sqlite").path
        let store = try ArchiveStore(path: path)
        let url = "http://h/board/B?p=2"
        let row = ThreadSummary(
            gid: 7, title: "t", replies: 1, sticky: false, author: "a", postedAt: Fixtures.beijing(2026, 2, 1),
            lastReplier: "a", lastReplyAt: Fixtures.beijing(2026, 2, 2))
        func page(_ number: Int) -> BoardPage {
            BoardPage(board: "B", title: nil, page: PageInfo(current: number, total: 3), threads: [row])
        }
        #expect(try store.beginWalk(board: "B", resumeWindow: 3600) == 0)
        try store.recordFailure(url: url, board: "B", reason: "x")
        try store.saveBoardPage(page(1), source: SMTHNForumSource())
        // Without a place: rows only (what reparse stores).
        #expect(try store.beginWalk(board: "B", resumeWindow: 3600) == 0)
        #expect(try store.threadCount(board: "B") == 1)
        try store.saveBoardPage(page(2), source: SMTHNForumSource(), walked: (2, url))
        #expect(try store.beginWalk(board: "B", resumeWindow: 3600) == 2)
        #expect(try store.failures().isEmpty)
        #expect(try store.boardPageCount(board: "B") == 3)
    }

    /// A walk begun afresh writes nothing until it stores a list page,
    /// which writes its row (begun, not finished) in the page's commit; one
    /// that stores none (list page 1 as the last walk read it) writes its
    /// row begun and finished when it finishes. Either way the row says
    /// when the walk began, and a walk stopped before its first page leaves
    /// the row of the walk before it.
    @Test func aWalkIsWrittenWithItsFirstListPageOrWhenItFinishes() throws {
        let path = try Fixtures.temporaryFolder("walk-row").appendingPathComponent("archive.sqlite").path
        let clock = TestClock(Fixtures.beijing(2026, 3, 1))
        let store = try ArchiveStore(path: path, clock: clock.now)
        let row = ThreadSummary(
            gid: 7, title: "t", replies: 1, sticky: false, author: "a", postedAt: Fixtures.beijing(2026, 2, 1),
            lastReplier: "a", lastReplyAt: Fixtures.beijing(2026, 2, 2))
        func page(_ number: Int) -> BoardPage {
            BoardPage(board: "B", title: nil, page: PageInfo(current: number, total: 3), threads: [row])
        }
        func crawl() throws -> [DatabaseValue]? {
            try GRDBTestAccess.open(path).queue.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT startedAt, walkedPages, finishedAt, coveredAll FROM crawl WHERE board = 'B'"
                ).map { Array($0.databaseValues) }
            }
        }
        func seconds(_ offset: Int64) -> DatabaseValue {
            (Int64(Fixtures.beijing(2026, 3, 1).timeIntervalSince1970) + offset).databaseValue
        }

        // Begun: nothing written. Finished with no page stored: written
        // with the run's other such walks, one row begun and finished.
        #expect(try store.beginWalk(board: "B", resumeWindow: 3600) == 0)
        #expect(try crawl() == nil)
        clock.advance(by: 5)
        try store.finishWalk(board: "B", reachedEnd: false)
        #expect(try crawl() == nil)
        try store.writeFinishedWalks()
        #expect(try crawl() == [seconds(0), 0.databaseValue, seconds(5), 0.databaseValue])

        // Begun again and stopped before a page: the finished walk's row
        // stays. An end not written (its run failed before) is dropped
        // by the next walk, never written over it.
        clock.advance(by: 60)
        #expect(try store.beginWalk(board: "B", resumeWindow: 3600) == 0)
        #expect(try crawl() == [seconds(0), 0.databaseValue, seconds(5), 0.databaseValue])
        try store.finishWalk(board: "B", reachedEnd: false)

        // Begun again, page 1 stored with its place: the row is the new walk's, not finished.
        clock.advance(by: 60)
        #expect(try store.beginWalk(board: "B", resumeWindow: 3600) == 0)
        clock.advance(by: 1)
        try store.saveBoardPage(page(1), source: SMTHNForumSource(), walked: (1, "http://h/board/B?p=1"))
        #expect(try crawl() == [seconds(125), 1.databaseValue, .null, 0.databaseValue])

        // Resumed: the walk keeps its start; page 2 counts, and it finishes having read the whole list.
        clock.advance(by: 10)
        #expect(try store.beginWalk(board: "B", resumeWindow: 3600) == 1)
        try store.saveBoardPage(page(2), source: SMTHNForumSource(), walked: (2, "http://h/board/B?p=2"))
        #expect(try crawl() == [seconds(125), 2.databaseValue, .null, 0.databaseValue])
        try store.finishWalk(board: "B", reachedEnd: true)
        #expect(try crawl() == [seconds(125), 2.databaseValue, seconds(136), 1.databaseValue])
        try store.writeFinishedWalks()
        #expect(try crawl() == [seconds(125), 2.databaseValue, seconds(136), 1.databaseValue])
    }
}

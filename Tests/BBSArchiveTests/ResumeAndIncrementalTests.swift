import BBSArchiveTestSupport
import Foundation
import GRDB
import SMTHReplica
import Testing

@testable import BBSArchive

#if canImport(Glibc)
    import Glibc
#endif

/// A run can be killed at any moment and continued; a later run fetches and
/// rewrites only what changed; stored pages can be re-read without the network.
@Suite(.serialized) struct ResumeAndIncrementalTests {
    static let config = ReplicaConfig(
        seed: 21, sections: 1, boardsPerSection: 2, threadsPerBoard: 40, maxPostsPerThread: 16)

    /// Every post of the store, as comparable rows.
    static func snapshot(_ path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT board || '/' || gid || '#' || floor || ' ' || author || ' ' || postedAt || ' ' || body
                    FROM post ORDER BY board, gid, floor
                    """)
        }
    }

    @Test func aKilledRunContinuesWhereItStopped() async throws {
        let forum = ReplicaForum(config: Self.config)
        let server = ReplicaServer(forum: forum)
        let base = try await server.start().absoluteString
        let folder = try Fixtures.temporaryFolder("kill")
        let interrupted = folder.appendingPathComponent("interrupted.sqlite").path
        let arguments = ["fetch"] + forum.boardNames + ["--forum-url", base, "--rate", "40", "--quiet"]

        // Start a run in a child process and kill it mid-way, without warning.
        let process = Process()
        process.executableURL = CommandLineTests.executable
        process.arguments = arguments + ["--store", interrupted]
        process.standardError = FileHandle.nullDevice
        try process.run()
        var postsAtKill = 0
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning {
            try await Task.sleep(for: .milliseconds(100))
            postsAtKill = (try? Self.snapshot(interrupted).count) ?? 0
            if postsAtKill >= 40 { break }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the run ended before it could be killed")
        #expect(postsAtKill > 0)
        let requestsBefore = await server.requestCount()

        // The same command again finishes the job.
        let resumed = try await CommandLineTests().run(arguments + ["--store", interrupted])
        #expect(resumed.status == 0, "stderr: \(resumed.stderr)")
        let threadRequestsAfterKill = await server.requestLog().dropFirst(requestsBefore).filter {
            $0.hasPrefix("/article/")
        }

        // An uninterrupted run for comparison.
        let whole = folder.appendingPathComponent("whole.sqlite").path
        let uninterrupted = try await CommandLineTests().run(arguments + ["--store", whole])
        #expect(uninterrupted.status == 0)
        await server.stop()

        let resumedPosts = try Self.snapshot(interrupted)
        #expect(resumedPosts == (try Self.snapshot(whole)))
        #expect(Set(resumedPosts).count == resumedPosts.count)
        let truth = forum.groundTruth().boards.reduce(0) { $0 + $1.posts }
        #expect(resumedPosts.count == truth)
        // Threads stored before the kill were not fetched again.
        let totalThreadPages = forum.boardNames.compactMap(forum.board(named:)).flatMap(\.threads)
            .reduce(0) { $0 + ($1.posts.count + 9) / 10 }
        #expect(threadRequestsAfterKill.count < totalThreadPages)
        try ReplicaTruth.expectStore(try ArchiveStore(path: interrupted), matches: forum, base: base)
    }

    @Test func aSecondRunFetchesAndRewritesOnlyWhatChanged() async throws {
        // Midday, held still: today's HH:MM:SS times cannot turn into dates between the runs.
        var config = Self.config
        config.now = Fixtures.beijing(2026, 8, 1, 12)
        let forum = ReplicaForum(config: config)
        let clock = TestClock(config.now)
        let harness = try await ReplicaHarness.start(
            forum: forum, faults: ReplicaFaults(), folder: try Fixtures.temporaryFolder("fetch"), clock: clock)
        let out = harness.folder.appendingPathComponent("site")
        var build = BuildAction(
            storePath: harness.storePath, outputPath: out.path, templatesPath: Fixtures.templates.path)
        build.clock = { clock.now() }
        let first = try await harness.fetch()
        #expect(first.failures.isEmpty)
        clock.advance(by: 10)
        _ = try await build.run()
        let site = SiteInspector(root: out)
        let before = try site.fingerprints()

        // The forum moves on: two threads get replies, one thread is new.
        let board = harness.board
        let threads = try #require(harness.forum.board(named: board)).threads.filter { !$0.sticky }
        let grown = [threads[5].gid, threads[20].gid]
        clock.advance(by: 60)
        let later = clock.now()
        #expect(harness.forum.addReplies(board: board, gid: grown[0], count: 2, at: later))
        #expect(harness.forum.addReplies(board: board, gid: grown[1], count: 1, at: later))
        let added = try #require(harness.forum.addThread(board: board, title: "新主题 <新>", at: later))

        let logStart = await harness.server.requestCount()
        let second = try await harness.fetch()
        let served = await harness.server.requestLog().dropFirst(logStart)
        _ = try await build.run()
        let after = try site.fingerprints()
        await harness.stop()

        #expect(second.failures.isEmpty)
        try ReplicaTruth.expectStore(try harness.store(), matches: harness.forum, base: harness.base)

        // Fetched: exactly the three threads (only the pages from the last
        // archived one on), the first list page of the changed board, and
        // nothing of the other board beyond its first list page.
        let articles = served.filter { $0.hasPrefix("/article/") }
        let fetchedThreads = Set(articles.compactMap { SMTHMobileParser.articlePath($0)?.1 })
        #expect(fetchedThreads == Set(grown + [added]))
        for gid in grown {
            let thread = try #require(harness.forum.board(named: board)?.threads.first { $0.gid == gid })
            let pages = articles.filter { SMTHMobileParser.articlePath($0)?.1 == gid }
            // Before growing, the last stored post was on page (count - grown - 1) / 10 + 1.
            let grownBy = gid == grown[0] ? 2 : 1
            let firstNeeded = (thread.posts.count - grownBy - 1) / 10 + 1
            #expect(pages.count == (thread.posts.count - 1) / 10 + 1 - firstNeeded + 1, "pages of \(gid): \(pages)")
        }
        #expect(!served.contains { $0.hasPrefix("/att/") })
        #expect(second.threadsFetched == 3)

        // Rewritten: only pages that show the changed threads.
        let changed = Set(after.keys.filter { before[$0] != after[$0] })
        // The thread started just before the new one gains a 下一主题 link.
        let byStart = try harness.store().threads(board: board).sorted { ($0.postedAt, $0.gid) < ($1.postedAt, $1.gid) }
        let addedAt = try #require(byStart.firstIndex { $0.gid == added })
        let startedBefore = addedAt > 0 ? byStart[addedAt - 1].gid : nil
        let untouchedThreads = threads.map(\.gid).filter { !grown.contains($0) && $0 != startedBefore }
        for gid in untouchedThreads {
            #expect(!changed.contains("board/\(board)/\(gid).html"), "thread \(gid) was rewritten")
            #expect(!changed.contains("board/\(board)/\(gid).md"))
        }
        for gid in grown + [added] {
            #expect(changed.contains("board/\(board)/\(gid).md"), "thread \(gid) was not rewritten")
        }
        let otherBoard = try #require(harness.forum.boardNames.last)
        #expect(!changed.contains { $0.hasPrefix("board/\(otherBoard)/") })
        #expect(changed.count < after.count / 4, "\(changed.count) of \(after.count) files changed")
    }

    /// The small replica fetched whole (no failure), its server stopped,
    /// and the posts it stored (`snapshot`).
    static func fetchedSmallReplica() async throws -> (harness: ReplicaHarness, original: [String]) {
        let harness = try await ReplicaHarness.start(ReplicaHarness.small)
        let report = try await harness.fetch()
        #expect(report.failures.isEmpty)
        let original = try snapshot(harness.storePath)
        await harness.stop()
        return (harness, original)
    }

    @Test func reparseRebuildsTheModelsFromStoredPages() async throws {
        let (harness, original) = try await Self.fetchedSmallReplica()

        // Lose the models (as after a parser bug), keep the raw captures.
        let queue = try DatabaseQueue(path: harness.storePath)
        try await queue.write { db in
            try db.execute(sql: "DELETE FROM attachment; DELETE FROM post; UPDATE thread SET title = 'broken'")
        }
        #expect(try Self.snapshot(harness.storePath).isEmpty)

        let reparse = try ReparseAction(storePath: harness.storePath).run()
        #expect(reparse.failures.isEmpty)
        #expect(reparse.posts == original.count)
        #expect(try Self.snapshot(harness.storePath) == original)
        try ReplicaTruth.expectStore(try harness.store(), matches: harness.forum, base: harness.base)
    }

    /// A thread is read again only from all its pages, as fetch stores
    /// one: with a page's captures gone (a page that failed when fetched,
    /// or whose newest capture no longer parses), it is kept as stored and
    /// said. (QA: reparse stored page 2 of threads whose fetch had failed,
    /// floors 10–19 under the title with no floor 0.)
    @Test func reparseKeepsAThreadWhosePagesAreNotAllThere() async throws {
        let (harness, original) = try await Self.fetchedSmallReplica()
        let queue = try DatabaseQueue(path: harness.storePath)
        let row = try queue.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT board, gid FROM post GROUP BY board, gid HAVING count(*) > 10 ORDER BY board, gid LIMIT 1")
        }
        let thread = try #require(row, "no thread of two pages")
        let board: String = thread["board"]
        let gid: Int = thread["gid"]
        try await queue.write { db in
            let pattern = "%/\(board)/\(gid)%"
            let before = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM capture WHERE url LIKE ?", arguments: [pattern])
            try db.execute(
                sql: "DELETE FROM capture WHERE url LIKE ? AND url NOT LIKE '%p=2%'", arguments: [pattern])
            #expect(db.changesCount > 0 && db.changesCount < before ?? 0, "page 1's captures, not page 2's")
            try db.execute(sql: "DELETE FROM attachment; DELETE FROM post")
        }
        let reparse = try ReparseAction(storePath: harness.storePath).run()
        #expect(reparse.failures.isEmpty)
        #expect(reparse.kept.count == 1)
        #expect(reparse.kept.first?.hasPrefix("\(board)/\(gid): page(s) 2 of 2") == true, "\(reparse.kept)")
        #expect(try Self.snapshot(harness.storePath) == original.filter { !$0.hasPrefix("\(board)/\(gid)#") })
    }

    /// A thread fetched later from another front end than the board's
    /// source now is not read again from the older pages: its posts stay as
    /// the newer pages left them, and it is said. A thread whose other
    /// front end's pages are older is read again as before. (QA: a board
    /// fetched from the mobile pages, then nForum, then the mobile pages
    /// again; reparse wrote the first fetch's posts over 753 newer ones.)
    @Test func reparseKeepsAThreadFetchedLaterFromAnotherFrontEnd() async throws {
        let (harness, original) = try await Self.fetchedSmallReplica()
        let queue = try DatabaseQueue(path: harness.storePath)
        let threads = try await queue.write { db -> [(board: String, gid: Int)] in
            let rows = try Row.fetchAll(
                db, sql: "SELECT board, gid FROM post WHERE floor = 0 GROUP BY board, gid ORDER BY board, gid LIMIT 2")
            let threads = rows.map { (board: $0["board"] as String, gid: $0["gid"] as Int) }
            for (index, thread) in threads.enumerated() {
                // The other front end's page of the thread, an hour after
                // (the first) or before (the second) its mobile pages.
                let mobile = try #require(
                    try Row.fetchOne(
                        db,
                        sql: """
                            SELECT url, hash, MIN(fetchedAt) AS first, MAX(fetchedAt) AS last FROM capture
                            WHERE url LIKE ?
                            """,
                        arguments: ["%/article/\(thread.board)/\(thread.gid)?p=1"]))
                let url: String = mobile["url"]
                let nForum = url.replacingOccurrences(of: "/article/", with: "/nForum/article/")
                let at: Int64 = index == 0 ? mobile["last"] + 3600 : mobile["first"] - 3600
                try db.execute(
                    sql: "INSERT INTO capture (url, fetchedAt, status, headers, hash) VALUES (?, ?, 200, '', ?)",
                    arguments: [nForum, at, mobile["hash"] as String])
                try db.execute(
                    sql: "UPDATE post SET body = 'as the nForum pages read' WHERE board = ? AND gid = ? AND floor = 0",
                    arguments: [thread.board, thread.gid])
                // And its row, as the other front end's list said it.
                try db.execute(
                    sql: "UPDATE thread SET replies = 999 WHERE board = ? AND gid = ?",
                    arguments: [thread.board, thread.gid])
            }
            return threads
        }
        let rowsBefore = try Self.threadRows(harness.storePath)
        try #require(threads.count == 2)
        let reparse = try ReparseAction(storePath: harness.storePath).run()
        #expect(reparse.failures.isEmpty)
        #expect(reparse.kept.count == 1)
        #expect(reparse.kept.first?.hasPrefix("\(threads[0].board)/\(threads[0].gid): newer pages at http") == true)
        #expect(
            reparse.kept.first?.hasSuffix(
                "/nForum/article/\(threads[0].board)/\(threads[0].gid)?p=1 (smth-nforum); kept as stored") == true,
            "\(reparse.kept)")
        let kept = "\(threads[0].board)/\(threads[0].gid)#"
        let after = try Self.snapshot(harness.storePath)
        #expect(after.filter { !$0.hasPrefix(kept) } == original.filter { !$0.hasPrefix(kept) })
        #expect(after.first { $0.hasPrefix(kept + "0 ") }?.hasSuffix(" as the nForum pages read") == true)
        // Its row is kept too (its list row was older than its nForum page);
        // the other thread's row is read again from the list, as before.
        let rows = try Self.threadRows(harness.storePath)
        #expect(rows["\(threads[0].board)/\(threads[0].gid)"]?.replies == 999)
        #expect(rows["\(threads[1].board)/\(threads[1].gid)"]?.replies != 999)
        #expect(rowsBefore["\(threads[1].board)/\(threads[1].gid)"]?.replies == 999)
        #expect(reparse.keptRows >= 1)
    }

    /// Each thread's row (title, replies) by `board/gid`.
    static func threadRows(_ path: String) throws -> [String: (title: String, replies: Int)] {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { db in
            var rows: [String: (title: String, replies: Int)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT board, gid, title, replies FROM thread") {
                rows["\(row["board"] as String)/\(row["gid"] as Int)"] = (row["title"], row["replies"])
            }
            return rows
        }
    }

    /// A thread listed on two of a board's list pages gets the newer row
    /// only: here an older capture of page 2 still lists a thread that is on
    /// page 1 now, with another title and reply count. (QA: a thread bumped
    /// from page 2, read at 10:00, to page 1, read at 22:00, got page 2's
    /// row back; then, with the pages stored oldest first, it was written
    /// twice and logged as changed by every reparse.)
    @Test func reparseKeepsTheNewerListRowOfAThread() async throws {
        let (harness, _) = try await Self.fetchedSmallReplica()
        let store = try harness.store()
        let board = try #require(try store.boards().first).name
        let first = try #require(
            try store.read { db in
                try String.fetchOne(
                    db, sql: "SELECT url FROM capture WHERE url LIKE ? ORDER BY id DESC LIMIT 1",
                    arguments: ["%/board/\(board)?p=1"])
            })
        let page = try #require(try store.latestCapture(url: first))
        let html = String(decoding: page.body, as: UTF8.self)
        // A row that is not sticky: `href="/article/B/GID">title</a>(N)</div>`.
        let pattern = try Regex(#"href="/article/[^/"]+/(\d+)">([^<]*)</a>\((\d+)\)</div>"#)
        let row = try #require(html.firstMatch(of: pattern))
        let gid = try #require(Int(row.output[1].substring ?? ""))
        let title = String(try #require(row.output[2].substring))
        let replies = try #require(Int(row.output[3].substring ?? ""))
        let stale = html.replacingCharacters(
            in: row.range,
            with: String(html[row.range]).replacingOccurrences(of: "(\(replies))", with: "(\(replies + 50))")
                .replacingOccurrences(of: ">\(title)<", with: ">旧标题<"))
        _ = try store.saveCapture(
            HTTPResponse(
                url: first.replacingOccurrences(of: "?p=1", with: "?p=2"), status: 200, headers: page.headers,
                body: Data(stale.utf8), fetchedAt: page.fetchedAt.addingTimeInterval(-3600)))
        let before = try store.lastBuildChange()
        let reparse = try ReparseAction(storePath: harness.storePath).run()
        #expect(reparse.failures.isEmpty)
        let stored = try Self.threadRows(harness.storePath)["\(board)/\(gid)"]
        #expect(stored?.replies == replies)
        #expect(stored?.title != "旧标题")
        // Only the newer row is written: the older one, written first and
        // then undone, logged the thread as changed by every reparse.
        let key = BuildChanges.ThreadKey(board: board, gid: gid)
        #expect(try !store.buildChanges(after: before).threads.contains(key))
    }

    /// What reparse says of stored pages it could not read again: what it
    /// kept, not a fetch's "run the same command again" (it uses no
    /// network, so another run reads the same pages).
    @Test func reparseSaysWhatItCouldNotReadAgain() {
        let said = ArchiveError.unreadableCaptures(failures: ["https://m.newsmth.net/article/B/1: no posts"])
            .description
        #expect(said.hasPrefix("1 stored page(s) could not be read again"), "\(said)")
        #expect(said.contains("https://m.newsmth.net/article/B/1: no posts"))
        #expect(said.contains("kept as it was"))
        #expect(!said.contains("run the same command again"))
    }

    /// Each thread's pages are read together, by gid and page: by URL as
    /// text, a thread whose gid begins another's came in two parts.
    @Test func reparseReadsEachThreadsPagesTogether() {
        let base = "https://m.newsmth.net"
        let urls = [
            "\(base)/article/B/100000", "\(base)/article/B/10000?p=2", "\(base)/article/B/10000", "\(base)/board/B?p=2",
            "\(base)/article/B/100000?p=2",
        ].sorted()
        #expect(
            ReparseAction.readingOrder(urls, source: SMTHMobileSource()) == [
                "\(base)/board/B?p=2", "\(base)/article/B/10000", "\(base)/article/B/10000?p=2",
                "\(base)/article/B/100000", "\(base)/article/B/100000?p=2",
            ])
    }

    @Test func unchangedPagesAnswer304AndKeepTheirCapture() async throws {
        let harness = try await ReplicaHarness.start(ReplicaHarness.small)
        let store = try harness.store()
        let clock = TestClock(Fixtures.beijing(2026, 8, 1, 12))
        let fetcher = Fetcher(
            client: CurlHTTPClient(), limiter: RateLimiter(requestsPerSecond: 0), captures: store,
            clock: { clock.now() })
        let gid = try #require(harness.forum.board(named: harness.board)?.threads.first?.gid)
        let url = harness.source.threadURL(board: harness.board, gid: gid, page: 1)
        let first = try await fetcher.fetch(url, conditional: true)
        clock.advance(by: 2)
        let second = try await fetcher.fetch(url, conditional: true)
        let third = try await fetcher.fetch(url, conditional: false)
        await harness.stop()
        #expect(first.header("ETag") != nil)
        // The 304 answer is the stored capture, with its own fetch time.
        #expect(second.body == first.body)
        #expect(Int(second.fetchedAt.timeIntervalSince1970) == Int(first.fetchedAt.timeIntervalSince1970))
        #expect(third.fetchedAt > first.fetchedAt.addingTimeInterval(1))
        // One capture of the page (the same bytes are kept once) and one of robots.txt.
        #expect(try store.counts().captures == 2)
    }
}

extension SiteInspector {
    /// Every file's SHA-256 and modification time, by path.
    func fingerprints() throws -> [String: String] {
        var result: [String: String] = [:]
        for path in files() {
            let url = root.appendingPathComponent(path)
            let data = try Data(contentsOf: url)
            let modified = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
            result[path] = SHA256.hex(data) + " " + String(modified?.timeIntervalSince1970 ?? 0)
        }
        return result
    }
}

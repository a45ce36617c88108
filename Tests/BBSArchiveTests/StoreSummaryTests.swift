import Foundation
import GRDB
import Testing

@testable import BBSArchive

/// The figures `v7-thread-summary` keeps by triggers equal what counting
/// every row says, after the migration of an old store and after inserts,
/// edits and deletions; and the hot and recent lists read from them are
/// the lists a scan of every post gives.
@Suite struct StoreSummaryTests {
    /// A migrated copy of release e6c8b60's store (see OldStoreTests).
    func migratedOldStore() throws -> (ArchiveStore, GRDBTestAccess) {
        let folder = try Fixtures.temporaryFolder("summary")
        let path = folder.appendingPathComponent("archive.sqlite")
        try FileManager.default.copyItem(at: OldStoreTests.release, to: path)
        let store = try ArchiveStore(path: path.path)
        return (store, try GRDBTestAccess.open(path.path))
    }

    /// Rows of the summaries that differ from a count of every row.
    func mismatches(_ access: GRDBTestAccess) throws -> [String] {
        try access.queue.read { db in
            let threads = try String.fetchAll(
                db,
                sql: """
                    SELECT t.board || '/' || t.gid || ' ' || coalesce(s.posts, '-') || ' ' || coalesce(s.lastAt, '-')
                    FROM thread t LEFT JOIN thread_summary s ON s.board = t.board AND s.gid = t.gid
                    WHERE s.posts IS NOT (SELECT count(*) FROM post p WHERE p.board = t.board AND p.gid = t.gid)
                       OR s.lastAt IS NOT coalesce(
                         (SELECT postedAt FROM post p WHERE p.board = t.board AND p.gid = t.gid
                          ORDER BY floor DESC LIMIT 1), t.lastReplyAt)
                    """)
            let strays = try String.fetchAll(
                db,
                sql: """
                    SELECT 'stray ' || board || '/' || gid FROM thread_summary s
                    WHERE NOT EXISTS (SELECT 1 FROM thread t WHERE t.board = s.board AND t.gid = s.gid)
                    """)
            let boards = try String.fetchAll(
                db,
                sql: """
                    SELECT 'board ' || b.name FROM (SELECT name FROM board UNION SELECT board FROM post) b
                    LEFT JOIN board_summary s ON s.board = b.name
                    WHERE coalesce(s.threads, 0) != (SELECT count(*) FROM thread t WHERE t.board = b.name)
                       OR coalesce(s.posts, 0) != (SELECT count(*) FROM post p WHERE p.board = b.name)
                    """)
            return threads + strays + boards
        }
    }

    /// The hot or recent list as the scan of every post gave it before the summary.
    func scanned(_ access: GRDBTestAccess, orderBy: String) throws -> [String] {
        try access.queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT t.board || '/' || t.gid || ' ' || c.posts || ' ' || coalesce(l.postedAt, t.lastReplyAt)
                      AS lastReplyAt_
                    FROM thread t
                    JOIN (SELECT board, gid, count(*) AS posts, max(floor) AS last FROM post GROUP BY board, gid) c
                      ON c.board = t.board AND c.gid = t.gid
                    LEFT JOIN post l ON l.board = t.board AND l.gid = t.gid AND l.floor = c.last
                    ORDER BY \(orderBy)
                    """)
        }
    }

    func listed(_ threads: [StoredThread]) -> [String] {
        threads.map { "\($0.board)/\($0.gid) \($0.postCount) \(Int64($0.lastReplyAt.timeIntervalSince1970))" }
    }

    func expectListsMatchTheScan(_ store: ArchiveStore, _ access: GRDBTestAccess) throws {
        let last = "coalesce(l.postedAt, t.lastReplyAt)"
        #expect(
            listed(try store.topThreads(.mostPosts, limit: 1000))
                == (try scanned(access, orderBy: "c.posts DESC, \(last) DESC, t.gid DESC, t.board")))
        #expect(
            listed(try store.topThreads(.latestReply, limit: 1000))
                == (try scanned(access, orderBy: "\(last) DESC, t.gid DESC, t.board")))
        let counted = try access.queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT b.name, (SELECT count(*) FROM thread t WHERE t.board = b.name) AS threads,
                      (SELECT count(*) FROM post p WHERE p.board = b.name) AS posts
                    FROM board b ORDER BY b.name
                    """
            ).map { "\($0["name"] as String) \($0["threads"] as Int) \($0["posts"] as Int)" }
        }
        #expect(try store.boards().map { "\($0.name) \($0.threadCount) \($0.postCount)" } == counted)
        // Each board's thread list (`threads(board:)`, read from the
        // summary): every thread's posts as counted, 0 for none archived.
        for board in try store.boards() {
            let posts = try access.queue.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT t.gid, (SELECT count(*) FROM post p WHERE p.board = t.board AND p.gid = t.gid) AS posts
                        FROM thread t WHERE t.board = ? ORDER BY t.gid
                        """, arguments: [board.name]
                ).map { "\($0["gid"] as Int) \($0["posts"] as Int)" }
            }
            let listed = try store.threads(board: board.name).sorted { $0.gid < $1.gid }.map {
                "\($0.gid) \($0.postCount)"
            }
            #expect(listed == posts)
        }
    }

    @Test func theMigrationFillsTheSummariesOfAnOldStore() throws {
        let (store, access) = try migratedOldStore()
        #expect(try access.queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM thread_summary") } == 12)
        #expect(try mismatches(access) == [])
        try expectListsMatchTheScan(store, access)
    }

    @Test func triggersKeepTheSummariesAfterInsertsEditsAndDeletions() throws {
        let (store, access) = try migratedOldStore()
        let (board, gid, floor) = try access.queue.read { db in
            let row = try #require(
                try Row.fetchOne(
                    db, sql: "SELECT board, gid, max(floor) AS floor FROM post GROUP BY board, gid ORDER BY board, gid")
            )
            return (row["board"] as String, row["gid"] as Int, row["floor"] as Int)
        }
        let author = try access.queue.read { db in try String.fetchOne(db, sql: "SELECT id FROM user LIMIT 1") }
        // A reply, newer than everything.
        try access.queue.write { db in
            try db.execute(
                sql: "INSERT INTO post (board, gid, floor, author, postedAt, body) VALUES (?, ?, ?, ?, ?, 'new')",
                arguments: [board, gid, floor + 1, author, 4_000_000_000])
        }
        #expect(try mismatches(access) == [])
        #expect(try store.topThreads(.latestReply, limit: 1).map(\.gid) == [gid])
        try expectListsMatchTheScan(store, access)
        // Its time edited back, then the post deleted.
        try access.queue.write { db in
            try db.execute(
                sql: "UPDATE post SET postedAt = 1 WHERE board = ? AND gid = ? AND floor = ?",
                arguments: [board, gid, floor + 1])
        }
        #expect(try mismatches(access) == [])
        try expectListsMatchTheScan(store, access)
        try access.queue.write { db in
            try db.execute(
                sql: "DELETE FROM post WHERE board = ? AND gid = ? AND floor = ?", arguments: [board, gid, floor + 1])
        }
        #expect(try mismatches(access) == [])
        // A thread the list shows with no post archived, then its list time changed.
        try access.queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO thread (board, gid, title, replies, sticky, marked, postedAt, lastReplyAt)
                    VALUES (?, 999999, 'x', 0, 0, 0, 10, 20)
                    """, arguments: [board])
            try db.execute(
                sql: "UPDATE thread SET lastReplyAt = 30 WHERE board = ? AND gid = 999999", arguments: [board])
        }
        #expect(try mismatches(access) == [])
        try expectListsMatchTheScan(store, access)
        // A whole thread deleted, posts first.
        try access.queue.write { db in
            for table in ["post_like", "attachment", "post_version", "post"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE board = ? AND gid = ?", arguments: [board, gid])
            }
            try db.execute(sql: "DELETE FROM thread WHERE board = ? AND gid = ?", arguments: [board, gid])
        }
        #expect(try mismatches(access) == [])
        try expectListsMatchTheScan(store, access)
    }

    @Test func theHotListReadsOnlyTheIndex() throws {
        let (_, access) = try migratedOldStore()
        let plan = try access.queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT s.board FROM thread_summary s
                    CROSS JOIN thread t ON t.board = s.board AND t.gid = s.gid
                    WHERE s.posts > 0 ORDER BY s.posts DESC, s.lastAt DESC, s.gid DESC, s.board LIMIT 10
                    """
            ).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("thread_summary_by_posts") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    /// The hot windows as the query before `v8-build-indexes` read them:
    /// every post of every thread active in the window.
    func scannedHot(_ access: GRDBTestAccess, since cut: Int64) throws -> [String] {
        try access.queue.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT t.board || '/' || t.gid || ' ' || c.posts || ' ' || coalesce(l.postedAt, t.lastReplyAt)
                      AS lastReplyAt_
                    FROM thread t
                    JOIN (SELECT p.board, p.gid, count(*) AS posts, max(p.floor) AS last,
                            sum(p.postedAt >= ?) AS recent
                          FROM thread_summary w JOIN post p ON p.board = w.board AND p.gid = w.gid
                          WHERE w.lastAt >= ? GROUP BY p.board, p.gid) c
                      ON c.board = t.board AND c.gid = t.gid
                    LEFT JOIN post l ON l.board = t.board AND l.gid = t.gid AND l.floor = c.last
                    WHERE c.recent > 0
                    ORDER BY c.recent DESC, c.posts DESC, coalesce(l.postedAt, t.lastReplyAt) DESC, t.gid DESC, t.board
                    """,
                arguments: [cut, cut])
        }
    }

    /// The hot windows read from the posts' time index give the threads
    /// and order the scan of every active thread gave, at every cut, and
    /// after a reply dated before its thread's last post.
    @Test func hotWindowsMatchTheScanOfActiveThreads() throws {
        let (store, access) = try migratedOldStore()
        func expectSame(_ label: String) throws {
            let times = try access.queue.read { db in
                try Int64.fetchAll(db, sql: "SELECT DISTINCT postedAt FROM post ORDER BY postedAt")
            }
            #expect(times.count > 3)
            for cut in [0] + times + [(times.last ?? 0) + 1] {
                let read = listed(
                    try store.hotThreads(since: Date(timeIntervalSince1970: TimeInterval(cut)), limit: 100))
                #expect(read == (try scannedHot(access, since: cut)), "\(label) since \(cut)")
            }
            #expect(
                try store.hotThreads(since: Date(timeIntervalSince1970: 0), limit: 2).count
                    == min(2, try scannedHot(access, since: 0).count))
        }
        try expectSame("migrated")
        let plan = try access.queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT board, gid, count(*) FROM post INDEXED BY post_by_time
                    WHERE postedAt >= 0 GROUP BY board, gid
                    """
            ).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("COVERING INDEX post_by_time") }, "\(plan)")
        // A late floor dated before the thread's last post: in the window
        // by its time, left out by its thread's last activity.
        let (board, gid, floor, first) = try access.queue.read { db in
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT board, gid, max(floor) AS floor, min(postedAt) AS first FROM post
                        GROUP BY board, gid ORDER BY count(*) DESC, board, gid
                        """))
            return (row["board"] as String, row["gid"] as Int, row["floor"] as Int, row["first"] as Int64)
        }
        let author = try access.queue.read { db in try String.fetchOne(db, sql: "SELECT id FROM user LIMIT 1") }
        try access.queue.write { db in
            try db.execute(
                sql: "INSERT INTO post (board, gid, floor, author, postedAt, body) VALUES (?, ?, ?, ?, ?, 'late')",
                arguments: [board, gid, floor + 1, author, first])
            try db.execute(
                sql: "INSERT INTO post (board, gid, floor, author, postedAt, body) VALUES (?, ?, ?, ?, ?, 'new')",
                arguments: [board, gid, floor + 2, author, 4_000_000_000])
        }
        try expectSame("after replies")
    }

    /// What lists show of a thread, its first archived post with its
    /// attachments, read alone is what reading the whole thread gives.
    @Test func openingPostsAreTheFirstPostsOfTheirThreads() throws {
        let (store, access) = try migratedOldStore()
        let keys = try access.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT board, gid FROM thread ORDER BY board, gid").map {
                BuildChanges.ThreadKey(board: $0["board"], gid: $0["gid"])
            }
        }
        let openings = try store.openingPosts(keys + keys.prefix(1))
        // Asked in another order, the same posts.
        #expect(try store.openingPosts(keys.reversed()) == openings)
        var withPosts = 0
        var withAttachments = 0
        for key in keys {
            var first = try store.posts(board: key.board, gid: key.gid).first
            first?.likes = []
            #expect(openings[key] == first, "\(key)")
            if first != nil { withPosts += 1 }
            if first?.attachments.isEmpty == false { withAttachments += 1 }
        }
        #expect(withPosts > 0)
        #expect(withAttachments > 0)
        #expect(try store.openingPosts([]).isEmpty)
    }

    /// The keys `openingPosts` binds as JSON read back as they were, whatever
    /// a forum put in a board's name.
    @Test func keysBoundAsJSONReadBackWhole() throws {
        let rows = [
            ["Geography", "110462"], [#"a"b\c"#, "0"], ["tab\there\nnewline\u{1}\u{1f}", "-1"],
            ["水木 社区", "7"], ["😀\u{7f}\u{2028}", ""], ["", "1"],
        ]
        let json = ArchiveStore.jsonArgument(rows)
        let read = try DatabaseQueue().read { db in
            try Row.fetchAll(
                db, sql: "SELECT json_extract(value, '$[0]') AS a, json_extract(value, '$[1]') AS b FROM json_each(?)",
                arguments: [json]
            ).map { [$0["a"] as String, $0["b"] as String] }
        }
        #expect(read == rows)
        #expect(ArchiveStore.jsonArgument([]) == "[]")
    }

    /// The threads a fetch reads after walking a list come from the
    /// partial index (`v8-thread-needing-fetch`), and are those a scan of
    /// every thread of the board finds, as the listing and the archived
    /// state change.
    @Test func threadsNeedingFetchAreTheScannedOnes() throws {
        let (store, access) = try migratedOldStore()
        let time = Fixtures.smthForum.time
        func scanned(_ board: String) throws -> [Int] {
            try access.queue.read { db in
                try Int.fetchAll(
                    db,
                    sql: """
                        SELECT gid FROM thread NOT INDEXED WHERE board = ?
                          AND NOT (archivedReplies IS replies AND archivedLastReplyAt IS lastReplyAt)
                        ORDER BY lastReplyAt DESC, gid DESC
                        """, arguments: [board])
            }
        }
        let boards = try store.boards().map(\.name)
        #expect(!boards.isEmpty)
        func expectSame() throws {
            for board in boards {
                let read = try store.threadsNeedingFetch(board: board, time: time).map(\.summary.gid)
                // Those left out of what is read are archived as listed, to the day.
                #expect(Set(read).isSubset(of: Set(try scanned(board))), "\(board)")
                #expect(read == (try scanned(board)).filter { read.contains($0) }, "\(board)")
            }
        }
        try expectSame()
        let (board, gid) = try access.queue.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT board, gid FROM thread ORDER BY board, gid"))
            return (row["board"] as String, row["gid"] as Int)
        }
        // The list shows a new reply, then the thread is archived as listed.
        try access.queue.write { db in
            try db.execute(
                sql:
                    "UPDATE thread SET replies = replies + 1, lastReplyAt = lastReplyAt + 60 WHERE board = ? AND gid = ?",
                arguments: [board, gid])
        }
        #expect(try store.threadsNeedingFetch(board: board, time: time).map(\.summary.gid).contains(gid))
        try expectSame()
        try access.queue.write { db in
            try db.execute(
                sql: """
                    UPDATE thread SET archivedReplies = replies, archivedLastReplyAt = lastReplyAt
                    WHERE board = ? AND gid = ?
                    """, arguments: [board, gid])
        }
        #expect(!(try store.threadsNeedingFetch(board: board, time: time).map(\.summary.gid).contains(gid)))
        try expectSame()
        let plan = try access.queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT gid FROM thread WHERE board = 'x'
                      AND NOT (archivedReplies IS replies AND archivedLastReplyAt IS lastReplyAt)
                    """
            ).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("thread_needing_fetch") }, "\(plan)")
    }

    /// The pending media (v7-media-pending) equal the attachments no media row holds.
    @Test func pendingMediaFollowAttachmentsAndDownloads() throws {
        let (store, access) = try migratedOldStore()
        func scanned() throws -> [String] {
            try access.queue.read { db in
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT a.url FROM attachment a LEFT JOIN media m ON m.url = a.url
                        WHERE m.url IS NULL ORDER BY a.url
                        """)
            }
        }
        #expect(try store.missingMedia() == scanned())
        let post = try #require(
            try access.queue.read { db in try Row.fetchOne(db, sql: "SELECT board, gid, floor FROM post LIMIT 1") })
        let (board, gid, floor): (String, Int, Int) = (post["board"], post["gid"], post["floor"])
        try access.queue.write { db in
            for (position, url) in ["http://x.test/new-1.jpg", "http://x.test/new-2.jpg"].enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO attachment (board, gid, floor, position, name, url, kind)
                        VALUES (?, ?, ?, ?, 'a.jpg', ?, 'image')
                        """, arguments: [board, gid, floor, 100 + position, url])
            }
        }
        #expect(try store.missingMedia().contains("http://x.test/new-1.jpg"))
        #expect(try store.missingMedia() == scanned())
        try access.queue.write { db in
            try db.execute(sql: "INSERT INTO blob (hash, size, bytes) VALUES ('h-test', 1, x'00')")
            try db.execute(
                sql: """
                    INSERT INTO media (url, hash, mime, variant, fetchedAt)
                    VALUES ('http://x.test/new-1.jpg', 'h-test', 'image/jpeg', 'original', 1)
                    """)
            try db.execute(
                sql: "UPDATE attachment SET url = 'http://x.test/new-3.jpg' WHERE url = 'http://x.test/new-2.jpg'")
        }
        #expect(!(try store.missingMedia().contains("http://x.test/new-1.jpg")))
        #expect(try store.missingMedia() == scanned())
        try access.queue.write { db in
            try db.execute(sql: "DELETE FROM attachment WHERE url LIKE 'http://x.test/%'")
        }
        #expect(try store.missingMedia() == scanned())
    }
}

import Foundation
import GRDB
import Testing

@testable import BBSArchive

/// The hot windows read from the counts a store keeps between builds
/// (`keptHotThreads`, `v13-hot-counts`) are the threads, in the order,
/// that counting the window's posts gives (`hotThreads(since:limit:)`),
/// after every kind of change a fetch makes: replies at the end of the
/// archive and in its past, new threads, posts re-dated and
/// deleted, the window's start moving a little, past a whole window, and
/// back.
@Suite struct HotCountTests {
    let spans = [86_400, 7 * 86_400]

    /// A migrated copy of release e6c8b60's store (see OldStoreTests).
    func migratedOldStore(_ name: String) throws -> (ArchiveStore, GRDBTestAccess) {
        let path = try Fixtures.temporaryFolder(name).appendingPathComponent("archive.sqlite")
        try FileManager.default.copyItem(at: OldStoreTests.release, to: path)
        return (try ArchiveStore(path: path.path), try GRDBTestAccess.open(path.path))
    }

    func listed(_ threads: [StoredThread]) -> [String] {
        threads.map { "\($0.board)/\($0.gid) \($0.postCount) \(Int64($0.lastReplyAt.timeIntervalSince1970))" }
    }

    /// Kept and counted lists, for each window and a few lengths, at the
    /// store's newest activity; also how many threads the week shows.
    func expectSame(_ store: ArchiveStore, _ label: String) throws -> Int {
        let newest = try #require(try store.newestActivity())
        var shown = 0
        for span in spans {
            for limit in [1, 3, 100] {
                let kept = listed(try store.keptHotThreads(span: span, newest: newest, limit: limit))
                let counted = listed(
                    try store.hotThreads(since: newest.addingTimeInterval(-Double(span)), limit: limit))
                #expect(kept == counted, "\(label): span \(span), limit \(limit)")
                if span == spans[1], limit == 100 { shown = kept.count }
            }
        }
        return shown
    }

    @Test func keptCountsGiveTheCountedWindowsAfterEveryKindOfChange() throws {
        let (store, access) = try migratedOldStore("hot-counts")
        #expect(try expectSame(store, "migrated") > 0)

        // A seeded linear congruential generator: the same steps every run.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let author = try #require(
            try access.queue.read { db in try String.fetchOne(db, sql: "SELECT id FROM user LIMIT 1") })
        var kinds: [String: Int] = [:]
        var largest = 0
        for step in 0..<80 {
            let kind = next(8)
            try access.queue.write { db in
                let newest = try Int64.fetchOne(db, sql: "SELECT max(lastAt) FROM thread_summary") ?? 0
                let threads = try Row.fetchAll(db, sql: "SELECT board, gid FROM thread ORDER BY board, gid")
                let thread = threads[next(threads.count)]
                let (board, gid): (String, Int) = (thread["board"], thread["gid"])
                let last = try Int.fetchOne(
                    db, sql: "SELECT max(floor) FROM post WHERE board = ? AND gid = ?", arguments: [board, gid])
                func reply(at time: Int64) throws {
                    try db.execute(
                        sql: "INSERT INTO post (board, gid, floor, author, postedAt, body) VALUES (?, ?, ?, ?, ?, 'r')",
                        arguments: [board, gid, (last ?? -1) + 1, author, time])
                }
                switch kind {
                case 0, 1:
                    kinds["reply at the end", default: 0] += 1
                    try reply(at: newest + Int64(next(4 * 3600)))
                case 2:
                    kinds["reply in the window's past", default: 0] += 1
                    try reply(at: newest - Int64(next(10 * 86_400)))
                case 3:
                    kinds["new thread", default: 0] += 1
                    let gid = 900_000 + step
                    try db.execute(
                        sql: """
                            INSERT INTO thread (board, gid, title, replies, sticky, marked, author, postedAt,
                              lastReplier, lastReplyAt, pages)
                            VALUES (?, ?, 'new', 0, 0, 0, ?, ?, ?, ?, 1)
                            """,
                        arguments: [board, gid, author, newest, author, newest])
                    try db.execute(
                        sql: "INSERT INTO post (board, gid, floor, author, postedAt, body) VALUES (?, ?, 0, ?, ?, 'n')",
                        arguments: [board, gid, author, newest - Int64(next(86_400))])
                case 4:
                    kinds["last post deleted", default: 0] += 1
                    for table in ["post_like", "attachment", "post"] {
                        try db.execute(
                            sql: "DELETE FROM \(table) WHERE board = ? AND gid = ? AND floor = ?",
                            arguments: [board, gid, last ?? 0])
                    }
                case 5:
                    kinds["post re-dated", default: 0] += 1
                    try db.execute(
                        sql: "UPDATE post SET postedAt = postedAt - ? WHERE board = ? AND gid = ? AND floor = ?",
                        arguments: [next(3 * 86_400), board, gid, last ?? 0])
                case 6:
                    kinds["the window's start moves past a whole window", default: 0] += 1
                    try reply(at: newest + 9 * 86_400 + Int64(next(86_400)))
                default:
                    kinds["no change", default: 0] += 1
                }
            }
            largest = max(largest, try expectSame(store, "step \(step), kind \(kind)"))
        }
        #expect(kinds.count == 7, "\(kinds)")
        #expect(largest >= 3)

        // The newest post gone: the start goes back, and the counts are made again.
        try access.queue.write { db in
            let newest = "(SELECT board, gid, floor FROM post ORDER BY postedAt DESC LIMIT 1)"
            for table in ["post_like", "attachment", "post"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE (board, gid, floor) IN \(newest)")
            }
        }
        _ = try expectSame(store, "newest post deleted")
        // Counts the store holds are those of the last window read.
        let rows = try access.queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM hot_count") }
        #expect((rows ?? 0) > 0)
    }

    /// A build after one reply brings the counts up to date thread by
    /// thread: the reply's thread only, not the window's posts.
    @Test func oneReplyCountsOnlyItsThreadAgain() throws {
        let (store, access) = try migratedOldStore("hot-counts-one")
        _ = try expectSame(store, "first")
        // A thread the week does not show, marked by a count no post gives.
        let (board, gid) = try access.queue.read { db in
            let row = try #require(
                try Row.fetchOne(db, sql: "SELECT board, gid FROM hot_count WHERE span = ?", arguments: [spans[1]]))
            return (row["board"] as String, row["gid"] as Int)
        }
        try access.queue.write { db in
            try db.execute(
                sql: "UPDATE hot_count SET recent = 1000 WHERE span = ? AND board = ? AND gid = ?",
                arguments: [spans[1], board, gid])
        }
        let newest = try #require(try store.newestActivity())
        // Nothing changed: the kept count stands (it is not made again).
        let top = try store.keptHotThreads(span: spans[1], newest: newest, limit: 1)
        #expect(top.map { "\($0.board)/\($0.gid)" } == ["\(board)/\(gid)"])
        // A reply to that thread: its count is made again, and the lists agree.
        try access.queue.write { db in
            let last =
                try Int.fetchOne(
                    db, sql: "SELECT max(floor) FROM post WHERE board = ? AND gid = ?", arguments: [board, gid]) ?? 0
            let author = try String.fetchOne(db, sql: "SELECT id FROM user LIMIT 1")
            try db.execute(
                sql: "INSERT INTO post (board, gid, floor, author, postedAt, body) VALUES (?, ?, ?, ?, ?, 'r')",
                arguments: [board, gid, last + 1, author, Int64(newest.timeIntervalSince1970) - 60])
        }
        _ = try expectSame(store, "after the reply")
    }
}

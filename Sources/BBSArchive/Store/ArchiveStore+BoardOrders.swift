import Foundation
import GRDB

/// A board's threads in the two orders of its list pages, read by index,
/// so that a build after one reply reads what the board's changed pages
/// show, not every thread of the board (issue 10):
///
/// - by activity (`index.html`, the feed): `thread_summary` by board and
///   last activity, the sticky threads from a partial index apart;
/// - by start (`page-N.html`): `thread_start`, each thread's start as the
///   lists show it (its first post's time when archived, the list's
///   otherwise), kept by triggers; a thread's page is a count over its
///   index, its page's rows and its neighbours a range from it.
///
/// Each query gives the threads as `threads(board:)` does, in the same
/// order as sorting all of them would.
extension ArchiveStore {
    /// One thread's start row, computed from its own rows only.
    private static func start(_ row: String) -> String {
        """
        INSERT INTO thread_start (board, gid, startAt)
          SELECT t.board, t.gid,
            coalesce((SELECT p.postedAt FROM post p WHERE p.board = t.board AND p.gid = t.gid AND p.floor = 0), t.postedAt)
          FROM thread t WHERE t.board = \(row).board AND t.gid = \(row).gid
          ON CONFLICT (board, gid) DO UPDATE SET startAt = excluded.startAt;
        """
    }

    /// The `v12-board-orders` migration: the start table, its triggers and
    /// rows, and the indexes of the activity order and of sticky threads.
    static let boardOrdersMigration = """
        CREATE TABLE thread_start (
          board TEXT NOT NULL,
          gid INTEGER NOT NULL,
          startAt INTEGER NOT NULL,
          PRIMARY KEY (board, gid)
        ) WITHOUT ROWID;
        CREATE INDEX thread_start_by_board ON thread_start (board, startAt, gid);
        CREATE INDEX thread_summary_by_board_last ON thread_summary (board, lastAt, gid);
        CREATE INDEX thread_sticky ON thread (board) WHERE sticky <> 0;

        CREATE TRIGGER thread_start_thread_insert AFTER INSERT ON thread BEGIN
          \(start("NEW"))
        END;
        CREATE TRIGGER thread_start_thread_update AFTER UPDATE OF postedAt ON thread
        WHEN OLD.postedAt IS NOT NEW.postedAt BEGIN
          \(start("NEW"))
        END;
        CREATE TRIGGER thread_start_thread_delete AFTER DELETE ON thread BEGIN
          DELETE FROM thread_start WHERE board = OLD.board AND gid = OLD.gid;
        END;
        CREATE TRIGGER thread_start_post_insert AFTER INSERT ON post WHEN NEW.floor = 0 BEGIN
          \(start("NEW"))
        END;
        CREATE TRIGGER thread_start_post_update AFTER UPDATE OF board, gid, floor, postedAt ON post
        WHEN OLD.floor = 0 OR NEW.floor = 0 BEGIN
          \(start("OLD"))
          \(start("NEW"))
        END;
        CREATE TRIGGER thread_start_post_delete AFTER DELETE ON post WHEN OLD.floor = 0 BEGIN
          \(start("OLD"))
        END;

        INSERT INTO thread_start (board, gid, startAt)
          SELECT t.board, t.gid, coalesce(f.postedAt, t.postedAt)
          FROM thread t LEFT JOIN post f ON f.board = t.board AND f.gid = t.gid AND f.floor = 0;
        """

    /// The first `limit` threads of `threads(board:)`: sticky threads
    /// first, then the newest activity (a board's `index.html`).
    package func latestThreads(board: String, limit: Int) throws(ArchiveError) -> [StoredThread] {
        guard limit > 0 else { return [] }
        return try read { db in
            let sticky = try StoredThread.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(StoredThread.columns(posts: "coalesce(s.posts, 0)"))
                        FROM thread t INDEXED BY thread_sticky
                        LEFT JOIN thread_summary s ON s.board = t.board AND s.gid = t.gid
                        \(StoredThread.firstAndLastPosts)
                        WHERE t.board = ? AND t.sticky <> 0
                        ORDER BY lastReplyAt DESC, t.gid DESC LIMIT ?
                        """),
                arguments: [board, limit])
            return sticky + (try Self.newest(db, board: board, limit: limit - sticky.count, sticky: false))
        }
    }

    /// The board's `limit` threads of newest activity, sticky or not (its feed).
    package func newestThreads(board: String, limit: Int) throws(ArchiveError) -> [StoredThread] {
        try read { db in try Self.newest(db, board: board, limit: limit, sticky: true) }
    }

    private static func newest(_ db: Database, board: String, limit: Int, sticky: Bool) throws -> [StoredThread] {
        guard limit > 0 else { return [] }
        // Read in the order of the index (v12-board-orders), so only the
        // first rows are looked at; the summary's last activity is the
        // `lastReplyAt` the columns give (both the last post's time, or
        // the list's when none is archived).
        return try StoredThread.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(StoredThread.columns(posts: "s.posts"))
                    FROM thread_summary s INDEXED BY thread_summary_by_board_last
                    CROSS JOIN thread t ON t.board = s.board AND t.gid = s.gid
                    \(StoredThread.firstAndLastPosts)
                    WHERE s.board = ? \(sticky ? "" : "AND t.sticky = 0")
                    ORDER BY s.lastAt DESC, s.gid DESC LIMIT ?
                    """),
            arguments: [board, limit])
    }

    /// A thread's place in its board's order by start: its start and gid
    /// (the order's key), and how many threads come before it.
    package struct StartPlace: Sendable, Equatable {
        package var startAt: Int64
        package var gid: Int
        package var index: Int
    }

    /// The places of `gids` in the board's order by start (threads not
    /// stored are left out). `total` is the board's count of threads: a
    /// thread in the newer half is counted from the newest end, so a reply
    /// to a recent thread steps over few index entries.
    package func startPlaces(board: String, gids: [Int], total: Int) throws(ArchiveError) -> [Int: StartPlace] {
        guard !gids.isEmpty else { return [:] }
        return try read { db in
            var places: [Int: StartPlace] = [:]
            // Two index lookups (the min/max optimisation over the prefix).
            let first = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT min(startAt) FROM thread_start WHERE board = ?"), arguments: [board])
            let last = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT max(startAt) FROM thread_start WHERE board = ?"), arguments: [board])
            for gid in gids where places[gid] == nil {
                guard
                    let startAt = try Int64.fetchOne(
                        db.cachedStatement(sql: "SELECT startAt FROM thread_start WHERE board = ? AND gid = ?"),
                        arguments: [board, gid])
                else { continue }
                var newer = false
                if let first, let last { newer = startAt &- first > last &- startAt }
                let index: Int
                if newer {
                    let after =
                        try Int.fetchOne(
                            db.cachedStatement(
                                sql: """
                                    SELECT count(*) FROM thread_start INDEXED BY thread_start_by_board
                                    WHERE board = ? AND (startAt, gid) > (?, ?)
                                    """),
                            arguments: [board, startAt, gid]) ?? 0
                    index = total - 1 - after
                } else {
                    index =
                        try Int.fetchOne(
                            db.cachedStatement(
                                sql: """
                                    SELECT count(*) FROM thread_start INDEXED BY thread_start_by_board
                                    WHERE board = ? AND (startAt, gid) < (?, ?)
                                    """),
                            arguments: [board, startAt, gid]) ?? 0
                }
                places[gid] = StartPlace(startAt: startAt, gid: gid, index: index)
            }
            return places
        }
    }

    /// Threads of the board by start around `place`: the `before` threads
    /// just before it, then `from` threads from it on (itself first), in
    /// the order by start.
    package func threadsByStart(
        board: String, around place: StartPlace, before: Int, from: Int
    ) throws(ArchiveError) -> [StoredThread] {
        try read { db in
            func range(_ comparison: String, _ direction: String, _ limit: Int) throws -> [StoredThread] {
                guard limit > 0 else { return [] }
                return try StoredThread.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT \(StoredThread.columns(posts: "coalesce(s.posts, 0)"))
                            FROM thread_start o INDEXED BY thread_start_by_board
                            CROSS JOIN thread t ON t.board = o.board AND t.gid = o.gid
                            LEFT JOIN thread_summary s ON s.board = t.board AND s.gid = t.gid
                            \(StoredThread.firstAndLastPosts)
                            WHERE o.board = ? AND (o.startAt, o.gid) \(comparison) (?, ?)
                            ORDER BY o.startAt \(direction), o.gid \(direction) LIMIT ?
                            """),
                    arguments: [board, place.startAt, place.gid, limit])
            }
            return try range("<", "DESC", before).reversed() + range(">=", "ASC", from)
        }
    }

    /// Gids of the board's threads among `gids` that carry at least one attachment.
    /// One statement for up to 500 of them (`forEachRunOfGids`): with a
    /// statement a gid, the 60 or so threads of the pages a build after one
    /// reply renders again took 1.2–3.8 ms of it, in one 0.6–1.5 ms.
    package func threadsWithAttachments(board: String, among gids: [Int]) throws(ArchiveError) -> Set<Int> {
        let distinct = Array(Set(gids)).sorted()
        guard !distinct.isEmpty else { return [] }
        return try read { db in
            var found: Set<Int> = []
            try Self.forEachRunOfGids(board: board, distinct) { marks, arguments in
                found.formUnion(
                    try Int.fetchAll(
                        db.cachedStatement(
                            sql: "SELECT DISTINCT gid FROM attachment WHERE board = ? AND gid IN (\(marks))"),
                        arguments: arguments))
            }
            return found
        }
    }

    /// Every thread's gid on the board, in order (the lookup map's entry
    /// when the last build's cannot be read).
    package func threadGids(board: String) throws(ArchiveError) -> [Int] {
        try read { db in
            try Int.fetchAll(db, sql: "SELECT gid FROM thread WHERE board = ? ORDER BY gid", arguments: [board])
        }
    }
}

import Foundation
import GRDB

/// Hot topics over a window of the archive's own activity.
extension ArchiveStore {
    /// The latest activity in the archive: the "now" of the hot windows,
    /// so a build of the same store gives the same pages whenever it runs.
    /// Read from `thread_summary` (the last archived post's time, else the
    /// list's), the same time a thread shows as its latest reply: a board
    /// list may give only the day of a reply, which would move the windows.
    package func newestActivity() throws(ArchiveError) -> Date? {
        try read { db in
            try Int64.fetchOne(db, sql: "SELECT max(lastAt) FROM thread_summary").map(Self.date)
        }
    }

    /// The first `limit` threads by posts archived at or after `since`
    /// (most first, then most posts, latest reply, newest thread); only
    /// threads with such posts whose latest activity in `thread_summary`
    /// is in the window too (not the list's reply time, which may be only
    /// a day). Reads the threads active in the window in the order of
    /// their summary's index (`thread_summary_by_last`) and counts each
    /// one's posts of the window in `post_by_thread` (`v11-post-by-thread`,
    /// which holds their times), then the rows of the `limit` threads shown.
    /// Counting the window's posts from `post_by_time` instead grouped them
    /// by thread in a temporary B-tree: 6,840 posts for the week of the 100k
    /// store, 6.4-7.3 ms of CPU against 5.2-5.6 ms for its 1,616 threads'
    /// probes. `LIMIT -1` keeps SQLite from flattening the inner query,
    /// which counted each thread's posts three times (filter, order, row).
    /// A full build reads the windows this way; a build of what changed
    /// reads them from the counts it keeps (`keptHotThreads`).
    package func hotThreads(since: Date, limit: Int) throws(ArchiveError) -> [StoredThread] {
        guard limit > 0 else { return [] }
        let cut = Self.seconds(since)
        return try read { db in
            try StoredThread.fetchAll(
                db,
                sql: """
                    SELECT \(StoredThread.columns(posts: "c.posts"))
                    FROM (SELECT * FROM
                            (SELECT s.board, s.gid, s.posts, s.lastAt,
                               (SELECT count(*) FROM post p INDEXED BY post_by_thread
                                WHERE p.board = s.board AND p.gid = s.gid AND p.postedAt >= ?) AS recent
                             FROM thread_summary s INDEXED BY thread_summary_by_last WHERE s.lastAt >= ? LIMIT -1)
                          WHERE recent > 0
                          ORDER BY recent DESC, posts DESC, lastAt DESC, gid DESC, board LIMIT ?) c
                    CROSS JOIN thread t ON t.board = c.board AND t.gid = c.gid
                    \(StoredThread.firstAndLastPosts)
                    ORDER BY c.recent DESC, c.posts DESC, c.lastAt DESC, c.gid DESC, c.board
                    """,
                arguments: [cut, cut, limit])
        }
    }

    /// The threads `hotThreads(since:limit:)` gives for the window of
    /// `span` seconds that ends at `newest`, read from counts the store
    /// keeps between builds (`v13-hot-counts`), so a build after one reply
    /// costs what changed, not what the window holds. The direct query
    /// counted every post of every thread active in the window: the week
    /// of the 1M store holds 16,003 threads and 64,171 posts, and was half
    /// of the instructions of a build after one reply (313.5 of 617.6 M).
    ///
    /// `hot_count` holds, for each window, each thread's posts at or
    /// after the window's start when the counts were last brought up to
    /// date (`hot_window`: that start, and the last change of
    /// `build_change` they include). Bringing them up to date:
    /// - a thread with a change logged since then is counted again;
    /// - every other thread is as it was, so it loses only its posts
    ///   that the window's start has passed since (read by time, from
    ///   `post_by_time`);
    /// - the counts are made again from the posts of the window when
    ///   there are none yet, when the start went back (a newest post
    ///   gone) or moved past the whole of the old window, or when more
    ///   threads changed than `recountLimit`.
    /// One write transaction, so the counts and their start always agree.
    /// The rows `memo` keeps are taken from it (`ThreadRowMemo`).
    package func keptHotThreads(
        span: Int, newest: Date, limit: Int, memo: ThreadRowMemo? = nil
    ) throws(ArchiveError) -> [StoredThread] {
        guard limit > 0 else { return [] }
        let cut = Self.seconds(newest) - Int64(span)
        var threads: [StoredThread] = []
        try write { db in
            try Self.updateHotCounts(db, span: span, cut: cut)
            threads = try Self.readHotCounts(db, span: span, cut: cut, limit: limit, memo: memo)
        }
        return threads
    }

    /// Changed threads past which the counts are made again from the
    /// window's posts, not thread by thread (a fetch of a whole board).
    static let recountLimit = 2_000

    private static func updateHotCounts(_ db: Database, span: Int, cut: Int64) throws {
        let through = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM build_change") ?? 0
        let kept = try Row.fetchOne(db, sql: "SELECT cut, through FROM hot_window WHERE span = ?", arguments: [span])
        var recountAll = true
        if let kept, let oldCut = kept["cut"] as Int64?, let oldThrough = kept["through"] as Int64?,
            oldCut <= cut, cut - oldCut < Int64(span), oldThrough <= through
        {
            let changed = try Row.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT board, gid FROM build_change
                    WHERE seq > ? AND gid IS NOT NULL LIMIT \(recountLimit + 1)
                    """,
                arguments: [oldThrough]
            ).map { BuildChanges.ThreadKey(board: $0[0], gid: $0[1]) }
            if changed.count <= recountLimit {
                recountAll = false
                let keys = Set(changed)
                if oldCut < cut {
                    // Posts the start has passed, by thread; a changed thread is counted again below.
                    let passed = try Row.fetchAll(
                        db,
                        sql: """
                            SELECT board, gid, count(*) FROM post INDEXED BY post_by_time
                            WHERE postedAt >= ? AND postedAt < ? GROUP BY board, gid
                            """,
                        arguments: [oldCut, cut])
                    let lower = try db.makeStatement(
                        sql: "UPDATE hot_count SET recent = recent - ? WHERE span = ? AND board = ? AND gid = ?")
                    for row in passed {
                        let key = BuildChanges.ThreadKey(board: row[0], gid: row[1])
                        guard !keys.contains(key) else { continue }
                        try lower.execute(arguments: [row[2] as Int, span, key.board, key.gid])
                    }
                    try db.execute(sql: "DELETE FROM hot_count WHERE span = ? AND recent <= 0", arguments: [span])
                }
                let count = try db.makeStatement(
                    sql: """
                        SELECT count(*) FROM post INDEXED BY post_by_thread
                        WHERE board = ? AND gid = ? AND postedAt >= ?
                        """)
                let set = try db.makeStatement(
                    sql: "INSERT OR REPLACE INTO hot_count (span, board, gid, recent) VALUES (?, ?, ?, ?)")
                let clear = try db.makeStatement(sql: "DELETE FROM hot_count WHERE span = ? AND board = ? AND gid = ?")
                for key in changed.sorted() {
                    let recent = try Int.fetchOne(count, arguments: [key.board, key.gid, cut]) ?? 0
                    if recent > 0 {
                        try set.execute(arguments: [span, key.board, key.gid, recent])
                    } else {
                        try clear.execute(arguments: [span, key.board, key.gid])
                    }
                }
            }
        }
        if recountAll {
            try db.execute(sql: "DELETE FROM hot_count WHERE span = ?", arguments: [span])
            try db.execute(
                sql: """
                    INSERT INTO hot_count (span, board, gid, recent)
                    SELECT ?, board, gid, count(*) FROM post INDEXED BY post_by_time
                    WHERE postedAt >= ? GROUP BY board, gid
                    """,
                arguments: [span, cut])
        }
        try db.execute(
            sql: "INSERT OR REPLACE INTO hot_window (span, cut, through) VALUES (?, ?, ?)",
            arguments: [span, cut, through])
    }

    /// The first `limit` threads of the kept counts in the order of
    /// `hotThreads(since:limit:)`: those whose latest activity is in the
    /// window too, read by count, most first, down to the count of the
    /// `limit`-th (with every thread tied with it), put in that order
    /// here (board names by their UTF-8 bytes, as SQLite compares them);
    /// then the rows of the first `limit`.
    private static func readHotCounts(
        _ db: Database, span: Int, cut: Int64, limit: Int, memo: ThreadRowMemo?
    ) throws -> [StoredThread] {
        struct Count {
            var board: String
            var gid: Int
            var recent: Int
            var posts: Int
            var lastAt: Int64
        }
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT h.board, h.gid, h.recent, s.posts, s.lastAt FROM hot_count h INDEXED BY hot_count_by_recent
                CROSS JOIN thread_summary s ON s.board = h.board AND s.gid = h.gid
                WHERE h.span = ? AND s.lastAt >= ? ORDER BY h.recent DESC
                """,
            arguments: [span, cut])
        var counts: [Count] = []
        while let row = try rows.next() {
            let recent: Int = row[2]
            if counts.count >= limit, recent < counts[limit - 1].recent { break }
            counts.append(Count(board: row[0], gid: row[1], recent: recent, posts: row[3], lastAt: row[4]))
        }
        counts.sort { a, b in
            if a.recent != b.recent { return a.recent > b.recent }
            if a.posts != b.posts { return a.posts > b.posts }
            if a.lastAt != b.lastAt { return a.lastAt > b.lastAt }
            if a.gid != b.gid { return a.gid > b.gid }
            return a.board.utf8.lexicographicallyPrecedes(b.board.utf8)
        }
        // The shown threads' rows, those `memo` keeps taken from it.
        return try threadRows(
            db, counts.prefix(limit).map { BuildChanges.ThreadKey(board: $0.board, gid: $0.gid) }, memo: memo)
    }

    /// The `v13-hot-counts` migration: each hot window's posts by thread,
    /// kept between builds (`keptHotThreads`); empty until a build fills them.
    static let hotCountsMigration = """
        CREATE TABLE hot_count (
          span INTEGER NOT NULL,
          board TEXT NOT NULL,
          gid INTEGER NOT NULL,
          recent INTEGER NOT NULL,
          PRIMARY KEY (span, board, gid)
        ) WITHOUT ROWID;
        CREATE INDEX hot_count_by_recent ON hot_count (span, recent DESC);
        CREATE TABLE hot_window (
          span INTEGER PRIMARY KEY NOT NULL,
          cut INTEGER NOT NULL,
          through INTEGER NOT NULL
        );
        """

    /// The `v8-build-indexes` migration: posts by time, so a hot window
    /// reads the posts of its span only, not those of every thread active
    /// in it; and the threads still without an original address (none,
    /// in a store written since `v4-thread-original-url`), so a build
    /// finds them without reading every thread.
    static let buildIndexesMigration = """
        CREATE INDEX post_by_time ON post (postedAt, board, gid);
        CREATE INDEX thread_without_original_url ON thread (board, gid) WHERE originalURL IS NULL;
        """

    /// The `v8-thread-needing-fetch` migration: the threads whose listing
    /// differs from what was archived, the only ones a fetch asks for after
    /// walking a board's list, so it does not read every thread of it. The
    /// condition is the one `threadsNeedingFetch` states, word for word.
    static let threadNeedingFetchMigration = """
        CREATE INDEX thread_needing_fetch ON thread (board)
        WHERE NOT (archivedReplies IS replies AND archivedLastReplyAt IS lastReplyAt)
        """
}

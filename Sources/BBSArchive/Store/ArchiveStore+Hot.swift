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
                    LEFT JOIN post f INDEXED BY post_by_thread ON f.board = t.board AND f.gid = t.gid AND f.floor = 0
                    LEFT JOIN post l INDEXED BY post_by_thread ON l.board = t.board AND l.gid = t.gid AND l.floor =
                      (SELECT max(floor) FROM post WHERE board = t.board AND gid = t.gid)
                    ORDER BY c.recent DESC, c.posts DESC, c.lastAt DESC, c.gid DESC, c.board
                    """,
                arguments: [cut, cut, limit])
        }
    }

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

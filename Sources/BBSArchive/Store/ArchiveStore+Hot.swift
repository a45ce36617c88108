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
    /// threads with such posts. Reads the posts of the threads active
    /// since then only, by the thread's latest activity in `thread_summary`
    /// (not the list's reply time, which may be only a day).
    package func hotThreads(since: Date, limit: Int) throws(ArchiveError) -> [StoredThread] {
        guard limit > 0 else { return [] }
        let cut = Self.seconds(since)
        return try read { db in
            try StoredThread.fetchAll(
                db,
                sql: """
                    SELECT \(StoredThread.columns(posts: "c.posts"))
                    FROM thread t
                    JOIN (SELECT p.board, p.gid, count(*) AS posts, max(p.floor) AS last,
                            sum(p.postedAt >= ?) AS recent
                          FROM thread_summary w JOIN post p ON p.board = w.board AND p.gid = w.gid
                          WHERE w.lastAt >= ? GROUP BY p.board, p.gid) c
                      ON c.board = t.board AND c.gid = t.gid
                    LEFT JOIN post f ON f.board = t.board AND f.gid = t.gid AND f.floor = 0
                    LEFT JOIN post l ON l.board = t.board AND l.gid = t.gid AND l.floor = c.last
                    WHERE c.recent > 0
                    ORDER BY c.recent DESC, posts DESC, lastReplyAt DESC, t.gid DESC, t.board LIMIT ?
                    """,
                arguments: [cut, cut, limit])
        }
    }
}

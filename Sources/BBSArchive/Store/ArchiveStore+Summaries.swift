import Foundation
import GRDB

/// Figures about the whole archive kept up to date by triggers, so that a
/// build after one reply reads them in time proportional to what it shows,
/// not to the size of the archive (issue 10):
///
/// - `thread_summary`: each thread's archived posts and its last activity
///   (the last archived post's time, or the list's when none is archived),
///   indexed in the orders of the hot and recent lists, so `LIMIT N` reads N rows;
/// - `board_summary`: each board's threads and posts;
/// - indexes on each board's first start and last reply.
///
/// Each trigger recomputes only the rows of the thread or board it touches.
extension ArchiveStore {
    /// One thread's summary row, computed from its own rows only.
    private static func summarize(_ row: String) -> String {
        """
        INSERT INTO thread_summary (board, gid, posts, lastAt)
          SELECT t.board, t.gid,
            (SELECT count(*) FROM post p WHERE p.board = t.board AND p.gid = t.gid),
            coalesce(
              (SELECT p.postedAt FROM post p WHERE p.board = t.board AND p.gid = t.gid ORDER BY p.floor DESC LIMIT 1),
              t.lastReplyAt)
          FROM thread t WHERE t.board = \(row).board AND t.gid = \(row).gid
          ON CONFLICT (board, gid) DO UPDATE SET posts = excluded.posts, lastAt = excluded.lastAt;
        """
    }

    private static func count(_ column: String, _ row: String, by delta: Int) -> String {
        """
        INSERT INTO board_summary (board, \(column)) VALUES (\(row).board, \(delta))
          ON CONFLICT (board) DO UPDATE SET \(column) = \(column) + \(delta);
        """
    }

    /// The `v7-thread-summary` migration: tables, indexes and triggers,
    /// and the figures of the threads and boards already stored.
    static let summaryMigration = """
        CREATE TABLE thread_summary (
          board TEXT NOT NULL,
          gid INTEGER NOT NULL,
          posts INTEGER NOT NULL,
          lastAt INTEGER NOT NULL,
          PRIMARY KEY (board, gid)
        ) WITHOUT ROWID;
        CREATE INDEX thread_summary_by_posts ON thread_summary (posts DESC, lastAt DESC, gid DESC, board);
        CREATE INDEX thread_summary_by_last ON thread_summary (lastAt DESC, gid DESC, board);
        CREATE TABLE board_summary (
          board TEXT PRIMARY KEY NOT NULL,
          threads INTEGER NOT NULL DEFAULT 0,
          posts INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE INDEX thread_by_board_posted ON thread (board, postedAt);
        CREATE INDEX thread_by_board_last ON thread (board, lastReplyAt);

        CREATE TRIGGER thread_summary_thread_insert AFTER INSERT ON thread BEGIN
          \(summarize("NEW"))
          \(count("threads", "NEW", by: 1))
        END;
        CREATE TRIGGER thread_summary_thread_update AFTER UPDATE OF lastReplyAt ON thread BEGIN
          \(summarize("NEW"))
        END;
        CREATE TRIGGER thread_summary_thread_delete AFTER DELETE ON thread BEGIN
          DELETE FROM thread_summary WHERE board = OLD.board AND gid = OLD.gid;
          \(count("threads", "OLD", by: -1))
        END;
        CREATE TRIGGER thread_summary_post_insert AFTER INSERT ON post BEGIN
          \(summarize("NEW"))
          \(count("posts", "NEW", by: 1))
        END;
        CREATE TRIGGER thread_summary_post_update AFTER UPDATE OF board, gid, floor, postedAt ON post BEGIN
          \(summarize("OLD"))
          \(summarize("NEW"))
          \(count("posts", "OLD", by: -1))
          \(count("posts", "NEW", by: 1))
        END;
        CREATE TRIGGER thread_summary_post_delete AFTER DELETE ON post BEGIN
          \(summarize("OLD"))
          \(count("posts", "OLD", by: -1))
        END;

        INSERT INTO thread_summary (board, gid, posts, lastAt)
          SELECT t.board, t.gid, coalesce(c.posts, 0), coalesce(l.postedAt, t.lastReplyAt)
          FROM thread t
          LEFT JOIN (SELECT board, gid, count(*) AS posts, max(floor) AS last FROM post GROUP BY board, gid) c
            ON c.board = t.board AND c.gid = t.gid
          LEFT JOIN post l ON l.board = t.board AND l.gid = t.gid AND l.floor = c.last;
        INSERT INTO board_summary (board, threads, posts)
          SELECT b.name,
            (SELECT count(*) FROM thread t WHERE t.board = b.name),
            (SELECT count(*) FROM post p WHERE p.board = b.name)
          FROM (SELECT name FROM board UNION SELECT board FROM thread UNION SELECT board FROM post) b;
        """

    /// The `v7-media-pending` migration: the attachment addresses no media
    /// row holds yet, kept by triggers, so a fetch finds what to download
    /// without joining every attachment of the archive to the media.
    static let mediaPendingMigration = """
        CREATE TABLE media_pending (url TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
        CREATE TRIGGER media_pending_attachment_insert AFTER INSERT ON attachment
        WHEN NOT EXISTS (SELECT 1 FROM media WHERE url = NEW.url) BEGIN
          INSERT OR IGNORE INTO media_pending (url) VALUES (NEW.url);
        END;
        CREATE TRIGGER media_pending_attachment_update AFTER UPDATE OF url ON attachment BEGIN
          DELETE FROM media_pending WHERE url = OLD.url AND NOT EXISTS (SELECT 1 FROM attachment WHERE url = OLD.url);
          INSERT OR IGNORE INTO media_pending (url)
            SELECT NEW.url WHERE NOT EXISTS (SELECT 1 FROM media WHERE url = NEW.url);
        END;
        CREATE TRIGGER media_pending_attachment_delete AFTER DELETE ON attachment
        WHEN NOT EXISTS (SELECT 1 FROM attachment WHERE url = OLD.url) BEGIN
          DELETE FROM media_pending WHERE url = OLD.url;
        END;
        CREATE TRIGGER media_pending_media_insert AFTER INSERT ON media BEGIN
          DELETE FROM media_pending WHERE url = NEW.url;
        END;
        INSERT OR IGNORE INTO media_pending (url)
          SELECT DISTINCT a.url FROM attachment a LEFT JOIN media m ON m.url = a.url WHERE m.url IS NULL;
        """
}

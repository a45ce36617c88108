import Foundation
import GRDB

/// What changed in the store since a build: the threads, users and boards
/// whose pages may read differently. The site builder renders only those
/// (plus the pages about the whole archive), and passes this value on to
/// anything else a build writes, such as a search index.
package struct BuildChanges: Sendable, Equatable {
    package struct ThreadKey: Sendable, Hashable, Comparable {
        package var board: String
        package var gid: Int

        package init(board: String, gid: Int) {
            self.board = board
            self.gid = gid
        }

        package static func < (a: ThreadKey, b: ThreadKey) -> Bool { (a.board, a.gid) < (b.board, b.gid) }
    }

    /// Threads whose posts, title, attachments, media or list row changed.
    package var threads: Set<ThreadKey> = []
    /// Users who posted in those threads (or whose posts moved away).
    package var users: Set<String> = []
    /// For a user of `users`, the earliest time of a changed post: the
    /// pages of their posts before it read the same. A user without one
    /// (a change logged before `v9-build-change-time`) changed from the start.
    package var usersSince: [String: Date] = [:]
    /// Boards with a changed thread, or whose own row changed.
    package var boards: Set<String> = []
    /// Threads whose title changed: their neighbours' pages show it.
    package var retitled: Set<ThreadKey> = []
    /// Threads whose place in their board's order by start moved (their
    /// first post archived, its time changed) or that left the order,
    /// with their start at the last build (the earliest logged): the
    /// threads around the old place and between it and the new one name
    /// other neighbours or another list window.
    package var restarted: [ThreadKey: Int64] = [:]
    /// Threads that came into their board's order by start since the
    /// last build (wherever they fall in it).
    package var entered: Set<ThreadKey> = []
    /// The last change these include; the next build asks for changes after it.
    package var through: Int64 = 0

    package init() {}

    package var isEmpty: Bool { threads.isEmpty && users.isEmpty && boards.isEmpty }
}

extension ArchiveStore {
    /// Triggers log every change a page shows into `build_change`, whoever
    /// writes it, so a build reads what changed instead of walking every
    /// thread. Updates log only when a value really differs.
    static let buildChangesMigration = """
        CREATE TABLE build_change (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          board TEXT NOT NULL,
          gid INTEGER,
          user TEXT
        );
        CREATE TRIGGER build_change_board_insert AFTER INSERT ON board BEGIN
          INSERT INTO build_change (board) VALUES (NEW.name);
        END;
        CREATE TRIGGER build_change_board_update AFTER UPDATE ON board
        WHEN OLD.title IS NOT NEW.title OR OLD.source IS NOT NEW.source OR OLD.baseURL IS NOT NEW.baseURL BEGIN
          INSERT INTO build_change (board) VALUES (NEW.name);
        END;
        CREATE TRIGGER build_change_thread_insert AFTER INSERT ON thread BEGIN
          INSERT INTO build_change (board, gid) VALUES (NEW.board, NEW.gid);
        END;
        CREATE TRIGGER build_change_thread_update AFTER UPDATE ON thread
        WHEN OLD.title IS NOT NEW.title OR OLD.sticky IS NOT NEW.sticky OR OLD.marked IS NOT NEW.marked
          OR OLD.author IS NOT NEW.author OR OLD.postedAt IS NOT NEW.postedAt
          OR OLD.lastReplier IS NOT NEW.lastReplier OR OLD.lastReplyAt IS NOT NEW.lastReplyAt
          OR OLD.changedAt IS NOT NEW.changedAt BEGIN
          INSERT INTO build_change (board, gid) VALUES (NEW.board, NEW.gid);
        END;
        CREATE TRIGGER build_change_post_insert AFTER INSERT ON post BEGIN
          INSERT INTO build_change (board, gid, user) VALUES (NEW.board, NEW.gid, NEW.author);
        END;
        CREATE TRIGGER build_change_post_update AFTER UPDATE ON post BEGIN
          INSERT INTO build_change (board, gid, user) VALUES (NEW.board, NEW.gid, NEW.author);
          INSERT INTO build_change (board, gid, user) SELECT OLD.board, OLD.gid, OLD.author
            WHERE OLD.author IS NOT NEW.author OR OLD.board IS NOT NEW.board OR OLD.gid IS NOT NEW.gid;
        END;
        CREATE TRIGGER build_change_post_delete AFTER DELETE ON post BEGIN
          INSERT INTO build_change (board, gid, user) VALUES (OLD.board, OLD.gid, OLD.author);
        END;
        CREATE TRIGGER build_change_attachment_insert AFTER INSERT ON attachment BEGIN
          INSERT INTO build_change (board, gid) VALUES (NEW.board, NEW.gid);
        END;
        CREATE TRIGGER build_change_attachment_delete AFTER DELETE ON attachment BEGIN
          INSERT INTO build_change (board, gid) VALUES (OLD.board, OLD.gid);
        END;
        CREATE TRIGGER build_change_like_insert AFTER INSERT ON post_like BEGIN
          INSERT INTO build_change (board, gid) VALUES (NEW.board, NEW.gid);
        END;
        CREATE TRIGGER build_change_like_delete AFTER DELETE ON post_like BEGIN
          INSERT INTO build_change (board, gid) VALUES (OLD.board, OLD.gid);
        END;
        CREATE TRIGGER build_change_media_insert AFTER INSERT ON media BEGIN
          INSERT INTO build_change (board, gid) SELECT DISTINCT board, gid FROM attachment WHERE url = NEW.url;
        END;
        CREATE TRIGGER build_change_media_update AFTER UPDATE ON media
        WHEN OLD.hash IS NOT NEW.hash OR OLD.mime IS NOT NEW.mime BEGIN
          INSERT INTO build_change (board, gid) SELECT DISTINCT board, gid FROM attachment WHERE url = NEW.url;
        END;
        """

    /// A thread page names the threads started just before and after it,
    /// so a new title is logged apart too: the build rewrites the pages of
    /// the retitled thread's neighbours. The pages of its posters list it
    /// by title too. Each row points at the change it goes with, logged by
    /// the same trigger.
    static let retitleMigration = """
        CREATE TABLE build_retitle (
          seq INTEGER PRIMARY KEY,
          board TEXT NOT NULL,
          gid INTEGER NOT NULL
        );
        CREATE TRIGGER build_retitle_thread AFTER UPDATE OF title ON thread
        WHEN OLD.title IS NOT NEW.title BEGIN
          INSERT INTO build_change (board, gid, user)
            SELECT DISTINCT board, gid, author FROM post WHERE board = NEW.board AND gid = NEW.gid;
          INSERT INTO build_change (board, gid) VALUES (NEW.board, NEW.gid);
          INSERT INTO build_retitle (seq, board, gid) VALUES (last_insert_rowid(), NEW.board, NEW.gid);
        END;
        """

    /// The `v17-original-url-changes` migration: a thread's address on the
    /// forum shows on its pages (原帖), so a new one is a change to render.
    /// It changes alone when a list page of one front end is stored over
    /// rows another front end's list wrote (by a fetch, or by `reparse`
    /// reading the board's pages again). QA: after a reparse, an
    /// incremental build kept the old address in 80 files where a full
    /// build wrote the new one.
    static let originalURLMigration = """
        CREATE TRIGGER build_change_thread_original AFTER UPDATE OF originalURL ON thread
        WHEN OLD.originalURL IS NOT NEW.originalURL BEGIN
          INSERT INTO build_change (board, gid) VALUES (NEW.board, NEW.gid);
        END;
        """

    /// The `v16-start-moves` migration: a thread whose start moves in its
    /// board's order by start (`thread_start`), or that leaves it, is
    /// logged with where it was, and one that comes into it with no start,
    /// so the build can tell each thread's place at the last build and
    /// rewrite the pages whose neighbours or list window moved (issue 10:
    /// a thread fetched after a failure, its first post's time replacing
    /// the list's, left its old neighbours naming it).
    static let restartMigration = """
        CREATE TABLE build_restart (
          seq INTEGER PRIMARY KEY,
          board TEXT NOT NULL,
          gid INTEGER NOT NULL,
          startAt INTEGER
        );
        CREATE TRIGGER build_restart_insert AFTER INSERT ON thread_start BEGIN
          INSERT INTO build_change (board, gid) VALUES (NEW.board, NEW.gid);
          INSERT INTO build_restart (seq, board, gid, startAt) VALUES (last_insert_rowid(), NEW.board, NEW.gid, NULL);
        END;
        CREATE TRIGGER build_restart_update AFTER UPDATE OF startAt ON thread_start
        WHEN OLD.startAt IS NOT NEW.startAt BEGIN
          INSERT INTO build_change (board, gid) VALUES (NEW.board, NEW.gid);
          INSERT INTO build_restart (seq, board, gid, startAt) VALUES (last_insert_rowid(), OLD.board, OLD.gid, OLD.startAt);
        END;
        CREATE TRIGGER build_restart_delete AFTER DELETE ON thread_start BEGIN
          INSERT INTO build_change (board, gid) VALUES (OLD.board, OLD.gid);
          INSERT INTO build_restart (seq, board, gid, startAt) VALUES (last_insert_rowid(), OLD.board, OLD.gid, OLD.startAt);
        END;
        """

    /// The `v9-build-change-time` migration: a change to a post logs its
    /// time too (the earlier of the old and the new one), so that a build
    /// rewrites a user's pages from that time on, not all of them. Posts
    /// after a post inserted or deleted in the middle of a thread move to
    /// another thread page: their authors are logged from those posts on.
    /// An index orders each user's posts by time in full, for their pages.
    static let buildChangeTimeMigration = """
        ALTER TABLE build_change ADD COLUMN postedAt INTEGER;
        DROP TRIGGER build_change_post_insert;
        DROP TRIGGER build_change_post_update;
        DROP TRIGGER build_change_post_delete;
        DROP TRIGGER build_retitle_thread;
        CREATE TRIGGER build_change_post_insert AFTER INSERT ON post BEGIN
          INSERT INTO build_change (board, gid, user, postedAt) VALUES (NEW.board, NEW.gid, NEW.author, NEW.postedAt);
          INSERT INTO build_change (board, gid, user, postedAt)
            SELECT board, gid, author, min(postedAt) FROM post
            WHERE board = NEW.board AND gid = NEW.gid AND floor > NEW.floor GROUP BY author;
        END;
        CREATE TRIGGER build_change_post_update AFTER UPDATE ON post BEGIN
          INSERT INTO build_change (board, gid, user, postedAt)
            VALUES (NEW.board, NEW.gid, NEW.author, min(OLD.postedAt, NEW.postedAt));
          INSERT INTO build_change (board, gid, user, postedAt)
            SELECT OLD.board, OLD.gid, OLD.author, min(OLD.postedAt, NEW.postedAt)
            WHERE OLD.author IS NOT NEW.author OR OLD.board IS NOT NEW.board OR OLD.gid IS NOT NEW.gid;
        END;
        CREATE TRIGGER build_change_post_delete AFTER DELETE ON post BEGIN
          INSERT INTO build_change (board, gid, user, postedAt) VALUES (OLD.board, OLD.gid, OLD.author, OLD.postedAt);
          INSERT INTO build_change (board, gid, user, postedAt)
            SELECT board, gid, author, min(postedAt) FROM post
            WHERE board = OLD.board AND gid = OLD.gid AND floor > OLD.floor GROUP BY author;
        END;
        CREATE TRIGGER build_retitle_thread AFTER UPDATE OF title ON thread
        WHEN OLD.title IS NOT NEW.title BEGIN
          INSERT INTO build_change (board, gid, user, postedAt)
            SELECT board, gid, author, min(postedAt) FROM post WHERE board = NEW.board AND gid = NEW.gid GROUP BY author;
          INSERT INTO build_change (board, gid) VALUES (NEW.board, NEW.gid);
          INSERT INTO build_retitle (seq, board, gid) VALUES (last_insert_rowid(), NEW.board, NEW.gid);
        END;
        DROP INDEX post_by_author;
        CREATE INDEX post_by_author_time ON post (author, postedAt, board, gid, floor);
        """

    /// The last change logged, or 0 for none.
    package func lastBuildChange() throws(ArchiveError) -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT max(seq) FROM build_change") ?? 0 }
    }

    /// What changed after change `seq` (a previous build's `through`).
    package func buildChanges(after seq: Int64) throws(ArchiveError) -> BuildChanges {
        try read { db in
            var changes = BuildChanges()
            changes.through = seq
            var fromStart: Set<String> = []
            for row in try Row.fetchAll(
                db, sql: "SELECT seq, board, gid, user, postedAt FROM build_change WHERE seq > ? ORDER BY seq",
                arguments: [seq])
            {
                let board: String = row["board"]
                changes.boards.insert(board)
                if let gid: Int = row["gid"] { changes.threads.insert(.init(board: board, gid: gid)) }
                if let user: String = row["user"] {
                    changes.users.insert(user)
                    if let time: Int64 = row["postedAt"] {
                        let date = Self.date(time)
                        changes.usersSince[user] = min(changes.usersSince[user] ?? date, date)
                    } else {
                        fromStart.insert(user)
                    }
                }
                changes.through = row["seq"]
            }
            for user in fromStart { changes.usersSince[user] = nil }
            for row in try Row.fetchAll(
                db, sql: "SELECT board, gid FROM build_retitle WHERE seq > ? AND seq <= ?",
                arguments: [seq, changes.through])
            {
                changes.retitled.insert(.init(board: row["board"], gid: row["gid"]))
            }
            for row in try Row.fetchAll(
                db, sql: "SELECT board, gid, startAt FROM build_restart WHERE seq > ? AND seq <= ? ORDER BY seq",
                arguments: [seq, changes.through])
            {
                // The earliest row tells: a start, where it was at the last
                // build; none, it came in since.
                let key = BuildChanges.ThreadKey(board: row["board"], gid: row["gid"])
                guard changes.restarted[key] == nil, !changes.entered.contains(key) else { continue }
                if let start: Int64 = row["startAt"] {
                    changes.restarted[key] = start
                } else {
                    changes.entered.insert(key)
                }
            }
            return changes
        }
    }

    /// Orders for `topThreads`.
    package enum ThreadOrder: Sendable {
        /// Most archived posts first (hot topics).
        case mostPosts
        /// Latest reply first.
        case latestReply
    }

    /// The first `limit` threads of the whole archive in `order`; ties go
    /// to the board first by name. With a `memo`, their keys are read in
    /// that order, and the rows it keeps are taken from it (`ThreadRowMemo`).
    package func topThreads(_ order: ThreadOrder, limit: Int, memo: ThreadRowMemo? = nil) throws(ArchiveError)
        -> [StoredThread]
    {
        guard limit > 0 else { return [] }
        let orderBy =
            switch order {
            case .mostPosts: "s.posts DESC, s.lastAt DESC, s.gid DESC, s.board"
            case .latestReply: "s.lastAt DESC, s.gid DESC, s.board"
            }
        if let memo {
            // Read in its index's order, as below (without the rows' joins,
            // SQLite sorted the whole summary for the latest replies).
            let index =
                switch order {
                case .mostPosts: "thread_summary_by_posts"
                case .latestReply: "thread_summary_by_last"
                }
            return try read { db in
                let keys = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT s.board, s.gid FROM thread_summary s INDEXED BY \(index)
                        CROSS JOIN thread t ON t.board = s.board AND t.gid = s.gid
                        WHERE s.posts > 0 ORDER BY \(orderBy) LIMIT ?
                        """,
                    arguments: [limit]
                ).map { BuildChanges.ThreadKey(board: $0[0], gid: $0[1]) }
                return try Self.threadRows(db, keys, memo: memo)
            }
        }
        // The summary (v7-thread-summary) is read in the order of its index,
        // so only the first `limit` threads with posts are looked at.
        return try read { db in
            try StoredThread.fetchAll(
                db,
                sql: """
                    SELECT \(StoredThread.columns(posts: "s.posts"))
                    FROM thread_summary s
                    CROSS JOIN thread t ON t.board = s.board AND t.gid = s.gid
                    \(StoredThread.firstAndLastPosts)
                    WHERE s.posts > 0
                    ORDER BY \(orderBy) LIMIT ?
                    """,
                arguments: [limit])
        }
    }

    /// The forum address of the thread with the lowest id on the first
    /// board by name, as stored when it was saved.
    package func firstThreadOriginalURL() throws(ArchiveError) -> String? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT originalURL FROM thread ORDER BY board, gid LIMIT 1")
        }
    }

    /// Each board's earliest thread start and latest reply, as its lists show them.
    package func boardSpans() throws(ArchiveError) -> [String: (first: Date, last: Date)] {
        try read { db in
            var spans: [String: (first: Date, last: Date)] = [:]
            // Two index lookups a board (v7-thread-summary), not a scan of every thread.
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT name,
                      (SELECT min(postedAt) FROM thread WHERE board = b.name) AS first,
                      (SELECT max(lastReplyAt) FROM thread WHERE board = b.name) AS last
                    FROM board b
                    """)
            {
                guard let first = row["first"] as Int64?, let last = row["last"] as Int64? else { continue }
                spans[row["name"]] = (Self.date(first), Self.date(last))
            }
            return spans
        }
    }

    /// Every thread's archived posts, by board, in thread order.
    package func postCountsByThread() throws(ArchiveError) -> [String: [(gid: Int, posts: Int)]] {
        try read { db in
            var counts: [String: [(gid: Int, posts: Int)]] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT board, gid, count(*) AS n FROM post GROUP BY board, gid ORDER BY board, gid")
            {
                counts[row["board"], default: []].append((row["gid"], row["n"]))
            }
            return counts
        }
    }
}

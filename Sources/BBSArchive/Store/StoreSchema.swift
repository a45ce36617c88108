import Foundation
import GRDB

/// The store's schema, as a list of migrations that only ever grows.
///
/// Migrations are append-only: a landed migration is never edited, since
/// stores made with it exist on archivists' disks. A change is a new
/// migration with a distinctive name, registered after the others, in one
/// `registerMigration` block of its own.
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE blob (
                      hash TEXT PRIMARY KEY NOT NULL,
                      size INTEGER NOT NULL,
                      encoding TEXT NOT NULL DEFAULT 'identity',
                      bytes BLOB NOT NULL
                    );
                    CREATE TABLE capture (
                      id INTEGER PRIMARY KEY,
                      url TEXT NOT NULL,
                      fetchedAt INTEGER NOT NULL,
                      status INTEGER NOT NULL,
                      headers TEXT NOT NULL,
                      hash TEXT NOT NULL REFERENCES blob (hash),
                      UNIQUE (url, hash)
                    );
                    CREATE TABLE board (
                      name TEXT PRIMARY KEY NOT NULL,
                      title TEXT,
                      pages INTEGER,
                      source TEXT,
                      baseURL TEXT,
                      section TEXT
                    );
                    CREATE TABLE section (
                      code TEXT PRIMARY KEY NOT NULL,
                      name TEXT NOT NULL,
                      parent TEXT
                    );
                    CREATE TABLE thread (
                      board TEXT NOT NULL REFERENCES board (name),
                      gid INTEGER NOT NULL,
                      title TEXT NOT NULL,
                      replies INTEGER NOT NULL,
                      sticky INTEGER NOT NULL,
                      marked INTEGER NOT NULL,
                      author TEXT,
                      postedAt INTEGER NOT NULL,
                      lastReplier TEXT,
                      lastReplyAt INTEGER NOT NULL,
                      pages INTEGER,
                      archivedReplies INTEGER,
                      archivedLastReplyAt INTEGER,
                      changedAt INTEGER,
                      PRIMARY KEY (board, gid)
                    );
                    CREATE TABLE user (
                      id TEXT PRIMARY KEY NOT NULL
                    );
                    CREATE TABLE post (
                      board TEXT NOT NULL,
                      gid INTEGER NOT NULL,
                      floor INTEGER NOT NULL,
                      author TEXT NOT NULL REFERENCES user (id),
                      postedAt INTEGER NOT NULL,
                      body TEXT NOT NULL,
                      ip TEXT,
                      editedBy TEXT,
                      nick TEXT,
                      title TEXT,
                      signature TEXT,
                      postID INTEGER,
                      editedAt INTEGER,
                      PRIMARY KEY (board, gid, floor),
                      FOREIGN KEY (board, gid) REFERENCES thread (board, gid)
                    );
                    CREATE TABLE post_like (
                      board TEXT NOT NULL,
                      gid INTEGER NOT NULL,
                      floor INTEGER NOT NULL,
                      position INTEGER NOT NULL,
                      score INTEGER NOT NULL,
                      user TEXT NOT NULL,
                      message TEXT NOT NULL,
                      at INTEGER,
                      PRIMARY KEY (board, gid, floor, position),
                      FOREIGN KEY (board, gid, floor) REFERENCES post (board, gid, floor)
                    );
                    CREATE INDEX post_by_author ON post (author, postedAt);
                    CREATE TABLE attachment (
                      board TEXT NOT NULL,
                      gid INTEGER NOT NULL,
                      floor INTEGER NOT NULL,
                      position INTEGER NOT NULL,
                      name TEXT NOT NULL,
                      url TEXT NOT NULL,
                      kind TEXT NOT NULL,
                      size TEXT,
                      PRIMARY KEY (board, gid, floor, position),
                      FOREIGN KEY (board, gid, floor) REFERENCES post (board, gid, floor)
                    );
                    CREATE INDEX attachment_by_url ON attachment (url);
                    CREATE TABLE media (
                      url TEXT PRIMARY KEY NOT NULL,
                      hash TEXT NOT NULL REFERENCES blob (hash),
                      mime TEXT,
                      variant TEXT NOT NULL DEFAULT 'original',
                      fetchedAt INTEGER NOT NULL
                    );
                    CREATE TABLE crawl (
                      board TEXT PRIMARY KEY NOT NULL,
                      startedAt INTEGER NOT NULL,
                      walkedPages INTEGER NOT NULL DEFAULT 0,
                      finishedAt INTEGER,
                      coveredAll INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE failure (
                      url TEXT PRIMARY KEY NOT NULL,
                      board TEXT,
                      reason TEXT NOT NULL,
                      attempts INTEGER NOT NULL DEFAULT 1,
                      lastTriedAt INTEGER NOT NULL
                    );
                    """)
        }
        // Stores made before `v1` took its final form (it was edited in
        // place until release e6c8b60) lack tables and columns that the
        // code reads: add whichever are missing, as `v1` has them now. It
        // comes before every later migration, which may build on them.
        migrator.registerMigration("v2-repair-early-v1") { db in
            try repairEarlyV1(db)
        }
        // Posts kept with what could be read: the parser's warning and the
        // post's raw text; failures say whether the page failed or was
        // stored only in part.
        migrator.registerMigration("v2-parse-warnings") { db in
            try db.execute(
                sql: """
                    ALTER TABLE post ADD COLUMN parseWarning TEXT;
                    ALTER TABLE post ADD COLUMN rawText TEXT;
                    ALTER TABLE failure ADD COLUMN kind TEXT NOT NULL DEFAULT 'failed';
                    """)
        }
        // Search (issue 9): which post is which document of the site's
        // search index, so a build appends new posts to it instead of
        // indexing everything again. `search_index` names the index (the id
        // in its search/index.js) these rows describe. (`v15-search-threads`
        // replaced `search_doc`, a row a post, by a row a thread.)
        // What changed since the last build, logged by triggers (issue 10).
        migrator.registerMigration("v2-build-changes") { db in try db.execute(sql: ArchiveStore.buildChangesMigration) }
        migrator.registerMigration("v2-search-index") { db in
            try db.execute(
                sql: """
                    CREATE TABLE search_doc (
                      board TEXT NOT NULL,
                      gid INTEGER NOT NULL,
                      floor INTEGER NOT NULL,
                      doc INTEGER NOT NULL,
                      hash TEXT NOT NULL,
                      PRIMARY KEY (board, gid, floor)
                    );
                    CREATE TABLE search_index (
                      id TEXT PRIMARY KEY NOT NULL,
                      docs INTEGER NOT NULL,
                      lastPostedAt INTEGER NOT NULL,
                      lastBoard TEXT NOT NULL,
                      lastGid INTEGER NOT NULL,
                      lastFloor INTEGER NOT NULL
                    );
                    """)
        }
        // Which bbsarchive wrote the store last, so that an older one can
        // say which version it needs.
        migrator.registerMigration("v3-store-writer") { db in
            try db.execute(
                sql: """
                    CREATE TABLE store_writer (
                      id INTEGER PRIMARY KEY CHECK (id = 1),
                      version TEXT NOT NULL
                    )
                    """)
        }
        // Each thread's address on the live forum, kept when it is saved, so
        // the build half never needs to know a forum to link back to it.
        migrator.registerMigration("v4-thread-original-url") { db in
            try db.execute(sql: "ALTER TABLE thread ADD COLUMN originalURL TEXT")
        }
        // Captures are keyed by the URL asked for; the URL that answered
        // (after redirects the fetcher followed) is kept beside it, `NULL`
        // when it is the same.
        migrator.registerMigration("v5-capture-effective-url") { db in
            try db.execute(sql: "ALTER TABLE capture ADD COLUMN effectiveURL TEXT")
        }
        // A post's earlier versions (issue 13): whenever a run or `reparse`
        // changes a post's author, time, text, title or signature, the
        // version it replaces is kept here first, with when it was replaced,
        // so nothing archived is lost when the forum edits or blanks a post.
        migrator.registerMigration("v5-post-versions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE post_version (
                      id INTEGER PRIMARY KEY,
                      board TEXT NOT NULL,
                      gid INTEGER NOT NULL,
                      floor INTEGER NOT NULL,
                      author TEXT NOT NULL,
                      postedAt INTEGER NOT NULL,
                      body TEXT NOT NULL,
                      title TEXT,
                      signature TEXT,
                      rawText TEXT,
                      replacedAt INTEGER NOT NULL
                    );
                    CREATE INDEX post_version_post ON post_version (board, gid, floor);
                    CREATE TRIGGER post_version_keep AFTER UPDATE ON post
                    WHEN OLD.body IS NOT NEW.body OR OLD.author IS NOT NEW.author OR OLD.postedAt IS NOT NEW.postedAt
                      OR OLD.title IS NOT NEW.title OR OLD.signature IS NOT NEW.signature BEGIN
                      INSERT INTO post_version (board, gid, floor, author, postedAt, body, title, signature, rawText, replacedAt)
                      VALUES (OLD.board, OLD.gid, OLD.floor, OLD.author, OLD.postedAt, OLD.body, OLD.title, OLD.signature,
                        OLD.rawText, CAST(strftime('%s', 'now') AS INTEGER));
                    END;
                    """)
        }
        // When the forum was seen to replace a post by a deletion notice
        // (issue 13); the post keeps the text archived before.
        migrator.registerMigration("v5-post-forum-deleted") { db in
            try db.execute(sql: "ALTER TABLE post ADD COLUMN forumDeletedAt INTEGER")
        }
        // What the build read of each archived image's header (issue 11):
        // its size and frames, so thumbnails and tall crops are decided
        // without reading the image again. `width` NULL: no image libvips reads.
        migrator.registerMigration("v6-image-facts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE image_facts (
                      hash TEXT PRIMARY KEY NOT NULL,
                      width INTEGER,
                      height INTEGER,
                      frames INTEGER NOT NULL DEFAULT 1,
                      alpha INTEGER NOT NULL DEFAULT 0
                    )
                    """)
        }
        // Emoticons (issue 11): each code the posts use and the forum's
        // address of its image, fetched once into `media` like an
        // attachment; `gone` when the forum has no such image (404/410).
        migrator.registerMigration("v6-emoticons") { db in
            try db.execute(
                sql: """
                    CREATE TABLE emoticon (
                      code TEXT PRIMARY KEY,
                      url TEXT NOT NULL,
                      gone INTEGER NOT NULL DEFAULT 0
                    )
                    """)
        }
        // Titles logged apart, for the pages of a thread's neighbours (issue 11).
        migrator.registerMigration("v6-build-retitle") { db in try db.execute(sql: ArchiveStore.retitleMigration) }
        // Threads' post counts and last activity, boards' counts, kept by triggers (issue 10).
        migrator.registerMigration("v7-thread-summary") { db in try db.execute(sql: ArchiveStore.summaryMigration) }
        // Attachments still to download, kept by triggers (issue 10).
        migrator.registerMigration("v7-media-pending") { db in try db.execute(sql: ArchiveStore.mediaPendingMigration) }
        // Posts by time (hot windows), threads without an original address (issue 10).
        migrator.registerMigration("v8-build-indexes") { db in try db.execute(sql: ArchiveStore.buildIndexesMigration) }
        // The threads a fetch still has to read, apart (issue 10).
        migrator.registerMigration("v8-thread-needing-fetch") { db in
            try db.execute(sql: ArchiveStore.threadNeedingFetchMigration)
        }
        // The time of each changed post in the change log, and each user's
        // posts in full time order: a reply rewrites few user pages (issue 10).
        migrator.registerMigration("v9-build-change-time") { db in
            try db.execute(sql: ArchiveStore.buildChangeTimeMigration)
        }
        migrator.registerMigration("v10-robots-cache") { db in
            // Each origin's robots.txt as last fetched, with when: reused
            // for up to a day (RFC 9309 §2.4) instead of asked for by every
            // run. A capture cannot say it: the same bytes are kept once,
            // at the time they were first fetched.
            try db.execute(
                sql: """
                    CREATE TABLE robots_cache (
                      origin TEXT PRIMARY KEY NOT NULL, fetchedAt INTEGER NOT NULL, status INTEGER NOT NULL,
                      body BLOB NOT NULL)
                    """)
        }
        migrator.registerMigration("v11-post-by-thread") { db in
            // A thread's first and last posts' authors and times, as board
            // lists and hot topics show them, read from this index and not
            // from the posts' rows, bodies and all: one board's list read 810
            // pages of the 100k store, 170 this way. The queries name it
            // (`INDEXED BY`): SQLite prefers the primary key, which is unique.
            try db.execute(sql: "CREATE INDEX post_by_thread ON post (board, gid, floor, author, postedAt)")
        }
        // Each board's threads in its two list orders, by index: a build
        // after one reply reads the board's latest page, its pages that
        // hold changed threads and those threads' neighbours, not every
        // thread of the board (issue 10).
        migrator.registerMigration("v12-board-orders") { db in try db.execute(sql: ArchiveStore.boardOrdersMigration) }
        // Each hot window's posts by thread, kept between builds, so a build
        // after one reply counts the changed threads, not the window's posts
        // (issue 10: half of a one-reply build at 1M posts).
        migrator.registerMigration("v13-hot-counts") { db in try db.execute(sql: ArchiveStore.hotCountsMigration) }
        // Each thread's title by its key, for the rows of user pages: a
        // user's posts jump about the archive, and each looked its thread
        // up in the table, whose wide rows do not stay in the page cache.
        // This index is a fraction of its size (issue 10; figures at
        // `ArchiveStore.posts(byUser:)`). The query names it.
        migrator.registerMigration("v14-thread-titles") { db in
            try db.execute(sql: "CREATE INDEX thread_title ON thread (board, gid, title)")
        }
        // The search index's map, a row a thread instead of a row a post
        // (`SearchIndexWriter.threadPosts`): the full pass inserted a row
        // for each post, in time order, into a table keyed by thread and
        // floor, and that insert was a tenth of the pass's CPU time (issue
        // 9; figures at `SearchIndexWriter.appendThreadPost`). The old map
        // goes, and with it the record of which index it describes: the
        // next build indexes everything again, once.
        migrator.registerMigration("v15-search-threads") { db in
            try db.execute(
                sql: """
                    DROP TABLE search_doc;
                    DELETE FROM search_index;
                    CREATE TABLE search_thread (
                      board TEXT NOT NULL,
                      gid INTEGER NOT NULL,
                      posts BLOB NOT NULL,
                      PRIMARY KEY (board, gid)
                    ) WITHOUT ROWID;
                    """)
        }
        // A thread that moves in its board's order by start, or leaves it,
        // is logged with its old start: the pages around its old place
        // named it (`ArchiveStore.restartMigration`).
        migrator.registerMigration("v16-start-moves") { db in try db.execute(sql: ArchiveStore.restartMigration) }
        // A thread whose address on the forum changed is rendered again: its
        // pages link to it (`ArchiveStore.originalURLMigration`).
        migrator.registerMigration("v17-original-url-changes") { db in
            try db.execute(sql: ArchiveStore.originalURLMigration)
        }
        // Each host's pace as the last run left it: when it was last asked,
        // and until when it asked everyone to wait (`Retry-After`), so a run
        // started again keeps both (QA 7: a restarted run asked at once).
        migrator.registerMigration("v18-host-pace") { db in
            try db.execute(
                sql: """
                    CREATE TABLE host_pace (host TEXT PRIMARY KEY NOT NULL, askedAt REAL NOT NULL, holdUntil REAL)
                    """)
        }
        // A thread's earlier titles: when a run changes one (its starter
        // edited it), the title it replaces is kept here first, as a post's
        // earlier texts are in `post_version` (QA 7: a title was lost).
        migrator.registerMigration("v19-thread-title-versions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE thread_title_version (
                      id INTEGER PRIMARY KEY, board TEXT NOT NULL, gid INTEGER NOT NULL, title TEXT NOT NULL,
                      replacedAt INTEGER NOT NULL);
                    CREATE INDEX thread_title_version_thread ON thread_title_version (board, gid);
                    CREATE TRIGGER thread_title_keep AFTER UPDATE OF title ON thread
                    WHEN OLD.title IS NOT NEW.title BEGIN
                      INSERT INTO thread_title_version (board, gid, title, replacedAt)
                      VALUES (OLD.board, OLD.gid, OLD.title, CAST(strftime('%s', 'now') AS INTEGER));
                    END;
                    """)
        }
        // A post's attachments and likes that a run no longer finds on its
        // page (the author took a file out, the forum removed a like): kept
        // first, with when, as a post's earlier texts are (QA 7: their rows
        // were deleted and nothing of them stayed).
        migrator.registerMigration("v20-removed-attachments-and-likes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE attachment_removed (
                      id INTEGER PRIMARY KEY, board TEXT NOT NULL, gid INTEGER NOT NULL, floor INTEGER NOT NULL,
                      name TEXT NOT NULL, url TEXT NOT NULL, kind TEXT NOT NULL, size TEXT, removedAt INTEGER NOT NULL);
                    CREATE INDEX attachment_removed_post ON attachment_removed (board, gid, floor);
                    CREATE TABLE post_like_removed (
                      id INTEGER PRIMARY KEY, board TEXT NOT NULL, gid INTEGER NOT NULL, floor INTEGER NOT NULL,
                      score INTEGER NOT NULL, user TEXT NOT NULL, message TEXT NOT NULL, at INTEGER,
                      removedAt INTEGER NOT NULL);
                    CREATE INDEX post_like_removed_post ON post_like_removed (board, gid, floor);
                    """)
        }
        // The thumbnails a build made of archived images (issue 10), by the
        // image's hash, their width and format: a build into a new folder
        // copies them instead of making them again (libvips: about 45 ms
        // each for a 1200×900 photo, against the rest of a build's few
        // milliseconds a page). Only a cache: a store without them is whole.
        migrator.registerMigration("v21-thumbnails") { db in
            try db.execute(
                sql: """
                    CREATE TABLE thumbnail (
                      hash TEXT NOT NULL, width INTEGER NOT NULL, format TEXT NOT NULL, bytes BLOB NOT NULL,
                      PRIMARY KEY (hash, width, format))
                    """)
        }
        return migrator
    }

    /// Tables and columns that early stores may lack, as `v1` declares them now.
    private static let lateTables = [
        """
        CREATE TABLE IF NOT EXISTS section (code TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, parent TEXT)
        """,
        """
        CREATE TABLE IF NOT EXISTS post_like (
          board TEXT NOT NULL, gid INTEGER NOT NULL, floor INTEGER NOT NULL, position INTEGER NOT NULL,
          score INTEGER NOT NULL, user TEXT NOT NULL, message TEXT NOT NULL, at INTEGER,
          PRIMARY KEY (board, gid, floor, position),
          FOREIGN KEY (board, gid, floor) REFERENCES post (board, gid, floor))
        """,
        """
        CREATE TABLE IF NOT EXISTS crawl (
          board TEXT PRIMARY KEY NOT NULL, startedAt INTEGER NOT NULL, walkedPages INTEGER NOT NULL DEFAULT 0,
          finishedAt INTEGER, coveredAll INTEGER NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE IF NOT EXISTS failure (
          url TEXT PRIMARY KEY NOT NULL, board TEXT, reason TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 1,
          lastTriedAt INTEGER NOT NULL)
        """,
    ]

    private static let lateColumns: [(table: String, column: String, declaration: String)] = [
        ("blob", "encoding", "TEXT NOT NULL DEFAULT 'identity'"),
        ("board", "source", "TEXT"), ("board", "baseURL", "TEXT"), ("board", "section", "TEXT"),
        ("thread", "pages", "INTEGER"), ("thread", "archivedReplies", "INTEGER"),
        ("thread", "archivedLastReplyAt", "INTEGER"), ("thread", "changedAt", "INTEGER"),
        ("post", "ip", "TEXT"), ("post", "editedBy", "TEXT"), ("post", "nick", "TEXT"), ("post", "title", "TEXT"),
        ("post", "signature", "TEXT"), ("post", "postID", "INTEGER"), ("post", "editedAt", "INTEGER"),
        ("media", "variant", "TEXT NOT NULL DEFAULT 'original'"),
        ("crawl", "coveredAll", "INTEGER NOT NULL DEFAULT 0"),
    ]

    private static func repairEarlyV1(_ db: Database) throws {
        for table in lateTables { try db.execute(sql: table) }
        for (table, column, declaration) in lateColumns {
            let present = try db.columns(in: table).contains { $0.name == column }
            if !present { try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column) \(declaration)") }
        }
    }

    /// Throws `storeFromNewerRelease` when the store has migrations this
    /// bbsarchive does not know: a newer bbsarchive wrote it, and writing
    /// to it with this one could lose what the newer one keeps.
    ///
    /// Returns what the store holds: whether every known migration is
    /// applied (then opening it needs no migration work) and its last writer.
    @discardableResult
    static func refuseNewer(_ database: DatabasePool, path: String) throws(ArchiveError) -> (
        current: Bool, writer: String?
    ) {
        let known = migrator.migrations
        let found: (unknown: [String], current: Bool, writer: String?)
        do {
            found = try database.read { db in
                guard try db.tableExists("grdb_migrations") else { return ([], false, nil) }
                let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
                let writer =
                    try db.tableExists("store_writer")
                    ? try String.fetchOne(db, sql: "SELECT version FROM store_writer WHERE id = 1") : nil
                return (applied.filter { !known.contains($0) }, Set(applied).isSuperset(of: known), writer)
            }
        } catch {
            throw .storeUnavailable(path: path, reason: "\(error)")
        }
        guard let newest = found.unknown.last else { return (found.current, found.writer) }
        let theirs = found.writer.map { "bbsarchive \($0), schema \(newest)" } ?? "schema \(newest)"
        throw .storeFromNewerRelease(
            path: path, storeVersion: theirs,
            ownVersion: "bbsarchive \(BBSArchiveVersion.build), schema \(known.last ?? "none")")
    }

    /// Records this bbsarchive as the store's last writer.
    static func recordWriter(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO store_writer (id, version) VALUES (1, ?)
                ON CONFLICT (id) DO UPDATE SET version = excluded.version WHERE version IS NOT excluded.version
                """,
            arguments: [BBSArchiveVersion.build])
    }
}

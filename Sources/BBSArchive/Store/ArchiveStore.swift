import Foundation
import GRDB

/// The archive's SQLite store: raw captures, boards, threads, posts, users
/// and media. Every write is one transaction, and every write is an upsert
/// keyed by forum ids, so running the same archive twice adds nothing.
///
/// Bodies (pages and media) live once each in `blob`, keyed by SHA-256;
/// `capture` and `media` point at them.
public final class ArchiveStore: Sendable {
    public let path: String
    private let database: DatabasePool

    /// Opens (or creates) the store at `path` and brings its schema up to date.
    public init(path: String) throws(ArchiveError) {
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        do {
            database = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(database)
        } catch {
            throw .storeUnavailable(path: path, reason: Self.describe(error))
        }
    }

    // MARK: Writing

    /// Keeps a response exactly as it arrived; returns its body's hash.
    @discardableResult
    public func saveCapture(_ response: HTTPResponse) throws(ArchiveError) -> String {
        let hash = SHA256.hex(response.body)
        let headers = response.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        try write { db in
            try Self.insertBlob(db, hash: hash, bytes: response.body)
            try db.execute(
                sql: """
                    INSERT INTO capture (url, fetchedAt, status, headers, hash) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (url, hash) DO NOTHING
                    """,
                arguments: [response.url, Self.seconds(response.fetchedAt), response.status, headers, hash])
        }
        return hash
    }

    /// Records a board page: the board's title and page count and its rows.
    /// `source` names the front end it came from, so the site can link
    /// every thread back to its original address.
    public func saveBoardPage(_ page: BoardPage, source: any ForumSource) throws(ArchiveError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO board (name, title, pages, source, baseURL) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET title = coalesce(excluded.title, title), pages = excluded.pages,
                      source = excluded.source, baseURL = excluded.baseURL
                    """,
                arguments: [page.board, page.title, page.page.total, source.id, source.baseURL])
            for thread in page.threads {
                try db.execute(
                    sql: """
                        INSERT INTO thread (board, gid, title, replies, sticky, marked, author, postedAt, lastReplier, lastReplyAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (board, gid) DO UPDATE SET
                          title = excluded.title, replies = excluded.replies, sticky = excluded.sticky,
                          marked = excluded.marked, author = excluded.author, postedAt = excluded.postedAt,
                          lastReplier = excluded.lastReplier, lastReplyAt = excluded.lastReplyAt
                        """,
                    arguments: [
                        page.board, thread.gid, thread.title, thread.replies, thread.sticky, thread.marked,
                        thread.author, Self.seconds(thread.postedAt), thread.lastReplier,
                        Self.seconds(thread.lastReplyAt),
                    ])
            }
        }
    }

    /// Whether the thread's posts were archived when it last looked like
    /// `summary` on its board: then there is nothing new to fetch.
    public func isArchived(board: String, summary: ThreadSummary) throws(ArchiveError) -> Bool {
        try read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT archivedReplies, archivedLastReplyAt FROM thread WHERE board = ? AND gid = ?",
                arguments: [board, summary.gid])
            guard let row, let replies: Int = row["archivedReplies"], let last: Int64 = row["archivedLastReplyAt"]
            else { return false }
            return replies == summary.replies && last == Self.seconds(summary.lastReplyAt)
        }
    }

    /// Stores every page of one thread at once, so a thread is either
    /// wholly archived or not at all, and marks it archived as `summary`.
    public func saveThread(board: String, pages: [ThreadPage], summary: ThreadSummary?) throws(ArchiveError) {
        guard let first = pages.first else { return }
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO thread (board, gid, title, replies, sticky, marked, author, postedAt, lastReplier, lastReplyAt)
                    VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?, ?)
                    ON CONFLICT (board, gid) DO UPDATE SET title = excluded.title
                    """,
                arguments: [
                    board, first.gid, first.title, max(0, pages.reduce(0) { $0 + $1.posts.count } - 1),
                    first.posts.first?.author, Self.seconds(first.posts.first?.postedAt ?? Date()),
                    pages.last?.posts.last?.author, Self.seconds(pages.last?.posts.last?.postedAt ?? Date()),
                ])
            for page in pages {
                for post in page.posts {
                    try Self.upsertPost(db, board: board, gid: first.gid, post: post)
                }
            }
            try db.execute(
                sql: """
                    UPDATE thread SET pages = ?, archivedReplies = ?, archivedLastReplyAt = ?
                    WHERE board = ? AND gid = ?
                    """,
                arguments: [
                    first.page.total, summary?.replies, summary.map { Self.seconds($0.lastReplyAt) }, board, first.gid,
                ])
        }
    }

    /// Attachment URLs whose bytes are not stored yet.
    public func missingMedia() throws(ArchiveError) -> [String] {
        try read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT a.url FROM attachment a LEFT JOIN media m ON m.url = a.url
                    WHERE m.url IS NULL ORDER BY a.url
                    """)
        }
    }

    /// Stores an attachment's bytes under their hash and links the URL to them.
    public func saveMedia(url: String, response: HTTPResponse) throws(ArchiveError) {
        let hash = SHA256.hex(response.body)
        let mime = response.header("Content-Type")?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        try write { db in
            try Self.insertBlob(db, hash: hash, bytes: response.body)
            try db.execute(
                sql: """
                    INSERT INTO media (url, hash, mime, fetchedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT (url) DO UPDATE SET hash = excluded.hash, mime = excluded.mime, fetchedAt = excluded.fetchedAt
                    """,
                arguments: [url, hash, mime, Self.seconds(response.fetchedAt)])
        }
    }

    // MARK: Details

    private func write(_ body: (Database) throws -> Void) throws(ArchiveError) {
        do {
            try database.write(body)
        } catch {
            throw .storeUnavailable(path: path, reason: Self.describe(error))
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(ArchiveError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw .storeUnavailable(path: path, reason: Self.describe(error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB: return "it is not a SQLite database"
            case .SQLITE_CANTOPEN: return "the file cannot be created or opened there"
            case .SQLITE_READONLY, .SQLITE_PERM: return "it is read-only"
            case .SQLITE_FULL: return "the disk is full"
            case .SQLITE_BUSY, .SQLITE_LOCKED: return "another bbsarchive is using it"
            default: return error.message ?? "\(error.resultCode)"
            }
        }
        return "\(error)"
    }

    private static func insertBlob(_ db: Database, hash: String, bytes: Data) throws {
        try db.execute(
            sql: "INSERT INTO blob (hash, size, bytes) VALUES (?, ?, ?) ON CONFLICT (hash) DO NOTHING",
            arguments: [hash, bytes.count, bytes])
    }

    private static func upsertPost(_ db: Database, board: String, gid: Int, post: Post) throws {
        try db.execute(sql: "INSERT INTO user (id) VALUES (?) ON CONFLICT (id) DO NOTHING", arguments: [post.author])
        try db.execute(
            sql: """
                INSERT INTO post (board, gid, floor, author, postedAt, body, ip, editedBy) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (board, gid, floor) DO UPDATE SET
                  author = excluded.author, postedAt = excluded.postedAt, body = excluded.body,
                  ip = excluded.ip, editedBy = excluded.editedBy
                """,
            arguments: [board, gid, post.floor, post.author, seconds(post.postedAt), post.body, post.ip, post.editedBy])
        try db.execute(
            sql: "DELETE FROM attachment WHERE board = ? AND gid = ? AND floor = ?",
            arguments: [board, gid, post.floor])
        for (position, attachment) in post.attachments.enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO attachment (board, gid, floor, position, name, url, kind, size)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    board, gid, post.floor, position, attachment.name, attachment.url, attachment.kind.rawValue,
                    attachment.size,
                ])
        }
    }

    static func thread(_ row: Row) -> StoredThread {
        StoredThread(
            board: row["board"], gid: row["gid"], title: row["title"], sticky: row["sticky"], marked: row["marked"],
            author: row["author"], postedAt: date(row["postedAt"]), lastReplier: row["lastReplier"],
            lastReplyAt: date(row["lastReplyAt"]), postCount: row["posts"],
            firstPostArchived: row["firstPostArchived"])
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE blob (
                      hash TEXT PRIMARY KEY NOT NULL,
                      size INTEGER NOT NULL,
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
                      baseURL TEXT
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
                      PRIMARY KEY (board, gid, floor),
                      FOREIGN KEY (board, gid) REFERENCES thread (board, gid)
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
                      fetchedAt INTEGER NOT NULL
                    );
                    """)
        }
        return migrator
    }
}

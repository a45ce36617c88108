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
    /// When things happen: a thread changes, a walk starts, a page fails.
    let clock: ArchiveClock

    /// Opens (or creates) the store at `path` and brings its schema up to date.
    public init(path: String, clock: @escaping ArchiveClock = SystemClock.now) throws(ArchiveError) {
        self.path = path
        self.clock = clock
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        do {
            database = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw .storeUnavailable(path: path, reason: Self.describe(error))
        }
        try StoreSchema.refuseNewer(database, path: path)
        do {
            try StoreSchema.migrator.migrate(database)
            try database.write { try StoreSchema.recordWriter($0) }
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
                        INSERT INTO thread
                          (board, gid, title, replies, sticky, marked, author, postedAt, lastReplier, lastReplyAt, changedAt,
                           originalURL)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (board, gid) DO UPDATE SET originalURL = excluded.originalURL,
                          changedAt = CASE WHEN title IS NOT excluded.title THEN excluded.changedAt ELSE changedAt END,
                          title = excluded.title, replies = excluded.replies, sticky = excluded.sticky,
                          marked = excluded.marked, author = excluded.author, postedAt = excluded.postedAt,
                          lastReplier = excluded.lastReplier, lastReplyAt = excluded.lastReplyAt
                        """,
                    arguments: [
                        page.board, thread.gid, thread.title, thread.replies, thread.sticky, thread.marked,
                        thread.author, Self.seconds(thread.postedAt), thread.lastReplier,
                        Self.seconds(thread.lastReplyAt), Self.seconds(clock()),
                        source.originalThreadURL(board: page.board, gid: thread.gid),
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
            return replies == summary.replies && Self.sameListedTime(last, Self.seconds(summary.lastReplyAt))
        }
    }

    /// Board lists print today's times to the second and older ones as a
    /// date; the same post read on two days must still count as unchanged.
    static func sameListedTime(_ a: Int64, _ b: Int64) -> Bool {
        if a == b { return true }
        let day: Int64 = 86_400
        let localA = a + Int64(BeijingTime.offsetSeconds)
        let localB = b + Int64(BeijingTime.offsetSeconds)
        let eitherIsMidnight = localA % day == 0 || localB % day == 0
        return eitherIsMidnight && localA / day == localB / day
    }

    /// How many list pages the board had when last walked.
    public func boardPageCount(board: String) throws(ArchiveError) -> Int? {
        try read { db in try Int.fetchOne(db, sql: "SELECT pages FROM board WHERE name = ?", arguments: [board]) }
    }

    /// Threads the store knows on a board, archived or not.
    public func threadCount(board: String) throws(ArchiveError) -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM thread WHERE board = ?", arguments: [board]) ?? 0
        }
    }

    /// Whether a finished walk ever read the board's list to its end: only
    /// then may a later walk stop early at threads it has seen before.
    public func listCovered(board: String) throws(ArchiveError) -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT coveredAll FROM crawl WHERE board = ?", arguments: [board]) ?? false
        }
    }

    /// Threads whose listing differs from what was archived (new, grown,
    /// or failed before), newest activity first, with how many posts the
    /// store already has of each.
    public func threadsNeedingFetch(board: String) throws(ArchiveError) -> [(
        summary: ThreadSummary, archivedPosts: Int
    )] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT t.gid, t.title, t.replies, t.sticky, t.marked, t.author, t.postedAt, t.lastReplier,
                      t.lastReplyAt, t.archivedReplies, t.archivedLastReplyAt,
                      (SELECT count(*) FROM post p WHERE p.board = t.board AND p.gid = t.gid) AS archivedPosts
                    FROM thread t WHERE t.board = ?
                    ORDER BY t.lastReplyAt DESC, t.gid DESC
                    """,
                arguments: [board]
            ).compactMap { row in
                let replies: Int = row["replies"]
                let last: Int64 = row["lastReplyAt"]
                if let archived: Int = row["archivedReplies"], let archivedLast: Int64 = row["archivedLastReplyAt"],
                    archived == replies, Self.sameListedTime(archivedLast, last)
                {
                    return nil
                }
                let summary = ThreadSummary(
                    gid: row["gid"], title: row["title"], replies: replies, sticky: row["sticky"],
                    marked: row["marked"],
                    author: row["author"], postedAt: Self.date(row["postedAt"]), lastReplier: row["lastReplier"],
                    lastReplyAt: Self.date(last))
                return (summary, row["archivedPosts"])
            }
        }
    }

    /// Stores pages of one thread at once, so a thread's new pages are
    /// either all stored or not at all. With `summary`, marks the thread
    /// archived as the board listed it; posts stored before are kept.
    public func saveThread(
        board: String, pages: [ThreadPage], summary: ThreadSummary?, originalURL: String? = nil
    ) throws(ArchiveError) {
        guard let first = pages.first else { return }
        let now = Self.seconds(clock())
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO thread
                      (board, gid, title, replies, sticky, marked, author, postedAt, lastReplier, lastReplyAt, originalURL)
                    VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?)
                    ON CONFLICT (board, gid) DO UPDATE SET originalURL = coalesce(excluded.originalURL, originalURL),
                      changedAt = CASE WHEN title IS NOT excluded.title THEN \(now) ELSE changedAt END,
                      title = excluded.title
                    """,
                arguments: [
                    board, first.gid, first.title, max(0, pages.reduce(0) { $0 + $1.posts.count } - 1),
                    first.posts.first?.author, Self.seconds(first.posts.first?.postedAt ?? clock()),
                    pages.last?.posts.last?.author, Self.seconds(pages.last?.posts.last?.postedAt ?? clock()),
                    originalURL,
                ])
            var changed = false
            for page in pages {
                for post in page.posts {
                    changed = try Self.upsertPost(db, board: board, gid: first.gid, post: post) || changed
                }
            }
            try db.execute(
                sql: "UPDATE thread SET pages = ? WHERE board = ? AND gid = ?",
                arguments: [pages.map(\.page.total).max(), board, first.gid])
            if changed {
                try db.execute(
                    sql: "UPDATE thread SET changedAt = ? WHERE board = ? AND gid = ?",
                    arguments: [now, board, first.gid])
            }
            if let summary {
                try db.execute(
                    sql: """
                        UPDATE thread SET archivedReplies = ?, archivedLastReplyAt = ? WHERE board = ? AND gid = ?
                        """,
                    arguments: [summary.replies, Self.seconds(summary.lastReplyAt), board, first.gid])
            }
        }
    }

    /// The floors of a thread the store holds.
    public func archivedFloors(board: String, gid: Int) throws(ArchiveError) -> Set<Int> {
        try read { db in
            Set(
                try Int.fetchAll(
                    db, sql: "SELECT floor FROM post WHERE board = ? AND gid = ?", arguments: [board, gid]))
        }
    }

    // MARK: Crawl state

    /// Starts (or resumes) walking a board's list. Returns how many list
    /// pages an unfinished walk begun within `resumeWindow` had already
    /// stored; 0 starts afresh.
    public func beginWalk(board: String, resumeWindow: TimeInterval) throws(ArchiveError) -> Int {
        let now = clock()
        var walked = 0
        try write { db in
            if let row = try Row.fetchOne(
                db, sql: "SELECT startedAt, walkedPages, finishedAt FROM crawl WHERE board = ?", arguments: [board]),
                (row["finishedAt"] as Int64?) == nil,
                Double(Self.seconds(now) - (row["startedAt"] as Int64)) < resumeWindow
            {
                walked = row["walkedPages"]
                return
            }
            try db.execute(
                sql: """
                    INSERT INTO crawl (board, startedAt, walkedPages, finishedAt) VALUES (?, ?, 0, NULL)
                    ON CONFLICT (board) DO UPDATE SET startedAt = excluded.startedAt, walkedPages = 0, finishedAt = NULL
                    """,
                arguments: [board, Self.seconds(now)])
        }
        return walked
    }

    /// Records that list page `page` of the walk is stored.
    public func markWalked(board: String, page: Int) throws(ArchiveError) {
        try write { db in
            try db.execute(
                sql: "UPDATE crawl SET walkedPages = max(walkedPages, ?) WHERE board = ?", arguments: [page, board])
        }
    }

    /// Ends the walk; `reachedEnd` says the list was read to its last page
    /// (or to threads a complete earlier walk had read).
    public func finishWalk(board: String, reachedEnd: Bool) throws(ArchiveError) {
        try write { db in
            try db.execute(
                sql: "UPDATE crawl SET finishedAt = ?, coveredAll = max(coveredAll, ?) WHERE board = ?",
                arguments: [Self.seconds(clock()), reachedEnd, board])
        }
    }

    /// Remembers a page that failed, for the next run's report.
    /// `kind` is `failed` for a page that could not be had, `partial` for a
    /// page stored with posts the parser could only partly read.
    public func recordFailure(url: String, board: String?, reason: String, kind: String = "failed")
        throws(ArchiveError)
    {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO failure (url, board, reason, attempts, lastTriedAt, kind) VALUES (?, ?, ?, 1, ?, ?)
                    ON CONFLICT (url) DO UPDATE SET reason = excluded.reason, attempts = attempts + 1,
                      lastTriedAt = excluded.lastTriedAt, kind = excluded.kind
                    """,
                arguments: [url, board, reason, Self.seconds(clock()), kind])
        }
    }

    /// Forgets the failures of `url` and of every page of it (`url?p=N`).
    public func clearFailure(url: String) throws(ArchiveError) {
        let base = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        try write { db in
            try db.execute(
                sql: "DELETE FROM failure WHERE url = ? OR url = ? OR substr(url, 1, ?) = ?",
                arguments: [url, base, base.count + 1, base + "?"])
        }
    }

    /// Pages that failed and have not succeeded since: `(url, reason, attempts)`.
    public func failures() throws(ArchiveError) -> [(url: String, reason: String, attempts: Int)] {
        try failureList().map { ($0.url, $0.reason, $0.attempts) }
    }

    /// The same, with each failure's kind: `failed` or `partial`.
    public func failureList() throws(ArchiveError) -> [(url: String, reason: String, attempts: Int, kind: String)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT url, reason, attempts, kind FROM failure ORDER BY url").map {
                ($0["url"], $0["reason"], $0["attempts"], $0["kind"])
            }
        }
    }

    // MARK: Captures

    /// The newest capture of `url`, for conditional requests and re-parsing.
    public func latestCapture(url: String) throws(ArchiveError) -> HTTPResponse? {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT fetchedAt, status, headers, hash FROM capture WHERE url = ? ORDER BY id DESC LIMIT 1",
                    arguments: [url]),
                let body = try Self.blobBytes(db, hash: row["hash"])
            else { return nil }
            return Self.response(url: url, row: row, body: body)
        }
    }

    /// Calls `body` with the newest successful capture of every URL whose
    /// path contains `marker`, in URL order, one at a time (the store is
    /// not read into memory whole).
    public func forEachLatestCapture(containing marker: String, _ body: (HTTPResponse) throws(ArchiveError) -> Void)
        throws(ArchiveError)
    {
        let urls: [String] = try read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT DISTINCT url FROM capture WHERE instr(url, ?) > 0 AND status BETWEEN 200 AND 299 ORDER BY url",
                arguments: [marker])
        }
        for url in urls {
            let response: HTTPResponse? = try read { db in
                guard
                    let row = try Row.fetchOne(
                        db,
                        sql: """
                            SELECT fetchedAt, status, headers, hash FROM capture
                            WHERE url = ? AND status BETWEEN 200 AND 299 ORDER BY id DESC LIMIT 1
                            """,
                        arguments: [url]),
                    let bytes = try Self.blobBytes(db, hash: row["hash"])
                else { return nil }
                return Self.response(url: url, row: row, body: bytes)
            }
            if let response { try body(response) }
        }
    }

    /// The bytes stored under a content hash.
    public func blob(hash: String) throws(ArchiveError) -> Data? {
        try read { db in try Self.blobBytes(db, hash: hash) }
    }

    private static func response(url: String, row: Row, body: Data) -> HTTPResponse {
        let text: String = row["headers"]
        let headers = text.split(separator: "\n").compactMap { line -> (name: String, value: String)? in
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        return HTTPResponse(
            url: url, status: row["status"], headers: headers, body: body, fetchedAt: date(row["fetchedAt"]))
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

    /// Stores an attachment's bytes under their hash and links the URL to
    /// them. `variant` is `original`, or the thumbnail size kept when the
    /// original could not be had.
    public func saveMedia(url: String, response: HTTPResponse, variant: String = "original") throws(ArchiveError) {
        let hash = SHA256.hex(response.body)
        let mime = response.header("Content-Type")?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        try write { db in
            try Self.insertBlob(db, hash: hash, bytes: response.body)
            try db.execute(
                sql: """
                    INSERT INTO media (url, hash, mime, variant, fetchedAt) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (url) DO UPDATE SET hash = excluded.hash, mime = excluded.mime,
                      variant = excluded.variant, fetchedAt = excluded.fetchedAt
                    """,
                arguments: [url, hash, mime, variant, Self.seconds(response.fetchedAt)])
        }
    }

    // MARK: Details

    func write(_ body: (Database) throws -> Void) throws(ArchiveError) {
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

    /// Stores bytes once under their hash; text is deflated when that saves space.
    private static func insertBlob(_ db: Database, hash: String, bytes: Data) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM blob WHERE hash = ?", arguments: [hash]) == nil else { return }
        var stored = bytes
        var encoding = "identity"
        if Deflate.isCompressible(bytes), let packed = Deflate.compress(bytes), packed.count < bytes.count {
            stored = packed
            encoding = "deflate"
        }
        try db.execute(
            sql: "INSERT INTO blob (hash, size, encoding, bytes) VALUES (?, ?, ?, ?)",
            arguments: [hash, bytes.count, encoding, stored])
    }

    /// The bytes stored under a content hash, inflated; `nil` if absent.
    static func blobBytes(_ db: Database, hash: String) throws -> Data? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT size, encoding, bytes FROM blob WHERE hash = ?", arguments: [hash])
        else { return nil }
        let bytes: Data = row["bytes"]
        switch row["encoding"] as String {
        case "deflate": return Deflate.decompress(bytes, size: row["size"])
        default: return bytes
        }
    }

    /// Inserts or updates one post and its attachments; returns whether
    /// anything differed from what was stored.
    private static func upsertPost(_ db: Database, board: String, gid: Int, post: Post) throws -> Bool {
        try db.execute(sql: "INSERT INTO user (id) VALUES (?) ON CONFLICT (id) DO NOTHING", arguments: [post.author])
        // The mobile site shows no colours: reading a post there after the
        // desktop site must not wash the colours out of the stored text.
        var body = post.body
        if let stored = try String.fetchOne(
            db, sql: "SELECT body FROM post WHERE board = ? AND gid = ? AND floor = ?",
            arguments: [board, gid, post.floor]),
            stored != body, !body.contains("\u{1B}"), ANSIText.strip(stored) == body
        {
            body = stored
        }
        // Fields only the desktop pages show are kept when the mobile site is read later.
        try db.execute(
            sql: """
                INSERT INTO post (board, gid, floor, author, postedAt, body, ip, editedBy, nick, title, signature, postID, editedAt,
                  parseWarning, rawText)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (board, gid, floor) DO UPDATE SET
                  author = excluded.author, postedAt = excluded.postedAt, body = excluded.body,
                  ip = excluded.ip, editedBy = coalesce(excluded.editedBy, editedBy),
                  nick = coalesce(excluded.nick, nick), title = coalesce(excluded.title, title),
                  signature = coalesce(excluded.signature, signature), postID = coalesce(excluded.postID, postID),
                  editedAt = coalesce(excluded.editedAt, editedAt),
                  parseWarning = excluded.parseWarning, rawText = excluded.rawText
                WHERE author IS NOT excluded.author OR postedAt IS NOT excluded.postedAt OR body IS NOT excluded.body
                  OR ip IS NOT excluded.ip OR editedBy IS NOT coalesce(excluded.editedBy, editedBy)
                  OR nick IS NOT coalesce(excluded.nick, nick) OR title IS NOT coalesce(excluded.title, title)
                  OR signature IS NOT coalesce(excluded.signature, signature)
                  OR postID IS NOT coalesce(excluded.postID, postID) OR editedAt IS NOT coalesce(excluded.editedAt, editedAt)
                  OR parseWarning IS NOT excluded.parseWarning OR rawText IS NOT excluded.rawText
                """,
            arguments: [
                board, gid, post.floor, post.author, seconds(post.postedAt), body, post.ip, post.editedBy, post.nick,
                post.title, post.signature, post.postID, post.editedAt.map(seconds), post.warning, post.rawText,
            ])
        var changed = db.changesCount > 0
        // Likes are shown only by pages that show signatures too.
        if post.signature != nil {
            changed = try replaceLikes(db, board: board, gid: gid, post: post) || changed
        }
        let stored = try Row.fetchAll(
            db,
            sql:
                "SELECT name, url, kind, size FROM attachment WHERE board = ? AND gid = ? AND floor = ? ORDER BY position",
            arguments: [board, gid, post.floor]
        ).map {
            Attachment(
                name: $0["name"], url: $0["url"], kind: Attachment.Kind(rawValue: $0["kind"]) ?? .file, size: $0["size"]
            )
        }
        guard stored != post.attachments else { return changed }
        changed = true
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
        return changed
    }

    private static func replaceLikes(_ db: Database, board: String, gid: Int, post: Post) throws -> Bool {
        let stored = try Row.fetchAll(
            db,
            sql:
                "SELECT score, user, message, at FROM post_like WHERE board = ? AND gid = ? AND floor = ? ORDER BY position",
            arguments: [board, gid, post.floor]
        ).map { row -> Like in
            let at: Int64? = row["at"]
            return Like(score: row["score"], user: row["user"], message: row["message"], at: at.map(date))
        }
        guard stored != post.likes else { return false }
        try db.execute(
            sql: "DELETE FROM post_like WHERE board = ? AND gid = ? AND floor = ?", arguments: [board, gid, post.floor])
        for (position, like) in post.likes.enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO post_like (board, gid, floor, position, score, user, message, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    board, gid, post.floor, position, like.score, like.user, like.message, like.at.map(seconds),
                ])
        }
        return true
    }

    /// Records the forum's sections and files the boards the store has under them.
    public func saveSections(_ page: SectionPage) throws(ArchiveError) {
        try write { db in
            for section in page.sections {
                try db.execute(
                    sql: """
                        INSERT INTO section (code, name, parent) VALUES (?, ?, ?)
                        ON CONFLICT (code) DO UPDATE SET name = excluded.name, parent = coalesce(excluded.parent, parent)
                        """,
                    arguments: [section.code, section.name, section.parent])
                for board in section.boards {
                    // The list also names boards in Chinese, which nForum's board pages do not.
                    try db.execute(
                        sql: "UPDATE board SET section = ?, title = coalesce(title, ?) WHERE name = ?",
                        arguments: [section.code, page.boardTitles[board], board])
                }
            }
        }
    }

    static func thread(_ row: Row) -> StoredThread {
        StoredThread(
            board: row["board"], gid: row["gid"], title: row["title"], sticky: row["sticky"], marked: row["marked"],
            author: row["author"], postedAt: date(row["postedAt"]), lastReplier: row["lastReplier"],
            lastReplyAt: date(row["lastReplyAt"]), postCount: row["posts"],
            firstPostArchived: row["firstPostArchived"], changedAt: (row["changedAt"] as Int64?).map(date),
            originalURL: row["originalURL"])
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}

import Foundation
import GRDB

/// The read API the build half sees: what the site builder reads from the
/// store. Everything here is read-only; rows decode as the types in
/// `StoreRows.swift`.
extension ArchiveStore {
    package func boards() throws(ArchiveError) -> [StoredBoard] {
        try read { db in
            try StoredBoard.fetchAll(
                db,
                sql: """
                    SELECT b.name, b.title, b.source, b.baseURL,
                      coalesce(s.threads, 0) AS threads, coalesce(s.posts, 0) AS posts
                    FROM board b LEFT JOIN board_summary s ON s.board = b.name ORDER BY b.name
                    """)
        }
    }

    /// A board's threads, sticky first, then newest activity first. Each
    /// thread's count of posts is read from `thread_summary` (kept by
    /// triggers), not counted from its posts: 3–4 ms for a board of 716
    /// threads instead of 16–25 ms, on the path of every build after a reply.
    package func threads(board: String) throws(ArchiveError) -> [StoredThread] {
        try read { db in
            try StoredThread.fetchAll(
                db,
                sql: """
                    SELECT \(StoredThread.columns(posts: "coalesce(s.posts, 0)"))
                    FROM thread t
                    LEFT JOIN thread_summary s ON s.board = t.board AND s.gid = t.gid
                    \(StoredThread.firstAndLastPosts)
                    WHERE t.board = ?
                    ORDER BY t.sticky DESC, lastReplyAt DESC, t.gid DESC
                    """,
                arguments: [board])
        }
    }

    /// A thread's posts in floor order, with their attachments.
    ///
    /// A build reads every thread this way, so the statements are prepared
    /// once per connection (`cachedStatement`), not once per thread.
    package func posts(board: String, gid: Int) throws(ArchiveError) -> [StoredPost] {
        // Rows read by position from a cursor (one row reused, not a copy
        // each), in the order `StoreRows.swift` decodes them: a column
        // looked up by name is a lowercased key and a dictionary search,
        // per column of every post of every thread a build renders.
        try read { db in
            var attachments: [Int: [StoredAttachment]] = [:]
            let attachmentRows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT a.floor, a.name, a.url, a.kind, a.size, m.hash, m.mime FROM attachment a
                        LEFT JOIN media m ON m.url = a.url
                        WHERE a.board = ? AND a.gid = ? ORDER BY a.floor, a.position
                        """),
                arguments: [board, gid])
            while let row = try attachmentRows.next() {
                attachments[row[0], default: []].append(StoredAttachment(positions: row, from: 1))
            }
            var likes: [Int: [Like]] = [:]
            let likeRows = try Row.fetchCursor(
                db.cachedStatement(
                    sql:
                        "SELECT floor, score, user, message, at FROM post_like WHERE board = ? AND gid = ? ORDER BY floor, position"
                ),
                arguments: [board, gid])
            while let row = try likeRows.next() {
                likes[row[0], default: []].append(Like(positions: row, from: 1))
            }
            var posts: [StoredPost] = []
            let postRows = try Row.fetchCursor(db.cachedStatement(sql: Self.threadPosts), arguments: [board, gid])
            while let row = try postRows.next() { posts.append(StoredPost(positions: row)) }
            if attachments.isEmpty, likes.isEmpty { return posts }
            for index in posts.indices {
                posts[index].attachments = attachments[posts[index].floor] ?? []
                posts[index].likes = likes[posts[index].floor] ?? []
            }
            return posts
        }
    }

    private static let threadPosts = "SELECT \(StoredPost.columns) FROM post WHERE board = ? AND gid = ? ORDER BY floor"

    /// Each thread's first archived post (the lowest floor) with its
    /// attachments (not its likes), as `posts(board:gid:).first` gives it,
    /// in one read and without the other posts: what lists of the whole
    /// archive show of a thread. Threads with no archived post are left out.
    package func openingPosts(_ threads: [BuildChanges.ThreadKey]) throws(ArchiveError)
        -> [BuildChanges.ThreadKey: StoredPost]
    {
        guard !threads.isEmpty else { return [:] }
        // Two statements for all the threads, the keys bound as one JSON
        // array, not two statements a thread: the hot pages' cards (up to
        // 144 a window) took 100,000 instructions a thread read one by one,
        // most of it in GRDB's statement and cursor set-up.
        let keys = Self.jsonArgument(threads.map { [$0.board, String($0.gid)] })
        return try read { db in
            var posts: [BuildChanges.ThreadKey: StoredPost] = [:]
            var floors: [[String]] = []
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        WITH k(board, gid) AS MATERIALIZED (
                          SELECT DISTINCT json_extract(value, '$[0]'), CAST(json_extract(value, '$[1]') AS INTEGER)
                          FROM json_each(?))
                        SELECT \(Self.openingColumns) FROM k JOIN post p
                          ON p.board = k.board AND p.gid = k.gid
                          AND p.floor = (SELECT min(floor) FROM post WHERE board = k.board AND gid = k.gid)
                        """),
                arguments: [keys])
            while let row = try rows.next() {
                let post = StoredPost(positions: row)
                posts[BuildChanges.ThreadKey(board: post.board, gid: post.gid)] = post
                floors.append([post.board, String(post.gid), String(post.floor)])
            }
            guard !floors.isEmpty else { return posts }
            let which = Self.jsonArgument(floors)
            let attachments = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        WITH k(board, gid, floor) AS MATERIALIZED (
                          SELECT json_extract(value, '$[0]'), CAST(json_extract(value, '$[1]') AS INTEGER),
                            CAST(json_extract(value, '$[2]') AS INTEGER)
                          FROM json_each(?))
                        SELECT a.board, a.gid, a.name, a.url, a.kind, a.size, m.hash, m.mime FROM k
                        JOIN attachment a ON a.board = k.board AND a.gid = k.gid AND a.floor = k.floor
                        LEFT JOIN media m ON m.url = a.url
                        ORDER BY a.board, a.gid, a.floor, a.position
                        """),
                arguments: [which])
            while let row = try attachments.next() {
                posts[BuildChanges.ThreadKey(board: row[0], gid: row[1])]?.attachments
                    .append(StoredAttachment(positions: row, from: 2))
            }
            return posts
        }
    }

    /// Rows of strings as one JSON array, a statement's one argument for
    /// many rows (read back by `json_each`). Written here: `JSONEncoder`
    /// took 800,000 instructions a call for a few hundred keys.
    static func jsonArgument(_ rows: [[String]]) -> String {
        var json: [UInt8] = [UInt8(ascii: "[")]
        json.reserveCapacity(rows.count * 32)
        let digits = Array("0123456789abcdef".utf8)
        for (index, row) in rows.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(UInt8(ascii: "["))
            for (column, text) in row.enumerated() {
                if column > 0 { json.append(UInt8(ascii: ",")) }
                json.append(UInt8(ascii: "\""))
                for byte in text.utf8 {
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                        json.append(UInt8(ascii: "\\"))
                        json.append(byte)
                    case 0..<0x20:
                        json.append(contentsOf: Array("\\u00".utf8))
                        json.append(digits[Int(byte >> 4)])
                        json.append(digits[Int(byte & 0x0f)])
                    default:
                        json.append(byte)
                    }
                }
                json.append(UInt8(ascii: "\""))
            }
            json.append(UInt8(ascii: "]"))
        }
        json.append(UInt8(ascii: "]"))
        return String(decoding: json, as: UTF8.self)
    }

    /// `StoredPost.columns` of the post `p`, in its order.
    private static let openingColumns = """
        p.board, p.gid, p.floor, p.author, p.postedAt, p.body, p.ip, p.editedBy, p.nick, p.title, p.signature,
          p.postID, p.editedAt, p.parseWarning, p.rawText, p.forumDeletedAt
        """

    /// Users with a post in a thread that changed at or after `date`: the
    /// users whose pages may read differently since then.
    package func usersWithChanges(since date: Date) throws(ArchiveError) -> Set<String> {
        try read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT p.author FROM thread t JOIN post p ON p.board = t.board AND p.gid = t.gid
                        WHERE t.changedAt >= ?
                        """,
                    arguments: [Self.seconds(date)]))
        }
    }

    /// How many posts each user has in the store.
    package func postCountsByUser() throws(ArchiveError) -> [String: Int] {
        try read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT author, count(*) AS n FROM post GROUP BY author") {
                counts[row["author"]] = row["n"]
            }
            return counts
        }
    }

    /// Every user with at least one archived post.
    package func users() throws(ArchiveError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT author FROM post ORDER BY author") }
    }

    /// How many posts `user` has, and how many of them come before `time`.
    package func postCount(byUser user: String, before time: Date? = nil) throws(ArchiveError) -> Int {
        try read { db in
            // Counted on the index of posts by author and time (v9-build-change-time).
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT count(*) FROM post WHERE author = ? AND postedAt < ?"),
                arguments: [user, time.map(Self.seconds) ?? Int64.max]) ?? 0
        }
    }

    /// Up to `limit` of a user's posts in time order (by board, thread and
    /// floor within a second), skipping the first `offset`: from the oldest,
    /// or from the newest when `newestFirst`.
    ///
    /// `countedFrom`: a post on a floor below it gets its floor as its
    /// `position`, not its count. A floor is never less than the count of
    /// posts before it (floors are distinct and start at 0), so for a caller
    /// that only asks which page of `countedFrom` posts holds it, both give
    /// page 1. The count is a correlated subquery per post: about a third of
    /// the query's SQLite work at 10k posts (callgrind), skipped for most posts.
    package func posts(
        byUser user: String, offset: Int = 0, limit: Int = -1, newestFirst: Bool = false, countedFrom: Int = 0
    ) throws(ArchiveError) -> [StoredUserPost] {
        let direction = newestFirst ? "DESC" : "ASC"
        return try read { db in
            // The index of posts by author and time gives the order, so the
            // skipped posts are only stepped over, never joined or counted.
            // A user's posts jump about the archive, so each row's thread
            // title and count are looked up at random: from `thread_title`
            // (v14), a fraction of the thread table's size, and from the
            // posts' primary key (`sqlite_autoindex_post_1`, which the thread
            // pages read too), not from `post_by_thread`, which SQLite picks
            // unasked. With a page cache a tenth of the 100k store's (as
            // 16 MB is of the 1M store's), a build without the search index read
            // 118,824 pages from the file this way, against 186,667 before
            // (185,483 with the primary key alone, 188,564 with the title
            // index alone).
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT p.board, p.gid, p.floor, p.postedAt, t.title AS threadTitle,
                          CASE WHEN p.floor < ? THEN p.floor ELSE
                            (SELECT count(*) FROM post q INDEXED BY sqlite_autoindex_post_1
                             WHERE q.board = p.board AND q.gid = p.gid AND q.floor < p.floor)
                          END AS position
                        FROM post p INDEXED BY post_by_author_time
                        JOIN thread t INDEXED BY thread_title ON t.board = p.board AND t.gid = p.gid
                        WHERE p.author = ?
                        ORDER BY p.postedAt \(direction), p.board \(direction), p.gid \(direction), p.floor \(direction)
                        LIMIT ? OFFSET ?
                        """),
                arguments: [max(0, countedFrom), user, limit, max(0, offset)])
            var posts: [StoredUserPost] = []
            while let row = try rows.next() { posts.append(StoredUserPost(positions: row)) }
            return posts
        }
    }

    /// Gids of a board's threads that carry at least one attachment.
    package func threadsWithAttachments(board: String) throws(ArchiveError) -> Set<Int> {
        try read { db in
            Set(try Int.fetchAll(db, sql: "SELECT DISTINCT gid FROM attachment WHERE board = ?", arguments: [board]))
        }
    }

    /// The forum's sections (分区) and which section each board is filed
    /// under, when the store records them.
    ///
    /// A nullable read path: a store written before sections were archived
    /// (no `section` table, no `board.section` column) answers no sections
    /// and no filing, and the site then shows every board in one group.
    package func sectionFiling() throws(ArchiveError) -> StoredSectionFiling {
        try read { db in
            var filing = StoredSectionFiling(sections: [], boardSection: [:])
            if try db.tableExists("section") {
                let columns = Set(try db.columns(in: "section").map(\.name))
                if columns.contains("code") {
                    let name = columns.contains("name") ? "name" : "code"
                    let parent = columns.contains("parent") ? "parent" : "NULL"
                    filing.sections = try Row.fetchAll(
                        db, sql: "SELECT code, \(name) AS name, \(parent) AS parent FROM section ORDER BY code"
                    ).map { row in
                        let code: String = row["code"]
                        let name: String? = row["name"]
                        return StoredSection(code: code, name: name ?? code, parent: row["parent"])
                    }
                }
            }
            if try db.columns(in: "board").contains(where: { $0.name == "section" }) {
                for row in try Row.fetchAll(db, sql: "SELECT name, section FROM board WHERE section IS NOT NULL") {
                    filing.boardSection[row["name"]] = row["section"]
                }
            }
            return filing
        }
    }
}

/// A section (分区) of the forum as the store records it.
package struct StoredSection: Sendable, Equatable {
    package var code: String
    package var name: String
    /// The enclosing section's code, for nested sections.
    package var parent: String?
}

/// The sections and the board → section code filing.
package struct StoredSectionFiling: Sendable, Equatable {
    package var sections: [StoredSection]
    package var boardSection: [String: String]
}

extension ArchiveStore {
    /// Threads saved before the store kept original addresses, by board:
    /// read from a partial index (`v8-build-indexes`) that holds only
    /// them, so a build of an archive that has them all reads nothing.
    func threadsWithoutOriginalURL() throws(ArchiveError) -> [String: [Int]] {
        try read { db in
            var gids: [String: [Int]] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT board, gid FROM thread INDEXED BY thread_without_original_url
                    WHERE originalURL IS NULL ORDER BY board, gid
                    """)
            {
                gids[row["board"], default: []].append(row["gid"])
            }
            return gids
        }
    }

    /// Records threads' original addresses where none is recorded yet.
    func setOriginalURLs(board: String, _ urls: [(gid: Int, url: String)]) throws(ArchiveError) {
        try write { db in
            for (gid, url) in urls {
                try db.execute(
                    sql: "UPDATE thread SET originalURL = ? WHERE board = ? AND gid = ? AND originalURL IS NULL",
                    arguments: [url, board, gid])
            }
        }
    }
}

import Foundation
import GRDB

/// Forum writes: boards, threads, posts, likes, attachments and sections,
/// each an upsert keyed by forum ids, with the merge rules kept in the SQL.
extension ArchiveStore {
    /// Records a board page: the board's title and page count and its rows.
    /// `source` names the front end it came from, so the site can link
    /// every thread back to its original address.
    /// With `walked`, the page's place in the board's walk (its number and
    /// address) is recorded in the same transaction (`markWalked`): one
    /// commit a list page walked, and never one without the other.
    ///
    /// Returns what the store held of the listed threads' archived posts
    /// (`ArchivedListings`, read with their rows and not changed by this
    /// write), from which `areArchived` tells which rows are unchanged
    /// without reading them again.
    @discardableResult
    package func saveBoardPage(
        _ page: BoardPage, source: any ForumSource, walked: (page: Int, url: String)? = nil
    ) throws(ArchiveError) -> ArchivedListings {
        var archived = ArchivedListings()
        // A walk begun afresh is written with its first page (`beginWalk`).
        let start = walked == nil ? nil : pendingWalkStart(page.board)
        try write { db in
            if let walked {
                try Self.markWalked(db, board: page.board, page: walked.page, url: walked.url, startedAt: start)
            }
            // Each row compared with the stored one first, and written only
            // when it differs: an update fetch reads dozens of list rows per
            // board that did not change, and a read of a row costs less than
            // an upsert that finds nothing to do (its twelve values made and
            // bound, the insert tried, the conflict's condition evaluated).
            let storedBoard = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT title, pages, source, baseURL FROM board WHERE name = ?"),
                arguments: [page.board])
            let boardValues = [
                page.title.databaseValue, page.page.total.databaseValue, source.id.databaseValue,
                source.baseURL.databaseValue,
            ]
            if let storedBoard, Self.sameBoard(storedBoard, boardValues) {
                // The stored row already says it.
            } else {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO board (name, title, pages, source, baseURL) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (name) DO UPDATE SET title = coalesce(excluded.title, title), pages = excluded.pages,
                          source = excluded.source, baseURL = excluded.baseURL
                        """
                ).execute(arguments: StatementArguments([page.board.databaseValue] + boardValues))
            }
            // The stored rows of the page's threads, read in one statement
            // (a statement run per row cost about 26 K instructions, most of
            // them GRDB making the row), in the order of `values` below.
            var stored: [Int: [DatabaseValue]] = [:]
            try Self.forEachThreadRow(
                db, board: page.board, gids: page.threads.map(\.heading.gid),
                columns:
                    "title, replies, sticky, marked, author, postedAt, lastReplier, lastReplyAt, originalURL, "
                    + "archivedReplies, archivedLastReplyAt"
            ) { gid, row in
                // Column by column: a copy of `row.databaseValues` cost 8 K instructions a row.
                var values: [DatabaseValue] = []
                values.reserveCapacity(9)
                for index in 1...9 {
                    let value: DatabaseValue = row[index]
                    values.append(value)
                }
                stored[gid] = values
                archived.record(gid: gid, replies: row[10], lastReplyAt: row[11])
            }
            // Prepared once per connection: with the triggers on `thread`,
            // compiling this statement costs more than running it (about 30 M
            // instructions, a tenth of a fetch that finds nothing new), so
            // only when a row differs. A row listed as stored is left alone
            // (the WHERE), so the triggers on `thread` do not recompute its
            // summary.
            let upsertSQL = """
                INSERT INTO thread
                  (board, gid, title, replies, sticky, marked, author, postedAt, lastReplier, lastReplyAt, changedAt,
                   originalURL)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (board, gid) DO UPDATE SET originalURL = excluded.originalURL,
                  changedAt = CASE WHEN title IS NOT \(Self.keptTitle) THEN excluded.changedAt ELSE changedAt END,
                  title = \(Self.keptTitle), replies = excluded.replies, sticky = excluded.sticky,
                  marked = excluded.marked, author = excluded.author, postedAt = excluded.postedAt,
                  lastReplier = excluded.lastReplier, lastReplyAt = excluded.lastReplyAt
                WHERE originalURL IS NOT excluded.originalURL OR title IS NOT excluded.title
                  OR replies IS NOT excluded.replies OR sticky IS NOT excluded.sticky
                  OR marked IS NOT excluded.marked OR author IS NOT excluded.author
                  OR postedAt IS NOT excluded.postedAt OR lastReplier IS NOT excluded.lastReplier
                  OR lastReplyAt IS NOT excluded.lastReplyAt
                """
            for thread in page.threads {
                // In the order of `storedThread`'s columns; the heading read
                // directly, not through the row's dynamic members (a key path each).
                let row = thread.heading
                let values = [
                    row.title.databaseValue, thread.replies.databaseValue, row.sticky.databaseValue,
                    row.marked.databaseValue, row.author.databaseValue, Self.seconds(row.postedAt).databaseValue,
                    row.lastReplier.databaseValue, Self.seconds(row.lastReplyAt).databaseValue,
                    source.originalThreadURL(board: page.board, gid: row.gid).databaseValue,
                ]
                if stored[row.gid] == values { continue }
                let changedAt = Self.seconds(clock())
                try db.cachedStatement(sql: upsertSQL).execute(
                    arguments: StatementArguments(
                        [page.board.databaseValue, row.gid.databaseValue] + values[0..<8]
                            + [changedAt.databaseValue, values[8]]))
                // What the row holds now, for a thread listed twice on the page.
                stored[row.gid] = values
            }
            // A row whose count is not exact (`1.5k`) is never archived as
            // listed: its thread's archived count goes, so the fetch after
            // the walk asks for it (`threadsNeedingFetch`), which then knows
            // the count for a hint (an archived time without its count).
            for thread in page.threads where !thread.repliesExact {
                try db.cachedStatement(
                    sql: """
                        UPDATE thread SET archivedReplies = NULL
                        WHERE board = ? AND gid = ? AND archivedReplies IS NOT NULL
                        """
                ).execute(arguments: [page.board, thread.heading.gid])
            }
        }
        walkStartWritten(page.board, start)
        return archived
    }

    /// Whether the stored board row (title, pages, source, baseURL) already
    /// holds `values` as the upsert would leave them (a page without a
    /// title keeps the stored one).
    private static func sameBoard(_ stored: Row, _ values: [DatabaseValue]) -> Bool {
        let storedValues = Array(stored.databaseValues)
        guard storedValues.count == 4, values.count == 4 else { return false }
        return (values[0].isNull || storedValues[0] == values[0]) && storedValues[1...] == values[1...]
    }

    /// Calls `each` with the gid and the row (`gid`, then `columns`) of every
    /// stored thread of `board` among `gids`, in no particular order, through
    /// one statement per 500 gids (prepared once per connection for each
    /// count of gids). A list page's rows are read so, not one statement run
    /// per row: GRDB makes a row (its column names lowercased, into a
    /// dictionary) for every run of a statement, about 26 K instructions
    /// with the lookup, against about 8 K for the lookup alone.
    static func forEachThreadRow(
        _ db: Database, board: String, gids: [Int], columns: String, _ each: (Int, Row) throws -> Void
    ) throws {
        try forEachRunOfGids(board: board, gids) { marks, arguments in
            let statement = try db.cachedStatement(
                sql: "SELECT gid, \(columns) FROM thread WHERE board = ? AND gid IN (\(marks))")
            let rows = try Row.fetchCursor(statement, arguments: arguments)
            while let row = try rows.next() {
                try each(row[0], row)
            }
        }
    }

    /// `gids` in runs of up to 500, for a statement `… WHERE board = ? AND
    /// gid IN (marks)`: each run's placeholders (`?, ?, …`) and its
    /// arguments, the board first.
    static func forEachRunOfGids(
        board: String, _ gids: [Int], _ body: (_ marks: String, _ arguments: StatementArguments) throws -> Void
    ) rethrows {
        var start = 0
        while start < gids.count {
            let chunk = gids[start..<min(gids.count, start + 500)]
            start += chunk.count
            var arguments = [board.databaseValue]
            arguments.reserveCapacity(chunk.count + 1)
            for gid in chunk { arguments.append(gid.databaseValue) }
            try body("?" + String(repeating: ", ?", count: chunk.count - 1), StatementArguments(arguments))
        }
    }

    /// Stores pages of one thread at once, so a thread's new pages are
    /// either all stored or not at all. With `summary`, marks the thread
    /// archived as the board listed it; posts stored before are kept.
    ///
    /// Posts keep the floors they were archived at (`PostAlignment`): a
    /// reply the forum deleted, moving every later one up, stays, marked as
    /// deleted by the forum. Returns what was kept over what the pages say,
    /// a line each (`floor 3: …`), for the run to tell.
    @discardableResult
    package func saveThread(
        board: String, pages: [ThreadPage], summary: ThreadSummary?, originalURL: String? = nil
    ) throws(ArchiveError) -> [String] {
        guard let first = pages.first else { return [] }
        let now = Self.seconds(clock())
        var notes: [String] = []
        try write { db in
            notes = []
            // Each statement prepared once per connection, the time as an
            // argument: with the triggers on `thread`, compiling one costs
            // more than running it, and a fetch stores thread after thread.
            try db.cachedStatement(
                sql: """
                    INSERT INTO thread
                      (board, gid, title, replies, sticky, marked, author, postedAt, lastReplier, lastReplyAt, originalURL)
                    VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?)
                    ON CONFLICT (board, gid) DO UPDATE SET originalURL = coalesce(excluded.originalURL, originalURL),
                      changedAt = CASE WHEN title IS NOT \(Self.keptTitle) THEN ? ELSE changedAt END,
                      title = \(Self.keptTitle)
                    """
            ).execute(
                arguments: [
                    board, first.gid, first.title, max(0, pages.reduce(0) { $0 + $1.posts.count } - 1),
                    first.posts.first?.author, Self.seconds(first.posts.first?.postedAt ?? clock()),
                    pages.last?.posts.last?.author, Self.seconds(pages.last?.posts.last?.postedAt ?? clock()),
                    originalURL, now,
                ])
            var posts = pages.flatMap(\.posts)
            var changed = try Self.placePosts(
                &posts, db, board: board, gid: first.gid, pages: pages, summary: summary, now: now, notes: &notes)
            for post in posts {
                changed =
                    try Self.upsertPost(db, board: board, gid: first.gid, post: post, now: now, notes: &notes)
                    || changed
            }
            try db.cachedStatement(sql: "UPDATE thread SET pages = ? WHERE board = ? AND gid = ?")
                .execute(arguments: [pages.map(\.page.total).max(), board, first.gid])
            if changed {
                try db.cachedStatement(sql: "UPDATE thread SET changedAt = ? WHERE board = ? AND gid = ?")
                    .execute(arguments: [now, board, first.gid])
            }
            // Archived as listed, unless the row's count is not exact: then
            // no count is recorded, and the thread is asked for again at the
            // next fetch (`threadsNeedingFetch`), as `1.5k` may hide new replies.
            if let summary {
                try db.cachedStatement(
                    sql: "UPDATE thread SET archivedReplies = ?, archivedLastReplyAt = ? WHERE board = ? AND gid = ?"
                ).execute(arguments: [
                    summary.repliesExact ? summary.replies : nil, Self.seconds(summary.lastReplyAt), board, first.gid,
                ])
            }
        }
        return notes
    }

    /// A thread's title as an upsert of `thread` writes it: the new one,
    /// unless it is blank where a title was archived (a forum glitch, or a
    /// page cut short). A title that changes is kept in
    /// `thread_title_version` first (`v19-thread-title-versions`).
    static let keptTitle =
        """
        CASE WHEN trim(excluded.title, char(32, 9, 10, 13, 12288)) = '' AND trim(title, char(32, 9, 10, 13, 12288)) != ''
        THEN title ELSE excluded.title END
        """

    /// Gives `posts` (a thread's pages' posts, in order) the floors they
    /// were archived at, and marks the archived posts that the pages pass
    /// over as deleted by the forum (`PostAlignment`); returns whether it
    /// marked any.
    ///
    /// Posts are marked only by a run that fetched the pages now
    /// (`summary`), not by `reparse`, whose pages' newest captures may come
    /// from different runs; and only when the pages end where the board's
    /// row says the thread does (a pager that could not be read says
    /// "page 1 of 1"; a post deleted between two pages' fetches skips one).
    /// When none of the posts is an archived one (a parser that reads them
    /// otherwise now), they keep the forum's places, except over a post
    /// marked deleted, which no post of another place is written over.
    static func placePosts(
        _ posts: inout [Post], _ db: Database, board: String, gid: Int, pages: [ThreadPage], summary: ThreadSummary?,
        now: Int64, notes: inout [String]
    ) throws -> Bool {
        let archived = try archivedPosts(db, board: board, gid: gid)
        guard !archived.isEmpty else { return false }
        let listed = posts.map(PostAlignment.Listed.init)
        // The pages agree with the board's row: they end where it says the
        // thread ends. A post deleted between the fetches of two pages moves
        // another across them, unread; the pages then end a place short of
        // the row fetched before, and nothing is marked.
        let agree =
            summary.map { $0.repliesExact && (posts.last?.floor ?? -1) == $0.replies } ?? false
            && (pages.last.map { $0.page.current >= $0.page.total } ?? false)
        guard
            let placement = PostAlignment.place(
                archived: archived, listed: listed, fromStart: pages.first?.page.current == 1, toEnd: agree)
        else {
            let deleted = Set(archived.filter(\.deleted).map(\.floor))
            let kept = posts.filter { deleted.contains($0.floor) }.map(\.floor)
            if !kept.isEmpty {
                posts.removeAll { deleted.contains($0.floor) }
                let floors = kept.map(String.init).joined(separator: ", ")
                notes.append("floor \(floors): the post archived there, deleted by the forum, is kept")
            }
            return false
        }
        for index in posts.indices { posts[index].floor = placement.floors[index] }
        guard agree, !placement.gone.isEmpty else { return false }
        let mark = try db.cachedStatement(
            sql:
                "UPDATE post SET forumDeletedAt = ? WHERE board = ? AND gid = ? AND floor = ? AND forumDeletedAt IS NULL"
        )
        for floor in placement.gone {
            try mark.execute(arguments: [now, board, gid, floor])
        }
        let floors = placement.gone.map(String.init).joined(separator: ", ")
        notes.append("floor \(floors): no longer on the forum; kept, marked as deleted by the forum")
        return true
    }

    /// Inserts or updates one post and its attachments; returns whether
    /// anything differed from what was stored. A post read only in part
    /// never replaces one archived whole, and an empty body never replaces
    /// archived text: what is kept is said in `notes`.
    static func upsertPost(
        _ db: Database, board: String, gid: Int, post: Post, now: Int64, notes: inout [String]
    ) throws -> Bool {
        // Every statement here runs for every post: each is prepared once per connection.
        try db.cachedStatement(sql: "INSERT INTO user (id) VALUES (?) ON CONFLICT (id) DO NOTHING").execute(
            arguments: [post.author])
        var post = post
        let storedRow = try Row.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT body, parseWarning FROM post WHERE board = ? AND gid = ? AND floor = ?"
            ),
            arguments: [board, gid, post.floor])
        let storedBody: String? = storedRow?["body"]
        // A post the forum replaced by a deletion notice stays as archived,
        // every field of it, attachments and likes too: only when the forum
        // was seen to delete it is new.
        if post.deletedByForum, storedRow != nil {
            try db.cachedStatement(
                sql: """
                    UPDATE post SET forumDeletedAt = ? WHERE board = ? AND gid = ? AND floor = ?
                      AND forumDeletedAt IS NULL
                    """
            ).execute(arguments: [now, board, gid, post.floor])
            return db.changesCount > 0
        }
        if let storedRow, post.warning != nil, (storedRow["parseWarning"] as String?) == nil {
            notes.append("floor \(post.floor): read only in part; the post archived whole is kept")
            return false
        }
        // A post shown empty keeps its archived attachments and likes with its text.
        var keepsItsFiles = false
        if let storedBody, post.body.unicodeScalars.allSatisfy(\.isBlankOrNewline),
            !storedBody.unicodeScalars.allSatisfy(\.isBlankOrNewline)
        {
            notes.append("floor \(post.floor): the forum shows it empty now; the archived text is kept")
            post.body = storedBody
            keepsItsFiles = true
        }
        // The mobile site shows no colours: reading a post there after the
        // desktop site must not wash the colours out of the stored text.
        var body = post.body
        if let storedBody, storedBody != body, !body.contains("\u{1B}"), ANSIText.strip(storedBody) == body {
            body = storedBody
        }
        // A post listed again (not a notice) is not deleted, if it was marked.
        try db.cachedStatement(
            sql: """
                UPDATE post SET forumDeletedAt = NULL WHERE board = ? AND gid = ? AND floor = ?
                  AND forumDeletedAt IS NOT NULL
                """
        ).execute(arguments: [board, gid, post.floor])
        let deletionChanged = db.changesCount > 0
        // Fields only the desktop pages show are kept when the mobile site is read later.
        try db.cachedStatement(
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
                """
        ).execute(
            arguments: [
                board, gid, post.floor, post.author, seconds(post.postedAt), body, post.ip, post.editedBy, post.nick,
                post.title, post.signature, post.postID, post.editedAt.map(seconds), post.warning, post.rawText,
            ])
        var changed = db.changesCount > 0 || deletionChanged
        guard !keepsItsFiles else { return changed }
        // Likes are shown only by pages that show signatures too.
        if post.signature != nil {
            changed = try replaceLikes(db, board: board, gid: gid, post: post, now: now) || changed
        }
        let stored = try Attachment.fetchAll(
            db.cachedStatement(
                sql:
                    "SELECT name, url, kind, size FROM attachment WHERE board = ? AND gid = ? AND floor = ? ORDER BY position"
            ),
            arguments: [board, gid, post.floor])
        guard stored != post.attachments else { return changed }
        changed = true
        func values(_ file: Attachment) -> [(any DatabaseValueConvertible)?] {
            [file.name, file.url, file.kind.rawValue, file.size]
        }
        try replaceRows(
            db, table: "attachment", columns: ["name", "url", "kind", "size"], board: board, gid: gid,
            floor: post.floor, rows: post.attachments.map(values),
            removed: stored.filter { !post.attachments.contains($0) }.map(values), now: now)
        return changed
    }

    static func replaceLikes(_ db: Database, board: String, gid: Int, post: Post, now: Int64) throws -> Bool {
        let stored = try Like.fetchAll(
            db.cachedStatement(
                sql:
                    "SELECT score, user, message, at FROM post_like WHERE board = ? AND gid = ? AND floor = ? ORDER BY position"
            ),
            arguments: [board, gid, post.floor])
        guard stored != post.likes else { return false }
        func values(_ like: Like) -> [(any DatabaseValueConvertible)?] {
            [like.score, like.user, like.message, like.at.map(seconds)]
        }
        try replaceRows(
            db, table: "post_like", columns: ["score", "user", "message", "at"], board: board, gid: gid,
            floor: post.floor, rows: post.likes.map(values),
            removed: stored.filter { !post.likes.contains($0) }.map(values), now: now)
        return true
    }

    /// Replaces a post's rows in `table` (its attachments or its likes)
    /// with `rows`, each the values of `columns`, numbered by position.
    /// The `removed` ones (no longer on the forum's page) are kept first in
    /// `table_removed`, with when they were removed
    /// (`v20-removed-attachments-and-likes`), as a post's earlier texts are
    /// in `post_version`.
    private static func replaceRows(
        _ db: Database, table: String, columns: [String], board: String, gid: Int, floor: Int,
        rows: [[(any DatabaseValueConvertible)?]], removed: [[(any DatabaseValueConvertible)?]], now: Int64
    ) throws {
        if !removed.isEmpty {
            let names = ["board", "gid", "floor"] + columns + ["removedAt"]
            let keep = try db.makeStatement(
                sql:
                    "INSERT INTO \(table)_removed (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
            )
            for values in removed {
                let key: [(any DatabaseValueConvertible)?] = [board, gid, floor]
                try keep.execute(arguments: StatementArguments(key + values + [now]))
            }
        }
        try db.execute(
            sql: "DELETE FROM \(table) WHERE board = ? AND gid = ? AND floor = ?", arguments: [board, gid, floor])
        let names = ["board", "gid", "floor", "position"] + columns
        let insert = try db.makeStatement(
            sql:
                "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        )
        for (position, values) in rows.enumerated() {
            let key: [(any DatabaseValueConvertible)?] = [board, gid, floor, position]
            try insert.execute(arguments: StatementArguments(key + values))
        }
    }

    /// Records the forum's sections and files the boards the store has under them.
    package func saveSections(_ page: SectionPage) throws(ArchiveError) {
        try write { db in
            // Each statement prepared once, not once a section or board:
            // every update fetch files them again.
            let saveSection = try db.cachedStatement(
                sql: """
                    INSERT INTO section (code, name, parent) VALUES (?, ?, ?)
                    ON CONFLICT (code) DO UPDATE SET name = excluded.name, parent = coalesce(excluded.parent, parent)
                    """)
            // The list also names boards in Chinese, which nForum's board pages do not.
            let fileBoard = try db.cachedStatement(
                sql: "UPDATE board SET section = ?, title = coalesce(title, ?) WHERE name = ?")
            for section in page.sections {
                try saveSection.execute(arguments: [section.code, section.name, section.parent])
                for board in section.boards {
                    try fileBoard.execute(arguments: [section.code, page.boardTitles[board], board])
                }
            }
        }
    }
}

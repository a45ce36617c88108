import Foundation
import GRDB

// Each kind of row is decoded here, once, by column name; the queries
// select these columns (under these names) and fetch the type.

extension StoredBoard: FetchableRecord {
    /// Columns: name, title, source, baseURL, threads, posts.
    package init(row: Row) {
        self.init(
            name: row["name"], title: row["title"], source: row["source"], baseURL: row["baseURL"],
            threadCount: row["threads"], postCount: row["posts"])
    }
}

extension StoredThread: FetchableRecord {
    /// Columns, read by position: board, gid, title, sticky, marked,
    /// author, postedAt, lastReplier, lastReplyAt, posts,
    /// firstPostArchived, changedAt, originalURL (`columns(posts:)`, the
    /// select list of every query that reads threads). By name, each
    /// column was a lowercased key and a search per row: 13.5 M
    /// instructions of a 320 M build after one reply at 100k.
    package init(row: Row) {
        self.init(
            board: row[0],
            heading: ThreadHeading(
                gid: row[1], title: row[2], sticky: row[3], marked: row[4], author: row[5],
                postedAt: ArchiveStore.date(row[6]), lastReplier: row[7], lastReplyAt: ArchiveStore.date(row[8])),
            postCount: row[9], firstPostArchived: row[10], changedAt: (row[11] as Int64?).map(ArchiveStore.date),
            originalURL: row[12])
    }

    /// The select list of the columns above, over `thread t` joined with
    /// its first post `f` and last post `l`, the post count being `posts`
    /// (an SQL expression): one list for every query that reads threads.
    static func columns(posts: String) -> String {
        """
        t.board, t.gid, t.title, t.sticky, t.marked,
          coalesce(f.author, t.author) AS author,
          coalesce(f.postedAt, t.postedAt) AS postedAt,
          coalesce(l.author, t.lastReplier) AS lastReplier,
          coalesce(l.postedAt, t.lastReplyAt) AS lastReplyAt,
          \(posts) AS posts, f.floor IS NOT NULL AS firstPostArchived, t.changedAt, t.originalURL
        """
    }

    /// The joins that give `columns(posts:)` its `f` and `l`: the
    /// thread's first and last posts, from `post_by_thread`.
    static let firstAndLastPosts = """
        LEFT JOIN post f INDEXED BY post_by_thread ON f.board = t.board AND f.gid = t.gid AND f.floor = 0
        LEFT JOIN post l INDEXED BY post_by_thread ON l.board = t.board AND l.gid = t.gid AND l.floor =
          (SELECT max(floor) FROM post WHERE board = t.board AND gid = t.gid)
        """
}

extension StoredPost: FetchableRecord {
    /// Columns: board, gid, floor, author, postedAt, body, and as far as
    /// selected ip, editedBy, nick, title, signature, postID, editedAt,
    /// parseWarning, rawText, forumDeletedAt. Attachments and likes come from their own rows.
    package init(row: Row) {
        self.init(
            board: row["board"], gid: row["gid"], floor: row["floor"], author: row["author"],
            postedAt: ArchiveStore.date(row["postedAt"]), body: row["body"], ip: row["ip"], editedBy: row["editedBy"],
            attachments: [], nick: row["nick"], title: row["title"], signature: row["signature"],
            postID: row["postID"], editedAt: (row["editedAt"] as Int64?).map(ArchiveStore.date),
            warning: row["parseWarning"], rawText: row["rawText"],
            forumDeletedAt: (row["forumDeletedAt"] as Int64?).map(ArchiveStore.date))
    }
}

extension StoredPost {
    /// Every column `init(positions:)` reads, in its order.
    static let columns = """
        board, gid, floor, author, postedAt, body, ip, editedBy, nick, title, signature, postID,
          editedAt, parseWarning, rawText, forumDeletedAt
        """

    /// The same post as `init(row:)` decodes, from a row of `columns` read
    /// by position (no column looked up by name).
    init(positions row: Row) {
        self.init(
            board: row[0], gid: row[1], floor: row[2], author: row[3], postedAt: ArchiveStore.date(row[4]),
            body: row[5], ip: row[6], editedBy: row[7], attachments: [], nick: row[8], title: row[9],
            signature: row[10], postID: row[11], editedAt: (row[12] as Int64?).map(ArchiveStore.date),
            warning: row[13], rawText: row[14], forumDeletedAt: (row[15] as Int64?).map(ArchiveStore.date))
    }
}

extension StoredUserPost: FetchableRecord {
    /// Columns: board, gid, floor, position, threadTitle, postedAt.
    package init(row: Row) {
        self.init(
            board: row["board"], gid: row["gid"], floor: row["floor"], position: row["position"],
            threadTitle: row["threadTitle"], postedAt: ArchiveStore.date(row["postedAt"]))
    }

    /// The same, from the columns board, gid, floor, postedAt, threadTitle,
    /// position read by position: a column asked by name is a lowercased
    /// key and a dictionary search, about 5,700 instructions a row here.
    init(positions row: Row) {
        self.init(
            board: row[0], gid: row[1], floor: row[2], position: row[5], threadTitle: row[4],
            postedAt: ArchiveStore.date(row[3]))
    }
}

extension StoredAttachment: FetchableRecord {
    /// Columns: name, url, kind, size, hash, mime.
    package init(row: Row) {
        self.init(
            name: row["name"], url: row["url"], kind: Attachment.Kind(rawValue: row["kind"]) ?? .file,
            size: row["size"], hash: row["hash"], mime: row["mime"])
    }
}

extension StoredAttachment {
    /// The same as `init(row:)`, from the columns name, url, kind, size,
    /// hash, mime at `start` and on, read by position.
    init(positions row: Row, from start: Int) {
        self.init(
            name: row[start], url: row[start + 1], kind: Attachment.Kind(rawValue: row[start + 2]) ?? .file,
            size: row[start + 3], hash: row[start + 4], mime: row[start + 5])
    }
}

extension Attachment: FetchableRecord {
    /// Columns: name, url, kind, size.
    package init(row: Row) {
        self.init(name: row["name"], url: row["url"], kind: Kind(rawValue: row["kind"]) ?? .file, size: row["size"])
    }
}

extension Like: FetchableRecord {
    /// Columns: score, user, message, at.
    package init(row: Row) {
        self.init(
            score: row["score"], user: row["user"], message: row["message"],
            at: (row["at"] as Int64?).map(ArchiveStore.date))
    }
}

extension Like {
    /// The same as `init(row:)`, from the columns score, user, message, at
    /// at `start` and on, read by position.
    init(positions row: Row, from start: Int) {
        self.init(
            score: row[start], user: row[start + 1], message: row[start + 2],
            at: (row[start + 3] as Int64?).map(ArchiveStore.date))
    }
}

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
    /// Columns: board, gid, title, sticky, marked, author, postedAt,
    /// lastReplier, lastReplyAt, posts, firstPostArchived, changedAt, originalURL.
    package init(row: Row) {
        self.init(
            board: row["board"], gid: row["gid"], title: row["title"], sticky: row["sticky"], marked: row["marked"],
            author: row["author"], postedAt: ArchiveStore.date(row["postedAt"]), lastReplier: row["lastReplier"],
            lastReplyAt: ArchiveStore.date(row["lastReplyAt"]), postCount: row["posts"],
            firstPostArchived: row["firstPostArchived"],
            changedAt: (row["changedAt"] as Int64?).map(ArchiveStore.date), originalURL: row["originalURL"])
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

import BBSArchive
import Foundation
import GRDB

/// How many rows of each kind the store holds.
package struct StoreCounts: Sendable, Equatable {
    package var boards: Int
    package var threads: Int
    package var posts: Int
    package var users: Int
    package var attachments: Int
    package var media: Int
    package var captures: Int
    package var blobs: Int

    package init(
        boards: Int, threads: Int, posts: Int, users: Int, attachments: Int, media: Int, captures: Int, blobs: Int
    ) {
        self.boards = boards
        self.threads = threads
        self.posts = posts
        self.users = users
        self.attachments = attachments
        self.media = media
        self.captures = captures
        self.blobs = blobs
    }
}

extension ArchiveStore {
    /// Counts the store's rows, reading its file directly.
    package func counts() throws -> StoreCounts {
        try DatabaseQueue(path: path).read { db in
            func count(_ table: String) throws -> Int {
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
            }
            return StoreCounts(
                boards: try count("board"), threads: try count("thread"), posts: try count("post"),
                users: try Int.fetchOne(db, sql: "SELECT count(DISTINCT author) FROM post") ?? 0,
                attachments: try count("attachment"), media: try count("media"), captures: try count("capture"),
                blobs: try count("blob"))
        }
    }
}

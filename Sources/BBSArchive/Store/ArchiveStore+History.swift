import Foundation
import GRDB

/// A post's earlier versions, kept by the `post_version_keep` trigger
/// whenever a run or `reparse` changes what a stored post says.
extension ArchiveStore {
    package struct PostVersion: Sendable, Equatable {
        package var author: String
        package var postedAt: Date
        package var body: String
        package var title: String?
        /// When the store saw this version replaced.
        package var replacedAt: Date
    }

    /// The versions a post had before its current one, oldest first.
    package func postVersions(board: String, gid: Int, floor: Int) throws(ArchiveError) -> [PostVersion] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT author, postedAt, body, title, replacedAt FROM post_version
                    WHERE board = ? AND gid = ? AND floor = ? ORDER BY id
                    """,
                arguments: [board, gid, floor]
            ).map { row in
                PostVersion(
                    author: row["author"], postedAt: Self.date(row["postedAt"]), body: row["body"], title: row["title"],
                    replacedAt: Self.date(row["replacedAt"]))
            }
        }
    }

    /// The posts of a thread the forum replaced by a deletion notice, by
    /// floor, with when that was first seen; their archived text is kept.
    package func forumDeletions(board: String, gid: Int) throws(ArchiveError) -> [Int: Date] {
        try read { db in
            var deletions: [Int: Date] = [:]
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT floor, forumDeletedAt FROM post WHERE board = ? AND gid = ? AND forumDeletedAt IS NOT NULL",
                arguments: [board, gid])
            {
                deletions[row["floor"]] = Self.date(row["forumDeletedAt"])
            }
            return deletions
        }
    }
}

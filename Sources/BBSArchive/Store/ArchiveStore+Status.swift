import Foundation
import GRDB

/// What `bbsarchive status` reports about a store.
package struct StoreStatus: Sendable, Equatable, Codable {
    package struct Board: Sendable, Equatable, Codable {
        package var board: String
        package var title: String?
        package var threads: Int
        package var posts: Int
        /// Attachments the posts name, and how many of them have their bytes stored.
        package var attachments: Int
        package var attachmentsStored: Int
        /// Bytes of the stored attachments.
        package var attachmentBytes: Int
        package var firstPostAt: Date?
        package var lastPostAt: Date?
        /// When the last walk of the board's list began and ended (`nil`: it did not end).
        package var lastFetchAt: Date?
        package var lastFetchFinishedAt: Date?
        /// Whether a walk ever read the board's list to its end.
        package var listFullyWalked: Bool
    }

    package struct Failure: Sendable, Equatable, Codable {
        package var url: String
        package var board: String?
        package var reason: String
        package var attempts: Int
        package var lastTriedAt: Date
    }

    package var store: String
    /// The store's file with its write-ahead log, in bytes.
    package var sizeBytes: Int
    /// The newest migration applied, and all of them in order.
    package var schemaVersion: String?
    package var migrations: [String]
    package var captures: Int
    package var boards: [Board]
    package var failures: [Failure]
    /// Thumbnails builds made and the store keeps for builds into other
    /// folders, and their bytes (a cache: none in a store no build used).
    package var thumbnails = 0
    package var thumbnailBytes = 0
}

/// Read-only queries for `status`.
extension ArchiveStore {
    package func status() throws(ArchiveError) -> StoreStatus {
        let files = [path, path + "-wal"]
        let size = files.reduce(0) { total, file in
            let bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            return total + bytes
        }
        return try read { db in
            let migrations = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
            let boards = try Row.fetchAll(
                db,
                sql: """
                    SELECT b.name, b.title,
                      (SELECT count(*) FROM thread t WHERE t.board = b.name) AS threads,
                      (SELECT count(*) FROM post p WHERE p.board = b.name) AS posts,
                      (SELECT min(postedAt) FROM post p WHERE p.board = b.name) AS firstPostAt,
                      (SELECT max(postedAt) FROM post p WHERE p.board = b.name) AS lastPostAt,
                      (SELECT count(*) FROM attachment a WHERE a.board = b.name) AS attachments,
                      (SELECT count(*) FROM attachment a JOIN media m ON m.url = a.url WHERE a.board = b.name)
                        AS attachmentsStored,
                      (SELECT coalesce(sum(s.size), 0) FROM blob s JOIN media m ON m.hash = s.hash
                        WHERE m.url IN (SELECT url FROM attachment a WHERE a.board = b.name)) AS attachmentBytes,
                      c.startedAt, c.finishedAt, coalesce(c.coveredAll, 0) AS coveredAll
                    FROM board b LEFT JOIN crawl c ON c.board = b.name
                    ORDER BY b.name
                    """
            ).map { row -> StoreStatus.Board in
                let first: Int64? = row["firstPostAt"]
                let last: Int64? = row["lastPostAt"]
                let started: Int64? = row["startedAt"]
                let finished: Int64? = row["finishedAt"]
                return StoreStatus.Board(
                    board: row["name"], title: row["title"], threads: row["threads"], posts: row["posts"],
                    attachments: row["attachments"], attachmentsStored: row["attachmentsStored"],
                    attachmentBytes: row["attachmentBytes"], firstPostAt: first.map(Self.date),
                    lastPostAt: last.map(Self.date), lastFetchAt: started.map(Self.date),
                    lastFetchFinishedAt: finished.map(Self.date), listFullyWalked: row["coveredAll"])
            }
            let failures = try Row.fetchAll(
                db, sql: "SELECT url, board, reason, attempts, lastTriedAt FROM failure ORDER BY board, url"
            ).map { row in
                StoreStatus.Failure(
                    url: row["url"], board: row["board"], reason: row["reason"], attempts: row["attempts"],
                    lastTriedAt: Self.date(row["lastTriedAt"]))
            }
            let captures = try Int.fetchOne(db, sql: "SELECT count(*) FROM capture") ?? 0
            var status = StoreStatus(
                store: path, sizeBytes: size, schemaVersion: migrations.last, migrations: migrations,
                captures: captures, boards: boards, failures: failures)
            // A store of an earlier release, read where it cannot be
            // migrated, has no such table.
            if try db.tableExists("thumbnail"),
                let row = try Row.fetchOne(db, sql: "SELECT count(*), coalesce(sum(length(bytes)), 0) FROM thumbnail")
            {
                status.thumbnails = row[0]
                status.thumbnailBytes = row[1]
            }
            return status
        }
    }
}

import Foundation
import GRDB

/// One raw capture as stored: the response exactly as it arrived.
package struct StoredCapture: Sendable {
    package var id: Int64
    package var url: String
    package var fetchedAt: Date
    package var status: Int
    /// `Name: value`, one a line, as the server sent them.
    package var headerLines: [String]
    package var body: Data
}

/// Read-only queries for `export`: captures one at a time, by id, so an
/// export never holds more than one body in memory.
extension ArchiveStore {
    /// Ids of the captures after `id`, in the order they were stored.
    package func captureIDs(after id: Int64, limit: Int) throws(ArchiveError) -> [Int64] {
        try read { db in
            try Int64.fetchAll(
                db, sql: "SELECT id FROM capture WHERE id > ? ORDER BY id LIMIT ?", arguments: [id, limit])
        }
    }

    package func capture(id: Int64) throws(ArchiveError) -> StoredCapture? {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT url, fetchedAt, status, headers, hash FROM capture WHERE id = ?",
                    arguments: [id]),
                let body = try Self.blobBytes(db, hash: row["hash"])
            else { return nil }
            let headers: String = row["headers"]
            return StoredCapture(
                id: id, url: row["url"], fetchedAt: Self.date(row["fetchedAt"]), status: row["status"],
                headerLines: headers.split(separator: "\n").map(String.init), body: body)
        }
    }

    /// How many posts the store has (on `boards`, or on all).
    package func postCount(boards: [String]? = nil) throws(ArchiveError) -> Int {
        try read { db in
            guard let boards else { return try Int.fetchOne(db, sql: "SELECT count(*) FROM post") ?? 0 }
            let marks = boards.map { _ in "?" }.joined(separator: ", ")
            return try Int.fetchOne(
                db, sql: "SELECT count(*) FROM post WHERE board IN (\(marks))",
                arguments: StatementArguments(boards)) ?? 0
        }
    }
}

import Foundation
import GRDB

/// Direct SQL on a store, for tests that set up a state the program itself
/// would only reach over time.
struct GRDBTestAccess {
    let queue: DatabaseQueue

    static func open(_ path: String) throws -> GRDBTestAccess {
        GRDBTestAccess(queue: try DatabaseQueue(path: path))
    }

    /// Forgets which threads were archived, so the next fetch reads them all again.
    func resetArchivedState() throws {
        try queue.write { db in
            try db.execute(
                sql: "UPDATE thread SET archivedReplies = NULL, archivedLastReplyAt = NULL; DELETE FROM crawl")
        }
    }
}

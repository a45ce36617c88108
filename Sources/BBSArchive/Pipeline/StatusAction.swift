import Foundation

/// `bbsarchive status`: what a store holds, per board, and what is pending.
package struct StatusAction: Sendable {
    package var storePath: String

    package init(storePath: String) {
        self.storePath = storePath
    }

    package func run() throws(ArchiveError) -> StoreStatus {
        guard FileManager.default.fileExists(atPath: storePath) else { throw .noStore(path: storePath) }
        return try ArchiveStore(path: storePath).status()
    }

    /// The status as JSON for scripts: times in ISO 8601 Beijing time.
    package static func json(_ status: StoreStatus) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(BeijingTime.iso8601(date))
        }
        guard let data = try? encoder.encode(status) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The status as lines for people.
    package static func text(_ status: StoreStatus) -> String {
        var lines: [String] = []
        let size = ByteCountFormatter.string(fromByteCount: Int64(status.sizeBytes), countStyle: .file)
        lines.append(
            "store \(status.store): \(size), schema \(status.schemaVersion ?? "none"), \(status.captures) capture(s)")
        func time(_ date: Date?) -> String { date.map(BeijingTime.iso8601) ?? "never" }
        for board in status.boards {
            let bytes = ByteCountFormatter.string(fromByteCount: Int64(board.attachmentBytes), countStyle: .file)
            lines.append(
                "\(board.board)\(board.title.map { " (\($0))" } ?? ""): \(board.threads) thread(s), \(board.posts) post(s), "
                    + "\(board.attachments) attachment(s) (\(board.attachmentsStored) stored, \(bytes))")
            lines.append("  posts from \(time(board.firstPostAt)) to \(time(board.lastPostAt))")
            let walk =
                board.lastFetchAt == nil
                ? "never walked"
                : (board.lastFetchFinishedAt == nil ? "unfinished" : "finished \(time(board.lastFetchFinishedAt))")
            lines.append(
                "  last fetch \(time(board.lastFetchAt)) (\(walk)); list "
                    + (board.listFullyWalked ? "fully walked" : "not yet walked to its end"))
        }
        if status.failures.isEmpty {
            lines.append("no pending failures")
        } else {
            lines.append("\(status.failures.count) pending failure(s), tried again on the next run:")
            for failure in status.failures {
                lines.append("  \(failure.url): \(failure.reason) (\(failure.attempts) attempt(s))")
            }
        }
        return lines.joined(separator: "\n")
    }
}

import Foundation

/// `bbsarchive status`: what a store holds, per board, and what is pending.
package struct StatusAction: Sendable {
    package var storePath: String

    package init(storePath: String) {
        self.storePath = storePath
    }

    /// The store's status, and the time zone of its forum (the stored
    /// boards' source's) to show its times in.
    package func run() throws(ArchiveError) -> (status: StoreStatus, time: ForumTime) {
        guard FileManager.default.fileExists(atPath: storePath) else { throw .noStore(path: storePath) }
        let store = try ArchiveStore(path: storePath, use: .read)
        return (try store.status(), ForumSources.profile(sources: try store.boards().map(\.source)).time)
    }

    /// The status as JSON for scripts: times in ISO 8601, in the forum's zone.
    package static func json(_ status: StoreStatus, time: ForumTime) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(time.iso8601(date))
        }
        guard let data = try? encoder.encode(status) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A size as the file manager writes one; none is `0 bytes`, where
    /// Foundation writes the word `Zero KB`.
    static func size(_ bytes: Int) -> String {
        bytes == 0 ? "0 bytes" : ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .file)
    }

    /// The status as lines for people.
    package static func text(_ status: StoreStatus, time zone: ForumTime) -> String {
        var lines: [String] = []
        let size = Self.size(status.sizeBytes)
        lines.append(
            "store \(status.store): \(size), schema \(status.schemaVersion ?? "none"), \(status.captures) capture(s)")
        func time(_ date: Date?) -> String { date.map(zone.iso8601) ?? "never" }
        for board in status.boards {
            let bytes = Self.size(board.attachmentBytes)
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
        if status.thumbnails > 0 {
            lines.append(
                "\(status.thumbnails) thumbnail(s) kept for builds into other folders (\(Self.size(status.thumbnailBytes)))"
            )
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

import Foundation

/// `bbsarchive export`: the store's contents in formats other archives load.
///
/// - `jsonl`: one post a line, with the field names of `parse`'s JSON plus
///   `board`, `gid` and `threadTitle` (the interchange of forum-dl and friends);
/// - `warc`: every raw capture as a WARC/1.1 `response` record after a
///   `warcinfo` record, gzipped per record.
///
/// Both stream: one thread (or one capture) is in memory at a time. The
/// file is written beside `outputPath` and renamed into place when done,
/// so an interrupted export never leaves a partial file under its name.
package struct ExportAction: Sendable {
    package enum Format: String, Sendable, CaseIterable {
        case jsonl, warc
    }

    package var storePath: String
    package var format: Format
    package var outputPath: String
    /// Only these boards (all when empty).
    package var boards: [String]

    package init(storePath: String, format: Format, outputPath: String, boards: [String] = []) {
        self.storePath = storePath
        self.format = format
        self.outputPath = outputPath
        self.boards = boards
    }

    package struct Report: Sendable, Equatable {
        /// Posts (jsonl) or response records (warc) written.
        package var records = 0
        package var bytes = 0
    }

    package func run() throws(ArchiveError) -> Report {
        guard FileManager.default.fileExists(atPath: storePath) else { throw .noStore(path: storePath) }
        let store = try ArchiveStore(path: storePath, use: .read)
        let stored = try store.boards()
        for board in boards where !stored.contains(where: { $0.name == board }) {
            throw .invalidOption(
                "board \"\(board)\" is not in the store \(storePath) (it has: \(stored.map(\.name).joined(separator: ", ")))"
            )
        }
        let selected = boards.isEmpty ? stored : stored.filter { boards.contains($0.name) }
        let partial = outputPath + ".part"
        guard FileManager.default.createFile(atPath: partial, contents: nil),
            let handle = FileHandle(forWritingAtPath: partial)
        else {
            throw .outputUnwritable(path: outputPath, reason: "the file cannot be created")
        }
        var report = Report()
        do throws(ArchiveError) {
            switch format {
            case .jsonl: report.records = try writeJSONL(store, boards: selected, to: handle)
            case .warc: report.records = try writeWARC(store, boards: selected, to: handle)
            }
            try? handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        do {
            if FileManager.default.fileExists(atPath: outputPath) {
                _ = try FileManager.default.replaceItemAt(
                    URL(fileURLWithPath: outputPath), withItemAt: URL(fileURLWithPath: partial))
            } else {
                try FileManager.default.moveItem(atPath: partial, toPath: outputPath)
            }
        } catch {
            throw .outputUnwritable(path: outputPath, reason: "\(error)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: outputPath)[.size] as? Int) ?? 0
        report.bytes = size
        return report
    }

    private func writeJSONL(_ store: ArchiveStore, boards: [StoredBoard], to handle: FileHandle) throws(ArchiveError)
        -> Int
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var count = 0
        for board in boards {
            // Times in the zone of the board's forum, quotes by its conventions.
            PageJSON.give(ForumSources.profile(sources: [board.source]), to: encoder)
            for thread in try store.threads(board: board.name) {
                var lines = Data()
                for post in try store.posts(board: board.name, gid: thread.gid) {
                    do {
                        lines.append(try encoder.encode(ExportedPost(post: post, threadTitle: thread.title)))
                    } catch {
                        throw .outputUnwritable(
                            path: outputPath,
                            reason: "post \(board.name)/\(thread.gid)#\(post.floor) cannot be written as JSON")
                    }
                    lines.append(0x0A)
                    count += 1
                }
                do {
                    try handle.write(contentsOf: lines)
                } catch {
                    throw .outputUnwritable(path: outputPath, reason: "\(error)")
                }
            }
        }
        return count
    }

    private func writeWARC(_ store: ArchiveStore, boards: [StoredBoard], to handle: FileHandle) throws(ArchiveError)
        -> Int
    {
        var writer = WARCWriter(output: handle)
        var info: [(String, String)] = [
            ("software", "bbsarchive/\(BBSArchiveVersion.version)"), ("format", "WARC File Format 1.1"),
            ("conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"),
            ("description", "raw captures of a bbsarchive store, exactly as fetched (bodies decoded)"),
        ]
        for board in boards { info.append(("bbsarchive-board", board.name)) }
        try writer.writeWarcinfo(filename: URL(fileURLWithPath: outputPath).lastPathComponent, fields: info)
        // With boards named, only their list and thread pages go in.
        var sources: [(board: String, source: any ForumSource)] = []
        if !self.boards.isEmpty {
            for board in boards {
                if let name = board.source {
                    sources.append((board.name, try ForumSources.make(name, baseURL: board.baseURL)))
                }
            }
        }
        var last: Int64 = 0
        while true {
            let ids = try store.captureIDs(after: last, limit: 256)
            guard let end = ids.last else { break }
            for id in ids {
                guard let capture = try store.capture(id: id) else { continue }
                if !self.boards.isEmpty {
                    let belongs = sources.contains { entry in
                        switch entry.source.address(of: capture.url) {
                        case .board(let name, _), .thread(let name, _, _): return name == entry.board
                        default: return false
                        }
                    }
                    guard belongs else { continue }
                }
                try writer.writeResponse(capture)
            }
            last = end
        }
        return writer.records - 1
    }
}

/// A stored post as one JSONL line: `parse`'s post fields, and where it is.
struct ExportedPost: Encodable {
    let post: StoredPost
    let threadTitle: String

    enum Key: String, CodingKey {
        case board, gid, threadTitle
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(post.board, forKey: .board)
        try c.encode(post.gid, forKey: .gid)
        try c.encode(threadTitle, forKey: .threadTitle)
        let model = Post(
            floor: post.floor, author: post.author, postedAt: post.postedAt, body: post.body,
            attachments: post.attachments.map { Attachment(name: $0.name, url: $0.url, kind: $0.kind, size: $0.size) },
            ip: post.ip, editedBy: post.editedBy, nick: post.nick, title: post.title, signature: post.signature,
            postID: post.postID, editedAt: post.editedAt, likes: post.likes, warning: post.warning,
            rawText: post.rawText)
        try PageJSON.PostJSON(post: model).encode(to: encoder)
    }
}

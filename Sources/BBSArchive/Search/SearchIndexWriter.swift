import Foundation
import GRDB

/// Writes the static search index into `search/` of the site.
///
/// Layout (every file a script that hands its data to `assets/search.js`,
/// so it loads through `<script>` elements from `file://` too):
///
/// - `search/index.js`: shard count, document count, chunk size.
/// - `search/s/K.js`: shard K, the postings of every term whose FNV-1a hash
///   is K modulo the shard count: `u` single characters (documents), `b`
///   character pairs (documents, positions), `m` filters (`b:board`,
///   `a:author`; documents). Each list is base64 of unsigned LEB128
///   varints, documents as gaps, positions as gaps within a document.
/// - `search/d/K.js`: documents 8K…8K+7: board, thread, floor, link (page and anchor),
///   author, time, title and searchable text, for the result list.
/// - `search/days.js`: the first document of each Beijing day, for the
///   `after:` / `before:` filters.
///
/// Documents are numbered in the order posts were made (then board, thread,
/// floor), so numbers are stable as an archive grows: a new reply is the
/// next number, and only the shards of its own terms, its chunk, the
/// manifest and the day table change. The writer leaves identical files
/// alone, so a build rewrites only those.
///
/// Memory stays bounded: posts stream from the store in one pass, their
/// postings are appended to per-bucket spill files in a temporary folder,
/// and each bucket (a fixed share of the shards) is assembled on its own.
struct SearchIndexWriter {
    static let folder = "search"
    static let manifestPath = "search/index.js"
    static let daysPath = "search/days.js"
    static let docsPerChunk = 8
    static func shardPath(_ shard: Int) -> String { "search/s/\(String(shard, radix: 16)).js" }
    static func chunkPath(_ chunk: Int) -> String { "search/d/\(chunk).js" }

    /// What the index covers; the site's threads are paged by `postsPerPage`.
    let store: ArchiveStore
    let postsPerPage: Int
    /// Bytes of postings held in memory before they go to the spill files.
    var spillThreshold = 32 << 20

    struct Report: Sendable, Equatable {
        var documents = 0
        var shards = 0
        var filesWritten = 0
        var bytes = 0
    }

    /// Writes the whole index through `write` (which skips identical files
    /// and returns whether it wrote).
    func write(_ write: (Data, String) throws(ArchiveError) -> Bool) throws(ArchiveError) -> Report {
        let documents = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM post") ?? 0 }
        let shards = Self.shardCount(documents: documents)
        let buckets = min(shards, 64)
        let spill = try SpillFiles(buckets: buckets, threshold: spillThreshold)
        defer { spill.remove() }
        var report = Report(documents: 0, shards: shards)
        func emit(_ data: Data, _ path: String) throws(ArchiveError) {
            report.bytes += data.count
            if try write(data, path) { report.filesWritten += 1 }
        }

        var chunk: [String] = []
        var days: [(Int, Int)] = []
        var failure: ArchiveError?
        try store.read { db in
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT p.board, p.gid, p.floor, p.author, p.postedAt, p.body, p.signature, t.title,
                      (SELECT count(*) FROM post q WHERE q.board = p.board AND q.gid = p.gid AND q.floor < p.floor)
                        AS position
                    FROM post p JOIN thread t ON t.board = p.board AND t.gid = p.gid
                    ORDER BY p.postedAt, p.board, p.gid, p.floor
                    """)
            var doc = 0
            while let row = try cursor.next() {
                let post = StoredPost(
                    board: row["board"], gid: row["gid"], floor: row["floor"], author: row["author"],
                    postedAt: ArchiveStore.date(row["postedAt"]), body: row["body"], ip: nil, editedBy: nil,
                    attachments: [], signature: row["signature"])
                let title: String = row["title"]
                let text = SearchText.searchable(post: post, threadTitle: title)
                let normalized = SearchText.normalize(text)
                let terms = SearchText.terms(normalized)
                for unigram in terms.unigrams {
                    spill.add(term: unigram, kind: .unigram, doc: doc, positions: [], shards: shards)
                }
                for (bigram, positions) in terms.bigrams {
                    spill.add(term: bigram, kind: .bigram, doc: doc, positions: positions, shards: shards)
                }
                spill.add(term: "b:" + post.board.lowercased(), kind: .filter, doc: doc, positions: [], shards: shards)
                spill.add(term: "a:" + post.author.lowercased(), kind: .filter, doc: doc, positions: [], shards: shards)
                try spill.flushIfNeeded()

                let day = Self.dayNumber(post.postedAt)
                if days.last?.0 != day { days.append((day, doc)) }
                let position: Int = row["position"]
                chunk.append(
                    "[" + [
                        Self.json(post.board), String(post.gid), String(post.floor),
                        Self.json(
                            SitePaths.thread(post.board, gid: post.gid, page: position / max(1, postsPerPage) + 1)
                                + "#a\(post.floor)"), Self.json(post.author),
                        Self.json(String(BeijingTime.display(post.postedAt).prefix(16))),
                        Self.json(SiteBuilder.displayable(title)), Self.json(SiteBuilder.displayable(text)),
                    ].joined(separator: ",") + "]")
                doc += 1
                if chunk.count == Self.docsPerChunk {
                    do throws(ArchiveError) {
                        try emit(Self.chunkScript(doc / Self.docsPerChunk - 1, chunk), Self.chunkPath(doc / Self.docsPerChunk - 1))
                    } catch {
                        failure = error
                        return
                    }
                    chunk = []
                }
            }
            report.documents = doc
        }
        if let failure { throw failure }
        if !chunk.isEmpty {
            let index = report.documents / Self.docsPerChunk
            try emit(Self.chunkScript(index, chunk), Self.chunkPath(index))
        }
        for bucket in 0..<buckets {
            var byShard: [Int: SpillFiles.Shard] = [:]
            try spill.readBucket(bucket) { shard, kind, term, doc, positions in
                byShard[shard, default: SpillFiles.Shard()].add(kind: kind, term: term, doc: doc, positions: positions)
            }
            for shard in stride(from: bucket, to: shards, by: buckets) {
                try emit(Self.shardScript(shard, byShard[shard] ?? SpillFiles.Shard()), Self.shardPath(shard))
            }
        }
        let dayList = days.map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
        try emit(Data("BBSSearch.days([\(dayList)]);\n".utf8), Self.daysPath)
        try emit(
            Data(
                "BBSSearch.manifest({\"version\":1,\"shards\":\(shards),\"docs\":\(report.documents),\"chunk\":\(Self.docsPerChunk)});\n"
                    .utf8), Self.manifestPath)
        return report
    }

    /// About 8 documents a shard, a power of two between 16 and 65536, so
    /// the count (and every shard's file) only changes when the archive
    /// doubles.
    static func shardCount(documents: Int) -> Int {
        var count = 16
        while count < 65536 && count * 8 < documents { count *= 2 }
        return count
    }

    /// FNV-1a over the term's UTF-8, as `assets/search.js` computes it.
    static func hash(_ term: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in term.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return hash
    }

    /// `YYYYMMDD` of a time in Beijing.
    static func dayNumber(_ date: Date) -> Int {
        let c = BeijingTime.components(of: date)
        return c.year * 10000 + c.month * 100 + c.day
    }

    static func chunkScript(_ index: Int, _ rows: [String]) -> Data {
        Data("BBSSearch.docs(\(index),[\n\(rows.joined(separator: ",\n"))]);\n".utf8)
    }

    static func shardScript(_ index: Int, _ shard: SpillFiles.Shard) -> Data {
        func object(_ lists: [String: SpillFiles.Posting]) -> String {
            "{" + lists.keys.sorted().map { key in Self.json(key) + ":\"" + Self.base64(lists[key]?.bytes ?? []) + "\"" }
                .joined(separator: ",") + "}"
        }
        let body = "{\"u\":\(object(shard.unigrams)),\"b\":\(object(shard.bigrams)),\"m\":\(object(shard.filters))}"
        return Data("BBSSearch.shard(\(index),\(body));\n".utf8)
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// A JSON string literal that is also safe in a script.
    static func json(_ text: String) -> String {
        var out = "\""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            case "<": out += "\\u003c"
            default:
                if scalar.value < 0x20 {
                    out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// Postings on their way to the shards: appended to one buffer per bucket,
/// written to that bucket's temporary file when memory fills.
final class SpillFiles {
    enum Kind: UInt8 {
        case unigram = 0
        case bigram = 1
        case filter = 2
    }

    /// One term's postings, encoded as they arrive (in document order).
    struct Posting {
        var bytes: [UInt8] = []
        var lastDoc = -1
    }

    struct Shard {
        var unigrams: [String: Posting] = [:]
        var bigrams: [String: Posting] = [:]
        var filters: [String: Posting] = [:]

        mutating func add(kind: Kind, term: String, doc: Int, positions: [Int]) {
            switch kind {
            case .unigram: Self.append(&unigrams[term, default: Posting()], doc: doc, positions: nil)
            case .bigram: Self.append(&bigrams[term, default: Posting()], doc: doc, positions: positions)
            case .filter: Self.append(&filters[term, default: Posting()], doc: doc, positions: nil)
            }
        }

        private static func append(_ posting: inout Posting, doc: Int, positions: [Int]?) {
            // The first document as is, then gaps.
            varint(doc - max(posting.lastDoc, 0), into: &posting.bytes)
            posting.lastDoc = doc
            guard let positions else { return }
            varint(positions.count, into: &posting.bytes)
            var previous = 0
            for position in positions {
                varint(position - previous, into: &posting.bytes)
                previous = position
            }
        }
    }

    let folder: URL
    let buckets: Int
    let threshold: Int
    private var buffers: [[UInt8]]
    private var buffered = 0

    init(buckets: Int, threshold: Int) throws(ArchiveError) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bbsarchive-search-\(UUID().uuidString)")
        self.buckets = buckets
        self.threshold = threshold
        buffers = Array(repeating: [], count: buckets)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .outputUnwritable(path: folder.path, reason: "cannot make a temporary folder for the search index")
        }
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    func add(term: String, kind: Kind, doc: Int, positions: [Int], shards: Int) {
        let shard = Int(SearchIndexWriter.hash(term) % UInt32(shards))
        let bucket = shard % buckets
        var record: [UInt8] = []
        varint(shard, into: &record)
        record.append(kind.rawValue)
        let bytes = Array(term.utf8)
        varint(bytes.count, into: &record)
        record += bytes
        varint(doc, into: &record)
        varint(positions.count, into: &record)
        for position in positions { varint(position, into: &record) }
        buffers[bucket] += record
        buffered += record.count
    }

    func flushIfNeeded() throws(ArchiveError) {
        guard buffered >= threshold else { return }
        try flush()
    }

    private func flush() throws(ArchiveError) {
        for bucket in 0..<buckets where !buffers[bucket].isEmpty {
            let url = file(bucket)
            do {
                if !FileManager.default.fileExists(atPath: url.path) {
                    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                }
                let handle = try FileHandle(forWritingTo: url)
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: buffers[bucket])
            } catch {
                throw .outputUnwritable(path: url.path, reason: "cannot spill the search index to disk")
            }
            buffers[bucket] = []
        }
        buffered = 0
    }

    private func file(_ bucket: Int) -> URL { folder.appendingPathComponent("\(bucket).bin") }

    /// Every record of one bucket, spilled ones first, in document order.
    func readBucket(
        _ bucket: Int, _ body: (Int, Kind, String, Int, [Int]) throws(ArchiveError) -> Void
    ) throws(ArchiveError) {
        let spilled = FileManager.default.contents(atPath: file(bucket).path).map { [UInt8]($0) } ?? []
        for bytes in [spilled, buffers[bucket]] {
            var index = 0
            while index < bytes.count {
                guard let shard = readVarint(bytes, &index), index < bytes.count,
                    let kind = Kind(rawValue: bytes[index])
                else { throw .outputUnwritable(path: folder.path, reason: "the search spill file is damaged") }
                index += 1
                guard let length = readVarint(bytes, &index), index + length <= bytes.count else {
                    throw .outputUnwritable(path: folder.path, reason: "the search spill file is damaged")
                }
                let term = String(decoding: bytes[index..<index + length], as: UTF8.self)
                index += length
                guard let doc = readVarint(bytes, &index), let count = readVarint(bytes, &index) else {
                    throw .outputUnwritable(path: folder.path, reason: "the search spill file is damaged")
                }
                var positions: [Int] = []
                positions.reserveCapacity(count)
                for _ in 0..<count {
                    guard let position = readVarint(bytes, &index) else {
                        throw .outputUnwritable(path: folder.path, reason: "the search spill file is damaged")
                    }
                    positions.append(position)
                }
                try body(shard, kind, term, doc, positions)
            }
        }
        buffers[bucket] = []
    }
}

/// Unsigned LEB128.
func varint(_ value: Int, into bytes: inout [UInt8]) {
    var value = UInt(max(0, value))
    while value >= 0x80 {
        bytes.append(UInt8(value & 0x7F) | 0x80)
        value >>= 7
    }
    bytes.append(UInt8(value))
}

func readVarint(_ bytes: [UInt8], _ index: inout Int) -> Int? {
    var value = 0
    var shift = 0
    while index < bytes.count, shift < 63 {
        let byte = bytes[index]
        index += 1
        value |= Int(byte & 0x7F) << shift
        if byte & 0x80 == 0 { return value }
        shift += 7
    }
    return nil
}

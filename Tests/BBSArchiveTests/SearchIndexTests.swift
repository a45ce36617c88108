import BBSArchiveTestSupport
import Foundation
import GRDB
import Testing

@testable import BBSArchive

/// The index files: appending a reply touches only its own shards, and gives
/// the same files as indexing everything again.
@Suite struct SearchIndexTests {
    final class Recorder: @unchecked Sendable {
        let publisher = MemoryPublisher()
        let lock = NSLock()
        var written: [String] = []

        /// Called from several threads at once, as the writer does.
        var output: SearchIndexWriter.Output {
            SearchIndexWriter.Output(
                read: { [publisher] in publisher.read($0) },
                write: { data, path throws(ArchiveError) in
                    let wrote = try self.publisher.write(data, to: path)
                    if wrote { self.lock.withLock { self.written.append(path) } }
                    return wrote
                })
        }

        /// The index's files, the manifest without its id.
        var files: [String: Data] {
            var files = publisher.files.filter { $0.key.hasPrefix("search/") }
            if let manifest = files[SearchIndexWriter.manifestPath] {
                let text = String(decoding: manifest, as: UTF8.self)
                files[SearchIndexWriter.manifestPath] = Data(
                    text.replacingOccurrences(of: #""id":"[^"]*","#, with: "", options: .regularExpression).utf8)
            }
            return files
        }
    }

    @Test func oneNewReplyRewritesOnlyTheShardsItsWordsFallIn() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let folder = try Fixtures.temporaryFolder("search-index")
        let path = folder.appendingPathComponent("archive.sqlite").path
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: built.storePath + suffix) {
            try FileManager.default.copyItem(atPath: built.storePath + suffix, toPath: path + suffix)
        }
        let store = try ArchiveStore(path: path)
        let writer = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
        let site = Recorder()

        let first = try writer.update(SearchChanges(threads: nil), site.output)
        #expect(first.full)
        #expect(first.documents == (try store.counts().posts))
        site.written = []
        let again = try writer.update(SearchChanges(threads: []), site.output)
        #expect(!again.full)
        #expect(site.written.isEmpty, "nothing changed, yet \(site.written.count) files were written")

        // A new reply, the newest post of the archive.
        let access = try GRDBTestAccess.open(path)
        let (board, gid, floor, author, newest) = try await access.queue.write { db in
            let row = try #require(
                try Row.fetchOne(
                    db, sql: "SELECT board, gid, max(floor) AS floor, author FROM post GROUP BY board, gid LIMIT 1"))
            let newest = try Int64.fetchOne(db, sql: "SELECT max(postedAt) FROM post") ?? 0
            return (row["board"] as String, row["gid"] as Int, row["floor"] as Int, row["author"] as String, newest)
        }
        let body = "迟到的回复：鄱阳湖的候鸟 Zyxwvut 2048\n看看"
        // The store's triggers log the new post as a change since the last build.
        let before = try await access.queue.write { db in
            let before = try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM build_change") ?? 0
            try db.execute(
                sql: "INSERT INTO post (board, gid, floor, author, postedAt, body) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [board, gid, floor + 1, author, newest + 60, body])
            return before
        }
        let changes = SearchChanges(try store.buildChanges(after: before))
        #expect(changes.threads == [SearchChanges.ThreadKey(board: board, gid: gid)])

        site.written = []
        let appended = try writer.update(changes, site.output)
        #expect(!appended.full)
        #expect(appended.appended == 1)
        let shards = first.shards
        var touched = Set<String>()
        let normalized = SearchText.normalize(body)
        for term in SearchText.terms(normalized).unigrams.union(SearchText.terms(normalized).bigrams.keys)
            .union(["b:" + board.lowercased(), "a:" + author.lowercased()])
        {
            touched.insert(SearchIndexWriter.shardPath(Int(SearchIndexWriter.hash(term) % UInt32(shards))))
        }
        // Positions only where a pair of the reply falls.
        var positions = Set<String>()
        for pair in SearchText.terms(normalized).bigrams.keys {
            positions.insert(SearchIndexWriter.positionsPath(Int(SearchIndexWriter.hash(pair) % UInt32(shards))))
        }
        let chunk = SearchIndexWriter.chunkPath(first.documents / SearchIndexWriter.docsPerChunk)
        let expected = touched.union(positions).union([chunk, SearchIndexWriter.manifestPath])
        let written = Set(site.written)
        #expect(written.subtracting([SearchIndexWriter.daysPath]) == expected)
        #expect(touched.count < shards / 2, "the reply's terms fall in most shards; the test proves little")

        // The same files as indexing the whole store again.
        let fresh = Recorder()
        let full = try writer.update(SearchChanges(threads: nil), fresh.output)
        #expect(full.full)
        #expect(full.documents == first.documents + 1)
        let appendedFiles = site.files
        let freshFiles = fresh.files
        #expect(appendedFiles.keys.sorted() == freshFiles.keys.sorted())
        for (path, data) in freshFiles where appendedFiles[path] != data {
            Issue.record("\(path) differs from a full pass")
        }
    }

    @Test func anEditedOldPostIndexesEverythingAgain() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let folder = try Fixtures.temporaryFolder("search-edit")
        let path = folder.appendingPathComponent("archive.sqlite").path
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: built.storePath + suffix) {
            try FileManager.default.copyItem(atPath: built.storePath + suffix, toPath: path + suffix)
        }
        let store = try ArchiveStore(path: path)
        let writer = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
        let site = Recorder()
        _ = try writer.update(SearchChanges(threads: nil), site.output)
        let access = try GRDBTestAccess.open(path)
        let (board, gid) = try await access.queue.write { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT board, gid FROM post WHERE floor = 0 LIMIT 1"))
            try db.execute(
                sql: "UPDATE post SET body = body || '（修改过）' WHERE board = ? AND gid = ? AND floor = 0",
                arguments: [row["board"] as String, row["gid"] as Int])
            return (row["board"] as String, row["gid"] as Int)
        }
        let report = try writer.update(
            SearchChanges(threads: [SearchChanges.ThreadKey(board: board, gid: gid)]), site.output)
        #expect(report.full)
        let chunks = site.publisher.files.filter { $0.key.hasPrefix("search/d/") }.values
        #expect(chunks.contains { String(decoding: $0, as: UTF8.self).contains("（修改过）") })
    }

    /// Lists spelled as Rice codes or bitmaps read back as they were, pair
    /// counts of any size included.
    @Test func listsReadBackAsWritten() throws {
        var random = SystemRandomNumberGenerator()
        for density in [0.001, 0.05, 0.3, 0.9] {
            let start = Int.random(in: 0..<5000, using: &random)
            let docs = (start..<start + 4000).filter { _ in Double.random(in: 0..<1, using: &random) < density }
            guard !docs.isEmpty else { continue }
            let text = ListCoding.encodeDocs(docs)
            // The shorter of the two codes is kept. A handful of documents may
            // sit close enough for a bitmap to win, so only the clearly sparse
            // and clearly dense lists have a fixed kind.
            let rice = "!" + SearchIndexWriter.base64(ListCoding.riceBytes(docs))
            #expect(text.utf8.count <= rice.utf8.count, "density \(density)")
            if density == 0.05 || density == 0.9 {
                #expect(text.hasPrefix(density > 0.5 ? "~" : "!"), "density \(density)")
            }
            #expect(ListCoding.decodeDocs(Substring(text)) == docs, "density \(density)")
            // A pair's list: (gap, count, positions…) records.
            var bytes: [UInt8] = []
            var counts: [UInt8] = []
            var previous = 0
            for doc in docs {
                let count = [1, 1, 1, 2, 5, 16, 17, 40].randomElement(using: &random) ?? 1
                varint(doc - previous, into: &bytes)
                varint(doc - previous, into: &counts)
                previous = doc
                varint(count, into: &bytes)
                varint(count, into: &counts)
                for _ in 0..<count { varint(3, into: &bytes) }
            }
            let pair = ListCoding.encode(bytes, positional: true)
            #expect(ListCoding.internalList(pair, positional: true) == counts, "density \(density)")
        }
        #expect(ListCoding.decodeDocs("!") == nil)
        #expect(ListCoding.decodeDocs("~") == nil)
        #expect(ListCoding.internalList("!AAAA.x", positional: false) == nil)
    }
}

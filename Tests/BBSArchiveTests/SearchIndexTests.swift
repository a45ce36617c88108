import BBSArchiveTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

@testable import BBSArchive

/// The index files: appending posts (new or old) touches only the recent
/// tail (then, when it is flushed, the tails of their own shards), and says
/// what indexing everything again says.
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
                }, files: { [publisher] in publisher.files(in: $0) }, remove: { [publisher] in publisher.remove($0) })
        }

        /// Files but the manifest written while the manifest in place
        /// named an index that the store (`named`) named too (`watched`).
        var agreed: [String] = []

        /// Its output, noting in `agreed` each file but the manifest
        /// written while the manifest in place names an index that
        /// `named` (the store, read as a stop would leave it) names too.
        func watched(named: @escaping () -> [String]?) -> SearchIndexWriter.Output {
            let output = self.output
            return SearchIndexWriter.Output(
                read: output.read,
                write: { data, path throws(ArchiveError) in
                    if path != SearchIndexWriter.manifestPath,
                        let manifest = self.publisher.read(SearchIndexWriter.manifestPath).flatMap(
                            SearchIndexWriter.parseManifest),
                        named()?.contains(manifest.id) == true
                    {
                        self.lock.withLock { self.agreed.append(path) }
                    }
                    return try output.write(data, path)
                }, files: output.files, remove: output.remove)
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

    /// What an index says about the posts, whatever their numbering: each
    /// term's posts (with a pair's positions), each post's day, and every
    /// post newest first as the client sorts them. A full pass and appends
    /// must say the same.
    struct Content: Equatable {
        var postings: [String: [String: [Int]]] = [:]
        var days: [String: Int] = [:]
        var newest: [String] = []

        init(_ read: (String) -> Data?) throws {
            let manifest = try #require(read(SearchIndexWriter.manifestPath).flatMap(SearchIndexWriter.parseManifest))
            var posts: [Int: String] = [:]
            for doc in 0..<manifest.docs {
                let rows = try #require(
                    read(SearchIndexWriter.chunkPath(doc / SearchIndexWriter.docsPerChunk)).map(
                        SearchIndexWriter.chunkRows))
                let row = try #require(
                    try JSONSerialization.jsonObject(with: Data(rows[doc % SearchIndexWriter.docsPerChunk].utf8))
                        as? [Any])
                posts[doc] = "\(row[0])/\(row[1])/\(row[2])"
            }
            // The recent tail counts only when the manifest names it, as the
            // client reads it; its postings follow those of their shards.
            var recent: [Int: SpillFiles.Shard] = [:]
            if manifest.recent > 0 {
                let data = try #require(read(SearchIndexWriter.recentPath))
                #expect(data.count == manifest.recent, "the manifest gives the recent tail's bytes")
                let whole = try #require(SearchIndexWriter.parseRecent(data))
                func shard(_ term: String) -> Int { Int(SearchIndexWriter.hash(term) % UInt32(manifest.shards)) }
                for (term, posting) in whole.unigrams { recent[shard(term), default: .init()].unigrams[term] = posting }
                for (term, posting) in whole.bigrams { recent[shard(term), default: .init()].bigrams[term] = posting }
                for (term, posting) in whole.filters { recent[shard(term), default: .init()].filters[term] = posting }
            }
            for shard in 0..<manifest.shards {
                var main = SpillFiles.Shard()
                if manifest.present.contains(shard) {
                    let mainData = try #require(read(SearchIndexWriter.shardPath(shard)))
                    main = try #require(
                        SearchIndexWriter.parseShard(
                            mainData, positions: read(SearchIndexWriter.positionsPath(shard)), index: shard))
                    // A tail counts only when its shard names it, as the client reads it.
                    if try #require(SearchIndexWriter.shardHasTail(mainData) as Bool?) {
                        let tailData = try #require(read(SearchIndexWriter.tailPath(shard)))
                        let tail = try #require(SearchIndexWriter.parseTail(tailData, index: shard))
                        main.merge(tail.tail)
                    }
                } else {
                    // A shard the manifest does not list holds nothing, and has no file.
                    #expect(read(SearchIndexWriter.shardPath(shard)) == nil, "shard \(shard) is not listed")
                }
                if let part = recent[shard] { main.merge(part) }
                for (kind, lists, positional) in [
                    ("u", main.unigrams, false), ("b", main.bigrams, true), ("m", main.filters, false),
                ] {
                    for (term, posting) in lists {
                        var entries: [String: [Int]] = [:]
                        var index = 0
                        var doc = 0
                        while index < posting.bytes.count {
                            doc += try #require(readVarint(posting.bytes, &index))
                            var positions: [Int] = []
                            if positional {
                                var position = 0
                                for _ in 0..<(try #require(readVarint(posting.bytes, &index))) {
                                    position += try #require(readVarint(posting.bytes, &index))
                                    positions.append(position)
                                }
                            }
                            entries[try #require(posts[doc])] = positions
                        }
                        postings[kind + ":" + term] = entries
                    }
                }
            }
            let days = try #require(read(SearchIndexWriter.daysPath).flatMap(SearchIndexWriter.parseDays))
            let late = try #require(read(SearchIndexWriter.latePath).flatMap(SearchIndexWriter.parseLate))
            let lateByDoc = Dictionary(uniqueKeysWithValues: late.map { ($0.doc, $0) })
            #expect(late.count == (manifest.late), "the manifest counts the late documents")
            var at = -1
            for doc in 0..<manifest.docs {
                if let entry = lateByDoc[doc] {
                    self.days[posts[doc] ?? ""] = entry.day
                    continue
                }
                while at + 1 < days.count && days[at + 1].1 <= doc { at += 1 }
                self.days[posts[doc] ?? ""] = at >= 0 ? days[at].0 : -1
            }
            // As search.js's `newer`: a late document just before its point, by rank.
            func place(_ doc: Int) -> (Int, Int, Int) {
                lateByDoc[doc].map { ($0.point, 0, $0.rank) } ?? (doc, 1, 0)
            }
            newest = (0..<manifest.docs).sorted { place($0) > place($1) }.compactMap { posts[$0] }
        }
    }

    /// A copy of the reading site's store (with its WAL) in a new folder.
    static func storeCopy(_ name: String) async throws -> (folder: URL, path: String) {
        let built = try await ReadingSiteFixture.shared.site()
        let folder = try Fixtures.temporaryFolder(name)
        let path = folder.appendingPathComponent("archive.sqlite").path
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: built.storePath + suffix) {
            try FileManager.default.copyItem(atPath: built.storePath + suffix, toPath: path + suffix)
        }
        return (folder, path)
    }

    /// A copy of the reading site's store, its index written whole, 8
    /// documents a shard as before 16 was the default (a few hundred posts
    /// make 32 or 64 shards: most tests need many).
    static func indexedCopy(_ name: String) async throws -> (
        path: String, store: ArchiveStore, writer: SearchIndexWriter, site: Recorder, first: SearchIndexWriter.Report
    ) {
        let (_, path) = try await Self.storeCopy(name)
        let store = try ArchiveStore(path: path)
        var writer = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
        writer.documentsPerShard = 8
        let site = Recorder()
        let first = try writer.update(SearchChanges(threads: nil), site.output)
        return (path, store, writer, site, first)
    }

    /// A copy of the reading site's store with one thread left: its first
    /// post "甲" (its title too) and 150 replies "甲", so that an index of
    /// 32 shards has only a few terms, and most shards hold nothing.
    static func sparseCopy(_ name: String) async throws -> (path: String, store: ArchiveStore) {
        let (_, path) = try await Self.storeCopy(name)
        let access = try GRDBTestAccess.open(path)
        try await access.queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.inTransaction {
                let keep = try #require(
                    try Row.fetchOne(db, sql: "SELECT board, gid FROM post WHERE floor = 0 LIMIT 1"))
                try db.execute(
                    sql: "DELETE FROM post WHERE NOT (board = ? AND gid = ? AND floor = 0)",
                    arguments: [keep["board"] as String, keep["gid"] as Int])
                try db.execute(sql: "UPDATE post SET body = '甲', signature = NULL")
                try db.execute(
                    sql: "UPDATE thread SET title = '甲' WHERE board = ? AND gid = ?",
                    arguments: [keep["board"] as String, keep["gid"] as Int])
                return .commit
            }
        }
        let store = try ArchiveStore(path: path)
        _ = try await insert(path, store, (0..<150).map { (0, Int64($0 + 1), "甲") })
        return (path, store)
    }

    /// Characters from 乙 on whose shard (of `shards`) is not in `present`.
    static func absentCharacters(_ shards: Int, present: Set<Int>) -> [String] {
        (0..<2000).compactMap { Unicode.Scalar(0x4E59 + $0).map { String(Character($0)) } }
            .filter { !present.contains(Int(SearchIndexWriter.hash($0) % UInt32(shards))) }
    }

    /// Inserts posts (thread index in `SELECT … GROUP BY board, gid`, seconds
    /// from the newest post, body) as new floors; returns the changes a build would see.
    static func insert(
        _ path: String, _ store: ArchiveStore, _ posts: [(thread: Int, offset: Int64, body: String)]
    ) async throws -> SearchChanges {
        let access = try GRDBTestAccess.open(path)
        let before = try await access.queue.write { db in
            let before = try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM build_change") ?? 0
            let newest = try Int64.fetchOne(db, sql: "SELECT max(postedAt) FROM post") ?? 0
            let threads = try Row.fetchAll(
                db,
                sql: "SELECT board, gid, max(floor) AS floor, author FROM post GROUP BY board, gid ORDER BY board, gid")
            var floors: [Int: Int] = [:]
            for post in posts {
                let row = threads[post.thread % threads.count]
                let floor = (floors[post.thread] ?? (row["floor"] as Int)) + 1
                floors[post.thread] = floor
                try db.execute(
                    sql: "INSERT INTO post (board, gid, floor, author, postedAt, body) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [
                        row["board"] as String, row["gid"] as Int, floor, row["author"] as String,
                        newest + post.offset, post.body,
                    ])
            }
            return before
        }
        return SearchChanges(try store.buildChanges(after: before))
    }

    /// With no recent tail (`recentLimit` 0: every append is flushed), as
    /// when the recent tail is flushed.
    @Test func aFlushWritesTheTailsOfItsShardsAndFlagsThoseShardsOnce() async throws {
        let (path, store, appending, site, first) = try await Self.indexedCopy("search-index")
        var writer = appending
        writer.recentLimit = 0
        #expect(first.full)
        #expect(first.documents == (try store.counts().posts))
        // Every shard holds something: the manifest lists none absent.
        let manifest = try #require(
            site.publisher.read(SearchIndexWriter.manifestPath).flatMap(SearchIndexWriter.parseManifest))
        #expect(manifest.present == Set(0..<first.shards))
        #expect(
            String(decoding: try #require(site.publisher.read(SearchIndexWriter.manifestPath)), as: UTF8.self)
                .contains("\"absent\":\"\""))
        // A full pass writes no tails, and no shard names one.
        #expect(!site.publisher.files.keys.contains { $0.hasPrefix("search/t/") })
        for shard in 0..<first.shards {
            let main = try #require(site.publisher.read(SearchIndexWriter.shardPath(shard)))
            #expect(SearchIndexWriter.shardHasTail(main) == false)
        }
        site.written = []
        let again = try writer.update(SearchChanges(threads: []), site.output)
        #expect(!again.full)
        #expect(site.written.isEmpty, "nothing changed, yet \(site.written.count) files were written")

        // A new reply, the newest post of the archive.
        let body = "迟到的回复：鄱阳湖的候鸟 Zyxwvut 2048\n看看"
        let changes = try await Self.insert(path, store, [(0, 60, body)])
        #expect(changes.threads?.count == 1)
        let thread = try #require(changes.threads?.first)
        let author = try #require(try store.posts(board: thread.board, gid: thread.gid).last?.author)

        site.written = []
        let appended = try writer.update(changes, site.output)
        #expect(!appended.full)
        #expect(appended.appended == 1)
        let shards = first.shards
        var touched = Set<Int>()
        let normalized = SearchText.normalize(body)
        for term in SearchText.terms(normalized).unigrams.union(SearchText.terms(normalized).bigrams.keys)
            .union(["b:" + thread.board.lowercased(), "a:" + author.lowercased()])
        {
            touched.insert(Int(SearchIndexWriter.hash(term) % UInt32(shards)))
        }
        // Each touched shard gets its first tail and is written again, once,
        // flagged; no shard is merged on the first reply. The recent tail
        // is written empty.
        let chunk = SearchIndexWriter.chunkPath(first.documents / SearchIndexWriter.docsPerChunk)
        let expected = Set(touched.map(SearchIndexWriter.tailPath)).union(touched.map(SearchIndexWriter.shardPath))
            .union([chunk, SearchIndexWriter.manifestPath, SearchIndexWriter.recentPath])
        #expect(Set(site.written).subtracting([SearchIndexWriter.daysPath]) == expected)
        #expect(touched.count < shards / 2, "the reply's terms fall in most shards; the test proves little")
        for shard in 0..<shards {
            let main = try #require(site.publisher.read(SearchIndexWriter.shardPath(shard)))
            #expect(SearchIndexWriter.shardHasTail(main) == touched.contains(shard), "shard \(shard)")
            #expect((site.publisher.read(SearchIndexWriter.tailPath(shard)) != nil) == touched.contains(shard))
        }

        // A second reply with the same words: only tails now, the shards stay.
        let again2 = try await Self.insert(path, store, [(0, 120, body)])
        site.written = []
        #expect(try writer.update(again2, site.output).appended == 1)
        #expect(
            Set(site.written).subtracting([SearchIndexWriter.daysPath]).filter { $0.hasPrefix("search/s/") }.isEmpty)
        #expect(Set(site.written).isSuperset(of: touched.map(SearchIndexWriter.tailPath)))

        // What a full pass over the store says.
        let fresh = Recorder()
        let full = try writer.update(SearchChanges(threads: nil), fresh.output)
        #expect(full.full)
        #expect(full.documents == first.documents + 2)
        #expect(
            site.files.keys.filter { !$0.hasPrefix("search/t/") && $0 != SearchIndexWriter.recentPath }.sorted()
                == fresh.files.keys.sorted())
        let appendedContent = try Content(site.publisher.read)
        let freshContent = try Content(fresh.publisher.read)
        #expect(appendedContent == freshContent)
        #expect(appendedContent.postings["u:鄱"]?.count ?? 0 >= 1)
    }

    /// `site`'s output, which fails at the first file `stopsAt` names and
    /// writes nothing after it, as a run stopped there leaves the folder.
    static func stopping(_ site: Recorder, at stopsAt: @escaping @Sendable (String) -> Bool) -> SearchIndexWriter.Output
    {
        let output = site.output
        let stopped = Mutex(false)
        return SearchIndexWriter.Output(
            read: output.read,
            write: { data, path throws(ArchiveError) in
                let stop = stopped.withLock { stopped in
                    if stopsAt(path) { stopped = true }
                    return stopped
                }
                if stop { throw ArchiveError.outputUnwritable(path: path, reason: "stopped here by the test") }
                return try output.write(data, path)
            })
    }

    /// An append stopped among its files (the shards' tails written, or
    /// some of them, and not the manifest) leaves an index that no later
    /// append may build on: the next build indexes everything again. Before,
    /// it appended the same posts a second time to the tails that held them
    /// already, and trapped ("Negative value is not representable") on every
    /// build until `build --full`.
    @Test(arguments: ["the manifest", "the first tail", "the first chunk"])
    func anAppendStoppedAmongItsFilesIsFollowedByAFullPass(stop: String) async throws {
        let (path, store, appending, site, first) = try await Self.indexedCopy("search-stopped-append")
        var writer = appending
        writer.recentLimit = 0
        // Each file written as soon as it is made (as when a pass makes
        // more than a batch of files), so the pass can stop between any two.
        writer.filesAtOnce = 1
        let body = "迟到的回复：鄱阳湖的候鸟 Zyxwvut 2048\n看看"
        let changes = try await Self.insert(path, store, [(0, 60, body), (1, 120, body), (2, 180, body)])
        let stopsAt: @Sendable (String) -> Bool =
            switch stop {
            case "the manifest": { $0 == SearchIndexWriter.manifestPath }
            case "the first tail": { $0.hasPrefix("search/t/") }
            default: { $0.hasPrefix("search/d/") }
            }
        #expect(throws: ArchiveError.self) { try writer.update(changes, Self.stopping(site, at: stopsAt)) }

        let again = try writer.update(changes, site.output)
        #expect(again.full && again.documents == first.documents + 3)
        let full = Recorder()
        _ = try writer.update(SearchChanges(threads: nil), full.output)
        let content = try Content(site.publisher.read)
        #expect(content == (try Content(full.publisher.read)))
        #expect(content.postings["u:鄱"]?.count ?? 0 >= 3)
    }

    /// A full pass deletes the files of an earlier index that it did not
    /// write (chunks past the new count, tails of appends, another shard
    /// count's shards: 53 `search/d` files after an upgrade from version
    /// 9), after its manifest; an append deletes nothing.
    @Test func aFullPassLeavesNoFileOfAnEarlierIndex() async throws {
        let (path, store, writer, site, _) = try await Self.indexedCopy("search-leftovers")
        var appending = writer
        // Appended postings go straight to the shards' tails.
        appending.recentLimit = 0
        let changes = try await Self.insert(path, store, [(0, 60, "后来的回复 Leftover")])
        #expect(!(try appending.update(changes, site.output)).full)
        let tails = site.publisher.files(in: "search/t")
        #expect(!tails.isEmpty, "the append wrote no tail; the test proves little")
        let stale = ["search/d/99999.js", "search/s/fffff.js", "search/p/fffff.js", "search/t/fffff.js"]
        for file in stale { _ = try site.publisher.write(Data("x".utf8), to: file) }
        let kept = "search/unrelated.txt"
        _ = try site.publisher.write(Data("y".utf8), to: kept)
        // An append leaves them.
        let more = try await Self.insert(path, store, [(1, 120, "又一条 Leftover")])
        #expect(!(try appending.update(more, site.output)).full)
        for file in stale { #expect(site.publisher.exists(file), "\(file)") }
        // A full pass deletes them, and only them.
        #expect(try appending.update(SearchChanges(threads: nil), site.output).full)
        for file in stale + tails { #expect(!site.publisher.exists(file), "\(file)") }
        #expect(site.publisher.exists(kept))
        let full = Recorder()
        _ = try writer.update(SearchChanges(threads: nil), full.output)
        func perShard(_ files: [String: Data]) -> [String: Data] {
            files.filter { file in SearchIndexWriter.fileFolders.contains { file.key.hasPrefix($0 + "/") } }
        }
        #expect(perShard(site.files) == perShard(full.files))
    }

    /// A site indexed with another number of documents a shard (8, before
    /// 16 was the default) is indexed again whole by the next build, even
    /// for one new reply, and ends as a first build with the default would
    /// write it: no shard, tail or positions file of the old count is left.
    @Test func anIndexOfAnotherShardSizeIsWrittenAgainWhole() async throws {
        let (path, store, old, site, first) = try await Self.indexedCopy("search-shard-size")
        let current = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
        #expect(current.documentsPerShard > old.documentsPerShard)
        let shards = { (documents: Int) in
            SearchIndexWriter.shardCount(documents: documents, per: current.documentsPerShard)
        }
        #expect(shards(first.documents) < first.shards, "the store is too small to tell the sizes apart")
        let changes = try await Self.insert(path, store, [(0, 60, "换了分片的回复")])
        let report = try current.update(changes, site.output)
        #expect(report.full)
        #expect(report.shards == shards(first.documents + 1))
        let fresh = Recorder()
        _ = try current.update(SearchChanges(threads: nil), fresh.output)
        #expect(site.files == fresh.files)
        // And the next reply is appended to it.
        let more = try await Self.insert(path, store, [(1, 120, "又一条")])
        #expect(!(try current.update(more, site.output)).full)
    }

    /// While a pass writes its files, the store and the manifest on disk
    /// never name the same index: a run stopped between any two files
    /// (killed, so what the store had not committed is gone) leaves an
    /// index the next build writes again whole. Checked at every file but
    /// the manifest, from another connection to the store (what a stop
    /// would leave of it), for a full pass over an index, whose chunks
    /// number the posts anew, and for an append flushed into the tails.
    @Test func whileAPassWritesItsFilesTheStoreAndTheManifestNameNoIndexInCommon() async throws {
        let (path, store, appending, site, _) = try await Self.indexedCopy("search-pass-window")
        var writer = appending
        writer.recentLimit = 0
        writer.filesAtOnce = 1
        let access = try GRDBTestAccess.open(path)
        let watched = site.watched {
            try? access.queue.read { db in try String.fetchAll(db, sql: "SELECT id FROM search_index") }
        }
        // A post older than every other: the full pass numbers every post anew.
        _ = try await Self.insert(path, store, [(0, -86_400 * 365 * 20, "很久以前的回复 Zyxwvut")])
        #expect(try writer.update(SearchChanges(threads: nil), watched).full)
        let body = "迟到的回复：鄱阳湖的候鸟 Zyxwvut 2048\n看看"
        let changes = try await Self.insert(path, store, [(0, 60, body), (1, 120, body)])
        let appended = try writer.update(changes, watched)
        #expect(!appended.full && appended.appended == 2)
        let written = site.written.count
        #expect(written > 10, "the passes wrote \(written) files; the test proves little")
        #expect(site.lock.withLock { site.agreed }.isEmpty)
    }

    /// One new reply rewrites the recent tail, the last chunk and the
    /// manifest (and the day table), not the shards or tails of its 40-odd
    /// terms; so does the next. Past `recentLimit`, the recent tail is
    /// flushed into the tails of its shards. Each time, the index says what
    /// a full pass says.
    @Test func oneNewReplyRewritesTheRecentTailNotItsShards() async throws {
        let (path, store, appending, site, first) = try await Self.indexedCopy("search-recent")
        var writer = appending
        #expect(first.full)
        let body = "迟到的回复：鄱阳湖的候鸟 Zyxwvut 2048\n看看"
        let normalized = SearchText.normalize(body)
        var touched = Set<Int>()
        for term in SearchText.terms(normalized).unigrams.union(SearchText.terms(normalized).bigrams.keys) {
            touched.insert(Int(SearchIndexWriter.hash(term) % UInt32(first.shards)))
        }
        #expect(touched.count > 5, "the reply's terms fall in few shards; the test proves little")
        var documents = first.documents
        for round in 0..<2 {
            let changes = try await Self.insert(path, store, [(0, Int64(60 * (round + 1)), body)])
            site.written = []
            let appended = try writer.update(changes, site.output)
            #expect(!appended.full && appended.appended == 1)
            let chunk = SearchIndexWriter.chunkPath(documents / SearchIndexWriter.docsPerChunk)
            documents += 1
            #expect(
                Set(site.written).subtracting([SearchIndexWriter.daysPath, SearchIndexWriter.latePath])
                    == [SearchIndexWriter.recentPath, chunk, SearchIndexWriter.manifestPath], "reply \(round + 1)")
            let manifest = try #require(
                site.publisher.read(SearchIndexWriter.manifestPath).flatMap(SearchIndexWriter.parseManifest))
            let recent = try #require(site.publisher.read(SearchIndexWriter.recentPath))
            #expect(manifest.recent == recent.count)
            let full = Recorder()
            _ = try writer.update(SearchChanges(threads: nil), full.output)
            #expect(try Content(site.publisher.read) == Content(full.publisher.read), "reply \(round + 1)")
        }
        #expect(!site.publisher.files.keys.contains { $0.hasPrefix("search/t/") })

        // A third reply takes the recent tail past its limit: its postings
        // (all three replies') go to the tails of their shards, and it is
        // left empty, which the manifest says by not naming it.
        let size = try #require(site.publisher.read(SearchIndexWriter.recentPath)).count
        writer.recentLimit = size
        let changes = try await Self.insert(path, store, [(0, 180, body)])
        site.written = []
        #expect(try !writer.update(changes, site.output).full)
        let manifest = try #require(
            site.publisher.read(SearchIndexWriter.manifestPath).flatMap(SearchIndexWriter.parseManifest))
        #expect(manifest.recent == 0)
        #expect(try #require(site.publisher.read(SearchIndexWriter.recentPath)).count < size / 4)
        for shard in touched {
            let paths = [SearchIndexWriter.tailPath(shard), SearchIndexWriter.shardPath(shard)]
            #expect(paths.contains(where: site.written.contains), "shard \(shard)")
        }
        let full = Recorder()
        _ = try writer.update(SearchChanges(threads: nil), full.output)
        let content = try Content(site.publisher.read)
        #expect(content == (try Content(full.publisher.read)))
        #expect(content.postings["u:鄱"]?.count ?? 0 >= 3)
    }

    /// The files of a full pass are the same bytes on one thread and on
    /// four, with postings spilled to disk or not.
    /// What `search.js` reads of a chunk over HTTP: from byte 16, six hex
    /// digits of the header's length, then the rows' byte lengths as base64
    /// of varints; the rows start after `",K,[` and a line break. Each
    /// range it computes holds exactly that row (and its separator), CJK,
    /// escapes and a long row included; `chunkRows` reads the same rows,
    /// and `chunkRow` each of them alone.
    @Test(arguments: [1, 3, SearchIndexWriter.docsPerChunk]) func aChunksHeaderLocatesEveryRow(count: Int) throws {
        let rows = (0..<count).map { n in
            "[\"B\",\(n),0,1,\"a\",\"2025-01-01 00:00\",\"标题\\\"\\n\",\""
                + String(repeating: "水木", count: n % 3 == 2 ? 40_000 : n) + "\"]"
        }
        let index = 37
        let data = SearchIndexWriter.chunkScript(index, rows.map { Array($0.utf8) })
        let bytes = [UInt8](data)
        #expect(String(decoding: bytes[0..<16], as: UTF8.self) == "BBSSearch.docs(\"")
        let size = try #require(Int(String(decoding: bytes[16..<22], as: UTF8.self), radix: 16))
        let list = try #require(Data(base64Encoded: Data(bytes[22..<(22 + size)])))
        let lengths = ListCoding.values([UInt8](list))
        #expect(lengths.count == count)
        var at = 22 + size + "\",\(index),[\n".utf8.count
        #expect(String(decoding: bytes[(22 + size)..<at], as: UTF8.self) == "\",\(index),[\n")
        for (row, length) in zip(rows, lengths) {
            var text = String(decoding: bytes[at..<(at + length)], as: UTF8.self)
            if text.hasSuffix(",\n") { text.removeLast(2) }
            #expect(text == row)
            at += length
        }
        #expect(String(decoding: bytes[at...], as: UTF8.self) == "]);\n")
        #expect(SearchIndexWriter.chunkRows(data) == rows)
        // One row by its line, as a late post's placing reads it.
        #expect((0..<count).map { SearchIndexWriter.chunkRow(data, $0) } == rows)
        #expect(SearchIndexWriter.chunkRow(data, count) == nil)
        #expect(SearchIndexWriter.chunkRow(data, -1) == nil)
        #expect(SearchIndexWriter.chunkRow(Data(), 0) == nil)
    }

    @Test func aFullPassIsTheSameOnOneCoreAndOnSeveral() async throws {
        let (_, _, writer, site, _) = try await Self.indexedCopy("search-cores")
        var serial = writer
        serial.cores = 1
        serial.spillThreshold = 4096
        let one = Recorder()
        _ = try serial.writeAll(one.output)
        var parallel = writer
        parallel.cores = 4
        let four = Recorder()
        _ = try parallel.writeAll(four.output)
        #expect(one.publisher.files.count > 100)
        #expect(one.publisher.files == four.publisher.files)
        #expect(site.publisher.files == four.publisher.files)
        // Two buckets instead of one a shard: the same files.
        var fewer = writer
        fewer.leastBuckets = 2
        fewer.documentsPerBucket = 1 << 30
        let two = Recorder()
        _ = try fewer.writeAll(two.output)
        #expect(two.publisher.files == four.publisher.files)
        // Three (not a power of two: bucket and slot found by division, not by mask): the same files.
        fewer.leastBuckets = 3
        let three = Recorder()
        _ = try fewer.writeAll(three.output)
        #expect(three.publisher.files == four.publisher.files)
    }

    /// A full pass writes its chunks as each batch of posts is worked out
    /// (not from the thread that reads the store) and each bucket's shards
    /// as soon as it is assembled: the same files whatever the size of a
    /// batch (a chunk never spans two), and every chunk there.
    @Test func aFullPassIsTheSameWhateverTheBatch() async throws {
        let (_, _, writer, site, first) = try await Self.indexedCopy("search-batches")
        #expect(first.documents > 40)
        for size in [4, 8, 12] {
            var small = writer
            small.batchSize = size
            let recorder = Recorder()
            _ = try small.writeAll(recorder.output)
            #expect(recorder.files == site.files, "batches of \(size)")
        }
        let chunks = site.files.keys.filter { $0.hasPrefix("search/d/") }
        #expect(chunks.count == (first.documents + SearchIndexWriter.docsPerChunk - 1) / SearchIndexWriter.docsPerChunk)
        let last = (first.documents - 1) / SearchIndexWriter.docsPerChunk
        let rows = try #require(site.files[SearchIndexWriter.chunkPath(last)].map(SearchIndexWriter.chunkRows))
        #expect(rows.count == first.documents - last * SearchIndexWriter.docsPerChunk)
    }

    /// A file that cannot be written, a chunk (written beside the reading
    /// of the store) or a shard (by the cores that assemble them), fails
    /// the pass with its error, and the manifest, written last, is not
    /// written: the next build indexes everything again.
    @Test(arguments: [SearchIndexWriter.chunkPath(3), "search/s/"])
    func aFullPassThatCannotWriteAFileFails(_ failing: String) async throws {
        let (_, _, writer, _, _) = try await Self.indexedCopy("search-unwritable")
        let recorder = Recorder()
        let output = SearchIndexWriter.Output(
            read: recorder.output.read,
            write: { data, path throws(ArchiveError) in
                if path.hasPrefix(failing) { throw .outputUnwritable(path: path, reason: "test") }
                return try recorder.output.write(data, path)
            })
        var thrown: ArchiveError?
        do throws(ArchiveError) {
            _ = try writer.writeAll(output)
        } catch {
            thrown = error
        }
        guard case .outputUnwritable(let path, let reason) = try #require(thrown) else {
            Issue.record("unexpected error \(String(describing: thrown))")
            return
        }
        #expect(path.hasPrefix(failing))
        #expect(reason == "test")
        #expect(recorder.publisher.read(SearchIndexWriter.manifestPath) == nil)
    }

    /// Buckets hold about the same number of documents at any size, so
    /// decoding one takes the same memory: 64 up to 262,144 documents,
    /// then doubled, never more than the shards.
    @Test func bucketsGrowWithTheArchiveNotTheirSize() {
        func count(_ documents: Int) -> Int {
            SearchIndexWriter.bucketCount(
                documents: documents, shards: SearchIndexWriter.shardCount(documents: documents, per: 16), per: 4096,
                least: 64)
        }
        #expect(count(100) == 16)
        #expect(count(99_988) == 64)
        #expect(count(262_144) == 64)
        #expect(count(1_000_882) == 256)
        #expect(count(10_000_000) == 4096)
        #expect(SearchIndexWriter.bucketCount(documents: 5000, shards: 1024, per: 1 << 30, least: 2) == 2)
    }

    /// The full pass reads posts in time order with the store's page cache
    /// up to 262,144 posts, with more above it, and never more than 64 MB,
    /// whatever the size of the archive.
    @Test func thePassCacheGrowsWithTheArchiveToABound() {
        #expect(SearchIndexWriter.passCacheKiB(documents: 0) == ArchiveStore.pageCacheKiB)
        #expect(SearchIndexWriter.passCacheKiB(documents: 99_988) == ArchiveStore.pageCacheKiB)
        #expect(SearchIndexWriter.passCacheKiB(documents: 262_144) == ArchiveStore.pageCacheKiB)
        #expect(SearchIndexWriter.passCacheKiB(documents: 1_000_882) == 62_555)
        #expect(SearchIndexWriter.passCacheKiB(documents: 10_000_000) == 64 * 1024)
        #expect(SearchIndexWriter.passCacheKiB(documents: Int.max) == 64 * 1024)
    }

    /// A full pass spells its shards straight from numbers
    /// (`KeyedShard.scripts`); read back, the same lists spelled by the
    /// encoders that appends use (`shardScript`, `positionsScript`) are the
    /// same bytes, characters, pairs with counts and positions, and filters alike.
    @Test func aFullPassSpellsShardsAsTheListEncodersDo() async throws {
        let (_, _, _, site, _) = try await Self.indexedCopy("search-spelling")
        let files = site.publisher.files
        var shards = 0
        var withPositions = 0
        var withCounts = 0
        for (path, data) in files where path.hasPrefix("search/s/") {
            let index = try #require(Int(path.dropFirst("search/s/".count).dropLast(".js".count), radix: 16))
            let positions = files[SearchIndexWriter.positionsPath(index)]
            let shard = try #require(SearchIndexWriter.parseShard(data, positions: positions, index: index))
            let lists = shard.lists()
            #expect(SearchIndexWriter.shardScript(index, lists, tail: false) == data, "\(path)")
            if let positions {
                #expect(SearchIndexWriter.positionsScript(index, lists) == positions, "\(path)")
                withPositions += 1
            }
            if String(decoding: data, as: UTF8.self).contains(".") { withCounts += 1 }
            shards += 1
        }
        #expect(shards > 10 && withPositions > 10 && withCounts > 0)
    }

    /// A shard that holds nothing has no file, and the manifest does not
    /// list it; the first term that falls in it on an append writes that
    /// shard whole (no tail) and lists it, and the index says what a full pass says.
    @Test func theFirstTermOfAnEmptyShardWritesItAndTheManifestListsIt() async throws {
        let (path, store) = try await Self.sparseCopy("search-absent")
        // Every append flushed into the shards, as when the recent tail overflows.
        var writer = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
        writer.recentLimit = 0
        writer.documentsPerShard = 8
        let site = Recorder()
        let first = try writer.update(SearchChanges(threads: nil), site.output)
        #expect(first.full)
        let manifest = try #require(
            site.publisher.read(SearchIndexWriter.manifestPath).flatMap(SearchIndexWriter.parseManifest))
        #expect(manifest.shards == 32)
        #expect(!manifest.present.isEmpty && manifest.present.count < manifest.shards / 2)
        // Few shards hold something: the manifest lists those.
        let manifestText = String(
            decoding: try #require(site.publisher.read(SearchIndexWriter.manifestPath)), as: UTF8.self)
        #expect(manifestText.contains("\"present\":\"") && !manifestText.contains("\"absent\""))
        for shard in 0..<manifest.shards {
            #expect(
                (site.publisher.read(SearchIndexWriter.shardPath(shard)) != nil) == manifest.present.contains(shard),
                "shard \(shard)")
        }

        // A reply whose terms fall in shards without a file.
        let character = try #require(Self.absentCharacters(manifest.shards, present: manifest.present).first)
        let text = character + character
        let changes = try await Self.insert(path, store, [(0, 1000, text)])
        let absent = Set([character, text].map { Int(SearchIndexWriter.hash($0) % UInt32(manifest.shards)) })
            .subtracting(manifest.present)
        #expect(!absent.isEmpty)
        site.written = []
        let appended = try writer.update(changes, site.output)
        #expect(!appended.full)
        #expect(appended.appended == 1)
        let after = try #require(
            site.publisher.read(SearchIndexWriter.manifestPath).flatMap(SearchIndexWriter.parseManifest))
        #expect(after.present == manifest.present.union(absent))
        for shard in absent {
            let main = try #require(site.publisher.read(SearchIndexWriter.shardPath(shard)))
            #expect(SearchIndexWriter.shardHasTail(main) == false, "a new shard is written whole")
            #expect(site.publisher.read(SearchIndexWriter.tailPath(shard)) == nil)
            #expect(site.written.contains(SearchIndexWriter.shardPath(shard)))
        }
        let fresh = Recorder()
        _ = try writer.update(SearchChanges(threads: nil), fresh.output)
        let appendedContent = try Content(site.publisher.read)
        #expect(appendedContent == (try Content(fresh.publisher.read)))
        #expect(appendedContent.postings["b:" + text]?.count == 1)
        #expect(appendedContent.postings["u:" + character]?.count == 1)
    }

    /// Posts older than the newest indexed one (a board added, a thread
    /// fetched again) are appended too, and placed in time for sorting and dates.
    @Test func oldPostsAreAppendedWithoutIndexingEverythingAgain() async throws {
        let (path, store, writer, site, first) = try await Self.indexedCopy("search-old")
        let day: Int64 = 86_400
        // Two old posts in the same second (the same point, ranked by
        // thread), one older still, and a new one, over three builds.
        let changes = try await Self.insert(
            path, store,
            [(3, -40 * day, "旧帖重来 Qwertz 一"), (1, -40 * day, "旧帖重来 Qwertz 二"), (5, 30, "新的回复 Qwertz")])
        let report = try writer.update(changes, site.output)
        #expect(!report.full)
        #expect(report.appended == 3)
        let more = try await Self.insert(
            path, store, [(7, -400 * day, "更旧的帖 Qwertz 三"), (2, -40 * day, "旧帖重来 Qwertz 四")])
        let second = try writer.update(more, site.output)
        #expect(!second.full)
        #expect(second.appended == 2)
        let late = try #require(site.publisher.read(SearchIndexWriter.latePath).flatMap(SearchIndexWriter.parseLate))
        #expect(late.count == 4)
        #expect(late.allSatisfy { $0.doc >= first.documents })

        let fresh = Recorder()
        let full = try writer.update(SearchChanges(threads: nil), fresh.output)
        #expect(full.full)
        let appendedContent = try Content(site.publisher.read)
        let freshContent = try Content(fresh.publisher.read)
        #expect(appendedContent.newest == freshContent.newest, "newest first differs from a full pass")
        #expect(appendedContent.days == freshContent.days)
        #expect(appendedContent == freshContent)
        #expect(appendedContent.postings["u:q"]?.count ?? 0 >= 5)
    }

    /// A late post's point is looked for within its day (`days.js`), and
    /// only there when the run documents either side of that day agree: a
    /// `days.js` that does not describe the run (shifted, or out of order)
    /// costs time, never a post placed wrong.
    @Test(arguments: ["shifted", "reversed"])
    func latePostsArePlacedRightWhateverTheDaysFileSays(_ damage: String) async throws {
        let (path, store, writer, site, _) = try await Self.indexedCopy("search-days-\(damage)")
        let (rightPath, rightStore, rightWriter, rightSite, _) = try await Self.indexedCopy(
            "search-days-right-\(damage)")
        let day: Int64 = 86_400
        let posts: [(thread: Int, offset: Int64, body: String)] = [
            (3, -40 * day, "旧帖重来 Qwertz 一"), (1, -3 * day, "前几天的 Qwertz 二"), (7, -400 * day, "更旧的帖 Qwertz 三"),
            (5, -day / 2, "昨天的帖 Qwertz 四"),
        ]
        let days = try #require(site.publisher.read(SearchIndexWriter.daysPath).flatMap(SearchIndexWriter.parseDays))
        #expect(days.count > 3, "the fixture spans several days")
        let wrong = damage == "shifted" ? days.map { ($0.0, $0.1 + 7) } : days.reversed()
        _ = try site.publisher.write(SearchIndexWriter.daysScript(Array(wrong)), to: SearchIndexWriter.daysPath)
        let report = try writer.update(try await Self.insert(path, store, posts), site.output)
        let rightReport = try rightWriter.update(try await Self.insert(rightPath, rightStore, posts), rightSite.output)
        #expect(!report.full && !rightReport.full)
        let placed = site.publisher.read(SearchIndexWriter.latePath).flatMap(SearchIndexWriter.parseLate)
        let expected = rightSite.publisher.read(SearchIndexWriter.latePath).flatMap(SearchIndexWriter.parseLate)
        #expect(placed?.count == 4)
        #expect(placed == expected)
        // And as a full pass orders them.
        let fresh = Recorder()
        _ = try rightWriter.update(SearchChanges(threads: nil), fresh.output)
        #expect(try Content(rightSite.publisher.read).newest == (try Content(fresh.publisher.read)).newest)
    }

    /// Posts of one thread made in the same second are numbered by floor,
    /// whatever order the store holds them in: the full pass reads posts
    /// in `post_by_time` order (time, board, thread), which leaves the
    /// floors of such a run in the order they were stored.
    @Test func aFullPassNumbersThePostsOfOneSecondByFloor() async throws {
        let (_, path) = try await Self.storeCopy("search-same-second")
        let access = try GRDBTestAccess.open(path)
        let (board, gid, last) = try await access.queue.write { db in
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT board, gid, max(floor) AS floor, author FROM post
                        GROUP BY board, gid ORDER BY board, gid LIMIT 1
                        """))
            let newest = try Int64.fetchOne(db, sql: "SELECT max(postedAt) FROM post") ?? 0
            let board: String = row["board"]
            let gid: Int = row["gid"]
            let last: Int = row["floor"]
            // Stored last floor first, all in one second (the newest).
            for floor in [last + 3, last + 1, last + 2] {
                try db.execute(
                    sql: "INSERT INTO post (board, gid, floor, author, postedAt, body) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [board, gid, floor, row["author"] as String, newest + 60, "同一秒 \(floor)"])
            }
            return (board, gid, last)
        }
        let store = try ArchiveStore(path: path)
        let writer = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
        let site = Recorder()
        let report = try writer.update(SearchChanges(threads: nil), site.output)
        #expect(report.full)
        var places: [String] = []
        for doc in report.documents - 3..<report.documents {
            let rows = try #require(
                site.publisher.read(SearchIndexWriter.chunkPath(doc / SearchIndexWriter.docsPerChunk)).map(
                    SearchIndexWriter.chunkRows))
            let row = try #require(
                try JSONSerialization.jsonObject(with: Data(rows[doc % SearchIndexWriter.docsPerChunk].utf8)) as? [Any])
            places.append("\(row[0])/\(row[1])/\(row[2])")
        }
        #expect(places == (1...3).map { "\(board)/\(gid)/\(last + $0)" })
    }

    /// A tail that grows past its share of the shard is merged into it, and
    /// the index still says what a full pass says.
    @Test func aTailMergesIntoItsShardWhenItGrows() async throws {
        let (path, store, appending, site, first) = try await Self.indexedCopy("search-merge")
        var writer = appending
        writer.recentLimit = 0
        var merged = Set<String>()
        for round in 0..<12 {
            let text = (0..<40).map { "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳\($0 * 7 + round)回" }.joined(separator: " ")
            let changes = try await Self.insert(path, store, [(round, Int64(60 * (round + 1)), text)])
            site.written = []
            let report = try writer.update(changes, site.output)
            #expect(!report.full)
            merged.formUnion(site.written.filter { $0.hasPrefix("search/s/") })
            for shard in 0..<first.shards
            where try SearchIndexWriter.shardHasTail(#require(site.publisher.read(SearchIndexWriter.shardPath(shard))))
                == true
            {
                let tail = try #require(site.publisher.read(SearchIndexWriter.tailPath(shard)))
                let parsed = try #require(SearchIndexWriter.parseTail(tail, index: shard))
                #expect(tail.count <= SearchIndexWriter.tailLimit(mainBytes: parsed.mainBytes), "tail \(shard)")
            }
        }
        #expect(!merged.isEmpty, "no tail grew past its share")
        let fresh = Recorder()
        _ = try writer.update(SearchChanges(threads: nil), fresh.output)
        #expect(try Content(site.publisher.read) == Content(fresh.publisher.read))
    }

    /// The store's map of the index (`search_thread`): after a full pass, a
    /// row a thread, with each of its posts once and the hash of its row in
    /// the chunks, whether the rows are written as each thread ends or all
    /// at the end, and though one thread's count of posts is short and
    /// another's is missing (those rows are completed at the end).
    @Test func theMapHoldsEachPostOfEachThreadOnceWithItsRowsHash() async throws {
        let (_, path) = try await Self.storeCopy("search-map")
        let access = try GRDBTestAccess.open(path)
        let (short, missing) = try await access.queue.write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT board, gid FROM thread_summary WHERE posts > 2 ORDER BY board, gid LIMIT 2")
            try #require(rows.count == 2)
            try db.execute(
                sql: "UPDATE thread_summary SET posts = 1 WHERE board = ? AND gid = ?",
                arguments: [rows[0]["board"] as String, rows[0]["gid"] as Int])
            try db.execute(
                sql: "DELETE FROM thread_summary WHERE board = ? AND gid = ?",
                arguments: [rows[1]["board"] as String, rows[1]["gid"] as Int])
            return (
                "\(rows[0]["board"] as String)/\(rows[0]["gid"] as Int)",
                "\(rows[1]["board"] as String)/\(rows[1]["gid"] as Int)"
            )
        }
        let truth = try await access.queue.read { db in
            var floors: [String: Set<Int>] = [:]
            for row in try Row.fetchAll(
                db,
                sql: "SELECT p.board, p.gid, p.floor FROM post p JOIN thread t ON t.board = p.board AND t.gid = p.gid")
            {
                floors["\(row[0] as String)/\(row[1] as Int)", default: []].insert(row[2])
            }
            return floors
        }
        #expect(truth[short]?.count ?? 0 > 2)
        #expect(truth[missing]?.count ?? 0 > 2)
        let store = try ArchiveStore(path: path)
        var maps: [[String: [Int: String]]] = []
        for batchBytes in [0, 4 << 20] {
            var writer = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
            writer.mapBatchBytes = batchBytes
            let site = Recorder()
            let report = try writer.update(SearchChanges(threads: nil), site.output)
            #expect(report.full)
            let (map, bytes) = try await access.queue.read { db in
                var map: [String: [Int: String]] = [:]
                var bytes = 0
                for row in try Row.fetchAll(db, sql: "SELECT board, gid, posts FROM search_thread") {
                    let posts: Data = row[2]
                    let parsed = try #require(SearchIndexWriter.threadPosts(posts))
                    map["\(row[0] as String)/\(row[1] as Int)"] = parsed
                    bytes += posts.count
                }
                return (map, bytes)
            }
            #expect(map.mapValues { Set($0.keys) } == truth, "batch \(batchBytes)")
            #expect(bytes == 16 * truth.values.reduce(0) { $0 + $1.count }, "a post twice, batch \(batchBytes)")
            // Each post's hash is its chunk row's.
            for doc in 0..<report.documents {
                let rows = try #require(
                    site.publisher.read(SearchIndexWriter.chunkPath(doc / SearchIndexWriter.docsPerChunk)).map(
                        SearchIndexWriter.chunkRows))
                let row = rows[doc % SearchIndexWriter.docsPerChunk]
                let fields = try #require(try JSONSerialization.jsonObject(with: Data(row.utf8)) as? [Any])
                let floor = try #require(fields[2] as? Int)
                #expect(map["\(fields[0])/\(fields[1])"]?[floor] == SearchIndexWriter.rowHash(row))
            }
            maps.append(map)
        }
        #expect(maps[0] == maps[1])
    }

    @Test func aThreadsRowOfTheMapReadsBackAndDamageIsRefused() {
        let posts = [
            (0, SearchIndexWriter.rowHash("甲")), (7, "0000000000000001"), (1 << 40, "ffffffffffffffff"),
            (3, SearchIndexWriter.rowHash("")),
        ]
        var bytes: [UInt8] = []
        for (floor, hash) in posts { SearchIndexWriter.appendThreadPost(floor: floor, hash: hash, to: &bytes) }
        #expect(bytes.count == 16 * posts.count)
        #expect(SearchIndexWriter.threadPosts(Data(bytes)) == Dictionary(uniqueKeysWithValues: posts))
        #expect(SearchIndexWriter.threadPosts(Data()) == [:])
        #expect(SearchIndexWriter.threadPosts(Data(bytes.dropLast())) == nil)
        #expect(SearchIndexWriter.threadPosts(Data(bytes + [0])) == nil)
    }

    /// A thread's row of the map that does not read back (not 16 bytes a
    /// post) is not trusted: a reply to that thread indexes everything
    /// again, and the map is whole afterwards.
    @Test func aDamagedRowOfTheMapIndexesEverythingAgain() async throws {
        let (path, store, writer, site, first) = try await Self.indexedCopy("search-map-damaged")
        let access = try GRDBTestAccess.open(path)
        let key = try await access.queue.write { db in
            let row = try #require(
                try Row.fetchOne(db, sql: "SELECT board, gid FROM post GROUP BY board, gid ORDER BY board, gid"))
            try db.execute(
                sql: "UPDATE search_thread SET posts = substr(posts, 1, length(posts) - 1) WHERE board = ? AND gid = ?",
                arguments: [row["board"] as String, row["gid"] as Int])
            return (row["board"] as String, row["gid"] as Int)
        }
        let changes = try await Self.insert(path, store, [(0, 60, "损坏之后 Damaged")])
        #expect(changes.threads?.contains(SearchChanges.ThreadKey(board: key.0, gid: key.1)) == true)
        let report = try writer.update(changes, site.output)
        #expect(report.full)
        #expect(report.documents == first.documents + 1)
        let posts = try await access.queue.read { db in
            try Data.fetchOne(
                db, sql: "SELECT posts FROM search_thread WHERE board = ? AND gid = ?", arguments: [key.0, key.1])
        }
        let count = try await access.queue.read { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM post WHERE board = ? AND gid = ?", arguments: [key.0, key.1])
        }
        #expect(try #require(posts).count == 16 * (count ?? 0))
    }

    /// A store whose index map is a row a post (before `v15-search-threads`)
    /// loses that map and the record of its index when it is opened: the
    /// next build indexes everything again, then appends as before.
    @Test func aStoreWithTheMapOfEarlierReleasesIndexesEverythingOnceThenAppends() async throws {
        let (path, _, _, site, first) = try await Self.indexedCopy("search-map-v14")
        let access = try GRDBTestAccess.open(path)
        // The store as a v14 one held it: the map a row a post, the index named.
        try await access.queue.write { db in
            try db.execute(
                sql: """
                    DELETE FROM grdb_migrations WHERE identifier = 'v15-search-threads';
                    DROP TABLE search_thread;
                    CREATE TABLE search_doc (
                      board TEXT NOT NULL, gid INTEGER NOT NULL, floor INTEGER NOT NULL,
                      doc INTEGER NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (board, gid, floor));
                    INSERT INTO search_doc SELECT board, gid, floor, 0, '0000000000000000' FROM post;
                    """)
        }
        let store = try ArchiveStore(path: path)
        let tables = try await access.queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'search%'")
        }
        #expect(Set(tables) == ["search_index", "search_thread"])
        #expect(
            try await access.queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM search_index") } == 0)

        let writer = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
        let changes = try await Self.insert(path, store, [(0, 60, "迁移之后 Migrated")])
        let again = try writer.update(changes, site.output)
        #expect(again.full)
        #expect(again.documents == first.documents + 1)
        let next = try await Self.insert(path, store, [(1, 120, "再一条 Appended")])
        let appended = try writer.update(next, site.output)
        #expect(!appended.full)
        #expect(appended.appended == 1)
    }

    @Test func anEditedOldPostIndexesEverythingAgain() async throws {
        let (_, path) = try await Self.storeCopy("search-edit")
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

    /// A post's place in its thread is how many of the thread's posts come
    /// before it: its floor where the floors run 0, 1, 2…, and otherwise
    /// what the count of earlier floors the full pass used to ask SQLite gives.
    @Test func aPostsPlaceCountsTheEarlierFloorsOfItsThread() throws {
        let queue = try DatabaseQueue()
        let floors: [(String, Int, [Int])] = [
            ("A", 1, [0, 1, 2]), ("A", 2, [0, 2, 5, 6]), ("B", 1, [1, 2]), ("B", 2, [0]), ("B", 3, [3]),
        ]
        let gapped = try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE post (board TEXT, gid INTEGER, floor INTEGER, PRIMARY KEY (board, gid, floor))")
            for (board, gid, list) in floors {
                for floor in list.reversed() {
                    try db.execute(sql: "INSERT INTO post VALUES (?, ?, ?)", arguments: [board, gid, floor])
                }
            }
            return try SearchIndexWriter.gappedThreads(db)
        }
        #expect(
            gapped == [
                .init(board: "A", gid: 2): [0, 2, 5, 6], .init(board: "B", gid: 1): [1, 2],
                .init(board: "B", gid: 3): [3],
            ])
        for (board, gid, list) in floors {
            for (place, floor) in list.enumerated() {
                #expect(SearchIndexWriter.position(floor: floor, in: gapped[.init(board: board, gid: gid)]) == place)
            }
        }
    }

    /// Spill records decode to the same shards whatever the number of
    /// buckets (a power of two, read by a shift, or not, by a division),
    /// on tricky text (full-width forms, emoji, combining marks, mixed
    /// scripts, empty posts), and damaged records fail with an error.
    @Test func spillRecordsDecodeAlikeWhateverTheBucketsAndRejectDamage() throws {
        let rows = Self.trickyRows()
        let shards = 16
        let folder = URL(fileURLWithPath: "/nonexistent")
        func decoded(buckets: Int) throws -> [Int: (shard: Data, positions: Data?)] {
            let records = SearchIndexWriter.prepare(
                rows, postsPerPage: 20, forum: Fixtures.smthForum, cores: 1,
                numbering: .init(firstDoc: 0, shards: shards, buckets: buckets)
            ).records
            var out: [Int: (shard: Data, positions: Data?)] = [:]
            var start = 0
            for span in records.spans {
                let bytes = Array(records.bytes[start..<span.end])
                start = span.end
                for (shard, keyed) in try SpillFiles.decode(
                    [bytes], bucket: span.bucket, folder: folder, shards: shards, buckets: buckets)
                {
                    #expect(shard % buckets == span.bucket)
                    out[shard] = keyed.scripts(shard)
                }
            }
            return out
        }
        let one = try decoded(buckets: 1)
        #expect(one.count > 4)
        for buckets in [2, 3, 4, 5, 16] {
            let other = try decoded(buckets: buckets)
            #expect(other.keys.sorted() == one.keys.sorted(), "\(buckets) buckets")
            for (shard, scripts) in one {
                #expect(other[shard]?.shard == scripts.shard, "\(buckets) buckets, shard \(shard)")
                #expect(other[shard]?.positions == scripts.positions, "\(buckets) buckets, shard \(shard)")
            }
        }
        // Cut short, with fewer records than its header says, or naming a
        // shard past the last or a kind there is not: an error, not a trap.
        let bytes = SearchIndexWriter.prepare(
            rows, postsPerPage: 20, forum: Fixtures.smthForum, cores: 1,
            numbering: .init(firstDoc: 0, shards: shards, buckets: 1)
        ).records.bytes
        // (A header is the document as is, `doc << 1 | 1`, or a gap from
        // the header before, `gap << 1`: a gap with no header before is damage.)
        for damaged in [
            Array(bytes.dropLast()), [0x21, 0x00, 0x01], [0x01, 0x07, 0x01, 0x00, 0x00],
            [0x01, 0x01, 0x05, 0x00, 0x02, 0x03], [0x01, 0x01, 0x40, 0x01], [0x01, 0x01, 0x03, 0x01],
            [0x02, 0x01, 0x00, 0x41],
        ] {
            #expect(throws: ArchiveError.self) {
                try SpillFiles.decode([damaged], bucket: 0, folder: folder, shards: shards, buckets: 1)
            }
        }
    }

    /// Posts of tricky text (full-width forms, emoji, combining marks,
    /// mixed scripts, an empty one), as the full pass hands them to `prepare`.
    static func trickyRows() -> [(StoredPost, String, Int)] {
        let bodies = [
            "ＧＰＳ ｉＰｈｏｎｅ 全角！", "表情 😀👍🏽 emoji", "e\u{301}cole cafe\u{301} n\u{303}",
            "中文English混合123 ТЕСТ", "", "a\nb\nc", "清华清华清华 研究生",
        ]
        return bodies.enumerated().map { index, body in
            (
                StoredPost(
                    board: "B", gid: index, floor: 0, author: "Bob\(index)", postedAt: Date(timeIntervalSince1970: 0),
                    body: body, ip: nil, editedBy: nil, attachments: [], signature: nil),
                "标题 \(index)", 0
            )
        }
    }

    /// A core decodes bucket after bucket into one room (`DecodeRoom`),
    /// which keeps what the last one left in it: each bucket still spells
    /// the shards it spells in a room of its own, after a larger bucket,
    /// after a smaller one and after damaged records that stopped part way.
    @Test func bucketsDecodedOneAfterAnotherIntoOneRoomSpellWhatEachSpellsAlone() throws {
        let shards = 16
        let buckets = 3
        let folder = URL(fileURLWithPath: "/nonexistent")
        let records = SearchIndexWriter.prepare(
            Self.trickyRows(), postsPerPage: 20, forum: Fixtures.smthForum, cores: 1,
            numbering: .init(firstDoc: 0, shards: shards, buckets: buckets)
        ).records
        var spans: [(bucket: Int, bytes: [UInt8])] = []
        var start = 0
        for span in records.spans {
            spans.append((span.bucket, Array(records.bytes[start..<span.end])))
            start = span.end
        }
        #expect(spans.count == buckets)
        spans.sort { $0.bytes.count > $1.bytes.count }
        let room = DecodeRoom()
        var compared = 0
        for (bucket, bytes) in spans + spans.reversed() {
            #expect(throws: ArchiveError.self) {
                try SpillFiles.decode(
                    [Array(bytes.dropLast())], bucket: bucket, folder: folder, shards: shards, buckets: buckets,
                    room: room)
            }
            let shared = try SpillFiles.decode(
                [bytes], bucket: bucket, folder: folder, shards: shards, buckets: buckets, room: room)
            let alone = try SpillFiles.decode([bytes], bucket: bucket, folder: folder, shards: shards, buckets: buckets)
            #expect(shared.keys.sorted() == alone.keys.sorted(), "bucket \(bucket)")
            for (shard, keyed) in alone {
                let own = keyed.scripts(shard)
                #expect(shared[shard]?.scripts(shard).shard == own.shard, "bucket \(bucket), shard \(shard)")
                #expect(shared[shard]?.scripts(shard).positions == own.positions, "bucket \(bucket), shard \(shard)")
                compared += 1
            }
        }
        #expect(compared > 8)
    }

    /// A bucket's spill file is read back only when it holds what was
    /// spilled to it: one removed, cut short or grown meanwhile (a cleaner of the
    /// temporary folder) is said, never read as other postings.
    @Test func aSpillFileIsReadBackOnlyWhole() throws {
        let folder = try Fixtures.temporaryFolder("spill-whole")
        let written: [UInt8] = Array(0..<200).map { UInt8($0) }
        let path = folder.appendingPathComponent("3.bin")
        try Data(written).write(to: path)
        let room = DecodeRoom()
        func read(_ spilled: Int) -> [UInt8]? {
            SpillFiles.spilledRecords(3, folder: folder, spilled: spilled, into: room).map { Array($0) }
        }
        #expect(read(200) == written)
        #expect(read(199) == nil)
        #expect(read(201) == nil)
        // Nothing spilled: no file is read, whatever is there.
        #expect(read(0) == [])
        // Read into a room that read more before: only its own bytes.
        try Data(written.prefix(20)).write(to: path)
        #expect(read(20) == Array(written.prefix(20)))
        try FileManager.default.removeItem(at: path)
        #expect(read(20) == nil)
        #expect(SpillFiles.damaged(folder).description.contains("set TMPDIR"))
    }

    /// Lists spelled as Rice codes or bitmaps read back as they were, pair
    /// counts of any size included.
    /// A document that does not come after its list's last one (a tail on
    /// disk holding documents its index does not count) is left out and
    /// said, never spelled as a gap of 0 or less: the writer trapped on one.
    /// An append then indexes everything again.
    @Test func aDocumentOutOfOrderIsLeftOutAndSaid() throws {
        var shard = SpillFiles.Shard()
        shard.add(kind: .unigram, term: "甲", doc: 5, positions: [])
        shard.add(kind: .bigram, term: "甲乙", doc: 5, positions: [0, 3])
        #expect(!shard.outOfOrder)
        let before = shard.lists()
        for doc in [5, 3] {
            var again = shard
            again.add(kind: .unigram, term: "甲", doc: doc, positions: [])
            #expect(again.outOfOrder, "document \(doc)")
            #expect(again.lists().unigrams.map(\.1) == before.unigrams.map(\.1))
        }
        var tail = SpillFiles.Shard()
        tail.add(kind: .bigram, term: "甲乙", doc: 4, positions: [1])
        var merged = shard
        merged.merge(tail)
        #expect(merged.outOfOrder)
        #expect(merged.lists().bigrams.map(\.1) == before.bigrams.map(\.1))
        // Later documents go on as before, and the list reads back.
        var later = shard
        later.merge(
            {
                var next = SpillFiles.Shard()
                next.add(kind: .bigram, term: "甲乙", doc: 9, positions: [2])
                return next
            }())
        #expect(!later.outOfOrder)
        #expect(SpillFiles.lastDocument(later.bigrams["甲乙"]?.bytes ?? [], positional: true) == 9)
    }

    /// A shard's keys are spelled from the terms' numbers with no
    /// `String` between: the bytes are the string's JSON, for characters
    /// that need an escape, ones of four bytes and numbers that are no character.
    @Test func aTermsKeyIsSpelledAsItsStringsJSON() {
        let scalars: [UInt32] = [
            0x22, 0x5C, 0x0A, 0x3C, 0x2028, 0x2029, 0x2027, 0x00, 0x01, 0x1F, 0x09, 0x20, 0x41, 0x7F, 0xE9, 0x6E05,
            0xFF27, 0x1F44D, 0x10FFFF, 0xD800, 0xDFFF, 0x110000, 0x1F_FFFF,
        ]
        var spelled = 0
        for first in scalars {
            for pair in [false, true] {
                for second in pair ? scalars : [0] {
                    let key = pair ? UInt64(first) << 21 | UInt64(second) : UInt64(first)
                    var out: [UInt8] = [7]
                    SearchIndexWriter.appendTermJSON(key, pair: pair, to: &out)
                    var expected: [UInt8] = [7]
                    SearchIndexWriter.appendJSON(SearchText.termText(key, pair: pair), to: &expected)
                    #expect(out == expected, "\(String(key, radix: 16)) pair \(pair)")
                    spelled += 1
                }
            }
        }
        #expect(spelled == scalars.count * (scalars.count + 1))
    }

    /// The Rice parameter's estimate, ⌊log2(mean × 0.69)⌋, is taken from
    /// the highest bit of its whole part: the same as `log2` gives, for
    /// means around every power of two.
    @Test func theRiceEstimateIsTheLogarithmsWholePart() {
        var random = SystemRandomNumberGenerator()
        var lists: [[Int]] = [[], [0], [1], [2, 3]]
        for exponent in 0..<40 {
            for offset in [-2, -1, 0, 1, 2] {
                let target = max(0, (1 << exponent) + offset)
                // Means of about target / 0.69, whose estimate sits at a power of two.
                let mean = Int((Double(target) / 0.69).rounded())
                lists.append([mean, mean, mean])
                lists.append([max(0, mean - 1), mean + 1])
            }
        }
        for _ in 0..<200 {
            lists.append(
                (0..<Int.random(in: 1..<50, using: &random)).map { _ in Int.random(in: 0..<5000, using: &random) })
        }
        for values in lists {
            let mean = values.isEmpty ? 0 : Double(values.reduce(0, +)) / Double(values.count)
            let guess = mean * 0.69 >= 1 ? Int(log2(mean * 0.69)) : 0
            // What the choice was with `log2`: the fewest bits among guess − 1 … guess + 1.
            var best = (k: 0, bits: Int.max)
            for k in max(0, guess - 1)...max(0, guess - 1) + 2 where k <= guess + 1 {
                let bits = ListCoding.riceBits(values, k: k)
                if bits < best.bits { best = (k, bits) }
            }
            let chosen = ListCoding.riceChoice(values)
            #expect(chosen.k == best.k && chosen.bits == best.bits, "\(values.prefix(4))")
        }
    }

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
        // Positions: any values, Rice-coded; a value of 32 ones or more in
        // unary and more than 32 low bits (the writer puts at most 32 bits at a time).
        let long = [Int](repeating: 0, count: 50) + [100_000, 3]
        for values in [
            [], [0], [0, 0, 0], [5, 1, 1, 300, 0, 7], (0..<500).map { _ in Int.random(in: 0..<2000) }, long,
            [1 << 40, 3 << 38, 5],
        ] {
            #expect(ListCoding.riceValues(ListCoding.riceBytes(values: values)) == values)
        }
        // The byte spellings of the full pass (`appendDocs`, `appendList`,
        // `appendBase64`) are the strings' bytes.
        for count in 0..<40 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            var out: [UInt8] = [1]
            ListCoding.appendBase64(bytes, to: &out)
            #expect(out == [1] + Array(Data(bytes).base64EncodedString().utf8))
        }
        for density in [0.001, 0.05, 0.3, 0.9] {
            let docs = (0..<3000).filter { _ in Double.random(in: 0..<1, using: &random) < density }
            var out: [UInt8] = []
            ListCoding.appendDocs(docs, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == ListCoding.encodeDocs(docs))
            var bytes: [UInt8] = []
            var ranks: [Int] = []
            var counts: [Int] = []
            var previous = 0
            for (rank, doc) in docs.enumerated() {
                let count = [1, 1, 1, 2, 5, 16, 17, 40].randomElement(using: &random) ?? 1
                varint(doc - previous, into: &bytes)
                previous = doc
                varint(count, into: &bytes)
                for _ in 0..<count { varint(3, into: &bytes) }
                if count != 1 {
                    ranks.append(rank)
                    counts.append(count)
                }
            }
            out = []
            ListCoding.appendList(docs: docs, ranks: ranks, counts: counts, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == ListCoding.encode(bytes, positional: true))
        }
        #expect(ListCoding.riceValues([0, 5]) == nil)
        #expect(ListCoding.decodeDocs("!") == nil)
        #expect(ListCoding.decodeDocs("~") == nil)
        #expect(ListCoding.internalList("!AAAA.x", positional: false) == nil)
    }
}

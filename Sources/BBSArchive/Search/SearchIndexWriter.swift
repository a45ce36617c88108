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
///   character pairs (documents, each with its number of occurrences), `m`
///   filters (`b:board`, `a:author`; documents). Each list is spelled as
///   `ListCoding` says: a Rice code of the gaps or a bitmap, whichever is smaller.
/// - `search/p/K.js`: the positions of shard K's pairs, only for shards
///   that hold pairs: for each document of the pair's list in the shard, in
///   order, as many positions as its count says, as gaps within the document,
///   Rice-coded (`ListCoding.riceBytes(values:)`). The client loads them only for terms of three
///   or more characters, and only when the document lists of every term
///   and filter leave a candidate, so 1- and 2-character queries and
///   queries the lists already decide never download positions.
/// - `search/t/K.js`: shard K's tail: the postings (with their pairs'
///   positions) of the documents appended since the shard was last written
///   whole, all numbered after the shard's own, and the bytes of the shard
///   and its positions then. Only shards that an append reached have one,
///   and their shard file says so (a third argument, `1`): a full pass
///   writes no tails; the first append to a shard writes its tail and the
///   shard again, flagged, once; a tail emptied by a merge stays (empty),
///   so the flag stays. The client loads a tail after its shard, when the
///   shard names it, so it never asks for a file that is not there. A tail is
///   merged into its shard when it grows past a quarter of it (`tailLimit`),
///   so an append reads and writes only small tails, a merge's cost is
///   spread over the appends that filled the tail, and a query downloads
///   at most about 1.25 times the shard. Appends reach the shards' tails
///   only through the recent tail, below.
/// - `search/r.js`: the recent tail: the postings (with their pairs'
///   positions) of the documents appended since it was last flushed, for
///   all shards at once, all numbered after those of every shard and tail.
///   The manifest names it (`recent`, its bytes) when it holds anything, and
///   the client then loads it with the first shards of every query. An
///   append rewrites it, not the tails of the shards its terms fall in
///   (one reply: one file, not 40-odd); when it grows past `recentLimit`
///   (so a query downloads at most that much more), its postings go to
///   their shards' tails and it starts again empty.
/// - `search/d/K.js`: documents 128K to 128K+127, a row each: board, thread, floor, link (page
///   and anchor; or the page's number, when the link is `board/B/GID(-P).html#aF` with the
///   board's name as is), author, time, title and searchable text, for the result list; after
///   a header of the rows' byte lengths, so that over HTTP a query reads only the rows it shows
///   (`chunkScript`).
/// - `search/days.js`: the first document of each day (in the forum's zone)
///   among the documents in time order, for the `after:` / `before:` filters.
/// - `search/late.js`: the late documents (`Late`), each with its day and
///   its place in time, for the date filters and newest first.
///
/// Documents are numbered in the order they are indexed: a full pass
/// numbers them in the order posts were made (then board, thread, floor);
/// appended posts take the next numbers, so numbers never change as an
/// archive grows and only the recent tail (now and then the tails of its
/// terms' shards), the new posts' chunks, the manifest, the day table and
/// the late table change. A post older
/// than the newest indexed one (a board added, a thread fetched again, a
/// deleted post back) is late: it keeps its number, and `late.js` places it
/// just before the first document in time order newer than it. Past
/// `lateCap` late documents the next build indexes everything again, in
/// time order. The writer leaves identical files alone, so a build rewrites
/// only those. An index built by appends holds the same postings, days and
/// order as a full pass over the same posts, but its files differ (tails,
/// numbering), so tests compare what the index says, not its bytes.
///
/// Memory stays bounded: posts stream from the store in one pass, their
/// postings are appended to per-bucket spill files in a temporary folder,
/// and each bucket (a fixed share of the shards) is assembled on its own.
struct SearchIndexWriter {
    static let folder = "search"
    static let manifestPath = "search/index.js"
    static let daysPath = "search/days.js"
    static let latePath = "search/late.js"
    /// Documents a `search/d/` file holds: about 33 kB at 100k posts, so
    /// the index is a few hundred files, not one for every four posts
    /// (25,000 at 100k, whose creation was about a fifth of the CPU of indexing); a
    /// query reads only the rows it shows of them (`chunkScript`).
    static let docsPerChunk = 128
    /// The layout's version; an index of another version on disk is written again whole.
    /// 2: pair positions apart from the document lists (`search/p/`).
    /// 3: lists Rice-coded or as bitmaps, pair counts only where not 1 (`ListCoding`).
    /// 4: documents numbered in the order they are indexed (`search/late.js`
    ///    places the ones older than the newest before them), a tail per shard (`search/t/`).
    /// 5: tails only for the shards appends reached, which their shard files flag.
    /// 6: no file for a shard that holds nothing (the manifest lists those
    ///    that have one), documents four to a chunk, a 64-bit row hash,
    ///    positions Rice-coded (`ListCoding.riceBytes(values:)`).
    /// 7: appended postings go first to one recent tail for the whole
    ///    index (`search/r.js`, named by the manifest's `recent`), and to
    ///    the shards' tails only when it is flushed.
    /// 8: 128 documents a chunk, with a header of row lengths that Range
    ///    requests read (`chunkScript`).
    /// 9: the final sigma `ς` indexed as `σ` (`SearchText.slowNormalize`).
    /// 10: the filters' ids normalized as a query's (`filters`), not only
    ///     lower-cased.
    /// 11: every character a query does not split on is a term
    ///     (`SearchText.terms`): U+0085 is one, U+FEFF is not.
    /// 12: NFKC as Unicode composes (`SearchText.nfkc`), not as
    ///     Foundation does (jamo, half-width kana, marks' order).
    static let version = 12
    static func shardPath(_ shard: Int) -> String { "search/s/\(String(shard, radix: 16)).js" }
    static func positionsPath(_ shard: Int) -> String { "search/p/\(String(shard, radix: 16)).js" }
    static func chunkPath(_ chunk: Int) -> String { "search/d/\(chunk).js" }
    static func tailPath(_ shard: Int) -> String { "search/t/\(String(shard, radix: 16)).js" }
    static let recentPath = "search/r.js"

    /// A tail is merged into its shard when it grows past a quarter of the
    /// shard's bytes (and this much), so merges cost, spread over the
    /// appends that filled the tail, a bounded amount each, and a query
    /// downloads at most about 1.25 times the shard.
    static let minimumTail = 1024
    static func tailLimit(mainBytes: Int) -> Int { max(minimumTail, mainBytes / 4) }

    /// How many late documents (older than the newest indexed post when
    /// they were appended) the index keeps before it is numbered again
    /// in time order by a full pass: `search/late.js` stays small.
    static func lateCap(documents: Int) -> Int { min(8192, max(256, documents / 32)) }

    /// What the index covers; the site's threads are paged by `postsPerPage`.
    let store: ArchiveStore
    let postsPerPage: Int
    /// The forum's post conventions (quotes are left out) and time zone (days).
    let forum: ForumProfile
    /// The recent tail's bytes at most: past this, an append flushes it
    /// into the shards' tails. Every query downloads it (when it holds
    /// anything), so this much more than its shards at most. At 100k posts
    /// a reply of about 100 characters (the replica's median) added 1.7–3.6
    /// kB, so it is flushed every two or three such replies (466–835 files
    /// then, against 135–325 for each reply with no recent tail); a short
    /// one ("make bench: new reply N") adds about 0.2 kB. (0: every append
    /// goes to the shards' tails.)
    var recentLimit = 8 * 1024
    /// Bytes of postings held in memory before they go to the spill files.
    var spillThreshold = 32 << 20
    /// Documents whose postings one bucket of the full pass holds, about:
    /// each core decodes a whole bucket at once, so a fixed number of
    /// documents a bucket keeps that memory the same at any archive size.
    /// With 64 buckets at most, a 1M-post index peaked at 410 MB alone
    /// (370 MB before its postings were decoded to plain numbers), and the
    /// 1M build beside it at 505 MB, against the 512 MB target. The peak
    /// of a build is the index's assembly (at 1M posts, tmpfs, the build's
    /// RSS went from about 208 MB to 416 MB there, and back to 238 MB
    /// after it): with 4,096 documents a bucket (256 buckets of 1.1 GB of
    /// spill) the index alone peaked at 309 MB, with 2,048 at 274 MB, with
    /// 1,024 at 252 MB, in the same time (16–17 s); the 1M build with the
    /// index, 3 alternating runs each, 462, 418, 462 MB against 398, 415,
    /// 425 MB, in 42–60 s either way. Below 131,072 posts (64 buckets at
    /// the least) the number changes nothing.
    var documentsPerBucket = 2048
    /// Documents a shard, about (`shardCount`). Fewer shards make fewer,
    /// larger files: a query downloads more of other terms' lists, and a
    /// full pass writes far fewer files. On the 100k tier's store with its
    /// Chinese redrawn from a real word list (8,413 characters, 806,554
    /// pairs), 8, 16 and 32 a shard made 33,553, 17,169 and 8,977 index
    /// files; the median query downloaded 51.9, 55.8 and 66.2 kB (96.3,
    /// 96.0 and 101.2 on the replica's own text, against a target of 100)
    /// and showed its first results in 165, 189 and 217 ms. Full builds on
    /// disk, alternated, 4 of each: 16 a shard added 1.3 s to the build
    /// where 8 added 2.7 s (CPU 2.2 against 4.8 s); 32 added no less than
    /// 16 (2.3 against 2.0 s). Recall and precision were 100 % in each.
    /// An index written with another number is written again whole by the
    /// next build (its shard count differs).
    var documentsPerShard = 16
    /// Buckets of the full pass at the least (fewer only when there are
    /// fewer shards).
    var leastBuckets = 64
    /// Posts a batch of the full pass (`Preparing`), rounded up to a
    /// multiple of `docsPerChunk`, so that each batch writes whole chunks.
    /// Each batch starts a thread of its own and `cores - 1` workers (780
    /// threads at 100k with 256 a batch, about 200 with 1,024): in perf of
    /// the 100k full pass, thread ends went from 1.6 % to 0.7 % of the
    /// samples and page faults from 3.4 % to 2.7 %; peak memory rose by
    /// about 10 MB.
    var batchSize = 1024
    /// Bytes of the map's rows (`ThreadMap`) held before they are written
    /// in key order; the rows are the same whatever the number.
    var mapBatchBytes = 4 << 20
    /// Files queued before they are written (`FileBatch`); the files are
    /// the same whatever the number.
    var filesAtOnce = FileBatch.size
    /// Threads that work out documents and assemble shards (at most four);
    /// the files are the same whatever the number.
    var cores = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))

    struct Report: Sendable, Equatable {
        /// Whether every post was indexed again (otherwise new posts were appended).
        var full = false
        var documents = 0
        var appended = 0
        var shards = 0
        var filesWritten = 0
        var bytes = 0
    }

    /// Where the index files are read from and written to; `write` skips
    /// identical files and returns whether it wrote.
    struct Output {
        var read: (String) -> Data?
        var write: (Data, String) throws(ArchiveError) -> Bool
        /// The files in a folder of the index, and a deletion: a full pass
        /// deletes those of an earlier index that it did not write.
        var files: (String) -> [String] = { _ in [] }
        var remove: (String) throws(ArchiveError) -> Void = { _ in }
    }

    /// The folders of per-shard and per-chunk files, which a full pass
    /// clears of files it did not write (an earlier index's chunks past
    /// the new count, tails of appends, shards of another count).
    static let fileFolders = ["search/d", "search/s", "search/p", "search/t"]

    /// A post's place in document order: (time, board, thread, floor), as
    /// SQLite orders them (board names by their UTF-8 bytes).
    struct Key: Comparable, Sendable {
        var postedAt: Int64
        var board: [UInt8]
        var gid: Int
        var floor: Int

        static func < (a: Key, b: Key) -> Bool {
            if a.postedAt != b.postedAt { return a.postedAt < b.postedAt }
            if a.board != b.board { return a.board.lexicographicallyPrecedes(b.board) }
            if a.gid != b.gid { return a.gid < b.gid }
            return a.floor < b.floor
        }
    }

    /// One post ready for the index.
    struct Document: Sendable {
        var key: Key
        var board: String
        var gid: Int
        var floor: Int
        var author: String
        var day: Int
        /// Its entry in a `search/d/` chunk, as UTF-8 (spelled as bytes and
        /// written as bytes: a `String` of each row checked 26 MB of rows
        /// as UTF-8 again at 100k, and the chunk joined them as strings).
        var row: [UInt8]
        var normalized: String
    }

    static func document(
        post: StoredPost, threadTitle: String, position: Int, postsPerPage: Int, forum: ForumProfile
    ) -> Document {
        let text = SearchText.searchable(post: post, threadTitle: threadTitle, conventions: forum.conventions)
        let page = position / max(1, postsPerPage) + 1
        let link = SitePaths.thread(post.board, gid: post.gid, page: page)
        // The page's number when the link is `board/B/GID(-P).html` with the
        // board's name as is (the client spells it, adding `#aF`), else the link.
        let plain = "board/\(post.board)/\(post.gid)" + (page > 1 ? "-\(page)" : "") + ".html"
        // Spelled as UTF-8 bytes into one buffer: a String for each field,
        // each checked as UTF-8 again, then joined, was 3 % of indexing.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + threadTitle.utf8.count + post.board.utf8.count + 96)
        bytes.append(UInt8(ascii: "["))
        appendJSON(post.board, to: &bytes)
        for number in [post.gid, post.floor] {
            bytes.append(UInt8(ascii: ","))
            bytes.append(contentsOf: String(number).utf8)
        }
        bytes.append(UInt8(ascii: ","))
        if link == plain {
            bytes.append(contentsOf: String(page).utf8)
        } else {
            appendJSON(link + "#a\(post.floor)", to: &bytes)
        }
        for field in [post.author, String(forum.time.display(post.postedAt).prefix(16))] {
            bytes.append(UInt8(ascii: ","))
            appendJSON(field, to: &bytes)
        }
        // The title and text as `SiteBuilder.displayable` makes them.
        for field in [threadTitle, text] {
            bytes.append(UInt8(ascii: ","))
            appendJSON(field, to: &bytes, displayable: true)
        }
        bytes.append(UInt8(ascii: "]"))
        return Document(
            key: Key(
                postedAt: ArchiveStore.seconds(post.postedAt), board: Array(post.board.utf8), gid: post.gid,
                floor: post.floor),
            board: post.board, gid: post.gid, floor: post.floor, author: post.author,
            day: dayNumber(post.postedAt, time: forum.time),
            row: bytes, normalized: SearchText.normalize(text))
    }

    /// Every posting of one document, handed to `add` as (term, kind, positions).
    static func postings(_ document: Document, _ add: (String, SpillFiles.Kind, [Int]) -> Void) {
        let terms = SearchText.terms(document.normalized)
        for unigram in terms.unigrams { add(unigram, .unigram, []) }
        for (bigram, positions) in terms.bigrams { add(bigram, .bigram, positions) }
        for filter in filters(document) { add(filter, .filter, []) }
    }

    /// A document's filter terms (`b:board`, `a:author`), normalized as the
    /// client normalizes what follows `board:` and `author:` in a query
    /// (`SearchText.normalize`). Lower-cased alone, an id that NFKC or the
    /// sigma fold changes (`Ａｂｃ`, `ǅ`, a final `ς`) was never found by
    /// `author:` with the id as the archive shows it.
    static func filters(_ document: Document) -> [String] {
        ["b:" + SearchText.normalize(document.board), "a:" + SearchText.normalize(document.author)]
    }

    /// A document and the hash of its row.
    struct Prepared: Sendable {
        var document: Document
        var hash: String
    }

    /// Where a batch's documents go in a full pass: numbered from `firstDoc`,
    /// their records spilled to `buckets` buckets of `shards` shards.
    struct Numbering: Sendable {
        var firstDoc: Int
        var shards: Int
        var buckets: Int
    }

    /// One post's document and the hash of its row, its terms (as
    /// numbers, `SearchText.termKeys`) left in `terms`.
    static func prepared(
        _ row: (StoredPost, String, Int), postsPerPage: Int, forum: ForumProfile, terms: SearchText.TermRoom
    ) -> Prepared {
        let (post, title, position) = row
        let document = Self.document(
            post: post, threadTitle: title, position: position, postsPerPage: postsPerPage, forum: forum)
        SearchText.termKeys(document.normalized, into: terms)
        return Prepared(document: document, hash: Self.rowHash(document.row))
    }

    /// A batch's documents and their spill records, as `prepare` leaves
    /// them: each thread's records in a buffer a bucket, the threads'
    /// writers in the order of their runs of documents.
    struct PreparedBatch: Sendable {
        var documents: [Prepared] = []
        var writers: [SpillFiles.BucketBytes] = []
        /// The records joined, bucket by bucket, writer by writer: document order.
        var records: SpillFiles.Records { SpillFiles.BucketBytes.joined(writers) }
    }

    /// A batch's documents (post, thread title, place in the thread) worked
    /// out on up to four threads, in order, and their spill records for a
    /// full pass (numbered by `numbering`), grouped by bucket: each
    /// thread takes a run of the batch's documents and writes their records
    /// straight into a buffer a bucket (`SpillFiles.BucketBytes`), bucket by
    /// bucket, thread by thread, document order. (A buffer of records a document,
    /// each then copied into its place in the batch's bucket order: the
    /// full pass at 100k posts took 2.98 CPU-s, against 2.76 this way,
    /// medians of 4 runs each.) `reusing` are writers of an earlier batch,
    /// emptied and written again (their memory kept) when there are enough.
    static func prepare(
        _ rows: [(StoredPost, String, Int)], postsPerPage: Int, forum: ForumProfile,
        cores: Int = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount)), numbering: Numbering,
        reusing: [SpillFiles.BucketBytes] = []
    ) -> PreparedBatch {
        let stripes = rows.count < 32 ? 1 : max(1, cores)
        var out = [Prepared?](repeating: nil, count: rows.count)
        let writers =
            reusing.count >= stripes && reusing.allSatisfy({ $0.buckets == max(1, numbering.buckets) })
            ? Array(reusing.prefix(stripes))
            : (0..<stripes).map { _ in SpillFiles.BucketBytes(buckets: numbering.buckets) }
        for writer in writers { writer.removeAll() }
        out.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let buffer = buffer
            onThreads(stripes) { stripe in
                let writer = writers[stripe]
                let terms = SearchText.TermRoom()
                for index in (rows.count * stripe / stripes)..<(rows.count * (stripe + 1) / stripes) {
                    let prepared = Self.prepared(rows[index], postsPerPage: postsPerPage, forum: forum, terms: terms)
                    SpillFiles.appendRecords(
                        prepared.document, unigrams: terms.unigrams, pairs: terms.pairs,
                        doc: numbering.firstDoc + index, shards: numbering.shards, to: writer)
                    buffer[index] = prepared
                }
            }
        }
        return PreparedBatch(documents: out.compactMap { $0 }, writers: writers)
    }

    /// Runs `body` for 0..<count at once on `count` threads (this one and
    /// `count - 1` of a `WorkerPool`), and returns when all have ended.
    /// Threads, not `DispatchQueue.concurrentPerform` or the global queue:
    /// in a build the boards' workers keep the cores busy, and the index's
    /// work queued on the dispatch pool waited for the boards to end (a
    /// timeline of the 100k build: no search work for its first 12 s, then
    /// only the search), where threads of its own share the cores with them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let job = WorkerPool.Job(count: count) { index in
            body(index)
            return true
        }
        WorkerPool.run(job, threads: count)
    }

    /// A batch's documents being worked out on other threads
    /// (`prepare`), with the spill records of the whole batch grouped
    /// by bucket, so the writer appends them at once.
    ///
    /// It writes the batch's `search/d/` chunks too (to `files`), on its own
    /// thread: written by the thread that reads the store, 25,000 chunks at
    /// 100k held it up while the other cores waited for the next batch. A
    /// batch starts at a chunk's first document (`batchSize`).
    final class Preparing: @unchecked Sendable {
        private let group = DispatchGroup()
        private var batch = PreparedBatch()
        private var failure: ArchiveError?

        init(
            _ rows: [(StoredPost, String, Int)], postsPerPage: Int, forum: ForumProfile, cores: Int,
            numbering: Numbering, files: FileBatch, reusing writers: [SpillFiles.BucketBytes]
        ) {
            group.enter()
            let thread = Thread { [self] in
                defer { group.leave() }
                batch = SearchIndexWriter.prepare(
                    rows, postsPerPage: postsPerPage, forum: forum, cores: cores, numbering: numbering,
                    reusing: writers)
                let result = batch.documents
                do throws(ArchiveError) {
                    for start in stride(from: 0, to: result.count, by: docsPerChunk) {
                        let index = (numbering.firstDoc + start) / docsPerChunk
                        let rows = result[start..<min(result.count, start + docsPerChunk)].map(\.document.row)
                        try files.write(chunkScript(index, rows), chunkPath(index))
                    }
                } catch {
                    failure = error
                }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }

        /// The batch's documents and its records, once they are worked
        /// out and their chunks written.
        func wait() throws(ArchiveError) -> PreparedBatch {
            group.wait()
            if let failure { throw failure }
            return batch
        }

        /// Waits for the work to end, its result unused (after a failure).
        func cancelAndWait() { group.wait() }
    }

    /// Brings the index up to date: appends the new posts of the changed
    /// threads when the index on disk is the one the store describes and
    /// they all come after its last document; otherwise indexes everything.
    func update(_ changes: SearchChanges, _ output: Output) throws(ArchiveError) -> Report {
        if let threads = changes.threads, let report = try append(threads, output) { return report }
        return try writeAll(output)
    }

    /// The whole index, from one pass over the store.
    func writeAll(_ output: Output) throws(ArchiveError) -> Report {
        let documents = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM post") ?? 0 }
        let shards = Self.shardCount(documents: documents, per: documentsPerShard)
        let buckets = Self.bucketCount(
            documents: documents, shards: shards, per: documentsPerBucket, least: leastBuckets)
        let spill = try SpillFiles(buckets: buckets, threshold: spillThreshold)
        defer { spill.remove() }
        var report = Report(full: true, shards: shards)
        try forgetIndex(output)
        let files = FileBatch(output, size: filesAtOnce)
        func emit(_ data: Data, _ path: String) throws(ArchiveError) { try files.add(data, path) }

        var days: [(Int, Int)] = []
        var last: Key?
        var failure: ArchiveError?
        var id = Self.emptyIndexID
        // A store that cannot be written is only read: it records no map,
        // nor the index, and the next build indexes everything again.
        let recording = !store.readOnly
        // One transaction: the map of posts to documents is replaced whole.
        func pass(_ db: Database) throws {
            // Posts in time order jump about the table: with SQLite's default
            // page cache (2 MB) most pages were read from the file again, 394,000
            // reads for the 100k store's 58,700 pages; with the store's 16 MB
            // (`ArchiveStore.pageCacheKiB`, every connection), about 9,000.
            // A larger store needs more for the same (`passCacheKiB`); the
            // connection gets the store's own back after the pass.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.passCacheKiB(documents: documents))")
            defer { try? db.execute(sql: "PRAGMA cache_size = -\(ArchiveStore.pageCacheKiB)") }
            if recording { try db.execute(sql: "DELETE FROM search_thread; DELETE FROM search_index") }
            let gapped = try Self.gappedThreads(db)
            // The threads' titles, read once (a post whose thread is missing
            // is left out, as a join would): joined to each post, and with
            // `post_by_time` (postedAt, board, gid) lacking the floor, SQLite
            // sorted every run of equal keys in a temporary B-tree and looked
            // each post's thread up; the query took 0.38 CPU-s at 100k, 0.14
            // without the join and the floor (sqlite3 shell, 3 runs each).
            // With each thread's number of posts, for `ThreadMap`.
            var titles: [String: [Int: (title: String, posts: Int)]] = [:]
            let threadRows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT t.board, t.gid, t.title, coalesce(s.posts, 0)
                    FROM thread t LEFT JOIN thread_summary s ON s.board = t.board AND s.gid = t.gid
                    """)
            while let row = try threadRows.next() {
                titles[row[0] as String, default: [:]][row[1] as Int] = (row[2], row[3])
            }
            let map = recording ? try ThreadMap(db, batchBytes: mapBatchBytes) : nil
            // Columns read by place, not by name: `StoredPost(row:)` looks up
            // 17 names, most of them not selected here (a scan of every
            // column each), for each of the 100k posts. In index order;
            // posts of one thread made in the same second are put in floor
            // order here (`endRun`).
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT board, gid, floor, author, postedAt, body, signature
                    FROM post ORDER BY postedAt, board, gid
                    """)
            var doc = 0
            // Posts a batch at a time: their documents and terms worked out
            // on every core (`Preparing`) while this thread reads the next
            // batch and numbers and spills the one before, in order.
            var batch: [(StoredPost, String, Int)] = []
            var preparing: Preparing?
            let postsPerPage = postsPerPage
            let forum = forum
            let cores = cores
            let batchSize = (max(1, batchSize) + Self.docsPerChunk - 1) / Self.docsPerChunk * Self.docsPerChunk
            // The writers of the batch processed last, for the next one.
            var spare: [SpillFiles.BucketBytes] = []
            func process(_ batch: PreparedBatch) throws {
                spill.add(batch.writers)
                spare = batch.writers
                try spill.flushIfNeeded()
                for prepared in batch.documents {
                    let document = prepared.document
                    try map?.add(
                        document, hash: prepared.hash,
                        postCount: titles[document.board]?[document.gid]?.posts ?? 0)
                    id = Self.chain(id, prepared.hash)
                    if days.last?.0 != document.day { days.append((document.day, doc)) }
                    last = document.key
                    doc += 1
                }
            }
            // Hands the batch to the cores and processes the one handed before.
            var queued = 0
            func next() throws {
                let started = Preparing(
                    batch, postsPerPage: postsPerPage, forum: forum, cores: cores,
                    numbering: Numbering(firstDoc: queued, shards: shards, buckets: buckets), files: files,
                    reusing: spare)
                spare = []
                queued += batch.count
                batch = []
                if let previous = preparing { try process(previous.wait()) }
                preparing = started
            }
            // The posts of one (time, board, thread), until the key changes.
            var run: [(StoredPost, String, Int)] = []
            var runKey: (postedAt: Int64, board: String, gid: Int)?
            func endRun() throws {
                if run.count > 1 { run.sort { $0.0.floor < $1.0.floor } }
                for entry in run {
                    batch.append(entry)
                    if batch.count == batchSize { try next() }
                }
                run.removeAll(keepingCapacity: true)
            }
            do {
                while let row = try cursor.next() {
                    let board: String = row[0]
                    let gid: Int = row[1]
                    let postedAt: Int64 = row[4]
                    guard let title = titles[board]?[gid]?.title else { continue }
                    if let key = runKey, key.postedAt != postedAt || key.gid != gid || key.board != board {
                        try endRun()
                    }
                    runKey = (postedAt, board, gid)
                    let post = StoredPost(
                        board: board, gid: gid, floor: row[2], author: row[3],
                        postedAt: ArchiveStore.date(postedAt), body: row[5], ip: nil, editedBy: nil, attachments: [],
                        nick: nil, title: nil, signature: row[6], postID: nil, editedAt: nil)
                    let position =
                        gapped.isEmpty
                        ? post.floor
                        : Self.position(floor: post.floor, in: gapped[.init(board: post.board, gid: post.gid)])
                    run.append((post, title, position))
                }
                try endRun()
                try next()
                if let last = preparing { try process(last.wait()) }
                try map?.finish()
            } catch let error as ArchiveError {
                preparing?.cancelAndWait()
                failure = error
                return
            } catch {
                preparing?.cancelAndWait()
                throw error
            }
            report.documents = doc
            guard recording else { return }
            try db.execute(
                sql: """
                    INSERT INTO search_index (id, docs, lastPostedAt, lastBoard, lastGid, lastFloor)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, doc, last?.postedAt ?? 0, String(decoding: last?.board ?? [], as: UTF8.self), last?.gid ?? 0,
                    last?.floor ?? 0,
                ])
        }
        if recording { try store.write(pass) } else { try store.read(pass) }
        if let failure { throw failure }
        // The shards, a bucket a core at a time: each core takes the next
        // bucket, decodes its records, spells its files and writes them,
        // with no wait for the others (a group of buckets at a time, each
        // group's files then written by this thread alone, left a core idle
        // for the slower bucket of each group and for every write). The
        // files are the same whatever the number of cores or the order.
        try files.flush()
        let threads = max(1, min(cores, buckets))
        let folder = spill.folder
        let spilled = spill.spilledBytes
        let buffered = spill.takeBuffered()
        let assembly = BucketAssembly()
        Self.onThreads(threads) { _ in
            let room = DecodeRoom()
            while let bucket = assembly.claim(below: buckets) {
                do throws(ArchiveError) {
                    guard
                        let read = SpillFiles.spilledRecords(
                            bucket, folder: folder, spilled: spilled[bucket], into: room)
                    else { throw SpillFiles.damaged(folder) }
                    let byShard = try SpillFiles.decode(
                        [read, buffered.bytes(bucket)], bucket: bucket, folder: folder, shards: shards,
                        buckets: buckets, room: room)
                    // A shard that holds nothing has no file (the manifest says which have one).
                    var present: [Int] = []
                    for shard in stride(from: bucket, to: shards, by: buckets) {
                        guard let scripts = byShard[shard]?.scripts(shard) else { continue }
                        present.append(shard)
                        try files.write(scripts.shard, Self.shardPath(shard))
                        if let positions = scripts.positions { try files.write(positions, Self.positionsPath(shard)) }
                    }
                    assembly.done(present)
                } catch {
                    assembly.fail(error)
                }
            }
        }
        let present = try assembly.present()
        try emit(Self.daysScript(days), Self.daysPath)
        try emit(Self.lateScript([]), Self.latePath)
        try files.flush()
        // Last: until it names the new index, the next build indexes everything again.
        try emit(
            Self.manifestScript(
                id: id, shards: shards, documents: report.documents, late: 0, present: present),
            Self.manifestPath)
        try files.flush()
        // After the manifest: until it names the new index, the old one's
        // files are what the page reads.
        let written = files.paths
        for folder in Self.fileFolders {
            for path in output.files(folder) where !written.contains(path) { try output.remove(path) }
        }
        report.bytes = files.bytes
        report.filesWritten = files.written
        return report
    }

    /// The floors of the threads whose floors are not 0, 1, 2…: in those
    /// alone a post's place in its thread (how many of its posts come
    /// before it) is not its floor. Read in one pass over the posts' key,
    /// instead of a count of the earlier posts for each post (0.15 CPU-s
    /// of SQLite at 100k, where 20 threads of 14,320 have gaps).
    static func gappedThreads(_ db: Database) throws -> [BuildChanges.ThreadKey: [Int]] {
        var gapped: [BuildChanges.ThreadKey: [Int]] = [:]
        var thread: (board: String, gid: Int)?
        var floors: [Int] = []
        var regular = true
        func close() {
            if let thread, !regular { gapped[.init(board: thread.board, gid: thread.gid)] = floors }
        }
        let cursor = try Row.fetchCursor(db, sql: "SELECT board, gid, floor FROM post ORDER BY board, gid, floor")
        while let row = try cursor.next() {
            let board: String = row[0]
            let gid: Int = row[1]
            let floor: Int = row[2]
            if thread?.board != board || thread?.gid != gid {
                close()
                thread = (board, gid)
                floors = []
                regular = true
            }
            if floor != floors.count { regular = false }
            floors.append(floor)
        }
        close()
        return gapped
    }

    /// A post's place in its thread: its floor, or where it comes in the
    /// floors of a thread with gaps (`gappedThreads`).
    static func position(floor: Int, in floors: [Int]?) -> Int {
        guard let floors else { return floor }
        return floors.lowerBound(floor)
    }

    /// The store's map of the index (`search_thread`, a row a thread): for
    /// each indexed post of a thread, its floor and its row's hash
    /// (`rowHash`), as two little-endian 64-bit integers. An append reads
    /// it to tell the posts already indexed from new ones, and an indexed
    /// post that changed since (its hash differs: everything is indexed
    /// again). A row a post, inserted in the full pass's time order into a
    /// table keyed by thread and floor, took 0.3–0.4 of the pass's 2.5 CPU-s
    /// at 100k posts and 3.3 of its 31 at 1M (`bbsarchive-bench
    /// search-index`, 3 and 2 runs with and without the inserts).
    static func appendThreadPost(floor: Int, hash: String, to bytes: inout [UInt8]) {
        // Never fails for `rowHash`'s 16 hex digits; any other hash
        // (0) only differs from the post's next one: a full pass then.
        let value = UInt64(hash, radix: 16) ?? 0
        withUnsafeBytes(of: Int64(floor).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A thread's row of the map (`appendThreadPost`) as floor → hash, or
    /// `nil` when it is not 16 bytes a post.
    static func threadPosts(_ data: Data) -> [Int: String]? {
        guard data.count % 16 == 0 else { return nil }
        return data.withUnsafeBytes { raw in
            var posts: [Int: String] = [:]
            func integer(_ at: Int) -> UInt64 {
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            }
            for start in stride(from: 0, to: raw.count, by: 16) {
                posts[Int(Int64(bitPattern: integer(start)))] = ByteHash.hex(integer(start + 8))
            }
            return posts
        }
    }

    /// The full pass's side of the map: it meets a thread's posts in time
    /// order, spread over the whole pass, so each thread's entries are kept
    /// until its last post (by its number of posts, `thread_summary`), then
    /// written as one row. Memory holds the threads open at that point in
    /// time (at most 1,367 of the 14,320 threads of the 100k replica), not
    /// every post. A thread whose count is unknown or wrong is written at
    /// the end, or added to the row written already.
    ///
    /// Rows are written a few MB at a time, in key order: one at a time, as
    /// each thread ended, each insert looked for its page of the table in a
    /// page cache that the pass's reading of the posts keeps filling.
    final class ThreadMap {
        private final class Entry {
            var remaining: Int
            var bytes: [UInt8] = []
            init(remaining: Int) { self.remaining = remaining }
        }
        private var open: [BuildChanges.ThreadKey: Entry] = [:]
        private var ended: [(key: BuildChanges.ThreadKey, bytes: [UInt8])] = []
        private var endedBytes = 0
        private let db: Database
        private let insert: Statement
        /// Bytes of ended threads held before they are written.
        private let batchBytes: Int

        init(_ db: Database, batchBytes: Int) throws {
            self.db = db
            self.batchBytes = batchBytes
            insert = try db.makeStatement(
                sql: "INSERT OR IGNORE INTO search_thread (board, gid, posts) VALUES (?, ?, ?)")
        }

        /// `postCount`, the thread's number of posts, is asked for only
        /// at its first post.
        func add(_ document: Document, hash: String, postCount: @autoclosure () -> Int) throws {
            let key = BuildChanges.ThreadKey(board: document.board, gid: document.gid)
            let entry: Entry
            if let found = open[key] {
                entry = found
            } else {
                let count = postCount()
                entry = Entry(remaining: count)
                // Room for all its posts at once, not grown by doubling.
                entry.bytes.reserveCapacity(16 * max(1, count))
                open[key] = entry
            }
            SearchIndexWriter.appendThreadPost(floor: document.floor, hash: hash, to: &entry.bytes)
            entry.remaining -= 1
            guard entry.remaining == 0 else { return }
            open[key] = nil
            ended.append((key, entry.bytes))
            endedBytes += entry.bytes.count + 64  // and its key and array, about
            if endedBytes >= batchBytes { try writeEnded() }
        }

        /// Writes the threads still open, and those ended.
        func finish() throws {
            for (key, entry) in open { ended.append((key, entry.bytes)) }
            open = [:]
            try writeEnded()
        }

        private func writeEnded() throws {
            ended.sort { $0.key < $1.key }
            for (key, bytes) in ended { try write(key, bytes) }
            ended = []
            endedBytes = 0
        }

        private func write(_ key: BuildChanges.ThreadKey, _ bytes: [UInt8]) throws {
            try insert.execute(arguments: [key.board, key.gid, Data(bytes)])
            guard db.changesCount == 0 else { return }
            let written =
                try Data.fetchOne(
                    db, sql: "SELECT posts FROM search_thread WHERE board = ? AND gid = ?",
                    arguments: [key.board, key.gid]) ?? Data()
            try db.execute(
                sql: "UPDATE search_thread SET posts = ? WHERE board = ? AND gid = ?",
                arguments: [written + Data(bytes), key.board, key.gid])
        }
    }

    /// A late document: appended after a newer post was indexed. `point` is
    /// the first document of the time-ordered run (those appended in time
    /// order) that is newer than it, `rank` its place among the late
    /// documents of the same point, so the client sorts newest first
    /// exactly; `day` answers `after:` / `before:` for it.
    struct Late: Equatable, Sendable {
        var doc: Int
        var day: Int
        var point: Int
        var rank: Int
    }

    /// A shard, its positions (when it holds pairs) and, when `tail` (the
    /// shard had one), its empty tail, which records the bytes of the two.
    private func emitShard(
        _ shard: Int, _ content: SpillFiles.Lists, tail: Bool, _ emit: (Data, String) throws(ArchiveError) -> Void
    ) throws(ArchiveError) {
        let main = Self.shardScript(shard, content, tail: tail)
        var bytes = main.count
        try emit(main, Self.shardPath(shard))
        if !content.bigrams.isEmpty {
            let positions = Self.positionsScript(shard, content)
            bytes += positions.count
            try emit(positions, Self.positionsPath(shard))
        }
        if tail { try emit(Self.tailScript(shard, mainBytes: bytes, SpillFiles.Lists()), Self.tailPath(shard)) }
    }

    /// Appends the new posts of `threads`, numbered in the order they are
    /// indexed; `nil` when that cannot give what a full pass would (no
    /// index or another one on disk, an indexed post changed or moved, too
    /// many late documents, or the archive outgrew its shard count).
    ///
    /// Each new posting goes to the recent tail (`search/r.js`), one small
    /// file for every shard, so one reply rewrites that file and not the
    /// tails of the 40-odd shards its terms fall in; when the recent tail
    /// grows past `recentLimit`, its postings go to their shards' tails
    /// (`flush`). A shard's lists are parsed only when its tail is merged
    /// into it.
    private func append(_ threads: [SearchChanges.ThreadKey], _ output: Output) throws(ArchiveError) -> Report? {
        guard let manifest = output.read(Self.manifestPath).flatMap(Self.parseManifest),
            var late = output.read(Self.latePath).flatMap(Self.parseLate)
        else { return nil }
        struct State {
            var docs: Int
            var last: Key
        }
        let state: State? = try store.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM search_index WHERE id = ?", arguments: [manifest.id])
            else { return nil }
            let board: String = row["lastBoard"]
            return State(
                docs: row["docs"],
                last: Key(
                    postedAt: row["lastPostedAt"], board: Array(board.utf8), gid: row["lastGid"],
                    floor: row["lastFloor"]))
        }
        guard let state, state.docs == manifest.docs else { return nil }

        var fresh: [Document] = []
        // Each changed thread's row of the map, as read.
        var mapRows: [SearchChanges.ThreadKey: [UInt8]] = [:]
        for thread in threads {
            let posts = try store.posts(board: thread.board, gid: thread.gid)
            guard
                let title = try store.read({ db in
                    try String.fetchOne(
                        db, sql: "SELECT title FROM thread WHERE board = ? AND gid = ?",
                        arguments: [thread.board, thread.gid])
                })
            else { continue }
            let row = try store.read { db in
                try Data.fetchOne(
                    db, sql: "SELECT posts FROM search_thread WHERE board = ? AND gid = ?",
                    arguments: [thread.board, thread.gid])
            }
            // A row that does not read back: everything is indexed again.
            guard let hashes = row.map(Self.threadPosts) ?? [:] else { return nil }
            mapRows[thread] = row.map { [UInt8]($0) } ?? []
            for (position, post) in posts.enumerated() {
                let document = Self.document(
                    post: post, threadTitle: title, position: position, postsPerPage: postsPerPage, forum: forum)
                if let hash = hashes[post.floor] {
                    guard hash == Self.rowHash(document.row) else { return nil }
                } else {
                    fresh.append(document)
                }
            }
        }
        var report = Report(full: false, documents: state.docs, shards: manifest.shards)
        guard !fresh.isEmpty else { return report }
        // The store could not record the appended index's map: a full pass,
        // which needs none, makes the index instead.
        guard !store.readOnly else { return nil }
        let documents = state.docs + fresh.count
        guard Self.shardCount(documents: documents, per: documentsPerShard) == manifest.shards else { return nil }
        fresh.sort { $0.key < $1.key }

        // Numbered in order; those older than the newest indexed post are late.
        guard var days = output.read(Self.daysPath).flatMap(Self.parseDays) else { return nil }
        var last = state.last
        var newLate: [(doc: Int, key: Key, day: Int)] = []
        for (offset, document) in fresh.enumerated() {
            if state.docs == 0 || last < document.key {
                last = document.key
                if days.last?.0 != document.day { days.append((document.day, state.docs + offset)) }
            } else {
                newLate.append((state.docs + offset, document.key, document.day))
            }
        }
        if !newLate.isEmpty {
            guard late.count + newLate.count <= Self.lateCap(documents: documents),
                let placed = try place(newLate, late: late, days: days, state: (state.docs, state.last), output)
            else { return nil }
            late = placed
        }
        try forgetIndex(output)
        let files = FileBatch(output, size: filesAtOnce)
        func emit(_ data: Data, _ path: String) throws(ArchiveError) { try files.add(data, path) }

        // The new postings go to the recent tail, one file for every shard,
        // while it stays small; past `recentLimit`, it is flushed into the
        // tails of its shards, and starts again empty.
        var recent = SpillFiles.Shard()
        if manifest.recent > 0 {
            guard let data = output.read(Self.recentPath), data.count == manifest.recent,
                let parsed = Self.parseRecent(data)
            else { return nil }
            recent = parsed
        }
        for (offset, document) in fresh.enumerated() {
            Self.postings(document) { term, kind, positions in
                recent.add(kind: kind, term: term, doc: state.docs + offset, positions: positions)
            }
        }
        guard !recent.outOfOrder else { return nil }
        var present = manifest.present
        var recentBytes = 0
        let recentScript = Self.recentScript(recent.lists())
        if recentScript.count <= recentLimit {
            try emit(recentScript, Self.recentPath)
            recentBytes = recentScript.count
        } else {
            guard try flush(recent, shards: manifest.shards, present: &present, output, emit) else { return nil }
            try emit(Self.recentScript(SpillFiles.Lists()), Self.recentPath)
        }

        // The last chunk, completed, and new ones.
        var index = state.docs / Self.docsPerChunk
        var rows: [[UInt8]] =
            state.docs % Self.docsPerChunk == 0
            ? [] : (output.read(Self.chunkPath(index)).map(Self.chunkRows) ?? []).map { Array($0.utf8) }
        guard rows.count == state.docs % Self.docsPerChunk else { return nil }
        for document in fresh {
            rows.append(document.row)
            if rows.count == Self.docsPerChunk {
                try emit(Self.chunkScript(index, rows), Self.chunkPath(index))
                index += 1
                rows = []
            }
        }
        if !rows.isEmpty { try emit(Self.chunkScript(index, rows), Self.chunkPath(index)) }
        try emit(Self.daysScript(days), Self.daysPath)
        try emit(Self.lateScript(late), Self.latePath)

        let hashes = fresh.map { Self.rowHash($0.row) }
        let id = hashes.reduce(manifest.id, Self.chain)
        var changedRows: [SearchChanges.ThreadKey: [UInt8]] = [:]
        for (offset, document) in fresh.enumerated() {
            let key = SearchChanges.ThreadKey(board: document.board, gid: document.gid)
            Self.appendThreadPost(
                floor: document.floor, hash: hashes[offset], to: &changedRows[key, default: mapRows[key] ?? []])
        }
        try store.write { db in
            let upsert = try db.makeStatement(
                sql: """
                    INSERT INTO search_thread (board, gid, posts) VALUES (?, ?, ?)
                    ON CONFLICT (board, gid) DO UPDATE SET posts = excluded.posts
                    """)
            for (key, bytes) in changedRows.sorted(by: { $0.key < $1.key }) {
                try upsert.execute(arguments: [key.board, key.gid, Data(bytes)])
            }
            try db.execute(sql: "DELETE FROM search_index")
            try db.execute(
                sql: """
                    INSERT INTO search_index (id, docs, lastPostedAt, lastBoard, lastGid, lastFloor)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, documents, last.postedAt, String(decoding: last.board, as: UTF8.self), last.gid, last.floor,
                ])
        }
        try files.flush()
        try emit(
            Self.manifestScript(
                id: id, shards: manifest.shards, documents: documents, late: late.count, present: present.sorted(),
                recent: recentBytes),
            Self.manifestPath)
        try files.flush()
        report.bytes = files.bytes
        report.filesWritten = files.written
        report.documents = documents
        report.appended = fresh.count
        return report
    }

    /// Makes the store name no index, before a pass writes its first file:
    /// until the pass ends, with the store naming the index it wrote and
    /// then the manifest naming it too, the next build indexes everything
    /// again. A pass writes its files a batch at a time, some before it
    /// records the index in the store. A build stopped among them left an
    /// index that the store and the old manifest still agreed on: the next
    /// append added the same posts again to the tails that held them (and
    /// trapped, on every build after), or read other posts in the chunks a
    /// full pass had numbered anew.
    ///
    /// A store that cannot be written goes on naming the index it last
    /// recorded. When that is the index in the folder (built from this
    /// store where it could be written), the folder's manifest is made to
    /// name none first instead: the store's name and map would otherwise
    /// still describe the folder's files while the pass rewrites them.
    private func forgetIndex(_ output: Output) throws(ArchiveError) {
        guard store.readOnly else {
            try store.write { db in try db.execute(sql: "DELETE FROM search_index") }
            return
        }
        guard let manifest = output.read(Self.manifestPath).flatMap(Self.parseManifest),
            try store.read({ db in
                try Bool.fetchOne(db, sql: "SELECT 1 FROM search_index WHERE id = ?", arguments: [manifest.id])
            }) == true
        else { return }
        _ = try output.write(
            Self.manifestScript(id: "", shards: manifest.shards, documents: 0, late: 0, present: []),
            Self.manifestPath)
    }

    /// Moves the recent tail's postings into the tails of their shards:
    /// each shard's tail is read (or begun, for a shard without one: the
    /// shard is written again once, flagged), extended, and written, or
    /// merged into its shard when it grows past its share (`tailLimit`); a
    /// shard without a file gets one, whole, and joins `present`. False
    /// when a shard or tail on disk does not read back.
    private func flush(
        _ recent: SpillFiles.Shard, shards: Int, present: inout Set<Int>, _ output: Output,
        _ emit: (Data, String) throws(ArchiveError) -> Void
    ) throws(ArchiveError) -> Bool {
        var parts: [Int: SpillFiles.Shard] = [:]
        func shard(_ term: String) -> Int { Int(Self.hash(term) % UInt32(shards)) }
        for (term, posting) in recent.unigrams {
            parts[shard(term), default: SpillFiles.Shard()].unigrams[term] = posting
        }
        for (term, posting) in recent.bigrams {
            parts[shard(term), default: SpillFiles.Shard()].bigrams[term] = posting
        }
        for (term, posting) in recent.filters {
            parts[shard(term), default: SpillFiles.Shard()].filters[term] = posting
        }

        for (shard, part) in parts.sorted(by: { $0.key < $1.key }) {
            guard present.contains(shard) else {
                // A shard's first terms: the shard itself, whole, without a
                // tail; the manifest now lists it.
                try emitShard(shard, part.lists(), tail: false, emit)
                present.insert(shard)
                continue
            }
            guard let main = output.read(Self.shardPath(shard)), let hasTail = Self.shardHasTail(main) else {
                return false
            }
            var tail = SpillFiles.Shard()
            let mainBytes: Int
            if hasTail {
                guard let data = output.read(Self.tailPath(shard)), let parsed = Self.parseTail(data, index: shard)
                else { return false }
                tail = parsed.tail
                mainBytes = parsed.mainBytes
            } else {
                // The bytes `emitShard` would record: the shard, flagged, and its positions.
                mainBytes = Self.flagged(main).count + (output.read(Self.positionsPath(shard))?.count ?? 0)
            }
            tail.merge(part)
            guard !tail.outOfOrder else { return false }
            let script = Self.tailScript(shard, mainBytes: mainBytes, tail.lists())
            guard script.count > Self.tailLimit(mainBytes: mainBytes) else {
                try emit(script, Self.tailPath(shard))
                if !hasTail { try emit(Self.flagged(main), Self.shardPath(shard)) }
                continue
            }
            guard var whole = Self.parseShard(main, positions: output.read(Self.positionsPath(shard)), index: shard)
            else { return false }
            whole.merge(tail)
            guard !whole.outOfOrder else { return false }
            try emitShard(shard, whole.lists(), tail: hasTail, emit)
        }
        return true
    }

    /// The late documents with `fresh` ones placed among them: each before
    /// the first document of the time-ordered run newer than it (found by
    /// halving, reading documents' posts from their chunks), ranked by time
    /// among those of the same point. `nil` when a chunk does not read back.
    private func place(
        _ fresh: [(doc: Int, key: Key, day: Int)], late: [Late], days: [(Int, Int)], state: (docs: Int, last: Key),
        _ output: Output
    ) throws(ArchiveError) -> [Late]? {
        let lateDocs = Set(late.map(\.doc))
        var chunks: [Int: Data] = [:]
        var keys: [Int: Key] = [:]
        var failed = false
        func key(_ doc: Int) throws(ArchiveError) -> Key? {
            if let key = keys[doc] { return key }
            let chunk = doc / Self.docsPerChunk
            if chunks[chunk] == nil { chunks[chunk] = output.read(Self.chunkPath(chunk)) ?? Data() }
            guard let data = chunks[chunk], let text = Self.chunkRow(data, doc % Self.docsPerChunk),
                let row = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any],
                row.count >= 3, let board = row[0] as? String, let gid = row[1] as? Int, let floor = row[2] as? Int,
                let postedAt = try store.read({ db in
                    try Int64.fetchOne(
                        db.cachedStatement(sql: "SELECT postedAt FROM post WHERE board = ? AND gid = ? AND floor = ?"),
                        arguments: [board, gid, floor])
                })
            else {
                failed = true
                return nil
            }
            let found = Key(postedAt: postedAt, board: Array(board.utf8), gid: gid, floor: floor)
            keys[doc] = found
            return found
        }
        // The last document of the run: the newest indexed post.
        var lastRun = state.docs - 1
        while lastRun >= 0 && lateDocs.contains(lastRun) { lastRun -= 1 }
        guard lastRun >= 0 else { return nil }
        // Where an entry's point is: from the first run document of its day
        // to the first of a later day (`days` lists the first run document
        // of each day, in time order), when the run documents either side
        // of that range are older and newer than the entry; else anywhere
        // in the run. Searched over the whole run, the append of one late
        // reply at 100k posts read 11 chunk files for it and looked up 17
        // documents' times (14 chunk files opened in all, 6 this way; the
        // append took 7.8 ms, 7.1 ms now: medians of 6 alternating runs).
        let dayNumbers = days.map(\.0)
        func range(_ entry: (doc: Int, key: Key, day: Int)) throws(ArchiveError) -> (low: Int, high: Int)? {
            let from = dayNumbers.lowerBound(entry.day)
            guard from < days.count else { return (0, lastRun) }
            let next = dayNumbers.lowerBound(entry.day + 1)
            let high = next < days.count ? min(max(0, days[next].1), lastRun) : lastRun
            let low = min(max(0, days[from].1), high)
            if high < lastRun {
                guard !lateDocs.contains(high) else { return (0, lastRun) }
                guard let newer = try key(high) else { return nil }
                guard entry.key < newer else { return (0, lastRun) }
            }
            var before = low - 1
            while before >= 0 && lateDocs.contains(before) { before -= 1 }
            if before >= 0 {
                guard let older = try key(before) else { return nil }
                guard older < entry.key else { return (0, lastRun) }
            }
            return (low, high)
        }
        var result = late
        var groups = Set<Int>()
        for entry in fresh {
            // The first run document newer than the entry, in [low, high]
            // (`high` when none before it is).
            guard var (low, high) = try range(entry) else { return nil }
            var answer = high
            while low < high {
                let middle = (low + high) / 2
                var probe = middle
                while probe < high && lateDocs.contains(probe) { probe += 1 }
                guard probe < high else {
                    high = middle
                    continue
                }
                guard let probeKey = try key(probe) else { return nil }
                if entry.key < probeKey {
                    answer = probe
                    high = middle
                } else {
                    low = probe + 1
                }
            }
            result.append(Late(doc: entry.doc, day: entry.day, point: answer, rank: 0))
            keys[entry.doc] = entry.key
            groups.insert(answer)
        }
        // Ranks within the points that changed.
        for point in groups {
            var members: [(index: Int, key: Key)] = []
            for (index, item) in result.enumerated() where item.point == point {
                guard let itemKey = try key(item.doc) else { return nil }
                members.append((index, itemKey))
            }
            members.sort { $0.key < $1.key }
            for (rank, member) in members.enumerated() { result[member.index].rank = rank }
        }
        if failed { return nil }
        return result.sorted { $0.doc < $1.doc }
    }

    /// The index's id is a hash chained over its documents in the order
    /// they were numbered, so an index on disk is known to be the one the
    /// store's map describes (a full pass in parallel or not gives the same
    /// id; late documents appended give another order, and so another id).
    static let emptyIndexID = rowHash("")

    static func chain(_ id: String, _ documentHash: String) -> String { rowHash(id + documentHash) }

    /// A document row's hash, 16 hex digits: whether an indexed post changed
    /// (then the next build indexes everything again) and the index's id.
    /// Not SHA-256: nothing here needs a hash no one can forge (a post that
    /// collided on purpose with its own earlier text would only keep its
    /// old text in search until the next full pass), and 64 bits make an
    /// accidental match of two different rows of an archive negligible
    /// (about n²/2⁶⁵ for n changed posts). It reads 8 bytes a step.
    static func rowHash(_ text: String) -> String {
        var text = text
        return text.withUTF8(ByteHash.hex)
    }

    /// `rowHash` of a row's UTF-8.
    static func rowHash(_ row: [UInt8]) -> String { row.withUnsafeBufferPointer(ByteHash.hex) }

    /// The page cache (KiB) of the full pass's connection, which reads the
    /// posts in time order, each from wherever its thread put it in the
    /// table: the store's own 16 MB up to 262,144 posts, then 1 KiB for
    /// every 16 posts, 64 MB at the most, so that memory stays bounded at
    /// any size. The 1M store's posts (a table of 258 MB) were read with
    /// 990,262 `pread`s with 16 MB, 191,608 with 64 MB; the pass took 1.1 to
    /// 2.2 s less system time (2 alternated pairs, 35.4 against 34.1 CPU-s
    /// on average), and the full build's peak RSS stayed at 418–423 MB. At
    /// 100k (a table of 26 MB) 16 MB already holds what the pass reads again.
    static func passCacheKiB(documents: Int) -> Int {
        min(64 * 1024, max(ArchiveStore.pageCacheKiB, documents / 16))
    }

    /// Buckets of the full pass's spill: `least`, or as many more (doubled)
    /// as it takes to hold about `per` documents a bucket; at most one a
    /// shard. Any number gives the same files (each shard is whole in one
    /// bucket).
    static func bucketCount(documents: Int, shards: Int, per: Int, least: Int) -> Int {
        var count = max(1, least)
        while count < shards && count * max(1, per) < documents { count *= 2 }
        return min(count, shards)
    }

    /// About `per` documents a shard, a power of two between 16 and
    /// 65536, so the count (and every shard's file) only changes when the
    /// archive doubles.
    static func shardCount(documents: Int, per: Int) -> Int {
        var count = 16
        while count < 65536 && count * max(1, per) < documents { count *= 2 }
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

    /// `hash` of a unigram (`pair == false`) or pair key, from its scalars.
    static func hash(key: UInt64, pair: Bool) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        @inline(__always) func byte(_ value: UInt32) {
            hash ^= value & 0xFF
            hash = hash &* 16_777_619
        }
        @inline(__always) func scalar(_ value: UInt32) {
            if value < 0x80 {
                byte(value)
            } else if value < 0x800 {
                byte(0xC0 | value >> 6)
                byte(0x80 | value & 0x3F)
            } else if value < 0x10000 {
                byte(0xE0 | value >> 12)
                byte(0x80 | (value >> 6) & 0x3F)
                byte(0x80 | value & 0x3F)
            } else {
                byte(0xF0 | value >> 18)
                byte(0x80 | (value >> 12) & 0x3F)
                byte(0x80 | (value >> 6) & 0x3F)
                byte(0x80 | value & 0x3F)
            }
        }
        if pair { scalar(UInt32(truncatingIfNeeded: key >> 21)) }
        scalar(UInt32(truncatingIfNeeded: pair ? key & 0x1F_FFFF : key))
        return hash
    }

    /// `YYYYMMDD` of a time in the forum's zone.
    static func dayNumber(_ date: Date, time: ForumTime) -> Int {
        let c = time.components(of: date)
        return c.year * 10000 + c.month * 100 + c.day
    }

    /// The manifest; `present`, the shards that have a file (ascending),
    /// so the client never asks for a shard that holds nothing: spelled as
    /// a list of documents is (`ListCoding.encodeDocs`: a Rice code of the
    /// gaps or a bitmap, whichever is smaller), as `present` or, when
    /// shorter (most shards hold something), the others as `absent`.
    /// `recent`: the bytes of `search/r.js` when it holds postings (the
    /// client loads it then, and only then), 0 (left out) when it does not.
    static func manifestScript(
        id: String, shards: Int, documents: Int, late: Int, present: [Int], recent: Int = 0
    ) -> Data {
        let listed = ListCoding.encodeDocs(present)
        let holding = Set(present)
        let others = ListCoding.encodeDocs((0..<shards).filter { !holding.contains($0) })
        let shardList = others.count < listed.count ? "\"absent\":\"\(others)\"" : "\"present\":\"\(listed)\""
        let recentField = recent > 0 ? ",\"recent\":\(recent)" : ""
        return Data(
            "BBSSearch.manifest({\"version\":\(version),\"id\":\"\(id)\",\"shards\":\(shards),\"docs\":\(documents),\"chunk\":\(docsPerChunk),\"late\":\(late)\(recentField),\(shardList)});\n"
                .utf8)
    }

    static func daysScript(_ days: [(Int, Int)]) -> Data {
        Data("BBSSearch.days([\(days.map { "[\($0.0),\($0.1)]" }.joined(separator: ","))]);\n".utf8)
    }

    /// The JSON between `BBSSearch.name(` (and an index argument) and `);`.
    static func payload(_ data: Data, prefix: String) -> Data? {
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix(prefix), text.hasSuffix(");\n") else { return nil }
        return Data(text.dropFirst(prefix.count).dropLast(3).utf8)
    }

    static func parseManifest(
        _ data: Data
    ) -> (id: String, shards: Int, docs: Int, late: Int, present: Set<Int>, recent: Int)? {
        guard let json = payload(data, prefix: "BBSSearch.manifest("),
            let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
            let id = object["id"] as? String, let shards = object["shards"] as? Int, let docs = object["docs"] as? Int,
            let late = object["late"] as? Int, object["version"] as? Int == version,
            let list = (object["present"] ?? object["absent"]) as? String,
            let listed = list.isEmpty ? [] : ListCoding.decodeDocs(Substring(list)),
            listed.allSatisfy({ (0..<shards).contains($0) })
        else { return nil }
        let recent = object["recent"] as? Int ?? 0
        guard recent >= 0 else { return nil }
        let present = object["present"] != nil ? Set(listed) : Set(0..<shards).subtracting(listed)
        return (id, shards, docs, late, present, recent)
    }

    static func parseDays(_ data: Data) -> [(Int, Int)]? {
        guard let json = payload(data, prefix: "BBSSearch.days("),
            let list = try? JSONSerialization.jsonObject(with: json) as? [[Int]]
        else { return nil }
        return list.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
    }

    /// Whether a shard file names a tail (`nil`: not a shard file).
    static func shardHasTail(_ data: Data) -> Bool? {
        guard data.starts(with: Data("BBSSearch.shard(".utf8)) else { return nil }
        return data.suffix(tailFlag.count + 3) == Data((tailFlag + ");\n").utf8)
    }

    static let tailFlag = ",1"

    /// An untailed shard file with the flag that names its tail.
    static func flagged(_ data: Data) -> Data { data.dropLast(3) + Data((tailFlag + ");\n").utf8) }

    /// A shard file without the flag: its lists alone.
    static func unflagged(_ data: Data) -> Data {
        shardHasTail(data) == true ? data.dropLast(tailFlag.count + 3) + Data(");\n".utf8) : data
    }

    /// A shard file and its positions file back into postings that further
    /// documents can extend; `nil` when they do not read back or disagree.
    static func parseShard(_ data: Data, positions: Data?, index: Int) -> SpillFiles.Shard? {
        guard let json = payload(unflagged(data), prefix: "BBSSearch.shard(\(index),"),
            let object = try? JSONSerialization.jsonObject(with: json) as? [String: [String: String]]
        else { return nil }
        var pairs: [String: String] = [:]
        if let positions {
            guard let json = payload(positions, prefix: "BBSSearch.positions(\(index),"),
                let object = try? JSONSerialization.jsonObject(with: json) as? [String: String]
            else { return nil }
            pairs = object
        }
        return shard(object, positions: pairs)
    }

    /// A tail file back into postings, with the bytes of its shard.
    static func parseTail(_ data: Data, index: Int) -> (tail: SpillFiles.Shard, mainBytes: Int)? {
        guard let json = payload(data, prefix: "BBSSearch.tail(\(index),") else { return nil }
        let text = String(decoding: json, as: UTF8.self)
        guard let comma = text.firstIndex(of: ","), let mainBytes = Int(text[..<comma]),
            let parts = try? JSONSerialization.jsonObject(
                with: Data(("[" + text[text.index(after: comma)...] + "]").utf8))
                as? [Any],
            parts.count == 2, let object = parts[0] as? [String: [String: String]],
            let positions = parts[1] as? [String: String],
            let tail = shard(object, positions: positions)
        else { return nil }
        return (tail, mainBytes)
    }

    /// The recent tail back into postings.
    static func parseRecent(_ data: Data) -> SpillFiles.Shard? {
        guard let json = payload(data, prefix: "BBSSearch.recent("),
            let parts = try? JSONSerialization.jsonObject(with: Data("[".utf8) + json + Data("]".utf8)) as? [Any],
            parts.count == 2, let object = parts[0] as? [String: [String: String]],
            let positions = parts[1] as? [String: String]
        else { return nil }
        return shard(object, positions: positions)
    }

    /// Lists as a shard or tail spells them (`u`, `b`, `m`), with the pairs' positions.
    static func shard(_ object: [String: [String: String]], positions pairs: [String: String]) -> SpillFiles.Shard? {
        func lists(_ key: String, positional: Bool) -> [String: SpillFiles.Posting]? {
            var result: [String: SpillFiles.Posting] = [:]
            for (term, value) in object[key] ?? [:] {
                guard var bytes = ListCoding.internalList(value, positional: positional) else { return nil }
                if positional {
                    guard
                        let positions = pairs[term].flatMap({ Data(base64Encoded: $0) }).flatMap({
                            ListCoding.riceValues([UInt8]($0))
                        }).map(ListCoding.varints),
                        let joined = SpillFiles.joined(counts: bytes, positions: positions)
                    else { return nil }
                    bytes = joined
                }
                guard let last = SpillFiles.lastDocument(bytes, positional: positional) else { return nil }
                result[term] = SpillFiles.Posting(bytes: bytes, lastDoc: last)
            }
            return result
        }
        guard let unigrams = lists("u", positional: false), let bigrams = lists("b", positional: true),
            let filters = lists("m", positional: false),
            Set(bigrams.keys) == Set(pairs.keys)
        else { return nil }
        return SpillFiles.Shard(unigrams: unigrams, bigrams: bigrams, filters: filters)
    }

    /// The late documents: base64 of varints, for each (by document) the
    /// gap from the previous document, then zigzag differences of its day
    /// and point from the previous one's, then its rank.
    static func lateScript(_ late: [Late]) -> Data {
        var bytes: [UInt8] = []
        var previous = Late(doc: 0, day: 0, point: 0, rank: 0)
        for item in late {
            varint(item.doc - previous.doc, into: &bytes)
            varint(zigzag(item.day - previous.day), into: &bytes)
            varint(zigzag(item.point - previous.point), into: &bytes)
            varint(item.rank, into: &bytes)
            previous = item
        }
        return Data("BBSSearch.late(\"\(base64(bytes))\");\n".utf8)
    }

    static func parseLate(_ data: Data) -> [Late]? {
        guard let json = payload(data, prefix: "BBSSearch.late("),
            let text = try? JSONSerialization.jsonObject(with: json, options: .fragmentsAllowed) as? String,
            let decoded = Data(base64Encoded: text)
        else { return nil }
        let bytes = [UInt8](decoded)
        var index = 0
        var previous = Late(doc: 0, day: 0, point: 0, rank: 0)
        var late: [Late] = []
        while index < bytes.count {
            guard let gap = readVarint(bytes, &index), let day = readVarint(bytes, &index),
                let point = readVarint(bytes, &index), let rank = readVarint(bytes, &index)
            else { return nil }
            previous = Late(
                doc: previous.doc + gap, day: previous.day + unzigzag(day), point: previous.point + unzigzag(point),
                rank: rank)
            late.append(previous)
        }
        return late
    }

    static func zigzag(_ value: Int) -> Int { value >= 0 ? value * 2 : -value * 2 - 1 }
    static func unzigzag(_ value: Int) -> Int { value % 2 == 0 ? value / 2 : -(value + 1) / 2 }

    /// The rows of a chunk file (one a line, as `chunkScript` writes them).
    static func chunkRows(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst().map { line in
            var row = String(line)
            if row.hasSuffix("]);") { row.removeLast(3) }
            if row.hasSuffix(",") { row.removeLast() }
            return row
        }
    }

    /// Row `index` of a chunk file, as `chunkRows` reads it, found by its
    /// line breaks without making a string of every other row: placing a
    /// late post probes one row in each of about 17 chunks, and splitting
    /// each chunk whole was a tenth of a build after one reply (100k posts).
    static func chunkRow(_ data: Data, _ index: Int) -> String? {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> String? in
            guard let base = bytes.baseAddress, index >= 0 else { return nil }
            let newline = UInt8(ascii: "\n")
            var start = 0
            // The header's line, then `index` rows before this one.
            for _ in 0...index {
                guard start < bytes.count,
                    let found = memchr(base + start, Int32(newline), bytes.count - start)
                else { return nil }
                start = base.distance(to: found) + 1
            }
            guard start < bytes.count else { return nil }
            let end =
                memchr(base + start, Int32(newline), bytes.count - start).map { base.distance(to: $0) } ?? bytes.count
            var row = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            if row.hasSuffix("]);") { row.removeLast(3) }
            if row.hasSuffix(",") { row.removeLast() }
            return row
        }
    }

    /// A chunk file: `BBSSearch.docs("HEADER",K,[row,…]);`, a row a line.
    /// HEADER is the byte length of the rest of it in six hex digits, then
    /// the rows' lengths (each with its separator) as base64 of varints:
    /// about 350 bytes for 128 rows. It starts at byte 16, right after the
    /// prefix (`search.js` reads it there), and the rows right after `",K,[`
    /// and a line break, so over HTTP the client reads the header, then
    /// only the rows it shows, by Range requests; from `file://` the file
    /// runs as a script, whole. The rows are given as their UTF-8, and the
    /// file is spelled into one buffer.
    static func chunkScript(_ index: Int, _ rows: [[UInt8]]) -> Data {
        let lengths = rows.enumerated().map { number, row in row.count + (number + 1 < rows.count ? 2 : 0) }
        let list = base64(ListCoding.varints(lengths))
        let size = String(list.utf8.count, radix: 16)
        let head =
            "BBSSearch.docs(\"" + String(repeating: "0", count: max(0, 6 - size.utf8.count)) + size + list
            + "\",\(index),[\n"
        var script = Data(capacity: head.utf8.count + lengths.reduce(0, +) + 4)
        script.append(contentsOf: head.utf8)
        for (number, row) in rows.enumerated() {
            if number > 0 { script.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: "\n")]) }
            script.append(contentsOf: row)
        }
        script.append(contentsOf: "]);\n".utf8)
        return script
    }

    /// A shard; `tail`: it has a tail (`search/t/`), which the client loads after it.
    static func shardScript(_ index: Int, _ shard: SpillFiles.Lists, tail: Bool) -> Data {
        Data("BBSSearch.shard(\(index),\(shardBody(shard))\(tail ? tailFlag : ""));\n".utf8)
    }

    /// A shard's tail: the postings of documents appended since the shard was
    /// last written whole, all numbered after the shard's own, with their
    /// pairs' positions; `mainBytes`, the bytes of the shard and its positions.
    static func tailScript(_ index: Int, mainBytes: Int, _ tail: SpillFiles.Lists) -> Data {
        Data("BBSSearch.tail(\(index),\(mainBytes),\(shardBody(tail)),\(positionsBody(tail)));\n".utf8)
    }

    /// The recent tail: the postings of the documents appended since the
    /// last flush into the shards' tails (all numbered after theirs), for
    /// every shard at once, with their pairs' positions.
    static func recentScript(_ recent: SpillFiles.Lists) -> Data {
        Data("BBSSearch.recent(\(shardBody(recent)),\(positionsBody(recent)));\n".utf8)
    }

    static func shardBody(_ shard: SpillFiles.Lists) -> String {
        func object(_ lists: [(String, [UInt8])], positional: Bool) -> String {
            "{"
                + lists.map { key, bytes in
                    Self.json(key) + ":\"" + ListCoding.encode(bytes, positional: positional) + "\""
                }
                .joined(separator: ",") + "}"
        }
        let body =
            "{\"u\":\(object(shard.unigrams, positional: false)),\"b\":\(object(shard.bigrams, positional: true)),"
            + "\"m\":\(object(shard.filters, positional: false))}"
        return body
    }

    /// The positions of a shard's pairs, as they are kept while writing.
    static func positionsScript(_ index: Int, _ shard: SpillFiles.Lists) -> Data {
        Data("BBSSearch.positions(\(index),\(positionsBody(shard)));\n".utf8)
    }

    static func positionsBody(_ shard: SpillFiles.Lists) -> String {
        "{"
            + shard.bigrams.map { key, bytes in
                Self.json(key) + ":\""
                    + Self.base64(ListCoding.riceBytes(values: SpillFiles.positionValues(bytes)))
                    + "\""
            }
            .joined(separator: ",") + "}"
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// A JSON string literal that is also safe in a script: `"`, `\\`,
    /// `<`, line breaks, U+2028, U+2029 and other control characters escaped.
    /// Spelled on the UTF-8 bytes, the runs between escapes copied whole.
    static func json(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        appendJSON(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `appendJSON(SearchText.termText(key, pair: pair), to: &out)`,
    /// spelled from the key's scalars with no `String` between (a `String`
    /// for each term of a shard and its JSON spelled twice for a pair; with
    /// `sortedTerms`' packed sort, spelling the shards took 14 % fewer
    /// samples in perf of the 100k full pass).
    static func appendTermJSON(_ key: UInt64, pair: Bool, to out: inout [UInt8]) {
        // At most two scalars of four bytes: their UTF-8, then escaped as any text is.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8) { bytes in
            var count = 0
            func add(_ value: UInt32) {
                guard let scalar = Unicode.Scalar(value) else { return }
                for byte in scalar.utf8 {
                    bytes[count] = byte
                    count += 1
                }
            }
            if pair { add(UInt32(truncatingIfNeeded: key >> 21)) }
            add(UInt32(truncatingIfNeeded: pair ? key & 0x1F_FFFF : key))
            appendJSON(utf8: UnsafeBufferPointer(rebasing: bytes[..<count]), to: &out)
        }
    }

    /// `json(text)`'s UTF-8 bytes, appended to `out`.
    /// With `displayable`, control characters other than tab and line
    /// feed are left out, as `SiteBuilder.displayable` leaves them out (in
    /// the same scan: a scan of its own for each field was 1.2 % of indexing).
    static func appendJSON(_ text: String, to out: inout [UInt8], displayable: Bool = false) {
        var text = text
        text.withUTF8 { appendJSON(utf8: $0, to: &out, displayable: displayable) }
    }

    /// `appendJSON` of text held as UTF-8 bytes.
    static func appendJSON(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8], displayable: Bool = false) {
        do {
            out.append(UInt8(ascii: "\""))
            var run = 0
            var at = 0
            func escape(_ replacement: StaticString, skipping count: Int) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<at]))
                out.append(
                    contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
                at += count
                run = at
            }
            func hex(_ digit: UInt8) -> UInt8 { digit < 10 ? 0x30 + digit : 0x57 + digit }
            while at < bytes.count {
                let byte = bytes[at]
                switch byte {
                case UInt8(ascii: "\""): escape("\\\"", skipping: 1)
                case UInt8(ascii: "\\"): escape("\\\\", skipping: 1)
                case UInt8(ascii: "\n"): escape("\\n", skipping: 1)
                case UInt8(ascii: "<"): escape("\\u003c", skipping: 1)
                case 0xE2 where at + 2 < bytes.count && bytes[at + 1] == 0x80 && bytes[at + 2] == 0xA8:
                    escape("\\u2028", skipping: 3)
                case 0xE2 where at + 2 < bytes.count && bytes[at + 1] == 0x80 && bytes[at + 2] == 0xA9:
                    escape("\\u2029", skipping: 3)
                case 0..<0x20 where displayable && byte != UInt8(ascii: "\t"):
                    escape("", skipping: 1)
                case 0..<0x20:
                    escape("\\u00", skipping: 1)
                    out.append(hex(byte >> 4))
                    out.append(hex(byte & 0x0F))
                default: at += 1
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<at]))
            out.append(UInt8(ascii: "\""))
        }
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

    /// A shard's lists as its files spell them: sorted by term.
    struct Lists {
        var unigrams: [(String, [UInt8])] = []
        var bigrams: [(String, [UInt8])] = []
        var filters: [(String, [UInt8])] = []
    }

    /// A shard as the full pass assembles it: a view of one slot of its
    /// bucket's postings (`Bucket`), spelled straight into the shard's
    /// files (`scripts`) without the varints of `Posting` in between
    /// (written, then read back, by each list's encoder).
    struct KeyedShard {
        let bucket: Bucket
        let slot: Int

        /// What `shardScript(index, lists, tail: false)` and, when the shard
        /// holds pairs, `positionsScript(index, lists)` write for the
        /// `Lists` of these postings.
        func scripts(_ index: Int) -> (shard: Data, positions: Data?) { bucket.scripts(slot: slot, index) }
    }

    /// A bucket's postings, decoded from its records: every character and
    /// pair of its shards numbered in one table by (slot, kind, key), each
    /// record's values in one array in the order they came, and the
    /// records put in the order of their terms by a counting sort. One
    /// array a term (`[[Int32]]`, appended to record by record) was most of
    /// the cost of decoding: a uniqueness check and often a reallocation a
    /// record, and a heap block of its own for each of the many terms with
    /// a posting or two.
    final class Bucket {
        /// A term's place in `groups`: kind (0 character, 1 pair) and slot
        /// above the key's 42 bits.
        static func groupKey(slot: Int, pair: Bool, key: UInt64) -> UInt64 {
            (UInt64(slot) << 1 | (pair ? 1 : 0)) << 42 | key
        }

        /// Where it lives: the room its thread decoded it into, which the
        /// thread's next bucket takes over (so a bucket is spelled before
        /// its thread decodes another).
        let room: DecodeRoom
        /// A character's record: the document; a pair's: the document, the
        /// count and the positions as gaps within the document.
        let values: UnsafeBufferPointer<Int32>
        /// Where each record starts in `values`, the records in the order of
        /// their terms (then of their documents); `termStarts[g]` is where
        /// term g's records start in it.
        let recordStarts: UnsafeBufferPointer<Int32>
        let termStarts: UnsafeBufferPointer<Int32>
        /// The terms of each slot and kind (`slot * 2 + kind`), from `kindStarts[slot * 2 + kind]`.
        let terms: UnsafeBufferPointer<Int32>
        let kindStarts: [Int32]
        let filters: [[String: Posting]]

        /// Orders the `records` records and `values` values that `room`
        /// holds by term.
        init(room: DecodeRoom, records: Int, values: Int, slots: Int, filters: [[String: Posting]]) {
            let count = room.groups.keys.count
            room.reserveTerms(count)
            let recordGroups = UnsafeBufferPointer(rebasing: room.recordGroups[..<records])
            let termStarts = UnsafeMutableBufferPointer(rebasing: room.termStarts[...count])
            termStarts.update(repeating: 0)
            for group in recordGroups { termStarts[Int(group) + 1] += 1 }
            for group in 0..<count { termStarts[group + 1] += termStarts[group] }
            let next = UnsafeMutableBufferPointer(rebasing: room.next[...count])
            _ = next.update(fromContentsOf: termStarts)
            let ordered = UnsafeMutableBufferPointer(rebasing: room.ordered[..<records])
            for (record, group) in recordGroups.enumerated() {
                ordered[Int(next[Int(group)])] = room.recordStarts[record]
                next[Int(group)] += 1
            }
            var kindStarts = [Int32](repeating: 0, count: slots * 2 + 1)
            let keys = room.groups.keys
            for key in keys { kindStarts[Int(key >> 42) + 1] += 1 }
            for kind in 0..<(slots * 2) { kindStarts[kind + 1] += kindStarts[kind] }
            var nextKind = kindStarts
            let terms = UnsafeMutableBufferPointer(rebasing: room.terms[..<count])
            for (group, key) in keys.enumerated() {
                let kind = Int(key >> 42)
                terms[Int(nextKind[kind])] = Int32(truncatingIfNeeded: group)
                nextKind[kind] += 1
            }
            self.room = room
            self.values = UnsafeBufferPointer(rebasing: room.values[..<values])
            self.recordStarts = UnsafeBufferPointer(ordered)
            self.termStarts = UnsafeBufferPointer(termStarts)
            self.terms = UnsafeBufferPointer(terms)
            self.kindStarts = kindStarts
            self.filters = filters
        }

        /// The terms of a slot and kind in the order the files spell them:
        /// by text (as `String` orders them), then by key. Two terms of
        /// ASCII and CJK ideographs alone are ordered by their scalars, which is
        /// how `String` orders them (they are their own NFC, and
        /// compose with nothing), without a `String` for each.
        func sortedTerms(slot: Int, pair: Bool) -> [(key: UInt64, group: Int)] {
            let kind = slot * 2 + (pair ? 1 : 0)
            let range = Int(kindStarts[kind])..<Int(kindStarts[kind + 1])
            let keys = room.groups.keys
            @inline(__always) func isPlain(_ key: UInt64) -> Bool {
                Self.plain(UInt32(truncatingIfNeeded: key & 0x1F_FFFF))
                    && (!pair || Self.plain(UInt32(truncatingIfNeeded: key >> 21)))
            }
            // Most slots hold plain terms alone: their keys (42 bits) and
            // groups (22) packed in one word each and sorted as numbers
            // (a stable sort of tuples with a closure was 1.3 % of indexing).
            var packed: [UInt64] = []
            packed.reserveCapacity(range.count)
            var allPlain = true
            for at in range {
                let group = Int(terms[at])
                let key = keys[group] & 0x3FF_FFFF_FFFF
                guard group < 1 << 22, isPlain(key) else {
                    allPlain = false
                    break
                }
                packed.append(key << 22 | UInt64(group))
            }
            if allPlain {
                packed.sort()
                return packed.map { ($0 >> 22, Int($0 & 0x3F_FFFF)) }
            }
            // Others by their text, spelled once a term (not twice a comparison).
            var list: [(key: UInt64, group: Int, text: String?)] = []
            list.reserveCapacity(range.count)
            for at in range {
                let group = Int(terms[at])
                let key = keys[group] & 0x3FF_FFFF_FFFF
                list.append((key, group, isPlain(key) ? nil : SearchText.termText(key, pair: pair)))
            }
            list.sort { a, b in
                guard a.text != nil || b.text != nil else { return a.key < b.key }
                let first = a.text ?? SearchText.termText(a.key, pair: pair)
                let second = b.text ?? SearchText.termText(b.key, pair: pair)
                return first != second ? first < second : a.key < b.key
            }
            return list.map { ($0.key, $0.group) }
        }

        /// ASCII and CJK ideographs: their own NFC, composed with nothing.
        static func plain(_ value: UInt32) -> Bool {
            value < 0x80 || (0x4E00...0x9FFF).contains(value) || (0x3400...0x4DBF).contains(value)
        }

        func scripts(slot: Int, _ index: Int) -> (shard: Data, positions: Data?) {
            let unigramOrder = sortedTerms(slot: slot, pair: false)
            let bigramOrder = sortedTerms(slot: slot, pair: true)
            // Spelled as UTF-8 bytes into one buffer a file: a String for
            // each list, each key and each piece, then joined, was most of
            // the cost of spelling a shard.
            var shard: [UInt8] = []
            shard.reserveCapacity(4096)
            shard += "BBSSearch.shard(\(index),{\"u\":{".utf8
            var coder = ListCoding.Scratch()
            var docs: [Int] = []
            do {
                let starts = recordStarts
                for (number, (key, group)) in unigramOrder.enumerated() {
                    if number > 0 { shard.append(UInt8(ascii: ",")) }
                    SearchIndexWriter.appendTermJSON(key, pair: false, to: &shard)
                    shard += ":\"".utf8
                    docs.removeAll(keepingCapacity: true)
                    for at in Int(termStarts[group])..<Int(termStarts[group + 1]) {
                        docs.append(Int(values[Int(starts[at])]))
                    }
                    ListCoding.appendDocs(docs, to: &shard, scratch: &coder)
                    shard.append(UInt8(ascii: "\""))
                }
            }
            shard += "},\"b\":{".utf8
            var positions: [UInt8] = []
            if !bigramOrder.isEmpty {
                positions.reserveCapacity(4096)
                positions += "BBSSearch.positions(\(index),{".utf8
            }
            var ranks: [Int] = []
            var counts: [Int] = []
            var gaps: [Int] = []
            // A pair's JSON key, spelled once for both files.
            var text: [UInt8] = []
            do {
                let starts = recordStarts
                for (number, (key, group)) in bigramOrder.enumerated() {
                    docs.removeAll(keepingCapacity: true)
                    ranks.removeAll(keepingCapacity: true)
                    counts.removeAll(keepingCapacity: true)
                    gaps.removeAll(keepingCapacity: true)
                    // (document, count, the count's positions as gaps) each.
                    for at in Int(termStarts[group])..<Int(termStarts[group + 1]) {
                        let start = Int(starts[at])
                        let count = Int(values[start + 1])
                        if count != 1 {
                            ranks.append(docs.count)
                            counts.append(count)
                        }
                        docs.append(Int(values[start]))
                        for value in values[(start + 2)..<(start + 2 + count)] { gaps.append(Int(value)) }
                    }
                    if number > 0 {
                        shard.append(UInt8(ascii: ","))
                        positions.append(UInt8(ascii: ","))
                    }
                    text.removeAll(keepingCapacity: true)
                    SearchIndexWriter.appendTermJSON(key, pair: true, to: &text)
                    shard += text
                    shard += ":\"".utf8
                    ListCoding.appendList(docs: docs, ranks: ranks, counts: counts, to: &shard, scratch: &coder)
                    shard.append(UInt8(ascii: "\""))
                    positions += text
                    positions += ":\"".utf8
                    ListCoding.appendRiceValues(gaps, to: &positions, scratch: &coder)
                    positions.append(UInt8(ascii: "\""))
                }
            }
            shard += "},\"m\":{".utf8
            let filters = filters.isEmpty ? [:] : filters[slot]
            for (number, key) in filters.keys.sorted().enumerated() {
                if number > 0 { shard.append(UInt8(ascii: ",")) }
                SearchIndexWriter.appendJSON(key, to: &shard)
                shard += ":\"".utf8
                shard += ListCoding.encode(filters[key]?.bytes ?? [], positional: false).utf8
                shard.append(UInt8(ascii: "\""))
            }
            shard += "}});\n".utf8
            guard !bigramOrder.isEmpty else { return (Data(shard), nil) }
            positions += "});\n".utf8
            return (Data(shard), Data(positions))
        }
    }

    struct Shard {
        var unigrams: [String: Posting] = [:]
        var bigrams: [String: Posting] = [:]
        var filters: [String: Posting] = [:]
        /// Whether a document was added that does not come after its list's
        /// last one (left out): a list read from disk that holds documents
        /// its index does not count, which an append must not build on.
        private(set) var outOfOrder = false

        func lists() -> Lists {
            func sorted(_ lists: [String: Posting]) -> [(String, [UInt8])] {
                lists.keys.sorted().map { ($0, lists[$0]?.bytes ?? []) }
            }
            return Lists(unigrams: sorted(unigrams), bigrams: sorted(bigrams), filters: sorted(filters))
        }

        mutating func add(kind: Kind, term: String, doc: Int, positions: [Int]) {
            let added =
                switch kind {
                case .unigram: Self.appendInOrder(&unigrams[term, default: Posting()], doc: doc, positions: nil)
                case .bigram: Self.appendInOrder(&bigrams[term, default: Posting()], doc: doc, positions: positions)
                case .filter: Self.appendInOrder(&filters[term, default: Posting()], doc: doc, positions: nil)
                }
            if !added { outOfOrder = true }
        }

        /// Appends a tail's postings (all of later documents) to these.
        mutating func merge(_ tail: Shard) {
            func merge(_ from: [String: Posting], into lists: inout [String: Posting], positional: Bool) -> Bool {
                var inOrder = true
                for (term, posting) in from {
                    var index = 0
                    var doc = 0
                    let bytes = posting.bytes
                    while index < bytes.count {
                        guard let gap = readVarint(bytes, &index) else { break }
                        doc += gap
                        var positions: [Int]?
                        if positional {
                            guard let count = readVarint(bytes, &index) else { break }
                            var list: [Int] = []
                            var position = 0
                            for _ in 0..<count {
                                guard let step = readVarint(bytes, &index) else { break }
                                position += step
                                list.append(position)
                            }
                            positions = list
                        }
                        if !Self.appendInOrder(&lists[term, default: Posting()], doc: doc, positions: positions) {
                            inOrder = false
                        }
                    }
                }
                return inOrder
            }
            let inOrder = [
                merge(tail.unigrams, into: &unigrams, positional: false),
                merge(tail.bigrams, into: &bigrams, positional: true),
                merge(tail.filters, into: &filters, positional: false),
            ]
            if inOrder.contains(false) || tail.outOfOrder { outOfOrder = true }
        }

        /// `append`, when `doc` comes after the list's last document;
        /// false (the list left as it was) when it does not, where its gap
        /// would be negative or 0, which no list spells (the writer trapped
        /// on one).
        static func appendInOrder(_ posting: inout Posting, doc: Int, positions: [Int]?) -> Bool {
            guard doc > posting.lastDoc else { return false }
            append(&posting, doc: doc, positions: positions)
            return true
        }

        static func append(_ posting: inout Posting, doc: Int, positions: [Int]?) {
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

    /// A pair's list without its positions: (document gap, occurrences) each.
    static func counts(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let gap = readVarint(bytes, &index), let count = readVarint(bytes, &index) else { break }
            varint(gap, into: &out)
            varint(count, into: &out)
            for _ in 0..<count where readVarint(bytes, &index) == nil { break }
        }
        return out
    }

    /// A pair's positions without its documents and counts (those are in
    /// its shard): each document's positions as gaps, in document order.
    static func positionValues(_ bytes: [UInt8]) -> [Int] {
        var out: [Int] = []
        var index = 0
        while index < bytes.count {
            guard readVarint(bytes, &index) != nil, let count = readVarint(bytes, &index) else { break }
            for _ in 0..<count {
                guard let position = readVarint(bytes, &index) else { break }
                out.append(position)
            }
        }
        return out
    }

    /// A pair's full list again from its (document gap, count) list and its
    /// positions; `nil` when they do not fit together.
    static func joined(counts: [UInt8], positions: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var index = 0
        var at = 0
        while index < counts.count {
            guard let gap = readVarint(counts, &index), let count = readVarint(counts, &index) else { return nil }
            varint(gap, into: &out)
            varint(count, into: &out)
            for _ in 0..<count {
                guard let position = readVarint(positions, &at) else { return nil }
                varint(position, into: &out)
            }
        }
        return at == positions.count ? out : nil
    }

    /// The last document of an encoded list, `nil` when it does not decode.
    static func lastDocument(_ bytes: [UInt8], positional: Bool) -> Int? {
        var index = 0
        var doc = 0
        var last = -1
        while index < bytes.count {
            guard let gap = readVarint(bytes, &index) else { return nil }
            doc += gap
            last = doc
            if positional {
                guard let count = readVarint(bytes, &index) else { return nil }
                for _ in 0..<count where readVarint(bytes, &index) == nil { return nil }
            }
        }
        return last
    }

    let folder: URL
    let buckets: Int
    let threshold: Int
    /// Each bucket's records not yet spilled, in one buffer a bucket kept
    /// from one spill to the next. (An array a batch, each held until the
    /// spill, took its pages from the system again: the 100k pass took
    /// 47,000 page faults, 35,000 this way, and its CPU time went from 3.14
    /// to 3.04 s, medians of 3; the writers of `prepare` are kept too.)
    private var buffers: BucketBytes
    private var buffered = 0
    /// The bytes spilled to each bucket's file: what reading it back must
    /// find, so a file changed or removed meanwhile is said, never read as
    /// fewer postings.
    private(set) var spilledBytes: [Int]

    init(buckets: Int, threshold: Int) throws(ArchiveError) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bbsarchive-search-\(UUID().uuidString)")
        self.buckets = buckets
        self.threshold = threshold
        buffers = BucketBytes(buckets: buckets)
        spilledBytes = Array(repeating: 0, count: buckets)
        guard mkdir(folder.path, 0o700) == 0 else {
            throw .scratchUnwritable(
                path: folder.deletingLastPathComponent().path, reason: String(cString: strerror(errno)))
        }
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// Appends `bytes` to the file at `path` (made if need be); the
    /// system's words for what failed (`No space left on device`), or nil.
    static func append(_ bytes: UnsafeRawBufferPointer, to path: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        return DiskPublisher.writeAll(descriptor, bytes) ? nil : String(cString: strerror(errno))
    }

    /// Spill records grouped by bucket: `spans` holds each bucket that has
    /// any and where its records end in `bytes`.
    struct Records: Sendable {
        var bytes: [UInt8] = []
        var spans: [(bucket: Int, end: Int)] = []
    }

    /// Spill records as one thread writes them: a growable buffer a
    /// bucket, each document's records appended to the buckets they fall in.
    final class BucketBytes: @unchecked Sendable {
        // @unchecked: one thread at a time writes it (a thread of `prepare`,
        // then the pass's, which appends it to the spill's own); the cores
        // that assemble the buckets only read the spill's.
        let buckets: Int
        private let bases: UnsafeMutableBufferPointer<UnsafeMutablePointer<UInt8>?>
        private let counts: UnsafeMutableBufferPointer<Int>
        private let capacities: UnsafeMutableBufferPointer<Int>
        /// The document of each bucket's last header, -1 before the first.
        private let lastDocs: UnsafeMutableBufferPointer<Int>

        init(buckets: Int) {
            self.buckets = max(1, buckets)
            bases = .allocate(capacity: self.buckets)
            bases.initialize(repeating: nil)
            counts = .allocate(capacity: self.buckets)
            counts.initialize(repeating: 0)
            capacities = .allocate(capacity: self.buckets)
            capacities.initialize(repeating: 0)
            lastDocs = .allocate(capacity: self.buckets)
            lastDocs.initialize(repeating: -1)
        }

        deinit {
            for base in bases { base?.deallocate() }
            bases.deallocate()
            counts.deallocate()
            capacities.deallocate()
            lastDocs.deallocate()
        }

        /// The value that a document's header in `bucket` starts with: the
        /// document as is (`doc << 1 | 1`) in the first header this writer
        /// puts in the bucket, then the gap from the header before
        /// (`gap << 1`). A writer's bytes are always joined whole, so a
        /// reader meets an absolute document first, and every gap follows
        /// the document it counts from. (The document as is, three bytes
        /// from 16,384 documents on, was a fifth of the spill at 100k
        /// posts, where most documents have records in most buckets; a gap
        /// takes a byte.)
        @inline(__always)
        func header(_ doc: Int, _ bucket: Int) -> Int {
            let last = lastDocs[bucket]
            lastDocs[bucket] = doc
            return last < 0 || doc < last ? doc << 1 | 1 : (doc - last) << 1
        }

        /// Where the next bytes of `bucket` go, with room for `bytes` more.
        @inline(__always)
        func end(_ bucket: Int, room bytes: Int) -> UnsafeMutablePointer<UInt8> {
            if counts[bucket] + bytes > capacities[bucket] { grow(bucket, to: counts[bucket] + bytes) }
            // Never nil past `grow`, which sets a base for any room asked.
            return bases[bucket].unsafelyUnwrapped + counts[bucket]
        }

        /// `bytes` more written at `end(bucket, room:)`.
        @inline(__always)
        func wrote(_ bytes: Int, to bucket: Int) { counts[bucket] += bytes }

        /// The bytes written to `bucket` (valid until it is written to again).
        func bytes(_ bucket: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: bases[bucket], count: counts[bucket])
        }

        /// `bytes` appended to `bucket`.
        func append(_ bytes: UnsafeBufferPointer<UInt8>, to bucket: Int) {
            guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
            end(bucket, room: bytes.count).update(from: source, count: bytes.count)
            wrote(bytes.count, to: bucket)
        }

        /// Every bucket emptied, its memory kept for what is written next.
        func removeAll() {
            counts.update(repeating: 0)
            lastDocs.update(repeating: -1)
        }

        /// The same bytes, each bucket's in a block of just its size.
        func compacted() -> BucketBytes {
            let copy = BucketBytes(buckets: buckets)
            for bucket in 0..<buckets { copy.append(bytes(bucket), to: bucket) }
            return copy
        }

        private func grow(_ bucket: Int, to least: Int) {
            let capacity = max(least, capacities[bucket] * 2, 256)
            let base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            if let old = bases[bucket] {
                base.update(from: old, count: counts[bucket])
                old.deallocate()
            }
            bases[bucket] = base
            capacities[bucket] = capacity
        }

        /// The records of several writers, each bucket's in the writers'
        /// order: for writers of successive runs of documents, document order.
        static func joined(_ writers: [BucketBytes]) -> Records {
            let buckets = writers.first?.buckets ?? 0
            var out = Records()
            var total = 0
            for bucket in 0..<buckets {
                let size = writers.reduce(0) { $0 + $1.counts[bucket] }
                total += size
                if size > 0 { out.spans.append((bucket, total)) }
            }
            out.bytes = [UInt8](unsafeUninitializedCapacity: total) { target, initialized in
                var at = 0
                for bucket in 0..<buckets {
                    for writer in writers {
                        let count = writer.counts[bucket]
                        guard count > 0, let base = writer.bases[bucket], let destination = target.baseAddress else {
                            continue
                        }
                        (destination + at).update(from: base, count: count)
                        at += count
                    }
                }
                initialized = at
            }
            return out
        }
    }

    /// Every posting of a prepared document, appended as records to the
    /// buckets of `out`: for each bucket it has records in, a varint header
    /// (the document, or its gap from the bucket's last: `BucketBytes.header`)
    /// and varint number of records, then the records, each varint
    /// `slot << 2 | kind` (the slot: the shard divided by the bucket count),
    /// then for a character its key, for a pair its key, count and positions
    /// (as gaps), for a filter its length and UTF-8, as varints. Within a
    /// bucket, the records come in the document's order: characters, pairs,
    /// filters. (The document and the shard a record, and a count of 0 a
    /// character, were half the varints written and read again.)
    static func appendRecords(
        _ document: SearchIndexWriter.Document, unigrams: UnsafeBufferPointer<UInt32>,
        pairs: UnsafeBufferPointer<(key: UInt64, position: Int)>, doc: Int, shards: Int, to out: BucketBytes
    ) {
        let buckets = out.buckets
        let filters = SearchIndexWriter.filters(document)
        // The records: one a character, one a run of pairs with one key,
        // one a filter. Their working lists share one block of memory, freed
        // at the end, the bucket and slot come from a mask and a shift when
        // the bucket count is a power of two, and `hash(key:pair:)` spells
        // its scalars inline: six arrays a document (each looked its type's
        // metadata up, about 700 instructions), two divisions a record and a
        // call a scalar were a third of this work (callgrind, the 10k store's
        // full pass: 433 M instructions, then 295 M).
        let most = unigrams.count + pairs.count + filters.count
        let scratch = UnsafeMutableBufferPointer<Int>.allocate(capacity: 2 * most + 2 * buckets + 1)
        defer { scratch.deallocate() }
        // Each record's shard, where each run of pairs starts in `pairs`
        // (then the end), how many records each bucket has, and whether its
        // header is written yet.
        let shardOf = UnsafeMutableBufferPointer(rebasing: scratch[0..<most])
        let runs = UnsafeMutableBufferPointer(rebasing: scratch[most..<(2 * most + 1)])
        let sizes = UnsafeMutableBufferPointer(rebasing: scratch[(2 * most + 1)..<(2 * most + buckets + 1)])
        let opened = UnsafeMutableBufferPointer(rebasing: scratch[(2 * most + buckets + 1)...])
        // The shard count is a power of two (`shardCount`): a mask, not a
        // division a record, unless a test says otherwise.
        let shardMask: UInt32? = shards & (shards - 1) == 0 ? UInt32(shards - 1) : nil
        @inline(__always) func shard(_ hash: UInt32) -> Int {
            Int(shardMask.map { hash & $0 } ?? hash % UInt32(shards))
        }
        var count = 0
        for unigram in unigrams {
            shardOf[count] = shard(SearchIndexWriter.hash(key: UInt64(unigram), pair: false))
            count += 1
        }
        var pairRecords = 0
        var index = 0
        while index < pairs.count {
            let key = pairs[index].key
            runs[pairRecords] = index
            pairRecords += 1
            shardOf[count] = shard(SearchIndexWriter.hash(key: key, pair: true))
            count += 1
            index += 1
            while index < pairs.count && pairs[index].key == key { index += 1 }
        }
        runs[pairRecords] = pairs.count
        for filter in filters {
            shardOf[count] = shard(SearchIndexWriter.hash(filter))
            count += 1
        }
        // Bucket and slot: the shard's low bits and the rest when the
        // bucket count is a power of two (it is, unless a test says otherwise).
        let power = buckets & (buckets - 1) == 0
        let bucketMask = buckets - 1
        let bucketShift = buckets.trailingZeroBitCount
        @inline(__always) func bucketAndSlot(_ shard: Int) -> (bucket: Int, slot: Int) {
            power ? (shard & bucketMask, shard >> bucketShift) : (shard % buckets, shard / buckets)
        }
        for bucket in 0..<buckets {
            sizes[bucket] = 0
            opened[bucket] = 0
        }
        for record in 0..<count { sizes[bucketAndSlot(shardOf[record]).bucket] += 1 }
        for record in 0..<count {
            let (bucket, slot) = bucketAndSlot(shardOf[record])
            // Room for the record at its longest (a varint takes at most 10
            // bytes) and the bucket's header (two varints).
            var room = 50
            var start = 0
            var end = 0
            if record >= unigrams.count && record < unigrams.count + pairRecords {
                start = runs[record - unigrams.count]
                end = runs[record - unigrams.count + 1]
                room += (end - start) * 10
            } else if record >= unigrams.count + pairRecords {
                room += filters[record - unigrams.count - pairRecords].utf8.count
            }
            let buffer = out.end(bucket, room: room)
            var at = 0
            @inline(__always) func put(_ value: Int) {
                var value = UInt(max(0, value))
                while value >= 0x80 {
                    buffer[at] = UInt8(value & 0x7F) | 0x80
                    value >>= 7
                    at += 1
                }
                buffer[at] = UInt8(value)
                at += 1
            }
            if opened[bucket] == 0 {
                opened[bucket] = 1
                put(out.header(doc, bucket))
                put(sizes[bucket])
            }
            if record < unigrams.count {
                put(slot << 2 | Int(Kind.unigram.rawValue))
                put(Int(unigrams[record]))
            } else if record < unigrams.count + pairRecords {
                put(slot << 2 | Int(Kind.bigram.rawValue))
                put(Int(pairs[start].key))
                put(end - start)
                // As gaps (the decoder's, the files' spelling): most take a byte.
                var previous = 0
                for position in start..<end {
                    put(pairs[position].position - previous)
                    previous = pairs[position].position
                }
            } else {
                let filter = filters[record - unigrams.count - pairRecords]
                put(slot << 2 | Int(Kind.filter.rawValue))
                put(filter.utf8.count)
                for byte in filter.utf8 {
                    buffer[at] = byte
                    at += 1
                }
            }
            out.wrote(at, to: bucket)
        }
    }

    /// A batch's records (`prepare`'s writers, in order), appended to their buckets.
    func add(_ writers: [BucketBytes]) {
        for bucket in 0..<buckets {
            for writer in writers {
                let bytes = writer.bytes(bucket)
                buffers.append(bytes, to: bucket)
                buffered += bytes.count
            }
        }
    }

    func flushIfNeeded() throws(ArchiveError) {
        guard buffered >= threshold else { return }
        try flush()
    }

    private func flush() throws(ArchiveError) {
        for bucket in 0..<buckets {
            let bytes = buffers.bytes(bucket)
            guard !bytes.isEmpty else { continue }
            if let failure = Self.append(UnsafeRawBufferPointer(bytes), to: file(bucket).path) {
                throw .scratchUnwritable(path: folder.path, reason: failure)
            }
            spilledBytes[bucket] += bytes.count
        }
        buffers.removeAll()
        buffered = 0
    }

    private func file(_ bucket: Int) -> URL { folder.appendingPathComponent("\(bucket).bin") }

    /// Every bucket's records still in memory, which it lets go of: handed
    /// out at once, so that the cores that assemble the buckets never touch
    /// the spill (`bucketRecords`). Copied to blocks of their size: the
    /// buffers' memory, filled up to the threshold before each spill, is
    /// let go of here, not held while the buckets are assembled (at 1M
    /// posts, 25–30 MB of the pass's peak).
    func takeBuffered() -> BucketBytes {
        defer {
            buffers = BucketBytes(buckets: buckets)
            buffered = 0
        }
        return buffers.compacted()
    }

    /// The records of a bucket spilled to its file (`spilled` bytes of
    /// them), read into `room` (valid until it reads or decodes again), read
    /// straight into memory kept from bucket to bucket: as `Data`, then an
    /// array, each bucket took two blocks of its own and copied its records
    /// twice. `nil` when the file does not hold what was spilled; nothing is
    /// read when nothing was. Safe on several threads at once, each with a
    /// room of its own.
    static func spilledRecords(
        _ bucket: Int, folder: URL, spilled: Int, into room: DecodeRoom
    ) -> UnsafeBufferPointer<UInt8>? {
        guard spilled > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        let descriptor = open(folder.appendingPathComponent("\(bucket).bin").path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int(status.st_size) == spilled else { return nil }
        // One byte more than spilled: a file that grew meanwhile is not read as whole.
        let buffer = room.spillRoom(spilled + 1)
        guard let base = buffer.baseAddress else { return nil }
        var filled = 0
        while filled < buffer.count {
            let count = read(descriptor, base + filled, buffer.count - filled)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        return filled == spilled ? UnsafeBufferPointer(start: base, count: spilled) : nil
    }

    /// What `decode` throws when a bucket's records do not read back.
    static func damaged(_ folder: URL) -> ArchiveError {
        .scratchUnwritable(path: folder.path, reason: "a spill file reads back damaged (changed or removed meanwhile?)")
    }

    /// The shards of a bucket's records (`bucketRecords`, spilled ones first), in document order;
    /// safe on several threads at once.
    /// A bucket's shards are every `buckets`-th one from the first: they
    /// are kept in an array by `shard / buckets`, not looked up by hashing.
    /// They read what they hold from `room`: spell them before the room
    /// decodes another bucket.
    static func decode(
        _ records: [UnsafeBufferPointer<UInt8>], bucket: Int, folder: URL, shards: Int, buckets: Int,
        room: DecodeRoom = DecodeRoom()
    ) throws(ArchiveError) -> [Int: KeyedShard] {
        let buckets = max(1, buckets)
        let slots = (shards + buckets - 1) / buckets
        var present = [Bool](repeating: false, count: slots)
        var filters = [[String: Posting]](repeating: [:], count: slots)
        let damaged = Self.damaged(folder)
        // Room enough: a value is a varint of a byte at least, a record
        // (slot and kind, key or name) two bytes at least.
        let total = records.reduce(0) { $0 + $1.count }
        guard total < Int(Int32.max) else { throw damaged }
        room.reserve(records: total / 2 + 1, values: total + 1)
        // Taken out of the room while it grows (a class's property, changed
        // in place, is checked for exclusive access at every change).
        // Sized by the terms of the thread's last bucket when there was
        // one (buckets hold about as many terms each): sized by the bytes,
        // the table was about 20 times the terms' need (1 MB for 13,000
        // terms at 100k), and its probes missed the cache.
        let lastTerms = room.groups.keys.count
        var groups = room.groups.take(capacity: lastTerms > 0 ? max(1024, lastTerms + lastTerms / 4) : total / 16)
        defer { room.groups = groups }
        var recordCount = 0
        var valueCount = 0
        let recordGroups = room.recordGroups
        let recordStarts = room.recordStarts
        let values = room.values
        for bytes in records {
            do {
                let count = bytes.count
                var index = 0
                // Below Int32.max once a header is read (else damage), so a gap never overflows it.
                var doc = -1
                @inline(__always) func next() throws(ArchiveError) -> Int {
                    if index < count, bytes[index] < 0x80 {
                        index += 1
                        return Int(bytes[index - 1])
                    }
                    guard let value = readVarint(bytes, &index) else { throw damaged }
                    return value
                }
                while index < count {
                    // The document as is, or the gap from the header before
                    // (`BucketBytes.header`); a gap with none before is damage.
                    let header = try next()
                    if header & 1 == 1 {
                        doc = header >> 1
                    } else {
                        guard doc >= 0 else { throw damaged }
                        doc += header >> 1
                    }
                    let inRun = try next()
                    guard let number = Int32(exactly: doc) else { throw damaged }
                    for _ in 0..<inRun {
                        let slotKind = try next()
                        let slot = slotKind >> 2
                        guard slot < slots, slot * buckets + bucket < shards,
                            let kind = Kind(rawValue: UInt8(slotKind & 3))
                        else { throw damaged }
                        present[slot] = true
                        if kind == .filter {
                            let length = try next()
                            guard length <= count - index else { throw damaged }
                            let filter = String(
                                decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), as: UTF8.self)
                            index += length
                            // The first document as is, then gaps (as `Shard` keeps them).
                            SpillFiles.Shard.append(
                                &filters[slot][filter, default: Posting()], doc: doc, positions: nil)
                            continue
                        }
                        let key = try next()
                        let pair = kind == .bigram
                        let counted = pair ? try next() : 0
                        guard key < 1 << 42, recordCount <= total / 2, counted <= total,
                            valueCount + 2 + counted <= total + 1
                        else { throw damaged }
                        recordGroups[recordCount] = groups.group(
                            of: Bucket.groupKey(slot: slot, pair: pair, key: UInt64(key)))
                        recordStarts[recordCount] = Int32(truncatingIfNeeded: valueCount)
                        recordCount += 1
                        values[valueCount] = number
                        valueCount += 1
                        guard pair else { continue }
                        // The document, the count, the positions as gaps within the document.
                        values[valueCount] = Int32(truncatingIfNeeded: counted)
                        valueCount += 1
                        for _ in 0..<counted {
                            guard let gap = Int32(exactly: try next()) else { throw damaged }
                            values[valueCount] = gap
                            valueCount += 1
                        }
                    }
                }
            }
        }
        room.groups = groups
        let decoded = Bucket(room: room, records: recordCount, values: valueCount, slots: slots, filters: filters)
        var byShard: [Int: KeyedShard] = [:]
        for (slot, used) in present.enumerated() where used {
            byShard[slot * buckets + bucket] = KeyedShard(bucket: decoded, slot: slot)
        }
        return byShard
    }

    /// `decode` of records held in arrays, read as one run after another.
    static func decode(
        _ records: [[UInt8]], bucket: Int, folder: URL, shards: Int, buckets: Int, room: DecodeRoom = DecodeRoom()
    ) throws(ArchiveError) -> [Int: KeyedShard] {
        let joined = Array(records.joined())
        return try joined.withUnsafeBufferPointer { (bytes) throws(ArchiveError) in
            try decode([bytes], bucket: bucket, folder: folder, shards: shards, buckets: buckets, room: room)
        }
    }
}

/// The memory one thread decodes buckets into (`SpillFiles.decode`),
/// one bucket after another: each array as large as the largest bucket's
/// so far (`makeRoom`), kept from one bucket to the next. Allocated anew for each
/// bucket, their pages came from the system again each time: the full
/// pass over 100k posts took 78,000 page faults, and 46,000 this way
/// (one costs 2–4 µs on the bench machine's virtual CPUs); its CPU time
/// went from 2.92 to 2.80 s (medians of 3). What a room holds stays in
/// memory while its core assembles: about 20 MB at 1M posts with 4,096
/// documents a bucket, the same at any size, since a bucket holds a fixed
/// number of documents (`documentsPerBucket`).
final class DecodeRoom {
    /// Each record's term (its number in `groups`) and where its values
    /// start, in the order the records came.
    private(set) var recordGroups = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    private(set) var recordStarts = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    private(set) var values = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    /// The records' starts in the order of their terms (`Bucket`).
    private(set) var ordered = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    /// Per term: where its records start in `ordered` (one more than the
    /// terms), the counting sort's cursor, and the terms by slot and kind.
    private(set) var termStarts = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    private(set) var next = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    private(set) var terms = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    /// The terms of the bucket decoded last.
    var groups = SearchText.KeyGroups()
    /// A bucket's records read back from its spill file (`SpillFiles.spilledRecords`).
    private var spilled = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)

    init() {}

    deinit {
        for buffer in [recordGroups, recordStarts, values, ordered, termStarts, next, terms] { buffer.deallocate() }
        spilled.deallocate()
    }

    /// Room for `count` bytes of spilled records, its contents not kept.
    func spillRoom(_ count: Int) -> UnsafeMutableBufferPointer<UInt8> {
        spilled.makeRoom(count)
        return UnsafeMutableBufferPointer(rebasing: spilled[..<count])
    }

    /// Room for `records` records and `values` values at least.
    func reserve(records: Int, values count: Int) {
        recordGroups.makeRoom(records)
        recordStarts.makeRoom(records)
        ordered.makeRoom(records)
        values.makeRoom(count)
    }

    /// Room for `count` terms at least.
    func reserveTerms(_ count: Int) {
        termStarts.makeRoom(count + 1)
        next.makeRoom(count + 1)
        terms.makeRoom(count + 1)
    }
}

/// The buckets of a full pass handed out to the cores that assemble
/// them, one at a time, and the shards that have a file.
final class BucketAssembly: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var shards: [Int] = []
    private var failure: ArchiveError?

    /// The next bucket below `count`, or nil when none is left or one failed.
    func claim(below count: Int) -> Int? {
        lock.withLock {
            guard failure == nil, next < count else { return nil }
            next += 1
            return next - 1
        }
    }

    func done(_ present: [Int]) { lock.withLock { shards += present } }

    func fail(_ error: ArchiveError) { lock.withLock { failure = failure ?? error } }

    /// The shards that have a file, in order, or the first failure.
    func present() throws(ArchiveError) -> [Int] {
        let (shards, failure) = lock.withLock { (self.shards, self.failure) }
        if let failure { throw failure }
        return shards.sorted()
    }
}

/// The index's files on their way out, written a batch at a time by
/// several threads: most of a write is waiting for the disk (the publisher
/// makes each file durable), which threads overlap. Distinct paths, the
/// same bytes whatever the order, so the result does not depend on it.
/// `Output.write` must be safe to call from several threads at once.
final class FileBatch: @unchecked Sendable {
    static let threads = 8
    static let size = 512

    private let output: SearchIndexWriter.Output
    private let size: Int
    private var pending: [(Data, String)] = []
    private let lock = NSLock()
    private var failure: ArchiveError?
    private var counts = (written: 0, bytes: 0)
    private var offered = Set<String>()
    var written: Int { lock.withLock { counts.written } }
    var bytes: Int { lock.withLock { counts.bytes } }
    /// Every path given to be written, changed or not.
    var paths: Set<String> { lock.withLock { offered } }

    init(_ output: SearchIndexWriter.Output, size: Int = FileBatch.size) {
        self.output = output
        self.size = max(1, size)
    }

    /// Queues a file (from one thread at a time).
    func add(_ data: Data, _ path: String) throws(ArchiveError) {
        lock.withLock {
            counts.bytes += data.count
            offered.insert(path)
        }
        pending.append((data, path))
        if pending.count >= size { try flush() }
    }

    /// Writes a file now, on the caller's thread; safe on several threads
    /// at once (beside `add` and `flush` too).
    func write(_ data: Data, _ path: String) throws(ArchiveError) {
        lock.withLock {
            counts.bytes += data.count
            offered.insert(path)
        }
        if try output.write(data, path) { lock.withLock { counts.written += 1 } }
    }

    /// Writes what is pending; returns when every file is written.
    func flush() throws(ArchiveError) {
        let batch = pending
        pending = []
        if batch.count == 1 {
            if try output.write(batch[0].0, batch[0].1) { lock.withLock { counts.written += 1 } }
            return
        }
        let group = DispatchGroup()
        let stripes = min(Self.threads, batch.count)
        for stripe in 0..<stripes {
            group.enter()
            let thread = Thread { [self] in
                defer { group.leave() }
                for index in stride(from: stripe, to: batch.count, by: stripes) {
                    do throws(ArchiveError) {
                        let wrote = try output.write(batch[index].0, batch[index].1)
                        if wrote { lock.withLock { counts.written += 1 } }
                    } catch {
                        lock.withLock { failure = failure ?? error }
                        return
                    }
                }
            }
            thread.start()
        }
        group.wait()
        if let failure = lock.withLock({ failure }) { throw failure }
    }
}

/// How a shard file spells a list (`assets/search.js` reads it back).
///
/// Documents: `!` and base64 of their Rice code (`riceBytes`), or, when
/// that is smaller, `~` and base64 of a bitmap (the varint number of its
/// first byte, then one bit a document, low bit first), so a list never
/// costs more than one bit a document of the archive. A pair's list adds, when some document
/// holds the pair more than once, `.` and the ranks (places in the list) of
/// those documents, spelled as documents are, then `.` and base64 of their
/// counts less 2, a nibble each (low nibble first; 15: 17 or more, the
/// count less 17 follows as a varint after the nibbles). Every other
/// document holds the pair once.
enum ListCoding {
    /// The file's spelling of an internal list: document gaps, or for pairs
    /// (gap, count, positions…) records.
    static func encode(_ bytes: [UInt8], positional: Bool) -> String {
        var docs: [Int] = []
        var ranks: [Int] = []
        var counts: [Int] = []
        var index = 0
        var doc = 0
        while index < bytes.count {
            guard let gap = readVarint(bytes, &index) else { break }
            doc += gap
            if positional {
                guard let count = readVarint(bytes, &index) else { break }
                for _ in 0..<count where readVarint(bytes, &index) == nil { break }
                if count != 1 {
                    ranks.append(docs.count)
                    counts.append(count)
                }
            }
            docs.append(doc)
        }
        let list = encodeDocs(docs)
        guard !ranks.isEmpty else { return list }
        return list + "." + encodeDocs(ranks) + "." + SearchIndexWriter.base64(packedCounts(counts))
    }

    /// A pair's counts of more than one: a nibble each (count − 2, two a
    /// byte), 15 for 17 and more, whose rest follows as varints.
    static func packedCounts(_ counts: [Int]) -> [UInt8] {
        var packed = [UInt8](repeating: 0, count: (counts.count + 1) / 2)
        var large: [UInt8] = []
        for (at, count) in counts.enumerated() {
            let nibble = min(max(count - 2, 0), 15)
            packed[at / 2] |= UInt8(nibble) << UInt8(4 * (at % 2))
            if nibble == 15 { varint(count - 17, into: &large) }
        }
        return packed + large
    }

    /// `encode(bytes, positional: true)`'s UTF-8 for a pair's documents, appended to
    /// `out`: `ranks`, the places in `docs` of the documents that hold the pair
    /// other than once, `counts`, those counts.
    static func appendList(docs: [Int], ranks: [Int], counts: [Int], to out: inout [UInt8]) {
        var scratch = Scratch()
        appendList(docs: docs, ranks: ranks, counts: counts, to: &out, scratch: &scratch)
    }

    /// `appendList(docs:ranks:counts:to:)` with buffers kept from one list to the next.
    static func appendList(docs: [Int], ranks: [Int], counts: [Int], to out: inout [UInt8], scratch: inout Scratch) {
        appendDocs(docs, to: &out, scratch: &scratch)
        guard !ranks.isEmpty else { return }
        out.append(UInt8(ascii: "."))
        appendDocs(ranks, to: &out, scratch: &scratch)
        out.append(UInt8(ascii: "."))
        appendBase64(packedCounts(counts), to: &out)
    }

    /// `encodeDocs(docs)`'s UTF-8, appended to `out`.
    static func appendDocs(_ docs: [Int], to out: inout [UInt8]) {
        var scratch = Scratch()
        appendDocs(docs, to: &out, scratch: &scratch)
    }

    /// The buffers of the full pass's list encoders, kept from one list to
    /// the next (a list's gaps, then its bytes, each a new array a list,
    /// were a third of the cost of spelling it).
    struct Scratch {
        var values: [Int] = []
        var bytes: [UInt8] = []
    }

    /// `encodeDocs(docs)`'s UTF-8, appended to `out`: the Rice code's size
    /// worked out before either code is spelled, and only the smaller one spelled.
    static func appendDocs(_ docs: [Int], to out: inout [UInt8], scratch: inout Scratch) {
        guard let first = docs.first, let last = docs.last else { return }
        scratch.values.removeAll(keepingCapacity: true)
        for index in docs.indices.dropFirst() { scratch.values.append(docs[index] - docs[index - 1] - 1) }
        let (k, bits) = riceChoice(scratch.values)
        let riceCount = varintCount(k) + varintCount(docs.count) + varintCount(first) + (bits + 7) / 8
        let firstByte = first / 8
        let header = varintCount(firstByte)
        scratch.bytes.removeAll(keepingCapacity: true)
        guard header + last / 8 - firstByte + 1 < riceCount else {
            varint(k, into: &scratch.bytes)
            varint(docs.count, into: &scratch.bytes)
            varint(first, into: &scratch.bytes)
            appendRice(scratch.values, k: k, bits: bits, to: &scratch.bytes)
            out.append(UInt8(ascii: "!"))
            appendBase64(scratch.bytes, to: &out)
            return
        }
        varint(firstByte, into: &scratch.bytes)
        scratch.bytes.append(contentsOf: repeatElement(0, count: last / 8 - firstByte + 1))
        scratch.bytes.withUnsafeMutableBufferPointer { bitmap in
            for doc in docs { bitmap[header + doc / 8 - firstByte] |= UInt8(1) << UInt8(doc % 8) }
        }
        out.append(UInt8(ascii: "~"))
        appendBase64(scratch.bytes, to: &out)
    }

    /// Base64 of `riceBytes(values:)`, appended to `out`.
    static func appendRiceValues(_ values: [Int], to out: inout [UInt8], scratch: inout Scratch) {
        let (k, bits) = riceChoice(values)
        scratch.bytes.removeAll(keepingCapacity: true)
        varint(k, into: &scratch.bytes)
        varint(values.count, into: &scratch.bytes)
        appendRice(values, k: k, bits: bits, to: &scratch.bytes)
        appendBase64(scratch.bytes, to: &out)
    }

    /// The bytes of `value`'s varint.
    static func varintCount(_ value: Int) -> Int {
        var value = UInt(max(0, value))
        var count = 1
        while value >= 0x80 {
            value >>= 7
            count += 1
        }
        return count
    }

    /// Base64 (RFC 4648, padded), as `Data.base64EncodedString()` spells it, appended to `out`.
    /// Spelled into a buffer of its size, then appended whole (an append a
    /// digit checked the array's capacity and uniqueness each time).
    static func appendBase64(_ bytes: [UInt8], to out: inout [UInt8]) {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        let size = (bytes.count + 2) / 3 * 4
        guard size > 0 else { return }
        alphabet.withUTF8Buffer { digits in
            bytes.withUnsafeBufferPointer { bytes in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { target in
                    var at = 0
                    var to = 0
                    while at + 3 <= bytes.count {
                        let value = Int(bytes[at]) << 16 | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])
                        target[to] = digits[value >> 18 & 63]
                        target[to + 1] = digits[value >> 12 & 63]
                        target[to + 2] = digits[value >> 6 & 63]
                        target[to + 3] = digits[value & 63]
                        at += 3
                        to += 4
                    }
                    let left = bytes.count - at
                    if left > 0 {
                        let value = Int(bytes[at]) << 16 | (left == 2 ? Int(bytes[at + 1]) << 8 : 0)
                        target[to] = digits[value >> 18 & 63]
                        target[to + 1] = digits[value >> 12 & 63]
                        target[to + 2] = left == 2 ? digits[value >> 6 & 63] : UInt8(ascii: "=")
                        target[to + 3] = UInt8(ascii: "=")
                    }
                    out.append(contentsOf: UnsafeBufferPointer(target))
                }
            }
        }
    }

    static func encodeDocs(_ docs: [Int]) -> String {
        guard let first = docs.first, let last = docs.last else { return "" }
        let rice = riceBytes(docs)
        let firstByte = first / 8
        var bitmap: [UInt8] = []
        varint(firstByte, into: &bitmap)
        let header = bitmap.count
        guard header + last / 8 - firstByte + 1 < rice.count else { return "!" + SearchIndexWriter.base64(rice) }
        bitmap += [UInt8](repeating: 0, count: last / 8 - firstByte + 1)
        for doc in docs { bitmap[header + doc / 8 - firstByte] |= UInt8(1) << UInt8(doc % 8) }
        return "~" + SearchIndexWriter.base64(bitmap)
    }

    /// Rice code of a list: varints k, the number of documents and the
    /// first; then for each further document its gap less one, as the gap
    /// shifted right by k in unary (ones, then a zero) and its k low bits,
    /// bits taken low bit first.
    static func riceBytes(_ docs: [Int]) -> [UInt8] {
        var values: [Int] = []
        values.reserveCapacity(docs.count)
        for index in docs.indices.dropFirst() { values.append(docs[index] - docs[index - 1] - 1) }
        let (k, bits) = riceChoice(values)
        var out: [UInt8] = []
        out.reserveCapacity(12 + (bits + 7) / 8)
        varint(k, into: &out)
        varint(docs.count, into: &out)
        varint(docs.first ?? 0, into: &out)
        appendRice(values, k: k, bits: bits, to: &out)
        return out
    }

    /// Rice code of any list of values (a pair's positions: in each
    /// document the first, then gaps): varints k and the number of values,
    /// then each value shifted right by k in unary (ones, then a zero) and
    /// its k low bits, bits taken low bit first.
    static func riceBytes(values: [Int]) -> [UInt8] {
        let (k, bits) = riceChoice(values)
        var out: [UInt8] = []
        out.reserveCapacity(12 + (bits + 7) / 8)
        varint(k, into: &out)
        varint(values.count, into: &out)
        appendRice(values, k: k, bits: bits, to: &out)
        return out
    }

    /// The k that codes `values` in the fewest bits: tried around the
    /// estimate from their mean.
    static func riceParameter(_ values: [Int]) -> Int { riceChoice(values).k }

    /// `riceParameter` and the bits it codes `values` in (`riceBits`): the
    /// candidates' bits summed in one pass over the values, not one each.
    static func riceChoice(_ values: [Int]) -> (k: Int, bits: Int) {
        let mean = values.isEmpty ? 0 : Double(values.reduce(0, +)) / Double(values.count)
        // ⌊log2(x)⌋ for x ≥ 1 is that of ⌊x⌋: its highest bit (no `log2` call a list).
        let estimate = mean * 0.69
        let guess =
            estimate < 1
            ? 0 : estimate < 0x1p62 ? Int.bitWidth - 1 - Int(estimate).leadingZeroBitCount : Int(log2(estimate))
        let low = max(0, guess - 1)
        var sums = (0, 0, 0)
        for value in values {
            sums.0 += value >> low
            sums.1 += value >> (low + 1)
            sums.2 += value >> (low + 2)
        }
        var best = (k: 0, bits: Int.max)
        func consider(_ k: Int, _ sum: Int) {
            let bits = values.count * (1 + k) + sum
            if k <= guess + 1 && bits < best.bits { best = (k, bits) }
        }
        consider(low, sums.0)
        consider(low + 1, sums.1)
        consider(low + 2, sums.2)
        return best
    }

    /// How many bits `values` take with parameter k.
    static func riceBits(_ values: [Int], k: Int) -> Int {
        var bits = values.count * (1 + k)
        for value in values { bits += value >> k }
        return bits
    }

    /// Appends `values` with parameter k: each value shifted right by k in
    /// unary (ones, then a zero) and its k low bits, bits taken low bit
    /// first, padded to whole bytes.
    /// The bits gather in a 64-bit word, low bit first, and leave it a
    /// whole byte at a time (a bit at a time was 5 % of indexing).
    static func appendRice(_ values: [Int], k: Int, to out: inout [UInt8]) {
        appendRice(values, k: k, bits: riceBits(values, k: k), to: &out)
    }

    /// `appendRice(values, k:, to:)` with `riceBits(values, k: k)` already known.
    static func appendRice(_ values: [Int], k: Int, bits: Int, to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: (bits + 7) / 8))
        out.withUnsafeMutableBufferPointer { buffer in
            var at = start
            var word: UInt64 = 0
            var used = 0
            // At most 32 bits at a time: fewer than 8 are left in the word after each.
            func put(_ bits: UInt64, _ count: Int) {
                word |= bits << UInt64(used)
                used += count
                while used >= 8 {
                    buffer[at] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    used -= 8
                    at += 1
                }
            }
            let lowMask = (UInt64(1) << UInt64(k)) &- 1
            for value in values {
                var ones = value >> k
                // Most values: the unary part and the low bits in one put
                // (two puts a value were most of this function's cost).
                if ones + 1 + k <= 32 {
                    let low = UInt64(truncatingIfNeeded: value) & lowMask
                    put(((UInt64(1) << UInt64(ones)) - 1) | low << UInt64(ones + 1), ones + 1 + k)
                    continue
                }
                while ones >= 32 {
                    put(0xFFFF_FFFF, 32)
                    ones -= 32
                }
                put((UInt64(1) << UInt64(ones)) - 1, ones + 1)
                var low = 0
                while low < k {
                    let count = min(32, k - low)
                    put(UInt64(truncatingIfNeeded: value >> low) & ((UInt64(1) << UInt64(count)) - 1), count)
                    low += count
                }
            }
            if used > 0 { buffer[at] = UInt8(truncatingIfNeeded: word) }
        }
    }

    /// The values of `riceBytes(values:)`; `nil` when the bytes do not hold them.
    static func riceValues(_ bytes: [UInt8]) -> [Int]? {
        var index = 0
        guard let k = readVarint(bytes, &index), k < 48, let count = readVarint(bytes, &index),
            count <= bytes.count * 8
        else { return nil }
        var values: [Int] = []
        values.reserveCapacity(count)
        var bit = index * 8
        let end = bytes.count * 8
        for _ in 0..<count {
            var quotient = 0
            while true {
                guard bit < end else { return nil }
                let one = Int(bytes[bit >> 3] >> UInt8(bit & 7)) & 1
                bit += 1
                if one == 0 { break }
                quotient += 1
            }
            guard bit + k <= end else { return nil }
            var low = 0
            for shift in 0..<k where Int(bytes[(bit + shift) >> 3] >> UInt8((bit + shift) & 7)) & 1 == 1 {
                low |= 1 << shift
            }
            bit += k
            values.append(quotient << k | low)
        }
        return values
    }

    /// Varint bytes as values, and values as varint bytes.
    static func values(_ bytes: [UInt8]) -> [Int] {
        var values: [Int] = []
        var index = 0
        while index < bytes.count, let value = readVarint(bytes, &index) { values.append(value) }
        return values
    }

    static func varints(_ values: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in values { varint(value, into: &bytes) }
        return bytes
    }

    static func decodeDocs(_ text: Substring) -> [Int]? {
        guard let mark = text.first, mark == "~" || mark == "!",
            let data = Data(base64Encoded: String(text.dropFirst()))
        else { return nil }
        let bytes = [UInt8](data)
        var index = 0
        var docs: [Int] = []
        if mark == "~" {
            guard let firstByte = readVarint(bytes, &index) else { return nil }
            for at in index..<bytes.count where bytes[at] != 0 {
                for bit in 0..<8 where bytes[at] & (UInt8(1) << UInt8(bit)) != 0 {
                    docs.append((firstByte + at - index) * 8 + bit)
                }
            }
            return docs
        }
        guard let k = readVarint(bytes, &index), k < 48, let count = readVarint(bytes, &index),
            let first = readVarint(bytes, &index), count >= 1
        else { return nil }
        docs.reserveCapacity(count)
        docs.append(first)
        var bit = index * 8
        let end = bytes.count * 8
        func next() -> Int? {
            guard bit < end else { return nil }
            defer { bit += 1 }
            return Int(bytes[bit >> 3] >> UInt8(bit & 7)) & 1
        }
        for _ in 1..<count {
            var quotient = 0
            while true {
                guard let one = next() else { return nil }
                if one == 0 { break }
                quotient += 1
            }
            var low = 0
            for shift in 0..<k {
                guard let value = next() else { return nil }
                low |= value << shift
            }
            docs.append(docs[docs.count - 1] + 1 + (quotient << k | low))
        }
        return docs
    }

    /// A file's list back to the internal spelling; for pairs without
    /// positions: (gap, count) records.
    static func internalList(_ text: String, positional: Bool) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 1 || (positional && parts.count == 3), let docs = decodeDocs(parts[0]) else {
            return nil
        }
        var counts = [Int](repeating: 1, count: docs.count)
        if parts.count == 3 {
            guard let ranks = decodeDocs(parts[1]), let data = Data(base64Encoded: String(parts[2])) else {
                return nil
            }
            let packed = [UInt8](data)
            var index = (ranks.count + 1) / 2
            guard index <= packed.count else { return nil }
            for (at, rank) in ranks.enumerated() {
                guard rank < counts.count else { return nil }
                let nibble = Int(packed[at / 2] >> UInt8(4 * (at % 2))) & 0x0F
                if nibble == 15 {
                    guard let more = readVarint(packed, &index) else { return nil }
                    counts[rank] = 17 + more
                } else {
                    counts[rank] = nibble + 2
                }
            }
        }
        var out: [UInt8] = []
        var previous = 0
        for (rank, doc) in docs.enumerated() {
            varint(doc - previous, into: &out)
            previous = doc
            if positional { varint(counts[rank], into: &out) }
        }
        return out
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

/// Unsigned LEB128 at `index` (advanced past it), or nil when the bytes
/// end first or it is longer than an `Int`: over an array, or a buffer
/// pointer where a loop reads many (`SpillFiles.decode`).
func readVarint<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ index: inout Int) -> Int?
where Bytes.Index == Int {
    var value = 0
    var shift = 0
    while index < bytes.endIndex, shift < 63 {
        let byte = bytes[index]
        index += 1
        value |= Int(byte & 0x7F) << shift
        if byte & 0x80 == 0 { return value }
        shift += 7
    }
    return nil
}

extension SearchIndexWriter.Output {
    /// Reads and writes the site's files through `publisher`.
    init(_ publisher: some SitePublisher) {
        self.init(
            read: { publisher.read($0) },
            write: { data, path throws(ArchiveError) in try publisher.write(data, to: path) },
            files: { publisher.files(in: $0) }, remove: { path throws(ArchiveError) in try publisher.remove(path) })
    }
}

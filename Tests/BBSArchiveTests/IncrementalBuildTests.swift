import Foundation
import Testing

@testable import BBSArchive

/// After one new reply, a build renders and rewrites only what shows it.
@Suite struct IncrementalBuildTests {
    /// A publisher that notes which files a build actually rewrote.
    final class Recorder: SitePublisher, @unchecked Sendable {
        let inner = MemoryPublisher()
        private let lock = NSLock()
        private var paths: Set<String> = []
        private var offered: Set<String> = []

        /// The files whose bytes changed.
        var written: Set<String> { lock.withLock { paths } }
        /// Every file the build wrote, changed or not.
        var rendered: Set<String> { lock.withLock { offered } }
        func reset() {
            lock.withLock {
                paths = []
                offered = []
            }
        }

        func write(_ data: Data, to path: String) throws(ArchiveError) -> Bool {
            let changed = try inner.write(data, to: path)
            lock.withLock {
                if changed { _ = paths.insert(path) }
                _ = offered.insert(path)
            }
            return changed
        }
        func exists(_ path: String) -> Bool { inner.exists(path) }
        func read(_ path: String) -> Data? { inner.read(path) }
        func remove(_ path: String) {
            inner.remove(path)
            lock.withLock { _ = paths.insert(path) }
        }
        func files(in folder: String) -> [String] { inner.files(in: folder) }
    }

    static func options() -> SiteBuilder.Options {
        var options = SiteBuilder.Options()
        options.forum = Fixtures.smthForum
        options.siteURL = "https://archive.example.org/smth/"
        options.threadsPerPage = 3
        options.postsPerPage = 2
        // Five posts a user page: every user has several archive pages.
        options.postsPerUserPage = 5
        return options
    }

    @Test func oneReplyRewritesOnlyWhatShowsIt() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let publisher = Recorder()
        let builder = SiteBuilder(store: store, templates: templates, publisher: publisher, options: Self.options())
        let first = try builder.build()
        #expect(first.changes == nil)

        // Nothing changed: nothing is rendered but the pages about the whole archive.
        publisher.reset()
        let idle = try builder.build()
        #expect(idle.changes?.isEmpty == true)
        #expect(publisher.written == [BuildState.path])

        // Thread 1010 of Beta (started 11th of 25: list page 4 of 9) gets a
        // reply from a user with many posts, whose number of user pages it
        // does not change.
        let gid = 1010
        let old = try #require(try store.posts(board: "Beta", gid: gid).last)
        let counts = try store.postCountsByUser()
        let replier = try #require(counts.keys.sorted().first { counts[$0, default: 0] % 5 != 0 })
        let userPages = SiteBuilder.userArchivePages(posts: counts[replier, default: 0], perPage: 5)
        #expect(userPages > 2)
        // The newest post of the archive, as a new reply is.
        let newest = try Self.newestPostTime(store)
        let reply = Post(
            floor: old.floor + 1, author: replier, postedAt: newest.addingTimeInterval(86400),
            body: "新回复", postID: gid + 100)
        try Self.save(reply, board: "Beta", gid: gid, title: "Beta 主题 10", to: store)
        publisher.reset()
        let update = try builder.build()
        let changes = try #require(update.changes)
        #expect(changes.threads == [BuildChanges.ThreadKey(board: "Beta", gid: gid)])
        #expect(changes.users == [replier])
        #expect(update.pages < first.pages / 10, "rendered \(update.pages) of \(first.pages) pages")

        let posts = old.floor + 2
        var expected: Set<String> = [
            BuildState.path,
            // The thread: its new last page, the page before (its pager), its Markdown.
            SitePaths.thread("Beta", gid: gid, page: (posts + 1) / 2),
            SitePaths.threadMarkdown("Beta", gid: gid),
            // The board's list pages whose rows changed, its frame list, Markdown index and feed.
            SitePaths.board("Beta"), SitePaths.boardArchive("Beta", page: 4), SitePaths.boardList("Beta", page: 4),
            SitePaths.boardMarkdown("Beta"), SitePaths.boardMarkdown("Beta", page: 4), SitePaths.boardFeed("Beta"),
            // The replier's pages: the newest posts (and their count), and
            // the last page of all posts by time, where the reply falls. The
            // pages before it read the same, pager included.
            SitePaths.user(replier), SitePaths.userArchive(replier, page: userPages),
            // The pages about the whole archive.
            SitePaths.home, SitePaths.feed, SitePaths.sitemap, SitePaths.markdownHome,
        ]
        let pagesBefore = (posts - 1 + 1) / 2
        for number in 1...pagesBefore { expected.insert(SitePaths.thread("Beta", gid: gid, page: number)) }
        // Author views of the thread show its post count.
        for path in publisher.inner.files.keys where path.hasPrefix("board/Beta/\(gid).au.") { expected.insert(path) }
        // The search index: the recent tail (one file for every shard: the
        // reply's terms, its pairs' positions too), the last chunk of result
        // entries and the manifest (days.js on a new day); no shard, no
        // shard's tail.
        let documents = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM post") ?? 0 }
        expected.formUnion([
            SearchIndexWriter.recentPath, SearchIndexWriter.chunkPath((documents - 1) / SearchIndexWriter.docsPerChunk),
            SearchIndexWriter.manifestPath, SearchIndexWriter.daysPath,
        ])
        // Hot topics change when the thread enters them, and the first page
        // of each window when the reply moves the archive's newest activity.
        let written = publisher.written
        let optional: Set<String> = [
            SitePaths.hot, SitePaths.hot(window: "today", page: 1), SitePaths.hot(window: "week", page: 1),
        ]
        #expect(
            written.subtracting(optional) == expected.subtracting(optional),
            "unexpected: \(written.subtracting(expected).sorted()); missing: \(expected.subtracting(written).sorted())")
        // Nor was any other list page or thread of the board even rendered:
        // the build read the board's latest page, page 4 and the thread.
        let boardFiles = publisher.rendered.filter { $0.hasPrefix("board/Beta/") && !$0.contains(".au.") }
        let threadPages = (1...(posts + 1) / 2).map { SitePaths.thread("Beta", gid: gid, page: $0) }
        let boardExpected: Set<String> = [
            SitePaths.board("Beta"), SitePaths.boardArchive("Beta", page: 4), SitePaths.boardList("Beta", page: 4),
            SitePaths.boardMarkdown("Beta"), SitePaths.boardMarkdown("Beta", page: 4), SitePaths.boardFeed("Beta"),
            SitePaths.threadMarkdown("Beta", gid: gid),
        ]
        #expect(
            boardFiles == boardExpected.union(threadPages),
            "\(boardFiles.sorted())")
    }

    /// A board added to the archive renders its own pages and the pages
    /// about the whole archive: the sidebar lists boards from `boards.js`,
    /// so no page of another board is even rendered again, and the site
    /// equals a full build. A board whose own pages read otherwise (a new
    /// title) renders everything again.
    @Test func aNewBoardRendersNoPageOfTheOthers() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let publisher = Recorder()
        let options = Self.options()
        let builder = SiteBuilder(store: store, templates: templates, publisher: publisher, options: options)
        _ = try builder.build()
        let before = try #require(publisher.read(SitePaths.boardsScript).flatMap(BoardsScript.parse))
        #expect(!before.flatMap(\.boards).contains { $0.first == "Delta" })

        // A board of two threads, the newest posts of the archive.
        let newest = try Self.newestPostTime(store)
        try store.saveBoardPage(
            BoardPage(board: "Delta", title: "新版<面>", page: PageInfo(current: 1, total: 1), threads: []),
            source: SMTHNForumSource())
        for (index, gid) in [7, 8].enumerated() {
            let post = Post(
                floor: 0, author: "newcomer", postedAt: newest.addingTimeInterval(Double(60 * (index + 1))),
                body: "新版面的第\(index)帖", postID: gid)
            try Self.save(post, board: "Delta", gid: gid, title: "新主题 \(gid)", to: store)
        }
        publisher.reset()
        let update = try builder.build()
        #expect(update.changes != nil, "the new board made the build render everything")
        let others = publisher.rendered.filter {
            $0.hasPrefix("board/") && !$0.hasPrefix("board/Delta/")
        }
        #expect(others.isEmpty, "rendered pages of other boards: \(others.sorted().prefix(10))")
        #expect(publisher.written.contains { $0.hasPrefix("board/Delta/") })
        #expect(publisher.written.contains(SitePaths.boardsScript))
        let after = try #require(publisher.read(SitePaths.boardsScript).flatMap(BoardsScript.parse))
        #expect(after.flatMap(\.boards).contains { $0 == ["Delta", "新版<面>", SitePaths.board("Delta")] })
        let full = try Self.fullBuild(store, templates: templates, options: options)
        Self.expectSamePages(publisher.inner.files, full.files)

        // A new title for a board built before: its pages, and so every
        // page (nothing else knows which pages show it), are rendered again.
        try store.saveBoardPage(
            BoardPage(board: "Alpha", title: "改名", page: PageInfo(current: 1, total: 1), threads: []),
            source: SMTHNForumSource())
        publisher.reset()
        let renamed = try builder.build()
        #expect(renamed.changes == nil)
        #expect(publisher.written.contains(SitePaths.thread("Alpha", gid: 1003, page: 1)))
        #expect(publisher.rendered.contains(SitePaths.thread("Beta", gid: 1003, page: 1)))
        Self.expectSamePages(
            publisher.inner.files, try Self.fullBuild(store, templates: templates, options: options).files)
    }

    /// A new thread, a new title and a reply to an old thread, on boards
    /// whose number of list pages stays: only the pages that show them are
    /// rendered, read by index, and the site equals a full build; then new
    /// threads that open a page (every pager changes) render the board whole.
    @Test func changedThreadsReadOnlyTheirPagesAndEqualAFullBuild() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let incremental = Recorder()
        let builder = SiteBuilder(store: store, templates: templates, publisher: incremental, options: Self.options())
        _ = try builder.build()
        func newThread(_ gid: Int, board: String, at day: Date) throws {
            try Self.newThread(gid, board: board, at: day, to: store)
        }
        func expectSameAsFull(_ step: String) throws {
            Self.expectSamePages(
                incremental.inner.files, try Self.fullBuild(store, templates: templates, options: Self.options()).files,
                step: step)
        }
        // Beta's 26th thread (page 9 of 9, by start), Alpha 1012 retitled
        // (the 13th: page 5), a reply to Gamma 1003 (the 4th: page 2).
        let newest = try Self.newestPostTime(store)
        try newThread(3000, board: "Beta", at: newest.addingTimeInterval(3600))
        let retitled = try #require(try store.posts(board: "Alpha", gid: 1012).first)
        try Self.save(
            Post(
                floor: retitled.floor, author: retitled.author, postedAt: retitled.postedAt, body: retitled.body,
                postID: retitled.postID), board: "Alpha", gid: 1012, title: "新标题 1012", to: store)
        let last = try #require(try store.posts(board: "Gamma", gid: 1003).last)
        try Self.save(
            Post(
                floor: last.floor + 1, author: "zed", postedAt: newest.addingTimeInterval(60), body: "回复", postID: 8000),
            board: "Gamma", gid: 1003, title: "Gamma 主题 3", to: store)
        incremental.reset()
        _ = try builder.build()
        try expectSameAsFull("new thread, title, reply")
        func listPages(_ board: String) -> Set<Int> {
            Set((1...10).filter { incremental.rendered.contains(SitePaths.boardArchive(board, page: $0)) })
        }
        #expect(listPages("Beta") == [9])
        #expect(listPages("Alpha") == [5])
        #expect(listPages("Gamma") == [2])
        for (board, page) in [("Beta", 9), ("Alpha", 5), ("Gamma", 2)] {
            #expect(incremental.rendered.contains(SitePaths.boardMarkdown(board, page: page)), "\(board) \(page)")
            #expect(!incremental.rendered.contains(SitePaths.boardMarkdown(board, page: 1)), "\(board)")
        }
        // The new thread and the one before it (its 下一主题); the retitled
        // thread and both of its neighbours; the replied thread alone.
        func threads(_ board: String) -> Set<Int> {
            Set(
                incremental.rendered.compactMap { path -> Int? in
                    guard path.hasPrefix("board/\(board)/"), path.hasSuffix(".md") else { return nil }
                    return Int(path.dropFirst("board/\(board)/".count).dropLast(3))
                })
        }
        #expect(threads("Beta") == [1024, 3000])
        #expect(threads("Alpha") == [1011, 1012, 1013])
        #expect(threads("Gamma") == [1003])
        let script = try #require(incremental.read(SitePaths.lookupMap))
        let map = try #require(LookupMap.decode(script: script))
        #expect(map["Beta"]?.threads == Array(1000..<1025) + [3000])
        #expect(map["Alpha"]?.threads == Array(1000..<1025))

        // Two more new threads: the 28th opens page 10, every pager changes.
        try newThread(3001, board: "Beta", at: newest.addingTimeInterval(7200))
        incremental.reset()
        _ = try builder.build()
        try expectSameAsFull("27th thread")
        #expect(listPages("Beta") == [9])
        try newThread(3002, board: "Beta", at: newest.addingTimeInterval(10800))
        incremental.reset()
        _ = try builder.build()
        try expectSameAsFull("a new page")
        #expect(listPages("Beta") == Set(1...10))
        #expect(incremental.written.contains(SitePaths.boardMarkdown("Beta", page: 10)))
        // The old last page gains its link to the newer one; no other Markdown page changes.
        #expect(
            Set((1...10).filter { incremental.written.contains(SitePaths.boardMarkdown("Beta", page: $0)) }) == [9, 10])
    }

    @Test func incrementalBuildEqualsAFullOne() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let incremental = MemoryPublisher()
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: Self.options()).build()
        // A reply, a new thread, and a post's text edited.
        try Self.newThread(
            2000, board: "Gamma", at: Fixtures.beijing(2026, 6, 1, 12, 0, 0), title: "新主题", body: "开帖", to: store)
        let edited = try #require(try store.posts(board: "Alpha", gid: 1003).first)
        try Self.save(
            Post(floor: 0, author: edited.author, postedAt: edited.postedAt, body: "改过的正文", postID: 1003),
            board: "Alpha", gid: 1003, title: "Alpha 主题 3", to: store)
        let report = try SiteBuilder(
            store: store, templates: templates, publisher: incremental, options: Self.options()
        ).build()
        #expect(report.changes != nil)
        try Self.expectSameAsAFullBuild(incremental, store, templates: templates)
    }

    /// Builds that keep the rows of the threads the home and hot pages show
    /// between them (`ThreadRowMemo`, as `archive --every` does) render the
    /// pages of a full build after each change to threads those pages show: a reply
    /// to the thread with the most posts, a new thread, a new title, a new
    /// original address, a post's text; most rows come from the memo. A
    /// memo that missed a build (rows of an older state) is not used.
    @Test func buildsThatKeepThreadRowsEqualAFullOne() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let site = MemoryPublisher()
        let memo = ThreadRowMemo()
        func build(_ memo: ThreadRowMemo?) throws -> SiteBuilder.Report {
            var builder = SiteBuilder(store: store, templates: templates, publisher: site, options: Self.options())
            builder.threadRows = memo
            return try builder.build()
        }
        _ = try build(memo)
        // Threads the home page shows whose first post has no attachment
        // (a post saved again here would lose it, and its file stay).
        func shown(_ order: ArchiveStore.ThreadOrder) throws -> StoredThread {
            try #require(
                try store.topThreads(order, limit: 10).first { thread in
                    try store.posts(board: thread.board, gid: thread.gid).first?.attachments.isEmpty == true
                })
        }
        let top = try shown(.mostPosts)
        let latest = try shown(.latestReply)
        var hits = memo.hits
        func step(_ name: String, taken: Bool = true, _ change: () throws -> Void) throws {
            try change()
            let report = try build(memo)
            #expect(report.changes?.isEmpty == false, "\(name)")
            Self.expectSamePages(
                site.files, try Self.fullBuild(store, templates: templates, options: Self.options()).files, step: name)
            if taken { #expect(memo.hits > hits, "\(name): rows taken from the memo") }
            hits = memo.hits
        }
        let newest = try Self.newestPostTime(store)
        try step("a reply to the thread with the most posts") {
            let last = try #require(try store.posts(board: top.board, gid: top.gid).last)
            try Self.save(
                Post(
                    floor: last.floor + 1, author: "zed", postedAt: newest.addingTimeInterval(60), body: "回复",
                    postID: 9000),
                board: top.board, gid: top.gid, title: top.heading.title, to: store)
        }
        try step("a new thread") {
            try Self.newThread(3100, board: "Beta", at: newest.addingTimeInterval(120), to: store)
        }
        try step("a new title") {
            let first = try #require(try store.posts(board: latest.board, gid: latest.gid).first)
            try Self.save(
                Post(floor: 0, author: first.author, postedAt: first.postedAt, body: first.body, postID: first.postID),
                board: latest.board, gid: latest.gid, title: "改过的标题", to: store)
        }
        try step("a new original address") {
            try store.write { db in
                try db.execute(
                    sql: "UPDATE thread SET originalURL = ? WHERE board = ? AND gid = ?",
                    arguments: ["https://example.org/article/\(top.board)/\(top.gid)?moved", top.board, top.gid])
            }
        }
        // A build without the memo: the rows it keeps are of an older state.
        let topFirst = try #require(try store.posts(board: top.board, gid: top.gid).first)
        try Self.save(
            Post(
                floor: 0, author: topFirst.author, postedAt: topFirst.postedAt, body: "又改过的正文", postID: topFirst.postID),
            board: top.board, gid: top.gid, title: "又一个标题", to: store)
        _ = try build(nil)
        try step("a post's text, after a build that did not keep rows", taken: false) {
            let first = try #require(try store.posts(board: latest.board, gid: latest.gid).first)
            try Self.save(
                Post(floor: 0, author: first.author, postedAt: first.postedAt, body: "改过的正文", postID: first.postID),
                board: latest.board, gid: latest.gid, title: "改过的标题", to: store)
        }
    }

    /// The memo keeps the rows the last build used, but for those of the
    /// threads changed since; none when a build does not continue from the
    /// state it kept them for, or renders everything.
    @Test func aThreadRowMemoKeepsWhatTheLastBuildUsedAndNotChanged() {
        func row(_ gid: Int) -> StoredThread {
            StoredThread(
                board: "A",
                heading: ThreadHeading(
                    gid: gid, title: "t\(gid)", sticky: false, marked: false, author: "a", postedAt: Date(),
                    lastReplier: nil, lastReplyAt: Date()),
                postCount: 1, firstPostArchived: true)
        }
        let (a, b, c) = (
            BuildChanges.ThreadKey(board: "A", gid: 1), BuildChanges.ThreadKey(board: "A", gid: 2),
            BuildChanges.ThreadKey(board: "A", gid: 3)
        )
        func changed(_ keys: Set<BuildChanges.ThreadKey>) -> BuildChanges {
            var changes = BuildChanges()
            changes.threads = keys
            return changes
        }
        let memo = ThreadRowMemo()
        memo.begin(changes: nil, after: nil, through: 5)
        memo.keep([a: row(1), b: row(2), c: row(3)])
        memo.begin(changes: changed([b]), after: 5, through: 6)
        #expect(Set(memo.rows([a, b, c]).keys) == [a, c], "b changed")
        memo.begin(changes: changed([]), after: 6, through: 7)
        #expect(Set(memo.rows([a]).keys) == [a])
        memo.begin(changes: changed([]), after: 7, through: 8)
        #expect(Set(memo.rows([a, c]).keys) == [a], "c unused by the build before")
        #expect(memo.count == 1)
        memo.begin(changes: changed([]), after: 5, through: 9)
        #expect(memo.rows([a]).isEmpty, "another state's rows")
        memo.keep([a: row(1)])
        memo.begin(changes: nil, after: 9, through: 10)
        #expect(memo.rows([a]).isEmpty, "a build of everything")
    }

    /// `site` holds the files a full build of `store` into an empty folder
    /// writes, byte for byte (the build state aside).
    static func expectSameAsAFullBuild(
        _ site: MemoryPublisher, _ store: ArchiveStore, templates: TemplateSet,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let full = try Self.fullBuild(store, templates: templates, options: Self.options())
        let a = site.files.filter { $0.key != BuildState.path }
        let b = full.files.filter { $0.key != BuildState.path }
        #expect(Set(a.keys) == Set(b.keys), sourceLocation: sourceLocation)
        let differing = b.keys.filter { a[$0] != b[$0] }.sorted()
        #expect(differing.isEmpty, "differ: \(differing.prefix(10))", sourceLocation: sourceLocation)
    }
}

extension IncrementalBuildTests {
    /// A build stopped right after it wrote a new thread's pages leaves
    /// them, and the old lookup map, neighbours' pages and build state. The
    /// next build knows the thread is new from the store's log, not from
    /// its missing page: before, it never added the thread to the lookup
    /// map (nor did any later build), and the thread before it kept no
    /// 下一主题 link to it.
    @Test func aBuildStoppedAfterANewThreadsPagesIsCompletedByTheNext() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let first = MemoryPublisher()
        _ = try SiteBuilder(store: store, templates: templates, publisher: first, options: Self.options()).build()
        let before = first.files
        try Self.newThread(
            2000, board: "Gamma", at: Fixtures.beijing(2026, 6, 1, 12, 0, 0), title: "新主题", body: "开帖", to: store)
        // What the stopped build wrote: the new thread's pages alone.
        let whole = MemoryPublisher()
        for (path, data) in before { _ = try whole.write(data, to: path) }
        _ = try SiteBuilder(store: store, templates: templates, publisher: whole, options: Self.options()).build()
        let own = whole.files.keys.filter { $0.hasPrefix("board/Gamma/2000.") || $0.hasPrefix("board/Gamma/2000-") }
        try #require(own.contains(SitePaths.thread("Gamma", gid: 2000)))
        let stopped = MemoryPublisher()
        for (path, data) in before { _ = try stopped.write(data, to: path) }
        for path in own { _ = try stopped.write(try #require(whole.read(path)), to: path) }

        let report = try SiteBuilder(
            store: store, templates: templates, publisher: stopped, options: Self.options()
        ).build()
        #expect(report.changes != nil)
        try Self.expectSameAsAFullBuild(stopped, store, templates: templates)
        let lookup = String(decoding: try #require(stopped.read(SitePaths.lookupMap)), as: UTF8.self)
        #expect(lookup.contains("2000"))
    }

    /// A thread page names the threads started just before and after it
    /// and the list page that holds it. When threads move in that order
    /// (a first post archived after its list row, a start edited, a thread
    /// that comes in among older ones), the pages around their old and new
    /// places and every page whose list window moved are rewritten: an
    /// incremental build equals a full one after each step, though no
    /// thread of those pages changed. (QA found 27–138 thread pages left
    /// naming old neighbours or windows.)
    @Test func threadsThatMoveInTheOrderByStartRewriteThePagesAroundThem() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let incremental = Recorder()
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: Self.options()).build()
        func expectSameAsFull(_ step: String) throws {
            incremental.reset()
            let report = try SiteBuilder(
                store: store, templates: templates, publisher: incremental, options: Self.options()
            ).build()
            #expect(report.changes != nil, "\(step): not incremental")
            Self.expectSamePages(
                incremental.inner.files, try Self.fullBuild(store, templates: templates, options: Self.options()).files,
                step: step)
        }
        func shift(_ board: String, _ gid: Int, by seconds: Int) throws {
            try store.write { db in
                try db.execute(
                    sql: "UPDATE post SET postedAt = postedAt + ? WHERE board = ? AND gid = ? AND floor = 0",
                    arguments: [seconds, board, gid])
            }
        }
        // One thread ten hours (places) later, across three list pages of three.
        try shift("Alpha", 1003, by: 36_000)
        try expectSameAsFull("one later")
        // Two at once, past each other: one earlier, one later.
        try shift("Alpha", 1020, by: -54_000)
        try shift("Alpha", 1005, by: 7_200)
        try expectSameAsFull("two past each other")
        // A thread known from its list row only (its start the list's,
        // a day without a time), built, then its posts archived.
        let listDay = Fixtures.beijing(2026, 1, 1, 0, 0, 0)
        let summary = ThreadSummary(
            gid: 1900, title: "后来才抓到的", replies: 1, sticky: false, author: "dave", postedAt: listDay,
            lastReplier: "erin", lastReplyAt: Fixtures.beijing(2026, 1, 1, 12, 0, 0))
        try store.saveBoardPage(
            BoardPage(board: "Beta", title: nil, page: PageInfo(current: 1, total: 1), threads: [summary]),
            source: SMTHNForumSource())
        try expectSameAsFull("a thread known from its list row")
        try store.saveThread(
            board: "Beta",
            pages: [
                ThreadPage(
                    board: "Beta", gid: 1900, title: "后来才抓到的", page: PageInfo(current: 1, total: 1),
                    posts: [
                        Post(
                            floor: 0, author: "dave", postedAt: Fixtures.beijing(2026, 1, 1, 14, 30, 0), body: "开帖",
                            postID: 1900),
                        Post(
                            floor: 1, author: "erin", postedAt: Fixtures.beijing(2026, 1, 1, 15, 0, 0), body: "回复",
                            postID: 1901),
                    ])
            ],
            summary: summary)
        try expectSameAsFull("its posts archived later")
        // A thread that comes in among older ones (an old list page fetched).
        try Self.newThread(
            1950, board: "Gamma", at: Fixtures.beijing(2026, 1, 1, 9, 30, 0), title: "老帖", author: "bob", body: "旧",
            listPage: PageInfo(current: 2, total: 2), to: store)
        try expectSameAsFull("a thread among older ones")
    }

    /// A user's pages are rewritten from the one holding the earliest
    /// changed post on: after a reply, an old-dated post, an edit of a
    /// post's time or author and a deletion, an incremental build still
    /// equals a full one, byte for byte.
    @Test func userPagesFollowEveryKindOfChange() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let incremental = Recorder()
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: Self.options()).build()
        func expectSameAsFull(_ step: String, rewrites user: String, fromPage first: Int) throws {
            incremental.reset()
            _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: Self.options())
                .build()
            Self.expectSamePages(
                incremental.inner.files, try Self.fullBuild(store, templates: templates, options: Self.options()).files,
                step: step)
            // The page holding the change was rewritten; the user's pages
            // before it were not even rendered.
            #expect(incremental.written.contains(SitePaths.userArchive(user, page: first)), "\(step)")
            #expect(incremental.rendered.contains(SitePaths.user(user)), "\(step)")
            for page in 1..<first {
                #expect(!incremental.rendered.contains(SitePaths.userArchive(user, page: page)), "\(step) page \(page)")
            }
        }
        func pageOf(_ user: String, at time: Date) throws -> Int {
            try store.postCount(byUser: user, before: time) / 5 + 1
        }
        // A reply as new as any.
        let newest = try Self.newestPostTime(store)
        let reply = try #require(try store.posts(board: "Beta", gid: 1010).last)
        try Self.save(
            Post(
                floor: reply.floor + 1, author: "bob", postedAt: newest.addingTimeInterval(60),
                body: "新回复", postID: 5000), board: "Beta", gid: 1010, title: "Beta 主题 10", to: store)
        try expectSameAsFull(
            "reply", rewrites: "bob", fromPage: try pageOf("bob", at: newest.addingTimeInterval(60)))
        // A post dated before most of carol's: her pages from that one on.
        let early = Fixtures.beijing(2026, 1, 1, 12, 30, 0)
        let late = try #require(try store.posts(board: "Alpha", gid: 1020).last)
        try Self.save(
            Post(floor: late.floor + 1, author: "carol", postedAt: early, body: "补档", postID: 5001), board: "Alpha",
            gid: 1020, title: "Alpha 主题 20", to: store)
        try expectSameAsFull("old-dated post", rewrites: "carol", fromPage: try pageOf("carol", at: early))
        // An edit moves a post in the middle of its thread half a minute
        // later (the thread's start and last reply stay).
        let moved = try store.posts(board: "Gamma", gid: 1012)[1]
        try store.write { db in
            try db.execute(
                sql: "UPDATE post SET postedAt = postedAt + 30 WHERE board = 'Gamma' AND gid = 1012 AND floor = ?",
                arguments: [moved.floor])
        }
        try expectSameAsFull(
            "edited time", rewrites: moved.author, fromPage: try pageOf(moved.author, at: moved.postedAt))
        // An edit gives a post to another user: the old author's pages
        // change from its time on, as the new one's do.
        let given = try #require(try store.posts(board: "Alpha", gid: 1015).first)
        let taker = given.author == "erin" ? "alice" : "erin"
        try store.write { db in
            try db.execute(
                sql: "UPDATE post SET author = ? WHERE board = 'Alpha' AND gid = 1015 AND floor = ?",
                arguments: [taker, given.floor])
        }
        try expectSameAsFull(
            "edited author", rewrites: given.author, fromPage: try pageOf(given.author, at: given.postedAt))
        // A post deleted from the middle of a thread: its author's pages
        // from its time on, and the pages of the later posts' authors (their
        // posts moved to another thread page).
        let posts = try store.posts(board: "Beta", gid: 1002)
        #expect(posts.count > 3)
        let gone = posts[1]
        try store.write { db in
            try db.execute(
                sql: "DELETE FROM post WHERE board = 'Beta' AND gid = 1002 AND floor = ?", arguments: [gone.floor])
        }
        try expectSameAsFull("deletion", rewrites: gone.author, fromPage: try pageOf(gone.author, at: gone.postedAt))
    }

    /// A deletion that takes a user's archive down a page leaves the last
    /// page's file behind (nothing is deleted from the site); when the
    /// archive grows back to it, every page's pager is right again.
    @Test func aUserArchiveThatShrankAndGrewBackMatchesAFullBuild() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        // A user and a page size with one post past the last full page.
        let counts = try store.postCountsByUser()
        let (user, perPage) = try #require(
            Self.user(in: counts) { posts in
                (2..<max(2, posts / 2)).first { (posts - 1) % $0 == 0 && (posts - 1) / $0 >= 2 }
            })
        var options = Self.options()
        options.postsPerUserPage = perPage
        let pages = (counts[user, default: 0] - 1) / perPage
        let incremental = MemoryPublisher()
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: options).build()
        #expect(incremental.exists(SitePaths.userArchive(user, page: pages + 1)))
        // The user's newest post (the last floor of its thread) goes away.
        let gone = try #require(try store.posts(byUser: user, limit: 1, newestFirst: true).first)
        #expect(try store.posts(board: gone.board, gid: gone.gid).last?.floor == gone.floor)
        try store.write { db in
            try db.execute(
                sql: "DELETE FROM post WHERE board = ? AND gid = ? AND floor = ?",
                arguments: [gone.board, gone.gid, gone.floor])
        }
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: options).build()
        // A new post of theirs: as many pages as before the deletion.
        try Self.save(
            Post(
                floor: gone.floor, author: user, postedAt: gone.postedAt.addingTimeInterval(1), body: "又来了",
                postID: 6000), board: gone.board, gid: gone.gid, title: gone.threadTitle, to: store)
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: options).build()
        let full = try Self.fullBuild(store, templates: templates, options: options)
        for page in 1...pages + 1 {
            let path = SitePaths.userArchive(user, page: page)
            #expect(incremental.read(path) != nil && incremental.read(path) == full.read(path), "\(path)")
        }
        #expect(incremental.read(SitePaths.user(user)) == full.read(SitePaths.user(user)))
    }

    /// A post that opens a new page of a user's archive rewrites the pages
    /// whose pagers reach it (the ten before it), not the whole archive:
    /// the archive's pagers show no last page and no count.
    @Test func aNewUserPageRewritesOnlyThePagersThatReachIt() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let counts = try store.postCountsByUser()
        // A user whose posts fill at least 12 pages exactly.
        let (user, perPage) = try #require(
            Self.user(in: counts) { posts in (2...4).first { posts % $0 == 0 && posts / $0 >= 12 } })
        let pages = counts[user, default: 0] / perPage
        var options = Self.options()
        options.postsPerUserPage = perPage
        let incremental = Recorder()
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: options).build()
        let newest = try Self.newestPostTime(store)
        let thread = try #require(try store.posts(board: "Alpha", gid: 1004).last)
        try Self.save(
            Post(
                floor: thread.floor + 1, author: user, postedAt: newest.addingTimeInterval(60),
                body: "新的一页", postID: 7000), board: "Alpha", gid: 1004, title: "Alpha 主题 4", to: store)
        incremental.reset()
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: options).build()
        let rendered = (1...pages + 1).filter { incremental.rendered.contains(SitePaths.userArchive(user, page: $0)) }
        #expect(rendered == Array(pages + 1 - Pager.jump...pages + 1))
        let full = try Self.fullBuild(store, templates: templates, options: options)
        for page in 1...pages + 1 {
            let path = SitePaths.userArchive(user, page: page)
            #expect(incremental.inner.read(path) != nil && incremental.inner.read(path) == full.read(path), "\(path)")
        }
    }

    /// 上一主题 / 下一主题 name the threads either side: a new title
    /// rewrites their pages in an incremental build, as a full one would.
    /// A thread whose address on the forum changed alone (its list read
    /// from another front end, or by `reparse`) is rendered again: its
    /// pages link to it. An incremental build equals a full one.
    @Test func aThreadWhoseOriginalAddressChangedIsRenderedAgain() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let incremental = MemoryPublisher()
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: Self.options()).build()
        let address = "https://www.newsmth.net/nForum/article/Beta/1010"
        let before = try store.lastBuildChange()
        try store.write { db in
            try db.execute(
                sql: "UPDATE thread SET originalURL = ? WHERE board = 'Beta' AND gid = 1010", arguments: [address])
        }
        #expect(try store.buildChanges(after: before).threads == [BuildChanges.ThreadKey(board: "Beta", gid: 1010)])
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: Self.options()).build()
        let page = try #require(incremental.read(SitePaths.thread("Beta", gid: 1010)))
        #expect(String(decoding: page, as: UTF8.self).contains(address))
        let full = try Self.fullBuild(store, templates: templates, options: Self.options())
        Self.expectSamePages(incremental.files, full.files)
    }

    @Test func aNewTitleShowsOnTheNeighboursPages() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let incremental = MemoryPublisher()
        _ = try SiteBuilder(store: store, templates: templates, publisher: incremental, options: Self.options()).build()
        // Beta's threads start an hour apart: 1009 and 1011 are either side of 1010.
        let byStart = try store.threads(board: "Beta").sorted { ($0.postedAt, $0.gid) < ($1.postedAt, $1.gid) }
        let index = try #require(byStart.firstIndex { $0.gid == 1010 })
        let neighbours = [byStart[index - 1].gid, byStart[index + 1].gid]
        let posts = try store.posts(board: "Beta", gid: 1010)
        let first = try #require(posts.first)
        let newTitle = "改过的标题 1010"
        try Self.save(
            Post(
                floor: first.floor, author: first.author, postedAt: first.postedAt, body: first.body,
                postID: first.postID), board: "Beta", gid: 1010, title: newTitle, to: store)
        let report = try SiteBuilder(
            store: store, templates: templates, publisher: incremental, options: Self.options()
        ).build()
        #expect(report.changes?.retitled == [BuildChanges.ThreadKey(board: "Beta", gid: 1010)])
        for gid in neighbours {
            let page = try #require(incremental.read(SitePaths.thread("Beta", gid: gid)))
            #expect(String(decoding: page, as: UTF8.self).contains(newTitle), "thread \(gid)")
        }
        let full = try Self.fullBuild(store, templates: templates, options: Self.options())
        let a = incremental.files.filter { $0.key != BuildState.path }
        let b = full.files.filter { $0.key != BuildState.path }
        #expect(Set(a.keys) == Set(b.keys))
        let differing = b.keys.filter { a[$0] != b[$0] }.sorted()
        #expect(differing.isEmpty, "differ: \(differing.prefix(10))")

        // Only a title logs a retitle: the next change (a reply) does not.
        let after = try store.lastBuildChange()
        try Self.save(
            Post(
                floor: (posts.last?.floor ?? 0) + 1, author: "zed", postedAt: Fixtures.beijing(2026, 6, 1), body: "回复",
                postID: 9010), board: "Beta", gid: 1010, title: newTitle, to: store)
        #expect(try store.buildChanges(after: after).retitled.isEmpty)
    }
}

extension IncrementalBuildTests {
    /// A hot page whose cards read the same and whose threads did not
    /// change is not rendered again; the others are, and all of them equal
    /// a full build's.
    @Test func hotPagesAreRenderedOnlyWhenTheirCardsChange() async throws {
        let store = try ParallelBuildTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let publisher = Recorder()
        var options = Self.options()
        // Ten cards a page: the 75 threads fill every page of "all".
        options.hotTopics = 10
        let builder = SiteBuilder(store: store, templates: templates, publisher: publisher, options: options)
        _ = try builder.build()
        let hot = Set(publisher.inner.files.keys.filter { $0.hasPrefix("hot") && $0.hasSuffix(".html") })
        #expect(hot.contains(SitePaths.hot(window: nil, page: 3)))

        // A reply to a thread of six posts (among the most replied: page 1 of
        // "all") moves it to the top; the pages after the first read the same.
        let gid = 1010
        let old = try #require(try store.posts(board: "Beta", gid: gid).last)
        #expect(old.floor == 5)
        let reply = Post(
            floor: old.floor + 1, author: old.author, postedAt: try Self.newestPostTime(store).addingTimeInterval(60),
            body: "新回复", postID: gid + 100)
        try Self.save(reply, board: "Beta", gid: gid, title: "Beta 主题 10", to: store)
        publisher.reset()
        _ = try builder.build()
        let rendered = publisher.rendered.intersection(hot)
        #expect(rendered.contains(SitePaths.hot(window: nil, page: 1)))
        #expect(!rendered.contains(SitePaths.hot(window: nil, page: 3)))
        let full = try Self.fullBuild(store, templates: templates, options: options)
        // (A page a fuller window left behind is not in a full build.)
        for path in hot.sorted() where full.files[path] != nil {
            #expect(publisher.inner.read(path) == full.files[path], "\(path)")
        }
    }
}

/// A store and a site made before changes were logged (the last release:
/// migration `v1` only, a build state without a change number).
@Suite struct OldStoreBuildTests {
    @Test func aStoreFromTheLastReleaseStillBuildsThenUpdatesIncrementally() async throws {
        let folder = try Fixtures.temporaryFolder("old-store")
        let path = folder.appendingPathComponent("archive.sqlite").path
        do {
            let store = try ArchiveStore(path: path)
            try store.saveBoardPage(
                BoardPage(
                    board: "Old", title: "旧版", page: PageInfo(current: 1, total: 1),
                    threads: [
                        ThreadSummary(
                            gid: 1, title: "旧主题", replies: 0, sticky: false, author: "amy",
                            postedAt: Fixtures.beijing(2025, 1, 1), lastReplier: nil,
                            lastReplyAt: Fixtures.beijing(2025, 1, 1))
                    ]), source: SMTHMobileSource())
            try IncrementalBuildTests.save(
                Post(floor: 0, author: "amy", postedAt: Fixtures.beijing(2025, 1, 1), body: "旧"), board: "Old", gid: 1,
                title: "旧主题", to: store)
        }
        // Back to what the last release left: no change log, no record of its migration.
        let access = try GRDBTestAccess.open(path)
        try await access.queue.write { db in
            for trigger in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'build_change_%'")
            {
                try db.execute(sql: "DROP TRIGGER \(trigger)")
            }
            try db.execute(sql: "DROP TABLE build_change")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v2-build-changes'")
            // The log's post times (v9-build-change-time) come after it again.
            try db.execute(sql: "DROP INDEX post_by_author_time")
            try db.execute(sql: "CREATE INDEX post_by_author ON post (author, postedAt)")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v9-build-change-time'")
        }
        let site = folder.appendingPathComponent("site")
        let publisher = try DiskPublisher(root: site)
        try publisher.write(Data(#"{"fingerprint":"old","builtAt":0}"#.utf8), to: BuildState.path)

        let store = try ArchiveStore(path: path)
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let builder = SiteBuilder(store: store, templates: templates, publisher: publisher)
        let first = try builder.build()
        #expect(first.changes == nil)
        #expect(publisher.exists(SitePaths.thread("Old", gid: 1)))
        try IncrementalBuildTests.save(
            Post(floor: 1, author: "ben", postedAt: Fixtures.beijing(2025, 1, 2), body: "新"), board: "Old", gid: 1,
            title: "旧主题", to: store)
        let second = try builder.build()
        #expect(second.changes?.threads == [BuildChanges.ThreadKey(board: "Old", gid: 1)])
        #expect(
            String(decoding: publisher.read(SitePaths.thread("Old", gid: 1)) ?? Data(), as: UTF8.self).contains("ben"))
    }
}

extension OldStoreBuildTests {
    /// A store made before the board orders' index (`v12-board-orders`)
    /// gets it when opened, filled from the threads it holds: a build
    /// after a reply and a new thread then equals a full one.
    @Test func aStoreBeforeTheBoardOrdersGetsThemAndUpdatesIncrementally() async throws {
        // The store's threads as a store of the last release held them.
        let path = try ParallelBuildTests.makeStore().path
        let access = try GRDBTestAccess.open(path)
        try await access.queue.write { db in
            for trigger in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'thread_start_%'")
            {
                try db.execute(sql: "DROP TRIGGER \(trigger)")
            }
            try db.execute(sql: "DROP TABLE thread_start")
            try db.execute(sql: "DROP INDEX thread_summary_by_board_last")
            try db.execute(sql: "DROP INDEX thread_sticky")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v12-board-orders'")
        }
        let store = try ArchiveStore(path: path)
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let publisher = MemoryPublisher()
        let options = IncrementalBuildTests.options()
        _ = try SiteBuilder(store: store, templates: templates, publisher: publisher, options: options).build()
        let newest = try IncrementalBuildTests.newestPostTime(store)
        let last = try #require(try store.posts(board: "Beta", gid: 1010).last)
        try IncrementalBuildTests.save(
            Post(
                floor: last.floor + 1, author: "zed", postedAt: newest.addingTimeInterval(60), body: "回复", postID: 8100),
            board: "Beta", gid: 1010, title: "Beta 主题 10", to: store)
        try IncrementalBuildTests.save(
            Post(floor: 0, author: "yan", postedAt: newest.addingTimeInterval(120), body: "开帖", postID: 8101),
            board: "Beta", gid: 4000, title: "新主题", to: store)
        let report = try SiteBuilder(store: store, templates: templates, publisher: publisher, options: options).build()
        #expect(report.changes?.threads.contains(BuildChanges.ThreadKey(board: "Beta", gid: 4000)) == true)
        let full = try IncrementalBuildTests.fullBuild(store, templates: templates, options: options)
        func pages(_ files: [String: Data]) -> [String: Data] {
            files.filter { $0.key != BuildState.path && !$0.key.hasPrefix("search/") }
        }
        let a = pages(publisher.files)
        let b = pages(full.files)
        #expect(Set(a.keys) == Set(b.keys))
        let differing = b.keys.filter { a[$0] != b[$0] }.sorted()
        #expect(differing.isEmpty, "differ: \(differing.prefix(10))")
    }
}

extension IncrementalBuildTests {
    /// Saves `post` into thread `gid` of `board`, as a fetch of its last page would.
    static func save(_ post: Post, board: String, gid: Int, title: String, to store: ArchiveStore) throws {
        try store.saveThread(
            board: board,
            pages: [
                ThreadPage(board: board, gid: gid, title: title, page: PageInfo(current: 1, total: 1), posts: [post])
            ],
            summary: nil)
    }

    /// The first user, by name, whose post count `pageSize` finds a page
    /// size for, with that size.
    static func user(in counts: [String: Int], pageSize: (Int) -> Int?) -> (String, Int)? {
        for user in counts.keys.sorted() {
            if let size = pageSize(counts[user, default: 0]) { return (user, size) }
        }
        return nil
    }

    /// The same files, but for the build state and the search index (whose
    /// files an append spells otherwise than a full pass: `SearchIndexTests`).
    static func expectSamePages(
        _ built: [String: Data], _ full: [String: Data], step: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        func pages(_ files: [String: Data]) -> [String: Data] {
            files.filter { $0.key != BuildState.path && !$0.key.hasPrefix("search/") }
        }
        let a = pages(built)
        let b = pages(full)
        #expect(
            Set(a.keys) == Set(b.keys), "\(step): \(Set(a.keys).symmetricDifference(b.keys).sorted())",
            sourceLocation: sourceLocation)
        let differing = b.keys.filter { a[$0] != b[$0] }.sorted()
        #expect(differing.isEmpty, "\(step) differ: \(differing.prefix(10))", sourceLocation: sourceLocation)
    }

    /// The time of the archive's newest post: a new reply comes after it.
    static func newestPostTime(_ store: ArchiveStore) throws -> Date {
        ArchiveStore.date(
            try store.read { db in try Int64.fetchOne(db, sql: "SELECT max(postedAt) FROM post") ?? 0 })
    }

    /// A full build of `store` (not incremental) with `options`, in memory.
    /// A thread of one post, with its row on a list page (`listPage`), as a fetch stores a new one.
    static func newThread(
        _ gid: Int, board: String, at day: Date, title: String? = nil, author: String = "yan", body: String? = nil,
        listPage: PageInfo = PageInfo(current: 1, total: 1), to store: ArchiveStore
    ) throws {
        let summary = ThreadSummary(
            gid: gid, title: title ?? "新主题 \(gid)", replies: 0, sticky: false, author: author, postedAt: day,
            lastReplier: nil, lastReplyAt: day)
        try store.saveBoardPage(
            BoardPage(board: board, title: nil, page: listPage, threads: [summary]), source: SMTHNForumSource())
        try store.saveThread(
            board: board,
            pages: [
                ThreadPage(
                    board: board, gid: gid, title: summary.title, page: PageInfo(current: 1, total: 1),
                    posts: [
                        Post(floor: 0, author: author, postedAt: day, body: body ?? "开帖 \(gid)", postID: gid)
                    ])
            ],
            summary: summary)
    }

    static func fullBuild(
        _ store: ArchiveStore, templates: TemplateSet, options: SiteBuilder.Options
    ) throws -> MemoryPublisher {
        var options = options
        options.incremental = false
        let full = MemoryPublisher()
        _ = try SiteBuilder(store: store, templates: templates, publisher: full, options: options).build()
        return full
    }
}

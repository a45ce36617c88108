import Foundation

/// The render half of the pipeline: reads the store and writes the static
/// site (HTML through the Mustache templates, Markdown through cmark-gfm,
/// attachments from their content-addressed blobs, Atom feeds, a sitemap).
///
/// Needs no network. Files whose bytes did not change are not rewritten.
/// Works board by board and thread by thread: only one board's thread list
/// and one thread's posts are in memory at a time, plus a few fixed-size
/// selections (hot topics, recent threads) for the home page and feeds.
package struct SiteBuilder: Sendable {
    package struct Options: Sendable {
        package var threadsPerPage = 30
        package var postsPerPage = 20
        package var postsPerUserPage = 50
        /// What the build knows of the forum (its words, time zone, post
        /// conventions, address forms), given by the pipeline from the
        /// stored boards' source.
        package var forum = ForumProfile.plain
        /// The forum's words (site title, deleted-author label, lookup example).
        package var wording: SiteWording {
            get { forum.wording }
            set { forum.wording = newValue }
        }
        /// Where the archive is published (`https://example.org/smth/`), for
        /// the sitemap and the feeds' absolute links. Without it there is no
        /// sitemap and the feeds link relative to themselves.
        package var siteURL: String?
        /// Hot topics on the hot page (cards) and on the home page.
        package var hotTopics = 48
        /// Pages of hot topics each window (今日, 本周, 全部) has at most.
        package var hotPages = 3
        package var homeHotTopics = 10
        /// Cards each window of the hot pages shows at most.
        var hotCards: Int { max(1, hotTopics) * max(1, hotPages) }
        /// Most recently active threads on the home page.
        package var homeRecentThreads = 20
        /// Entries of each Atom feed.
        package var feedEntries = 30
        /// A quote longer than this many lines is folded into a `<details>`.
        package var longQuoteLines = 6
        /// Leave the pages of threads and users that did not change since
        /// the last build of this folder (with the same templates and
        /// options) as they are, without rendering them again.
        package var incremental = true
        /// Boards, and runs of pages within a board, rendered at the same
        /// time; 1 renders one after the other. The output is the same.
        package var workers = ProcessInfo.processInfo.activeProcessorCount
        /// Board pages (with their threads) one task renders.
        package var boardPagesPerTask = 8
        /// Whether the search index is written (`search/`). Only the bench
        /// turns it off, to time what indexing adds to a build.
        package var searchIndex = true

        package init() {}
    }

    /// What a build did.
    package struct Report: Sendable, Equatable {
        package var pages = 0
        package var markdownFiles = 0
        package var mediaFiles = 0
        /// Smaller copies of images made by this build (a rebuild makes none).
        package var thumbnails = 0
        /// Thumbnails an earlier build made, copied from the store (a build
        /// into a new folder makes none the store keeps).
        package var thumbnailsCopied = 0
        /// Images no thumbnail could be made of (shown as they are).
        package var unreadableImages = 0
        /// Images left without thumbnails because libvips could not be loaded.
        package var imagesWithoutLibvips = 0
        package var feeds = 0
        /// Whether `sitemap.xml` was written (it needs `--site-url`).
        package var sitemap = false
        /// Files written because they were new or different.
        package var written = 0
        /// Files left alone because they were already identical.
        package var unchanged = 0
        /// Threads and users whose pages were not rendered again, because
        /// nothing they show changed since the last build.
        package var skippedThreads = 0
        package var skippedUsers = 0
        /// What this build rendered because it changed since the last one;
        /// `nil` when it rendered everything.
        package var changes: BuildChanges?
    }

    package let store: ArchiveStore
    package let templates: TemplateSet
    package let publisher: any SitePublisher
    package let options: Options
    /// Other writers of the build (a search index, say), given what changed.
    package let writers: [any BuildWriter]
    /// The rows of the threads the home and hot pages show, kept from the
    /// last build by a process that builds again and again (`archive
    /// --every`); nil: read from the store.
    package var threadRows: ThreadRowMemo?

    package init(
        store: ArchiveStore, templates: TemplateSet, publisher: any SitePublisher, options: Options = Options(),
        writers: [any BuildWriter] = []
    ) {
        self.store = store
        self.templates = templates
        self.publisher = publisher
        self.options = options
        self.writers = writers
    }

    package func build() throws(ArchiveError) -> Report {
        // The store's clock: the build's time is compared with the store's.
        let started = store.clock()
        let boards = try store.boards()
        let filing = try store.sectionFiling()
        let run = BuildRun(navigation: SiteNavigation(boards: boards, filing: filing), options: options)
        var fingerprint = self.fingerprint()
        let state = publisher.read(BuildState.path)
        let mark = BuildState.Mark(state)
        // A state left by a build that did not wait for the disk, read in
        // another boot, is not the site's: everything is compared again.
        let previous =
            options.incremental && mark?.trusted(in: publisher.boot) == true ? BuildState.decoded(state) : nil
        // Whether files this build may find there, and leave alone, may not
        // be durable yet: an earlier build's left to the kernel, or those of
        // a build that stopped part way (files and no state it can read).
        let earlier = state == nil ? !publisher.writesMediaOnce : mark.map { $0.unflushedBoot != nil } ?? true
        run.trustsPDFNames = previous?.mediaRules == Self.mediaRules
        let boardMarks = Self.boardMarks(run.navigation)
        // Every emoticon image newly archived shows on the pages that use it.
        let emoticons = try writeEmoticons(run: run)
        run.emoticons = emoticons
        if !emoticons.isEmpty {
            let list = emoticons.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
            fingerprint = SHA256.hex(Data((fingerprint + "\n" + list).utf8))
        }
        // Read before rendering: a change made while this build runs is
        // rendered again by the next one.
        var through = try store.lastBuildChange()
        if let previous, previous.fingerprint == fingerprint, previous.boards == boardMarks,
            let seq = previous.changeSeq, seq == through, publisher.exists(SitePaths.home),
            publisher.exists(SitePaths.boardsScript), boards.allSatisfy({ publisher.exists(SitePaths.board($0.name)) })
        {
            // Nothing logged since the last build, nothing else that pages
            // depend on changed, and the site is there: nothing to render.
            var report = Report()
            report.changes = BuildChanges()
            report.changes?.through = through
            for writer in writers { try writer.write(changes: report.changes, store: store, publisher: publisher) }
            let unflushed = try publisher.settle(earlier: earlier)
            try BuildState(
                fingerprint: fingerprint, builtAt: started.timeIntervalSince1970, changeSeq: through,
                boardPages: previous.boardPages, shrunkUserPages: previous.shrunkUserPages,
                hotPages: previous.hotPages, boards: boardMarks, mediaRules: Self.mediaRules,
                unflushedBoot: unflushed
            ).save(to: publisher)
            return report
        }
        // A board added renders its own pages (its threads are all logged
        // as changes) and the pages about the whole archive; only a board
        // whose pages read otherwise (its title, its section, its forum
        // address) or that went away renders everything again.
        if let previous, previous.fingerprint == fingerprint, let seq = previous.changeSeq, seq <= through,
            let marks = previous.boards, marks.allSatisfy({ boardMarks[$0.key] == $0.value })
        {
            let changes = try store.buildChanges(after: seq)
            run.changes = changes
            through = max(through, changes.through)
            run.previousBoardPages = previous.boardPages ?? [:]
            run.previousShrunkUserPages = previous.shrunkUserPages ?? [:]
            run.previousHotPages = previous.hotPages ?? [:]
        }
        run.report.changes = run.changes
        threadRows?.begin(changes: run.changes, after: previous?.changeSeq, through: through)
        // A build of everything reads most of the store: asked for in
        // order, in the background, not a page at a time from the disk.
        if run.changes == nil { store.prefetchFile() }

        // Each board renders into a run of its own; the runs are merged in
        // board order, so the result does not depend on which ends first.
        // A board nothing changed in is left as it is, unread.
        let dirty = boards.filter { board in
            run.changes.map { $0.boards.contains(board.name) } ?? true || !publisher.exists(SitePaths.board(board.name))
        }
        // The lookup map of the last build gets only the changed boards anew.
        let oldLookup = run.changes != nil ? publisher.read(SitePaths.lookupMap) : nil
        var lookup = LookupMap()
        // Search (issue 9): the page and the index of the posts changed
        // since the last build. It reads only the store and writes only its
        // own files, so it runs beside the boards and users (every core
        // busy, not two phases one after the other) into a run of its own.
        let searchRun = run.fork()
        let search = BackgroundTask(inBackground: options.workers > 1) { () throws(ArchiveError) in
            try buildSearch(SearchChanges(run.changes), run: searchRun)
        }
        // Whatever fails, the search task ends before the build returns.
        defer { _ = try? search.wait() }
        // What the home and hot pages read of the whole archive: store
        // reads only, so they run beside the boards too, into a value that
        // the pages take after them. (What depends on the files the boards
        // write, such as a card's picture, is decided after them.)
        let topsBox = TopsBox()
        let tops = BackgroundTask(inBackground: options.workers > 1) { () throws(ArchiveError) in
            topsBox.value = try readTops(run: run)
        }
        defer { _ = try? tops.wait() }
        let boardRuns = try parallelMap(dirty) { board throws(ArchiveError) in
            let part = run.fork()
            return (part, try buildBoard(board, run: part))
        }
        for (part, map) in boardRuns {
            run.absorb(part)
            lookup.merge(map)
        }
        run.boardPages = run.previousBoardPages.filter { name, _ in boards.contains { $0.name == name } }
        for (part, _) in boardRuns { run.boardPages.merge(part.boardPages) { _, new in new } }

        let users: [String]
        if let changes = run.changes { users = changes.users.sorted() } else { users = try store.users() }
        let userChunks = stride(from: 0, to: users.count, by: 64).map { Array(users[$0..<min($0 + 64, users.count)]) }
        let userRuns = try parallelMap(userChunks) { chunk throws(ArchiveError) in
            // One read transaction for the chunk's users, not three per user.
            try store.reading { () throws(ArchiveError) in
                let part = run.fork()
                for user in chunk { try buildUser(user, run: part) }
                return part
            }
        }
        for part in userRuns { run.absorb(part) }
        let shrunk = run.previousShrunkUserPages.filter { !run.builtUsers.contains($0.key) }
            .merging(run.shrunkUserPages) { _, new in new }

        try tops.wait()
        let read = topsBox.value
        chooseDigests(read, boards: boards, run: run)
        try buildHome(run: run)
        try buildSections(run: run)
        try buildBoardsScript(run: run)
        try buildHot(windows: read.windows, run: run)
        let present = Set(boards.map(\.name))
        var lookupScript = LookupMap.updated(oldLookup, with: lookup, present: present)
        if lookupScript == nil {
            // The last map lacks a board this build knows only the new threads of.
            try lookup.complete { name throws(ArchiveError) in try store.threadGids(board: name) }
            lookupScript = LookupMap.updated(oldLookup, with: lookup, present: present)
        }
        try buildLookup(lookupScript ?? lookup.script(), run: run)
        try buildNotFound(run: run)
        try buildSiteFeed(run: run)
        try buildSitemap(boards: boards, run: run)
        try markdown(
            SitePaths.markdownHome,
            HomeMarkdown.render(run.navigation, siteTitle: options.wording.siteTitle, strings: templates.strings),
            run: run)
        try copyAssets(run: run)
        // Only a cache: a store that cannot take it costs a probe (and the
        // thumbnails) next time.
        if !store.readOnly { try? recordImages(run.imageFacts) }
        for writer in writers { try writer.write(changes: run.changes, store: store, publisher: publisher) }
        // The search task goes on beside everything above (nothing there
        // reads what it writes): waited for here, the cores that the home,
        // feeds, sitemap and assets leave idle finish the index.
        try search.wait()
        run.absorb(searchRun)
        // Written last, after everything else is on the disk (or, for many
        // files, in this boot's page cache: `settle`): a build that stopped
        // part way leaves the old state, and the next build renders
        // everything that changed since then.
        let unflushed = try publisher.settle(earlier: earlier)
        try BuildState(
            fingerprint: fingerprint, builtAt: started.timeIntervalSince1970, changeSeq: through,
            boardPages: run.boardPages, shrunkUserPages: shrunk.isEmpty ? nil : shrunk,
            hotPages: run.hotPages.isEmpty ? nil : run.hotPages, boards: boardMarks, mediaRules: Self.mediaRules,
            unflushedBoot: unflushed
        ).save(to: publisher)
        return run.report
    }

    /// What the home page, the feeds and the hot pages show of the whole
    /// archive, as the store holds it: read beside the boards
    /// (`readTops`), made into digests after them (`chooseDigests`).
    struct Tops: Sendable {
        /// The first threads by archived posts, as many as the home page or
        /// a hot window shows; the home page's cards among them, with their
        /// first posts.
        var mostPosts: [StoredThread] = []
        var homeHot: [StoredThread] = []
        /// The most recently active threads (home page, site feed).
        var latest: [StoredThread] = []
        var openings: [BuildChanges.ThreadKey: StoredPost] = [:]
        var boardSpans: [String: (first: Date, last: Date)] = [:]
        /// Each hot window's threads, in its order (`HotWindow.all` is
        /// `mostPosts`).
        var windows: [HotWindow: [StoredThread]] = [:]
    }

    /// Set by the task that reads the tops (which throws if it cannot),
    /// read after it ended.
    final class TopsBox: @unchecked Sendable {
        var value = Tops()
    }

    /// The store's part of the home and hot pages (see `Tops`). It reads
    /// only the store, never the site, so it may run beside the boards.
    func readTops(run: BuildRun) throws(ArchiveError) -> Tops {
        var tops = Tops()
        // One query for the home page's cards and the hot pages' "all"
        // window: the first threads of the one order, as many as the
        // larger of the two shows (`buildHot` takes its own from them).
        tops.mostPosts = try store.topThreads(
            .mostPosts, limit: max(run.hot.limit, options.hotCards), memo: threadRows)
        // The most replied threads in the home page's order, from their rows;
        // only the cards the home page shows read their first posts (the hot
        // pages read theirs when they are rendered).
        var order = run.hot.emptied()
        for thread in tops.mostPosts.prefix(run.hot.limit) {
            order.offer(ThreadDigest(thread: thread, boardTitle: thread.board, excerpt: ""))
        }
        tops.homeHot = order.items.prefix(options.homeHotTopics).map(\.thread)
        tops.latest = try store.topThreads(.latestReply, limit: run.recent.limit, memo: threadRows)
        tops.openings = try store.openingPosts((tops.homeHot + tops.latest).map { .init(board: $0.board, gid: $0.gid) })
        tops.boardSpans = try store.boardSpans()
        let newest = try store.newestActivity()
        for window in HotWindow.allCases {
            guard let span = window.span else { continue }
            // A full build reads the window's posts (without writing to the
            // store while the search index holds its writer), as does a build
            // from a store it cannot write; a build of what changed brings the
            // counts kept in the store up to date.
            tops.windows[window] =
                try newest.map { newest throws(ArchiveError) in
                    run.changes == nil || store.readOnly
                        ? try store.hotThreads(since: newest.addingTimeInterval(-span), limit: options.hotCards)
                        : try store.keptHotThreads(
                            span: Int(span), newest: newest, limit: options.hotCards, memo: threadRows)
                } ?? []
        }
        tops.windows[.all] = Array(tops.mostPosts.prefix(options.hotCards))
        return tops
    }

    /// Hot topics, recent threads and each board's figures, from what
    /// `readTops` read of the whole archive (not gathered while rendering,
    /// so an incremental build shows the same as a full one). After the
    /// boards: a card shows a picture only if its file is in the site.
    private func chooseDigests(_ tops: Tops, boards: [StoredBoard], run: BuildRun) {
        let byName = Dictionary(boards.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func digest(_ thread: StoredThread) -> ThreadDigest {
            self.digest(
                thread, boardTitle: byName[thread.board]?.title ?? thread.board, original: Self.originalLink(thread),
                opening: tops.openings[.init(board: thread.board, gid: thread.gid)])
        }
        run.mostPosts = tops.mostPosts
        for thread in tops.homeHot { run.hot.offer(digest(thread)) }
        for thread in tops.latest { run.recent.offer(digest(thread)) }
        run.boardStats = tops.boardSpans.mapValues { BoardStats(first: $0.first, last: $0.last) }
    }

    /// Everything besides the store that every page depends on: the
    /// program's version, the options, the templates and assets. Any
    /// change renders every page again. The boards are not in it: the
    /// sidebar lists them from `boards.js`, and each board's own pages
    /// depend on what `boardMarks` keeps of it.
    private func fingerprint() -> String {
        // How many tasks render does not change a byte of the output.
        var rendering = options
        rendering.workers = 0
        rendering.boardPagesPerTask = 0
        var text = "bbsarchive \(BBSArchiveVersion.version)\n\(rendering.fingerprintText)\n"
        for (relative, data) in templates.files {
            text += "\(relative) \(data.map(ByteHash.hex) ?? "-")\n"
        }
        // The layout of the files, where it changed without a template:
        // a site of another layout is rendered anew (2: board Markdown
        // paged like the HTML list; 3: the sidebar's boards in `boards.js`).
        text += "layout 3\n"
        // Media judged by other rules: every page links its files anew.
        text += "media \(Self.mediaRules)\n"
        return SHA256.hex(Data(text.utf8))
    }

    /// The rules `media/` was written by (`InertMedia`): 2 reads what a
    /// PDF can do (`PDFActions`), where 1 kept every PDF as `.pdf`.
    static let mediaRules = 2

    /// What each board's own pages show of it besides its threads: its
    /// name and title, its forum and address (the original links), and the
    /// sections its breadcrumbs name. A build renders everything again when
    /// one of these changed for a board built before, or a board went
    /// away; a board added changes none of them.
    static func boardMarks(_ navigation: SiteNavigation) -> [String: String] {
        var marks: [String: String] = [:]
        for board in navigation.boards where marks[board.name] == nil {
            var text = "\(board.title ?? "")|\(board.source ?? "")|\(board.baseURL ?? "")"
            for (name, path) in navigation.sectionCrumbs(board: board.name) { text += "|\(name)>\(path)" }
            marks[board.name] = text
        }
        return marks
    }

    // MARK: Tasks

    /// `body` over every item, on up to `options.workers` threads at once;
    /// the results in the order of the items. The first error is thrown.
    ///
    /// Called from a task of another `parallelMap` (a board's pages and
    /// threads, within the boards), its items join the same workers: a
    /// worker with nothing left of its own takes them, so the last big
    /// board is rendered by every worker, not by one while the others wait.
    func parallelMap<Item: Sendable, Result>(
        _ items: [Item], _ body: @Sendable (Item) throws(ArchiveError) -> Result
    ) throws(ArchiveError) -> [Result] {
        guard options.workers > 1, items.count > 1 else {
            var results: [Result] = []
            for item in items { results.append(try body(item)) }
            return results
        }
        let results = TaskResults<Result>(count: items.count)
        try withoutActuallyEscaping(body) { body throws(ArchiveError) in
            let job = WorkerPool.Job(count: items.count) { index in
                do throws(ArchiveError) {
                    results.set(index, .success(try body(items[index])))
                    return true
                } catch {
                    results.set(index, .failure(error))
                    return false
                }
            }
            if let pool = WorkerPool.current {
                pool.run(job)
            } else {
                WorkerPool.run(job, threads: min(options.workers, items.count))
            }
        }
        return try results.collect()
    }

    // MARK: Writing

    /// Renders a page template and writes it; `listed` pages go in the sitemap.
    /// `capacity`: the bytes the page is expected to take (a page's worth
    /// unless told more), reserved up front so that it is not copied as it grows.
    func page(
        _ path: String, template: String, _ context: some TemplateView, capacity: Int = 16 * 1024, run: BuildRun
    ) throws(ArchiveError) {
        // Written from where the page was rendered: neither an array nor a
        // `Data` copy of each page.
        let written = try templates.write(template, context, capacity: capacity) { html in
            Result { () throws(ArchiveError) in
                try publisher.write(contentsOf: UnsafeRawBufferPointer(html), to: path)
            }
        }
        count(written, in: run)
        run.report.pages += 1
    }

    func markdown(_ path: String, _ text: String, run: BuildRun) throws(ArchiveError) {
        count(try publisher.write(text: text, to: path), in: run)
        run.report.markdownFiles += 1
    }

    /// The same, written from where cmark renders it: no `String` made of it.
    func markdown(_ path: String, _ document: MarkdownDocument, run: BuildRun) throws(ArchiveError) {
        count(
            try document.withRendered { (bytes) throws(ArchiveError) in
                try publisher.write(contentsOf: UnsafeRawBufferPointer(bytes), to: path)
            }, in: run)
        run.report.markdownFiles += 1
    }

    func file(_ path: String, _ data: Data, run: BuildRun) throws(ArchiveError) {
        count(try publisher.write(data, to: path), in: run)
    }

    private func count(_ written: Bool, in run: BuildRun) {
        if written { run.report.written += 1 } else { run.report.unchanged += 1 }
    }

    /// Writes an attachment's bytes once under their hash; returns its path,
    /// or `nil` when its bytes were never fetched.
    func saveMedia(_ attachment: StoredAttachment, run: BuildRun) throws(ArchiveError) -> String? {
        guard let hash = attachment.hash else { return nil }
        let declared = SitePaths.mediaExtension(mime: attachment.mime, name: attachment.name)
        let expected = SitePaths.media(hash: hash, extension: declared)
        // In a folder that held no site, the write says whether this build
        // wrote the file already. Asking first paid off for the 5 % of
        // attachments whose bytes another post shows too; the `access` of
        // the other 95 % found nothing (at 1M posts, 2 % of the build's CPU).
        let once = publisher.writesMediaOnce
        // A `.pdf` an older release wrote may act (`PDFActions`): read again.
        if !once, declared != "pdf" || run.trustsPDFNames, publisher.exists(expected) { return expected }
        guard let bytes = try store.blob(hash: hash) else { return nil }
        // What the bytes are decides, so that no file in media/ is ever
        // an active document, whatever the forum called it.
        let sniffed = InertMedia.sniffed(bytes, declared: declared)
        let path = SitePaths.media(hash: hash, extension: sniffed)
        if !run.trustsPDFNames, sniffed != "pdf", InertMedia.isPDF(bytes) {
            // Kept as `.pdf` by an older release, it is `.bin` now.
            try publisher.remove(SitePaths.media(hash: hash, extension: "pdf"))
        }
        // Asked again only when the bytes chose another name: in a full
        // build at 100k posts, 25,520 of the 26,911 media paths were looked
        // for twice under the same name (`strace`), every time in vain.
        if !once, path != expected, publisher.exists(path) { return path }
        // Where media are not trusted by name (a first build stopped part
        // way), the file there may already hold these bytes.
        guard try publisher.write(bytes, to: path) else {
            if !once { run.report.unchanged += 1 }
            return path
        }
        run.report.mediaFiles += 1
        run.report.written += 1
        return path
    }

    private func copyAssets(run: BuildRun) throws(ArchiveError) {
        for (relative, data) in templates.files where relative.hasPrefix("assets/") {
            guard let data else {
                throw .templates(path: templates.directory.path, reason: "\(relative) cannot be read")
            }
            try file(relative, SearchClient.asset(relative, data), run: run)
        }
    }

    // MARK: Context every page gets

    /// Relative root, title, breadcrumbs, asset links and the board sidebar.
    /// `board` marks the current board in the sidebar.
    /// The forum's words as the templates read them, with the zone as
    /// the site calls it.
    var forumWords: ForumWordsView {
        ForumWordsView(forum: options.forum, timeZone: templates.strings.zoneName(options.forum.time))
    }

    func common(
        path: String, title: String, page: Int = 1, crumbs: [(String, String)], board: String? = nil, run: BuildRun
    ) throws(ArchiveError) -> PageChrome {
        let root = SitePaths.relative(from: path, to: "")
        func link(_ target: String) -> String { SitePaths.relative(from: path, to: target) }
        return PageChrome(
            root: root, home: link(SitePaths.home), hotHref: link(SitePaths.hot), lookupHref: link(SitePaths.lookup),
            feedHref: link(SitePaths.feed), searchHref: link(SitePaths.search), searchBoard: board,
            stylesheet: link(SitePaths.stylesheet),
            bootScript: link(SitePaths.bootScript), siteScript: link(SitePaths.siteScript), icon: link(SitePaths.icon),
            pageTitle: title, pageNumber: page > 1 ? page : nil, siteTitle: options.wording.siteTitle,
            forum: forumWords, version: BBSArchiveVersion.version,
            crumbs: crumbs.map { CrumbView(label: $0.0, href: link($0.1)) },
            sidebar: try sidebar(root: root, board: board, run: run))
    }

    /// The sidebar's frame, rendered once per folder depth and current
    /// board (its links only depend on those), then reused by every page.
    /// Its boards are listed from `boards.js` (`buildBoardsScript`).
    private func sidebar(root: String, board: String?, run: BuildRun) throws(ArchiveError) -> String {
        let key = root + "\u{0}" + (board ?? "")
        if let cached = run.sidebars[key] { return cached }
        let html = try templates.render(
            "sidebar",
            SidebarView(
                board: board, home: root + SitePaths.home, hotHref: root + SitePaths.hot,
                lookupHref: root + SitePaths.lookup))
        run.sidebars[key] = html
        return html
    }

    /// A group of boards as the sidebar, the home page and section pages
    /// show it; `link` makes a site path relative to the page.
    static func groupView(
        _ group: SiteNavigation.Group, navigation: SiteNavigation, stats: [String: BoardStats] = [:],
        time: ForumTime, link: (String) -> String
    ) -> BoardGroupView {
        BoardGroupView(
            name: group.code == nil ? "" : group.name, isAll: group.code == nil && !navigation.hasSections,
            isOther: group.code == nil && navigation.hasSections, href: group.code.map { link(SitePaths.section($0)) },
            boards: group.boards.map { board in
                let range = stats[board.name].flatMap { stats in
                    stats.first.flatMap { first in stats.last.map { (first, $0) } }
                }
                return BoardGroupView.Board(
                    name: board.name, title: board.title ?? board.name, href: link(SitePaths.board(board.name)),
                    threads: board.threadCount, posts: board.postCount, from: range.map { time.day($0.0) },
                    to: range.map { time.day($0.1) })
            })
    }

    /// An absolute address under `--site-url`, or `nil` without one.
    func absolute(_ path: String) -> String? {
        guard let base = SiteBuilder.normalizedSiteURL(options.siteURL) else { return nil }
        return base + (path == SitePaths.home ? "" : path)
    }

    /// `https://example.org/smth` → `https://example.org/smth/`; `nil` for
    /// anything that is not an absolute http(s) address.
    package static func normalizedSiteURL(_ text: String?) -> String? {
        guard let text, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil, url.query == nil, url.fragment == nil
        else { return nil }
        return text.hasSuffix("/") ? text : text + "/"
    }

    /// A thread's start as shown in lists: the exact time when its first
    /// post is archived, only the day when it was deleted on the forum
    /// (board lists give older threads' days only).
    static func threadStart(_ thread: StoredThread, time: ForumTime) -> String {
        thread.firstPostArchived ? time.display(thread.postedAt) : time.day(thread.postedAt)
    }

    /// Text fit for HTML and XML: C0 control characters (such as the ESC of
    /// a colour code a post may carry) are not allowed in either.
    static func displayable(_ text: String) -> String {
        // A byte scan: in UTF-8 a byte below 0x20 is that control character and nothing else.
        guard text.utf8.contains(where: { $0 < 0x20 && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\n") }) else {
            return text
        }
        return String(
            String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\t" || $0 == "\n" }))
    }
}

/// The mutable state of one build task: what was written, the sidebars
/// already rendered, the pages for the sitemap, and the running selections
/// for the home page, hot topics and feeds. Each task of a build writes
/// only its own run (`fork()`); the runs are merged in a fixed order when
/// the tasks are done (`absorb(_:)`). A task reads the run it was forked
/// from, which nothing writes while tasks run: hence `@unchecked`.
final class BuildRun: @unchecked Sendable {
    var report = SiteBuilder.Report()
    let navigation: SiteNavigation
    var sidebars: [String: String] = [:]
    /// What changed since the last build; `nil` renders everything.
    var changes: BuildChanges?
    /// How many list pages each board had at the last build, and has now.
    var previousBoardPages: [String: Int] = [:]
    var boardPages: [String: Int] = [:]
    /// Users whose archive has fewer pages than the files left from before
    /// (`BuildState.shrunkUserPages`), at the last build and now, and the
    /// users whose pages this build rendered.
    var previousShrunkUserPages: [String: Int] = [:]
    var shrunkUserPages: [String: Int] = [:]
    var builtUsers: Set<String> = []
    /// What each hot page showed at the last build and shows now
    /// (`BuildState.hotPages`).
    var previousHotPages: [String: String] = [:]
    var hotPages: [String: String] = [:]
    /// Most replied threads of the whole archive.
    var hot: TopThreads
    /// The first threads of the whole archive by archived posts, as many as
    /// the home page or a hot window shows (`chooseDigests`): read once.
    var mostPosts: [StoredThread] = []
    /// Most recently active threads of the whole archive (home page and site feed).
    var recent: TopThreads
    /// What the home page says about each board.
    var boardStats: [String: BoardStats] = [:]
    /// Emoticon codes whose images are archived, and their site paths.
    var emoticons: [String: String] = [:]
    /// Whether a `.pdf` in `media/` was judged by this release's rules
    /// (`BuildState.mediaRules`), so that its name may be trusted.
    var trustsPDFNames = false
    /// What this build read of images the store had no facts of, recorded
    /// in the store at its end: one log shared by every task (a cache; see
    /// `ImageFactsLog`).
    let imageFacts: ImageFactsLog

    init(navigation: SiteNavigation, hot: TopThreads, recent: TopThreads, imageFacts: ImageFactsLog) {
        self.navigation = navigation
        self.hot = hot
        self.recent = recent
        self.imageFacts = imageFacts
    }

    init(navigation: SiteNavigation, options: SiteBuilder.Options) {
        self.navigation = navigation
        imageFacts = ImageFactsLog()
        hot = TopThreads(limit: max(options.hotTopics, options.homeHotTopics)) { a, b in
            (a.thread.postCount, a.thread.lastReplyAt, a.thread.gid) > (
                b.thread.postCount, b.thread.lastReplyAt, b.thread.gid
            )
        }
        recent = TopThreads(limit: max(options.homeRecentThreads, options.feedEntries)) { a, b in
            (a.thread.lastReplyAt, a.thread.gid) > (b.thread.lastReplyAt, b.thread.gid)
        }
    }
}

extension BuildRun {
    /// A run for one task of this build: the same navigation and
    /// selections' sizes, nothing yet written or chosen.
    func fork() -> BuildRun {
        let part = BuildRun(
            navigation: navigation, hot: hot.emptied(), recent: recent.emptied(), imageFacts: imageFacts)
        part.changes = changes
        part.previousBoardPages = previousBoardPages
        part.previousShrunkUserPages = previousShrunkUserPages
        part.emoticons = emoticons
        part.trustsPDFNames = trustsPDFNames
        return part
    }

    /// Adds what a task's run did, as if this run had done it next.
    func absorb(_ part: BuildRun) {
        report.pages += part.report.pages
        report.markdownFiles += part.report.markdownFiles
        report.mediaFiles += part.report.mediaFiles
        report.thumbnails += part.report.thumbnails
        report.thumbnailsCopied += part.report.thumbnailsCopied
        report.unreadableImages += part.report.unreadableImages
        report.imagesWithoutLibvips += part.report.imagesWithoutLibvips
        report.feeds += part.report.feeds
        report.written += part.report.written
        report.unchanged += part.report.unchanged
        report.skippedThreads += part.report.skippedThreads
        report.skippedUsers += part.report.skippedUsers
        boardPages.merge(part.boardPages) { _, new in new }
        shrunkUserPages.merge(part.shrunkUserPages) { _, new in new }
        builtUsers.formUnion(part.builtUsers)
        sidebars.merge(part.sidebars) { old, _ in old }
    }
}

/// One task run beside the caller's work (on a thread of its own, so it
/// never waits for a worker of the caller's `parallelMap`), or, when not
/// `inBackground`, right away on the caller's thread. `wait()` returns its
/// result, the same every time it is asked.
final class BackgroundTask: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result<Void, ArchiveError>?

    init(inBackground: Bool, _ body: @escaping @Sendable () throws(ArchiveError) -> Void) {
        guard inBackground else {
            result = Self.outcome(of: body)
            done.signal()
            return
        }
        let thread = Thread { [self] in
            let outcome = Self.outcome(of: body)
            lock.withLock { result = outcome }
            done.signal()
        }
        // As deep as the main thread's: rendering recurses through templates.
        thread.stackSize = 8 << 20
        thread.start()
    }

    private static func outcome(of body: () throws(ArchiveError) -> Void) -> Result<Void, ArchiveError> {
        do throws(ArchiveError) {
            try body()
            return .success(())
        } catch { return .failure(error) }
    }

    /// Waits until the task is done; throws what it threw.
    func wait() throws(ArchiveError) {
        done.wait()
        done.signal()  // so that the next wait returns at once
        if case .failure(let error) = lock.withLock({ result }) { throw error }
    }
}

/// The threads of a build's `parallelMap`: jobs (the items of one call),
/// each item run once by whichever worker claims it first. A call made from
/// a worker adds its job to the same pool (`current`), so nested calls
/// share the workers instead of running one after the other on the
/// caller's thread. A worker takes the newest job's items first (the inner
/// ones: a board is done before the next is started).
final class WorkerPool: @unchecked Sendable {
    /// The items of one `parallelMap`; `body` returns false when an item
    /// failed, after which no more of its items are started.
    final class Job: @unchecked Sendable {
        let count: Int
        /// Let go when the job is done: `parallelMap` hands in a closure
        /// that must not outlive it.
        var body: ((Int) -> Bool)?
        // Guarded by the pool's condition.
        var claimed = 0
        var finished = 0
        var stopped = false

        init(count: Int, body: @escaping (Int) -> Bool) {
            self.count = count
            self.body = body
        }

        var isDone: Bool { finished == claimed && (stopped || claimed == count) }
    }

    /// The pool the current thread works for, if it is one of its workers.
    @TaskLocal static var current: WorkerPool?

    private let condition = NSCondition()
    /// Jobs that may still have unclaimed items, oldest first.
    private var jobs: [Job] = []
    private var closed = false

    /// Runs `job` on `threads` threads (this one and `threads - 1` more),
    /// then ends them.
    static func run(_ job: Job, threads: Int) {
        let pool = WorkerPool()
        let group = DispatchGroup()
        for _ in 1..<max(1, threads) {
            group.enter()
            let thread = Thread {
                WorkerPool.$current.withValue(pool) { pool.work() }
                group.leave()
            }
            // As deep as the main thread's: rendering recurses through templates.
            thread.stackSize = 8 << 20
            thread.start()
        }
        WorkerPool.$current.withValue(pool) { pool.run(job) }
        pool.condition.withLock {
            pool.closed = true
            pool.condition.broadcast()
        }
        group.wait()
    }

    /// Adds `job`, works on it (and on the jobs of other workers while its
    /// last items are running elsewhere) until all its items are done.
    func run(_ job: Job) {
        condition.withLock {
            jobs.append(job)
            condition.broadcast()
        }
        while true {
            condition.lock()
            if job.isDone {
                jobs.removeAll { $0 === job }
                job.body = nil
                condition.unlock()
                return
            }
            // Its own items first, then another task's (the newest: the
            // items of a board under way); wait when there are none.
            guard let (next, index) = claim(preferring: job, newest: true) else {
                condition.wait()
                condition.unlock()
                continue
            }
            condition.unlock()
            perform(next, index)
        }
    }

    /// A worker's loop: items of any job until the pool is closed.
    private func work() {
        while true {
            condition.lock()
            guard let (job, index) = claim(preferring: nil, newest: false) else {
                if closed {
                    condition.unlock()
                    return
                }
                condition.wait()
                condition.unlock()
                continue
            }
            condition.unlock()
            perform(job, index)
        }
    }

    /// The next unclaimed item, of `preferred` if it has one, else of the
    /// `newest` job that has or the oldest; called with the condition's
    /// lock held. A free worker takes the oldest, so that while boards are
    /// left each worker renders one of its own (workers creating files in
    /// the same folder wait for each other: the kernel locks the folder for
    /// each), and joins the others' boards only when none are.
    private func claim(preferring preferred: Job?, newest: Bool) -> (Job, Int)? {
        jobs.removeAll { $0.stopped || $0.claimed == $0.count }
        let own = preferred.flatMap { preferred in jobs.contains { $0 === preferred } ? preferred : nil }
        guard let job = own ?? (newest ? jobs.last : jobs.first) else { return nil }
        job.claimed += 1
        return (job, job.claimed - 1)
    }

    private func perform(_ job: Job, _ index: Int) {
        // Nothing clears `body` before this item is counted finished.
        let succeeded = job.body?(index) ?? false
        condition.withLock {
            job.finished += 1
            if !succeeded { job.stopped = true }
            if job.isDone { condition.broadcast() }
        }
    }
}

/// The results of a build's parallel tasks, each set once by the task that
/// made it; the lock guards the slots, not the work.
final class TaskResults<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<Value, ArchiveError>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<Value, ArchiveError>) { lock.withLock { slots[index] = result } }

    /// Every value in order, or the first error (by index).
    func collect() throws(ArchiveError) -> [Value] {
        var values: [Value] = []
        for slot in lock.withLock({ slots }) {
            switch slot {
            case .success(let value): values.append(value)
            case .failure(let error): throw error
            case nil: throw .outputUnwritable(path: "", reason: "a build task did not finish")
            }
        }
        return values
    }
}

/// Writes something more from the store into the site at the end of a
/// build, such as a search index. `changes` is what changed since the
/// last build (`nil`: everything), so a writer can follow the same rule as
/// the pages: cost proportional to the change.
package protocol BuildWriter: Sendable {
    func write(changes: BuildChanges?, store: ArchiveStore, publisher: any SitePublisher) throws(ArchiveError)
}

/// A board's figures for the home and section pages.
struct BoardStats {
    var first: Date?
    var last: Date?
}

/// What a build leaves in the output folder for the next one.
struct BuildState: Codable {
    static let path = ".bbsarchive-build.json"

    var fingerprint: String
    /// When that build started (Unix seconds).
    var builtAt: Double
    /// The store's last logged change that build rendered (absent in
    /// folders built before changes were logged: then all is rendered).
    var changeSeq: Int64?
    /// How many list pages each board had.
    var boardPages: [String: Int]?
    /// Users with user pages left past the end of their archive (a post
    /// went away), and how many pages it has (-1: no posts at all). The
    /// files do not tell these users' page count; the others' they do.
    var shrunkUserPages: [String: Int]?
    /// What each hot page shows (`SiteBuilder.hotPageKey`), so that the
    /// next build renders only those whose cards changed.
    var hotPages: [String: String]?
    /// Each board's `SiteBuilder.boardMarks` (absent in folders built
    /// before the boards left the fingerprint: then all is rendered).
    var boards: [String: String]?
    /// The rules its media were judged by (`SiteBuilder.mediaRules`;
    /// absent before PDFs were read: 1).
    var mediaRules: Int?
    /// The boot that build ran in, when it left files to the kernel
    /// instead of flushing them (`SitePublisher.settle`); absent when it
    /// flushed everything it wrote before it wrote this.
    var unflushedBoot: String?

    /// A state read from its bytes; nil when there are none or they cannot be read.
    static func decoded(_ data: Data?) -> BuildState? {
        data.flatMap { try? JSONDecoder().decode(BuildState.self, from: $0) }
    }

    /// The part of a state that says whether it may be trusted.
    struct Mark: Decodable {
        var unflushedBoot: String?

        /// A state's mark; nil when there is no state or it cannot be read.
        init?(_ data: Data?) {
            guard let data, let mark = try? JSONDecoder().decode(Mark.self, from: data) else { return nil }
            self = mark
        }

        /// Whether the files of the builds before are all there, whole, in
        /// `boot`: its build flushed them before it wrote the state, or it
        /// ran in this boot. A state left by a build of another boot (the
        /// kernel may have lost its files with the boot: a power cut, a
        /// crash of the system) is not trusted.
        func trusted(in boot: String?) -> Bool { unflushedBoot == nil || unflushedBoot == boot }
    }

    /// Whether a state's bytes (`data`) may be trusted in `boot` (`Mark`);
    /// one that cannot be read may not.
    static func trusted(_ data: Data?, in boot: String?) -> Bool { Mark(data)?.trusted(in: boot) ?? false }

    func save(to publisher: any SitePublisher) throws(ArchiveError) {
        guard let data = try? JSONEncoder().encode(self) else { return }
        try publisher.write(data, to: Self.path)
    }
}

extension SiteBuilder.Options {
    /// The options as `"\(options)"` prints them, for the build's
    /// fingerprint, written out field by field: the standard library's
    /// printing reflects over every value and asks the runtime, for each
    /// type, whether it conforms to the printing protocols, and each first
    /// question scans every conformance record of the static binary. That
    /// was 3.3 % of the CPU of a build after one reply (3.6 ms), the same
    /// in a build with nothing to do. The text, and so the fingerprint, is
    /// the same byte for byte (`SiteBuilderFingerprintTests` compares them):
    /// a field added to any of these types must be added here too.
    var fingerprintText: String {
        func quoted(_ text: String) -> String { text.debugDescription }
        func optional(_ value: String?) -> String { value.map { "Optional(\(quoted($0)))" } ?? "nil" }
        func optional(_ value: Int?) -> String { value.map { "Optional(\($0))" } ?? "nil" }
        let wording = forum.wording
        let time = forum.time
        let lookup = forum.lookup
        let rules = lookup.rules.map { rule in
            "BBSArchive.LookupRule(part: BBSArchive.LookupRule.Part.\(rule.part.rawValue), pattern: \(quoted(rule.pattern)), "
                + "board: \(rule.board), gid: \(optional(rule.gid)))"
        }
        let forms = lookup.forms.map { form in
            "BBSArchive.LookupRules.Form(label: \(quoted(form.label)), shape: \(quoted(form.shape)))"
        }
        // The conventions are a value of a type the forum chooses: printed
        // as the standard library prints it (a type without fields, a few
        // questions to the runtime).
        let profile =
            "BBSArchive.ForumProfile(wording: BBSArchive.SiteWording(siteTitle: \(quoted(wording.siteTitle)), "
            + "deletedAuthor: \(quoted(wording.deletedAuthor)), lookupExample: \(quoted(wording.lookupExample)), "
            + "forumName: \(quoted(wording.forumName))), time: BBSArchive.ForumTime(zone: \(quoted(time.zone)), "
            + "offsetSeconds: \(time.offsetSeconds), name: \(quoted(time.name))), "
            + "conventions: \(String(reflecting: forum.conventions)), lookup: BBSArchive.LookupRules(base: "
            + "\(quoted(lookup.base)), rules: [\(rules.joined(separator: ", "))], forms: [\(forms.joined(separator: ", "))]))"
        return "Options(threadsPerPage: \(threadsPerPage), postsPerPage: \(postsPerPage), "
            + "postsPerUserPage: \(postsPerUserPage), forum: \(profile), siteURL: \(optional(siteURL)), "
            + "hotTopics: \(hotTopics), hotPages: \(hotPages), homeHotTopics: \(homeHotTopics), "
            + "homeRecentThreads: \(homeRecentThreads), feedEntries: \(feedEntries), longQuoteLines: \(longQuoteLines), "
            + "incremental: \(incremental), workers: \(workers), boardPagesPerTask: \(boardPagesPerTask), "
            + "searchIndex: \(searchIndex))"
    }
}

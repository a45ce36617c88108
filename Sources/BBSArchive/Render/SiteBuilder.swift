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
        /// Threads in the list beside each thread on wide screens.
        package var threadListLength = 60
        package var postsPerPage = 20
        package var postsPerUserPage = 50
        package var siteTitle = "水木社区存档"
        /// Where the archive is published (`https://example.org/smth/`), for
        /// the sitemap and the feeds' absolute links. Without it there is no
        /// sitemap and the feeds link relative to themselves.
        package var siteURL: String?
        /// Hot topics on the hot page (cards) and on the home page.
        package var hotTopics = 48
        package var homeHotTopics = 10
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

        package init() {}
    }

    /// What a build did.
    package struct Report: Sendable, Equatable {
        package var pages = 0
        package var markdownFiles = 0
        package var mediaFiles = 0
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
    }

    package let store: ArchiveStore
    package let templates: TemplateSet
    package let publisher: any SitePublisher
    package let options: Options

    package init(
        store: ArchiveStore, templates: TemplateSet, publisher: any SitePublisher, options: Options = Options()
    ) {
        self.store = store
        self.templates = templates
        self.publisher = publisher
        self.options = options
    }

    package func build() throws(ArchiveError) -> Report {
        // The store's clock: the build's time is compared with the store's.
        let started = store.clock()
        let boards = try store.boards()
        let filing = try store.sectionFiling()
        let run = BuildRun(navigation: SiteNavigation(boards: boards, filing: filing), options: options)
        let fingerprint = self.fingerprint(boards: boards, filing: filing)
        if options.incremental, let previous = BuildState.load(from: publisher), previous.fingerprint == fingerprint {
            run.unchangedSince = Date(timeIntervalSince1970: previous.builtAt)
        }
        var lookup = LookupMap()
        for board in boards {
            let threads = try store.threads(board: board.name)
            try buildBoard(board, threads: threads, run: run)
            lookup.add(board: board, threads: threads)
        }
        let changedUsers = try run.unchangedSince.map { since throws(ArchiveError) in
            try store.usersWithChanges(since: since)
        }
        let postCounts = changedUsers == nil ? [:] : try store.postCountsByUser()
        for user in try store.users() {
            if let changedUsers, !changedUsers.contains(user), publisher.exists(SitePaths.user(user)) {
                let pages = max(
                    1, ((postCounts[user] ?? 0) + options.postsPerUserPage - 1) / max(1, options.postsPerUserPage))
                run.sitemapPaths += (1...pages).map { SitePaths.user(user, page: $0) }
                run.report.skippedUsers += 1
                continue
            }
            try buildUser(user, run: run)
        }
        try buildHome(run: run)
        try buildSections(run: run)
        try buildHot(run: run)
        try buildLookup(lookup, run: run)
        // Search (issue 9): the page and the index of the posts changed since the last build.
        try buildSearch(SearchChanges(since: run.unchangedSince, store: store), run: run)
        try buildNotFound(run: run)
        try buildSiteFeed(run: run)
        try buildSitemap(run: run)
        try markdown(
            SitePaths.markdownHome, HomeMarkdown.render(run.navigation, siteTitle: options.siteTitle), run: run)
        try copyAssets(run: run)
        // Written last: a build that stopped part way leaves the old state,
        // and the next build renders everything that changed since then.
        try BuildState(fingerprint: fingerprint, builtAt: started.timeIntervalSince1970).save(to: publisher)
        return run.report
    }

    /// Everything besides the store that every page depends on: the
    /// program's version, the options, the templates and assets, and the
    /// boards and sections in the sidebar. Any change rebuilds every page.
    private func fingerprint(boards: [StoredBoard], filing: StoredSectionFiling) -> String {
        var text = "bbsarchive \(BBSArchiveVersion.version)\n\(options)\n"
        for relative in templates.allFilePaths() {
            let data = FileManager.default.contents(atPath: templates.directory.appendingPathComponent(relative).path)
            text += "\(relative) \(data.map(SHA256.hex) ?? "-")\n"
        }
        for board in boards {
            text += "board \(board.name)|\(board.title ?? "")|\(board.source ?? "")|\(board.baseURL ?? "")\n"
        }
        for section in filing.sections { text += "section \(section.code)|\(section.name)|\(section.parent ?? "")\n" }
        for (board, section) in filing.boardSection.sorted(by: { $0.key < $1.key }) {
            text += "filed \(board)|\(section)\n"
        }
        return SHA256.hex(Data(text.utf8))
    }

    // MARK: Writing

    /// Renders a page template and writes it; `listed` pages go in the sitemap.
    func page(_ path: String, template: String, _ context: [String: Any], run: BuildRun, listed: Bool = true)
        throws(ArchiveError)
    {
        let html = try templates.render(template, context)
        count(try publisher.write(Data(html.utf8), to: path), in: run)
        run.report.pages += 1
        if listed { run.sitemapPaths.append(path) }
    }

    func markdown(_ path: String, _ text: String, run: BuildRun) throws(ArchiveError) {
        count(try publisher.write(Data(text.utf8), to: path), in: run)
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
        let path = SitePaths.media(
            hash: hash, extension: SitePaths.mediaExtension(mime: attachment.mime, name: attachment.name))
        if publisher.exists(path) { return path }
        guard let bytes = try store.blob(hash: hash) else { return nil }
        try publisher.write(bytes, to: path)
        run.report.mediaFiles += 1
        run.report.written += 1
        return path
    }

    private func copyAssets(run: BuildRun) throws(ArchiveError) {
        for relative in templates.assetPaths() {
            let source = templates.directory.appendingPathComponent(relative)
            guard let data = FileManager.default.contents(atPath: source.path) else {
                throw .templates(path: templates.directory.path, reason: "\(relative) cannot be read")
            }
            try file(relative, data, run: run)
        }
    }

    // MARK: Context every page gets

    /// Relative root, title, breadcrumbs, asset links and the board sidebar.
    /// `board` marks the current board in the sidebar.
    func common(path: String, title: String, crumbs: [(String, String)], board: String? = nil, run: BuildRun)
        throws(ArchiveError) -> [String: Any]
    {
        let root = SitePaths.relative(from: path, to: "")
        func link(_ target: String) -> String { SitePaths.relative(from: path, to: target) }
        return [
            "root": root,
            "home": link(SitePaths.home), "hotHref": link(SitePaths.hot), "lookupHref": link(SitePaths.lookup),
            "feedHref": link(SitePaths.feed), "searchHref": link(SitePaths.search), "searchBoard": board ?? false,
            "stylesheet": link(SitePaths.stylesheet), "bootScript": link(SitePaths.bootScript),
            "siteScript": link(SitePaths.siteScript), "icon": link(SitePaths.icon),
            "pageTitle": title, "siteTitle": options.siteTitle, "version": BBSArchiveVersion.version,
            "crumbs": crumbs.map { ["label": $0.0, "href": link($0.1)] },
            "sidebar": try sidebar(root: root, board: board, run: run),
        ]
    }

    /// The board sidebar, rendered once per folder depth and current board
    /// (its links only depend on those), then reused by every page.
    private func sidebar(root: String, board: String?, run: BuildRun) throws(ArchiveError) -> String {
        let key = root + "\u{0}" + (board ?? "")
        if let cached = run.sidebars[key] { return cached }
        let groups = run.navigation.groups.map { group -> [String: Any] in
            var context: [String: Any] = [
                "name": group.name,
                "boards": group.boards.map { item -> [String: Any] in
                    [
                        "name": item.name, "title": item.title ?? item.name,
                        "href": root + SitePaths.board(item.name), "isCurrent": item.name == board,
                    ]
                },
                "open": board == nil || group.boards.contains { $0.name == board },
            ]
            if let code = group.code { context["href"] = root + SitePaths.section(code) }
            return context
        }
        let html = try templates.render(
            "sidebar",
            [
                "groups": groups, "home": root + SitePaths.home, "hotHref": root + SitePaths.hot,
                "lookupHref": root + SitePaths.lookup,
            ])
        run.sidebars[key] = html
        return html
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
    static func threadStart(_ thread: StoredThread) -> String {
        thread.firstPostArchived ? BeijingTime.display(thread.postedAt) : BeijingTime.day(thread.postedAt)
    }

    static func floorLabel(_ floor: Int) -> String { floor == 0 ? "楼主" : "\(floor)楼" }

    /// Text fit for HTML and XML: C0 control characters (such as the ESC of
    /// a colour code a post may carry) are not allowed in either.
    static func displayable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" && $0 != "\n" }) else { return text }
        return String(
            String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\t" || $0 == "\n" }))
    }
}

/// The mutable state of one build: what was written, the sidebars already
/// rendered, the pages for the sitemap, and the running selections for the
/// home page, hot topics and feeds. Lives inside one `build()` call.
final class BuildRun {
    var report = SiteBuilder.Report()
    let navigation: SiteNavigation
    var sidebars: [String: String] = [:]
    var sitemapPaths: [String] = []
    /// Most replied threads of the whole archive.
    var hot: TopThreads
    /// Most recently active threads of the whole archive (home page and site feed).
    var recent: TopThreads
    /// What the home page says about each board.
    var boardStats: [String: BoardStats] = [:]
    /// When the last build of this folder, with the same templates and
    /// options, started; `nil` renders everything.
    var unchangedSince: Date?

    init(navigation: SiteNavigation, options: SiteBuilder.Options) {
        self.navigation = navigation
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

    static func load(from publisher: any SitePublisher) -> BuildState? {
        publisher.read(path).flatMap { try? JSONDecoder().decode(BuildState.self, from: $0) }
    }

    func save(to publisher: any SitePublisher) throws(ArchiveError) {
        guard let data = try? JSONEncoder().encode(self) else { return }
        try publisher.write(data, to: Self.path)
    }
}

import Foundation

/// The pages about the whole archive: home, sections, hot topics, user
/// pages, the original-link lookup and the 404 page.
extension SiteBuilder {
    func buildHome(run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.home
        var chrome = try common(path: path, title: options.wording.siteTitle, crumbs: [], run: run)
        chrome.isHome = true
        let boards = run.navigation.boards
        let firsts = boards.compactMap { run.boardStats[$0.name]?.first }
        let lasts = boards.compactMap { run.boardStats[$0.name]?.last }
        let view = HomePageView(
            chrome: chrome,
            stats: .init(
                boards: boards.count, threads: boards.reduce(0) { $0 + $1.threadCount },
                posts: boards.reduce(0) { $0 + $1.postCount }, from: firsts.min().map(options.forum.time.day),
                to: firsts.isEmpty ? nil : lasts.max().map(options.forum.time.day)),
            hot: run.hot.items.prefix(options.homeHotTopics).map { digestRow($0, path: path) },
            recent: run.recent.items.prefix(options.homeRecentThreads).map { digestRow($0, path: path) },
            groups: run.navigation.groups.map { groupView($0, path: path, run: run) },
            hasSections: run.navigation.hasSections)
        try page(path, template: "home", view, run: run)
    }

    /// `boards.js`, the sidebar's groups of boards (`BoardsScript`).
    func buildBoardsScript(run: BuildRun) throws(ArchiveError) {
        try file(SitePaths.boardsScript, BoardsScript.script(run.navigation), run: run)
    }

    /// A page per section, when the store knows sections.
    func buildSections(run: BuildRun) throws(ArchiveError) {
        for group in run.navigation.groups {
            guard let code = group.code else { continue }
            let path = SitePaths.section(code)
            var section = groupView(group, path: path, run: run)
            section.subsections = group.children.compactMap { run.navigation.group(code: $0) }.map { child in
                CrumbView(
                    label: child.name, href: SitePaths.relative(from: path, to: SitePaths.section(child.code ?? "")))
            }
            let view = SectionPageView(
                chrome: try common(
                    path: path, title: group.name,
                    crumbs: run.navigation.trail(section: code).compactMap { outer in
                        outer.code.map { (outer.name, SitePaths.section($0)) }
                    }, run: run),
                section: section)
            try page(path, template: "section", view, run: run)
        }
    }

    /// The hot topics' windows, by the archive's own activity: the day and
    /// the week before its latest reply, and all of it.
    enum HotWindow: CaseIterable {
        case today, week, all

        /// The window's name in its pages' file names; nil for all (`hot.html`).
        var slug: String? {
            switch self {
            case .today: "today"
            case .week: "week"
            case .all: nil
            }
        }

        var span: TimeInterval? {
            switch self {
            case .today: 86_400
            case .week: 7 * 86_400
            case .all: nil
            }
        }
    }

    /// Hot topics as cards: a window's most replied threads, `hotTopics` a
    /// page, at most `hotPages` pages. Rewritten by every build (a reply
    /// anywhere may move them); the windows end at the archive's latest
    /// reply, not at the clock, so the same store gives the same pages.
    func buildHot(windows: [HotWindow: [StoredThread]], run: BuildRun) throws(ArchiveError) {
        let perPage = max(1, options.hotTopics)
        let titles = Dictionary(
            run.navigation.boards.map { ($0.name, $0.title ?? $0.name) }, uniquingKeysWith: { first, _ in first })
        var digests: [String: ThreadDigest] = [:]
        for digest in run.hot.items { digests[SitePaths.thread(digest.thread.board, gid: digest.thread.gid)] = digest }
        // Every hot page is at the one depth, so has the one sidebar: hashed once.
        var sidebarHash: (sidebar: String, hash: String)?
        for window in HotWindow.allCases {
            // Read by `readTops`, at most `hotCards` a window.
            let threads = windows[window] ?? []
            let pages = max(1, (threads.count + perPage - 1) / perPage)
            // A page a fuller window left behind says it is empty now, not stale cards.
            let left = (pages + 1..<max(pages + 1, options.hotPages + 1)).filter {
                publisher.exists(SitePaths.hot(window: window.slug, page: $0))
            }
            // A page whose cards' rows read the same as at the last build,
            // none of their threads changed since, and whose sidebar is the
            // same, reads the same: it is not rendered again.
            var rendered: [(number: Int, path: String, chrome: PageChrome)] = []
            for number in Array(1...pages) + left {
                let path = SitePaths.hot(window: window.slug, page: number)
                let chrome = try common(path: path, title: "", page: number, crumbs: [], run: run)
                let cards = threads.dropFirst((number - 1) * perPage).prefix(perPage)
                if sidebarHash?.sidebar != chrome.sidebar {
                    sidebarHash = (chrome.sidebar, SHA256.hex(Data(chrome.sidebar.utf8)))
                }
                let key = Self.hotPageKey(cards, pages: pages, page: number, sidebar: sidebarHash?.hash ?? "")
                run.hotPages[path] = key
                if let changes = run.changes, run.previousHotPages[path] == key, publisher.exists(path),
                    !cards.contains(where: { changes.threads.contains(.init(board: $0.board, gid: $0.gid)) })
                {
                    continue
                }
                rendered.append((number, path, chrome))
            }
            // The cards not read yet, in one read.
            let shown = rendered.flatMap { threads.dropFirst(($0.number - 1) * perPage).prefix(perPage) }
            let unread = shown.filter { digests[SitePaths.thread($0.board, gid: $0.gid)] == nil }
            for digest in try self.digests(unread, boardTitle: { titles[$0] ?? $0 }) {
                digests[SitePaths.thread(digest.thread.board, gid: digest.thread.gid)] = digest
            }
            for (number, path, chrome) in rendered {
                var topics: [DigestRowView] = []
                for (offset, thread) in threads.enumerated().dropFirst((number - 1) * perPage).prefix(perPage) {
                    let key = SitePaths.thread(thread.board, gid: thread.gid)
                    guard var digest = digests[key] else { continue }
                    // The thread as this window's query read it.
                    digest.thread = thread
                    var row = digestRow(digest, path: path)
                    row.rank = offset + 1
                    topics.append(row)
                }
                var view = HotPageView(chrome: chrome, topics: topics)
                view.isToday = window == .today
                view.isWeek = window == .week
                view.isAll = window == .all
                view.windows = HotWindow.allCases.map { other in
                    HotPageView.Window(
                        href: SitePaths.relative(from: path, to: SitePaths.hot(window: other.slug, page: 1)),
                        isCurrent: other == window, isToday: other == .today, isWeek: other == .week)
                }
                if number <= pages {
                    view.pager = Pager.view(current: number, total: pages) {
                        SitePaths.relative(from: path, to: SitePaths.hot(window: window.slug, page: $0))
                    }
                }
                try page(path, template: "hot", view, run: run)
            }
        }
    }

    /// What a hot page shows, as a hash: its place among the window's
    /// pages, every field of its cards' rows as the window's query read
    /// them, and the sidebar (its hash: every hot page has the same one). The rest of a card (excerpt, picture) comes
    /// from its thread's posts, which the store logs as a change.
    static func hotPageKey(
        _ cards: ArraySlice<StoredThread>, pages: Int, page: Int, sidebar: String
    ) -> String {
        // The bytes of one line a card, its fields joined by U+0001, put
        // straight into one array of bytes: joining an array of Strings a
        // card took 4.2 M instructions of a build after one reply (432
        // cards), and appending to a `Data` 12 M.
        var text = Array("\(page)/\(pages)\n\(sidebar)\n".utf8)
        text.reserveCapacity(text.count + cards.count * 192)
        for thread in cards {
            let fields: [String] = [
                thread.board, String(thread.gid), thread.title, String(thread.sticky), String(thread.marked),
                thread.author ?? "\u{2}", thread.postedAt.timeIntervalSince1970.description,
                thread.lastReplier ?? "\u{2}", thread.lastReplyAt.timeIntervalSince1970.description,
                String(thread.postCount), String(thread.firstPostArchived),
                thread.changedAt.map(\.timeIntervalSince1970.description) ?? "-", thread.originalURL ?? "\u{2}",
            ]
            for (index, field) in fields.enumerated() {
                if index > 0 { text.append(1) }
                text.append(contentsOf: field.utf8)
            }
            text.append(UInt8(ascii: "\n"))
        }
        return SHA256.hex(Data(text))
    }

    func buildLookup(_ mapScript: Data, run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.lookup
        let view = LookupPageView(
            chrome: try common(path: path, title: "", crumbs: [], run: run),
            lookupMap: SitePaths.relative(from: path, to: SitePaths.lookupMap),
            lookupRules: SitePaths.relative(from: path, to: SitePaths.lookupRules),
            lookupScript: SitePaths.relative(from: path, to: SitePaths.lookupScript),
            example: try lookupExample(run: run) ?? options.wording.lookupExample,
            forms: LookupPageView.Form.list(options.forum.lookup.forms, strings: templates.strings))
        try page(path, template: "lookup", view, run: run)
        try file(SitePaths.lookupMap, mapScript, run: run)
        try file(SitePaths.lookupRules, LookupMap.rulesScript(options.forum), run: run)
    }

    /// The page a static host shows for a missing address. It may be served
    /// at any depth, so with `--site-url` it carries a `<base>` pointing at
    /// the archive's root; without one its links suit the root folder, and
    /// an inline script moves them to the root it finds.
    func buildNotFound(run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.notFound
        var chrome = try common(path: path, title: "", crumbs: [], run: run)
        chrome.base = absolute(SitePaths.home)
        if chrome.base == nil {
            // Without one, a script from the templates finds the root.
            let script = templates.directory.appendingPathComponent(SitePaths.findRootScript)
            if let data = FileManager.default.contents(atPath: script.path) {
                // In CDATA, so that the page stays well-formed XML.
                let text = "//<![CDATA[\n" + String(decoding: data, as: UTF8.self) + "//]]>"
                chrome.inlineScript = text
                chrome.inlineScriptHash = "sha256-" + Data(SHA256.digest(Data(text.utf8))).base64EncodedString()
            }
        }
        try page(path, template: "404", PlainPageView(chrome: chrome), run: run)
    }

    /// How many archive pages a user with `posts` posts has: none when the
    /// landing page shows them all.
    static func userArchivePages(posts: Int, perPage: Int) -> Int {
        posts > perPage ? (posts + perPage - 1) / perPage : 0
    }

    /// A user's pages, laid out like a board's so that one post rewrites
    /// few of them: `user/ID.html`, their newest posts with the count, and
    /// `user/ID-N.html`, all their posts by time, numbered from the oldest
    /// end. A new post changes the landing page and the page it falls on.
    /// The archive's pagers name no last page and no count, so a new page
    /// changes only the pagers that reach it (the ten pages before it).
    func buildUser(_ user: String, run: BuildRun) throws(ArchiveError) {
        let perPage = max(1, options.postsPerUserPage)
        let count = try store.postCount(byUser: user)
        run.builtUsers.insert(user)
        // A user whose last post went away has no page in a full build
        // either; should posts of theirs come back, all pages are rendered.
        guard count > 0 else {
            run.shrunkUserPages[user] = -1
            return
        }
        let total = Self.userArchivePages(posts: count, perPage: perPage)
        let landing = SitePaths.user(user)
        let threadPage = max(1, options.postsPerPage)
        func rows(_ posts: some Sequence<StoredUserPost>, path: String) -> [UserPostRowView] {
            posts.map { post in
                let target = SitePaths.thread(post.board, gid: post.gid, page: post.position / threadPage + 1)
                return UserPostRowView(
                    title: Self.displayable(post.threadTitle), board: post.board,
                    boardHref: SitePaths.relative(from: path, to: SitePaths.board(post.board)),
                    href: SitePaths.relative(from: path, to: target) + "#a\(post.floor)",
                    key: SitePaths.thread(post.board, gid: post.gid), floor: post.floor,
                    postedAt: options.forum.time.display(post.postedAt),
                    postedISO: options.forum.time.iso8601(post.postedAt))
            }
        }
        func archivePager(_ number: Int, total: Int) -> PagerView? {
            var pager = Pager.view(current: number, total: total) {
                SitePaths.relative(
                    from: SitePaths.userArchive(user, page: number), to: SitePaths.userArchive(user, page: $0))
            }
            pager?.lastPage = nil
            return pager
        }
        func shape(_ pager: PagerView?) -> [Int?] {
            guard let pager else { return [] }
            return pager.pages.map(\.number)
                + [pager.firstPage, pager.prevPage, pager.nextPage, pager.backJump, pager.forwardJump].map {
                    $0?.number
                }
        }
        // The archive pages before the one holding the earliest changed
        // post read the same, but for pagers that reach a page added or
        // gone. The files tell how many pages there were (the last one
        // there), unless pages were left past the end when it shrank.
        let after = publisher.exists(SitePaths.userArchive(user, page: total + 1))
        var before = run.previousShrunkUserPages[user]
        if before == nil, !after {
            var last = total
            while last > 0, !publisher.exists(SitePaths.userArchive(user, page: last)) { last -= 1 }
            before = last
        }
        if after { run.shrunkUserPages[user] = total }
        var first = 1
        if let since = run.changes?.usersSince[user], publisher.exists(landing), let before, before >= 0 {
            first = try store.postCount(byUser: user, before: since) / perPage + 1
            if before != total {
                let shared = min(before, total)
                let reaching = (1...max(1, shared)).first { number in
                    shape(archivePager(number, total: before)) != shape(archivePager(number, total: total))
                }
                first = max(1, min(first, reaching ?? shared + 1))
            }
        }

        var pager = Pager.view(current: total, total: total) {
            SitePaths.relative(from: landing, to: SitePaths.userArchive(user, page: $0))
        }
        if var latest = pager {
            // From the newest posts, every page of the archive is a link.
            for index in latest.pages.indices { latest.pages[index].isCurrent = false }
            latest.isLatest = true
            pager = latest
        }
        let userLink = UserLinkView(id: user, href: SitePaths.relative(from: landing, to: landing))
        try page(
            landing, template: "user",
            UserPageView(
                chrome: try common(path: landing, title: "", crumbs: [(user, landing)], run: run),
                user: userLink, isLatest: true, postCount: count,
                archiveHref: total > 0
                    ? SitePaths.relative(from: landing, to: SitePaths.userArchive(user, page: 1)) : nil,
                posts: rows(
                    try store.posts(byUser: user, limit: perPage, newestFirst: true, countedFrom: threadPage),
                    path: landing),
                pager: pager),
            run: run)
        guard first <= total else { return }
        let posts = try store.posts(byUser: user, offset: (first - 1) * perPage, countedFrom: threadPage)
        for number in first...total {
            let path = SitePaths.userArchive(user, page: number)
            let start = (number - first) * perPage
            var chrome = try common(path: path, title: "", crumbs: [(user, landing)], run: run)
            chrome.pageNumber = number
            try page(
                path, template: "user",
                UserPageView(
                    chrome: chrome, user: UserLinkView(id: user, href: SitePaths.relative(from: path, to: landing)),
                    isLatest: false, postCount: count, archiveHref: nil,
                    posts: rows(posts[min(posts.count, start)..<min(posts.count, start + perPage)], path: path),
                    pager: archivePager(number, total: total)),
                run: run)
        }
    }

    // MARK: Pieces

    /// The forum address of the first thread of the first board: the same
    /// from build to build, so a reply does not rewrite the lookup page.
    private func lookupExample(run: BuildRun) throws(ArchiveError) -> String? {
        try store.firstThreadOriginalURL()
    }

    private func groupView(_ group: SiteNavigation.Group, path: String, run: BuildRun) -> BoardGroupView {
        Self.groupView(group, navigation: run.navigation, stats: run.boardStats, time: options.forum.time) {
            SitePaths.relative(from: path, to: $0)
        }
    }

    func digestRow(_ digest: ThreadDigest, path: String) -> DigestRowView {
        let thread = digest.thread
        let target = SitePaths.thread(thread.board, gid: thread.gid)
        let time = options.forum.time
        return DigestRowView(
            title: Self.displayable(thread.title), href: SitePaths.relative(from: path, to: target), key: target,
            board: thread.board, boardTitle: digest.boardTitle,
            boardHref: SitePaths.relative(from: path, to: SitePaths.board(thread.board)), replies: thread.replies,
            posts: thread.postCount, sticky: thread.sticky, excerpt: digest.excerpt,
            postedAt: Self.threadStart(thread, time: time),
            postedISO: time.iso8601(thread.postedAt), lastReplyAt: time.display(thread.lastReplyAt),
            lastReplyISO: time.iso8601(thread.lastReplyAt),
            author: thread.author.map { UserLinkView(user: $0, from: path) },
            image: digest.image.map {
                DigestRowView.Image(
                    href: SitePaths.relative(from: path, to: $0), name: digest.imageAlt.map(Self.displayable) ?? "")
            })
    }
}

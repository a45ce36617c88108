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
                chrome: try common(path: path, title: group.name, crumbs: [(group.name, path)], run: run),
                section: section)
            try page(path, template: "section", view, run: run)
        }
    }

    func buildHot(run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.hot
        let topics = run.hot.items.prefix(options.hotTopics).enumerated().map { rank, digest in
            var row = digestRow(digest, path: path)
            row.rank = rank + 1
            return row
        }
        let view = HotPageView(chrome: try common(path: path, title: "", crumbs: [], run: run), topics: topics)
        try page(path, template: "hot", view, run: run)
    }

    func buildLookup(_ lookup: LookupMap, run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.lookup
        let view = LookupPageView(
            chrome: try common(path: path, title: "", crumbs: [], run: run),
            lookupMap: SitePaths.relative(from: path, to: SitePaths.lookupMap),
            lookupRules: SitePaths.relative(from: path, to: SitePaths.lookupRules),
            lookupScript: SitePaths.relative(from: path, to: SitePaths.lookupScript),
            example: try lookupExample(run: run) ?? options.wording.lookupExample,
            forms: LookupPageView.Form.list(options.forum.lookup.forms))
        try page(path, template: "lookup", view, run: run)
        try file(SitePaths.lookupMap, lookup.script(), run: run)
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

    func buildUser(_ user: String, run: BuildRun) throws(ArchiveError) {
        let posts = try store.posts(byUser: user)
        let perPage = max(1, options.postsPerUserPage)
        let total = max(1, (posts.count + perPage - 1) / perPage)
        let threadPage = max(1, options.postsPerPage)
        for number in 1...total {
            let path = SitePaths.user(user, page: number)
            let rows = posts.dropFirst((number - 1) * perPage).prefix(perPage).map { post in
                let target = SitePaths.thread(post.board, gid: post.gid, page: post.position / threadPage + 1)
                return UserPostRowView(
                    title: Self.displayable(post.threadTitle), board: post.board,
                    boardHref: SitePaths.relative(from: path, to: SitePaths.board(post.board)),
                    href: SitePaths.relative(from: path, to: target) + "#a\(post.floor)",
                    key: SitePaths.thread(post.board, gid: post.gid), floor: post.floor,
                    postedAt: options.forum.time.display(post.postedAt),
                    postedISO: options.forum.time.iso8601(post.postedAt))
            }
            let view = UserPageView(
                chrome: try common(
                    path: path, title: "", page: number, crumbs: [(user, SitePaths.user(user))], run: run),
                user: UserLinkView(id: user, href: SitePaths.relative(from: path, to: SitePaths.user(user))),
                postCount: posts.count, posts: rows,
                pager: Pager.view(current: number, total: total) {
                    SitePaths.relative(from: path, to: SitePaths.user(user, page: $0))
                })
            try page(path, template: "user", view, run: run)
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
            author: thread.author.map {
                UserLinkView(id: $0, href: SitePaths.relative(from: path, to: SitePaths.user($0)))
            },
            image: digest.image.map {
                DigestRowView.Image(
                    href: SitePaths.relative(from: path, to: $0), name: digest.imageAlt.map(Self.displayable) ?? "")
            })
    }
}

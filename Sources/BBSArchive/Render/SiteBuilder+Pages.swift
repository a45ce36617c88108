import Foundation

/// The pages about the whole archive: home, sections, hot topics, user
/// pages, the original-link lookup and the 404 page.
extension SiteBuilder {
    func buildHome(run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.home
        var context = try common(path: path, title: options.siteTitle, crumbs: [], run: run)
        let boards = run.navigation.boards
        let firsts = boards.compactMap { run.boardStats[$0.name]?.first }
        let lasts = boards.compactMap { run.boardStats[$0.name]?.last }
        var stats: [String: Any] = [
            "boards": boards.count, "threads": boards.reduce(0) { $0 + $1.threadCount },
            "posts": boards.reduce(0) { $0 + $1.postCount },
        ]
        if let first = firsts.min(), let last = lasts.max() {
            stats["from"] = BeijingTime.day(first)
            stats["to"] = BeijingTime.day(last)
        }
        context["stats"] = stats
        context["isHome"] = true
        context["hot"] = run.hot.items.prefix(options.homeHotTopics).map { digestRow($0, path: path) }
        context["recent"] = run.recent.items.prefix(options.homeRecentThreads).map { digestRow($0, path: path) }
        context["groups"] = run.navigation.groups.map { groupContext($0, path: path, run: run) }
        context["hasSections"] = run.navigation.hasSections
        try page(path, template: "home", context, run: run)
    }

    /// A page per section, when the store knows sections.
    func buildSections(run: BuildRun) throws(ArchiveError) {
        for group in run.navigation.groups {
            guard let code = group.code else { continue }
            let path = SitePaths.section(code)
            var context = try common(path: path, title: group.name, crumbs: [(group.name, path)], run: run)
            var about = groupContext(group, path: path, run: run)
            let children = group.children.compactMap { run.navigation.group(code: $0) }.map { child in
                ["name": child.name, "href": SitePaths.relative(from: path, to: SitePaths.section(child.code ?? ""))]
            }
            about["subsections"] = children
            about["hasSubsections"] = !children.isEmpty
            context["section"] = about
            try page(path, template: "section", context, run: run)
        }
    }

    func buildHot(run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.hot
        var context = try common(path: path, title: "热门话题", crumbs: [("热门话题", path)], run: run)
        context["topics"] = run.hot.items.prefix(options.hotTopics).enumerated().map { rank, digest in
            var row = digestRow(digest, path: path)
            row["rank"] = rank + 1
            return row
        }
        try page(path, template: "hot", context, run: run)
    }

    func buildLookup(_ lookup: LookupMap, run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.lookup
        var context = try common(path: path, title: "原帖链接查找", crumbs: [("原帖链接查找", path)], run: run)
        context["lookupMap"] = SitePaths.relative(from: path, to: SitePaths.lookupMap)
        context["lookupScript"] = SitePaths.relative(from: path, to: SitePaths.lookupScript)
        context["example"] = lookup.example ?? "https://m.newsmth.net/article/Geography/12345"
        try page(path, template: "lookup", context, run: run)
        try file(SitePaths.lookupMap, lookup.script(), run: run)
    }

    /// The page a static host shows for a missing address. It may be served
    /// at any depth, so with `--site-url` it carries a `<base>` pointing at
    /// the archive's root; without one its links suit the root folder.
    func buildNotFound(run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.notFound
        var context = try common(path: path, title: "页面不存在", crumbs: [], run: run)
        if let base = absolute(SitePaths.home) { context["base"] = base }
        try page(path, template: "404", context, run: run, listed: false)
    }

    func buildUser(_ user: String, run: BuildRun) throws(ArchiveError) {
        let posts = try store.posts(byUser: user)
        let perPage = max(1, options.postsPerUserPage)
        let total = max(1, (posts.count + perPage - 1) / perPage)
        let threadPage = max(1, options.postsPerPage)
        for number in 1...total {
            let path = SitePaths.user(user, page: number)
            var context = try common(
                path: path, title: "\(user) 的文章" + (number > 1 ? " · 第\(number)页" : ""),
                crumbs: [(user, SitePaths.user(user))], run: run)
            context["user"] = ["id": user, "posts": posts.count]
            context["posts"] = posts.dropFirst((number - 1) * perPage).prefix(perPage).map { post -> [String: Any] in
                let target = SitePaths.thread(post.board, gid: post.gid, page: post.position / threadPage + 1)
                return [
                    "title": Self.displayable(post.threadTitle), "board": post.board,
                    "boardHref": SitePaths.relative(from: path, to: SitePaths.board(post.board)),
                    "href": SitePaths.relative(from: path, to: target) + "#a\(post.floor)",
                    "key": SitePaths.thread(post.board, gid: post.gid),
                    "floorLabel": Self.floorLabel(post.floor),
                    "postedAt": BeijingTime.display(post.postedAt), "postedISO": BeijingTime.iso8601(post.postedAt),
                ]
            }
            context["pager"] = Pager.context(current: number, total: total) {
                SitePaths.relative(from: path, to: SitePaths.user(user, page: $0))
            }
            try page(path, template: "user", context, run: run)
        }
    }

    // MARK: Pieces

    private func groupContext(_ group: SiteNavigation.Group, path: String, run: BuildRun) -> [String: Any] {
        var context: [String: Any] = [
            "name": group.name,
            "boards": group.boards.map { board -> [String: Any] in
                var row: [String: Any] = [
                    "name": board.name, "title": board.title ?? board.name,
                    "href": SitePaths.relative(from: path, to: SitePaths.board(board.name)),
                    "threads": board.threadCount, "posts": board.postCount,
                ]
                if let stats = run.boardStats[board.name], let first = stats.first, let last = stats.last {
                    row["from"] = BeijingTime.day(first)
                    row["to"] = BeijingTime.day(last)
                }
                return row
            },
            "hasBoards": !group.boards.isEmpty,
        ]
        if let code = group.code { context["href"] = SitePaths.relative(from: path, to: SitePaths.section(code)) }
        return context
    }

    func digestRow(_ digest: ThreadDigest, path: String) -> [String: Any] {
        let thread = digest.thread
        let target = SitePaths.thread(thread.board, gid: thread.gid)
        var row: [String: Any] = [
            "title": Self.displayable(thread.title), "href": SitePaths.relative(from: path, to: target), "key": target,
            "board": thread.board, "boardTitle": digest.boardTitle,
            "boardHref": SitePaths.relative(from: path, to: SitePaths.board(thread.board)),
            "replies": thread.replies, "posts": thread.postCount, "sticky": thread.sticky,
            "excerpt": digest.excerpt, "hasExcerpt": !digest.excerpt.isEmpty,
            "postedAt": Self.threadStart(thread), "postedISO": BeijingTime.iso8601(thread.postedAt),
            "lastReplyAt": BeijingTime.display(thread.lastReplyAt),
            "lastReplyISO": BeijingTime.iso8601(thread.lastReplyAt),
        ]
        if let author = thread.author {
            row["author"] = ["id": author, "href": SitePaths.relative(from: path, to: SitePaths.user(author))]
        }
        if let image = digest.image {
            row["image"] = [
                "href": SitePaths.relative(from: path, to: image),
                "alt": "\(Self.displayable(thread.title)) 的配图：\(digest.imageAlt.map(Self.displayable) ?? "")",
            ]
        }
        return row
    }
}

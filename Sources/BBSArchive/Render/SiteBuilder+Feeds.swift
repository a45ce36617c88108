import Foundation

/// Atom feeds (per board and for the whole archive) and the sitemap, both
/// written through Mustache templates, so every value is escaped for XML.
extension SiteBuilder {
    /// The sitemap protocol's limit of addresses in one file.
    static let sitemapLimit = 50_000

    func buildSiteFeed(run: BuildRun) throws(ArchiveError) {
        try writeFeed(
            path: SitePaths.feed, title: options.wording.siteTitle, alternate: SitePaths.home, id: "site",
            entries: Array(run.recent.items.prefix(options.feedEntries)), run: run)
    }

    /// Writes one Atom feed. With `--site-url` every link is absolute;
    /// without it links are relative to the feed file (Atom resolves them
    /// against the feed's own address) and ids are `urn:bbsarchive:` names.
    /// An entry's id is the thread's address on the forum when known, so it
    /// stays the same whether or not the archive is published.
    func writeFeed(path: String, title: String, alternate: String, id: String, entries: [ThreadDigest], run: BuildRun)
        throws(ArchiveError)
    {
        func link(_ target: String) -> String { absolute(target) ?? SitePaths.relative(from: path, to: target) }
        let updated = entries.map(\.thread.lastReplyAt).max() ?? Date(timeIntervalSince1970: 0)
        let view = FeedView(
            id: absolute(path) ?? "urn:bbsarchive:\(SitePaths.component(id))", title: title,
            updated: options.forum.time.iso8601(updated), selfHref: link(path), alternate: link(alternate),
            siteTitle: options.wording.siteTitle, forum: forumWords,
            version: BBSArchiveVersion.version,
            entries: entries.map { digest in
                let thread = digest.thread
                return FeedView.Entry(
                    id: digest.original ?? "urn:bbsarchive:thread:\(SitePaths.component(thread.board)):\(thread.gid)",
                    title: Self.displayable(thread.title), updated: options.forum.time.iso8601(thread.lastReplyAt),
                    published: options.forum.time.iso8601(thread.postedAt), author: thread.author,
                    authorHref: thread.author.map { link(SitePaths.user($0)) },
                    href: link(SitePaths.thread(thread.board, gid: thread.gid)), board: thread.board,
                    boardTitle: digest.boardTitle,
                    summary: digest.excerpt.isEmpty ? Self.displayable(thread.title) : digest.excerpt)
            })
        try file(path, Data(try templates.bytes("feed", view)), run: run)
        run.report.feeds += 1
    }

    /// `sitemap.xml` with the absolute address of every page (thread
    /// filters left out); over 50,000 pages, a sitemap index of several.
    /// Needs `--site-url`: a sitemap of relative addresses is not valid.
    /// Its list comes from the store's counts, not from what this build
    /// rendered, so an incremental build writes the same one.
    func buildSitemap(boards: [StoredBoard], run: BuildRun) throws(ArchiveError) {
        guard absolute(SitePaths.home) != nil else { return }
        var paths = [SitePaths.home, SitePaths.hot, SitePaths.lookup]
        paths += run.navigation.groups.compactMap { $0.code.map(SitePaths.section) }
        let postsPerPage = max(1, options.postsPerPage)
        let counts = try store.postCountsByThread()
        for board in boards {
            let threads = counts[board.name] ?? []
            let listPages = max(
                1, (threads.count + max(1, options.threadsPerPage) - 1) / max(1, options.threadsPerPage))
            paths.append(SitePaths.board(board.name))
            paths += (1...listPages).map { SitePaths.boardArchive(board.name, page: $0) }
            for (gid, posts) in threads {
                paths += (1...max(1, (posts + postsPerPage - 1) / postsPerPage)).map {
                    SitePaths.thread(board.name, gid: gid, page: $0)
                }
            }
        }
        let perUserPage = max(1, options.postsPerUserPage)
        for (user, posts) in try store.postCountsByUser().sorted(by: { $0.key < $1.key }) {
            paths.append(SitePaths.user(user))
            paths += (0..<SiteBuilder.userArchivePages(posts: posts, perPage: perUserPage)).map {
                SitePaths.userArchive(user, page: $0 + 1)
            }
        }
        let chunks = stride(from: 0, to: paths.count, by: Self.sitemapLimit).map {
            Array(paths[$0..<min($0 + Self.sitemapLimit, paths.count)])
        }
        func urlset(_ chunk: [String]) throws(ArchiveError) -> Data {
            let urls = chunk.compactMap { path in absolute(path).map { LinkView(href: $0) } }
            return Data(try templates.bytes("sitemap", SitemapView(urls: urls)))
        }
        if chunks.count <= 1 {
            try file(SitePaths.sitemap, try urlset(chunks.first ?? []), run: run)
        } else {
            var parts: [LinkView] = []
            for (index, chunk) in chunks.enumerated() {
                let name = "sitemap-\(index + 1).xml"
                try file(name, try urlset(chunk), run: run)
                parts.append(LinkView(href: absolute(name) ?? name))
            }
            try file(
                SitePaths.sitemap, Data(try templates.bytes("sitemap-index", SitemapView(sitemaps: parts))),
                run: run)
        }
        run.report.sitemap = true
    }
}

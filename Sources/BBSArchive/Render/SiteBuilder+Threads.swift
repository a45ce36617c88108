import Foundation

/// Thread pages, their 只看此ID views, and the Markdown copy of each thread.
extension SiteBuilder {
    /// The thread's address on the forum, when it may be a link.
    static func originalLink(_ thread: StoredThread) -> String? {
        thread.originalURL.flatMap(SafeLink.external)
    }

    /// Where a thread stands among its board's threads by start: the
    /// threads started just before and just after it, and the list window
    /// (the `page-N.html` of the board) that holds it. None of it changes
    /// when other threads get replies.
    struct Placement: Sendable {
        var previous: StoredThread?
        var next: StoredThread?
        var window: Int
    }

    /// Writes every page of one thread, its author views and its Markdown.
    func buildThread(
        _ thread: StoredThread, board: StoredBoard, original: String?, placement: Placement, run: BuildRun
    ) throws(ArchiveError) {
        let posts = try store.posts(board: thread.board, gid: thread.gid)
        var mediaPaths: [String: String] = [:]
        var imageVariants: [String: ImageVariants] = [:]
        for attachment in posts.flatMap(\.attachments) where mediaPaths[attachment.url] == nil {
            guard let path = try saveMedia(attachment, run: run) else { continue }
            mediaPaths[attachment.url] = path
            imageVariants[attachment.url] = try self.imageVariants(attachment, original: path, run: run)
        }
        let perPage = max(1, options.postsPerPage)
        let total = max(1, (posts.count + perPage - 1) / perPage)
        let boardTitle = board.title ?? board.name
        let title = Self.displayable(thread.title)
        let threadPath = SitePaths.thread(thread.board, gid: thread.gid)

        // Who posted how often: 只看此ID gets a page of its own for an
        // author with several posts; a single post is its own view.
        var postsByAuthor: [String: [Int]] = [:]
        for (index, post) in posts.enumerated() { postsByAuthor[post.author, default: []].append(index) }
        // Every page of a thread (and every author view) is in the board's
        // folder, so one context per post serves them all.
        // The post's text is normalized and its body rendered once, then
        // shared by the thread's pages, its author views and its Markdown.
        // Colour codes stay in: the page shows them, the Markdown drops them.
        let bodies = posts.map { PostNormalizer.normalize($0.body, conventions: options.forum.conventions) }
        // 楼主: who started the thread (known even when the first post is gone).
        let threadAuthor = thread.author ?? posts.first(where: { $0.floor == 0 })?.author
        var contexts: [PostView] = []
        contexts.reserveCapacity(posts.count)
        for (index, post) in posts.enumerated() {
            contexts.append(
                try postContext(
                    post, body: bodies[index], index: index, perPage: perPage, path: threadPath, media: mediaPaths,
                    images: imageVariants,
                    authorPosts: postsByAuthor[post.author]?.count ?? 1, threadAuthor: threadAuthor,
                    emoticons: run.emoticons,
                    quoted: { author in
                        // A quote's header leads to the quoted author's latest post before this one.
                        guard let earlier = postsByAuthor[author]?.last(where: { $0 < index }) else { return nil }
                        return SitePaths.relative(
                            from: threadPath,
                            to: SitePaths.thread(thread.board, gid: thread.gid, page: earlier / perPage + 1))
                            + "#a\(posts[earlier].floor)"
                    }))
        }

        // 只看楼主 is 只看此ID for the opening poster; one post is its own view.
        let opTarget: String? = threadAuthor.flatMap { author in
            guard let indexes = postsByAuthor[author], let first = indexes.first else { return nil }
            if indexes.count > 1 { return SitePaths.authorView(thread.board, gid: thread.gid, author: author) }
            return SitePaths.thread(thread.board, gid: thread.gid, page: first / perPage + 1)
                + "#a\(posts[first].floor)"
        }
        func threadView(path: String, page: Int, items: [PostView]) throws(ArchiveError) -> ThreadPageView {
            // The tab's title names the board too.
            var chrome = try common(
                path: path, title: "\(title) · \(boardTitle)", page: page,
                crumbs: run.navigation.sectionCrumbs(board: board.name) + [
                    (boardTitle, SitePaths.board(board.name)), (title, threadPath),
                ], board: board.name, run: run)
            chrome.markdown = SitePaths.relative(
                from: path, to: SitePaths.threadMarkdown(thread.board, gid: thread.gid))
            chrome.boardFeed = SitePaths.relative(from: path, to: SitePaths.boardFeed(board.name))
            return ThreadPageView(
                chrome: chrome,
                thread: .init(
                    title: title, board: board.name, boardTitle: boardTitle, posts: posts.count,
                    boardHref: SitePaths.relative(from: path, to: SitePaths.board(board.name)),
                    href: SitePaths.relative(from: path, to: threadPath), key: threadPath, original: original,
                    opHref: opTarget.map { SitePaths.relative(from: path, to: $0) }),
                threadList: .init(
                    listHref: SitePaths.relative(
                        from: path, to: SitePaths.boardList(board.name, page: placement.window))
                        + "#" + SitePaths.listAnchor(gid: thread.gid),
                    boardTitle: boardTitle),
                authorView: nil, posts: items, pager: nil,
                previous: placement.previous.map { neighbour($0, from: path) },
                next: placement.next.map { neighbour($0, from: path) })
        }
        func neighbour(_ other: StoredThread, from path: String) -> ThreadPageView.Neighbour {
            .init(
                title: Self.displayable(other.title),
                href: SitePaths.relative(from: path, to: SitePaths.thread(other.board, gid: other.gid)))
        }

        // The first floor on each page, for the pager's jump to a floor.
        let pageFloors = stride(from: 0, to: posts.count, by: perPage).map { posts[$0].floor }
        for number in 1...total {
            let path = SitePaths.thread(thread.board, gid: thread.gid, page: number)
            var view = try threadView(
                path: path, page: number, items: Array(contexts.dropFirst((number - 1) * perPage).prefix(perPage)))
            view.pager = Pager.view(current: number, total: total) {
                SitePaths.relative(from: path, to: SitePaths.thread(thread.board, gid: thread.gid, page: $0))
            }
            view.pager?.jump = PageJumpView(pages: total, floors: pageFloors) {
                SitePaths.relative(from: path, to: SitePaths.thread(thread.board, gid: thread.gid, page: $0))
            }
            view.isLastPage = number == total
            // A thread whose first post is gone says so before its first reply.
            view.openingDeleted = number == 1 && !posts.isEmpty && !posts.contains { $0.floor == 0 }
            try page(path, template: "thread", view, capacity: Self.capacity(view.posts), run: run)
        }

        for (author, indexes) in postsByAuthor.sorted(by: { $0.key < $1.key }) where indexes.count > 1 {
            let pages = (indexes.count + perPage - 1) / perPage
            for number in 1...pages {
                let path = SitePaths.authorView(thread.board, gid: thread.gid, author: author, page: number)
                var view = try threadView(
                    path: path, page: number,
                    items: indexes.dropFirst((number - 1) * perPage).prefix(perPage).map { contexts[$0] })
                view.authorView = .init(
                    author: author, count: indexes.count,
                    authorHref: SitePaths.relative(from: path, to: SitePaths.user(author)))
                view.pager = Pager.view(current: number, total: pages) {
                    SitePaths.relative(
                        from: path, to: SitePaths.authorView(thread.board, gid: thread.gid, author: author, page: $0))
                }
                // A filtered copy of the thread: kept out of the sitemap.
                try page(path, template: "thread", view, capacity: Self.capacity(view.posts), run: run)
            }
        }

        let markdownPath = SitePaths.threadMarkdown(thread.board, gid: thread.gid)
        let document = ThreadMarkdown.document(
            thread: thread, boardTitle: boardTitle, posts: posts, bodies: bodies, original: original,
            forum: options.forum, strings: templates.strings,
            mediaLink: { url in mediaPaths[url].map { SitePaths.relative(from: markdownPath, to: $0) } })
        try markdown(markdownPath, document, run: run)

    }

    /// The bytes a thread page with `posts` is expected to take: the page
    /// around them, their bodies and what each post adds around its body.
    static func capacity(_ posts: [PostView]) -> Int {
        posts.reduce(16 * 1024) { $0 + $1.body.bytes.count + 1024 }
    }

    /// The opening of a normalized post as one short line of text, quotes left out.
    static func excerpt(_ body: PostBody, limit: Int = 120) -> String {
        excerpt(blocks: body.blocks, limit: limit)
    }

    private func postContext(
        _ post: StoredPost, body: PostBody, index: Int, perPage: Int, path: String, media: [String: String],
        images imageVariants: [String: ImageVariants], authorPosts: Int, threadAuthor: String?,
        emoticons: [String: String] = [:], quoted: (String) -> String?
    ) throws(ArchiveError) -> PostView {
        let permalink =
            SitePaths.relative(from: path, to: SitePaths.thread(post.board, gid: post.gid, page: index / perPage + 1))
            + "#a\(post.floor)"
        var images: [AttachmentView] = []
        var files: [AttachmentView] = []
        var missing: [AttachmentView] = []
        for attachment in post.attachments {
            let name = Self.displayable(attachment.name)
            guard let local = media[attachment.url] else {
                // The original address is a link only if it is a web address.
                missing.append(
                    AttachmentView(
                        name: name, href: SafeLink.external(attachment.url) ?? "", size: attachment.size ?? "",
                        author: post.author))
                continue
            }
            var item = AttachmentView(
                name: name, href: SitePaths.relative(from: path, to: local), size: attachment.size ?? "",
                author: post.author)
            if attachment.kind == .image, let variants = imageVariants[attachment.url] {
                item.show(variants, link: { SitePaths.relative(from: path, to: $0) })
            }
            if attachment.kind == .image { images.append(item) } else { files.append(item) }
        }
        let likes = post.likes.map { like in
            LikeView(
                score: like.score, user: like.user, message: Self.displayable(like.message),
                userHref: SitePaths.relative(from: path, to: SitePaths.user(like.user)),
                at: like.at.map { String(options.forum.time.display($0).prefix(16)) },
                atISO: like.at.map(options.forum.time.iso8601))
        }
        let blocks = body.blocks.map { blockView($0, emoticons: emoticons, path: path, quoted: quoted) }
        let content = PostBodyView(
            blocks: blocks,
            signature: (post.signature ?? "").isEmpty
                ? []
                : (post.signature ?? "").split(separator: "\n", omittingEmptySubsequences: false).map {
                    LineView(
                        segments: Self.segments(
                            String($0), conventions: options.forum.conventions, emoticons: emoticons, from: path))
                },
            images: images, files: files, missing: missing, likes: likes.isEmpty ? nil : LikesView(items: likes))
        return PostView(
            floor: post.floor, permalink: permalink, author: post.author,
            authorHref: SitePaths.relative(from: path, to: SitePaths.user(post.author)),
            // An author with one post has no view of their own to link to.
            onlyHref: authorPosts > 1
                ? SitePaths.relative(
                    from: path, to: SitePaths.authorView(post.board, gid: post.gid, author: post.author))
                : nil,
            authorPosts: authorPosts, postedAt: options.forum.time.display(post.postedAt),
            postedISO: options.forum.time.iso8601(post.postedAt),
            nick: post.nick.flatMap { $0.isEmpty ? nil : Self.displayable($0) }, ip: post.ip, editedBy: post.editedBy,
            forumDeletedAt: post.forumDeletedAt.map { String(options.forum.time.display($0).prefix(16)) },
            forumDeletedISO: post.forumDeletedAt.map(options.forum.time.iso8601),
            // Rendered (and escaped) by the post-body template, inserted as is.
            // A fragment kept until the thread is done: no page's worth reserved.
            body: RenderedMarkup(bytes: try templates.bytes("post-body", content, capacity: 1024)),
            isMono: blocks.contains(where: \.isArt),
            byThreadAuthor: post.author == threadAuthor)
    }

    /// `quoted`: the permalink of the quoted author's latest earlier post in the thread.
    private func blockView(
        _ block: PostBody.Block, emoticons: [String: String], path: String, quoted: (String) -> String?
    ) -> BlockView {
        switch block {
        case .text(let lines):
            return BlockView(
                isQuote: false,
                lines: lines.map {
                    LineView(
                        segments: Self.segments(
                            $0, conventions: options.forum.conventions, emoticons: emoticons, from: path))
                },
                isArt: TerminalArt.isArt(lines))
        case .quote(let header, let author, let lines):
            return BlockView(
                isQuote: true,
                lines: lines.map {
                    LineView(
                        segments: Self.segments(
                            $0.text, conventions: options.forum.conventions, emoticons: emoticons, from: path),
                        depth: $0.depth)
                },
                isLong: lines.count > options.longQuoteLines, header: header.map(InlineText.plain), author: author,
                headerHref: header == nil ? nil : author.flatMap(quoted))
        }
    }

    /// One line as template items: text, with its link and CSS classes.
    /// `emoticons`: the site paths of archived emoticon images by code,
    /// shown from `path`; an emoticon without one stays its code.
    static func segments(
        _ line: String, conventions: any PostConventions, emoticons: [String: String] = [:], from path: String = ""
    ) -> [LineView.Segment] {
        InlineText.segments(line, conventions: conventions).map { segment in
            LineView.Segment(
                text: segment.text, segHref: segment.link.flatMap(SafeLink.external),
                segClass: segment.classes.isEmpty ? nil : segment.classes,
                emSrc: segment.emoticon.flatMap { emoticons[$0] }.map { SitePaths.relative(from: path, to: $0) })
        }
    }

    /// The opening of a post as one short line of text, quotes left out.
    static func excerpt(blocks: [PostBody.Block], limit: Int) -> String {
        var words: [String] = []
        var length = 0
        for block in blocks {
            guard case .text(let lines) = block else { continue }
            for line in lines {
                let trimmed = InlineText.plain(line).trimmingBlanks
                guard !trimmed.isEmpty else { continue }
                words.append(trimmed)
                length += trimmed.count
                if length >= limit { break }
            }
            if length >= limit { break }
        }
        let text = words.joined(separator: " ")
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}

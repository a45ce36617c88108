import Foundation

/// Thread pages, their 只看此ID views, and the Markdown copy of each thread.
extension SiteBuilder {
    /// Writes every page of one thread; returns what lists of the whole
    /// archive show of it when `wantsDigest`.
    func buildThread(
        _ thread: StoredThread, board: StoredBoard, original: String?, run: BuildRun,
        wantsDigest: Bool
    ) throws(ArchiveError) -> ThreadDigest? {
        let posts = try store.posts(board: thread.board, gid: thread.gid)
        var mediaPaths: [String: String] = [:]
        for attachment in posts.flatMap(\.attachments) {
            if let path = try saveMedia(attachment, run: run) { mediaPaths[attachment.url] = path }
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
        let bodies = posts.map { PostNormalizer.normalize($0.body) }
        var contexts: [[String: Any]] = []
        contexts.reserveCapacity(posts.count)
        for (index, post) in posts.enumerated() {
            contexts.append(
                try postContext(
                    post, body: bodies[index], index: index, perPage: perPage, path: threadPath, media: mediaPaths,
                    authorPosts: postsByAuthor[post.author]?.count ?? 1))
        }

        func threadContext(path: String, pageTitle: String) throws(ArchiveError) -> [String: Any] {
            var context = try common(
                path: path, title: pageTitle,
                crumbs: [(boardTitle, SitePaths.board(board.name)), (title, threadPath)], board: board.name, run: run)
            var about: [String: Any] = [
                "title": title, "board": board.name, "boardTitle": boardTitle, "posts": posts.count,
                "boardHref": SitePaths.relative(from: path, to: SitePaths.board(board.name)),
                "href": SitePaths.relative(from: path, to: threadPath), "key": threadPath,
            ]
            if let original { about["original"] = original }
            context["thread"] = about
            context["markdown"] = SitePaths.relative(
                from: path, to: SitePaths.threadMarkdown(thread.board, gid: thread.gid))
            context["boardFeed"] = SitePaths.relative(from: path, to: SitePaths.boardFeed(board.name))
            context["threadList"] = [
                "listHref": SitePaths.relative(from: path, to: SitePaths.boardList(board.name)),
                "boardTitle": boardTitle,
            ]
            return context
        }

        for number in 1...total {
            let path = SitePaths.thread(thread.board, gid: thread.gid, page: number)
            var context = try threadContext(path: path, pageTitle: title + (number > 1 ? " · 第\(number)页" : ""))
            context["posts"] = Array(contexts.dropFirst((number - 1) * perPage).prefix(perPage))
            context["pager"] = Pager.context(current: number, total: total) {
                SitePaths.relative(from: path, to: SitePaths.thread(thread.board, gid: thread.gid, page: $0))
            }
            try page(path, template: "thread", context, run: run)
        }

        for (author, indexes) in postsByAuthor where indexes.count > 1 {
            let pages = (indexes.count + perPage - 1) / perPage
            for number in 1...pages {
                let path = SitePaths.authorView(thread.board, gid: thread.gid, author: author, page: number)
                var context = try threadContext(
                    path: path, pageTitle: "\(title) · 只看 \(author)" + (number > 1 ? " · 第\(number)页" : ""))
                context["authorView"] = [
                    "author": author, "count": indexes.count,
                    "authorHref": SitePaths.relative(from: path, to: SitePaths.user(author)),
                ]
                context["posts"] = indexes.dropFirst((number - 1) * perPage).prefix(perPage).map { contexts[$0] }
                context["pager"] = Pager.context(current: number, total: pages) {
                    SitePaths.relative(
                        from: path, to: SitePaths.authorView(thread.board, gid: thread.gid, author: author, page: $0))
                }
                // A filtered copy of the thread: kept out of the sitemap.
                try page(path, template: "thread", context, run: run, listed: false)
            }
        }

        let markdownPath = SitePaths.threadMarkdown(thread.board, gid: thread.gid)
        let text = ThreadMarkdown.render(
            thread: thread, boardTitle: boardTitle, posts: posts, bodies: bodies, original: original,
            mediaLink: { url in mediaPaths[url].map { SitePaths.relative(from: markdownPath, to: $0) } })
        try markdown(markdownPath, text, run: run)

        guard wantsDigest else { return nil }
        let opening = posts.first
        let image = opening?.attachments.first { $0.kind == .image && mediaPaths[$0.url] != nil }
        return ThreadDigest(
            thread: thread, boardTitle: boardTitle, excerpt: bodies.first.map { Self.excerpt($0) } ?? "",
            image: image.flatMap { mediaPaths[$0.url] }, imageAlt: image?.name, original: original)
    }

    /// The opening of a normalized post as one short line of text, quotes left out.
    static func excerpt(_ body: PostBody, limit: Int = 120) -> String {
        excerpt(blocks: body.blocks, limit: limit)
    }

    private func postContext(
        _ post: StoredPost, body: PostBody, index: Int, perPage: Int, path: String, media: [String: String],
        authorPosts: Int
    ) throws(ArchiveError) -> [String: Any] {
        let anchor = "a\(post.floor)"
        let permalink =
            SitePaths.relative(from: path, to: SitePaths.thread(post.board, gid: post.gid, page: index / perPage + 1))
            + "#" + anchor
        var context: [String: Any] = [
            "floor": post.floor, "floorLabel": Self.floorLabel(post.floor), "anchor": anchor, "permalink": permalink,
            "author": post.author, "authorHref": SitePaths.relative(from: path, to: SitePaths.user(post.author)),
            "onlyHref": authorPosts > 1
                ? SitePaths.relative(
                    from: path, to: SitePaths.authorView(post.board, gid: post.gid, author: post.author))
                : permalink,
            "authorPosts": authorPosts,
            "postedAt": BeijingTime.display(post.postedAt), "postedISO": BeijingTime.iso8601(post.postedAt),
        ]
        var content: [String: Any] = ["blocks": body.blocks.map(blockContext)]
        if let nick = post.nick, !nick.isEmpty { context["nick"] = Self.displayable(nick) }
        if let signature = post.signature, !signature.isEmpty {
            content["signature"] = signature.split(separator: "\n", omittingEmptySubsequences: false).map {
                ["segments": Self.segmentContexts(String($0))]
            }
            content["hasSignature"] = true
        }
        if !post.likes.isEmpty {
            content["likes"] = [
                "count": post.likes.count,
                "items": post.likes.map { like -> [String: Any] in
                    var item: [String: Any] = [
                        "score": like.score > 0 ? "+\(like.score)" : like.score < 0 ? "\(like.score)" : "",
                        "scoreClass": like.score > 0 ? "up" : like.score < 0 ? "down" : "none",
                        "user": like.user, "message": Self.displayable(like.message),
                        "userHref": SitePaths.relative(from: path, to: SitePaths.user(like.user)),
                    ]
                    if let at = like.at {
                        item["at"] = String(BeijingTime.display(at).prefix(16))
                        item["atISO"] = BeijingTime.iso8601(at)
                    }
                    return item
                },
            ]
        }
        if let ip = post.ip { context["ip"] = ip }
        if let editor = post.editedBy { context["editedBy"] = editor }
        var images: [[String: Any]] = []
        var files: [[String: Any]] = []
        var missing: [[String: Any]] = []
        for attachment in post.attachments {
            let name = Self.displayable(attachment.name)
            guard let local = media[attachment.url] else {
                // The original address is a link only if it is a web address.
                var item: [String: Any] = ["name": name, "size": attachment.size ?? ""]
                if let url = SafeLink.external(attachment.url) { item["url"] = url }
                missing.append(item)
                continue
            }
            let item: [String: Any] = [
                "name": name, "href": SitePaths.relative(from: path, to: local), "size": attachment.size ?? "",
                "alt": "\(post.author) 的图片：\(name)",
            ]
            if attachment.kind == .image { images.append(item) } else { files.append(item) }
        }
        content["images"] = images
        content["files"] = files
        content["missing"] = missing
        content["hasImages"] = !images.isEmpty
        content["hasFiles"] = !files.isEmpty
        content["hasMissing"] = !missing.isEmpty
        // Rendered (and escaped) by the post-body template, inserted as is.
        context["body"] = try templates.render("post-body", content)
        return context
    }

    private func blockContext(_ block: PostBody.Block) -> [String: Any] {
        switch block {
        case .text(let lines):
            return ["isText": true, "lines": lines.map { ["segments": Self.segmentContexts($0)] }]
        case .quote(let header, let author, let lines):
            var context: [String: Any] = [
                "isQuote": true,
                "lines": lines.map {
                    ["segments": Self.segmentContexts($0.text), "depth": $0.depth, "nested": $0.depth > 1]
                },
                "lineCount": lines.count,
                // Long quotes fold away (a <details>, so without JavaScript too).
                "isLong": lines.count > options.longQuoteLines,
            ]
            if let header { context["header"] = InlineText.plain(header) }
            if let author { context["author"] = author }
            return context
        }
    }

    /// One line as template items: text, with its link and CSS classes.
    static func segmentContexts(_ line: String) -> [[String: Any]] {
        InlineText.segments(line).map { segment in
            var item: [String: Any] = ["text": segment.text]
            if let link = segment.link.flatMap(SafeLink.external) { item["segHref"] = link }
            let classes = segment.classes
            if !classes.isEmpty { item["segClass"] = classes }
            return item
        }
    }

    /// The opening of a post as one short line of text, quotes left out.
    static func excerpt(blocks: [PostBody.Block], limit: Int) -> String {
        var words: [String] = []
        var length = 0
        for block in blocks {
            guard case .text(let lines) = block else { continue }
            for line in lines {
                let trimmed = InlineText.plain(line).trimmingCharacters(in: .whitespaces)
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

import Foundation

/// The render half of the pipeline: reads the store and writes the static
/// site (HTML through the Mustache templates, Markdown through cmark-gfm,
/// attachments from their content-addressed blobs).
///
/// Needs no network. Files whose bytes did not change are not rewritten.
public struct SiteBuilder: Sendable {
    public struct Options: Sendable {
        public var threadsPerPage = 30
        public var postsPerPage = 20
        public var postsPerUserPage = 50
        public var siteTitle = "水木社区存档"

        public init() {}
    }

    /// What a build did.
    public struct Report: Sendable, Equatable {
        public var pages = 0
        public var markdownFiles = 0
        public var mediaFiles = 0
        /// Files written because they were new or different.
        public var written = 0
        /// Files left alone because they were already identical.
        public var unchanged = 0
    }

    public let store: ArchiveStore
    public let templates: TemplateSet
    public let publisher: any SitePublisher
    public let options: Options

    public init(store: ArchiveStore, templates: TemplateSet, publisher: any SitePublisher, options: Options = Options())
    {
        self.store = store
        self.templates = templates
        self.publisher = publisher
        self.options = options
    }

    public func build() throws(ArchiveError) -> Report {
        var report = Report()
        let boards = try store.boards()
        var boardRows: [[String: Any]] = []
        for board in boards {
            let threads = try store.threads(board: board.name)
            for thread in threads {
                try buildThread(thread, board: board, report: &report)
            }
            try buildBoard(board, threads: threads, report: &report)
            boardRows.append(homeRow(board, threads: threads))
        }
        for user in try store.users() {
            try buildUser(user, report: &report)
        }
        try buildHome(boardRows, report: &report)
        try copyAssets(report: &report)
        return report
    }

    // MARK: Pages

    private func buildHome(_ rows: [[String: Any]], report: inout Report) throws(ArchiveError) {
        let path = SitePaths.home
        var context = common(path: path, title: options.siteTitle, crumbs: [])
        context["boards"] = rows
        context["boardCount"] = rows.count
        try page(path, template: "home", context, report: &report)
    }

    private func homeRow(_ board: StoredBoard, threads: [StoredThread]) -> [String: Any] {
        var row: [String: Any] = [
            "name": board.name, "title": board.title ?? board.name,
            "href": SitePaths.board(board.name), "threads": board.threadCount, "posts": board.postCount,
        ]
        if let first = threads.map(\.postedAt).min(), let last = threads.map(\.lastReplyAt).max() {
            row["from"] = BeijingTime.day(first)
            row["to"] = BeijingTime.day(last)
        }
        return row
    }

    private func buildBoard(_ board: StoredBoard, threads: [StoredThread], report: inout Report) throws(ArchiveError) {
        let perPage = options.threadsPerPage
        let total = max(1, (threads.count + perPage - 1) / perPage)
        for number in 1...total {
            let path = SitePaths.board(board.name, page: number)
            let slice = threads.dropFirst((number - 1) * perPage).prefix(perPage)
            var context = common(
                path: path,
                title: "\(board.title ?? board.name) (\(board.name))" + (number > 1 ? " · 第\(number)页" : ""),
                crumbs: [(board.title ?? board.name, SitePaths.board(board.name))])
            context["board"] = ["name": board.name, "title": board.title ?? board.name]
            context["markdown"] = SitePaths.relative(from: path, to: SitePaths.boardMarkdown(board.name))
            context["threads"] = slice.map { thread -> [String: Any] in
                var row: [String: Any] = [
                    "title": thread.title,
                    "href": SitePaths.relative(from: path, to: SitePaths.thread(board.name, gid: thread.gid)),
                    "replies": thread.replies, "sticky": thread.sticky, "marked": thread.marked,
                    "postedAt": Self.threadStart(thread), "postedISO": BeijingTime.iso8601(thread.postedAt),
                    "lastReplyAt": BeijingTime.display(thread.lastReplyAt),
                    "lastReplyISO": BeijingTime.iso8601(thread.lastReplyAt),
                ]
                if let author = thread.author {
                    row["author"] = ["id": author, "href": SitePaths.relative(from: path, to: SitePaths.user(author))]
                }
                if let last = thread.lastReplier {
                    row["lastReplier"] = ["id": last, "href": SitePaths.relative(from: path, to: SitePaths.user(last))]
                }
                return row
            }
            context["pager"] = Pager.context(current: number, total: total) {
                SitePaths.relative(from: path, to: SitePaths.board(board.name, page: $0))
            }
            try page(path, template: "board", context, report: &report)
        }
        try markdown(
            SitePaths.boardMarkdown(board.name), BoardMarkdown.render(board: board, threads: threads), report: &report)
    }

    private func buildThread(_ thread: StoredThread, board: StoredBoard, report: inout Report) throws(ArchiveError) {
        let posts = try store.posts(board: thread.board, gid: thread.gid)
        var mediaPaths: [String: String] = [:]
        for attachment in posts.flatMap(\.attachments) {
            if let path = try saveMedia(attachment, report: &report) { mediaPaths[attachment.url] = path }
        }
        let original = board.source.flatMap { try? ForumSources.make($0, baseURL: board.baseURL) }?
            .originalThreadURL(board: thread.board, gid: thread.gid)
        let perPage = options.postsPerPage
        let total = max(1, (posts.count + perPage - 1) / perPage)
        let boardTitle = board.title ?? board.name
        for number in 1...total {
            let path = SitePaths.thread(thread.board, gid: thread.gid, page: number)
            var context = common(
                path: path, title: thread.title + (number > 1 ? " · 第\(number)页" : ""),
                crumbs: [
                    (boardTitle, SitePaths.board(board.name)),
                    (thread.title, SitePaths.thread(thread.board, gid: thread.gid)),
                ])
            var about: [String: Any] = [
                "title": thread.title, "board": board.name, "boardTitle": boardTitle, "posts": posts.count,
            ]
            if let original { about["original"] = original }
            context["thread"] = about
            context["markdown"] = SitePaths.relative(
                from: path, to: SitePaths.threadMarkdown(thread.board, gid: thread.gid))
            context["posts"] = posts.dropFirst((number - 1) * perPage).prefix(perPage).map {
                postContext($0, path: path, media: mediaPaths)
            }
            context["pager"] = Pager.context(current: number, total: total) {
                SitePaths.relative(from: path, to: SitePaths.thread(thread.board, gid: thread.gid, page: $0))
            }
            try page(path, template: "thread", context, report: &report)
        }
        let markdownPath = SitePaths.threadMarkdown(thread.board, gid: thread.gid)
        let text = ThreadMarkdown.render(
            thread: thread, boardTitle: boardTitle, posts: posts, original: original,
            mediaLink: { url in mediaPaths[url].map { SitePaths.relative(from: markdownPath, to: $0) } })
        try markdown(markdownPath, text, report: &report)
    }

    private func postContext(_ post: StoredPost, path: String, media: [String: String]) -> [String: Any] {
        var context: [String: Any] = [
            "floor": post.floor, "floorLabel": post.floor == 0 ? "楼主" : "\(post.floor)楼",
            "anchor": "a\(post.floor)",
            "author": post.author, "authorHref": SitePaths.relative(from: path, to: SitePaths.user(post.author)),
            "postedAt": BeijingTime.display(post.postedAt), "postedISO": BeijingTime.iso8601(post.postedAt),
            "blocks": PostNormalizer.normalize(post.body).blocks.map(Self.blockContext),
        ]
        if let ip = post.ip { context["ip"] = ip }
        if let editor = post.editedBy { context["editedBy"] = editor }
        var images: [[String: Any]] = []
        var files: [[String: Any]] = []
        var missing: [[String: Any]] = []
        for attachment in post.attachments {
            guard let local = media[attachment.url] else {
                missing.append(["name": attachment.name, "url": attachment.url, "size": attachment.size ?? ""])
                continue
            }
            let item: [String: Any] = [
                "name": attachment.name, "href": SitePaths.relative(from: path, to: local),
                "size": attachment.size ?? "",
            ]
            if attachment.kind == .image { images.append(item) } else { files.append(item) }
        }
        context["images"] = images
        context["files"] = files
        context["missing"] = missing
        context["hasImages"] = !images.isEmpty
        context["hasFiles"] = !files.isEmpty
        context["hasMissing"] = !missing.isEmpty
        return context
    }

    /// When a thread started: to the second from its first post, or only
    /// the day when that post was deleted and the board list is all we have.
    static func threadStart(_ thread: StoredThread) -> String {
        thread.firstPostArchived ? BeijingTime.display(thread.postedAt) : BeijingTime.day(thread.postedAt)
    }

    private static func blockContext(_ block: PostBody.Block) -> [String: Any] {
        switch block {
        case .text(let lines):
            return ["isText": true, "lines": lines.map { ["text": $0] }]
        case .quote(let header, let author, let lines):
            var context: [String: Any] = [
                "isQuote": true, "lines": lines.map { ["text": $0.text, "depth": $0.depth, "nested": $0.depth > 1] },
            ]
            if let header { context["header"] = header }
            if let author { context["author"] = author }
            return context
        }
    }

    private func buildUser(_ user: String, report: inout Report) throws(ArchiveError) {
        let posts = try store.posts(byUser: user)
        let perPage = options.postsPerUserPage
        let total = max(1, (posts.count + perPage - 1) / perPage)
        let threadPage = options.postsPerPage
        for number in 1...total {
            let path = SitePaths.user(user, page: number)
            var context = common(path: path, title: "\(user) 的文章", crumbs: [(user, SitePaths.user(user))])
            context["user"] = ["id": user, "posts": posts.count]
            context["posts"] = posts.dropFirst((number - 1) * perPage).prefix(perPage).map { post -> [String: Any] in
                let target = SitePaths.thread(post.board, gid: post.gid, page: post.position / threadPage + 1)
                return [
                    "title": post.threadTitle, "board": post.board,
                    "href": SitePaths.relative(from: path, to: target) + "#a\(post.floor)",
                    "floorLabel": post.floor == 0 ? "楼主" : "\(post.floor)楼",
                    "postedAt": BeijingTime.display(post.postedAt), "postedISO": BeijingTime.iso8601(post.postedAt),
                ]
            }
            context["pager"] = Pager.context(current: number, total: total) {
                SitePaths.relative(from: path, to: SitePaths.user(user, page: $0))
            }
            try page(path, template: "user", context, report: &report)
        }
    }

    // MARK: Files

    /// Writes an attachment's bytes once under their hash; returns its path,
    /// or `nil` when its bytes were never fetched.
    private func saveMedia(_ attachment: StoredAttachment, report: inout Report) throws(ArchiveError) -> String? {
        guard let hash = attachment.hash else { return nil }
        let path = SitePaths.media(
            hash: hash, extension: SitePaths.mediaExtension(mime: attachment.mime, name: attachment.name))
        if publisher.exists(path) { return path }
        guard let bytes = try store.blob(hash: hash) else { return nil }
        try publisher.write(bytes, to: path)
        report.mediaFiles += 1
        report.written += 1
        return path
    }

    private func copyAssets(report: inout Report) throws(ArchiveError) {
        for relative in templates.assetPaths() {
            let source = templates.directory.appendingPathComponent(relative)
            guard let data = FileManager.default.contents(atPath: source.path) else {
                throw .templates(path: templates.directory.path, reason: "\(relative) cannot be read")
            }
            count(try publisher.write(data, to: relative), in: &report)
        }
    }

    private func page(_ path: String, template: String, _ context: [String: Any], report: inout Report)
        throws(ArchiveError)
    {
        let html = try templates.render(template, context)
        count(try publisher.write(Data(html.utf8), to: path), in: &report)
        report.pages += 1
    }

    private func markdown(_ path: String, _ text: String, report: inout Report) throws(ArchiveError) {
        count(try publisher.write(Data(text.utf8), to: path), in: &report)
        report.markdownFiles += 1
    }

    private func count(_ written: Bool, in report: inout Report) {
        if written { report.written += 1 } else { report.unchanged += 1 }
    }

    /// What every page template gets: relative root, title, breadcrumbs.
    private func common(path: String, title: String, crumbs: [(String, String)]) -> [String: Any] {
        [
            "root": SitePaths.relative(from: path, to: ""),
            "home": SitePaths.relative(from: path, to: SitePaths.home),
            "stylesheet": SitePaths.relative(from: path, to: SitePaths.stylesheet),
            "pageTitle": title, "siteTitle": options.siteTitle, "version": BBSArchiveVersion.version,
            "crumbs": crumbs.map { ["label": $0.0, "href": SitePaths.relative(from: path, to: $0.1)] },
        ]
    }
}

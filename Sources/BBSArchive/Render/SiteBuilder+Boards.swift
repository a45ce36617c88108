import Foundation

/// Board pages and, board by board, every thread page under them.
extension SiteBuilder {
    func buildBoard(_ board: StoredBoard, threads: [StoredThread], run: BuildRun) throws(ArchiveError) {
        let boardTitle = board.title ?? board.name
        let withFiles = try store.threadsWithAttachments(board: board.name)
        let perPage = max(1, options.threadsPerPage)
        let total = max(1, (threads.count + perPage - 1) / perPage)
        // The feed follows activity, whatever is pinned on page 1.
        let feedGids = Set(
            threads.sorted { ($0.lastReplyAt, $0.gid) > ($1.lastReplyAt, $1.gid) }.prefix(options.feedEntries).map(
                \.gid))
        var feed: [ThreadDigest] = []
        for number in 1...total {
            let path = SitePaths.board(board.name, page: number)
            let slice = Array(threads.dropFirst((number - 1) * perPage).prefix(perPage))
            var context = try common(
                path: path, title: "\(boardTitle) (\(board.name))" + (number > 1 ? " · 第\(number)页" : ""),
                crumbs: [(boardTitle, SitePaths.board(board.name))], board: board.name, run: run)
            context["board"] = [
                "name": board.name, "title": boardTitle, "threads": board.threadCount, "posts": board.postCount,
                "feed": SitePaths.relative(from: path, to: SitePaths.boardFeed(board.name)),
            ]
            context["boardFeed"] = SitePaths.relative(from: path, to: SitePaths.boardFeed(board.name))
            context["markdown"] = SitePaths.relative(from: path, to: SitePaths.boardMarkdown(board.name))
            context["threads"] = slice.map { boardRow($0, path: path, withFiles: withFiles) }
            context["pager"] = Pager.context(current: number, total: total) {
                SitePaths.relative(from: path, to: SitePaths.board(board.name, page: $0))
            }
            try page(path, template: "board", context, run: run)

            for thread in slice {
                let original = thread.originalURL
                let wantsDigest =
                    run.hot.wants(thread, boardTitle: boardTitle)
                    || run.recent.wants(thread, boardTitle: boardTitle) || feedGids.contains(thread.gid)
                let digest: ThreadDigest?
                if isUnchanged(thread, run: run) {
                    let pages = max(1, (thread.postCount + options.postsPerPage - 1) / max(1, options.postsPerPage))
                    run.sitemapPaths += (1...pages).map { SitePaths.thread(thread.board, gid: thread.gid, page: $0) }
                    run.report.skippedThreads += 1
                    digest =
                        wantsDigest
                        ? try self.digest(thread, boardTitle: boardTitle, original: original) : nil
                } else {
                    digest = try buildThread(
                        thread, board: board, original: original, run: run, wantsDigest: wantsDigest)
                }
                if let digest {
                    run.hot.offer(digest)
                    run.recent.offer(digest)
                    if feedGids.contains(thread.gid) { feed.append(digest) }
                }
            }
        }
        try buildThreadList(board, threads: threads, withFiles: withFiles, run: run)
        run.boardStats[board.name] = BoardStats(
            first: threads.map(\.postedAt).min(), last: threads.map(\.lastReplyAt).max())
        try markdown(
            SitePaths.boardMarkdown(board.name), BoardMarkdown.render(board: board, threads: threads), run: run)
        feed.sort { ($0.thread.lastReplyAt, $0.thread.gid) > ($1.thread.lastReplyAt, $1.thread.gid) }
        try writeFeed(
            path: SitePaths.boardFeed(board.name), title: "\(boardTitle) (\(board.name)) · \(options.siteTitle)",
            alternate: SitePaths.board(board.name), id: "board:\(board.name)", entries: feed, run: run)
    }

    private func boardRow(_ thread: StoredThread, path: String, withFiles: Set<Int>) -> [String: Any] {
        var row: [String: Any] = [
            "gid": thread.gid, "title": Self.displayable(thread.title),
            "href": SitePaths.relative(from: path, to: SitePaths.thread(thread.board, gid: thread.gid)),
            "key": SitePaths.thread(thread.board, gid: thread.gid),
            "replies": thread.replies, "sticky": thread.sticky, "marked": thread.marked,
            "hasFiles": withFiles.contains(thread.gid),
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

    /// What lists of the whole archive show of a thread whose pages are left
    /// as they are: read from its first post, without rendering the thread.
    private func digest(_ thread: StoredThread, boardTitle: String, original: String?) throws(ArchiveError)
        -> ThreadDigest
    {
        let opening = try store.posts(board: thread.board, gid: thread.gid).first
        var image: (path: String, name: String)?
        for attachment in opening?.attachments ?? [] where attachment.kind == .image {
            guard let hash = attachment.hash else { continue }
            let path = SitePaths.media(
                hash: hash, extension: SitePaths.mediaExtension(mime: attachment.mime, name: attachment.name))
            if publisher.exists(path) {
                image = (path, attachment.name)
                break
            }
        }
        return ThreadDigest(
            thread: thread, boardTitle: boardTitle,
            excerpt: opening.map { Self.excerpt(PostNormalizer.normalize($0.body)) } ?? "",
            image: image?.path, imageAlt: image?.name, original: original)
    }

    /// Whether nothing a thread's pages show changed since the last build:
    /// then they are left as they are. Times in the store are whole
    /// seconds, so a change in the second before that build counts too.
    private func isUnchanged(_ thread: StoredThread, run: BuildRun) -> Bool {
        guard let since = run.unchangedSince, let changed = thread.changedAt,
            changed.timeIntervalSince1970 + 1 < since.timeIntervalSince1970
        else { return false }
        return publisher.exists(SitePaths.thread(thread.board, gid: thread.gid))
    }

    /// The board's latest threads, shown in a frame beside every thread on
    /// wide screens. A page of its own, so that a thread's pages do not
    /// change when other threads move up or down the board.
    private func buildThreadList(_ board: StoredBoard, threads: [StoredThread], withFiles: Set<Int>, run: BuildRun)
        throws(ArchiveError)
    {
        let path = SitePaths.boardList(board.name)
        let boardTitle = board.title ?? board.name
        let rows = try threads.prefix(options.threadListLength).map { thread throws(ArchiveError) in
            try templates.render("threadlist-row", listRow(thread, path: path, withFiles: withFiles))
        }
        var context = try common(path: path, title: boardTitle, crumbs: [], board: board.name, run: run)
        context["boardTitle"] = boardTitle
        context["boardHref"] = SitePaths.relative(from: path, to: SitePaths.board(board.name))
        context["threadCount"] = threads.count
        context["rows"] = rows.joined(separator: "\n")
        try page(path, template: "threadlist", context, run: run, listed: false)
    }

    private func listRow(_ thread: StoredThread, path: String, withFiles: Set<Int>) -> [String: Any] {
        let target = SitePaths.thread(thread.board, gid: thread.gid)
        return [
            "title": Self.displayable(thread.title), "href": SitePaths.relative(from: path, to: target), "key": target,
            "author": thread.author ?? "原帖已删除", "replies": thread.replies, "sticky": thread.sticky,
            "marked": thread.marked, "hasFiles": withFiles.contains(thread.gid), "isCurrent": false,
            "lastReplyAt": BeijingTime.day(thread.lastReplyAt), "lastReplyISO": BeijingTime.iso8601(thread.lastReplyAt),
        ]
    }
}

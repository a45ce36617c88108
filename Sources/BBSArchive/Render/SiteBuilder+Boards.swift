import Foundation

/// Board pages and, board by board, every thread page under them.
extension SiteBuilder {
    /// A board's list pages, the pages of its threads that changed (all of
    /// them in a full build), its thread list frame, Markdown index and feed.
    ///
    /// The list has two parts, so that one reply rewrites few pages:
    /// `index.html`, the threads with the latest activity (sticky first),
    /// and `page-N.html`, every thread by when it was started, numbered from
    /// the oldest end. A reply changes its thread's row on the one page
    /// that holds it; new threads fill the newest page.
    func buildBoard(_ board: StoredBoard, threads: [StoredThread], run: BuildRun) throws(ArchiveError) {
        let boardTitle = board.title ?? board.name
        let withFiles = try store.threadsWithAttachments(board: board.name)
        let perPage = max(1, options.threadsPerPage)
        let byStart = threads.sorted { ($0.postedAt, $0.gid) < ($1.postedAt, $1.gid) }
        let total = max(1, (byStart.count + perPage - 1) / perPage)
        run.boardPages[board.name] = total
        let changed: Set<Int>? = run.changes.map { changes in
            Set(changes.threads.filter { $0.board == board.name }.map(\.gid))
        }
        @Sendable func slice(_ number: Int) -> ArraySlice<StoredThread> {
            byStart[min(byStart.count, (number - 1) * perPage)..<min(byStart.count, number * perPage)]
        }
        // When the number of pages changes, every pager changes with it.
        let allPages = changed == nil || run.previousBoardPages[board.name] != total
        let pages = (1...total).filter { number in
            allPages || !publisher.exists(SitePaths.boardArchive(board.name, page: number))
                || !publisher.exists(SitePaths.boardList(board.name, page: number))
                || slice(number).contains { changed?.contains($0.gid) ?? true }
        }
        // A thread's pages name the threads started just before and after
        // it: a new thread rewrites those two as well. (A reply elsewhere
        // moves nothing in this order.)
        let position = Dictionary(byStart.enumerated().map { ($1.gid, $0) }, uniquingKeysWith: { first, _ in first })
        @Sendable func placement(_ thread: StoredThread) -> Placement {
            let index = position[thread.gid] ?? 0
            return Placement(
                previous: index > 0 ? byStart[index - 1] : nil,
                next: index + 1 < byStart.count ? byStart[index + 1] : nil, window: index / perPage + 1)
        }
        var staleGids = Set(
            threads.filter { thread in
                changed.map { $0.contains(thread.gid) } ?? true
            }.map(\.gid))
        // A new title shows on the pages of the threads either side.
        let retitled = Set(run.changes?.retitled.filter { $0.board == board.name }.map(\.gid) ?? [])
        // (A full build renders every thread anyway: no file to look for.)
        for (index, thread) in byStart.enumerated()
        where changed != nil
            && (retitled.contains(thread.gid) || !publisher.exists(SitePaths.thread(thread.board, gid: thread.gid)))
        {
            staleGids.insert(thread.gid)
            if index > 0 { staleGids.insert(byStart[index - 1].gid) }
            if index + 1 < byStart.count { staleGids.insert(byStart[index + 1].gid) }
        }
        let stale = threads.filter { staleGids.contains($0.gid) }
        run.report.skippedThreads += threads.count - stale.count

        try buildBoardPage(
            board, number: nil, total: total, slice: Array(threads.prefix(perPage)), withFiles: withFiles, run: run)
        // Runs of pages and of threads render at the same time, each into a
        // run of its own, merged in order.
        let chunk = max(1, options.boardPagesPerTask)
        let pageChunks = stride(from: 0, to: pages.count, by: chunk).map {
            Array(pages[$0..<min(pages.count, $0 + chunk)])
        }
        let pageRuns = try parallelMap(pageChunks) { numbers throws(ArchiveError) in
            let part = run.fork()
            for number in numbers {
                try buildBoardPage(
                    board, number: number, total: total, slice: slice(number).reversed(), withFiles: withFiles,
                    run: part)
                try buildThreadList(
                    board, number: number, total: total, slice: slice(number).reversed(), withFiles: withFiles,
                    run: part)
            }
            return part
        }
        let threadChunk = chunk * perPage
        let threadChunks = stride(from: 0, to: stale.count, by: threadChunk).map {
            Array(stale[$0..<min(stale.count, $0 + threadChunk)])
        }
        let threadRuns = try parallelMap(threadChunks) { some throws(ArchiveError) in
            // One read transaction for the run's threads, not one per thread.
            try store.reading { () throws(ArchiveError) in
                let part = run.fork()
                for thread in some {
                    try buildThread(
                        thread, board: board, original: Self.originalLink(thread), placement: placement(thread),
                        run: part)
                }
                return part
            }
        }
        for part in pageRuns + threadRuns { run.absorb(part) }

        try markdown(
            SitePaths.boardMarkdown(board.name),
            BoardMarkdown.render(board: board, threads: threads, forum: options.forum), run: run
        )
        // The feed follows activity, whatever is pinned.
        let latest = threads.sorted { ($0.lastReplyAt, $0.gid) > ($1.lastReplyAt, $1.gid) }
        let feed = try digests(Array(latest.prefix(options.feedEntries))) { _ in boardTitle }
        try writeFeed(
            path: SitePaths.boardFeed(board.name),
            title: "\(boardTitle) (\(board.name)) · \(options.wording.siteTitle)",
            alternate: SitePaths.board(board.name), id: "board:\(board.name)", entries: feed, run: run)
    }

    /// The board's latest activity (`number` nil: `index.html`) or page
    /// `number` of all its threads by start.
    private func buildBoardPage(
        _ board: StoredBoard, number: Int?, total: Int, slice: [StoredThread], withFiles: Set<Int>, run: BuildRun
    ) throws(ArchiveError) {
        let boardTitle = board.title ?? board.name
        let path = number.map { SitePaths.boardArchive(board.name, page: $0) } ?? SitePaths.board(board.name)
        var chrome = try common(
            path: path, title: "\(boardTitle) (\(board.name))",
            crumbs: run.navigation.sectionCrumbs(board: board.name) + [(boardTitle, SitePaths.board(board.name))],
            board: board.name, run: run)
        chrome.pageNumber = number
        let feedLink = SitePaths.relative(from: path, to: SitePaths.boardFeed(board.name))
        chrome.boardFeed = feedLink
        chrome.markdown = SitePaths.relative(from: path, to: SitePaths.boardMarkdown(board.name))
        var pager = Pager.view(current: number ?? total, total: total) {
            SitePaths.relative(from: path, to: SitePaths.boardArchive(board.name, page: $0))
        }
        pager?.jump = PageJumpView(pages: total) {
            SitePaths.relative(from: path, to: SitePaths.boardArchive(board.name, page: $0))
        }
        if number == nil, var latest = pager {
            // From the latest activity, every page of the list is a link.
            for index in latest.pages.indices { latest.pages[index].isCurrent = false }
            latest.isLatest = true
            pager = latest
        }
        let view = BoardPageView(
            chrome: chrome,
            board: .init(
                name: board.name, title: boardTitle, threads: board.threadCount, posts: board.postCount,
                feed: feedLink, latestHref: SitePaths.relative(from: path, to: SitePaths.board(board.name))),
            isLatest: number == nil, threads: slice.map { boardRow($0, path: path, withFiles: withFiles) },
            pager: pager)
        try page(path, template: "board", view, run: run)
    }

    /// What lists of the whole archive show of each thread: read from its
    /// first post (all in one read), without rendering the thread.
    func digests(_ threads: [StoredThread], boardTitle: (String) -> String) throws(ArchiveError) -> [ThreadDigest] {
        let openings = try store.openingPosts(threads.map { .init(board: $0.board, gid: $0.gid) })
        return threads.map { thread in
            digest(
                thread, boardTitle: boardTitle(thread.board), original: Self.originalLink(thread),
                opening: openings[.init(board: thread.board, gid: thread.gid)])
        }
    }

    /// What lists of the whole archive show of a thread, given its first post.
    func digest(_ thread: StoredThread, boardTitle: String, original: String?, opening: StoredPost?) -> ThreadDigest {
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
            excerpt: opening.map {
                Self.excerpt(PostNormalizer.normalize($0.body, conventions: options.forum.conventions))
            } ?? "",
            image: image?.path, imageAlt: image?.name, original: original)
    }

    private func boardRow(_ thread: StoredThread, path: String, withFiles: Set<Int>) -> BoardRowView {
        let time = options.forum.time
        return BoardRowView(
            gid: thread.gid, title: Self.displayable(thread.title),
            href: SitePaths.relative(from: path, to: SitePaths.thread(thread.board, gid: thread.gid)),
            key: SitePaths.thread(thread.board, gid: thread.gid), replies: thread.replies, sticky: thread.sticky,
            marked: thread.marked, hasFiles: withFiles.contains(thread.gid),
            postedAt: Self.threadStart(thread, time: time),
            postedISO: time.iso8601(thread.postedAt), lastReplyAt: time.display(thread.lastReplyAt),
            lastReplyISO: time.iso8601(thread.lastReplyAt),
            author: thread.author.map { UserLinkView(user: $0, from: path) },
            lastReplier: thread.lastReplier.map { UserLinkView(user: $0, from: path) })
    }

    /// Window `number` of the board's threads by start, shown in a frame
    /// beside each of its threads on wide screens, the thread's row its
    /// target. A page of its own, and a window that only new threads and
    /// replies to its own threads change, so that a thread's pages do not
    /// change when other threads move.
    private func buildThreadList(
        _ board: StoredBoard, number: Int, total: Int, slice: [StoredThread], withFiles: Set<Int>,
        run: BuildRun
    ) throws(ArchiveError) {
        let path = SitePaths.boardList(board.name, page: number)
        let boardTitle = board.title ?? board.name
        let view = ThreadListPageView(
            chrome: try common(path: path, title: boardTitle, crumbs: [], board: board.name, run: run),
            boardTitle: boardTitle, boardHref: SitePaths.relative(from: path, to: SitePaths.board(board.name)),
            rows: slice.map { listRow($0, path: path, withFiles: withFiles) },
            newerHref: number < total
                ? SitePaths.relative(from: path, to: SitePaths.boardList(board.name, page: number + 1)) : nil,
            olderHref: number > 1
                ? SitePaths.relative(from: path, to: SitePaths.boardList(board.name, page: number - 1)) : nil)
        try page(path, template: "threadlist", view, run: run)
    }

    private func listRow(_ thread: StoredThread, path: String, withFiles: Set<Int>) -> ListRowView {
        let target = SitePaths.thread(thread.board, gid: thread.gid)
        return ListRowView(
            title: Self.displayable(thread.title), href: SitePaths.relative(from: path, to: target), key: target,
            anchor: SitePaths.listAnchor(gid: thread.gid), author: thread.author, replies: thread.replies,
            sticky: thread.sticky,
            hasFiles: withFiles.contains(thread.gid), isCurrent: false,
            lastReplyAt: options.forum.time.day(thread.lastReplyAt),
            lastReplyISO: options.forum.time.iso8601(thread.lastReplyAt))
    }
}

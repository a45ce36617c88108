import Foundation

/// Board pages and, board by board, every thread page under them.
extension SiteBuilder {
    /// A board's list pages, the pages of its threads that changed (all of
    /// them in a full build), its thread list frames, Markdown index and
    /// feed; returns the board's part of the lookup map.
    ///
    /// The list has two parts, so that one reply rewrites few pages:
    /// `index.html`, the threads with the latest activity (sticky first),
    /// and `page-N.html`, every thread by when it was started, numbered from
    /// the oldest end. A reply changes its thread's row on the one page
    /// that holds it; new threads fill the newest page. When the number of
    /// pages stays (every pager stays), an incremental build reads from the
    /// store only what those pages show (`buildBoardChanges`), not the board.
    func buildBoard(_ board: StoredBoard, run: BuildRun) throws(ArchiveError) -> LookupMap {
        let perPage = max(1, options.threadsPerPage)
        let total = max(1, (board.threadCount + perPage - 1) / perPage)
        if let changes = run.changes, run.previousBoardPages[board.name] == total,
            publisher.exists(SitePaths.boardArchive(board.name, page: total)),
            publisher.exists(SitePaths.boardList(board.name, page: total)),
            publisher.exists(SitePaths.boardMarkdown(board.name, page: total))
        {
            return try buildBoardChanges(board, changes: changes, total: total, run: run)
        }
        let threads = try store.threads(board: board.name)
        try buildWholeBoard(board, threads: threads, run: run)
        var map = LookupMap()
        map.add(board: board, threads: threads)
        return map
    }

    /// Every list page of the board, from all its threads (a full build, or
    /// one after which the board has another number of pages), and the
    /// pages of its threads that changed (all of them in a full build).
    private func buildWholeBoard(_ board: StoredBoard, threads: [StoredThread], run: BuildRun) throws(ArchiveError) {
        let perPage = max(1, options.threadsPerPage)
        let byStart = threads.sorted { ($0.postedAt, $0.gid) < ($1.postedAt, $1.gid) }
        let total = max(1, (byStart.count + perPage - 1) / perPage)
        let pages = (1...total).map { number in
            (number, Array(byStart[min(byStart.count, (number - 1) * perPage)..<min(byStart.count, number * perPage)]))
        }
        let position = Dictionary(byStart.enumerated().map { ($1.gid, $0) }, uniquingKeysWith: { first, _ in first })
        func placement(_ index: Int) -> Placement {
            Placement(
                previous: index > 0 ? byStart[index - 1] : nil,
                next: index + 1 < byStart.count ? byStart[index + 1] : nil, window: index / perPage + 1)
        }
        var stale: [(StoredThread, Placement)] = []
        if let changes = run.changes {
            // A thread's pages name the threads started just before and
            // after it: a new or retitled thread rewrites those two as well.
            // (A reply elsewhere moves nothing in this order.)
            let retitled = Set(changes.retitled.filter { $0.board == board.name }.map(\.gid))
            var indexes = Set<Int>()
            for key in changes.threads where key.board == board.name {
                guard let index = position[key.gid] else { continue }
                indexes.insert(index)
                if retitled.contains(key.gid) || isNew(key, changes) {
                    if index > 0 { indexes.insert(index - 1) }
                    if index + 1 < byStart.count { indexes.insert(index + 1) }
                }
            }
            // Where the order itself moved, every thread whose neighbours or
            // list window differ from the last build's order.
            indexes.formUnion(Self.movedInOrder(byStart, changes: changes, board: board.name, perPage: perPage))
            stale = indexes.sorted().map { (byStart[$0], placement($0)) }
        } else {
            stale = byStart.indices.map { (byStart[$0], placement($0)) }
        }
        // The feed follows activity, whatever is pinned.
        let feed = threads.sorted { ($0.lastReplyAt, $0.gid) > ($1.lastReplyAt, $1.gid) }.prefix(options.feedEntries)
        try renderBoard(
            board, total: total, latest: Array(threads.prefix(perPage)), pages: pages, stale: stale,
            feed: Array(feed), withFiles: try store.threadsWithAttachments(board: board.name), run: run)
    }

    /// The indexes in `byStart` (the board's threads in their order by
    /// start now) of the threads whose neighbours or list window differ
    /// from the order of the last build: the same threads, less those that
    /// came in since (`entered`), with those that moved or left at their
    /// start then (`restarted`). Empty when nothing moved and threads came
    /// in only at the end, which moves no one else.
    static func movedInOrder(_ byStart: [StoredThread], changes: BuildChanges, board: String, perPage: Int) -> Set<Int>
    {
        let moved = changes.restarted.filter { $0.key.board == board }
        let fresh = Set(changes.entered.filter { $0.board == board }.map(\.gid))
        let appended = byStart.suffix(fresh.count).allSatisfy { fresh.contains($0.gid) }
        guard !moved.isEmpty || !appended else { return [] }
        let perPage = max(1, perPage)
        func key(_ start: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(start)) }
        var before: [(start: Date, gid: Int)] = byStart.filter { !fresh.contains($0.gid) }.map { thread in
            (moved[.init(board: board, gid: thread.gid)].map(key) ?? thread.postedAt, thread.gid)
        }
        let present = Set(byStart.map(\.gid))
        for (threadKey, start) in moved where !present.contains(threadKey.gid) {
            before.append((key(start), threadKey.gid))
        }
        before.sort { ($0.start, $0.gid) < ($1.start, $1.gid) }
        var was: [Int: (index: Int, previous: Int?, next: Int?)] = [:]
        for (index, entry) in before.enumerated() {
            was[entry.gid] = (
                index, index > 0 ? before[index - 1].gid : nil, index + 1 < before.count ? before[index + 1].gid : nil
            )
        }
        var indexes = Set<Int>()
        for (index, thread) in byStart.enumerated() {
            guard let then = was[thread.gid] else { continue }
            let previous = index > 0 ? byStart[index - 1].gid : nil
            let next = index + 1 < byStart.count ? byStart[index + 1].gid : nil
            if then.index / perPage != index / perPage || then.previous != previous || then.next != next {
                indexes.insert(index)
            }
        }
        return indexes
    }

    /// After a change that leaves the board's number of pages as it was:
    /// its latest page and feed, the pages by start that hold a changed
    /// thread, and the changed threads with the neighbours of new and
    /// retitled ones, each read by index (`ArchiveStore+BoardOrders`).
    /// The lookup map gets the board's new threads, to add to its entry.
    private func buildBoardChanges(
        _ board: StoredBoard, changes: BuildChanges, total: Int, run: BuildRun
    ) throws(ArchiveError) -> LookupMap {
        let perPage = max(1, options.threadsPerPage)
        let retitled = Set(changes.retitled.filter { $0.board == board.name }.map(\.gid))
        let places = try store.startPlaces(
            board: board.name, gids: changes.threads.filter { $0.board == board.name }.map(\.gid).sorted(),
            total: board.threadCount
        ).values.sorted { $0.index < $1.index }
        // New threads only at the end of the order by start, and none of
        // the others moved in it: every other thread keeps its place. Else
        // threads between moved by as many places as threads passed them,
        // and the board is rendered from all its threads, which tells each
        // one's place now from its place at the last build (`movedInOrder`).
        let entered = places.filter { changes.entered.contains(.init(board: board.name, gid: $0.gid)) }
        if changes.restarted.keys.contains(where: { $0.board == board.name })
            || entered.contains(where: { $0.index < board.threadCount - entered.count })
        {
            let threads = try store.threads(board: board.name)
            try buildWholeBoard(board, threads: threads, run: run)
            var map = LookupMap()
            map.add(board: board, threads: threads)
            return map
        }
        var pages: [(Int, [StoredThread])] = []
        for place in places {
            let number = place.index / perPage + 1
            guard pages.last?.0 != number else { continue }
            let first = (number - 1) * perPage
            pages.append(
                (
                    number,
                    try store.threadsByStart(
                        board: board.name, around: place, before: place.index - first,
                        from: number * perPage - place.index)
                ))
        }
        var stale: [Int: (StoredThread, Placement)] = [:]
        var newThreads: [Int] = []
        for place in places {
            let new = isNew(.init(board: board.name, gid: place.gid), changes)
            if new { newThreads.append(place.gid) }
            // Two threads either side: the neighbours' own neighbours too.
            let near = try store.threadsByStart(board: board.name, around: place, before: 2, from: 3)
            guard let at = near.firstIndex(where: { $0.gid == place.gid }) else { continue }
            func add(_ offset: Int) {
                let k = at + offset
                guard near.indices.contains(k), stale[near[k].gid] == nil else { return }
                stale[near[k].gid] = (
                    near[k],
                    Placement(
                        previous: k > 0 ? near[k - 1] : nil, next: k + 1 < near.count ? near[k + 1] : nil,
                        window: (place.index + offset) / perPage + 1)
                )
            }
            add(0)
            if new || retitled.contains(place.gid) {
                add(-1)
                add(1)
            }
        }
        let latest = try store.latestThreads(board: board.name, limit: perPage)
        let withFiles = try store.threadsWithAttachments(
            board: board.name, among: latest.map(\.gid) + pages.flatMap { $0.1.map(\.gid) })
        try renderBoard(
            board, total: total, latest: latest, pages: pages,
            stale: stale.keys.sorted().compactMap { stale[$0] },
            feed: try store.newestThreads(board: board.name, limit: options.feedEntries), withFiles: withFiles, run: run
        )
        var map = LookupMap()
        if !newThreads.isEmpty { map.add(board: board, newThreads: newThreads) }
        return map
    }

    /// Whether a changed thread is new to the site: by the store's log (it
    /// came into its board's order), or its page is missing. Not by its
    /// page alone: a build stopped after it wrote the page left it there,
    /// and the next build never added the thread to the lookup map, nor
    /// linked it from the thread before it.
    private func isNew(_ key: BuildChanges.ThreadKey, _ changes: BuildChanges) -> Bool {
        changes.entered.contains(key) || !publisher.exists(SitePaths.thread(key.board, gid: key.gid))
    }

    /// Writes the board's latest page, the given `pages` by start (their
    /// threads oldest first) with their frames and Markdown copies, the
    /// `stale` threads' pages, the Markdown index and the feed.
    private func renderBoard(
        _ board: StoredBoard, total: Int, latest: [StoredThread], pages: [(Int, [StoredThread])],
        stale: [(StoredThread, Placement)], feed: [StoredThread], withFiles: Set<Int>, run: BuildRun
    ) throws(ArchiveError) {
        let boardTitle = board.title ?? board.name
        run.boardPages[board.name] = total
        run.report.skippedThreads += max(0, board.threadCount - stale.count)

        try buildBoardPage(board, number: nil, total: total, slice: latest, withFiles: withFiles, run: run)
        // Runs of pages and of threads render at the same time, each into a
        // run of its own, merged in order.
        let chunk = max(1, options.boardPagesPerTask)
        let pageChunks = stride(from: 0, to: pages.count, by: chunk).map {
            Array(pages[$0..<min(pages.count, $0 + chunk)])
        }
        let pageRuns = try parallelMap(pageChunks) { some throws(ArchiveError) in
            let part = run.fork()
            for (number, slice) in some {
                let rows = Array(slice.reversed())
                try buildBoardPage(board, number: number, total: total, slice: rows, withFiles: withFiles, run: part)
                try buildThreadList(board, number: number, total: total, slice: rows, withFiles: withFiles, run: part)
                try markdown(
                    SitePaths.boardMarkdown(board.name, page: number),
                    BoardMarkdown.page(
                        board: board, number: number, isLast: number == total, threads: rows, forum: options.forum,
                        strings: templates.strings),
                    run: part)
            }
            return part
        }
        let threadChunk = chunk * max(1, options.threadsPerPage)
        let threadChunks = stride(from: 0, to: stale.count, by: threadChunk).map {
            Array(stale[$0..<min(stale.count, $0 + threadChunk)])
        }
        let threadRuns = try parallelMap(threadChunks) { some throws(ArchiveError) in
            // One read transaction for the run's threads, not one per thread.
            try store.reading { () throws(ArchiveError) in
                let part = run.fork()
                for (thread, placement) in some {
                    try buildThread(
                        thread, board: board, original: Self.originalLink(thread), placement: placement, run: part)
                }
                return part
            }
        }
        for part in pageRuns + threadRuns { run.absorb(part) }

        try markdown(
            SitePaths.boardMarkdown(board.name),
            BoardMarkdown.latest(
                board: board, threads: latest, pages: total, forum: options.forum, strings: templates.strings),
            run: run)
        let entries = try digests(feed) { _ in boardTitle }
        try writeFeed(
            path: SitePaths.boardFeed(board.name),
            title: "\(boardTitle) (\(board.name)) · \(options.wording.siteTitle)",
            alternate: SitePaths.board(board.name), id: "board:\(board.name)", entries: entries, run: run)
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
        chrome.markdown = SitePaths.relative(
            from: path,
            to: number.map { SitePaths.boardMarkdown(board.name, page: $0) } ?? SitePaths.boardMarkdown(board.name))
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

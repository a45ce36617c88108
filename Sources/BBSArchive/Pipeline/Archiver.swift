import Foundation

/// The fetch half of the pipeline: walks boards, fetches their thread lists,
/// threads and attachments, and fills the store.
///
/// Everything it needs to go on lives in the store: list pages walked,
/// threads archived with the listing they were archived at, attachments
/// stored. So a run killed at any moment continues where it stopped when
/// started again, and a later run fetches only what changed: it walks the
/// board newest activity first, stops after a run of unchanged threads, and
/// fetches a grown thread only from the page its last archived post is on.
public struct Archiver: Sendable {
    public struct Options: Sendable {
        /// Board list pages to walk per board; `nil` walks them all.
        public var pages: Int?
        /// Threads fetched at the same time (the rate limit still applies).
        public var connections: Int
        /// On a board archived before, stop walking its list after this many
        /// unchanged threads in a row; 0 walks the whole list.
        public var stopAfterUnchanged: Int
        /// An interrupted walk younger than this is resumed, not restarted.
        public var resumeWindow: TimeInterval
        /// What the reader gave for login walls, for the message.
        public var cookies: ArchiveError.CookieState

        public init(
            pages: Int? = nil, connections: Int = 4, stopAfterUnchanged: Int = 30,
            resumeWindow: TimeInterval = 12 * 3600,
            cookies: ArchiveError.CookieState = .none
        ) {
            self.pages = pages
            self.connections = connections
            self.stopAfterUnchanged = stopAfterUnchanged
            self.resumeWindow = resumeWindow
            self.cookies = cookies
        }
    }

    /// One thing that could not be archived in this run.
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable {
            /// The page could not be had.
            case failed
            /// The page was stored, but some of its posts only in part
            /// (kept with a parse warning), or it held posts that could not
            /// be read at all.
            case partial
        }

        public var url: String
        public var error: ArchiveError
        public var kind: Kind = .failed
        public var description: String {
            if kind == .partial, case .parseWarning(_, let message) = error { return "\(url): partial: \(message)" }
            return "\(url): \(error)"
        }
    }

    /// What a fetch run did.
    public struct Report: Sendable, Equatable {
        public var boardPages = 0
        public var threadsFetched = 0
        public var threadsUnchanged = 0
        public var threadPages = 0
        public var posts = 0
        public var media = 0
        public var failures: [Failure] = []
        /// Posts stored with a parse warning (with what could be read).
        public var partialPosts = 0
    }

    public let source: any ForumSource
    public let fetcher: Fetcher
    public let store: ArchiveStore
    public let options: Options
    public let events: ProgressSink

    public init(
        source: any ForumSource, fetcher: Fetcher, store: ArchiveStore, options: Options = Options(),
        events: @escaping ProgressSink = { _ in }
    ) {
        self.source = source
        self.fetcher = fetcher
        self.store = store
        self.options = options
        self.events = events
    }

    /// Archives the boards one after another. A board that cannot be read
    /// (unknown, login wall, disallowed) is a failure of its own and the
    /// next board goes on; an unreachable forum or an unusable store stops
    /// the run.
    public func run(boards: [String]) async throws(ArchiveError) -> Report {
        var report = Report()
        for asked in boards {
            var board = asked
            do {
                board = try await canonicalName(asked)
                try await archiveBoard(board, into: &report)
            } catch {
                switch error {
                case .storeUnavailable, .unreachable:
                    throw error
                default:
                    fail(source.boardURL(board: board, page: 1), error, board: board, into: &report)
                }
            }
        }
        try await fetchMedia(into: &report)
        await fetchSections()
        return report
    }

    /// The board's id as the forum spells it, so that `geography` and
    /// `Geography` make one permalink tree: a board in the store under
    /// another case is that board; otherwise its first list page says.
    private func canonicalName(_ asked: String) async throws(ArchiveError) -> String {
        if let stored = try store.boards().first(where: { $0.name.caseInsensitiveCompare(asked) == .orderedSame }) {
            return stored.name
        }
        let url = source.boardURL(board: asked, page: 1)
        let fetched = try await fetcher.fetchPage(url, headers: source.requestHeaders)
        guard case .board(let page) = try parse(fetched, board: asked),
            page.board.caseInsensitiveCompare(asked) == .orderedSame
        else { return asked }
        if page.board != asked { events(.note("\(asked): the forum spells the board \(page.board)")) }
        return page.board
    }

    // MARK: Sections

    /// Files the boards under the forum's sections, for the site's section
    /// pages. Nice to have: a failure is told and the run goes on.
    private func fetchSections() async {
        guard let url = source.sectionsURL else { return }
        do throws(ArchiveError) {
            let fetched = try await fetcher.fetchPage(url, headers: source.requestHeaders)
            guard case .sections(let page) = try source.parse(fetched) else {
                throw .notAForumPage(url: url, expected: "the forum's list of sections")
            }
            try store.saveSections(page)
        } catch {
            events(.note("the forum's sections could not be read (\(error)); boards are archived without them"))
        }
    }

    // MARK: Boards

    private func archiveBoard(_ board: String, into report: inout Report) async throws(ArchiveError) {
        let before = report
        let resumed = try store.beginWalk(board: board, resumeWindow: options.resumeWindow)
        if resumed > 0 {
            events(.note("\(board): resuming an interrupted run after list page \(resumed)"))
        }
        let reachedEnd = try await walkList(board, from: resumed + 1, into: &report)

        let pending = try store.threadsNeedingFetch(board: board)
        report.threadsUnchanged += max(0, try store.threadCount(board: board) - pending.count)
        events(.note("\(board): \(pending.count) thread(s) new or changed"))
        try await fetchThreads(board: board, pending, into: &report)
        try store.finishWalk(board: board, reachedEnd: reachedEnd)
        events(
            .note(
                "\(board): \(report.threadsFetched - before.threadsFetched) thread(s) fetched with "
                    + "\(report.posts - before.posts) post(s), "
                    + "\(report.failures[before.failures.count...].filter { $0.kind == .failed }.count) failed"
                    + (report.partialPosts > before.partialPosts
                        ? ", \(report.partialPosts - before.partialPosts) post(s) read only in part" : ""))
        )
    }

    /// Walks the list from page `first`, newest activity first. On a board
    /// whose whole list was read before, stops after `stopAfterUnchanged`
    /// unchanged threads in a row: everything further down is older and
    /// already archived. Returns whether the walk covered the whole list.
    private func walkList(_ board: String, from first: Int, into report: inout Report) async throws(ArchiveError)
        -> Bool
    {
        var incremental = false
        if options.stopAfterUnchanged > 0 { incremental = try store.listCovered(board: board) }
        // A resumed walk knows the list's length from the pages it stored.
        var forumPages = first > 1 ? (try store.boardPageCount(board: board) ?? Int.max) : Int.max
        var lastPage = min(options.pages ?? Int.max, forumPages)
        var unchangedInARow = 0
        var failuresInARow = 0
        var number = first
        while number <= lastPage {
            let url = source.boardURL(board: board, page: number)
            let page: BoardPage
            do {
                page = try await boardPage(url, board: board)
                failuresInARow = 0
            } catch {
                // Page 1 tells whether the board can be read at all.
                if number == 1 { throw error }
                if case .storeUnavailable = error { throw error }
                fail(url, error, board: board, into: &report)
                failuresInARow += 1
                // Without a known length, or after several failures in a
                // row, the forum is having a bad time: the next run goes on.
                if forumPages == Int.max || failuresInARow >= 3 { return false }
                number += 1
                continue
            }
            // A forum that answers another page than the one asked for (it
            // clamps, or its pager lies) has no more pages.
            guard page.page.current == number else { return true }
            try store.saveBoardPage(page, source: source)
            try store.markWalked(board: board, page: number)
            try store.clearFailure(url: url)
            report.boardPages += 1
            forumPages = page.page.total
            lastPage = min(lastPage, forumPages)
            events(
                .stage(
                    name: "\(board) list pages", done: number, total: lastPage == Int.max ? nil : lastPage, failed: 0))

            if incremental {
                for thread in page.threads where !thread.sticky {
                    unchangedInARow = try store.isArchived(board: board, summary: thread) ? unchangedInARow + 1 : 0
                }
                if unchangedInARow >= options.stopAfterUnchanged {
                    events(.note("\(board): \(unchangedInARow) unchanged threads in a row; the rest is archived"))
                    return true
                }
            }
            number += 1
        }
        return number > forumPages
    }

    private func boardPage(_ url: String, board: String) async throws(ArchiveError) -> BoardPage {
        let fetched = try await fetcher.fetchPage(url, headers: source.requestHeaders)
        switch try parse(fetched, board: board) {
        case .board(var page):
            // `board` is the forum's own spelling (see `canonicalName`).
            page.board = board
            return page
        default:
            throw .notAForumPage(url: url, expected: "a board page of \(source.id)")
        }
    }

    /// Parses, turning the forum's "you may not read this" into a login error.
    private func parse(_ page: FetchedPage, board: String) throws(ArchiveError) -> ForumPage {
        do {
            return try source.parse(page)
        } catch {
            if case .forumError(_, let message) = error, source.isLoginWall(message: message) {
                throw .needsLogin(board: board, cookies: options.cookies)
            }
            throw error
        }
    }

    // MARK: Threads

    /// Fetches threads with a bounded number in flight.
    private func fetchThreads(
        board: String, _ pending: [(summary: ThreadSummary, archivedPosts: Int)], into report: inout Report
    ) async throws(ArchiveError) {
        guard !pending.isEmpty else { return }
        var done = 0
        var failed = 0
        var fatal: ArchiveError?
        var outcomes: [ThreadOutcome] = []
        await Self.forEach(pending, width: options.connections) { next in
            await self.archiveThread(board: board, next.summary, archivedPosts: next.archivedPosts)
        } collect: { outcome in
            done += 1
            if case .fatal(let error) = outcome {
                fatal = error
                return false
            }
            if case .failed = outcome { failed += 1 }
            outcomes.append(outcome)
            events(.stage(name: "\(board) threads", done: done, total: pending.count, failed: failed))
            return true
        }
        for outcome in outcomes {
            switch outcome {
            case .stored(let posts, let pages, let partial):
                report.threadsFetched += 1
                report.threadPages += pages
                report.posts += posts
                for page in partial {
                    report.partialPosts += page.posts
                    report.failures.append(Failure(url: page.url, error: page.error, kind: .partial))
                    let failure = Failure(url: page.url, error: page.error, kind: .partial)
                    events(.failure(url: page.url, reason: String(failure.description.dropFirst(page.url.count + 2))))
                    try? store.recordFailure(url: page.url, board: board, reason: "\(page.error)", kind: "partial")
                }
            case .failed(let url, let error):
                fail(url, error, board: board, into: &report)
            case .fatal:
                break
            }
        }
        if let fatal { throw fatal }
    }

    private enum ThreadOutcome: Sendable {
        case stored(posts: Int, pages: Int, partial: [PartialPage])
        case failed(String, ArchiveError)
        case fatal(ArchiveError)
    }

    /// Fetches a thread, or for a thread archived before only the pages
    /// from the one its last archived post is on, and stores it.
    private func archiveThread(board: String, _ summary: ThreadSummary, archivedPosts: Int) async -> ThreadOutcome {
        var url = source.threadURL(board: board, gid: summary.gid, page: 1)
        do throws(ArchiveError) {
            var pages: [ThreadPage] = []
            var start = 1
            if archivedPosts > 0 {
                start = (archivedPosts - 1) / max(1, source.postsPerThreadPage) + 1
                url = source.threadURL(board: board, gid: summary.gid, page: start)
                let page = try await threadPage(url, board: board)
                let known = try store.archivedFloors(board: board, gid: summary.gid)
                // The page must overlap what is stored; if posts were deleted
                // in between, the positions moved: read the thread whole.
                if page.page.current == start, page.posts.contains(where: { known.contains($0.floor) }) {
                    pages.append(page)
                } else {
                    start = 1
                }
            }
            if pages.isEmpty {
                url = source.threadURL(board: board, gid: summary.gid, page: 1)
                pages.append(try await threadPage(url, board: board))
            }
            let total = pages[0].page.total
            if total > start {
                for number in (start + 1)...total {
                    url = source.threadURL(board: board, gid: summary.gid, page: number)
                    let page = try await threadPage(url, board: board)
                    guard page.page.current == number else { break }
                    pages.append(page)
                }
            }
            for index in pages.indices {
                pages[index].board = board
                pages[index].gid = summary.gid
            }
            try store.saveThread(
                board: board, pages: pages, summary: summary,
                originalURL: source.originalThreadURL(board: board, gid: summary.gid))
            try store.clearFailure(url: source.originalThreadURL(board: board, gid: summary.gid))
            let partial = pages.compactMap { page in
                Self.partial(page, url: source.threadURL(board: board, gid: summary.gid, page: page.page.current))
            }
            return .stored(posts: pages.reduce(0) { $0 + $1.posts.count }, pages: pages.count, partial: partial)
        } catch {
            switch error {
            case .storeUnavailable, .needsLogin: return .fatal(error)
            default: return .failed(url, error)
            }
        }
    }

    /// A thread page stored only in part: posts kept with a warning, or
    /// fewer posts read than the markup holds.
    struct PartialPage: Sendable {
        var url: String
        var posts: Int
        var error: ArchiveError
    }

    static func partial(_ page: ThreadPage, url: String) -> PartialPage? {
        let warnings = page.partialPosts.compactMap(\.warning)
        let missing = max(0, (page.containers ?? page.posts.count) - page.posts.count)
        guard !warnings.isEmpty || missing > 0 else { return nil }
        var reasons = warnings
        if missing > 0 { reasons.append("\(missing) post(s) in the markup could not be read at all") }
        return PartialPage(
            url: url, posts: warnings.count,
            error: .parseWarning(url: url, message: reasons.joined(separator: " | ")))
    }

    private func threadPage(_ url: String, board: String) async throws(ArchiveError) -> ThreadPage {
        let fetched = try await fetcher.fetchPage(url, headers: source.requestHeaders)
        guard case .thread(let page) = try parse(fetched, board: board) else {
            throw .notAForumPage(url: url, expected: "a thread page of \(source.id)")
        }
        return page
    }

    // MARK: Attachments

    /// Fetches every attachment not stored yet; each file is kept once. An
    /// image whose original cannot be had is kept at the largest thumbnail
    /// size the forum still serves, and says so.
    private func fetchMedia(into report: inout Report) async throws(ArchiveError) {
        let missing = try store.missingMedia()
        guard !missing.isEmpty else { return }
        events(.note("attachments: \(missing.count) to fetch"))
        var done = 0
        var failed = 0
        var fatal: ArchiveError?
        await Self.forEach(missing, width: options.connections) { url -> (String, ArchiveError?) in
            do throws(ArchiveError) {
                try await self.fetchAttachment(url)
                try self.store.clearFailure(url: url)
                return (url, nil)
            } catch {
                return (url, error)
            }
        } collect: { (url, error) in
            done += 1
            if let error {
                if case .storeUnavailable = error {
                    fatal = error
                    return false
                }
                failed += 1
                fail(url, error, board: nil, into: &report)
            } else {
                report.media += 1
            }
            events(.stage(name: "attachments", done: done, total: missing.count, failed: failed))
            return true
        }
        if let fatal { throw fatal }
    }

    /// Runs `work` on `items` with at most `width` running at once, handing
    /// each result to `collect` on the calling task; `collect` returning
    /// `false` stops the rest.
    private static func forEach<Item: Sendable, Result: Sendable>(
        _ items: [Item], width: Int, work: @escaping @Sendable (Item) async -> Result,
        collect: (Result) -> Bool
    ) async {
        await withTaskGroup(of: Result.self) { group in
            var iterator = items.makeIterator()
            for _ in 0..<max(1, width) {
                guard let next = iterator.next() else { break }
                group.addTask { await work(next) }
            }
            while let result = await group.next() {
                guard collect(result) else {
                    group.cancelAll()
                    return
                }
                if let next = iterator.next() {
                    group.addTask { await work(next) }
                }
            }
        }
    }

    private func fetchAttachment(_ url: String) async throws(ArchiveError) {
        do {
            try store.saveMedia(url: url, response: try await fetcher.fetch(url))
        } catch {
            guard case .httpStatus(_, let status) = error, status == 404 || status == 410 else { throw error }
            for (fallback, variant) in source.mediaFallbacks(for: url) {
                if let response = try? await fetcher.fetch(fallback) {
                    try store.saveMedia(url: url, response: response, variant: variant)
                    events(.note("\(url): the original is gone; kept the \(variant) thumbnail"))
                    return
                }
            }
            throw error
        }
    }

    private func fail(_ url: String, _ error: ArchiveError, board: String?, into report: inout Report) {
        report.failures.append(Failure(url: url, error: error))
        events(.failure(url: url, reason: "\(error)"))
        try? store.recordFailure(url: url, board: board, reason: "\(error)")
    }
}

import Foundation

/// The fetch half of the pipeline: walks boards, fetches their thread lists,
/// threads and attachments, and fills the store.
///
/// A thread is stored whole or not at all, and a thread whose listing has
/// not changed since it was archived is not fetched again, so a run that
/// stops anywhere can simply be started again.
public struct Archiver: Sendable {
    public struct Options: Sendable {
        /// Board list pages to walk per board; `nil` walks them all.
        public var pages: Int?
        /// Threads fetched at the same time (the rate limit still applies).
        public var connections: Int = 4

        public init(pages: Int? = nil, connections: Int = 4) {
            self.pages = pages
            self.connections = connections
        }
    }

    /// What a fetch run did.
    public struct Report: Sendable, Equatable {
        public var boardPages = 0
        public var threadsFetched = 0
        public var threadsUnchanged = 0
        public var posts = 0
        public var media = 0
        /// `URL: reason` for every page that failed.
        public var failures: [String] = []
    }

    public let source: any ForumSource
    public let fetcher: Fetcher
    public let options: Options
    public let log: @Sendable (String) -> Void

    public init(
        source: any ForumSource, fetcher: Fetcher, options: Options = Options(),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.source = source
        self.fetcher = fetcher
        self.options = options
        self.log = log
    }

    private var store: ArchiveStore { fetcher.store }

    /// Archives the boards one after another. A board that cannot be read at
    /// all (unknown, unreachable) stops the run with that error; single
    /// threads that fail are listed in the report and the run goes on.
    public func run(boards: [String]) async throws(ArchiveError) -> Report {
        var report = Report()
        for board in boards {
            try await archiveBoard(board, into: &report)
        }
        try await fetchMedia(into: &report)
        return report
    }

    private func archiveBoard(_ board: String, into report: inout Report) async throws(ArchiveError) {
        let before = report
        let firstURL = source.boardURL(board: board, page: 1)
        let first = try await boardPage(firstURL, board: board)
        try store.saveBoardPage(first, source: source)
        report.boardPages += 1
        let lastPage = min(first.page.total, options.pages ?? Int.max)
        log("\(board): \(first.title ?? board), \(first.page.total) list page(s), walking \(lastPage)")

        var summaries = first.threads
        if lastPage >= 2 {
            for number in 2...lastPage {
                let url = source.boardURL(board: board, page: number)
                do {
                    let page = try await boardPage(url, board: board)
                    guard page.page.current == number else { break }
                    try store.saveBoardPage(page, source: source)
                    summaries += page.threads
                    report.boardPages += 1
                } catch {
                    if case .storeUnavailable = error { throw error }
                    report.failures.append("\(url): \(error)")
                }
            }
        }

        var seen = Set<Int>()
        summaries = summaries.filter { seen.insert($0.gid).inserted }
        var pending: [ThreadSummary] = []
        for summary in summaries {
            if try store.isArchived(board: board, summary: summary) {
                report.threadsUnchanged += 1
            } else {
                pending.append(summary)
            }
        }
        log("\(board): \(summaries.count) threads listed, \(pending.count) new or changed")
        try await fetchThreads(board: board, pending, into: &report)
        log(
            "\(board): \(report.threadsFetched - before.threadsFetched) threads fetched with "
                + "\(report.posts - before.posts) posts, \(report.failures.count - before.failures.count) failed")
    }

    private func boardPage(_ url: String, board: String) async throws(ArchiveError) -> BoardPage {
        let fetched = try await fetcher.fetchPage(url)
        switch try source.parse(fetched) {
        case .board(var page):
            if page.board.isEmpty { page.board = board }
            // The forum may spell the board differently (case); keep the
            // name the user asked for so permalinks stay stable.
            page.board = board
            return page
        case .thread:
            throw .notAForumPage(url: url, expected: "a board page of \(source.id)")
        }
    }

    /// Fetches threads with a bounded number in flight.
    private func fetchThreads(board: String, _ summaries: [ThreadSummary], into report: inout Report)
        async throws(ArchiveError)
    {
        let width = max(1, options.connections)
        let outcomes: [ThreadOutcome] = await withTaskGroup(of: ThreadOutcome.self) { group in
            var results: [ThreadOutcome] = []
            var iterator = summaries.makeIterator()
            for _ in 0..<width {
                guard let next = iterator.next() else { break }
                group.addTask { await self.archiveThread(board: board, summary: next) }
            }
            while let outcome = await group.next() {
                results.append(outcome)
                if let next = iterator.next() {
                    group.addTask { await self.archiveThread(board: board, summary: next) }
                }
            }
            return results
        }
        for outcome in outcomes {
            switch outcome {
            case .stored(let posts):
                report.threadsFetched += 1
                report.posts += posts
            case .failed(let failure):
                report.failures.append(failure)
            case .fatal(let error):
                throw error
            }
        }
    }

    private enum ThreadOutcome: Sendable {
        case stored(posts: Int)
        case failed(String)
        case fatal(ArchiveError)
    }

    private func archiveThread(board: String, summary: ThreadSummary) async -> ThreadOutcome {
        var url = source.threadURL(board: board, gid: summary.gid, page: 1)
        do {
            var pages = [try await threadPage(url)]
            let total = pages[0].page.total
            if total >= 2 {
                for number in 2...total {
                    url = source.threadURL(board: board, gid: summary.gid, page: number)
                    let page = try await threadPage(url)
                    // A forum that answers another page than the one asked
                    // for (it clamps, or its pager lies) has no more pages.
                    guard page.page.current == number else { break }
                    pages.append(page)
                }
            }
            for index in pages.indices {
                pages[index].board = board
                pages[index].gid = summary.gid
            }
            try store.saveThread(board: board, pages: pages, summary: summary)
            return .stored(posts: pages.reduce(0) { $0 + $1.posts.count })
        } catch {
            if case .storeUnavailable = error { return .fatal(error) }
            return .failed("\(url): \(error)")
        }
    }

    private func threadPage(_ url: String) async throws(ArchiveError) -> ThreadPage {
        let fetched = try await fetcher.fetchPage(url)
        guard case .thread(let page) = try source.parse(fetched) else {
            throw .notAForumPage(url: url, expected: "a thread page of \(source.id)")
        }
        return page
    }

    /// Fetches every attachment not stored yet; each file is kept once.
    private func fetchMedia(into report: inout Report) async throws(ArchiveError) {
        let missing = try store.missingMedia()
        guard !missing.isEmpty else { return }
        log("attachments: \(missing.count) to fetch")
        for url in missing {
            do {
                let response = try await fetcher.fetch(url)
                try store.saveMedia(url: url, response: response)
                report.media += 1
            } catch {
                if case .storeUnavailable = error { throw error }
                report.failures.append("\(url): \(error)")
            }
        }
    }
}

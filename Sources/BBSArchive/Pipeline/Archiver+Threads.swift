import Foundation

/// Threads: fetched with a bounded number in flight, each stored whole.
extension Archiver {
    /// Fetches threads with a bounded number in flight.
    func fetchThreads(
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
                    let failure = Failure(url: page.url, error: page.error, kind: .partial)
                    report.failures.append(failure)
                    events(.failure(url: page.url, reason: failure.reason))
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

    enum ThreadOutcome: Sendable {
        case stored(posts: Int, pages: Int, partial: [PartialPage])
        case failed(String, ArchiveError)
        case fatal(ArchiveError)
    }

    /// Fetches a thread, or for a thread archived before only the pages
    /// from the one its last archived post is on, and stores it.
    func archiveThread(board: String, _ summary: ThreadSummary, archivedPosts: Int) async -> ThreadOutcome {
        var url = source.threadURL(board: board, gid: summary.gid, page: 1)
        do throws(ArchiveError) {
            var pages: [ThreadPage] = []
            var start = 1
            if archivedPosts > 0 {
                let known = try store.archivedPosts(board: board, gid: summary.gid)
                // The page the forum now shows the last archived post on, or
                // one before it: posts it deleted (marked so here, or shown
                // as a notice) move the later ones up, at most a page.
                let shown = known.count - known.filter(\.deleted).count
                start = max(1, (shown - 1) / max(1, source.postsPerThreadPage) + 1)
                url = source.threadURL(board: board, gid: summary.gid, page: start)
                let page = try await threadPage(url, board: board)
                // The page must hold a post archived before, known by who
                // wrote it and when; if not, read the thread whole.
                if page.page.current == start, PostAlignment.overlaps(known, page.posts) {
                    pages.append(page)
                } else {
                    start = 1
                }
            }
            if pages.isEmpty {
                url = source.threadURL(board: board, gid: summary.gid, page: 1)
                pages.append(try await threadPage(url, board: board))
            }
            var total = pages[0].page.total
            if total > options.maxThreadPages {
                events(
                    .note(
                        "\(board)/\(summary.gid): the forum says the thread has \(total) pages; reading the first \(options.maxThreadPages) (--max-thread-pages)"
                    ))
                total = options.maxThreadPages
            }
            if total > start {
                for number in (start + 1)...total {
                    url = source.threadURL(board: board, gid: summary.gid, page: number)
                    let page = try await threadPage(url, board: board)
                    guard page.page.current == number else { break }
                    pages.append(page)
                }
            }
            let notes = try Ingest(store: store, source: source).thread(
                pages, board: board, gid: summary.gid, summary: summary)
            for note in notes { events(.note("\(board)/\(summary.gid): \(note)")) }
            // Its failures go, under whatever address (this front end's, the
            // other's, an earlier --forum-url) they were kept.
            try store.clearThreadFailures(board: board, gid: summary.gid, address: ForumSources.address(of:))
            let partial = pages.compactMap { page in
                Self.partial(page, url: source.threadURL(board: board, gid: summary.gid, page: page.page.current))
            }
            return .stored(posts: pages.reduce(0) { $0 + $1.posts.count }, pages: pages.count, partial: partial)
        } catch {
            switch error {
            case .storeUnavailable, .needsLogin, .cancelled: return .fatal(error)
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

    func threadPage(_ url: String, board: String) async throws(ArchiveError) -> ThreadPage {
        let fetched = try await fetcher.fetchPage(url, headers: source.requestHeaders)
        guard case .thread(let page) = try parse(fetched, board: board) else {
            throw .notAForumPage(url: url, expected: "a thread page of \(source.id)")
        }
        return page
    }
}

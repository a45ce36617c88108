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
package struct Archiver: Sendable {
    package struct Options: Sendable {
        /// Board list pages to walk per board; `nil` walks them all.
        package var pages: Int?
        /// Requests in flight at once, across all boards (the rate limit
        /// still applies): threads fetched at the same time.
        package var connections: Int
        /// Boards walked at the same time; `nil` walks as many as
        /// `connections`, 1 walks them one after another.
        package var boardWalks: Int?
        /// On a board archived before, stop walking its list after this many
        /// unchanged threads in a row; 0 walks the whole list.
        package var stopAfterUnchanged: Int
        /// An interrupted walk younger than this is resumed, not restarted.
        package var resumeWindow: TimeInterval
        /// What the reader gave for login walls, for the message.
        package var cookies: ArchiveError.CookieState
        /// Pages read of one thread at most. A thread is held in memory until
        /// it is stored whole, so a pager that never ends must not be
        /// followed for ever; the rest is left, with a note.
        package var maxThreadPages: Int

        package static let defaultMaxThreadPages = 2000

        package init(
            pages: Int? = nil, connections: Int = 4, stopAfterUnchanged: Int = 30,
            resumeWindow: TimeInterval = 12 * 3600,
            cookies: ArchiveError.CookieState = .none,
            maxThreadPages: Int = Options.defaultMaxThreadPages, boardWalks: Int? = nil
        ) {
            self.boardWalks = boardWalks.map { max(1, $0) }
            self.maxThreadPages = max(1, maxThreadPages)
            self.pages = pages
            self.connections = connections
            self.stopAfterUnchanged = stopAfterUnchanged
            self.resumeWindow = resumeWindow
            self.cookies = cookies
        }
    }

    /// One thing that could not be archived in this run.
    package struct Failure: Sendable, Equatable, CustomStringConvertible {
        package enum Kind: String, Sendable {
            /// The page could not be had.
            case failed
            /// The page was stored, but some of its posts only in part
            /// (kept with a parse warning), or it held posts that could not
            /// be read at all.
            case partial
        }

        package var url: String
        package var error: ArchiveError
        package var kind: Kind = .failed
        package var description: String { "\(url): \(reason)" }
        /// What went wrong, without the address (`partial: …` for a page read in part).
        package var reason: String {
            if kind == .partial, case .parseWarning(_, let message) = error { return "partial: \(message)" }
            return "\(error)"
        }
    }

    /// What a fetch run did.
    package struct Report: Sendable, Equatable {
        package var boardPages = 0
        /// Boards whose first list page was, byte for byte, what the last
        /// walk read: nothing on them was read further (see `walkList`).
        package var listsRepeated = 0
        package var threadsFetched = 0
        package var threadsUnchanged = 0
        package var threadPages = 0
        package var posts = 0
        package var media = 0
        package var failures: [Failure] = []
        /// Posts stored with a parse warning (with what could be read).
        package var partialPosts = 0

        /// Adds what another part of the run did.
        mutating func add(_ other: Report) {
            boardPages += other.boardPages
            listsRepeated += other.listsRepeated
            threadsFetched += other.threadsFetched
            threadsUnchanged += other.threadsUnchanged
            threadPages += other.threadPages
            posts += other.posts
            media += other.media
            failures += other.failures
            partialPosts += other.partialPosts
        }
    }

    package let source: any ForumSource
    package let fetcher: Fetcher
    package let store: ArchiveStore
    package let options: Options
    package let events: ProgressSink

    package init(
        source: any ForumSource, fetcher: Fetcher, store: ArchiveStore, options: Options = Options(),
        events: @escaping ProgressSink = { _ in }
    ) {
        self.source = source
        self.fetcher = fetcher
        self.store = store
        self.options = options
        self.events = events
    }

    /// Archives the boards, several at once (`boardWalks`, by default as
    /// many as `connections`): every request still goes through the one
    /// fetcher, so the rate limit and the number of requests in flight hold
    /// across all walks. A board that cannot be read (unknown, login wall,
    /// disallowed) is a failure of its own and the other boards go on; an
    /// unreachable forum, an unusable store or a cancelled run stops every
    /// walk. Boards named twice (in any case) are walked once. The report
    /// lists failures board by board in the order the boards were named, and
    /// each board's closing line is told in that order too.
    package func run(boards: [String]) async throws(ArchiveError) -> Report {
        let names = Self.distinctBoards(boards)
        // The boards stored before the run, read once for every walk's
        // spelling (`canonicalName`), not once a board.
        let stored = try store.boards().map(\.name)
        // The sections page is asked for beside the walks, not after them:
        // one request less on the run's critical path. It is filed after
        // the walks, once the boards it files are in the store.
        let sections = Task { await self.sectionsPage() }
        var walks = [BoardWalk?](repeating: nil, count: names.count)
        var fatal: ArchiveError?
        var told = 0
        await Self.forEach(Array(names.indices), width: options.boardWalks ?? options.connections) { index in
            await self.walk(names[index], index: index, stored: stored)
        } collect: { walk in
            walks[walk.index] = walk
            if let error = walk.fatal {
                fatal = error
                return false
            }
            // Closing lines in the order the boards were named.
            while told < walks.count, let done = walks[told] {
                if let line = done.summary { events(.note(line)) }
                told += 1
            }
            return true
        }
        // The walks that stored no list page, written in one commit (`finishWalk`).
        do throws(ArchiveError) {
            try store.writeFinishedWalks()
        } catch {
            fatal = fatal ?? error
        }
        if let fatal {
            // Not waited for: a request in flight may take its whole timeout.
            sections.cancel()
            throw fatal
        }
        var report = Report()
        for walk in walks {
            if let walk { report.add(walk.report) }
        }
        try await fetchMedia(into: &report)
        try await fetchEmoticons(into: &report)
        fileSections(await sections.value)
        return report
    }

    /// What walking one board came to.
    struct BoardWalk: Sendable {
        var index: Int
        var report = Report()
        /// The board's closing line, told in board order.
        var summary: String?
        /// An error that stops the whole run.
        var fatal: ArchiveError?
    }

    /// Walks one board into a report of its own; `stored`: the boards
    /// the store held when the run began.
    func walk(_ asked: String, index: Int, stored: [String]) async -> BoardWalk {
        var walk = BoardWalk(index: index)
        var board = asked
        do throws(ArchiveError) {
            let first: BoardPage?
            (board, first) = try await canonicalName(asked, stored: stored)
            walk.summary = try await archiveBoard(board, firstPage: first, into: &walk.report)
        } catch {
            switch error {
            case .storeUnavailable, .unreachable, .cancelled:
                walk.fatal = error
            default:
                fail(source.boardURL(board: board, page: 1), error, board: board, into: &walk.report)
            }
        }
        return walk
    }

    /// The boards asked for, each once: names that differ only in case
    /// are one board (the first spelling asked for is kept).
    static func distinctBoards(_ boards: [String]) -> [String] {
        var seen: Set<String> = []
        return boards.filter { seen.insert($0.lowercased()).inserted }
    }

    /// The board's id as the forum spells it, so that `geography` and
    /// `Geography` make one permalink tree: a board in the store under
    /// another case is that board; otherwise its first list page says.
    /// That page is handed on, so the walk does not ask for it again.
    /// `stored`: the boards in the store when the run began (the boards of
    /// a run are distinct in any case, so no other walk adds this one).
    func canonicalName(_ asked: String, stored: [String]) async throws(ArchiveError) -> (String, BoardPage?) {
        if let name = stored.first(where: { $0.equalsIgnoringCase(asked) }) {
            return (name, nil)
        }
        let url = source.boardURL(board: asked, page: 1)
        let fetched = try await fetcher.fetchPage(url, headers: source.requestHeaders)
        guard case .board(let page) = try parse(fetched, board: asked),
            page.board.equalsIgnoringCase(asked)
        else { return (asked, nil) }
        if page.board != asked { events(.note("\(asked): the forum spells the board \(page.board)")) }
        return (page.board, page)
    }

    // MARK: Sections

    /// The forum's list of sections, fetched; `nil` when the forum has none.
    func sectionsPage() async -> Result<FetchedPage, ArchiveError>? {
        guard let url = source.sectionsURL else { return nil }
        do throws(ArchiveError) {
            return .success(try await fetcher.fetchPage(url, headers: source.requestHeaders))
        } catch {
            return .failure(error)
        }
    }

    /// Files the boards under the forum's sections, for the site's section
    /// pages. Nice to have: a failure is told and the run goes on.
    func fileSections(_ fetched: Result<FetchedPage, ArchiveError>?) {
        guard let fetched, let url = source.sectionsURL else { return }
        do throws(ArchiveError) {
            guard case .sections(let page) = try source.parse(try fetched.get()) else {
                throw .notAForumPage(url: url, expected: "the forum's list of sections")
            }
            try store.saveSections(page)
        } catch {
            events(.note("the forum's sections could not be read (\(error)); boards are archived without them"))
        }
    }

    // MARK: Boards

    /// Walks a board's list, fetches its new and changed threads, and
    /// returns the board's closing line.
    func archiveBoard(_ board: String, firstPage: BoardPage?, into report: inout Report)
        async throws(ArchiveError) -> String
    {
        let before = report
        // What the store says of the board's walks, in one read
        // transaction, not three. The newest listed activity is read before
        // the walk begins, and only trusted by a walk that starts at page
        // 1: a resumed walk's stored pages were read later.
        let stopsEarly = options.stopAfterUnchanged > 0
        let start = try store.reading { () throws(ArchiveError) -> WalkStart in
            var start = WalkStart(
                newest: stopsEarly ? try store.newestListedActivity(board: board) : nil,
                resumed: try store.beginWalk(board: board, resumeWindow: options.resumeWindow),
                covered: stopsEarly ? try store.listCovered(board: board) : false)
            // A walk that can find list page 1 as the last walk kept it
            // (`walkList`) ends there having stored nothing: the threads to
            // fetch are then those the store holds now. Read here, with the
            // page's newest capture that its request needs: an unchanged
            // board takes one read transaction, not three (with 20 boards,
            // 60 of the 103 in an update after one reply).
            if start.resumed == 0, firstPage == nil, start.covered, start.newest != nil {
                start.firstCapture = KnownCapture(
                    try store.latestCaptureHeaders(url: source.boardURL(board: board, page: 1)))
                start.pending = try threadsToFetch(board)
            }
            return start
        }
        let (newest, resumed, covered) = (start.newest, start.resumed, start.covered)
        if resumed > 0 {
            events(.note("\(board): resuming an interrupted run after list page \(resumed)"))
            // Page 1 first: what the forum listed there since the run
            // stopped (a new thread, a reply) is read now, not by the run
            // after this one. The walk then goes on after the pages that
            // run read.
            _ = try await walkList(
                board, from: 1, through: 1, prefetched: firstPage, incremental: covered, into: &report)
        }
        let reachedEnd = try await walkList(
            board, from: resumed + 1, prefetched: resumed == 0 ? firstPage : nil, incremental: covered,
            newestBefore: resumed == 0 ? newest : nil, firstCapture: start.firstCapture, into: &report)

        let repeated = report.listsRepeated > before.listsRepeated
        let (pending, known) =
            if repeated, let early = start.pending { early } else {
                try store.reading { () throws(ArchiveError) in try threadsToFetch(board) }
            }
        report.threadsUnchanged += max(0, known - pending.count)
        events(.note("\(board): \(pending.count) thread(s) new or changed"))
        try await fetchThreads(board: board, pending, into: &report)
        try store.finishWalk(board: board, reachedEnd: reachedEnd)
        return "\(board): \(report.threadsFetched - before.threadsFetched) thread(s) fetched with "
            + "\(report.posts - before.posts) post(s), "
            + "\(report.failures[before.failures.count...].filter { $0.kind == .failed }.count) failed"
            + (report.partialPosts > before.partialPosts
                ? ", \(report.partialPosts - before.partialPosts) post(s) read only in part" : "")
    }

    /// The board's threads that need fetching, and how many it holds.
    private func threadsToFetch(_ board: String) throws(ArchiveError) -> WalkStart.Pending {
        (try store.threadsNeedingFetch(board: board, time: source.time), try store.threadCount(board: board))
    }

    /// Walks the list from page `first` (to page `through` at most),
    /// newest activity first. On a board
    /// whose whole list was read before, stops after `stopAfterUnchanged`
    /// unchanged threads in a row: everything further down is older and
    /// already archived. Returns whether the walk covered the whole list.
    /// `prefetched` is list page 1 when it was read already; `incremental`
    /// says the walk may stop early (`stopAfterUnchanged` asks for it, and
    /// a finished walk read the whole list before: `listCovered`).
    ///
    /// It also stops at the end of a page whose last thread is unchanged
    /// and older than `newestBefore`, the newest activity the list showed
    /// when the board's last walk finished: the list is newest activity
    /// first, and a reply made since that walk is newer than anything it
    /// saw, so no thread further down has one. After one new reply that is
    /// page 1, where 30 unchanged threads in a row would need page 2 too.
    ///
    /// And when that walk finished, a page 1 that is byte for byte the one
    /// it kept (the newest capture of its address) shows no new reply or
    /// thread either: it is neither parsed nor stored again, which the
    /// rule above would have ended with anyway. In an update of 20 boards
    /// after one reply, parsing and storing the 19 unchanged pages were
    /// about 77 of the fetch's 209 M instructions (callgrind, 100k posts).
    /// `firstCapture` is that capture when the caller read it already.
    func walkList(
        _ board: String, from first: Int, through: Int? = nil, prefetched: BoardPage?, incremental: Bool,
        newestBefore: Int64? = nil, firstCapture: KnownCapture? = nil, into report: inout Report
    ) async throws(ArchiveError) -> Bool {
        // A resumed walk knows the list's length from the pages it stored.
        var forumPages = first > 1 ? (try store.boardPageCount(board: board) ?? Int.max) : Int.max
        var lastPage = min(options.pages ?? Int.max, forumPages, through ?? Int.max)
        var unchangedInARow = 0
        var failuresInARow = 0
        var number = first
        while number <= lastPage {
            let url = source.boardURL(board: board, page: number)
            let page: BoardPage
            do {
                if number == 1, var prefetched {
                    prefetched.board = board
                    page = prefetched
                } else if number == 1, incremental, newestBefore != nil {
                    let fetched = try await fetcher.fetchPage(url, headers: source.requestHeaders, known: firstCapture)
                    if fetched.repeatsLatestCapture {
                        report.boardPages += 1
                        report.listsRepeated += 1
                        events(.note("\(board): list page 1 is as the last walk read it; the rest is archived"))
                        return false
                    }
                    page = try boardPage(fetched, url: url, board: board)
                } else {
                    page = try await boardPage(url, board: board)
                }
                failuresInARow = 0
            } catch {
                // Page 1 tells whether the board can be read at all.
                if number == 1 { throw error }
                switch error {
                case .storeUnavailable, .cancelled: throw error
                default: break
                }
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
            // The page and its place in the walk in one commit.
            let listings = try Ingest(store: store, source: source).board(page, board: board, walked: (number, url))
            report.boardPages += 1
            // A row read in part keeps its thread: a note, not a failure
            // that every run would end with while the forum shows it so.
            if !page.partlyReadRows.isEmpty {
                events(
                    .note(
                        "\(url): \(page.partlyReadRows.count) row(s) read in part: "
                            + page.partlyReadRows.map(\.description).joined(separator: "; ")))
            }
            // A row that links a thread but could not be read: its thread is
            // not archived from it, and the run says so, page and thread. The
            // store keeps it under the thread's address (as a thread that
            // failed), until the thread is archived: a list page's record
            // goes when the walk stores the next page.
            if !page.unreadRows.isEmpty {
                let message =
                    "\(page.unreadRows.count) row(s) could not be read: "
                    + page.unreadRows.map(\.description).joined(separator: "; ")
                let failure = Failure(url: url, error: .parseWarning(url: url, message: message), kind: .partial)
                report.failures.append(failure)
                events(.failure(url: url, reason: failure.reason))
                for row in page.unreadRows {
                    try? store.recordFailure(
                        url: source.originalThreadURL(board: board, gid: row.gid), board: board,
                        reason: "its row on \(url) could not be read: \(row.problem)", kind: "partial")
                }
            }
            forumPages = page.page.total
            lastPage = min(lastPage, forumPages)
            events(
                .stage(
                    name: "\(board) list pages", done: number, total: lastPage == Int.max ? nil : lastPage, failed: 0))

            if incremental {
                let rows = page.threads.filter { !$0.sticky }
                // Read with the page's rows as they were stored: no read of its own.
                let archived = listings.areArchived(rows, time: source.time)
                for isArchived in archived {
                    unchangedInARow = isArchived ? unchangedInARow + 1 : 0
                }
                if unchangedInARow >= options.stopAfterUnchanged {
                    events(.note("\(board): \(unchangedInARow) unchanged threads in a row; the rest is archived"))
                    return true
                }
                if let newestBefore, let last = rows.last, archived.last == true,
                    ArchiveStore.latestListedTime(ArchiveStore.seconds(last.lastReplyAt), time: source.time)
                        < newestBefore
                {
                    events(
                        .note(
                            "\(board): list page \(number) ends with threads older than the last walk saw; the rest is archived"
                        ))
                    return true
                }
            }
            number += 1
        }
        return number > forumPages
    }

    func boardPage(_ url: String, board: String) async throws(ArchiveError) -> BoardPage {
        try boardPage(try await fetcher.fetchPage(url, headers: source.requestHeaders), url: url, board: board)
    }

    /// A fetched list page of `board`, parsed.
    func boardPage(_ fetched: FetchedPage, url: String, board: String) throws(ArchiveError) -> BoardPage {
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
    func parse(_ page: FetchedPage, board: String) throws(ArchiveError) -> ForumPage {
        do {
            return try source.parse(page)
        } catch {
            if case .forumError(_, let message) = error, source.isLoginWall(message: message) {
                throw .needsLogin(board: board, cookies: options.cookies)
            }
            throw error
        }
    }

    func fail(_ url: String, _ error: ArchiveError, board: String?, into report: inout Report) {
        report.failures.append(Failure(url: url, error: error))
        events(.failure(url: url, reason: "\(error)"))
        try? store.recordFailure(url: url, board: board, reason: "\(error)")
    }
}

/// What the store says of a board when its walk begins (`archiveBoard`).
private struct WalkStart {
    var newest: Int64?
    var resumed: Int
    var covered: Bool
    /// Read only for a walk that can find list page 1 as the last walk kept it.
    var firstCapture: KnownCapture?
    typealias Pending = (threads: [(summary: ThreadSummary, archivedPosts: Int)], known: Int)
    var pending: Pending?
}

import Foundation

/// `bbsarchive fetch`: fill the store from the forum.
package struct FetchAction: Sendable {
    package var boards: [String]
    package var source: any ForumSource
    package var storePath: String
    /// Requests a second per host; 0 is no limit.
    package var rate: Double
    package var options: Archiver.Options
    package var retry: RetryPolicy
    package var respectRobots: Bool
    /// `--cookies`: a cookies.txt path or a `Cookie:` header value.
    package var cookies: String?
    /// `--media-host`: hosts (`host` or `host:port`) besides the forum's own
    /// and its known attachment hosts that attachments may be fetched from.
    package var mediaHosts: [String] = []
    /// Settings of the libcurl client (timeouts); connections and cookies
    /// are filled in from the options above.
    package var http: CurlHTTPClient.Options
    /// The time pages are stamped with and the store records.
    package var clock: ArchiveClock = SystemClock.now
    /// The HTTP client; `nil` is libcurl with `http`. A seam for tests that
    /// watch what is sent when.
    package var client: (any HTTPClient)?

    package init(
        boards: [String], source: any ForumSource, storePath: String, rate: Double,
        options: Archiver.Options = .init(), retry: RetryPolicy = RetryPolicy(), respectRobots: Bool = true,
        cookies: String? = nil, http: CurlHTTPClient.Options = .init()
    ) {
        self.boards = boards
        self.source = source
        self.storePath = storePath
        self.rate = rate
        self.options = options
        self.retry = retry
        self.respectRobots = respectRobots
        self.cookies = cookies
        self.http = http
    }

    /// What fetches work with, opened once: the store, the HTTP client
    /// (which keeps its connections open), the rate limiter, and the
    /// options with the cookies' state. `archive --every` keeps one from
    /// update to update.
    package struct Session: Sendable {
        package let store: ArchiveStore
        let client: any HTTPClient
        let limiter: RateLimiter
        let options: Archiver.Options
        let connections: Int
    }

    /// Runs the fetch. Pages that failed are in the report; the caller
    /// decides how to tell the user (see `ArchiveError.incomplete`).
    package func run(events: @escaping ProgressSink) async throws(ArchiveError) -> Archiver.Report {
        try await run(in: try await open(events: events), events: events)
    }

    /// One fetch of the boards with what `session` holds open. A new
    /// `Fetcher` each time: robots.txt is read again, as by a run of its own.
    package func run(in session: Session, events: @escaping ProgressSink) async throws(ArchiveError)
        -> Archiver.Report
    {
        let fetcher = Fetcher(
            client: session.client, limiter: session.limiter, captures: session.store,
            policy: retry, respectRobots: respectRobots, hosts: HostPolicy.forum(source, mediaHosts: mediaHosts),
            events: events, clock: clock, connections: session.connections)
        let archiver = Archiver(
            source: source, fetcher: fetcher, store: session.store, options: session.options, events: events)
        return try await archiver.run(boards: boards)
    }

    /// Checks the options, reads the cookies, loads libcurl and opens the
    /// store (making it when it is not there).
    package func open(events: @escaping ProgressSink) async throws(ArchiveError) -> Session {
        guard !boards.isEmpty else {
            throw .invalidOption("name at least one board, e.g. `bbsarchive fetch Geography`")
        }
        guard rate >= 0, rate.isFinite else {
            throw .invalidOption("--rate must be a number of requests a second, 0 or more")
        }
        let host = URLComponents(string: source.baseURL)?.host ?? ""
        var http = self.http
        var options = self.options
        http.maxConnections = max(1, options.connections)
        if let cookies {
            let jar = try CookieJar(argument: cookies, forumHost: host)
            http.cookies = jar
            options.cookies = jar.allExpired(forHost: host) ? .expired(jar.origin) : .rejected(jar.origin)
            if jar.allExpired(forHost: host) {
                events(
                    .note("every cookie in \(jar.origin) for \(host) has expired; boards that need a login will fail"))
            }
        }
        if !respectRobots {
            events(.note("--ignore-robots: robots.txt is not read; make sure the site's owners allow this"))
        }
        // libcurl is loaded beside the opening of a store that is there, not
        // before it: each took about 19 M instructions (5 ms) of a fetch of
        // one new reply. A new store is made only once libcurl is known to
        // be there: a missing library is one clear error, and no store made.
        let exists = FileManager.default.fileExists(atPath: storePath)
        let curl = client == nil ? Task.detached { Curl.load() } : nil
        if !exists, let missing = await curl?.value { throw .missingLibrary(missing) }
        let opened = Result<ArchiveStore, ArchiveError> { () throws(ArchiveError) in
            try ArchiveStore(path: storePath, clock: clock)
        }
        if let missing = await curl?.value { throw .missingLibrary(missing) }
        return Session(
            store: try opened.get(), client: client ?? CurlHTTPClient(options: http),
            limiter: RateLimiter(requestsPerSecond: rate), options: options, connections: http.maxConnections)
    }
}

/// `bbsarchive reparse`: rebuild the models from the raw captures, without
/// the network, so a better parser improves an old archive. Rows never move
/// between threads: a capture counts for the thread it was asked for, and
/// not at all when another thread's address answered it. A thread is read
/// again only from all its pages, as fetch stores one: when a page of it
/// has no capture that parses, it is kept as stored, and said. So is a
/// thread fetched later from another front end than the board's source
/// now: its older pages are not read over what the store holds.
package struct ReparseAction: Sendable {
    /// The order captures are read in: board pages, then each thread's
    /// pages together, by gid and page. (By URL as text, `…/10000?p=2`
    /// came after `…/100000`, and a thread's pages arrived in two parts.)
    static func readingOrder(_ urls: [String], source: any ForumSource) -> [String] {
        func key(_ url: String) -> (Int, Int, Int) {
            switch source.address(of: url) {
            case .board(_, let page): (0, 0, page)
            case .thread(_, let gid, let page): (1, gid, page)
            case nil: (2, 0, 0)
            }
        }
        return urls.map { ($0, key($0)) }.sorted { ($0.1.0, $0.1.1, $0.1.2, $0.0) < ($1.1.0, $1.1.1, $1.1.2, $1.0) }
            .map(\.0)
    }

    /// Whether the page asked for and the page that answered are the same
    /// thread (or not threads at all).
    static func sameThread(_ asked: PageAddress, _ answered: PageAddress?) -> Bool {
        guard case .thread(let board, let gid, _) = asked, case .thread(let b, let g, _)? = answered else {
            return true
        }
        return board == b && gid == g
    }

    /// What the store holds of a board's threads from addresses reparse
    /// does not read: another front end than the board's source now, or
    /// another address. A thread whose newest pages, or a list row newer
    /// than the one read, came from there is not read again from older
    /// pages; that is what the store holds of it.
    struct Elsewhere {
        /// Each thread's newest page there: when, by which source, where.
        var threads: [Int: (at: Date, source: String, url: String)] = [:]
        /// When a list page there last listed each thread.
        var listed: [Int: Date] = [:]

        /// When anything there last showed the thread.
        func latest(_ gid: Int) -> Date? { [threads[gid]?.at, listed[gid]].compactMap { $0 }.max() }
    }

    /// `Elsewhere` for `board`: the captures at addresses none of `read`
    /// (the board's source's markers) holds, by every front end the project
    /// knows. The addresses are matched by their paths alone, and each is
    /// read by the source whose address it is; list pages are parsed by it
    /// for the threads they list (only these: usually none).
    static func elsewhere(board: String, store: ArchiveStore, besides read: [String]) throws(ArchiveError) -> Elsewhere
    {
        let sources = ForumSources.names.compactMap { name in
            (try? ForumSources.make(name, baseURL: nil)).map { (name, $0) }
        }
        let paths = Set(
            sources.flatMap { $0.1.captureMarkers(board: board) }.compactMap { URLComponents(string: $0)?.path }
                .filter { !$0.isEmpty })
        // A path inside another (one front end's path may hold another's)
        // finds the other's addresses too.
        let reads = paths.filter { path in !paths.contains { $0 != path && path.contains($0) } }
        var found = Elsewhere()
        var lists: [(url: String, at: Date, source: any ForumSource)] = []
        for (url, at) in try store.newestCaptureTimes(containing: reads.sorted())
        where !read.contains(where: { url.contains($0) }) {
            for (name, source) in sources {
                switch source.address(of: url) {
                case .thread(let b, let gid, _)? where b == board:
                    if let known = found.threads[gid], known.at >= at { break }
                    found.threads[gid] = (at, name, url)
                case .board(let b, _)? where b == board:
                    lists.append((url, at, source))
                default:
                    continue
                }
                break
            }
        }
        for list in lists {
            guard let response = try store.latestCapture(url: list.url), (200..<300).contains(response.status),
                case .board(let parsed)? = try? list.source.parse(
                    FetchedPage(
                        url: response.url, body: response.body, contentType: response.header("Content-Type"),
                        fetchedAt: response.fetchedAt))
            else { continue }
            for row in parsed.threads where (found.listed[row.gid] ?? .distantPast) < list.at {
                found.listed[row.gid] = list.at
            }
        }
        return found
    }

    package var storePath: String

    package init(storePath: String) {
        self.storePath = storePath
    }

    package struct Report: Sendable, Equatable {
        package var boardPages = 0
        package var threads = 0
        package var posts = 0
        /// `URL: reason` for captures that no longer parse.
        package var failures: [String] = []
        /// Posts stored with a parse warning, and `URL: warnings` of their pages.
        package var partialPosts = 0
        package var partial: [String] = []
        /// `board/gid: …` of threads kept as stored, and why: a page of them
        /// missing, or newer pages of them from another front end.
        package var kept: [String] = []
        /// List rows not read again: a newer page of another front end or
        /// address showed their thread (what the store holds of it).
        package var keptRows = 0
    }

    package func run(events: @escaping ProgressSink = { _ in }) throws(ArchiveError) -> Report {
        guard FileManager.default.fileExists(atPath: storePath) else { throw .noStore(path: storePath) }
        let store = try ArchiveStore(path: storePath)
        var report = Report()
        for board in try store.boards() {
            guard let name = board.source else { continue }
            let source = try ForumSources.make(name, baseURL: board.baseURL)
            let ingest = Ingest(store: store, source: source)
            let markers = source.captureMarkers(board: board.name).filter { !$0.isEmpty }
            let elsewhere = try Self.elsewhere(board: board.name, store: store, besides: markers)
            let threadsBefore = report.threads
            // The board's list pages, stored oldest first once read. A
            // thread listed on two of them (one that moved to page 1 is also
            // on an older capture of page 2) gets only the newer row: written
            // twice, it would be logged as changed by every reparse.
            var lists: [(at: Date, page: BoardPage)] = []
            func storeLists() throws(ArchiveError) {
                var newest: [Int: Date] = [:]
                for list in lists {
                    for row in list.page.threads where (newest[row.gid] ?? .distantPast) < list.at {
                        newest[row.gid] = list.at
                    }
                }
                for (_, list) in lists.enumerated().sorted(by: {
                    ($0.element.at, $0.offset) < ($1.element.at, $1.offset)
                }) {
                    var page = list.page
                    let count = page.threads.count
                    page.threads.removeAll { row in elsewhere.latest(row.gid).map { $0 > list.at } ?? false }
                    report.keptRows += count - page.threads.count
                    page.threads.removeAll { row in newest[row.gid].map { $0 > list.at } ?? false }
                    try ingest.board(page, board: board.name)
                    report.boardPages += 1
                }
                lists = []
            }
            var pending: (gid: Int, pages: [ThreadPage], at: Date)?
            func flush() throws(ArchiveError) {
                guard let thread = pending else { return }
                // Pages fetched later from another front end (or address)
                // are what the store holds of the thread: older pages read
                // now would turn its posts back (QA: a board fetched from
                // one front end, then the other, then the first again).
                if let later = elsewhere.threads[thread.gid], later.at > thread.at {
                    report.kept.append(
                        "\(board.name)/\(thread.gid): newer pages at \(later.url) (\(later.source)); kept as stored"
                    )
                    pending = nil
                    return
                }
                let pages = thread.pages.sorted { $0.page.current < $1.page.current }
                // Part of a thread (a page failed when it was fetched, or its
                // newest capture no longer parses) is not stored over it.
                // All its pages: 1 to the most any of them says there are.
                let total = max(1, pages.map(\.page.total).max() ?? 1)
                guard Set(pages.map(\.page.current)).isSuperset(of: 1...total) else {
                    report.kept.append(
                        "\(board.name)/\(thread.gid): page(s) \(pages.map { String($0.page.current) }.joined(separator: ", ")) of \(total) read; kept as stored"
                    )
                    pending = nil
                    return
                }
                let notes = try ingest.thread(pages, board: board.name, gid: thread.gid, summary: nil)
                report.kept += notes.map { "\(board.name)/\(thread.gid): \($0)" }
                report.threads += 1
                report.posts += pages.reduce(0) { $0 + $1.posts.count }
                pending = nil
            }
            for marker in markers {
                try store.forEachLatestCapture(
                    containing: marker, ordered: { Self.readingOrder($0, source: source) }
                ) { (response) throws(ArchiveError) in
                    // A capture is read as the page it was asked for; one that
                    // another thread's address answered is no page of this one.
                    guard let address = source.address(of: response.requestedURL),
                        Self.sameThread(address, source.address(of: response.url))
                    else { return }
                    let page = FetchedPage(
                        url: response.url, body: response.body, contentType: response.header("Content-Type"),
                        fetchedAt: response.fetchedAt)
                    do throws(ArchiveError) {
                        switch (address, try source.parse(page)) {
                        case (.board(let b, _), .board(let parsed)) where b == board.name:
                            lists.append((response.fetchedAt, parsed))
                            if let message = parsed.rowReport { report.partial.append("\(response.url): \(message)") }
                        case (.thread(let b, let gid, _), .thread(var parsed)) where b == board.name:
                            // The list rows first, as a fetch stores them.
                            if !lists.isEmpty { try storeLists() }
                            parsed.board = board.name
                            parsed.gid = gid
                            if let partial = Archiver.partial(parsed, url: response.url) {
                                report.partialPosts += partial.posts
                                report.partial.append("\(response.url): \(partial.error)")
                            }
                            if pending?.gid != gid { try flush() }
                            pending = (
                                gid, (pending?.pages ?? []) + [parsed],
                                max(pending?.at ?? .distantPast, response.fetchedAt)
                            )
                        default:
                            break
                        }
                    } catch {
                        if case .storeUnavailable = error { throw error }
                        report.failures.append("\(response.url): \(error)")
                    }
                }
                try storeLists()
                try flush()
            }
            events(.note("\(board.name): re-read \(report.threads - threadsBefore) thread(s) from the stored pages"))
        }
        return report
    }
}

/// `bbsarchive build`: render the store into the output folder.
package struct BuildAction: Sendable {
    package var storePath: String
    package var outputPath: String
    package var templatesPath: String?
    /// `--site-url`: where the archive is published, for the sitemap and feeds.
    package var siteURL: String?
    /// Render every page, even those whose inputs did not change.
    package var full = false
    /// The time the build is recorded at, beside the store's times.
    package var clock: ArchiveClock = SystemClock.now
    /// Write the search index. Only the bench turns it off
    /// (`bbsarchive-bench build --index no`), to time what indexing adds.
    package var searchIndex = true
    /// Rows the builds of this action keep for the next (`ThreadRowMemo`):
    /// set by `archive --every`, which builds again and again.
    package var threadRows: ThreadRowMemo?

    package init(storePath: String, outputPath: String, templatesPath: String?, siteURL: String? = nil) {
        self.storePath = storePath
        self.outputPath = outputPath
        self.templatesPath = templatesPath
        self.siteURL = siteURL
    }

    package func run() async throws(ArchiveError) -> SiteBuilder.Report {
        guard FileManager.default.fileExists(atPath: storePath) else {
            throw .noStore(path: storePath)
        }
        let options = try siteOptions()
        let directory = try templatesDirectory()
        // The store opens on another thread while the templates load: about
        // 21 M and 8 M instructions of a build after one reply, one after
        // the other before. A template that cannot be read is still the
        // error told, once the store is closed again. A store that cannot
        // be written where it is opens read-only: what a build writes to
        // the store (hot counts, the search index's map, image facts) only
        // saves work later.
        let opening = Task.detached { [storePath, clock] in
            Result<ArchiveStore, ArchiveError> { () throws(ArchiveError) in
                try ArchiveStore(path: storePath, clock: clock, use: .read)
            }
        }
        let templates: TemplateSet
        do throws(ArchiveError) {
            templates = try await TemplateSet(directory: directory)
        } catch {
            _ = await opening.value
            throw error
        }
        return try build(store: try await opening.value.get(), templates: templates, options: options)
    }

    /// One build with a store and templates already open (`archive
    /// --every` keeps them from update to update).
    package func run(store: ArchiveStore, templates: TemplateSet) throws(ArchiveError) -> SiteBuilder.Report {
        try build(store: store, templates: templates, options: try siteOptions())
    }

    /// The templates the build uses (`templatesPath`, or the default ones).
    package func loadTemplates() async throws(ArchiveError) -> TemplateSet {
        try await TemplateSet(directory: try templatesDirectory())
    }

    private func build(store: ArchiveStore, templates: TemplateSet, options: SiteBuilder.Options)
        throws(ArchiveError) -> SiteBuilder.Report
    {
        var options = options
        try OriginalURLs.fillIn(store)
        options.forum = ForumSources.profile(sources: try store.boards().map(\.source))
        // Many files are left to the kernel, in this boot (`DiskPublisher.boot`).
        let publisher = try DiskPublisher(root: URL(fileURLWithPath: outputPath), boot: DiskPublisher.currentBoot)
        var builder = SiteBuilder(store: store, templates: templates, publisher: publisher, options: options)
        builder.threadRows = threadRows
        return try builder.build()
    }

    /// The builder's options from this action's (`--full`, `--site-url`).
    private func siteOptions() throws(ArchiveError) -> SiteBuilder.Options {
        var options = SiteBuilder.Options()
        options.incremental = !full
        options.searchIndex = searchIndex
        if let siteURL {
            guard let normalized = SiteBuilder.normalizedSiteURL(siteURL) else {
                throw .invalidOption(
                    "--site-url \"\(siteURL)\" is not an http(s) address of a folder, e.g. https://example.org/smth/")
            }
            options.siteURL = normalized
        }
        return options
    }

    private func templatesDirectory() throws(ArchiveError) -> URL {
        if let templatesPath { return URL(fileURLWithPath: templatesPath) }
        if let found = TemplateSet.defaultDirectory() { return found }
        throw .templates(
            path: "templates/",
            reason:
                "no templates folder was found beside the program, in ../share/bbsarchive/templates or in a source checkout"
        )
    }
}

/// `bbsarchive parse`: one page's model as JSON, for inspection.
package struct ParseAction: Sendable {
    package var source: any ForumSource
    package var input: String
    package var fetchedAt: Date?

    package init(source: any ForumSource, input: String, fetchedAt: Date?) {
        self.source = source
        self.input = input
        self.fetchedAt = fetchedAt
    }

    /// The page model as pretty-printed JSON.
    package func run(client: (any HTTPClient)? = nil) async throws(ArchiveError) -> String {
        try await inspect(client: client).json
    }

    /// The JSON, and how many posts on the page could be read only in part
    /// (and how many post containers could not be read at all).
    /// A saved file is read without libcurl; a URL is fetched with
    /// `client`, libcurl's unless one is given.
    package func inspect(client: (any HTTPClient)? = nil) async throws(ArchiveError)
        -> (json: String, partialPosts: Int, unreadPosts: Int, unreadRows: Int, partlyReadRows: Int)
    {
        let page: FetchedPage
        if input.hasPrefix("http://") || input.hasPrefix("https://") {
            let response = try await (client ?? CurlHTTPClient()).get(input, headers: source.requestHeaders)
            guard (200..<300).contains(response.status) else { throw .httpStatus(url: input, status: response.status) }
            page = FetchedPage(
                url: response.url, body: response.body, contentType: response.header("Content-Type"),
                fetchedAt: fetchedAt ?? response.fetchedAt)
        } else {
            guard let data = FileManager.default.contents(atPath: input) else {
                let reason =
                    FileManager.default.fileExists(atPath: input) ? "it cannot be read" : "there is no such file"
                throw .unreadableFile(path: input, reason: reason)
            }
            // A saved file has no address: links on it resolve against the
            // forum's, and the page's own links name its board and thread.
            page = FetchedPage(url: source.baseURL + "/", body: data, contentType: nil, fetchedAt: fetchedAt ?? Date())
        }
        let parsed = try source.parse(page)
        var partial = 0
        var unread = 0
        var unreadRows = 0
        var partlyReadRows = 0
        if case .thread(let thread) = parsed {
            partial = thread.partialPosts.count
            unread = max(0, (thread.containers ?? 0) - thread.posts.count)
        }
        if case .board(let board) = parsed {
            unreadRows = board.unreadRows.count
            partlyReadRows = board.partlyReadRows.count
        }
        return (try PageJSON.encode(parsed, forum: source.profile), partial, unread, unreadRows, partlyReadRows)
    }
}

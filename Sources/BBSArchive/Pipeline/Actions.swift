import Foundation

/// `bbsarchive fetch`: fill the store from the forum.
public struct FetchAction: Sendable {
    public var boards: [String]
    public var source: any ForumSource
    public var storePath: String
    public var rate: Double
    public var options: Archiver.Options
    public var client: any HTTPClient

    public init(
        boards: [String], source: any ForumSource, storePath: String, rate: Double,
        options: Archiver.Options = .init(), client: any HTTPClient = CurlHTTPClient()
    ) {
        self.boards = boards
        self.source = source
        self.storePath = storePath
        self.rate = rate
        self.options = options
        self.client = client
    }

    /// Runs the fetch. Pages that failed are in the report; the caller
    /// decides how to tell the user (see `ArchiveError.incomplete`).
    public func run(log: @escaping @Sendable (String) -> Void) async throws(ArchiveError) -> Archiver.Report {
        guard !boards.isEmpty else {
            throw .invalidOption("name at least one board, e.g. `bbsarchive fetch Geography`")
        }
        guard rate >= 0, rate.isFinite else {
            throw .invalidOption("--rate must be a number of requests a second, 0 or more")
        }
        let store = try ArchiveStore(path: storePath)
        let fetcher = Fetcher(client: client, limiter: RateLimiter(requestsPerSecond: rate), store: store)
        let archiver = Archiver(source: source, fetcher: fetcher, options: options, log: log)
        return try await archiver.run(boards: boards)
    }
}

/// `bbsarchive build`: render the store into the output folder.
public struct BuildAction: Sendable {
    public var storePath: String
    public var outputPath: String
    public var templatesPath: String?
    /// `--site-url`: where the archive is published, for the sitemap and feeds.
    public var siteURL: String?

    public init(storePath: String, outputPath: String, templatesPath: String?, siteURL: String? = nil) {
        self.storePath = storePath
        self.outputPath = outputPath
        self.templatesPath = templatesPath
        self.siteURL = siteURL
    }

    public func run() async throws(ArchiveError) -> SiteBuilder.Report {
        guard FileManager.default.fileExists(atPath: storePath) else {
            throw .noStore(path: storePath)
        }
        var options = SiteBuilder.Options()
        if let siteURL {
            guard let normalized = SiteBuilder.normalizedSiteURL(siteURL) else {
                throw .invalidOption(
                    "--site-url \"\(siteURL)\" is not an http(s) address of a folder, e.g. https://example.org/smth/")
            }
            options.siteURL = normalized
        }
        let directory: URL
        if let templatesPath {
            directory = URL(fileURLWithPath: templatesPath)
        } else if let found = TemplateSet.defaultDirectory() {
            directory = found
        } else {
            throw .templates(path: "templates/", reason: "no templates folder was found beside the program")
        }
        let templates = try await TemplateSet(directory: directory)
        let store = try ArchiveStore(path: storePath)
        let publisher = try DiskPublisher(root: URL(fileURLWithPath: outputPath))
        return try SiteBuilder(store: store, templates: templates, publisher: publisher, options: options).build()
    }
}

/// `bbsarchive parse`: one page's model as JSON, for inspection.
public struct ParseAction: Sendable {
    public var source: any ForumSource
    public var input: String
    public var fetchedAt: Date?

    public init(source: any ForumSource, input: String, fetchedAt: Date?) {
        self.source = source
        self.input = input
        self.fetchedAt = fetchedAt
    }

    /// The page model as pretty-printed JSON.
    public func run(client: any HTTPClient = CurlHTTPClient()) async throws(ArchiveError) -> String {
        let page: FetchedPage
        if input.hasPrefix("http://") || input.hasPrefix("https://") {
            let response = try await client.get(input)
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
            // A saved file has no address: links on it resolve against the forum's.
            page = FetchedPage(url: source.baseURL + "/", body: data, contentType: nil, fetchedAt: fetchedAt ?? Date())
        }
        return try PageJSON.encode(source.parse(page))
    }
}

import ArgumentParser
import BBSArchive
import Foundation

/// `bbsarchive`: turns forum boards into a static archive.
public struct BBSArchiveCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "bbsarchive",
        abstract: "Archive BBS forum boards into a static site you can read in any browser.",
        version: BBSArchiveVersion.version,
        subcommands: [
            ArchiveCommand.self, FetchCommand.self, BuildCommand.self, ReparseCommand.self, ParseCommand.self,
        ])

    public init() {}
}

/// Where the forum is and which front end to read.
struct ForumOptions: ParsableArguments {
    @Option(name: .customLong("forum-url"), help: "The forum's address (default: the chosen source's real site).")
    var forumURL: String?

    @Option(help: "The forum front end: \(ForumSources.names.joined(separator: ", ")).")
    var source = "smth-mobile"

    func makeSource() throws(ArchiveError) -> any ForumSource {
        if let forumURL {
            guard let url = URL(string: forumURL), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host != nil
            else {
                throw .invalidOption(
                    "--forum-url \"\(forumURL)\" is not an http(s) address, e.g. http://127.0.0.1:8080")
            }
        }
        return try ForumSources.make(source, baseURL: forumURL)
    }
}

struct StoreOptions: ParsableArguments {
    @Option(help: "The SQLite store that holds everything fetched.")
    var store = "archive.sqlite"
}

struct FetchOptions: ParsableArguments {
    @Option(help: "Board list pages to walk per board (default: all).")
    var pages: Int?

    @Option(help: "Requests a second to each host, shared by all connections (0: no limit, for a local replica only).")
    var rate: Double = 1

    @Option(help: "Threads fetched at the same time (and connections kept open).")
    var connections = 4

    @Option(help: "Your browser's cookies for boards that need a login: a cookies.txt file or a Cookie header value.")
    var cookies: String?

    @Flag(name: .customLong("ignore-robots"), help: "Do not read robots.txt (only with the site owners' permission).")
    var ignoreRobots = false

    @Option(
        name: .customLong("stop-after"),
        help:
            "On a board archived before, stop walking its list after this many unchanged threads in a row (0: walk it all)."
    )
    var stopAfter = 30

    @Option(help: "Tries per request before a page is recorded as failed (timeouts, resets, 5xx, 429).")
    var tries = 4

    @Option(help: "Seconds one request may take.")
    var timeout = 120

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let pages, pages < 1 { throw ValidationError("--pages must be 1 or more") }
        if rate < 0 || !rate.isFinite { throw ValidationError("--rate must be 0 or more requests a second") }
        if connections < 1 || connections > 64 { throw ValidationError("--connections must be between 1 and 64") }
        if stopAfter < 0 { throw ValidationError("--stop-after must be 0 or more") }
        if tries < 1 { throw ValidationError("--tries must be 1 or more") }
        if timeout < 1 { throw ValidationError("--timeout must be 1 second or more") }
    }
}

/// How progress is shown.
struct OutputOptions: ParsableArguments {
    enum LogFormat: String, ExpressibleByArgument {
        case text, json
    }

    @Flag(help: "Print only errors.")
    var quiet = false

    @Option(name: .customLong("log-format"), help: "text (a live line on a terminal) or json (one event a line).")
    var logFormat: LogFormat = .text
}

struct BuildOptions: ParsableArguments {
    @Option(help: "The folder the site is written to.")
    var out = "site"

    @Option(help: "A folder of Mustache templates to use instead of the default ones.")
    var templates: String?

    @Option(
        name: .customLong("site-url"),
        help: "Where the site will be published (https://example.org/smth/), for sitemap.xml and the feeds' links.")
    var siteURL: String?

    @Flag(help: "Render every page again, not only those whose threads changed since the last build.")
    var full = false
}

struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive", abstract: "Fetch boards into the store, then build the site (the everyday command).")

    @Argument(help: "Board ids, e.g. Geography.")
    var boards: [String]

    @OptionGroup var forum: ForumOptions
    @OptionGroup var storage: StoreOptions
    @OptionGroup var fetching: FetchOptions
    @OptionGroup var building: BuildOptions

    func run() async throws {
        try await Runner.run {
            let failures = try await Runner.fetch(boards, forum, storage, fetching)
            try await Runner.build(storage, building, quiet: fetching.output.quiet)
            try Runner.report(failures, listed: !fetching.output.quiet)
        }
    }
}

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: "Fill the store from the forum, without building the site.")

    @Argument(help: "Board ids, e.g. Geography.")
    var boards: [String]

    @OptionGroup var forum: ForumOptions
    @OptionGroup var storage: StoreOptions
    @OptionGroup var fetching: FetchOptions

    func run() async throws {
        try await Runner.run {
            try Runner.report(try await Runner.fetch(boards, forum, storage, fetching), listed: !fetching.output.quiet)
        }
    }
}

struct BuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build", abstract: "Render the store into the output folder (no network).")

    @OptionGroup var storage: StoreOptions
    @OptionGroup var building: BuildOptions

    @Flag(help: "Print only errors.")
    var quiet = false

    func run() async throws {
        try await Runner.run { try await Runner.build(storage, building, quiet: quiet) }
    }
}

struct ReparseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reparse",
        abstract: "Re-read every stored page with the current parser, without the network, then run build.")

    @OptionGroup var storage: StoreOptions

    @Flag(help: "Print only errors.")
    var quiet = false

    func run() async throws {
        try await Runner.run {
            let printer = ProgressPrinter(format: .text, quiet: quiet)
            let report = try ReparseAction(storePath: storage.store).run(events: printer.handle)
            printer.finish()
            if !quiet {
                Runner.printError(
                    "re-read \(report.boardPages) board page(s) and \(report.threads) thread(s) with \(report.posts) post(s) from \(storage.store)"
                )
            }
            for page in report.partial { Runner.printError("partial: \(page)") }
            if report.partialPosts > 0 {
                Runner.printError(
                    "\(report.partialPosts) post(s) could be read only in part; kept with a parse warning")
            }
            for failure in report.failures { Runner.printError("failed: \(failure)") }
            if !report.failures.isEmpty { throw ArchiveError.incomplete(failures: report.failures) }
        }
    }
}

struct ParseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse", abstract: "Print one page's model as JSON (a saved file or a URL).")

    @Argument(help: "A saved page, or the URL of one.")
    var input: String

    @OptionGroup var forum: ForumOptions

    @Option(
        name: .customLong("fetched-at"),
        help: "When the page was fetched, ISO 8601 (HH:MM:SS times on it mean that day; default: now).")
    var fetchedAt: String?

    func run() async throws {
        try await Runner.run {
            var when: Date?
            if let fetchedAt {
                guard let date = BeijingTime.parseISO8601(fetchedAt) else {
                    throw ArchiveError.invalidOption(
                        "--fetched-at \"\(fetchedAt)\" is not an ISO 8601 time, e.g. 2026-08-01T16:00:00+08:00")
                }
                when = date
            }
            let result = try await ParseAction(source: forum.makeSource(), input: input, fetchedAt: when).inspect()
            print(result.json)
            if result.partialPosts > 0 {
                Runner.printError(
                    "\(result.partialPosts) post(s) could be read only in part: see their \"warning\" and \"rawText\"")
            }
            if result.unreadPosts > 0 {
                Runner.printError("\(result.unreadPosts) post(s) in the page's markup could not be read at all")
            }
        }
    }
}

/// Runs the actions and turns their errors into one line and an exit code.
enum Runner {
    static func run(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ArchiveError {
            printError("bbsarchive: error: \(error)")
            throw ExitCode(1)
        }
    }

    static func fetch(_ boards: [String], _ forum: ForumOptions, _ storage: StoreOptions, _ fetching: FetchOptions)
        async throws -> [Archiver.Failure]
    {
        let printer = ProgressPrinter(
            format: fetching.output.logFormat == .json ? .json : .text, quiet: fetching.output.quiet)
        var http = CurlHTTPClient.Options()
        http.timeout = fetching.timeout
        let action = FetchAction(
            boards: boards, source: try forum.makeSource(), storePath: storage.store, rate: fetching.rate,
            options: Archiver.Options(
                pages: fetching.pages, connections: fetching.connections, stopAfterUnchanged: fetching.stopAfter),
            retry: RetryPolicy(attempts: fetching.tries), respectRobots: !fetching.ignoreRobots,
            cookies: fetching.cookies, http: http)
        let report: Archiver.Report
        do {
            report = try await action.run(events: printer.handle)
        } catch {
            printer.finish()
            throw error
        }
        printer.finish()
        if !fetching.output.quiet {
            printer.summary(
                "fetched \(report.boardPages) list page(s) and \(report.threadsFetched) thread(s) (\(report.threadPages) page(s), "
                    + "\(report.posts) post(s)), \(report.media) attachment(s); \(report.threadsUnchanged) thread(s) unchanged; "
                    + "store: \(storage.store)")
        }
        if report.partialPosts > 0 {
            Runner.printError(
                "\(report.partialPosts) post(s) could be read only in part; kept with a parse warning and their raw text"
            )
        }
        return report.failures
    }

    /// Ends a run that had failures: one error alone is said as itself;
    /// several are listed (unless the live output showed them), then summed up.
    static func report(_ failures: [Archiver.Failure], listed: Bool) throws {
        guard let first = failures.first else { return }
        if failures.count == 1 { throw first.error }
        if !listed {
            for failure in failures { printError("failed: \(failure)") }
        }
        throw ArchiveError.incomplete(failures: failures.map(\.description))
    }

    static func build(_ storage: StoreOptions, _ building: BuildOptions, quiet: Bool) async throws {
        var action = BuildAction(
            storePath: storage.store, outputPath: building.out, templatesPath: building.templates,
            siteURL: building.siteURL)
        action.full = building.full
        let report = try await action.run()
        if !quiet {
            let skipped =
                report.skippedThreads + report.skippedUsers > 0
                ? "; \(report.skippedThreads) thread(s) and \(report.skippedUsers) user(s) unchanged since the last build"
                : ""
            printError(
                "built \(report.pages) page(s), \(report.markdownFiles) Markdown file(s), \(report.mediaFiles) new media file(s); "
                    + "\(report.written) written, \(report.unchanged) unchanged" + skipped)
            if !report.sitemap {
                printError("no sitemap.xml, and feeds link relative to themselves: pass --site-url to publish them")
            }
            let index = URL(fileURLWithPath: building.out).appendingPathComponent("index.html").path
            print("open \(index)")
        }
    }

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

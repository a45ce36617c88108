import ArgumentParser
import BBSArchive
import Foundation

/// `bbsarchive`: turns forum boards into a static archive.
package struct BBSArchiveCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "bbsarchive",
        abstract: "Archive BBS forum boards into a static site you can read in any browser.",
        version: BuildInfo.versionLine,
        subcommands: [
            ArchiveCommand.self, FetchCommand.self, BuildCommand.self, ReparseCommand.self, ParseCommand.self,
            InitCommand.self,
            StatusCommand.self,
            ExportCommand.self,
            ServeCommand.self,
        ])

    package init() {}

    /// Runs the command line with bbsarchive's exit statuses: a usage
    /// mistake exits with 2 (not ArgumentParser's 64), like a wrong config.
    package static func main() async {
        StopNotice.install()
        do {
            // `fetch`, `build` and `archive` as they are run every day, read
            // without ArgumentParser's reflection; anything else by it.
            if var command = QuickParse.command(Array(CommandLine.arguments.dropFirst())) {
                try await command.run()
                return
            }
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                Console.error(fullMessage(for: error) + "\n")
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// Where the forum is and which front end to read.
struct ForumOptions: ParsableArguments {
    @Option(name: .customLong("forum-url"), help: "The forum's address (default: the chosen source's real site).")
    var forumURL: String?

    @Option(
        help:
            "The forum front end: \(ForumSources.names.joined(separator: ", ")) (default: \(ForumSources.defaultName))."
    )
    var source: String?

    mutating func merge(_ config: ConfigFile) {
        forumURL = forumURL ?? config.string("forum-url")
        source = source ?? config.string("source")
    }

    func makeSource() throws(ArchiveError) -> any ForumSource {
        if let forumURL {
            guard let url = URL(string: forumURL), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host != nil
            else {
                throw .invalidOption(
                    "--forum-url \"\(forumURL)\" is not an http(s) address, e.g. http://127.0.0.1:8080")
            }
        }
        return try ForumSources.make(source ?? ForumSources.defaultName, baseURL: forumURL)
    }
}

/// `--config FILE`: every command reads `./bbsarchive.toml` or this file.
struct ConfigOptions: ParsableArguments {
    @Option(help: "A config file of options (default: ./bbsarchive.toml when there is one).")
    var config: String?

    func load() throws(ArchiveError) -> ConfigFile { try ConfigFile.load(explicit: config) }
}

struct StoreOptions: ParsableArguments {
    @Option(help: "The SQLite store that holds everything fetched (default: archive.sqlite).")
    var store: String?

    var path: String { store ?? "archive.sqlite" }

    mutating func merge(_ config: ConfigFile) {
        store = store ?? config.string("store")
    }
}

/// `--wait`: wait for a run that holds the store or output folder.
struct LockOptions: ParsableArguments {
    @Flag(help: "If another run holds the store or the output folder, wait for it instead of exiting with 75.")
    var wait = false

    mutating func merge(_ config: ConfigFile) {
        wait = wait || config.bool("wait") == true
    }
}

struct FetchOptions: ParsableArguments {
    @Option(help: "Board list pages to walk per board (default: all).")
    var pages: Int?

    @Option(
        help:
            "Requests a second to each host, shared by all connections (0: no limit, for a local replica only; default: 1)."
    )
    var rate: Double?

    @Option(
        help:
            "Requests in flight at once: boards walked and threads fetched at the same time (and connections kept open; default: 4)."
    )
    var connections: Int?

    @Option(help: "Your browser's cookies for boards that need a login: a cookies.txt file or a Cookie header value.")
    var cookies: String?

    @Flag(name: .customLong("ignore-robots"), help: "Do not read robots.txt (only with the site owners' permission).")
    var ignoreRobots = false

    @Option(
        name: .customLong("stop-after"),
        help:
            "On a board archived before, stop walking its list after this many unchanged threads in a row (0: walk it all; default: 30)."
    )
    var stopAfter: Int?

    @Option(help: "Tries per request before a page is recorded as failed (timeouts, resets, 5xx, 429; default: 4).")
    var tries: Int?

    @Option(
        name: .customLong("max-thread-pages"),
        help: "Pages read of one thread at most, against a pager that never ends (default: 2000).")
    var maxThreadPages: Int?

    @Option(help: "Seconds one request may take (default: 120).")
    var timeout: Int?

    @Option(
        name: .customLong("media-host"),
        help:
            "A host (name or name:port) attachments may also be fetched from, besides the forum's own and its known attachment hosts (repeatable)."
    )
    var mediaHosts: [String] = []

    @OptionGroup var output: OutputOptions

    mutating func merge(_ config: ConfigFile) {
        pages = pages ?? config.int("pages")
        rate = rate ?? config.double("rate")
        connections = connections ?? config.int("connections")
        cookies = cookies ?? config.string("cookies")
        ignoreRobots = ignoreRobots || config.bool("ignore-robots") == true
        stopAfter = stopAfter ?? config.int("stop-after")
        tries = tries ?? config.int("tries")
        timeout = timeout ?? config.int("timeout")
        maxThreadPages = maxThreadPages ?? config.int("max-thread-pages")
        if mediaHosts.isEmpty { mediaHosts = config.strings("media-host") ?? [] }
        output.merge(config)
    }

    /// Checks the values, whether they came from the command line or the config file.
    func check() throws(ArchiveError) {
        if let pages, pages < 1 { throw .invalidOption("--pages must be 1 or more") }
        if let rate, rate < 0 || !rate.isFinite { throw .invalidOption("--rate must be 0 or more requests a second") }
        if let connections, connections < 1 || connections > 64 {
            throw .invalidOption("--connections must be between 1 and 64")
        }
        if let stopAfter, stopAfter < 0 { throw .invalidOption("--stop-after must be 0 or more") }
        if let tries, tries < 1 { throw .invalidOption("--tries must be 1 or more") }
        if let timeout, timeout < 1 { throw .invalidOption("--timeout must be 1 second or more") }
        if let maxThreadPages, maxThreadPages < 1 { throw .invalidOption("--max-thread-pages must be 1 or more") }
        for host in mediaHosts where !Self.isHost(host) {
            throw .invalidOption(
                "--media-host \"\(host)\" is not a host name (like img.example.org or img.example.org:8080)")
        }
    }

    /// `name` or `name:port`, without scheme or path.
    static func isHost(_ text: String) -> Bool {
        guard !text.isEmpty, !text.contains("/"), !text.contains("@") else { return false }
        return HostPolicy.authority(of: "http://\(text)/") == text.lowercased()
    }

    func validate() throws {
        do { try check() } catch { throw ValidationError(error.description) }
    }

    /// The same checks on the config file's values, naming its line.
    static func check(_ config: ConfigFile) throws(ArchiveError) {
        func fail(_ key: String, _ rule: String) -> ArchiveError {
            .invalidOption("\(config.place(of: key)): \"\(key)\" \(rule)")
        }
        if let pages = config.int("pages"), pages < 1 { throw fail("pages", "must be 1 or more") }
        if let rate = config.double("rate"), rate < 0 || !rate.isFinite {
            throw fail("rate", "must be 0 or more requests a second")
        }
        if let connections = config.int("connections"), connections < 1 || connections > 64 {
            throw fail("connections", "must be between 1 and 64")
        }
        if let stopAfter = config.int("stop-after"), stopAfter < 0 { throw fail("stop-after", "must be 0 or more") }
        if let tries = config.int("tries"), tries < 1 { throw fail("tries", "must be 1 or more") }
        if let timeout = config.int("timeout"), timeout < 1 { throw fail("timeout", "must be 1 second or more") }
        if let pages = config.int("max-thread-pages"), pages < 1 { throw fail("max-thread-pages", "must be 1 or more") }
        for host in config.strings("media-host") ?? [] where !isHost(host) {
            throw fail(
                "media-host", "must list host names (like img.example.org or img.example.org:8080), not \"\(host)\"")
        }
    }
}

/// How progress is shown.
struct OutputOptions: ParsableArguments {
    enum LogFormat: String, ExpressibleByArgument {
        case text, json
    }

    @Flag(help: "Print only errors.")
    var quiet = false

    @Option(
        name: .customLong("log-format"),
        help: "text (a live line on a terminal) or json (one event a line; default: text)."
    )
    var logFormat: LogFormat?

    var format: LogFormat { logFormat ?? .text }

    mutating func merge(_ config: ConfigFile) {
        quiet = quiet || config.bool("quiet") == true
        if logFormat == nil, let name = config.string("log-format") { logFormat = LogFormat(rawValue: name) }
    }

    func check(_ config: ConfigFile) throws(ArchiveError) {
        if let name = config.string("log-format"), LogFormat(rawValue: name) == nil {
            throw .invalidOption(
                "\(config.place(of: "log-format")): \"log-format\" must be \"text\" or \"json\", not \"\(name)\"")
        }
    }
}

struct BuildOptions: ParsableArguments {
    @Option(help: "The folder the site is written to (default: site).")
    var out: String?

    @Option(help: "A folder of Mustache templates to use instead of the default ones.")
    var templates: String?

    @Option(
        name: .customLong("site-url"),
        help: "Where the site will be published (https://example.org/smth/), for sitemap.xml and the feeds' links.")
    var siteURL: String?

    @Flag(help: "Render every page again, not only those whose threads changed since the last build.")
    var full = false

    var outPath: String { out ?? "site" }

    mutating func merge(_ config: ConfigFile) {
        out = out ?? config.string("out")
        templates = templates ?? config.string("templates")
        siteURL = siteURL ?? config.string("site-url")
        full = full || config.bool("full") == true
    }
}

struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive", abstract: "Fetch boards into the store, then build the site (the everyday command).")

    @Argument(help: "Board ids, e.g. Geography (default: the config file's boards).")
    var boards: [String] = []

    @OptionGroup var forum: ForumOptions
    @OptionGroup var storage: StoreOptions
    @OptionGroup var fetching: FetchOptions
    @OptionGroup var building: BuildOptions
    @OptionGroup var locking: LockOptions
    @OptionGroup var configFile: ConfigOptions

    @Option(
        help: ArgumentHelp(
            "Keep running: fetch and build again every interval (90s, 10m, 1h, 1h30m; a number alone is seconds), with the store, templates and connections kept open; Ctrl-C stops it.",
            valueName: "interval"))
    var every: String?

    func run() async throws {
        try await Runner.run {
            var command = self
            let interval = try every.map { text throws(ArchiveError) in
                guard let seconds = UpdateInterval.seconds(text) else {
                    throw .invalidOption(
                        "--every \"\(text)\" is not an interval: a number of seconds, or like 90s, 10m, 1h or 1h30m")
                }
                return seconds
            }
            let config = try configFile.load()
            try FetchOptions.check(config)
            command.merge(config)
            try command.fetching.check()
            try command.fetching.output.check(config)
            let boards = try Runner.boards(command.boards, config: config)
            let locks = try Runner.lock(
                store: command.storage.path, out: command.building.outPath, wait: command.locking.wait)
            if let interval {
                // The locks are held until the run ends, by a signal or an error.
                defer { withExtendedLifetime(locks) {} }
                try await Runner.archive(boards, every: interval, command)
                return
            }
            let failures = try await Runner.fetch(boards, command.forum, command.storage, command.fetching)
            try await Runner.build(command.storage, command.building, quiet: command.fetching.output.quiet)
            withExtendedLifetime(locks) {}
            try Runner.report(failures, listed: !command.fetching.output.quiet)
        }
    }

    mutating func merge(_ config: ConfigFile) {
        forum.merge(config)
        storage.merge(config)
        fetching.merge(config)
        building.merge(config)
        locking.merge(config)
    }
}

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: "Fill the store from the forum, without building the site.")

    @Argument(help: "Board ids, e.g. Geography (default: the config file's boards).")
    var boards: [String] = []

    @OptionGroup var forum: ForumOptions
    @OptionGroup var storage: StoreOptions
    @OptionGroup var fetching: FetchOptions
    @OptionGroup var locking: LockOptions
    @OptionGroup var configFile: ConfigOptions

    func run() async throws {
        try await Runner.run {
            var command = self
            let config = try configFile.load()
            try FetchOptions.check(config)
            command.forum.merge(config)
            command.storage.merge(config)
            command.fetching.merge(config)
            command.locking.merge(config)
            try command.fetching.check()
            try command.fetching.output.check(config)
            let boards = try Runner.boards(command.boards, config: config)
            let locks = try Runner.lock(store: command.storage.path, out: nil, wait: command.locking.wait)
            let failures = try await Runner.fetch(boards, command.forum, command.storage, command.fetching)
            withExtendedLifetime(locks) {}
            try Runner.report(failures, listed: !command.fetching.output.quiet)
        }
    }
}

struct BuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build", abstract: "Render the store into the output folder (no network).")

    @OptionGroup var storage: StoreOptions
    @OptionGroup var building: BuildOptions
    @OptionGroup var locking: LockOptions
    @OptionGroup var configFile: ConfigOptions

    @Flag(help: "Print only errors.")
    var quiet = false

    func run() async throws {
        try await Runner.run {
            var command = self
            let config = try configFile.load()
            command.storage.merge(config)
            command.building.merge(config)
            command.locking.merge(config)
            command.quiet = quiet || config.bool("quiet") == true
            let locks = try Runner.lock(
                store: command.storage.path, out: command.building.outPath, wait: command.locking.wait,
                mustExist: true, readsOnly: true)
            try await Runner.build(command.storage, command.building, quiet: command.quiet)
            withExtendedLifetime(locks) {}
        }
    }
}

struct ReparseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reparse",
        abstract: "Re-read every stored page with the current parser, without the network, then run build.")

    @OptionGroup var storage: StoreOptions
    @OptionGroup var locking: LockOptions
    @OptionGroup var configFile: ConfigOptions

    @Flag(help: "Print only errors.")
    var quiet = false

    func run() async throws {
        try await Runner.run {
            var storage = self.storage
            var locking = self.locking
            let config = try configFile.load()
            storage.merge(config)
            locking.merge(config)
            let quiet = self.quiet || config.bool("quiet") == true
            let locks = try Runner.lock(store: storage.path, out: nil, wait: locking.wait, mustExist: true)
            let printer = ProgressPrinter(format: .text, quiet: quiet)
            let report = try ReparseAction(storePath: storage.path).run(events: printer.handle)
            printer.finish()
            withExtendedLifetime(locks) {}
            if !quiet {
                Runner.printError(
                    "re-read \(report.boardPages) board page(s) and \(report.threads) thread(s) with \(report.posts) post(s) from \(storage.path)"
                )
            }
            for page in report.partial { Runner.printError("partial: \(page)") }
            if report.partialPosts > 0 {
                Runner.printError(
                    "\(report.partialPosts) post(s) could be read only in part; kept with a parse warning")
            }
            for thread in report.kept { Runner.printError("kept: \(thread)") }
            if report.kept.count > 1 { Runner.printError("\(report.kept.count) thread(s) kept as stored (above)") }
            if report.keptRows > 0 {
                Runner.printError(
                    "\(report.keptRows) list row(s) kept as stored: a newer page from another front end or address showed their threads"
                )
            }
            for failure in report.failures { Runner.printError("failed: \(failure)") }
            if !report.failures.isEmpty { throw ArchiveError.unreadableCaptures(failures: report.failures) }
        }
    }
}

struct ParseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse", abstract: "Print one page's model as JSON (a saved file or a URL).")

    @Argument(help: "A saved page, or the URL of one.")
    var input: String

    @OptionGroup var forum: ForumOptions
    @OptionGroup var configFile: ConfigOptions

    @Option(
        name: .customLong("fetched-at"),
        help: "When the page was fetched, ISO 8601 (HH:MM:SS times on it mean that day; default: now).")
    var fetchedAt: String?

    func run() async throws {
        try await Runner.run {
            var forum = self.forum
            forum.merge(try configFile.load())
            var when: Date?
            if let fetchedAt {
                guard let date = ForumTime.parseISO8601(fetchedAt) else {
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
            if result.unreadRows > 0 {
                Runner.printError("\(result.unreadRows) row(s) of the list could not be read: see \"unreadRows\"")
            }
            if result.partlyReadRows > 0 {
                Runner.printError(
                    "\(result.partlyReadRows) row(s) of the list could be read only in part: see \"partlyReadRows\"")
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
            throw ExitCode(exitStatus(error))
        }
    }

    /// 0 complete; 1 some pages failed (the next run retries them) or
    /// another error; 2 a usage or config mistake; 75 (EX_TEMPFAIL) another
    /// run holds the store or output folder.
    static func exitStatus(_ error: ArchiveError) -> Int32 {
        switch error {
        case .locked: return 75
        case .invalidOption: return 2
        default: return 1
        }
    }

    /// The boards named on the command line, or else the config file's.
    static func boards(_ named: [String], config: ConfigFile) throws(ArchiveError) -> [String] {
        if !named.isEmpty { return named }
        if let configured = config.strings("boards"), !configured.isEmpty { return configured }
        throw .invalidOption(
            "name at least one board, e.g. `bbsarchive archive Geography`, or list them as boards = [\"Geography\"] in "
                + (config.path ?? "bbsarchive.toml (`bbsarchive init BOARD…` writes one)"))
    }

    /// The command line as the lock file and the "in use" message show
    /// it, with a `--cookies` value (a login) left out.
    static func commandLine(_ arguments: [String]) -> String {
        var shown = ["bbsarchive"]
        var hideNext = false
        for argument in arguments {
            if hideNext {
                shown.append("…")
                hideNext = false
            } else if argument == "--cookies" {
                shown.append(argument)
                hideNext = true
            } else if argument.hasPrefix("--cookies=") {
                shown.append("--cookies=…")
            } else {
                shown.append(argument)
            }
        }
        return shown.joined(separator: " ")
    }

    /// Takes the run locks of the store (and of the output folder):
    /// another run on either means exit 75 at once, or with `--wait` a wait.
    /// With `readsOnly` (`build`), a store that cannot be written where it
    /// is, which the run then reads read-only, is not locked: like `status`
    /// and `export`, the run writes nothing to it.
    static func lock(store: String, out: String?, wait: Bool, mustExist: Bool = false, readsOnly: Bool = false)
        throws(ArchiveError) -> [RunLock]
    {
        let command = commandLine(Array(CommandLine.arguments.dropFirst()))
        let say: (String) -> Void = { holder in printError("bbsarchive: waiting for \(holder) to finish") }
        // `build` and `reparse` read a store that must exist: say so before making its lock file.
        if mustExist && !FileManager.default.fileExists(atPath: store) { throw .noStore(path: store) }
        var locks: [RunLock] = []
        do {
            locks.append(try RunLock.acquire(store, guarding: .store, command: command, wait: wait, waiting: say))
        } catch {
            guard case .storeReadOnly = error, readsOnly, ArchiveStore.unwritable(store) != nil else { throw error }
        }
        if let out {
            // The lock lives beside the output folder, so its parent must be there.
            let parent = URL(fileURLWithPath: RunLock.lockPath(for: out)).deletingLastPathComponent()
            try? FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            locks.append(try RunLock.acquire(out, guarding: .output, command: command, wait: wait, waiting: say))
        }
        return locks
    }

    static func fetch(_ boards: [String], _ forum: ForumOptions, _ storage: StoreOptions, _ fetching: FetchOptions)
        async throws -> [Archiver.Failure]
    {
        let printer = printer(fetching)
        let action = try fetchAction(boards, forum, storage, fetching)
        let report: Archiver.Report
        do {
            report = try await action.run(events: printer.handle)
        } catch {
            printer.finish()
            throw error
        }
        summarize(report, printer, storage, fetching)
        return report.failures
    }

    static func printer(_ fetching: FetchOptions) -> ProgressPrinter {
        ProgressPrinter(format: fetching.output.format == .json ? .json : .text, quiet: fetching.output.quiet)
    }

    static func fetchAction(
        _ boards: [String], _ forum: ForumOptions, _ storage: StoreOptions, _ fetching: FetchOptions
    )
        throws(ArchiveError) -> FetchAction
    {
        var http = CurlHTTPClient.Options()
        http.timeout = fetching.timeout ?? 120
        var action = FetchAction(
            boards: boards, source: try forum.makeSource(), storePath: storage.path, rate: fetching.rate ?? 1,
            options: Archiver.Options(
                pages: fetching.pages, connections: fetching.connections ?? 4,
                stopAfterUnchanged: fetching.stopAfter ?? 30,
                maxThreadPages: fetching.maxThreadPages ?? Archiver.Options.defaultMaxThreadPages),
            retry: RetryPolicy(attempts: fetching.tries ?? 4), respectRobots: !fetching.ignoreRobots,
            cookies: fetching.cookies, http: http)
        action.mediaHosts = fetching.mediaHosts
        return action
    }

    /// A fetch's closing lines.
    static func summarize(
        _ report: Archiver.Report, _ printer: ProgressPrinter, _ storage: StoreOptions, _ fetching: FetchOptions
    ) {
        printer.finish()
        if !fetching.output.quiet {
            printer.summary(
                "fetched \(report.boardPages) list page(s) and \(report.threadsFetched) thread(s) (\(report.threadPages) page(s), "
                    + "\(report.posts) post(s)), \(report.media) attachment(s); \(report.threadsUnchanged) thread(s) unchanged; "
                    + "store: \(storage.path)")
        }
        if report.partialPosts > 0 {
            Runner.printError(
                "\(report.partialPosts) post(s) could be read only in part; kept with a parse warning and their raw text"
            )
        }
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
        let report = try await buildAction(storage, building).run()
        summarize(report, building, quiet: quiet)
    }

    static func buildAction(_ storage: StoreOptions, _ building: BuildOptions) -> BuildAction {
        var action = BuildAction(
            storePath: storage.path, outputPath: building.outPath, templatesPath: building.templates,
            siteURL: building.siteURL)
        action.full = building.full
        return action
    }

    /// A build's closing lines; all but the first of `archive --every`'s
    /// updates (`first` false) leave out the sitemap's note and where to
    /// open the site, which do not change.
    static func summarize(_ report: SiteBuilder.Report, _ building: BuildOptions, quiet: Bool, first: Bool = true) {
        if !quiet {
            let skipped =
                report.changes.map {
                    "; only what changed since the last build: \($0.threads.count) thread(s), \($0.users.count) user(s)"
                        + " (\(report.skippedThreads) thread(s) of changed boards left as they were)"
                } ?? ""
            printError(
                "built \(report.pages) page(s), \(report.markdownFiles) Markdown file(s), \(report.mediaFiles) new media file(s); "
                    + "\(report.written) written, \(report.unchanged) unchanged" + skipped)
            if report.thumbnails > 0 { printError("made \(report.thumbnails) new thumbnail(s)") }
            if report.thumbnailsCopied > 0 {
                printError("copied \(report.thumbnailsCopied) thumbnail(s) from the store (made by an earlier build)")
            }
            if report.imagesWithoutLibvips > 0 {
                printError(
                    "warning: libvips could not be loaded (libvips.so.42, or the library BBSARCHIVE_LIBVIPS names): "
                        + "\(report.imagesWithoutLibvips) image(s) shown without thumbnails; install libvips42 and run "
                        + "bbsarchive build --full")
            }
            if report.unreadableImages > 0 {
                printError(
                    "warning: \(report.unreadableImages) image(s) could not be read for thumbnails; shown as they are")
            }
            if !report.sitemap, first {
                printError("no sitemap.xml, and feeds link relative to themselves: pass --site-url to publish them")
            }
            if first {
                let index = URL(fileURLWithPath: building.outPath).appendingPathComponent("index.html").path
                print("open \(index)")
            }
        }
    }

    static func printError(_ line: String) {
        Console.error(line + "\n")
    }
}

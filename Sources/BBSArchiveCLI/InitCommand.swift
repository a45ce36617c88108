import ArgumentParser
import BBSArchive
import Foundation

/// `bbsarchive init`: writes a commented `bbsarchive.toml`, so a daily run
/// is just `bbsarchive archive`.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Write a commented bbsarchive.toml for the boards to archive.")

    @Argument(help: "Board ids to archive, e.g. \(ForumSources.exampleBoards.joined(separator: " ")).")
    var boards: [String] = []

    @Option(help: "The forum front end: \(ForumSources.names.joined(separator: ", ")).")
    var source = ForumSources.defaultName

    @Option(name: .customLong("forum-url"), help: "The forum's address (default: the chosen source's real site).")
    var forumURL: String?

    @Option(help: "The SQLite store.")
    var store = "archive.sqlite"

    @Option(help: "The folder the site is written to.")
    var out = "site"

    @Option(name: .customLong("site-url"), help: "Where the site will be published, for sitemap.xml and the feeds.")
    var siteURL: String?

    @Option(help: "Where to write the file.")
    var config = ConfigFile.defaultName

    @Flag(help: "Replace an existing file.")
    var force = false

    func run() async throws {
        try await Runner.run {
            // The source and address are checked the way a run would check them.
            var forum = ForumOptions()
            forum.source = source
            forum.forumURL = forumURL
            let made = try forum.makeSource()
            if FileManager.default.fileExists(atPath: config) && !force {
                throw ArchiveError.invalidOption("\(config) exists already; pass --force to replace it")
            }
            let text = Self.text(
                boards: boards, source: source, forumURL: forumURL ?? made.baseURL, store: store, out: out,
                siteURL: siteURL)
            // What is written must read back: the same checks as every run.
            _ = try ConfigFile.parse(text, path: config)
            guard FileManager.default.createFile(atPath: config, contents: Data(text.utf8)) else {
                throw ArchiveError.outputUnwritable(path: config, reason: "the file cannot be created")
            }
            Runner.printError("wrote \(config); run `bbsarchive archive` to archive \(boards.count) board(s)")
        }
    }

    /// The file: every key with its meaning; the ones not chosen commented out at their defaults.
    static func text(
        boards: [String], source: String, forumURL: String, store: String, out: String, siteURL: String?
    ) -> String {
        func quoted(_ value: String) -> String {
            var result = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\t": result += "\\t"
                default:
                    if scalar.value < 0x20 || scalar.value == 0x7F {
                        result += String(format: "\\u%04X", scalar.value)
                    } else {
                        result.unicodeScalars.append(scalar)
                    }
                }
            }
            return result + "\""
        }
        let list = "[" + boards.map(quoted).joined(separator: ", ") + "]"
        return """
            # bbsarchive.toml: the options of `bbsarchive archive` (and fetch, build,
            # reparse, status, export), read from the current folder or --config FILE.
            # Keys are the long option names; an option on the command line wins.
            # Relative paths are relative to this file's folder.

            # The boards `bbsarchive archive` and `bbsarchive fetch` archive when none are named.
            boards = \(list)

            # The forum front end: \(ForumSources.described).
            source = \(quoted(source))
            # Where the forum is.
            forum-url = \(quoted(forumURL))

            # The SQLite store that holds everything fetched.
            store = \(quoted(store))
            # The folder the site is written to.
            out = \(quoted(out))
            # Where the site will be published, for sitemap.xml and the feeds' links.
            \(siteURL.map { "site-url = \(quoted($0))" } ?? "# site-url = \"https://example.org/archive/\"")
            # Your own Mustache templates (default: the installed ones).
            # templates = "templates"

            # Requests a second to each host, shared by all connections (be polite).
            # rate = 1
            # Requests in flight at once: boards walked and threads fetched at the same time.
            # connections = 4
            # On a board archived before, stop walking its list after this many
            # unchanged threads in a row (0: walk it all).
            # stop-after = 30
            # Board list pages to walk per board (default: all).
            # pages = 10
            # Tries per request before a page is recorded as failed.
            # tries = 4
            # Seconds one request may take.
            # timeout = 120
            # Pages read of one thread at most, against a pager that never ends.
            # max-thread-pages = 2000
            # Hosts besides the forum's own (and its known attachment hosts) that
            # attachments may be fetched from.
            # media-host = ["img.example.org"]
            # Browser cookies for boards that need a login: a cookies.txt file.
            # cookies = "cookies.txt"
            # Progress: "text" or "json" (one event a line, for logs).
            # log-format = "text"
            # Print only errors.
            # quiet = false
            # Wait for another run on the same store instead of exiting with 75.
            # wait = false

            """
    }
}

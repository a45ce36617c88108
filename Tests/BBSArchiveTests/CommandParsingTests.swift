import ArgumentParser
import Testing

@testable import BBSArchive
@testable import BBSArchiveCLI

/// The command line's options as ArgumentParser reads them, without running
/// anything (the end-to-end runs are in `CommandLineTests`).
@Suite struct CommandParsingTests {
    func parse<C: ParsableCommand>(_ arguments: [String], as: C.Type) throws -> C {
        let command = try BBSArchiveCommand.parseAsRoot(arguments)
        return try #require(command as? C, "\(arguments) parsed as \(type(of: command))")
    }

    /// Options left out stay unset (a config file may fill them); what
    /// they resolve to without one is the documented default.
    @Test func archiveLeavesOutOptionsUnsetWithTheDocumentedDefaults() throws {
        let archive = try parse(["archive", "Geography", "WorkLife"], as: ArchiveCommand.self)
        #expect(archive.boards == ["Geography", "WorkLife"])
        #expect(archive.forum.source == nil)
        #expect(try archive.forum.makeSource().id == "smth-mobile")
        #expect(archive.forum.forumURL == nil)
        #expect(archive.storage.path == "archive.sqlite")
        #expect(archive.fetching.pages == nil)
        #expect(archive.fetching.rate == nil)
        #expect(archive.fetching.connections == nil)
        #expect(archive.fetching.stopAfter == nil)
        #expect(archive.fetching.tries == nil)
        #expect(archive.fetching.timeout == nil)
        #expect(archive.fetching.ignoreRobots == false)
        #expect(archive.fetching.output.format == .text)
        #expect(archive.building.outPath == "site")
        #expect(archive.building.full == false)
    }

    @Test func fetchReadsEveryOption() throws {
        let fetch = try parse(
            [
                "fetch", "Geography", "--forum-url", "http://127.0.0.1:8080", "--source", "smth-nforum",
                "--store", "s.sqlite", "--pages", "2", "--rate", "0.5", "--connections", "8", "--cookies", "a=b",
                "--ignore-robots", "--stop-after", "0", "--tries", "2", "--timeout", "9", "--log-format", "json",
                "--quiet",
            ], as: FetchCommand.self)
        #expect(fetch.forum.forumURL == "http://127.0.0.1:8080")
        #expect(try fetch.forum.makeSource().id == "smth-nforum")
        #expect(fetch.storage.store == "s.sqlite")
        #expect(fetch.fetching.pages == 2)
        #expect(fetch.fetching.rate == 0.5)
        #expect(fetch.fetching.connections == 8)
        #expect(fetch.fetching.cookies == "a=b")
        #expect(fetch.fetching.ignoreRobots)
        #expect(fetch.fetching.stopAfter == 0)
        #expect(fetch.fetching.tries == 2)
        #expect(fetch.fetching.timeout == 9)
        #expect(fetch.fetching.output.format == .json)
        #expect(fetch.fetching.output.quiet)
    }

    @Test func buildReadsItsOptions() throws {
        let build = try parse(
            [
                "build", "--store", "s.sqlite", "--out", "o", "--templates", "t", "--site-url", "https://e.org/",
                "--full",
            ],
            as: BuildCommand.self)
        #expect(build.storage.store == "s.sqlite")
        #expect(build.building.out == "o")
        #expect(build.building.templates == "t")
        #expect(build.building.siteURL == "https://e.org/")
        #expect(build.building.full)
    }

    @Test(arguments: [
        ["fetch", "G", "--pages", "0"], ["fetch", "G", "--rate", "-1"], ["fetch", "G", "--connections", "0"],
        ["fetch", "G", "--connections", "65"], ["fetch", "G", "--stop-after", "-1"], ["fetch", "G", "--tries", "0"],
        ["fetch", "G", "--timeout", "0"], ["fetch", "G", "--log-format", "xml"], ["fetch", "G", "--rate", "fast"],
        ["frobnicate"],
    ])
    func refusesValuesThatCannotWork(_ arguments: [String]) {
        #expect(throws: (any Error).self) { try BBSArchiveCommand.parseAsRoot(arguments) }
    }

    @Test func aForumURLMustBeHTTP() throws {
        let fetch = try parse(["fetch", "G", "--forum-url", "ftp://example.org"], as: FetchCommand.self)
        #expect(throws: ArchiveError.self) { try fetch.forum.makeSource() }
        let unknown = try parse(["fetch", "G", "--source", "smth-telnet"], as: FetchCommand.self)
        #expect(throws: ArchiveError.self) { try unknown.forum.makeSource() }
    }

    /// `archive --every`: seconds alone, or days, hours, minutes and
    /// seconds in that order, each once; nothing else, nothing zero.
    @Test func everyReadsAnInterval() throws {
        let cases: [(String, Int?)] = [
            ("90", 90), ("90s", 90), ("10m", 600), ("1h", 3_600), ("1h30m", 5_400), ("1d2h3m4s", 93_784),
            ("2d", 172_800), ("", nil), ("0", nil), ("0s", nil), ("m", nil), ("10", 10), ("10x", nil),
            ("1m1h", nil), ("1h1h", nil), ("-5", nil), ("1.5m", nil), ("10 m", nil), ("367d", nil),
            ("9999999999", nil), ("１０m", nil),
        ]
        for (text, seconds) in cases {
            #expect(UpdateInterval.seconds(text) == seconds, "\(text)")
        }
        for seconds in [1, 59, 60, 90, 3_600, 5_400, 86_400, 93_784] {
            #expect(UpdateInterval.seconds(UpdateInterval.spelled(seconds)) == seconds)
        }
        #expect(UpdateInterval.spelled(5_400) == "1h30m")
        let archive = try parse(["archive", "G", "--every", "10m"], as: ArchiveCommand.self)
        #expect(archive.every == "10m")
        #expect(try parse(["archive", "G"], as: ArchiveCommand.self).every == nil)
    }
}

import ArgumentParser
import Testing

@testable import BBSArchiveCLI

/// `QuickParse` reads the everyday command lines into exactly the command
/// ArgumentParser makes of them, and leaves every other line to it.
@Suite struct QuickParseTests {
    /// The whole value, every wrapped property with its state, as text.
    func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    static let read: [[String]] = [
        ["fetch", "Geography"],
        ["fetch", "Geography", "WorkLife", "--store", "s.sqlite"],
        [
            "fetch", "Geography", "WorkLife", "FamilyLife", "--forum-url", "http://127.0.0.1:8080", "--store",
            "/tmp/x/store.sqlite", "--rate", "0", "--connections", "4",
        ],
        ["fetch"],
        ["fetch", "--store", "s.sqlite"],
        [
            "fetch", "G", "--forum-url", "http://127.0.0.1:8080", "--source", "smth-nforum", "--store", "s.sqlite",
            "--pages", "2", "--rate", "0.5", "--connections", "8", "--cookies", "a=b", "--ignore-robots",
            "--stop-after", "0", "--tries", "2", "--timeout", "9", "--log-format", "json", "--quiet",
            "--max-thread-pages", "7", "--media-host", "img.example.org", "--media-host", "b.example.org:81",
            "--wait", "--config", "c.toml",
        ],
        ["fetch", "--rate", "1e0", "G", "--pages", "+3", "H", "--log-format", "text"],
        ["build"],
        ["build", "--store", "s.sqlite", "--out", "site", "--templates", "templates"],
        [
            "build", "--store", "s.sqlite", "--out", "o", "--templates", "t", "--site-url", "https://e.org/",
            "--full", "--quiet", "--wait", "--config", "b.toml",
        ],
        ["archive", "Geography", "WorkLife"],
        [
            "archive", "G", "--forum-url", "https://m.newsmth.net", "--store", "a.sqlite", "--out", "site",
            "--site-url", "https://example.org/smth/", "--rate", "2", "--full", "--log-format", "json", "--quiet",
            "--templates", "t", "--media-host", "m.example.org", "--wait",
        ],
        ["archive", "G", "--every", "10m", "--store", "a.sqlite"],
    ]

    @Test(arguments: read)
    func readsTheEverydayLinesAsArgumentParserDoes(_ arguments: [String]) throws {
        let quick = try #require(QuickParse.command(arguments), "\(arguments) left to ArgumentParser")
        let parsed = try BBSArchiveCommand.parseAsRoot(arguments)
        #expect(type(of: quick) == type(of: parsed))
        #expect(dumped(quick) == dumped(parsed))
    }

    static let leftToArgumentParser: [[String]] = [
        [], ["--help"], ["-h"], ["--version"], ["help"], ["help", "fetch"], ["status"], ["serve"],
        ["parse", "x.html"], ["reparse"], ["init", "G"], ["export", "--format", "jsonl", "--out", "x"],
        ["fetch", "--help"], ["fetch", "-h"], ["build", "--help"], ["archive", "--version"],
        ["fetch", "G", "--store=s.sqlite"], ["fetch", "G", "--", "H"], ["fetch", "G", "--frobnicate"],
        ["fetch", "G", "--store"], ["fetch", "G", "--store", "a", "--store", "b"],
        ["fetch", "G", "--quiet", "--quiet"],
        ["fetch", "G", "--rate", "-1"], ["fetch", "G", "--rate", "fast"], ["fetch", "G", "--pages", "0"],
        ["fetch", "G", "--pages", "two"], ["fetch", "G", "--connections", "65"], ["fetch", "G", "--tries", "0"],
        ["fetch", "G", "--log-format", "xml"], ["fetch", "G", "--media-host", "http://x/"],
        ["fetch", "G", "--rate", "nan"], ["fetch", "", "G"], ["fetch", "G", "--store", ""], ["fetch", "help"],
        ["fetch", "-G"], ["fetch", "G", "--out", "site"], ["fetch", "G", "--full"],
        ["build", "G"], ["build", "--rate", "1"], ["build", "--quiet", "--full", "--full"],
        ["build", "--generate-completion-script", "bash"], ["archive", "G", "--timeout", "0"],
        ["archive", "G", "--every"], ["archive", "G", "--every", "1m", "--every", "2m"],
        ["fetch", "G", "--every", "1m"],
        ["Fetch", "G"],
    ]

    @Test(arguments: leftToArgumentParser)
    func leavesEveryOtherLineToArgumentParser(_ arguments: [String]) {
        #expect(QuickParse.command(arguments) == nil)
    }

    /// Lines ArgumentParser refuses are never read here: what it says
    /// and the exit status stay its own.
    @Test(arguments: leftToArgumentParser)
    func readsNoLineArgumentParserRefuses(_ arguments: [String]) {
        if (try? BBSArchiveCommand.parseAsRoot(arguments)) == nil {
            #expect(QuickParse.command(arguments) == nil)
        }
    }
}

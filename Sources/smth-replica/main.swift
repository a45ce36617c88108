import ArgumentParser
import Dispatch
import Foundation
import SMTHReplica

/// Serves a seeded replica of SMTH (the mobile site and the desktop nForum
/// fragments) on 127.0.0.1, for trying the archiver and for end-to-end tests
/// without touching the real forum.
@main
struct SMTHReplicaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "smth-replica",
        abstract: "Serve a deterministic replica of SMTH (mobile site and nForum) on 127.0.0.1.",
        discussion: """
            Prints the base URL (e.g. http://127.0.0.1:41234) as the first line on \
            standard output, then serves until SIGINT or SIGTERM.
            """)

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port: UInt16 = 0

    @Option(help: "Seed of the generated forum.")
    var seed: UInt64 = 1

    @Option(help: "Number of sections.")
    var sections: Int = 2

    @Option(help: "Boards in each section.")
    var boards: Int = 2

    @Option(help: "Threads on each board.")
    var threads: Int = 45

    @Option(help: "Most posts in one thread.")
    var posts: Int = 25

    @Option(help: "Generate the forum as of this moment (Unix seconds or ISO 8601); default: now.")
    var now: String?

    @Option(
        name: .customLong("cached-boards"),
        help: ArgumentHelp(
            "Boards kept generated in memory at once.",
            discussion:
                "Default: about 16,000 threads' worth (every board of a forum of up to about 100k posts), and at least 8. A board not kept is generated again for each of its pages asked for; a kept board of 1,432 threads holds about 35 MB."
        ))
    var cachedBoards: Int?

    @Flag(help: "Print the board ids, one a line, and exit.")
    var listBoards = false

    @Option(
        help: ArgumentHelp(
            "Misbehave on purpose (repeatable): KIND[,paths=all|boards|threads|media][,times=N][,every=N][,retry-after=S][,delay-ms=MS]",
            discussion: "KIND is 503, 429, 500, slow, truncated, reset, garbled-headers or garbled-rows."))
    var fault: [String] = []

    @Option(help: "Serve this file as /robots.txt.")
    var robots: String?

    @Option(
        name: .customLong("login-board"), help: "A board that needs the session cookie (KBS_SESSION=replica-session).")
    var loginBoard: String?

    @Flag(
        name: .customLong("wrong-charset"),
        help: "Mislabel pages: charset=GBK on the UTF-8 mobile pages, charset=UTF-8 on the GBK nForum pages.")
    var wrongCharset = false

    @Flag(
        help:
            "Also serve the board \"Hostile\": script links, terminal escapes, unmatched UBB, endless pagers, impossible dates, bad bytes, active files."
    )
    var hostile = false

    @Flag(help: "Also serve the board \"Photos\": ten large photos, a long screenshot, a small and a broken image.")
    var photos = false

    func run() async throws {
        // Checked here rather than in validate() so a bad value costs one line
        // on stderr, not a usage dump, like every other error of this tool.
        if let problem = problem() {
            Self.fail(problem, code: ExitCode.validationFailure)
        }
        let config = ReplicaConfig(
            seed: seed, sections: sections, boardsPerSection: boards,
            threadsPerBoard: threads, maxPostsPerThread: posts,
            now: now.flatMap(Self.parseDate) ?? Date(), cachedBoards: cachedBoards)
        let forum = ReplicaForum(config: config)

        if listBoards {
            for name in forum.boardNames { print(name) }
            return
        }

        // Route the signals to a stream before serving, so none is missed.
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        var sources = [DispatchSourceSignal]()
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { continuation.yield(signalNumber) }
            source.resume()
            sources.append(source)
        }

        var faults = ReplicaFaults(loginBoard: loginBoard, wrongCharset: wrongCharset)
        faults.rules = fault.compactMap(ReplicaFaults.parseRule)
        faults.hostile = hostile
        faults.photos = photos
        if let robots {
            guard let text = try? String(contentsOfFile: robots, encoding: .utf8) else {
                Self.fail("cannot read --robots \(robots)", code: ExitCode.failure)
            }
            faults.robots = text
        }
        let server = ReplicaServer(forum: forum, faults: faults)
        let url: URL
        do {
            url = try await server.start(port: port)
        } catch {
            Self.fail("\(error)", code: ExitCode.failure)
        }
        // Scripts read this line to find the server: write it straight to the
        // file descriptor rather than through a buffer that would hold it back.
        FileHandle.standardOutput.write(Data((url.absoluteString + "\n").utf8))

        for await _ in signals { break }
        await server.stop()
        for source in sources { source.cancel() }
    }

    private func problem() -> String? {
        for (name, value) in [("--sections", sections), ("--boards", boards), ("--threads", threads)] where value < 0 {
            return "\(name) must not be negative"
        }
        if posts < 1 { return "--posts must be at least 1" }
        if let cachedBoards, cachedBoards < 1 { return "--cached-boards must be at least 1" }
        for text in fault where ReplicaFaults.parseRule(text) == nil {
            return "--fault \"\(text)\" is not KIND[,paths=P][,times=N][,every=N][,retry-after=S][,delay-ms=MS]"
        }
        if let now, Self.parseDate(now) == nil {
            return "--now must be Unix seconds or an ISO 8601 date such as 2026-08-01T12:00:00+08:00"
        }
        return nil
    }

    private static func fail(_ message: String, code: ExitCode) -> Never {
        FileHandle.standardError.write(Data("smth-replica: \(message)\n".utf8))
        Self.exit(withError: code)
    }

    private static func parseDate(_ text: String) -> Date? {
        if let seconds = Double(text), seconds.isFinite { return Date(timeIntervalSince1970: seconds.rounded(.down)) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }
}

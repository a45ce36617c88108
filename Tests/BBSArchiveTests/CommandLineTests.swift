import BBSArchiveTestSupport
import FlyingFox
import Foundation
import SMTHReplica
import Synchronization
import Testing

@testable import BBSArchive

/// The real `bbsarchive` executable: exit codes, one-line errors, and a
/// store that keeps what it had when a run fails.
@Suite(.serialized) struct CommandLineTests {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
        var stderrLines: [Substring] { stderr.split(separator: "\n") }
    }

    static var executable: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
            .appendingPathComponent("bbsarchive")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return Fixtures.projectRoot.appendingPathComponent(".build/debug/bbsarchive")
    }

    /// Runs the executable on a Dispatch thread: waiting for a child must
    /// not hold one of Swift's few cooperative threads, which the in-process
    /// replica needs to answer that very child.
    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    continuation.resume(returning: try Self.runBlocking(arguments, environment: environment))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// The same with standard error and output going to `/dev/full`, where
    /// every write fails as on a full disk; its exit status.
    func runIntoAFullDisk(_ arguments: [String]) async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let process = Process()
                    process.executableURL = Self.executable
                    process.arguments = arguments
                    let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
                    process.standardOutput = full
                    process.standardError = full
                    try process.run()
                    process.waitUntilExit()
                    continuation.resume(returning: process.terminationStatus)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String]) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes are drained at once, so a chatty child never blocks on a full one.
        let stderrBox = DataBox()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { stderrBox.data = err.fileHandleForReading.readDataToEndOfFile() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderrBox.data, as: UTF8.self))
    }

    func expectOneLineError(_ outcome: Outcome, containing text: String) {
        #expect(outcome.status != 0)
        #expect(outcome.stderrLines.count == 1, "stderr: \(outcome.stderr)")
        #expect(outcome.stderr.hasPrefix("bbsarchive: error: "))
        #expect(outcome.stderr.contains(text), "stderr: \(outcome.stderr)")
    }

    /// libvips is loaded at run time. Without it a build still succeeds,
    /// says so in one warning, and records nothing about the images, so the
    /// next build with libvips makes every thumbnail.
    @Test func withoutLibvipsABuildWarnsAndALaterBuildMakesTheThumbnails() async throws {
        let harness = try await ReplicaHarness.fetchedPhotos()
        let site = harness.folder.appendingPathComponent("site")
        let build = ["build", "--store", harness.storePath, "--out", site.path, "--templates", Fixtures.templates.path]
        func thumbnails() -> Int {
            let media = site.appendingPathComponent("media")
            let files = FileManager.default.enumerator(atPath: media.path)?.allObjects as? [String] ?? []
            return files.filter { $0.contains("-480w.") || $0.contains("-960w.") }.count
        }

        let without = try await run(build, environment: ["BBSARCHIVE_LIBVIPS": "/nonexistent/libvips.so.42"])
        #expect(without.status == 0, "stderr: \(without.stderr)")
        let warnings = without.stderrLines.filter { $0.contains("libvips could not be loaded") }
        #expect(warnings.count == 1, "stderr: \(without.stderr)")
        #expect(warnings.first?.contains("bbsarchive build --full") == true)
        #expect(!without.stderr.contains("could not be read for thumbnails"), "stderr: \(without.stderr)")
        #expect(thumbnails() == 0)

        let with = try await run(build + ["--full"])
        #expect(with.status == 0, "stderr: \(with.stderr)")
        #expect(!with.stderr.contains("libvips"), "stderr: \(with.stderr)")
        #expect(thumbnails() > 0)
    }

    /// A temporary folder that cannot take the search index's spill files
    /// is named with what to do (set TMPDIR), not "pass --out"; the build
    /// records no state, and the same build with a usable one completes.
    @Test func aTemporaryFolderThatCannotTakeTheIndexSaysSetTMPDIR() async throws {
        let harness = try await ReplicaHarness.start(ReplicaHarness.small)
        let report = try await harness.fetch()
        await harness.stop()
        #expect(report.failures.isEmpty)
        let site = harness.folder.appendingPathComponent("site")
        let notAFolder = harness.folder.appendingPathComponent("tmp-is-a-file")
        #expect(FileManager.default.createFile(atPath: notAFolder.path, contents: Data("x".utf8)))
        let build = ["build", "--store", harness.storePath, "--out", site.path, "--templates", Fixtures.templates.path]
        let refused = try await run(build, environment: ["TMPDIR": notAFolder.path])
        expectOneLineError(refused, containing: "cannot write the search index's temporary files in \(notAFolder.path)")
        #expect(refused.stderr.contains("set TMPDIR to a folder on a disk with room"), "stderr: \(refused.stderr)")
        #expect(!refused.stderr.contains("--out"), "stderr: \(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: site.appendingPathComponent(BuildState.path).path))
        let built = try await run(build)
        #expect(built.status == 0, "stderr: \(built.stderr)")
        #expect(FileManager.default.fileExists(atPath: site.appendingPathComponent(BuildState.path).path))
    }

    /// A small replica of one board (whose pages answer as `faults` say),
    /// served, and a folder for a store.
    func smallForum(threads: Int = 6, posts: Int = 4, faults: [ReplicaFaults.Rule] = []) async throws
        -> (forum: ReplicaForum, server: ReplicaServer, base: URL, folder: URL)
    {
        let forum = ReplicaForum(
            config: ReplicaConfig(
                seed: 3, sections: 1, boardsPerSection: 1, threadsPerBoard: threads, maxPostsPerThread: posts))
        let server = ReplicaServer(forum: forum, faults: ReplicaFaults(rules: faults))
        return (forum, server, try await server.start(), try Fixtures.temporaryFolder("cli"))
    }

    /// Starts the executable with `arguments`, its standard error read
    /// line by line as it comes.
    func start(_ arguments: [String]) throws -> (process: Process, lines: LineCollector) {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        let lines = LineCollector(err.fileHandleForReading)
        try process.run()
        return (process, lines)
    }

    @Test func anUnknownBoardFailsAndKeepsWhatWasStored() async throws {
        let (forum, server, base, folder) = try await smallForum()
        let store = folder.appendingPathComponent("a.sqlite").path
        let common = [
            "--forum-url", base.absoluteString, "--store", store, "--out", folder.appendingPathComponent("site").path,
            "--rate", "0", "--quiet",
        ]
        let board = try #require(forum.boardNames.first)

        let good = try await run(["archive", board] + common)
        #expect(good.status == 0, "stderr: \(good.stderr)")
        let before = try ArchiveStore(path: store).counts()
        #expect(before.posts > 0)

        let bad = try await run(["archive", "NoSuchBoard"] + common)
        expectOneLineError(bad, containing: "board \"NoSuchBoard\" does not exist")
        #expect(try ArchiveStore(path: store).counts().posts == before.posts)
        #expect(try ArchiveStore(path: store).counts().threads == before.threads)
        await server.stop()
    }

    /// A log that cannot be written (its disk is full) loses the lines, not
    /// the run: the fetch and the build do their work and end as they would,
    /// and an error still ends with its status (Foundation's write trapped:
    /// exit 132, nothing stored).
    @Test func aLogThatCannotBeWrittenStopsNothing() async throws {
        let (forum, server, base, folder) = try await smallForum()
        let store = folder.appendingPathComponent("a.sqlite").path
        let site = folder.appendingPathComponent("site")
        let board = try #require(forum.boardNames.first)
        let fetch = ["fetch", board, "--forum-url", base.absoluteString, "--store", store, "--rate", "0"]
        #expect(try await runIntoAFullDisk(fetch) == 0)
        await server.stop()
        #expect(try ArchiveStore(path: store).counts().posts > 0)
        let build = ["build", "--store", store, "--out", site.path, "--templates", Fixtures.templates.path]
        #expect(try await runIntoAFullDisk(build) == 0)
        #expect(FileManager.default.fileExists(atPath: site.appendingPathComponent("index.html").path))
        #expect(try await runIntoAFullDisk(["status", "--store", folder.appendingPathComponent("none").path]) == 1)
    }

    /// A run stopped by SIGINT or SIGTERM says, as its last line, that
    /// what it stored is kept and how to go on, then ends as the signal
    /// ends it (its last line was a progress line).
    @Test(arguments: [SIGINT, SIGTERM])
    func aStoppedRunSaysSo(signal: Int32) async throws {
        let slow = ReplicaFaults.Rule(.slow, paths: .threads, times: 1_000, delay: .milliseconds(200))
        let (forum, server, base, folder) = try await smallForum(threads: 30, faults: [slow])
        let board = try #require(forum.boardNames.first)
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = [
            "fetch", board, "--forum-url", base.absoluteString, "--store",
            folder.appendingPathComponent("a.sqlite").path, "--rate", "0",
        ]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Once it asks for threads, it is well into the run.
        for _ in 0..<100 where await !server.requestLog().contains(where: { $0.hasPrefix("/article/") }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(process.processIdentifier, signal)
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        await server.stop()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
        #expect(
            said.split(separator: "\n").last
                == "bbsarchive: stopped; what was stored is kept: run the same command to go on",
            "\(said.suffix(300))")
    }

    /// `archive --every` updates the archive again and again: what the
    /// forum gains between two updates is in the store and the site after
    /// the second, each update says how long it took and when the next
    /// begins, it holds the store's lock all along, and a signal stops it
    /// between updates as it stops any run.
    @Test func archiveEveryUpdatesUntilStopped() async throws {
        let (forum, server, base, folder) = try await smallForum()
        let store = folder.appendingPathComponent("a.sqlite").path
        let site = folder.appendingPathComponent("site")
        let board = try #require(forum.boardNames.first)
        let (process, lines) = try start([
            "archive", board, "--every", "1s", "--forum-url", base.absoluteString, "--store", store, "--out",
            site.path, "--templates", Fixtures.templates.path, "--rate", "0", "--log-format", "json",
        ])
        func update(_ number: Int) async throws -> [String: Any] {
            for _ in 0..<1_200 {
                for line in lines.lines {
                    if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        object["event"] as? String == "update", object["update"] as? Int == number
                    {
                        return object
                    }
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("no update \(number) in 60 s: \(lines.lines.suffix(5))")
            return [:]
        }
        let first = try await update(1)
        // It holds the store's lock between updates too.
        let other = try await run(["fetch", board, "--forum-url", base.absoluteString, "--store", store, "--rate", "0"])
        #expect(other.status == 75, "\(other.stderr)")
        let gid = try #require(forum.addThread(board: board, title: "A thread between two updates"))
        // The update after the one that may have begun already sees it.
        let seen = lines.lines.filter { $0.contains(#""event":"update""#) }.count
        let second = try await update(seen + 2)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        lines.finish()
        await server.stop()

        for object in [first, second] {
            #expect((object["fetchSeconds"] as? Double ?? -1) >= 0 && (object["buildSeconds"] as? Double ?? -1) >= 0)
            #expect((object["next"] as? String)?.isEmpty == false)
        }
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        #expect(
            lines.lines.last == "bbsarchive: stopped; what was stored is kept: run the same command to go on",
            "\(lines.lines.suffix(3))")
        #expect(try ArchiveStore(path: store).threads(board: board).contains { $0.gid == gid })
        let page = site.appendingPathComponent(SitePaths.thread(board, gid: gid)).path
        #expect(FileManager.default.fileExists(atPath: page), "no \(page)")
    }

    /// Pages that fail are said, and the next update tries them again:
    /// the run goes on.
    @Test func archiveEveryGoesOnAfterPagesFail() async throws {
        let failing = ReplicaFaults.Rule(.serverError, paths: .threads, times: 100_000)
        let (forum, server, base, folder) = try await smallForum(threads: 4, posts: 3, faults: [failing])
        let board = try #require(forum.boardNames.first)
        let (process, lines) = try start([
            "archive", board, "--every", "1", "--forum-url", base.absoluteString, "--store",
            folder.appendingPathComponent("a.sqlite").path, "--out", folder.appendingPathComponent("site").path,
            "--templates", Fixtures.templates.path, "--rate", "0", "--tries", "1", "--quiet",
        ])
        let said = { lines.lines.filter { $0.hasSuffix("; the next update tries again") } }
        for _ in 0..<1_200 where said().count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        lines.finish()
        await server.stop()
        #expect(said().count >= 2, "\(lines.lines.suffix(5))")
        #expect(
            said().allSatisfy {
                $0.hasPrefix("bbsarchive: error: ") && $0.contains(" page(s) failed and were not archived")
            })
        #expect(!lines.lines.contains { $0.contains("run the same command again") }, "\(lines.lines)")
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
    }

    @Test(arguments: ["soon", "0", "10x", "1m1h", "-5"])
    func anIntervalThatIsNotOneIsAUsageError(_ interval: String) async throws {
        let folder = try Fixtures.temporaryFolder("cli")
        let outcome = try await run([
            "archive", "Geography", "--every", interval, "--store", folder.appendingPathComponent("a.sqlite").path,
        ])
        // `-5` is an option's name to ArgumentParser, a usage error of its own.
        if interval != "-5" { expectOneLineError(outcome, containing: "--every \"\(interval)\" is not an interval") }
        #expect(outcome.status == 2)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("a.sqlite").path))
    }

    @Test func anUnreachableHostSaysSo() async throws {
        let folder = try Fixtures.temporaryFolder("cli")
        // Port 1 on loopback: nothing listens there, so the connection is refused.
        let outcome = try await run([
            "fetch", "Geography", "--forum-url", "http://127.0.0.1:1", "--store",
            folder.appendingPathComponent("a.sqlite").path,
        ])
        expectOneLineError(outcome, containing: "cannot reach http://127.0.0.1:1/board/Geography?p=1")
        #expect(outcome.stderr.contains("--forum-url"))
    }

    /// libcurl is loaded at run time. Without it a fetch is one error that
    /// names the library, before a new store is made (an old one is left as
    /// it was); `parse` of a saved page does not need it.
    @Test func withoutLibcurlAFetchSaysSoAndParseStillWorks() async throws {
        let folder = try Fixtures.temporaryFolder("cli")
        let store = folder.appendingPathComponent("a.sqlite").path
        let missing = ["BBSARCHIVE_LIBCURL": "/nonexistent/libcurl.so.4"]
        let fetch = try await run(
            ["fetch", "Geography", "--forum-url", "http://127.0.0.1:1", "--store", store], environment: missing)
        expectOneLineError(fetch, containing: "the library BBSARCHIVE_LIBCURL names could not be loaded")
        #expect(!fetch.stderr.contains("--forum-url"), "stderr: \(fetch.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
        // A store that is there is opened while libcurl loads: the same one
        // error, and the store as it was.
        _ = try ArchiveStore(path: store)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let again = try await run(
            ["fetch", "Geography", "--forum-url", "http://127.0.0.1:1", "--store", store], environment: missing)
        expectOneLineError(again, containing: "the library BBSARCHIVE_LIBCURL names could not be loaded")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        let parse = try await run(
            [
                "parse", "--source", "smth-mobile",
                Fixtures.smth.appendingPathComponent("mobile/board-Geography-p1.xhtml").path,
            ], environment: missing)
        #expect(parse.status == 0, "stderr: \(parse.stderr)")
    }

    @Test func aPageThatIsNotAForumPageSaysSo() async throws {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), logger: .disabled)
        await server.appendRoute("GET *") { _ in
            HTTPResponse(
                statusCode: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: Data("<html><body><h1>Welcome to my blog</h1></body></html>".utf8))
        }
        let task = Task { try await server.run() }
        try await server.waitUntilListening()
        guard case .ip4(_, let port) = await server.listeningAddress else {
            Issue.record("the test server has no IPv4 address")
            return
        }
        let folder = try Fixtures.temporaryFolder("cli")
        let outcome = try await run([
            "fetch", "Geography", "--forum-url", "http://127.0.0.1:\(port)", "--store",
            folder.appendingPathComponent("a.sqlite").path, "--quiet",
        ])
        expectOneLineError(outcome, containing: "is not an SMTH mobile board or thread page")
        task.cancel()
    }

    @Test func aStoreThatCannotBeOpenedSaysSoAndStaysUntouched() async throws {
        let folder = try Fixtures.temporaryFolder("cli")
        let missing = try await run(["build", "--store", "/nonexistent-folder/a.sqlite", "--out", folder.path])
        expectOneLineError(missing, containing: "there is no store at /nonexistent-folder/a.sqlite")
        let unwritable = try await run(["fetch", "Geography", "--store", "/nonexistent-folder/a.sqlite"])
        expectOneLineError(unwritable, containing: "cannot open the store /nonexistent-folder/a.sqlite")

        let notes = folder.appendingPathComponent("notes.sqlite")
        let original = Data(String(repeating: "not a database\n", count: 100).utf8)
        #expect(FileManager.default.createFile(atPath: notes.path, contents: original))
        let garbage = try await run(["fetch", "Geography", "--forum-url", "http://127.0.0.1:1", "--store", notes.path])
        expectOneLineError(garbage, containing: "it is not a SQLite database")
        #expect(FileManager.default.contents(atPath: notes.path) == original)
    }

    @Test func badOptionsAreRefusedBeforeAnyWork() async throws {
        let folder = try Fixtures.temporaryFolder("cli")
        let url = try await run([
            "fetch", "Geography", "--forum-url", "ftp://example.org", "--store",
            folder.appendingPathComponent("a.sqlite").path,
        ])
        expectOneLineError(url, containing: "is not an http(s) address")
        let source = try await run(["parse", "--source", "smth-telnet", "x"])
        expectOneLineError(source, containing: "unknown --source \"smth-telnet\"")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("a.sqlite").path))
    }

    @Test func parsePrintsTheModelAsJSON() async throws {
        let outcome = try await run([
            "parse", "--source", "smth-mobile", "--fetched-at", "2026-08-01T16:00:00+08:00",
            Fixtures.smth.appendingPathComponent("mobile/board-Geography-p1.xhtml").path,
        ])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        #expect(json["kind"] as? String == "board")
        #expect((json["threads"] as? [Any])?.count == 30)

        let missing = try await run(["parse", "/nonexistent/page.html"])
        expectOneLineError(missing, containing: "cannot read /nonexistent/page.html: there is no such file")
    }

    /// A saved nForum thread page with an unreadable header: `parse` gives
    /// the board and gid from the page's own links, prints the post with
    /// its warning and raw text, and says so on stderr.
    @Test func parseSaysWhichPostsWereReadOnlyInPart() async throws {
        let page = FaithfulParsingTests.threadPage([
            FaithfulParsingTests.article(
                floor: 0, author: "alice", content: "发信人 alice, 信区: Travel<br /> 没有头的帖子", postID: 1901)
        ])
        let file = try Fixtures.temporaryFolder("parse").appendingPathComponent("saved.html")
        try Data(page.utf8).write(to: file)
        let outcome = try await run(["parse", "--source", "smth-nforum", file.path])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        #expect(json["board"] as? String == "Travel")
        #expect(json["gid"] as? Int == 1901)
        #expect(json["partialPosts"] as? Int == 1)
        let post = try #require((json["posts"] as? [[String: Any]])?.first)
        #expect((post["warning"] as? String)?.contains("header") == true)
        #expect((post["rawText"] as? String)?.contains("没有头的帖子") == true)
        #expect(outcome.stderr.contains("1 post(s) could be read only in part"))
    }
}

/// Bytes handed from one thread to another after a `DispatchGroup` wait.
private final class DataBox: @unchecked Sendable {
    // @unchecked: written once before `group.wait()`, read after it.
    var data = Data()
}

/// The lines a child writes to a pipe, read as they come.
final class LineCollector: Sendable {
    private let state = Mutex<(lines: [String], partial: Data)>(([], Data()))
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                state.withLock { state in
                    state.partial.append(data)
                    while let end = state.partial.firstIndex(of: 0x0A) {
                        state.lines.append(String(decoding: state.partial[..<end], as: UTF8.self))
                        state.partial = Data(state.partial[(end + 1)...])
                    }
                }
            }
            done.signal()
        }
    }

    var lines: [String] { state.withLock { $0.lines } }

    /// Waits for the end of the pipe (the child has exited).
    func finish() { done.wait() }
}

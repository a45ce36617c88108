import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive
@testable import BBSArchiveCLI

/// `bbsarchive.toml`: read by TOMLKit, checked key by key, overridden by options.
@Suite struct ConfigFileTests {
    @Test func readsEveryKindOfValueAndResolvesPathsBesideTheFile() throws {
        let folder = try Fixtures.temporaryFolder("config")
        let path = folder.appendingPathComponent("daily.toml").path
        let config = try ConfigFile.parse(
            """
            # a comment
            boards = ["Geography", "WorkLife"]
            source = "smth-nforum"
            store = "data/archive.sqlite"
            out = "/srv/site"
            rate = 2
            connections = 8
            ignore-robots = true
            """, path: path)
        #expect(config.strings("boards") == ["Geography", "WorkLife"])
        #expect(config.string("source") == "smth-nforum")
        #expect(config.string("store") == folder.appendingPathComponent("data/archive.sqlite").path)
        #expect(config.string("out") == "/srv/site")
        #expect(config.double("rate") == 2)
        #expect(config.int("connections") == 8)
        #expect(config.bool("ignore-robots") == true)
        #expect(config.int("tries") == nil)
    }

    @Test(arguments: [
        ("boards = [\"a\"]\n\nstore_path = \"x.sqlite\"\n", "daily.toml:3: unknown key \"store_path\""),
        ("boards = [\"a\"]\nrate = \"fast\"\n", "daily.toml:2: \"rate\" must be a number, not a string"),
        ("connections = 2.5\n", "daily.toml:1: \"connections\" must be a whole number, not a number"),
        ("boards = \"Geography\"\n", "daily.toml:1: \"boards\" must be a list of strings"),
        ("# x\nboards = [\"a\"\n", "daily.toml:2: "),
        ("stop_after = 3\n", "(did you mean \"stop-after\"?)"),
        ("[fetch]\nrate = 1\n", "daily.toml:1: [fetch] sections are not used"),
    ])
    func aWrongKeyOrTypeIsOneLineNamingTheLine(text: String, message: String) {
        #expect {
            _ = try ConfigFile.parse(text, path: "daily.toml")
        } throws: { error in
            let line = "\(error)"
            return line.contains(message) && !line.contains("\n")
        }
    }

    @Test func optionsOverrideTheFileAndBoardsComeFromIt() async throws {
        let folder = try Fixtures.temporaryFolder("config")
        let path = folder.appendingPathComponent("bbsarchive.toml").path
        try InitCommand.text(
            boards: ["Geography", "WorkLife"], source: "smth-mobile", forumURL: "http://127.0.0.1:9",
            store: "a.sqlite", out: "site", siteURL: nil
        ).write(toFile: path, atomically: true, encoding: .utf8)
        try "rate = 5\nconnections = 3\n".appendLine(toFile: path)

        var command = try #require(
            try BBSArchiveCommand.parseAsRoot(["archive", "--config", path, "--rate", "0.5", "--out", "elsewhere"])
                as? ArchiveCommand)
        let config = try command.configFile.load()
        command.merge(config)
        #expect(command.fetching.rate == 0.5)
        #expect(command.fetching.connections == 3)
        #expect(command.building.outPath == "elsewhere")
        #expect(command.storage.path == folder.appendingPathComponent("a.sqlite").path)
        #expect(command.forum.forumURL == "http://127.0.0.1:9")
        #expect(try Runner.boards([], config: config) == ["Geography", "WorkLife"])
        #expect(try Runner.boards(["Other"], config: config) == ["Other"])
    }

    @Test func valuesOutOfRangeNameTheirLine() async throws {
        let folder = try Fixtures.temporaryFolder("config")
        let path = folder.appendingPathComponent("range.toml").path
        try "boards = [\"a\"]\n\nconnections = 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        let outcome = try await CommandLineTests().run(["archive", "--config", path])
        #expect(outcome.status == 2)
        #expect(outcome.stderrLines == ["bbsarchive: error: \(path):3: \"connections\" must be between 1 and 64"])
    }

    @Test func theCommandLineReportsABadConfigWithStatus2() async throws {
        let folder = try Fixtures.temporaryFolder("config")
        let path = folder.appendingPathComponent("bad.toml").path
        try "boards = [\"a\"]\ntries = \"many\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let outcome = try await CommandLineTests().run(["fetch", "--config", path])
        #expect(outcome.status == 2)
        #expect(outcome.stderrLines == ["bbsarchive: error: \(path):2: \"tries\" must be a whole number, not a string"])
    }
}

extension String {
    fileprivate func appendLine(toFile path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(self.utf8))
        try handle.close()
    }
}

/// One run at a time per store and per output folder, across processes.
@Suite(.serialized) struct RunLockTests {
    @Test func aSecondRunExits75AndWaitWaitsAndAKilledHolderDoesNotBlock() async throws {
        // Every answer takes long, so the first run holds the store while it waits.
        let slow = ReplicaFaults.Rule(.slow, times: 1_000, delay: .seconds(30))
        let harness = try await ReplicaHarness.start(faults: ReplicaFaults(rules: [slow]))
        defer { Task { await harness.stop() } }
        let out = harness.folder.appendingPathComponent("site").path
        let holder = try Self.launch([
            "fetch", harness.board, "--forum-url", harness.base, "--store", harness.storePath, "--rate", "0",
            "--timeout", "60", "--quiet",
        ])
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        let lockFile = RunLock.lockPath(for: harness.storePath)
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: lockFile, encoding: .utf8),
                text.contains("pid \(holder.processIdentifier)")
            {
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }

        let second = try await CommandLineTests().run([
            "fetch", harness.board, "--forum-url", harness.base, "--store", harness.storePath, "--rate", "0",
        ])
        #expect(second.status == 75)
        #expect(second.stderrLines.count == 1)
        #expect(second.stderr.contains("pid \(holder.processIdentifier) (bbsarchive fetch \(harness.board)"))
        #expect(second.stderr.contains("--wait"))

        // A build on the same store waits, and goes on once the holder is killed.
        async let waited = CommandLineTests().run(["build", "--store", harness.storePath, "--out", out, "--wait"])
        try await Task.sleep(for: .seconds(1))
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        let outcome = try await waited
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("waiting for pid \(holder.processIdentifier)"))

        // Nothing is left behind by the killed run.
        let after = try await CommandLineTests().run(["build", "--store", harness.storePath, "--out", out])
        #expect(after.status == 0, "\(after.stderr)")
    }

    @Test func theOutputFolderIsLockedToo() async throws {
        let folder = try Fixtures.temporaryFolder("lock")
        let out = folder.appendingPathComponent("site").path
        let store = folder.appendingPathComponent("b.sqlite").path
        _ = try ArchiveStore(path: store)
        let held = try RunLock.acquire(out + "/", command: "bbsarchive build (test)", wait: false)
        let outcome = try await CommandLineTests().run([
            "build", "--store", store, "--out", out,
        ])
        #expect(outcome.status == 75)
        #expect(outcome.stderr.contains("\(out) is in use by pid \(getpid()) (bbsarchive build (test)) since "))
        withExtendedLifetime(held) {}
    }

    /// Every spelling of a store or folder takes the same lock: a symbolic
    /// link to it, or a path through `..` (QA 7: through a link, two fetches
    /// ran at once and asked the forum for everything twice).
    @Test func aLinkToTheStoreTakesTheSameLock() throws {
        let folder = try Fixtures.temporaryFolder("lock")
        let store = folder.appendingPathComponent("archive.sqlite").path
        _ = try ArchiveStore(path: store)
        let link = folder.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store)
        let site = folder.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        let siteLink = folder.appendingPathComponent("published").path
        try FileManager.default.createSymbolicLink(atPath: siteLink, withDestinationPath: site.path)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("x"), withIntermediateDirectories: true)
        let held = try RunLock.acquire(store, command: "bbsarchive fetch (test)", wait: false)
        let heldSite = try RunLock.acquire(
            site.path, guarding: .output, command: "bbsarchive build (test)", wait: false)
        for other in [link, folder.appendingPathComponent("x/../archive.sqlite").path, siteLink, siteLink + "/"] {
            do {
                _ = try RunLock.acquire(other, command: "second", wait: false)
                Issue.record("\(other) took a second lock")
            } catch {
                guard case .locked = error else {
                    Issue.record("\(other): \(error)")
                    continue
                }
            }
        }
        withExtendedLifetime((held, heldSite)) {}
        // `.` is the folder itself, as its full path is.
        #expect(RunLock.lockPath(for: site.path + "/.") == RunLock.lockPath(for: site.path))
        #expect(RunLock.lockPath(for: folder.path + "/x/../site") == RunLock.lockPath(for: site.path))
    }

    @Test func theLockNamesTheCommandButNotItsCookies() {
        #expect(
            Runner.commandLine(["fetch", "A", "--cookies", "session=secret", "--store", "x"])
                == "bbsarchive fetch A --cookies … --store x")
        #expect(Runner.commandLine(["archive", "--cookies=session=secret"]) == "bbsarchive archive --cookies=…")
    }

    /// The lock's "since" reads as ISO8601DateFormatter would write it.
    @Test func theLockStampIsISO8601InUTC() {
        let formatter = ISO8601DateFormatter()
        for seconds in [0, 951_782_400, 1_795_000_001, 4_102_444_799] {
            #expect(
                RunLock.utcStamp(time_t(seconds))
                    == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))
        }
    }

    static func launch(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = CommandLineTests.executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}

/// `status --json` and the exports, over an archive of the replica.
@Suite(.serialized) struct StatusAndExportTests {
    static let config = ReplicaConfig(
        seed: 21, sections: 1, boardsPerSection: 2, threadsPerBoard: 12, maxPostsPerThread: 12)

    @Test func statusAndExportsAgreeWithTheReplica() async throws {
        let harness = try await ReplicaHarness.start(Self.config)
        let report = try await harness.fetch()
        await harness.stop()
        #expect(report.failures.isEmpty)
        try await checkStatus(harness)
        try await checkJSONL(harness)
        try await checkWARC(harness)
    }

    func checkStatus(_ harness: ReplicaHarness) async throws {
        let outcome = try await CommandLineTests().run(["status", "--json", "--store", harness.storePath])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        #expect((json["migrations"] as? [String])?.first == "v1")
        #expect(json["schemaVersion"] as? String == (json["migrations"] as? [String])?.last)
        #expect((json["sizeBytes"] as? Int ?? 0) > 0)
        #expect((json["failures"] as? [Any])?.isEmpty == true)
        let boards = try #require(json["boards"] as? [[String: Any]])
        let truth = harness.forum.groundTruth()
        #expect(boards.compactMap { $0["board"] as? String } == truth.boards.map(\.name).sorted())
        for expected in truth.boards {
            let board = try #require(boards.first { $0["board"] as? String == expected.name })
            let replica = try #require(harness.forum.board(named: expected.name))
            let posts = replica.threads.flatMap(\.posts)
            var bytes: [String: Int] = [:]
            for attachment in posts.flatMap(\.attachments) { bytes[attachment.path] = attachment.bytes.count }
            #expect(board["title"] as? String == expected.title)
            #expect(board["threads"] as? Int == expected.threads)
            #expect(board["posts"] as? Int == expected.posts)
            #expect(board["attachments"] as? Int == expected.images + expected.files)
            #expect(board["attachmentsStored"] as? Int == expected.images + expected.files)
            #expect(board["attachmentBytes"] as? Int == bytes.values.reduce(0, +))
            let first = try #require(posts.map(\.postedAt).min())
            let last = try #require(posts.map(\.postedAt).max())
            #expect(board["firstPostAt"] as? String == Fixtures.smthForum.time.iso8601(first))
            #expect(board["lastPostAt"] as? String == Fixtures.smthForum.time.iso8601(last))
            #expect(board["listFullyWalked"] as? Bool == true)
            #expect(board["lastFetchAt"] is String)
            #expect(board["lastFetchFinishedAt"] is String)
        }
        let text = try await CommandLineTests().run(["status", "--store", harness.storePath])
        #expect(text.status == 0)
        #expect(text.stdout.contains("no pending failures"))
    }

    func checkJSONL(_ harness: ReplicaHarness) async throws {
        let file = harness.folder.appendingPathComponent("posts.jsonl").path
        let outcome = try await CommandLineTests().run([
            "export", "--format", "jsonl", "--out", file, "--store", harness.storePath,
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let truth = harness.forum.groundTruth()
        #expect(lines.count == truth.boards.reduce(0) { $0 + $1.posts })
        var seen = Set<String>()
        for line in lines {
            let post = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let board = try #require(post["board"] as? String)
            let gid = try #require(post["gid"] as? Int)
            let floor = try #require(post["floor"] as? Int)
            seen.insert("\(board)/\(gid)#\(floor)")
            let thread = try #require(harness.forum.board(named: board)?.threads.first { $0.gid == gid })
            #expect(post["threadTitle"] as? String == thread.title)
            let original = try #require(thread.posts.first { $0.floor == floor })
            #expect(post["author"] as? String == original.author)
            #expect(post["postedAt"] as? String == Fixtures.smthForum.time.iso8601(original.postedAt))
            #expect(post["body"] is String)
            #expect(post["attachments"] is [Any])
        }
        #expect(seen.count == lines.count)

        // Named boards only.
        let one = try #require(truth.boards.first)
        let partial = harness.folder.appendingPathComponent("one.jsonl").path
        let only = try await CommandLineTests().run([
            "export", one.name, "--format", "jsonl", "--out", partial, "--store", harness.storePath,
        ])
        #expect(only.status == 0)
        #expect(try String(contentsOfFile: partial, encoding: .utf8).split(separator: "\n").count == one.posts)
    }

    func checkWARC(_ harness: ReplicaHarness) async throws {
        let file = harness.folder.appendingPathComponent("captures.warc.gz").path
        let outcome = try await CommandLineTests().run([
            "export", "--format", "warc", "--out", file, "--store", harness.storePath,
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let captures = try harness.store().status().captures
        #expect(captures > 0)

        let check = try Self.warcio(["check", "-v", file])
        #expect(check.status == 0, "warcio check: \(check.output.suffix(600))")
        let index = try Self.warcio(["index", "-f", "warc-type,warc-target-uri,http:status", file])
        #expect(index.status == 0)
        let records = index.output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.first?["warc-type"] as? String == "warcinfo")
        let responses = records.filter { $0["warc-type"] as? String == "response" }
        #expect(responses.count == captures)
        #expect(responses.allSatisfy { ($0["warc-target-uri"] as? String)?.hasPrefix(harness.base) == true })
        // Pages as they came (200), and what else was kept (robots.txt's 404).
        #expect(responses.allSatisfy { Int($0["http:status"] as? String ?? "") != nil })
        #expect(responses.filter { $0["http:status"] as? String == "200" }.count >= captures - 1)
    }

    @Test func statusListsPendingFailuresWithTheirReasons() async throws {
        let broken = ReplicaFaults.Rule(.serverError, paths: .threads, times: 1_000, every: 3)
        // A fixed forum, so the rule hits some threads at any hour.
        let harness = try await ReplicaHarness.start(FaultToleranceTests.pinned, faults: ReplicaFaults(rules: [broken]))
        let report = try await harness.fetch(retry: RetryPolicy(attempts: 1))
        await harness.stop()
        #expect(!report.failures.isEmpty)
        let (status, time) = try StatusAction(storePath: harness.storePath).run()
        #expect(status.failures.map(\.url).sorted() == report.failures.map(\.url).sorted())
        #expect(status.failures.allSatisfy { $0.reason.contains("HTTP 500") && $0.board == harness.board })
        #expect(StatusAction.text(status, time: time).contains("\(report.failures.count) pending failure(s)"))
    }

    /// Sizes read as numbers, none as `0 bytes` (Foundation wrote `Zero KB`).
    @Test func statusSizesAreNumbers() {
        #expect(StatusAction.size(0) == "0 bytes")
        #expect(StatusAction.size(2_000) == "2 KB")
    }

    @Test func warcDigestsAreBase32() {
        #expect(WARCWriter.base32(Array("foobar".utf8)) == "MZXW6YTBOI======")
        #expect(WARCWriter.base32(Array("fo".utf8)) == "MZXQ====")
        #expect(WARCWriter.digest(Data()) == "sha256:4OYMIQUY7QOBJGX36TEJS35ZEQT24QPEMSNZGTFESWMRW6CSXBKQ====")
    }

    /// Runs PyPI's warcio (`make setup` installs it).
    static func warcio(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["warcio"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

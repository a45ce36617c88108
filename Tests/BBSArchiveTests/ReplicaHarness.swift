import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// A replica on a loopback port and a store in a fresh folder, for tests
/// that run the real fetch pipeline.
struct ReplicaHarness {
    static let small = ReplicaConfig(
        seed: 11, sections: 1, boardsPerSection: 1, threadsPerBoard: 14, maxPostsPerThread: 14)

    let forum: ReplicaForum
    let server: ReplicaServer
    let base: String
    let folder: URL
    let storePath: String
    /// The time the replica serves at and the archiver stamps with, when
    /// the test holds it still; otherwise the system's.
    var clock: TestClock?

    var board: String { forum.boardNames.first ?? "" }
    var source: SMTHMobileSource { SMTHMobileSource(baseURL: base) }

    static func start(_ config: ReplicaConfig = small, faults: ReplicaFaults = ReplicaFaults()) async throws
        -> ReplicaHarness
    {
        let forum = ReplicaForum(config: config)
        return try await start(forum: forum, faults: faults, folder: try Fixtures.temporaryFolder("fetch"))
    }

    /// The replica's Photos board (large, tall and animated images) fetched
    /// into a new store, the server stopped again.
    static func fetchedPhotos() async throws -> ReplicaHarness {
        var faults = ReplicaFaults()
        faults.photos = true
        let harness = try await start(
            ReplicaConfig(seed: 5, sections: 1, boardsPerSection: 1, threadsPerBoard: 1, maxPostsPerThread: 1),
            faults: faults)
        let fetched = try await harness.fetch(boards: [PhotoBoard.name])
        await harness.stop()
        #expect(fetched.failures.isEmpty, "failures: \(fetched.failures)")
        return harness
    }

    /// Serves `forum` (again, on `port` when given, so the forum keeps its
    /// address) with other faults, keeping the store in `folder`.
    static func start(
        forum: ReplicaForum, faults: ReplicaFaults, folder: URL, port: UInt16 = 0, clock: TestClock? = nil
    ) async throws -> ReplicaHarness {
        let serve: @Sendable () -> Date
        if let clock { serve = { clock.now() } } else { serve = { Date() } }
        let server = ReplicaServer(forum: forum, faults: faults, clock: serve)
        let base = try await server.start(port: port).absoluteString
        return ReplicaHarness(
            forum: forum, server: server, base: base, folder: folder,
            storePath: folder.appendingPathComponent("archive.sqlite").path, clock: clock)
    }

    func fetch(
        boards: [String]? = nil, source: (any ForumSource)? = nil, rate: Double = 0,
        options: Archiver.Options = Archiver.Options(),
        retry: RetryPolicy = .fast, respectRobots: Bool = true, cookies: String? = nil, timeout: Int = 10,
        mediaHosts: [String] = [], client: (any HTTPClient)? = nil, events: @escaping ProgressSink = { _ in }
    ) async throws -> Archiver.Report {
        var http = CurlHTTPClient.Options()
        http.timeout = timeout
        var action = FetchAction(
            boards: boards ?? forum.boardNames, source: source ?? self.source, storePath: storePath, rate: rate,
            options: options,
            retry: retry, respectRobots: respectRobots, cookies: cookies, http: http)
        action.mediaHosts = mediaHosts
        action.client = client
        if let clock { action.clock = { clock.now() } }
        return try await action.run(events: events)
    }

    func store() throws -> ArchiveStore { try ArchiveStore(path: storePath) }

    var port: UInt16 { UInt16(URLComponents(string: base)?.port ?? 0) }

    func stop() async { await server.stop() }
}

extension RetryPolicy {
    /// Quick retries, so fault tests spend their time on the server's own `Retry-After`.
    static let fast = RetryPolicy(attempts: 4, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200))
}

import BBSArchiveTestSupport
import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// The replica misbehaves the way a real forum does on a bad day; the
/// archive must still end complete, or say exactly what failed and why.
@Suite(.serialized) struct FaultToleranceTests {
    /// The small forum generated at a fixed moment. A rule with `every`
    /// hits the targets whose hash falls on it, and the generated thread ids
    /// follow the forum's `now`: left to the clock, some hours of the day
    /// gave 14 threads that no `every: 4` rule hit, and nothing failed.
    static let pinned: ReplicaConfig = {
        var config = ReplicaHarness.small
        config.now = Date(timeIntervalSince1970: 1_748_750_400)  // 2025-06-01 12:00 Beijing
        return config
    }()

    static let transientFaults: [ReplicaFaults.Rule] = [
        .init(.unavailable, paths: .threads, times: 2, every: 4, retryAfter: 1),
        .init(.tooManyRequests, paths: .all, times: 1, every: 5, retryAfter: 1),
        .init(.serverError, paths: .all, times: 2, every: 3),
        .init(.slow, paths: .threads, times: 1, every: 4, delay: .milliseconds(1_600)),
        .init(.truncated, paths: .all, times: 1, every: 3),
        .init(.reset, paths: .all, times: 1, every: 3),
    ]

    @Test(arguments: transientFaults)
    func transientFaultsEndComplete(_ rule: ReplicaFaults.Rule) async throws {
        let harness = try await ReplicaHarness.start(Self.pinned, faults: ReplicaFaults(rules: [rule]))
        let retries = RetryCounter()
        // A one-second timeout makes the slow responses time out once.
        let report = try await harness.fetch(timeout: 1) { event in
            if case .retry = event { retries.add() }
        }
        await harness.stop()
        #expect(report.failures.isEmpty, "\(rule.kind): \(report.failures)")
        #expect(retries.count > 0, "\(rule.kind) never made the archiver retry")
        try ReplicaTruth.expectStore(try harness.store(), matches: harness.forum, base: harness.base)
    }

    @Test func aWrongCharsetHeaderDoesNotGarbleText() async throws {
        let harness = try await ReplicaHarness.start(faults: ReplicaFaults(wrongCharset: true))
        let report = try await harness.fetch()
        await harness.stop()
        #expect(report.failures.isEmpty)
        try ReplicaTruth.expectStore(try harness.store(), matches: harness.forum, base: harness.base)
    }

    @Test func permanentFailuresAreReportedKeptAndRetriedNextRun() async throws {
        let broken = ReplicaFaults.Rule(.serverError, paths: .threads, times: 1_000, every: 4)
        let first = try await ReplicaHarness.start(Self.pinned, faults: ReplicaFaults(rules: [broken]))
        let report = try await first.fetch(retry: RetryPolicy(attempts: 2, baseDelay: .milliseconds(10)))
        await first.stop()
        #expect(!report.failures.isEmpty)
        for failure in report.failures {
            #expect(failure.url.contains("/article/"))
            #expect(failure.error == .httpStatus(url: failure.url, status: 500))
        }
        let store = try first.store()
        let stored = try store.counts()
        #expect(stored.posts > 0)
        #expect(try store.failures().count == report.failures.count)

        // The forum recovers: the same command finishes the archive.
        let healed = try await ReplicaHarness.start(
            forum: first.forum, faults: ReplicaFaults(), folder: first.folder, port: first.port)
        let second = try await healed.fetch()
        await healed.stop()
        #expect(second.failures.isEmpty)
        #expect(second.threadsFetched == report.failures.count)
        // Its list page 1 was as the first run kept it: the threads still
        // to fetch were found without a list page read or stored.
        #expect(second.listsRepeated == 1)
        #expect(try store.failures().isEmpty)
        try ReplicaTruth.expectStore(store, matches: healed.forum, base: healed.base)
    }

    @Test func theCommandLineListsFailuresAndExitsNonZero() async throws {
        let broken = ReplicaFaults.Rule(.serverError, paths: .threads, times: 1_000, every: 2)
        let harness = try await ReplicaHarness.start(Self.pinned, faults: ReplicaFaults(rules: [broken]))
        let outcome = try await CommandLineTests().run([
            "fetch", harness.board, "--forum-url", harness.base, "--store", harness.storePath, "--rate", "0",
            "--tries", "2", "--quiet",
        ])
        await harness.stop()
        #expect(outcome.status == 1)
        let failed = outcome.stderrLines.filter { $0.hasPrefix("failed: ") }
        #expect(failed.count >= 2)
        #expect(failed.allSatisfy { $0.contains("/article/") && $0.contains("HTTP 500") })
        #expect(outcome.stderrLines.last?.hasPrefix("bbsarchive: error: \(failed.count) page(s) failed") == true)
    }

    @Test func aLoginWallNamesCookiesAndCookiesOpenIt() async throws {
        let harness = try await ReplicaHarness.start(faults: ReplicaFaults(loginBoard: ReplicaHarness.small.boardName))
        let board = harness.board
        let guest = try await harness.fetch()
        #expect(guest.failures.map(\.error) == [.needsLogin(board: board, cookies: .none)])
        #expect("\(guest.failures[0].error)".contains("--cookies"))

        let expired = harness.folder.appendingPathComponent("expired.txt")
        try "127.0.0.1\tFALSE\t/\tFALSE\t1000\tKBS_SESSION\treplica-session\n".write(
            to: expired, atomically: true, encoding: .utf8)
        let stale = try await harness.fetch(cookies: expired.path)
        #expect(stale.failures.map(\.error) == [.needsLogin(board: board, cookies: .expired(expired.path))])

        let cookies = harness.folder.appendingPathComponent("cookies.txt")
        try "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tKBS_SESSION\treplica-session\n"
            .write(to: cookies, atomically: true, encoding: .utf8)
        let member = try await harness.fetch(cookies: cookies.path)
        #expect(member.failures.isEmpty)
        try ReplicaTruth.expectStore(try harness.store(), matches: harness.forum, base: harness.base)

        let header = try await ReplicaHarness.start(
            forum: harness.forum, faults: ReplicaFaults(loginBoard: board),
            folder: try Fixtures.temporaryFolder("header"))
        let viaHeader = try await header.fetch(cookies: "KBS_SESSION=replica-session; other=1")
        #expect(viaHeader.failures.isEmpty)
        await harness.stop()
        await header.stop()
    }

    @Test func robotsTxtIsHonouredUnlessIgnored() async throws {
        let robots = "User-agent: *\nDisallow: /att/\nCrawl-delay: 0.2\n"
        let harness = try await ReplicaHarness.start(faults: ReplicaFaults(robots: robots))
        let client = SendTimes(CurlHTTPClient())
        let report = try await harness.fetch(client: client)
        let log = await harness.server.timedRequestLog()
        await harness.stop()
        #expect(log.first?.target == "/robots.txt")
        #expect(log.filter { $0.target == "/robots.txt" }.count == 1)
        #expect(!log.contains { $0.target.hasPrefix("/att/") })
        #expect(!report.failures.isEmpty)
        #expect(report.failures.allSatisfy { $0.error == .robotsDisallowed(url: $0.url) })
        // Crawl-delay: 0.2 s between requests, even with --rate 0: never
        // more than five in a second leave (timed as they leave, see below).
        #expect(log.map(\.target).sorted() == client.log.map { Fetcher.pathAndQuery($0.url) }.sorted())
        Self.expectAtMost(5, within: 1, client.log.dropFirst().map(\.at), "sent")

        let ignoring = try await ReplicaHarness.start(
            forum: harness.forum, faults: ReplicaFaults(robots: robots), folder: try Fixtures.temporaryFolder("robots"))
        let all = try await ignoring.fetch(respectRobots: false)
        let ignoredLog = await ignoring.server.requestLog()
        await ignoring.stop()
        #expect(all.failures.isEmpty)
        #expect(!ignoredLog.contains("/robots.txt"))
        #expect(ignoredLog.contains { $0.hasPrefix("/att/") })
    }

    /// Requests leave no faster than the rate in any one-second window,
    /// with several boards walked and several threads fetched at once.
    /// Timed where the limiter's promise is kept, as each request is handed
    /// to libcurl: the replica's arrival times run late by however long a
    /// busy machine keeps its handler waiting, unevenly, which once made
    /// this test fail with the limiter in the right (the limiter's tenth of
    /// padding, for that delay on a real network, is no test's business).
    /// The replica must have seen exactly the requests timed here, so none
    /// went around the limiter.
    @Test func theRateLimitHoldsInEveryOneSecondWindow() async throws {
        let config = ReplicaConfig(seed: 5, sections: 1, boardsPerSection: 3, threadsPerBoard: 3, maxPostsPerThread: 8)
        let harness = try await ReplicaHarness.start(config)
        let client = SendTimes(CurlHTTPClient())
        let report = try await harness.fetch(rate: 5, options: Archiver.Options(connections: 4), client: client)
        let arrived = await harness.server.requestLog()
        await harness.stop()
        let sent = client.log
        #expect(report.failures.isEmpty)
        #expect(sent.count >= 10)
        Self.expectAtMost(5, within: 1, sent.map(\.at), "sent")
        let sentTargets = sent.map { Fetcher.pathAndQuery($0.url) }
        #expect(arrived.sorted() == sentTargets.sorted())
    }

    static func expectAtMost(_ most: Int, within window: TimeInterval, _ times: [Date], _ what: String) {
        let times = times.sorted()
        for (index, start) in times.enumerated() {
            let inWindow = times[index...].prefix { $0.timeIntervalSince(start) < window }.count
            #expect(inWindow <= most, "\(inWindow) requests \(what) within \(window) s from request \(index)")
        }
    }

    /// A wall that goes up in the middle of a run stops the run's threads:
    /// the ones in flight send no further page, and none of them hurries
    /// past the rate limit on its way out.
    @Test func aLoginWallMidRunStopsWithoutSpeedingUp() async throws {
        let config = ReplicaConfig(seed: 5, sections: 1, boardsPerSection: 1, threadsPerBoard: 8, maxPostsPerThread: 60)
        var faults = ReplicaFaults(loginBoard: config.boardName)
        faults.loginAfter = 5
        let harness = try await ReplicaHarness.start(config, faults: faults)
        let connections = 4
        let report = try await harness.fetch(rate: 2, options: Archiver.Options(connections: connections))
        let log = await harness.server.timedRequestLog()
        await harness.stop()
        #expect(report.failures.map(\.error) == [.needsLogin(board: harness.board, cookies: .none)])
        let times = log.map(\.at)
        for (index, start) in times.enumerated() {
            let inWindow = times[index...].prefix { $0.timeIntervalSince(start) < 1 }.count
            #expect(inWindow <= 2, "\(inWindow) requests within one second from request \(index)")
        }
        // The board's requests past `loginAfter` meet the wall; after the
        // first of them only the pages other threads had in flight arrive.
        let boardRequests = log.indices.filter { log[$0].target.contains("/\(harness.board)") }
        let wall = try #require(boardRequests.dropFirst(faults.loginAfter).first)
        let threadPagesAfterWall = log[(wall + 1)...].filter { $0.target.hasPrefix("/article/") }
        #expect(threadPagesAfterWall.count <= connections - 1, "\(threadPagesAfterWall.map(\.target))")
    }
}

/// An HTTP client that notes when each request is handed to the one it wraps.
final class SendTimes: HTTPClient, @unchecked Sendable {
    // @unchecked: `sent` is only touched while holding `lock`.
    private let inner: any HTTPClient
    private let lock = NSLock()
    private var sent: [(at: Date, url: String)] = []

    init(_ inner: any HTTPClient) { self.inner = inner }

    func get(_ url: String, headers: [(name: String, value: String)]) async throws(ArchiveError) -> HTTPResponse {
        lock.withLock { sent.append((Date(), url)) }
        return try await inner.get(url, headers: headers)
    }

    var log: [(at: Date, url: String)] { lock.withLock { sent } }
}

/// Counts events from any task.
final class RetryCounter: @unchecked Sendable {
    // @unchecked: `value` is only touched while holding `lock`.
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

extension ReplicaConfig {
    /// The first board's id, which the forum's generator picks deterministically.
    var boardName: String { ReplicaForum(config: self).boardNames.first ?? "" }
}

extension ReplicaFaults.Rule: CustomTestStringConvertible {
    public var testDescription: String { "\(kind.rawValue) on \(paths.rawValue)" }
}

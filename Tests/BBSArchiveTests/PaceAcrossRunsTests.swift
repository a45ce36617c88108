import FlyingFox
import Foundation
import Testing

@testable import BBSArchive

/// A run started again keeps the pace the last one left (QA 7): a pause
/// the forum asked for, and the spacing of the rate limit, are not reset
/// by stopping and starting the fetch. Each "run" is a new fetcher over
/// the same store, as a new process is.
@Suite(.serialized) struct PaceAcrossRunsTests {
    /// When each request reached the server.
    final class Arrivals: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [Date] = []
        func add() { lock.withLock { times.append(Date()) } }
        var all: [Date] { lock.withLock { times } }
    }

    /// A server whose first answer is `first`, then 200s; and a fetch
    /// through a new fetcher over `store` for each run.
    func twoRuns(store: ArchiveStore?, rate: Double, first: FlyingFox.HTTPResponse) async throws -> [Date] {
        let arrivals = Arrivals()
        let answered = Arrivals()
        let (server, task, base) = try await HTTPClientTests.serve { _ in
            arrivals.add()
            defer { answered.add() }
            return answered.all.isEmpty ? first : FlyingFox.HTTPResponse(statusCode: .ok, body: Data("ok".utf8))
        }
        for _ in 0..<2 {
            let fetcher = Fetcher(
                client: CurlHTTPClient(), limiter: RateLimiter(requestsPerSecond: rate),
                captures: store ?? NoCaptures(), policy: RetryPolicy(attempts: 1), respectRobots: false)
            _ = try? await fetcher.fetch(base + "/page")
        }
        await server.stop()
        task.cancel()
        return arrivals.all
    }

    struct NoCaptures: CaptureRecorder {
        func saveCapture(_ response: BBSArchive.HTTPResponse) throws(ArchiveError) -> String { "" }
        func latestCapture(url: String) throws(ArchiveError) -> BBSArchive.HTTPResponse? { nil }
    }

    func store() throws -> ArchiveStore {
        try ArchiveStore(path: try Fixtures.temporaryFolder("pace").appendingPathComponent("a.sqlite").path)
    }

    static func tooMany(retryAfter seconds: Int) -> FlyingFox.HTTPResponse {
        var headers = HTTPHeaders()
        headers[HTTPHeader("Retry-After")] = String(seconds)
        return FlyingFox.HTTPResponse(statusCode: .tooManyRequests, headers: headers)
    }

    @Test func aPauseTheForumAskedForOutlivesTheRun() async throws {
        let times = try await twoRuns(store: try store(), rate: 0, first: Self.tooMany(retryAfter: 2))
        #expect(times.count == 2)
        if times.count == 2 {
            #expect(
                times[1].timeIntervalSince(times[0]) >= 1.9,
                "asked again after \(times[1].timeIntervalSince(times[0])) s")
        }
    }

    @Test func theRateOutlivesTheRun() async throws {
        let times = try await twoRuns(
            store: try store(), rate: 2, first: FlyingFox.HTTPResponse(statusCode: .ok, body: Data()))
        #expect(times.count == 2)
        if times.count == 2 {
            // The rate spaces the slots the requests take (0.55 s here); the
            // first request of a process arrives later after its slot than
            // the next (libcurl loads, a connection opens), by up to 0.15 s
            // on a busy machine. Without the store's pace: 0.002 s.
            #expect(
                times[1].timeIntervalSince(times[0]) >= 0.3,
                "asked again after \(times[1].timeIntervalSince(times[0])) s")
        }
    }

    /// Without a store to keep it, the second run asks at once: the two
    /// checks above can fail.
    @Test func withoutAStoreEachRunStartsAfresh() async throws {
        let times = try await twoRuns(store: nil, rate: 0, first: Self.tooMany(retryAfter: 2))
        #expect(times.count == 2)
        if times.count == 2 { #expect(times[1].timeIntervalSince(times[0]) < 1.5) }
    }
}

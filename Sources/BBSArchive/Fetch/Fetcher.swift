import Foundation

/// Fetches forum pages politely and keeps every response as a raw capture.
///
/// Politeness lives here, shared by every worker: the per-host rate limit,
/// robots.txt (with `Crawl-delay`), retries with back-off that honour
/// `Retry-After` and hold the whole host while it asks for a pause, and
/// conditional requests that let an unchanged page answer 304.
public struct Fetcher: Sendable {
    public let client: any HTTPClient
    public let limiter: RateLimiter
    public let store: ArchiveStore
    public let policy: RetryPolicy
    public let events: ProgressSink
    private let robots: RobotsGate?
    private let hosts = AnsweredHosts()
    /// Stamps each response with the time it arrived.
    private let clock: ArchiveClock

    public init(
        client: any HTTPClient, limiter: RateLimiter, store: ArchiveStore, policy: RetryPolicy = RetryPolicy(),
        respectRobots: Bool = true, events: @escaping ProgressSink = { _ in },
        clock: @escaping ArchiveClock = SystemClock.now
    ) {
        self.clock = clock
        self.client = client
        self.limiter = limiter
        self.store = store
        self.policy = policy
        self.events = events
        robots = respectRobots ? RobotsGate() : nil
    }

    /// GETs `url` and stores the capture. A 2xx comes back; other statuses
    /// throw after the capture is kept. With `conditional`, the newest
    /// capture's `ETag` / `Last-Modified` are sent, and a 304 answers with
    /// that capture (its body and its fetch time).
    public func fetch(_ url: String, conditional: Bool = false, headers extra: [(name: String, value: String)] = [])
        async throws(ArchiveError) -> HTTPResponse
    {
        if let robots {
            let rules: RobotsTxt
            do {
                rules = try await robots.rules(forHostOf: url, fetcher: self)
            } catch {
                // Say which page could not be reached, not which robots.txt.
                if case .unreachable(_, let reason) = error { throw .unreachable(url: url, reason: reason) }
                throw error
            }
            let target = Self.pathAndQuery(url)
            guard rules.allows(target) else { throw .robotsDisallowed(url: url) }
        }
        var headers = extra
        let cached = conditional ? try store.latestCapture(url: url) : nil
        if let cached, (200..<300).contains(cached.status) {
            if let tag = cached.header("ETag") { headers.append(("If-None-Match", tag)) }
            if let modified = cached.header("Last-Modified") { headers.append(("If-Modified-Since", modified)) }
        }
        let response = try await send(url, headers: headers)
        if response.status == 304, let cached {
            return cached
        }
        try store.saveCapture(response)
        guard (200..<300).contains(response.status) else {
            throw .httpStatus(url: url, status: response.status)
        }
        return response
    }

    /// Fetches a page and hands it over ready to parse.
    public func fetchPage(
        _ url: String, conditional: Bool = true, headers: [(name: String, value: String)] = []
    ) async throws(ArchiveError) -> FetchedPage {
        let response = try await fetch(url, conditional: conditional, headers: headers)
        return FetchedPage(
            url: response.url, body: response.body, contentType: response.header("Content-Type"),
            fetchedAt: response.fetchedAt)
    }

    /// One request with its retries; returns the last response whatever
    /// its status, or throws the last transport error.
    func send(_ url: String, headers: [(name: String, value: String)]) async throws(ArchiveError) -> HTTPResponse {
        let host = Self.host(of: url)
        var failures = 0
        while true {
            do {
                try await limiter.acquire(host: host)
            } catch {
                throw .cancelled(url: url)
            }
            let reason: String
            var retryAfter: Duration?
            do {
                var response = try await client.get(url, headers: headers)
                response.fetchedAt = clock()
                await hosts.insert(host)
                guard RetryPolicy.isRetryable(status: response.status) else { return response }
                retryAfter = RetryPolicy.retryAfter(response.header("Retry-After"))
                if let retryAfter, retryAfter > policy.maxRetryAfter {
                    events(.note("\(host) asks to wait \(retryAfter) before \(url); leaving it for the next run"))
                    return response
                }
                reason = "HTTP \(response.status)"
                if failures + 1 >= policy.attempts { return response }
            } catch {
                // A host that never answered is not down for a moment but
                // wrong or offline: say so at once instead of retrying.
                if case .cancelled = error { throw error }
                if case .unreachable = error, await !hosts.contains(host) { throw error }
                if failures + 1 >= policy.attempts { throw error }
                reason = Self.shortReason(error)
            }
            failures += 1
            let wait = policy.delay(afterFailures: failures, retryAfter: retryAfter)
            if retryAfter != nil {
                // The host asked everyone to hold off, not just this request.
                await limiter.pause(host: host, for: wait)
            }
            events(.retry(url: url, reason: reason, wait: wait, attempt: failures + 1, of: policy.attempts))
            // A stopping run does not retry: cutting the back-off short
            // would send the next try too soon.
            do {
                try await Task.sleep(for: wait)
            } catch {
                throw .cancelled(url: url)
            }
        }
    }

    static func host(of url: String) -> String {
        URLComponents(string: url)?.host?.lowercased() ?? ""
    }

    static func pathAndQuery(_ url: String) -> String {
        guard let components = URLComponents(string: url) else { return "/" }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    private static func shortReason(_ error: ArchiveError) -> String {
        switch error {
        case .unreachable(_, let reason), .transfer(_, let reason): return reason
        default: return "\(error)"
        }
    }
}

/// Hosts that have answered at least once in this run.
private actor AnsweredHosts {
    private var hosts: Set<String> = []
    func insert(_ host: String) { hosts.insert(host) }
    func contains(_ host: String) -> Bool { hosts.contains(host) }
}

/// Fetches each host's robots.txt once and keeps its rules. A robots.txt
/// that could not be fetched at all is asked for again after a minute,
/// not with every page in between.
private actor RobotsGate {
    private var rules: [String: Task<Result<RobotsTxt, ArchiveError>, Never>] = [:]
    private var failedAt: [String: ContinuousClock.Instant] = [:]

    func rules(forHostOf url: String, fetcher: Fetcher) async throws(ArchiveError) -> RobotsTxt {
        guard let components = URLComponents(string: url), let host = components.host?.lowercased() else {
            return .allowAll
        }
        let key = "\(components.scheme ?? "http")://\(host)\(components.port.map { ":\($0)" } ?? "")"
        if let task = rules[key] {
            let result = await task.value
            if case .success(let robots) = result { return robots }
            if let failed = failedAt[key], ContinuousClock.now - failed < .seconds(60) { return try result.get() }
        }
        let task = Task { await Self.load(key: key, host: host, fetcher: fetcher) }
        rules[key] = task
        let result = await task.value
        if case .failure = result { failedAt[key] = .now }
        return try result.get()
    }

    private static func load(key: String, host: String, fetcher: Fetcher) async -> Result<RobotsTxt, ArchiveError> {
        do throws(ArchiveError) {
            let response = try await fetcher.send(key + "/robots.txt", headers: [])
            try fetcher.store.saveCapture(response)
            let robots: RobotsTxt
            switch response.status {
            case 200..<300:
                robots = RobotsTxt(String(decoding: response.body, as: UTF8.self))
            case 400..<500:
                robots = .allowAll
            default:
                fetcher.events(
                    .note("\(host)/robots.txt answers HTTP \(response.status): fetching nothing from \(host) this run"))
                robots = .disallowAll
            }
            if let delay = robots.crawlDelay, delay > 0 {
                await fetcher.limiter.setMinimumInterval(delay, host: host)
                fetcher.events(.note("\(host)/robots.txt asks for \(delay) s between requests; going no faster"))
            }
            return .success(robots)
        } catch {
            return .failure(error)
        }
    }
}

import Foundation

/// Fetches each host's robots.txt once and keeps its rules. A robots.txt
/// that could not be fetched at all is asked for again after a minute,
/// not with every page in between.
///
/// A definite answer (a file, or "none here": 4xx) is kept in the store
/// with its fetch time and reused by later runs for up to a day, as RFC
/// 9309 §2.4 allows, so a daily update does not wait for it before its
/// first page. Its `Crawl-delay` applies as if it had just been fetched.
actor RobotsGate {
    /// How long a kept robots.txt is used (RFC 9309 §2.4: at most 24 hours).
    static let cacheLifetime: TimeInterval = 24 * 3600

    private let sender: PoliteSender
    private let captures: any CaptureRecorder
    private let events: ProgressSink
    private let clock: ArchiveClock

    private var rules: [String: Task<Result<RobotsTxt, ArchiveError>, Never>] = [:]
    private var failedAt: [String: ContinuousClock.Instant] = [:]

    init(
        sender: PoliteSender, captures: any CaptureRecorder, events: @escaping ProgressSink,
        clock: @escaping ArchiveClock = SystemClock.now
    ) {
        self.sender = sender
        self.captures = captures
        self.events = events
        self.clock = clock
    }

    func rules(forHostOf url: String) async throws(ArchiveError) -> RobotsTxt {
        guard let components = URLComponents(string: url), let host = components.host?.lowercased() else {
            return .allowAll
        }
        let key = "\(components.scheme ?? "http")://\(host)\(components.port.map { ":\($0)" } ?? "")"
        if let task = rules[key] {
            let result = await task.value
            if case .success(let robots) = result { return robots }
            if let failed = failedAt[key], ContinuousClock.now - failed < .seconds(60) { return try result.get() }
        }
        let (sender, captures, events, clock) = (sender, captures, events, clock)
        let task = Task {
            await Self.load(key: key, host: host, sender: sender, captures: captures, events: events, clock: clock)
        }
        rules[key] = task
        let result = await task.value
        if case .failure = result { failedAt[key] = .now }
        return try result.get()
    }

    private static func load(
        key: String, host: String, sender: PoliteSender, captures: any CaptureRecorder, events: ProgressSink,
        clock: ArchiveClock
    ) async -> Result<RobotsTxt, ArchiveError> {
        do throws(ArchiveError) {
            let response: HTTPResponse
            if let kept = try captures.cachedRobots(origin: key), isFresh(kept, now: clock()) {
                response = kept
            } else {
                response = try await sender.send(key + "/robots.txt", headers: [])
                try captures.saveCapture(response)
                if isDefinite(response.status) { try captures.cacheRobots(origin: key, response) }
            }
            let robots: RobotsTxt
            switch response.status {
            case 200..<300:
                robots = RobotsTxt(String(decoding: response.body, as: UTF8.self))
            case 400..<500:
                robots = .allowAll
            default:
                events(
                    .note("\(host)/robots.txt answers HTTP \(response.status): fetching nothing from \(host) this run"))
                robots = .disallowAll
            }
            if let delay = robots.crawlDelay, delay > 0 {
                await sender.limiter.setMinimumInterval(delay, host: host)
                if delay > RateLimiter.maxInterval {
                    events(
                        .note(
                            "\(host)/robots.txt asks for \(delay) s between requests; holding to \(Int(RateLimiter.maxInterval)) s"
                        ))
                } else {
                    events(.note("\(host)/robots.txt asks for \(delay) s between requests; going no faster"))
                }
            }
            return .success(robots)
        } catch {
            return .failure(error)
        }
    }

    /// Fetched less than a day ago (and not in the future: a clock set back
    /// must not make an old file look new).
    static func isFresh(_ kept: HTTPResponse, now: Date) -> Bool {
        let age = now.timeIntervalSince(kept.fetchedAt)
        return age >= 0 && age < cacheLifetime
    }

    /// An answer worth keeping: the file, or a 4xx that says there is none
    /// (RFC 9309 §2.3.1.3). A 5xx, a redirect or 429 ("too many requests",
    /// which says nothing about the file) is asked again by the next run.
    static func isDefinite(_ status: Int) -> Bool {
        (200..<300).contains(status) || ((400..<500).contains(status) && status != 429)
    }
}

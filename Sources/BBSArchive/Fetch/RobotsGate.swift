import Foundation

/// Fetches each host's robots.txt once and keeps its rules. A robots.txt
/// that could not be fetched at all is asked for again after a minute,
/// not with every page in between.
actor RobotsGate {
    private let sender: PoliteSender
    private let captures: any CaptureRecorder
    private let events: ProgressSink

    private var rules: [String: Task<Result<RobotsTxt, ArchiveError>, Never>] = [:]
    private var failedAt: [String: ContinuousClock.Instant] = [:]

    init(sender: PoliteSender, captures: any CaptureRecorder, events: @escaping ProgressSink) {
        self.sender = sender
        self.captures = captures
        self.events = events
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
        let (sender, captures, events) = (sender, captures, events)
        let task = Task { await Self.load(key: key, host: host, sender: sender, captures: captures, events: events) }
        rules[key] = task
        let result = await task.value
        if case .failure = result { failedAt[key] = .now }
        return try result.get()
    }

    private static func load(
        key: String, host: String, sender: PoliteSender, captures: any CaptureRecorder, events: ProgressSink
    ) async -> Result<RobotsTxt, ArchiveError> {
        do throws(ArchiveError) {
            let response = try await sender.send(key + "/robots.txt", headers: [])
            try captures.saveCapture(response)
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
}

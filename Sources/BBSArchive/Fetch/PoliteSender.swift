import Foundation

/// Sends one request politely: waits for the host's slot in the rate
/// limit, retries with back-off (holding the whole host while it asks for
/// a pause) and stamps the response with the time it arrived. Both the
/// fetcher and the robots.txt gate send through it.
struct PoliteSender: Sendable {
    let client: any HTTPClient
    let limiter: RateLimiter
    let policy: RetryPolicy
    let events: ProgressSink
    let clock: ArchiveClock
    /// Requests in flight at most (`nil`: as many as the callers send).
    let gate: RequestGate?
    /// Where each host's pace is kept for the next run (`HostPace`).
    let captures: (any CaptureRecorder)?
    private let hosts = AnsweredHosts()

    init(
        client: any HTTPClient, limiter: RateLimiter, policy: RetryPolicy, events: @escaping ProgressSink,
        clock: @escaping ArchiveClock, connections: Int? = nil, captures: (any CaptureRecorder)? = nil
    ) {
        gate = connections.map { RequestGate(width: $0) }
        self.captures = captures
        self.client = client
        self.limiter = limiter
        self.policy = policy
        self.events = events
        self.clock = clock
    }

    /// One request with its retries; returns the last response whatever
    /// its status, or throws the last transport error.
    func send(_ url: String, headers: [(name: String, value: String)]) async throws(ArchiveError) -> HTTPResponse {
        let host = Self.host(of: url)
        var failures = 0
        while true {
            let reason: String
            var retryAfter: Duration?
            do {
                var response = try await get(url, host: host, headers: headers)
                response.fetchedAt = clock()
                await hosts.insert(host)
                guard RetryPolicy.isRetryable(status: response.status) else { return response }
                retryAfter = RetryPolicy.retryAfter(response.header("Retry-After"))
                if let retryAfter {
                    // The host asked everyone to hold off, not just this
                    // request, and not just this run (which may end here):
                    // the next one waits as long as it may (`RateLimiter.resume`).
                    let now = clock()
                    let hold = min(retryAfter.inSeconds, RateLimiter.maxInterval)
                    try? captures?.recordHostPace(
                        host: host, HostPace(askedAt: now, holdUntil: now.addingTimeInterval(hold)))
                }
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

    /// One try: a place among the requests in flight, then the host's slot
    /// in the rate limit, then the request; the place is given back when
    /// the answer (or the error) is in.
    private func get(_ url: String, host: String, headers: [(name: String, value: String)])
        async throws(ArchiveError) -> HTTPResponse
    {
        do {
            try await gate?.enter()
        } catch {
            throw .cancelled(url: url)
        }
        let result: Result<HTTPResponse, ArchiveError>
        do {
            let paced = try await limiter.acquire(host: host, resuming: lastPace(host))
            let askedAt = clock()
            do {
                result = .success(try await client.get(url, headers: headers))
            } catch {
                result = .failure(error)
            }
            // Kept for the next run once the answer is in, not on the way
            // out: a store write waits its turn behind the others.
            if paced { try? captures?.recordHostPace(host: host, HostPace(askedAt: askedAt)) }
        } catch {
            // Only waiting for the slot throws here: the run is stopping.
            result = .failure(.cancelled(url: url))
        }
        await gate?.leave()
        return try result.get()
    }

    /// Reads the pace the last run left for `host`, saying when it asked
    /// for a pause that has not ended.
    private func lastPace(_ host: String) -> (@Sendable () -> (HostPace, Date)?)? {
        guard let captures else { return nil }
        return { [clock, events] in
            guard let pace = try? captures.hostPace(host: host) else { return nil }
            let now = clock()
            if let hold = pace.holdUntil, hold > now {
                let wait = Int(hold.timeIntervalSince(now).rounded(.up))
                events(.note("\(host) asked the last run to wait; waiting \(wait) s before asking it again"))
            }
            return (pace, now)
        }
    }

    static func host(of url: String) -> String {
        URLComponents(string: url)?.host?.lowercased() ?? ""
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

import Foundation

/// Spaces requests to each host evenly, shared by every task that asks:
/// at most `requestsPerSecond` per host, or fewer when the host's robots.txt
/// sets a `Crawl-delay`, and none at all while the host has asked everyone
/// to wait (`Retry-After` on a 429 or 503). A rate of 0 means no limit (for a
/// local replica only; never point that at a real forum).
package actor RateLimiter {
    private let interval: Duration
    private var nextSlot: [String: ContinuousClock.Instant] = [:]
    private var hostInterval: [String: Duration] = [:]
    /// When the last run asked each host, for the first slot of this one.
    private var askedBefore: [String: ContinuousClock.Instant] = [:]
    private var resumed: Set<String> = []

    package init(requestsPerSecond: Double) {
        interval = requestsPerSecond > 0 ? Self.padded(1 / requestsPerSecond) : .zero
    }

    /// Waits for the host's next free slot. A slot is taken when the task
    /// actually goes, not booked ahead: a task that wakes late (a busy
    /// machine) pushes the next one back instead of leaving it too close.
    /// A cancelled task does not get one: it throws instead of going ahead
    /// early, so a run that is stopping never sends faster than the rate.
    /// Returns whether requests to the host are spaced at all. `resuming`
    /// reads, before the host's first slot of the run, the pace the last
    /// run left (`resume`) with the wall time to read it against.
    @discardableResult
    package func acquire(host: String, resuming: (@Sendable () -> (HostPace, Date)?)? = nil)
        async throws(CancellationError) -> Bool
    {
        // Read once, before any task of this run takes a slot of the host:
        // nothing here waits, so no other task comes in between.
        if let resuming, !resumed.contains(host) {
            resumed.insert(host)
            if let (pace, now) = resuming() { resume(host: host, pace, now: now) }
        }
        while true {
            if Task.isCancelled { throw CancellationError() }
            let spacing = max(interval, hostInterval[host] ?? .zero)
            let now = ContinuousClock.now
            let slot = nextSlot[host] ?? askedBefore[host].map { $0 + spacing } ?? now
            guard slot > now else {
                if spacing > .zero { nextSlot[host] = now + spacing }
                return spacing > .zero
            }
            do {
                try await Task.sleep(until: slot, clock: .continuous)
            } catch {
                throw CancellationError()
            }
        }
    }

    /// Leaves at least `seconds` between requests to `host` from now on.
    package func setMinimumInterval(_ seconds: Double, host: String) {
        hostInterval[host] = Self.padded(seconds)
    }

    /// A tenth slower than asked, so that no window of one second at the
    /// server ever sees one request too many: the time from taking a slot
    /// to arriving varies (a new connection's first request arrives tens of
    /// milliseconds later than a kept-alive one's), and 2 % was too thin.
    /// The delay is clamped to `0...maxInterval` first: a `Crawl-delay`
    /// comes from the network, and a huge one must not trap the conversion.
    private static func padded(_ seconds: Double) -> Duration {
        let bounded = seconds.isNaN ? 0 : min(max(seconds, 0), maxInterval)
        return .nanoseconds(Int64(bounded * 1.1 * 1_000_000_000))
    }

    /// The longest spacing a site can ask for between two requests.
    package static let maxInterval: Double = 3600

    /// Takes up `host`'s pace where the last run left it: its first slot is
    /// a spacing after the last run's last request, and not before the end
    /// of a pause the host asked for. `now` is the wall time the pace's
    /// times are read against.
    package func resume(host: String, _ pace: HostPace, now: Date) {
        let instant = ContinuousClock.now
        let since = now.timeIntervalSince(pace.askedAt)
        if since.isFinite, since >= 0, since < Self.maxInterval {
            askedBefore[host] = instant - .nanoseconds(Int64(since * 1_000_000_000))
        }
        if let hold = pace.holdUntil?.timeIntervalSince(now), hold.isFinite, hold > 0 {
            pause(host: host, for: .nanoseconds(Int64(min(hold, Self.maxInterval) * 1_000_000_000)))
        }
    }

    /// Holds every request to `host` for `duration`.
    package func pause(host: String, for duration: Duration) {
        let until = ContinuousClock.now + duration
        if until > (nextSlot[host] ?? .now) { nextSlot[host] = until }
    }
}

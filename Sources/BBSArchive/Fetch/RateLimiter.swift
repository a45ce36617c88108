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

    package init(requestsPerSecond: Double) {
        interval = requestsPerSecond > 0 ? Self.padded(1 / requestsPerSecond) : .zero
    }

    /// Waits for the host's next free slot. A slot is taken when the task
    /// actually goes, not booked ahead: a task that wakes late (a busy
    /// machine) pushes the next one back instead of leaving it too close.
    /// A cancelled task does not get one: it throws instead of going ahead
    /// early, so a run that is stopping never sends faster than the rate.
    package func acquire(host: String) async throws(CancellationError) {
        while true {
            if Task.isCancelled { throw CancellationError() }
            let spacing = max(interval, hostInterval[host] ?? .zero)
            let now = ContinuousClock.now
            let slot = nextSlot[host] ?? now
            guard slot > now else {
                if spacing > .zero { nextSlot[host] = now + spacing }
                return
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

    /// Holds every request to `host` for `duration`.
    package func pause(host: String, for duration: Duration) {
        let until = ContinuousClock.now + duration
        if until > (nextSlot[host] ?? .now) { nextSlot[host] = until }
    }
}

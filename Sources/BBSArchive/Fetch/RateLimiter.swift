import Foundation

/// Spaces requests evenly: at most `requestsPerSecond`, shared by every
/// task that calls `acquire()`. A rate of 0 or less means no limit (for a
/// local replica only; never point that at a real forum).
public actor RateLimiter {
    private let interval: Duration
    private var nextSlot: ContinuousClock.Instant

    public init(requestsPerSecond: Double) {
        interval =
            requestsPerSecond > 0 ? .nanoseconds(Int64(1_000_000_000 / requestsPerSecond)) : .zero
        nextSlot = .now
    }

    /// Waits for the next free slot.
    public func acquire() async {
        guard interval > .zero else { return }
        let now = ContinuousClock.now
        let slot = max(now, nextSlot)
        nextSlot = slot + interval
        if slot > now {
            try? await Task.sleep(until: slot, clock: .continuous)
        }
    }
}

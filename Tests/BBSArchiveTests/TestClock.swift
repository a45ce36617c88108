import Foundation

/// A clock that stands still until a test moves it, shared by the replica,
/// the fetcher and the store so that "today" never turns over mid-test.
final class TestClock: @unchecked Sendable {
    // @unchecked: `current` is only touched while holding `lock`.
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date) { current = start }

    func now() -> Date { lock.withLock { current } }

    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

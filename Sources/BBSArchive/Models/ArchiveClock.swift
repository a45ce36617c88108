import Foundation

/// Where the store and the crawler read the time: the system's clock in
/// the program, a clock the test sets in tests.
public typealias ArchiveClock = @Sendable () -> Date

public enum SystemClock {
    /// The system's clock.
    public static let now: ArchiveClock = { Date() }
}

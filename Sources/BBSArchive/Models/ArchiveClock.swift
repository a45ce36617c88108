import Foundation

/// Where the store and the crawler read the time: the system's clock in
/// the program, a clock the test sets in tests.
package typealias ArchiveClock = @Sendable () -> Date

package enum SystemClock {
    /// The system's clock.
    package static let now: ArchiveClock = { Date() }
}

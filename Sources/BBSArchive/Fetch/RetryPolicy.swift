import Foundation

/// When and how long to wait before trying a failed request again.
///
/// Timeouts, broken connections, 5xx and 429 are worth another try, with
/// exponential back-off and jitter so many workers do not retry in step; a
/// `Retry-After` from the server is a floor, never cut short.
package struct RetryPolicy: Sendable {
    /// Tries in all, the first included.
    package var attempts: Int
    package var baseDelay: Duration
    package var maxDelay: Duration
    /// A `Retry-After` longer than this ends the tries: the page is recorded
    /// as failed and the next run tries again.
    package var maxRetryAfter: Duration

    package init(
        attempts: Int = 4, baseDelay: Duration = .seconds(2), maxDelay: Duration = .seconds(120),
        maxRetryAfter: Duration = .seconds(900)
    ) {
        self.attempts = max(1, attempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// HTTP statuses that say "try again later".
    package static func isRetryable(status: Int) -> Bool {
        [408, 425, 429, 500, 502, 503, 504].contains(status)
    }

    /// The wait after the `failures`-th failed try: between half and all of
    /// `baseDelay · 2^(failures-1)` (capped), and never less than `retryAfter`.
    package func delay(afterFailures failures: Int, retryAfter: Duration?) -> Duration {
        let exponent = min(max(0, failures - 1), 20)
        var backoff = baseDelay * (1 << exponent)
        if backoff > maxDelay { backoff = maxDelay }
        let jittered = backoff / 2 + backoff / 2 * Double.random(in: 0...1)
        guard let retryAfter else { return jittered }
        return max(retryAfter, jittered)
    }

    /// `Retry-After` as delta-seconds or an HTTP date.
    package static func retryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        // Bounded before the conversion: the date is the server's to choose.
        let seconds = min(max(date.timeIntervalSince(now), 0), 365 * 86_400)
        return .milliseconds(Int64(seconds * 1000))
    }
}

import Foundation
import Testing

@testable import BBSArchive

@Suite struct RetryPolicyTests {
    @Test func readsRetryAfterInBothForms() {
        #expect(RetryPolicy.retryAfter("120") == .seconds(120))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let later = RetryPolicy.retryAfter("Tue, 14 Nov 2023 22:14:20 GMT", now: now)
        #expect(later == .seconds(60))
        #expect(RetryPolicy.retryAfter("soon") == nil)
        #expect(RetryPolicy.retryAfter(nil) == nil)
    }

    @Test func backsOffExponentiallyWithJitterAndHonoursRetryAfter() {
        let policy = RetryPolicy(attempts: 5, baseDelay: .seconds(2), maxDelay: .seconds(10))
        for _ in 0..<50 {
            let first = policy.delay(afterFailures: 1, retryAfter: nil)
            #expect(first >= .seconds(1) && first <= .seconds(2))
            let third = policy.delay(afterFailures: 3, retryAfter: nil)
            #expect(third >= .seconds(4) && third <= .seconds(8))
            let capped = policy.delay(afterFailures: 9, retryAfter: nil)
            #expect(capped >= .seconds(5) && capped <= .seconds(10))
            #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(30)) == .seconds(30))
        }
    }

    @Test func knowsWhichStatusesToRetry() {
        #expect([429, 500, 502, 503, 504].allSatisfy(RetryPolicy.isRetryable(status:)))
        #expect(![200, 301, 304, 400, 403, 404].contains(where: RetryPolicy.isRetryable(status:)))
    }
}

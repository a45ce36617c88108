import FlyingFox
import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive
@testable import BBSArchiveCLI

/// What the command line prints while it works.
@Suite(.serialized) struct ProgressOutputTests {
    @Test func jsonLogsAreOneEventALine() async throws {
        let harness = try await ReplicaHarness.start()
        let outcome = try await CommandLineTests().run([
            "fetch", harness.board, "--forum-url", harness.base, "--store", harness.storePath, "--rate", "0",
            "--log-format", "json",
        ])
        await harness.stop()
        #expect(outcome.status == 0)
        let events = try outcome.stderrLines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(events.allSatisfy { $0["event"] is String && $0["time"] is String })
        let stages = events.filter { $0["event"] as? String == "stage" }
        #expect(stages.contains { ($0["stage"] as? String)?.hasSuffix("threads") == true && $0["total"] is Int })
        #expect(events.last?["event"] as? String == "summary")
    }

    @Test func plainLogsNameEachStageAndEndWithASummary() async throws {
        let harness = try await ReplicaHarness.start()
        let outcome = try await CommandLineTests().run([
            "fetch", harness.board, "--forum-url", harness.base, "--store", harness.storePath, "--rate", "0",
        ])
        await harness.stop()
        #expect(outcome.status == 0)
        // Not a terminal: whole lines, no carriage returns or escape codes.
        #expect(!outcome.stderr.contains("\r") && !outcome.stderr.contains("\u{1B}"))
        #expect(outcome.stderrLines.contains { $0.contains("threads 14/14") })
        #expect(outcome.stderrLines.last?.hasPrefix("fetched ") == true)
    }

    @Test func stageLinesShowRateAndTimeLeft() {
        #expect(
            ProgressPrinter.stageLine("threads", done: 120, total: 450, failed: 2, elapsed: 40)
                == "threads 120/450 · 3.0/s · ETA 1m50s · 2 failed")
        #expect(ProgressPrinter.stageLine("list pages", done: 3, total: nil, failed: 0, elapsed: 0.5) == "list pages 3")
    }
}

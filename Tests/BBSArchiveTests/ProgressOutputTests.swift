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

    /// A JSON log line reads back as the values it was made of, whatever
    /// the forum put in them, on one line, with its keys in order.
    @Test func jsonLinesReadBackAsTheirValues() throws {
        let hostile = [
            "", "plain", "quote \" and backslash \\ and slash /", "line\nbreak\r\ttab", "\u{0}\u{1}\u{1F}\u{7F}",
            "水木社区 — emoji 🀄️ and U+2028 \u{2028} U+2029 \u{2029}", "\u{FEFF}bom", "</script><b>", "\\u0041",
            "e\u{301} composed", "\u{10FFFF}",
        ]
        for (index, text) in hostile.enumerated() {
            let fields: [String: Any] = [
                "message": text, "count": index - 3, "rate": Double(index) / 7, "big": Int.max, "flag": index % 2 == 0,
                "tiny": 1e-9, "huge": 1.5e300, "key \"\(text)\"": "value", "list": ["a", "b"],
            ]
            let line = JSONLine.object(fields)
            #expect(!line.contains("\n") && !line.contains("\r"), "\(line)")
            let read = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(read["message"] as? String == text)
            #expect(read["key \"\(text)\""] as? String == "value")
            #expect((read["count"] as? NSNumber)?.intValue == index - 3)
            #expect((read["big"] as? NSNumber)?.int64Value == Int64.max)
            #expect((read["rate"] as? NSNumber)?.doubleValue == Double(index) / 7)
            #expect((read["tiny"] as? NSNumber)?.doubleValue == 1e-9)
            #expect((read["huge"] as? NSNumber)?.doubleValue == 1.5e300)
            #expect((read["flag"] as? Bool) == (index % 2 == 0))
            #expect(read["list"] as? [String] == ["a", "b"])
            let keys = fields.keys.sorted().map { key -> String in
                var quoted: [UInt8] = []
                JSONLine.appendString(key, to: &quoted)
                return String(decoding: quoted, as: UTF8.self) + ":"
            }
            let places = keys.map { line.range(of: $0)?.lowerBound }
            #expect(places.allSatisfy { $0 != nil } && places.map { $0! } == places.map { $0! }.sorted())
        }
        #expect(JSONLine.object(["n": Double.nan, "i": -Double.infinity]) == #"{"i":null,"n":null}"#)
        // The escapes as written, and the scalars beside the escaped ones
        // (U+2027, U+202A, U+FEFE: the same lead bytes) left as they are.
        #expect(
            JSONLine.object(["m": "a\"\\\n\r\t\u{1}\u{1F}\u{FEFF}\u{2028}\u{2029}\u{2027}\u{202A}\u{FEFE}é/"])
                == #"{"m":"a\"\\\n\r\t\u0001\u001f\ufeff\u2028\u2029\#u{2027}\#u{202A}\#u{FEFE}é/"}"#)
    }
}

import Foundation
import Testing

@testable import BBSArchive

@Suite struct ForumTimeTests {
    @Test func convertsWallClockBothWays() throws {
        let date = try #require(
            Fixtures.smthForum.time.date(.init(year: 2016, month: 3, day: 25, hour: 11, minute: 52, second: 4)))
        #expect(date.timeIntervalSince1970 == 1_458_877_924)
        #expect(Fixtures.smthForum.time.iso8601(date) == "2016-03-25T11:52:04+08:00")
        #expect(Fixtures.smthForum.time.display(date) == "2016-03-25 11:52:04")
        #expect(
            Fixtures.smthForum.time.components(of: date)
                == .init(year: 2016, month: 3, day: 25, hour: 11, minute: 52, second: 4))
    }

    /// The digits written straight into the string read as the padded
    /// numbers did, in any zone; years past 9999 (or before 0) keep the old way.
    @Test func printsPaddedDigits() {
        let time = ForumTime(zone: "Asia/Shanghai", offsetSeconds: 8 * 3600)
        for seconds in stride(from: -62_167_219_200.0, to: 253_402_300_800, by: 7_654_321_987) {
            let date = Date(timeIntervalSince1970: seconds)
            let c = time.components(of: date)
            let day = String(format: "%04d-%02d-%02d", c.year, c.month, c.day)
            let clock = String(format: "%02d:%02d:%02d", c.hour, c.minute, c.second)
            #expect(time.display(date) == day + " " + clock)
            #expect(time.day(date) == day)
            #expect(time.iso8601(date) == day + "T" + clock + "+08:00")
        }
        #expect(ForumTime.utc.display(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00")
        for seconds in [1e12, -1e12] {
            let date = Date(timeIntervalSince1970: seconds)
            let year = ForumTime.utc.components(of: date).year
            #expect(ForumTime.utc.day(date).hasPrefix("\(year)-"))
        }
    }

    /// The zone's offset is written into the same string: west and east,
    /// half hours, zero, seconds dropped; beyond 99 hours the old way.
    @Test func printsTheOffsetOfAnyZone() {
        let date = Date(timeIntervalSince1970: 1_458_877_924)
        let cases: [(Int, String)] = [
            (0, "+00:00"), (8 * 3600, "+08:00"), (-(3 * 3600 + 1800), "-03:30"), (5 * 3600 + 2700, "+05:45"),
            (-12 * 3600, "-12:00"), (14 * 3600 + 59, "+14:00"), (-59, "-00:00"), (99 * 3600, "+99:00"),
        ]
        for (offset, text) in cases {
            let time = ForumTime(zone: "Test", offsetSeconds: offset)
            let c = time.components(of: date)
            let expected =
                String(format: "%04d-%02d-%02dT%02d:%02d:%02d", c.year, c.month, c.day, c.hour, c.minute, c.second)
                + text
            #expect(time.iso8601(date) == expected)
        }
        let far = ForumTime(zone: "Test", offsetSeconds: 100 * 3600)
        #expect(far.iso8601(date).hasSuffix("+100:00"))
    }

    @Test func rejectsImpossibleDates() {
        #expect(Fixtures.smthForum.time.date(.init(year: 2023, month: 2, day: 29)) == nil)
        #expect(Fixtures.smthForum.time.date(.init(year: 2024, month: 2, day: 29)) != nil)
        #expect(Fixtures.smthForum.time.date(.init(year: 2024, month: 13, day: 1)) == nil)
    }

    @Test func resolvesForumTimes() {
        // 23:30 UTC on July 31 is 07:30 on August 1 in Beijing: "today" is August 1.
        let fetchedAt = Date(timeIntervalSince1970: 1_785_540_600)
        #expect(Fixtures.smthForum.time.display(fetchedAt) == "2026-08-01 07:30:00")
        #expect(SMTHTimeParser.parse("06:01:22", fetchedAt: fetchedAt) == Fixtures.beijing(2026, 8, 1, 6, 1, 22))
        #expect(SMTHTimeParser.parse("2025-10-31", fetchedAt: fetchedAt) == Fixtures.beijing(2025, 10, 31))
        #expect(
            SMTHTimeParser.parse("2025-10-31 05:47:09", fetchedAt: fetchedAt)
                == Fixtures.beijing(2025, 10, 31, 5, 47, 9))
        #expect(SMTHTimeParser.parse("昨天", fetchedAt: fetchedAt) == nil)
        #expect(SMTHTimeParser.parse("25:00:00", fetchedAt: fetchedAt) == nil)
    }

    /// A date or clock cut by a line break is joined up; a whole one, or a
    /// piece that is no part of a time, never is.
    @Test(arguments: [
        ("2023-04-1\n4", "2023-04-14"),
        ("2023-0 4-14  15:3\n1:48", "2023-04-14 15:31:48"),
        ("2023\n-04-14", "2023-04-14"),
        ("1\n5:31:48", "15:31:48"),
        ("2023-04-14  15:31:48", "2023-04-14  15:31:48"),
        ("2023-04-14\n15:31:48", "2023-04-14\n15:31:48"),
        ("15:31 :48", "15:31 :48"),
        ("2023-04-1 Tom41", "2023-04-1 Tom41"),
        ("2023-04-1 44", "2023-04-1 44"),
        ("原帖 已删除", "原帖 已删除"),
    ])
    func timesCutByALineBreakAreJoined(text: String, joined: String) {
        #expect(SMTHTimeParser.rejoined(text) == joined)
    }

    @Test func parsesISO8601Options() {
        #expect(ForumTime.parseISO8601("2026-08-01T16:00:00+08:00") == Fixtures.beijing(2026, 8, 1, 16))
        #expect(ForumTime.parseISO8601("2026-08-01T08:00:00Z") == Fixtures.beijing(2026, 8, 1, 16))
        #expect(ForumTime.parseISO8601("yesterday") == nil)
    }
}

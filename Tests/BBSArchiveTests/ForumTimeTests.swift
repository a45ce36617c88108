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

    @Test func parsesISO8601Options() {
        #expect(ForumTime.parseISO8601("2026-08-01T16:00:00+08:00") == Fixtures.beijing(2026, 8, 1, 16))
        #expect(ForumTime.parseISO8601("2026-08-01T08:00:00Z") == Fixtures.beijing(2026, 8, 1, 16))
        #expect(ForumTime.parseISO8601("yesterday") == nil)
    }
}

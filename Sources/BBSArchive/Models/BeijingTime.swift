import Foundation

/// Beijing time (UTC+8) through the old static API, for code written before
/// each forum declared its zone. New code takes the forum's `ForumTime`
/// (`ForumSource.time`, `SiteBuilder.Options.forum.time`).
@available(*, deprecated, message: "use the forum's ForumTime (ForumSource.time, SiteBuilder.Options.forum.time)")
package enum BeijingTime {
    static let time = ForumTime(zone: "Asia/Shanghai", offsetSeconds: 8 * 3600)
    package typealias Components = ForumTime.Components
    package static var offsetSeconds: Int { time.offsetSeconds }
    package static var plausibleYears: ClosedRange<Int> { ForumTime.plausibleYears }
    package static func date(_ c: Components) -> Date? { time.date(c) }
    package static func components(of date: Date) -> Components { time.components(of: date) }
    package static func iso8601(_ date: Date) -> String { time.iso8601(date) }
    package static func display(_ date: Date) -> String { time.display(date) }
    package static func day(_ date: Date) -> String { time.day(date) }
    package static func parseISO8601(_ text: String) -> Date? { ForumTime.parseISO8601(text) }
}

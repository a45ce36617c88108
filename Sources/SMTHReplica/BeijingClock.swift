import Foundation

/// Calendar arithmetic in Beijing time (Asia/Shanghai), done by hand: the zone
/// has been a fixed UTC+8 without daylight saving since 1991, so an offset is
/// exact for any date the replica produces, costs nothing per post, and does
/// not depend on the machine having tz data.
enum BeijingClock {
    static let offset: Int64 = 8 * 3600
    static let secondsPerDay: Int64 = 86_400

    /// Whole seconds since 1970, rounded down.
    static func seconds(_ date: Date) -> Int64 {
        let t = date.timeIntervalSince1970
        guard t.isFinite, abs(t) < 1e15 else { return 0 }
        return Int64(t.rounded(.down))
    }

    /// Days since 1970-01-01 of the Beijing calendar day holding `seconds`.
    static func day(_ seconds: Int64) -> Int64 {
        floorDiv(seconds + offset, secondsPerDay)
    }

    /// The first second (Unix time) of the Beijing day holding `seconds`.
    static func startOfDay(_ seconds: Int64) -> Int64 {
        day(seconds) * secondsPerDay - offset
    }

    /// "2026-08-01"
    static func dateText(_ seconds: Int64) -> String {
        let (y, m, d) = civil(day(seconds))
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// "16:45:15"
    static func timeText(_ seconds: Int64) -> String {
        let s = (seconds + offset) - day(seconds) * secondsPerDay
        return "\(pad(Int(s / 3600), 2)):\(pad(Int(s / 60 % 60), 2)):\(pad(Int(s % 60), 2))"
    }

    /// "2026-08-01 16:45:15"
    static func dateTimeText(_ seconds: Int64) -> String {
        dateText(seconds) + " " + timeText(seconds)
    }

    /// "2026-08-01 16:45", as nForum prints the time of a like.
    static func minuteText(_ seconds: Int64) -> String {
        String(dateTimeText(seconds).dropLast(3))
    }

    /// "Fri Mar  5 11:52:04 2016": the post header's 发信站 time, in the
    /// C library's ctime layout (English names, the day padded with a space).
    static func postHeaderText(_ seconds: Int64) -> String {
        let days = day(seconds)
        // 1970-01-01 was a Thursday.
        let weekday = Int(((days % 7) + 7 + 4) % 7)
        return weekdayNames[weekday] + " " + editText(seconds)
    }

    /// "Mar  5 11:52:04 2016": the time in a `※ 修改` line.
    static func editText(_ seconds: Int64) -> String {
        let (y, m, d) = civil(day(seconds))
        let dayText = d < 10 ? " \(d)" : "\(d)"
        return "\(monthNames[m - 1]) \(dayText) \(timeText(seconds)) \(y)"
    }

    private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// What a board listing prints: the time when the instant falls on the
    /// same Beijing day as `reference` (when the page is served), else the date.
    static func listingText(_ seconds: Int64, reference: Int64) -> String {
        day(seconds) == day(reference) ? timeText(seconds) : dateText(seconds)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Proleptic Gregorian year, month, day from days since 1970-01-01
    /// (Howard Hinnant's civil_from_days).
    private static func civil(_ days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (Int(y), Int(m), Int(d))
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

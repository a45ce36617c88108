import Foundation

/// Calendar arithmetic in one forum's time zone: the zone its pages print
/// times in, which the archive shows them in too. Each forum declares its
/// own (`ForumSource.time`); the build gets it with the forum's profile.
///
/// The zone is a fixed offset from UTC: exact for a forum whose zone has
/// kept one offset over the forum's whole life (China has kept UTC+8
/// without daylight saving since 1991), and much faster than going through
/// `Calendar` for millions of timestamps.
package struct ForumTime: Sendable, Equatable {
    /// The zone's IANA name, e.g. `Asia/Shanghai`.
    package var zone: String
    /// Seconds east of UTC.
    package var offsetSeconds: Int
    /// What the site calls the zone, e.g. 北京时间.
    package var name: String

    package init(zone: String, offsetSeconds: Int, name: String? = nil) {
        self.zone = zone
        self.offsetSeconds = offsetSeconds
        self.name = name ?? zone
    }

    /// UTC, for a build told nothing else. It has no name of its own:
    /// the site calls it as `strings.toml` says (`SiteStrings.utc`).
    package static let utc = ForumTime(zone: "UTC", offsetSeconds: 0)

    /// A civil date and time of day in the forum's zone.
    package struct Components: Equatable, Sendable {
        package var year: Int, month: Int, day: Int
        package var hour: Int, minute: Int, second: Int

        package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
            (self.year, self.month, self.day) = (year, month, day)
            (self.hour, self.minute, self.second) = (hour, minute, second)
        }
    }

    /// The years a forum time may fall in. Anything else on a page is
    /// hostile or garbled, and must never reach the date arithmetic below,
    /// where a huge year would overflow and trap.
    package static let plausibleYears = 1990...2100

    /// The instant of a wall-clock time in the zone, or `nil` if it is not a real
    /// date in `plausibleYears`.
    package func date(_ c: Components) -> Date? {
        guard Self.plausibleYears.contains(c.year), (1...12).contains(c.month), (1...31).contains(c.day),
            (0...23).contains(c.hour),
            (0...59).contains(c.minute), (0...60).contains(c.second),
            c.day <= Self.daysInMonth(year: c.year, month: c.month)
        else { return nil }
        let days = Self.daysFromCivil(year: c.year, month: c.month, day: c.day)
        let seconds = days * 86_400 + c.hour * 3600 + c.minute * 60 + c.second - offsetSeconds
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The zone's wall-clock reading of an instant (whole seconds).
    /// Instants beyond ±10^12 s (about ±31,700 years) read as those bounds,
    /// so that no stored or computed date can trap the conversion.
    package func components(of date: Date) -> Components {
        let limit = 1e12
        let raw = date.timeIntervalSince1970.rounded(.down)
        let clamped = raw.isNaN ? 0 : min(max(raw, -limit), limit)
        let seconds = Int(clamped) + offsetSeconds
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civilFromDays(days)
        return Components(
            year: year, month: month, day: day,
            hour: secondOfDay / 3600, minute: secondOfDay % 3600 / 60, second: secondOfDay % 60)
    }

    /// `2023-04-03T00:00:00+08:00`: ISO 8601 with the zone's offset.
    package func iso8601(_ date: Date) -> String {
        let c = components(of: date)
        if let text = Self.digits(c, time: true, separator: UInt8(ascii: "T"), offset: offsetSeconds) { return text }
        let date = "\(Self.pad(c.year, 4))-\(Self.pad(c.month))-\(Self.pad(c.day))"
        return date + "T\(Self.pad(c.hour)):\(Self.pad(c.minute)):\(Self.pad(c.second))" + offsetText
    }

    /// `+08:00`, `-03:30`, `+00:00`.
    private var offsetText: String {
        let minutes = abs(offsetSeconds) / 60
        return (offsetSeconds < 0 ? "-" : "+") + Self.pad(minutes / 60) + ":" + Self.pad(minutes % 60)
    }

    /// `2023-04-03 15:31:48`, as forums and the archive print times.
    package func display(_ date: Date) -> String {
        let c = components(of: date)
        if let text = Self.digits(c, time: true, separator: UInt8(ascii: " ")) { return text }
        return
            "\(Self.pad(c.year, 4))-\(Self.pad(c.month))-\(Self.pad(c.day)) \(Self.pad(c.hour)):\(Self.pad(c.minute)):\(Self.pad(c.second))"
    }

    /// `2023-04-03`.
    package func day(_ date: Date) -> String {
        let c = components(of: date)
        if let text = Self.digits(c, time: false, separator: 0) { return text }
        return "\(Self.pad(c.year, 4))-\(Self.pad(c.month))-\(Self.pad(c.day))"
    }

    /// Parses an ISO 8601 instant such as `2026-08-01T12:00:00+08:00` or `...Z`.
    package static func parseISO8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// `2023-04-03`, with `separator` and `15:31:48` after it when `time`,
    /// and the zone's `+08:00` after that when `offset` is given: the digits
    /// written straight into one string (a build prints several times for
    /// every post). `nil` for a year outside 0...9999, which the padding of
    /// `pad` prints otherwise, or an offset of 100 hours or more.
    private static func digits(_ c: Components, time: Bool, separator: UInt8, offset: Int? = nil) -> String? {
        guard (0...9999).contains(c.year),
            [c.month, c.day, c.hour, c.minute, c.second].allSatisfy({ (0...99).contains($0) })
        else { return nil }
        let offsetMinutes = offset.map { abs($0) / 60 }
        if let offsetMinutes, offsetMinutes / 60 > 99 { return nil }
        let length = time ? (offsetMinutes == nil ? 19 : 25) : 10
        return String(unsafeUninitializedCapacity: length) { buffer in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(c.year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(c.month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(c.day, 2, at: 8)
            guard time else { return 10 }
            buffer[10] = separator
            put(c.hour, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(c.minute, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(c.second, 2, at: 17)
            guard let offsetMinutes, let offset else { return 19 }
            buffer[19] = UInt8(ascii: offset < 0 ? "-" : "+")
            put(offsetMinutes / 60, 2, at: 20)
            buffer[22] = UInt8(ascii: ":")
            put(offsetMinutes % 60, 2, at: 23)
            return 25
        }
    }

    private static func pad(_ value: Int, _ width: Int = 2) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return Self.isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days-from-civil algorithm, proleptic Gregorian calendar.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}

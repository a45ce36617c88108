import Foundation

/// Reads the times SMTH prints, all in Beijing time.
enum SMTHTimeParser {
    /// `HH:MM:SS` (today, as of `fetchedAt`), `YYYY-MM-DD`, or
    /// `YYYY-MM-DD HH:MM:SS`; `nil` for anything else.
    static func parse(_ text: String, fetchedAt: Date) -> Date? {
        let fields: [Substring]
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII (as pages print times): the same fields, split as bytes.
            fields = text.utf8.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "T") })
                .map { Substring($0) }
        } else {
            fields = text.split(whereSeparator: { $0 == " " || $0 == "\u{00A0}" || $0 == "T" })
        }
        switch fields.count {
        case 1 where fields[0].contains(":"):
            guard let (h, m, s) = clock(fields[0]) else { return nil }
            var day = SMTHSiteRules.time.components(of: fetchedAt)
            (day.hour, day.minute, day.second) = (h, m, s)
            return SMTHSiteRules.time.date(day)
        case 1:
            guard let (y, mo, d) = calendarDay(fields[0]) else { return nil }
            return SMTHSiteRules.time.date(.init(year: y, month: mo, day: d))
        case 2:
            guard let (y, mo, d) = calendarDay(fields[0]), let (h, m, s) = clock(fields[1]) else { return nil }
            return SMTHSiteRules.time.date(.init(year: y, month: mo, day: d, hour: h, minute: m, second: s))
        default:
            return nil
        }
    }

    /// A post whose time could not be read takes its nearest earlier
    /// neighbour's (else its nearest later one's, else `fallback`), so it
    /// keeps its place in the thread; its warning says the time is not its own.
    static func fillUnreadTimes(_ posts: inout [Post], known: [Bool], fallback: Date) {
        for index in posts.indices where index < known.count && !known[index] {
            let before = posts[..<index].indices.last { known[$0] }
            let after = posts[(index + 1)...].indices.first { known[$0] }
            posts[index].postedAt = (before ?? after).map { posts[$0].postedAt } ?? fallback
        }
    }

    /// `parse`, but a date-shaped time outside `ForumTime.plausibleYears`
    /// (or one that does not fit) is an error for the page at `url`: a
    /// thread list row cannot be placed without its time.
    static func checked(_ text: String, fetchedAt: Date, url: String) throws(ArchiveError) -> Date? {
        if let date = parse(text, fetchedAt: fetchedAt) { return date }
        let day = text.split(whereSeparator: { $0 == " " || $0 == "\u{00A0}" || $0 == "T" }).first
        let digits = day?.split(separator: "-").first?.prefix { $0.isNumber } ?? ""
        if let day, calendarDay(day) != nil || digits.count > 4 {
            throw .implausible(url: url, what: "the time \"\(text.prefix(40))\"")
        }
        return nil
    }

    private static func clock(_ text: Substring) -> (Int, Int, Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 2 || parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]) else { return nil }
        let s = parts.count == 3 ? Int(parts[2]) : 0
        guard let s else { return nil }
        return (h, m, s)
    }

    private static func calendarDay(_ text: Substring) -> (Int, Int, Int)? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        return (y, m, d)
    }
}

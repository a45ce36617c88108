import Foundation

/// Reads the times SMTH prints, all in Beijing time.
enum SMTHTimeParser {
    /// `HH:MM:SS` (today, as of `fetchedAt`), `YYYY-MM-DD`, or
    /// `YYYY-MM-DD HH:MM:SS`; `nil` for anything else.
    static func parse(_ text: String, fetchedAt: Date) -> Date? {
        if let date = parseAsWritten(text, fetchedAt: fetchedAt) { return date }
        // A date or clock that the markup broke over two lines.
        let joined = rejoined(text)
        return joined == text ? nil : parseAsWritten(joined, fetchedAt: fetchedAt)
    }

    private static func parseAsWritten(_ text: String, fetchedAt: Date) -> Date? {
        var bytes = text
        if let answer = bytes.withUTF8({ parseASCII($0, fetchedAt: fetchedAt) }) { return answer }
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\u{00A0}" || $0 == "T" })
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

    /// `parse` of ASCII text (as pages print times), read as bytes with the
    /// same fields, parts and numbers as `split` and `Int(_:)` give;
    /// `.none` when the text is not ASCII.
    private static func parseASCII(_ bytes: UnsafeBufferPointer<UInt8>, fetchedAt: Date) -> Date?? {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return .none }
        let fields = pieces(bytes, 0..<bytes.count) { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "T") }
        func clock(_ field: Range<Int>) -> (Int, Int, Int)? {
            let parts = pieces(bytes, field) { $0 == UInt8(ascii: ":") }
            guard parts.count == 2 || parts.count == 3, let h = integer(bytes, parts[0]),
                let m = integer(bytes, parts[1])
            else { return nil }
            guard let s = parts.count == 3 ? integer(bytes, parts[2]) : 0 else { return nil }
            return (h, m, s)
        }
        func calendarDay(_ field: Range<Int>) -> (Int, Int, Int)? {
            let parts = pieces(bytes, field) { $0 == UInt8(ascii: "-") }
            guard parts.count == 3, let y = integer(bytes, parts[0]), let m = integer(bytes, parts[1]),
                let d = integer(bytes, parts[2])
            else { return nil }
            return (y, m, d)
        }
        switch fields.count {
        case 1 where bytes[fields[0]].contains(UInt8(ascii: ":")):
            guard let (h, m, s) = clock(fields[0]) else { return .some(nil) }
            var day = SMTHSiteRules.time.components(of: fetchedAt)
            (day.hour, day.minute, day.second) = (h, m, s)
            return .some(SMTHSiteRules.time.date(day))
        case 1:
            guard let (y, mo, d) = calendarDay(fields[0]) else { return .some(nil) }
            return .some(SMTHSiteRules.time.date(.init(year: y, month: mo, day: d)))
        case 2:
            guard let (y, mo, d) = calendarDay(fields[0]), let (h, m, s) = clock(fields[1]) else { return .some(nil) }
            return .some(SMTHSiteRules.time.date(.init(year: y, month: mo, day: d, hour: h, minute: m, second: s)))
        default:
            return .some(nil)
        }
    }

    /// `text` with a date or clock broken over two lines joined up again
    /// (`2023-04-1` / `4` is `2023-04-14`), its blank runs then as single
    /// spaces; `text` itself when nothing was broken.
    ///
    /// SMTH writes each in full, `YYYY-MM-DD` and `HH:MM:SS`, so a piece
    /// shorter than that whose next piece goes on with the same shape is
    /// one time cut in two: a page wrapped at a column breaks a line
    /// anywhere, and a browser shows `2023-04-1 4`, which, read as it
    /// stands, was the 1st. A piece in full (`2023-04-14`, `15:31`) is
    /// never joined to the next.
    static func rejoined(_ text: String) -> String {
        var pieces: [String] = []
        var joinedAny = false
        for piece in text.split(whereSeparator: { $0.isWhitespace }) {
            if let last = pieces.last, let joined = joinedTime(last, String(piece)) {
                pieces[pieces.count - 1] = joined
                joinedAny = true
            } else {
                pieces.append(String(piece))
            }
        }
        return joinedAny ? pieces.joined(separator: " ") : text
    }

    /// The shapes of a date and a clock, `9` for a digit.
    private static let timeShapes: [[UInt8]] = [Array("9999-99-99".utf8), Array("99:99:99".utf8)]

    /// `first + second`, when `first` is part of a time's shape and not a
    /// whole one, and both together still have that shape.
    private static func joinedTime(_ first: String, _ second: String) -> String? {
        func fits(_ bytes: [UInt8], _ shape: [UInt8]) -> Bool {
            bytes.count <= shape.count
                && zip(bytes, shape).allSatisfy { byte, want in
                    want == UInt8(ascii: "9") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) : byte == want
                }
        }
        let head = Array(first.utf8)
        let whole = head + Array(second.utf8)
        for shape in timeShapes where head.count < shape.count && fits(head, shape) && fits(whole, shape) {
            // `15:31` is a clock in full: what follows is no part of it.
            if shape == timeShapes[1], head.count == 5 { return nil }
            return first + second
        }
        return nil
    }

    /// The non-empty runs of `range` between separators (`split`'s pieces).
    private static func pieces(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, separatedBy isSeparator: (UInt8) -> Bool
    ) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = range.lowerBound
        for index in range where isSeparator(bytes[index]) {
            if index > start { result.append(start..<index) }
            start = index + 1
        }
        if range.upperBound > start { result.append(start..<range.upperBound) }
        return result
    }

    /// `Int(_:)` of ASCII: an optional sign, then at least one digit; `nil`
    /// on anything else or on overflow.
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        var negative = false
        if index < range.upperBound, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < range.upperBound else { return nil }
        var value = 0
        while index < range.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowAdd) =
                negative
                ? shifted.subtractingReportingOverflow(Int(digit)) : shifted.addingReportingOverflow(Int(digit))
            guard !overflowShift, !overflowAdd else { return nil }
            value = next
            index += 1
        }
        return value
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

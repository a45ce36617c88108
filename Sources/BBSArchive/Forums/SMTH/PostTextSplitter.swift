import Foundation

/// The parts of a whole SMTH post text (as the desktop site shows it):
///
/// ```
/// 发信人: schower (昵称), 信区: WorkLife
/// 标  题: 帖子标题
/// 发信站: 水木社区 (Fri Mar 25 11:52:04 2016), 站内
///
/// 正文……
/// --
/// 签名档
/// ※ 修改:·user 于 Mar 29 09:43:17 2016 修改本文·[FROM: 111.203.75.*]
/// ※ 来源:·水木社区 http://www.newsmth.net·[FROM: 104.224.134.*]
/// ```
package struct PostText: Sendable, Equatable {
    package struct Header: Sendable, Equatable {
        package var author: String
        package var nick: String?
        package var board: String?
        package var title: String?
        package var site: String?
        package var postedAt: Date?
    }

    package var header: Header?
    package var body: [String]
    /// The lines after the last `--`; empty when there is a `--` and nothing
    /// after it, `nil` when the text has no `--` at all.
    package var signature: [String]?
    package var ip: String?
    package var editedBy: String?
    package var editedAt: Date?

    /// Splits the lines of a whole post text.
    ///
    /// Every line is read by what it says, colours aside (the forum and its
    /// users colour any line): a header line by its label, the signature's
    /// `--` and the `※ 来源` and `※ 修改` lines by their text. A line that
    /// is none of these stays in the body or the signature: nothing is
    /// dropped because the markup around it differs from one sample's.
    package static func split(_ lines: [String]) -> PostText {
        var lines = lines
        var header: Header?
        // A blank line before 发信人 (the hidden post id, then `<br />`).
        if lines.first.map(isBlank) == true, let start = lines.firstIndex(where: { !isBlank($0) }),
            headerLabel(lines[start]) == .author
        {
            lines.removeSubrange(..<start)
        }
        if let first = lines.first, headerLabel(first) == .author {
            let end = headerEnd(lines)
            header = parseHeader(headerLines(lines[..<end]))
            lines.removeSubrange(..<end)
            // The blank line that ends the header, coloured or not.
            if let next = lines.first, isBlank(next) { lines.removeFirst() }
        }

        var ip: String?
        var editedBy: String?
        var editedAt: Date?
        trimTrailingBlanks(&lines)
        // The 来源 and 修改 lines are known by their text: the forum colours
        // them at random, and a colour is no reason to lose them. Any other
        // last line that starts with ※ is the author's (a signature's
        // decoration) and stays.
        // The address is the 来源 line's, whichever order the lines come in
        // (the 修改 line's only without one): read from the bottom, a 修改
        // line after the 来源 line gave the editor's address, and the
        // poster's was lost.
        var editAddress: String?
        for line in takeTailLines(&lines) {
            if line.hasPrefix("※ 来源:") || line.hasPrefix("※ 来源："), ip == nil {
                ip = fromAddress(line)
            } else if line.hasPrefix("※ 修改:") || line.hasPrefix("※ 修改："), editedBy == nil {
                (editedBy, editedAt) = editNote(line)
                editAddress = fromAddress(line)
            }
        }
        if ip == nil { ip = editAddress }

        var signature: [String]?
        if let separator = lines.lastIndex(where: isSignatureSeparator) {
            var after = Array(lines[(separator + 1)...])
            trimTrailingBlanks(&after)
            dropLeadingBlanks(&after)
            signature = after
            lines.removeSubrange(separator...)
        }
        dropLeadingBlanks(&lines)
        trimTrailingBlanks(&lines)
        return PostText(
            header: header, body: lines, signature: signature, ip: ip, editedBy: editedBy, editedAt: editedAt)
    }

    /// Takes the forum's tail lines (`※ 来源`, `※ 修改`, `isOriginOrEditText`)
    /// off the end of `lines`, and returns them as `tailLine` gives them,
    /// the last first.
    ///
    /// The BBS writes them last, but a real post may have a line after
    /// them (a blank one, a line added later): up to `linesAfterTail` lines
    /// after them are looked past, and stay in the post, after what came
    /// before the tail lines (a signature, else the body); blank ones,
    /// colours aside, go. Before, the tail lines stayed in the signature,
    /// and the post had no address. A `--` among the lines looked past
    /// ends the search: a 来源 line above the signature is a line of the
    /// post's own (a forwarded post's), and stays.
    static func takeTailLines(_ lines: inout [String]) -> [String] {
        var index = lines.count - 1
        var others = 0
        while index >= 0 {
            if let line = tailLine(lines[index]), isOriginOrEditText(line) { break }
            if isSignatureSeparator(lines[index]) { return [] }
            if !isBlank(lines[index]) {
                others += 1
                guard others <= linesAfterTail else { return [] }
            }
            index -= 1
        }
        guard index >= 0 else { return [] }
        let after = lines[(index + 1)...].filter { !isBlank($0) }
        lines.removeSubrange((index + 1)...)
        var tail: [String] = []
        while let last = lines.last, let line = tailLine(last), isOriginOrEditText(line) {
            tail.append(line)
            lines.removeLast()
            trimTrailingBlanks(&lines)
        }
        lines += after
        return tail
    }

    /// Lines after the tail lines that `takeTailLines` looks past: a few,
    /// so that a 来源 line quoted higher up in a post that lost its own is
    /// not taken for the post's.
    static let linesAfterTail = 3

    /// `--` alone on its line, colours and blanks around it aside.
    static func isSignatureSeparator(_ line: String) -> Bool {
        // Most lines hold no `-` at all: a quick no.
        guard line.utf8.contains(UInt8(ascii: "-")) else { return false }
        return HTMLWhitespace.trimmed(ANSIText.strip(line), newlines: false) == "--"
    }

    /// Whether a line (colour codes aside) is a `※ 来源` or `※ 修改` line.
    static func isOriginOrEditLine(_ line: String) -> Bool { tailLine(line).map(isOriginOrEditText) ?? false }

    /// `isOriginOrEditLine` of a line as `tailLine` gives it: the label, then
    /// what the forum writes on both, a middle dot (`※ 来源:·水木社区`), and
    /// its address (`[FROM: 1.2.3.*]`), the site's address (`http://…`) or
    /// the edit's `修改本文`, so that a line of the post's own (`※来源：新华社`,
    /// `※来源：·新华社`, `※修改：FROM今天起`) is not taken for one.
    static func isOriginOrEditText(_ text: String) -> Bool {
        guard let label = ["※ 来源:", "※ 来源：", "※ 修改:", "※ 修改："].first(where: { text.hasPrefix($0) }) else {
            return false
        }
        let rest = text.dropFirst(label.count).drop { $0.isWhitespace }
        guard let first = rest.first, isMiddleDot(first) else { return false }
        let tail = String(rest)
        return ByteSearch.contains(tail, "[FROM") || ByteSearch.contains(tail, "://")
            || ByteSearch.contains(tail, "修改本文")
    }

    /// The forum's middle dot, or one a page may show for it (`·`, `•`, `・`, `．`).
    static func isMiddleDot(_ character: Character) -> Bool {
        character == "·" || character == "•" || character == "・" || character == "．"
    }

    /// A line that starts with ※, colours and blanks aside, with the blanks
    /// after ※ as one space (`※  来源`, `※来源` read as `※ 来源`); `nil`
    /// for any other line.
    static func tailLine(_ line: String) -> String? {
        // Every such line holds a ※ (most lines do not): a quick no.
        guard ByteSearch.contains(line, "※") else { return nil }
        let text = HTMLWhitespace.trimmed(ANSIText.strip(line), newlines: false)
        guard text.hasPrefix("※") else { return nil }
        return "※ " + text.dropFirst().drop { $0.isWhitespace }
    }

    /// The labels of the header's lines (`标  题:` is `title`).
    enum HeaderLabel: Equatable {
        case author, title, site, relay
    }

    /// The label a line starts with, colours, blanks and the colon's width
    /// aside: `发信人:`, `标  题：`, `发信站:`, `转信站:`; `nil` for any other line.
    static func headerLabel(_ line: String) -> HeaderLabel? {
        // Read up to the colon only, scalar by scalar (the label is at most
        // three characters, blanks aside): asked of every header line and
        // of each line until the first blank one, a filter of the whole
        // line through Unicode's properties was a tenth of nForum parsing.
        let text = ANSIText.mayHaveCodes(line) ? ANSIText.strip(line) : line
        var label: (UInt32, UInt32, UInt32) = (0, 0, 0)
        var count = 0
        for scalar in text.unicodeScalars {
            if scalar == ":" || scalar == "：" {
                switch (count, label) {
                case (3, (0x53D1, 0x4FE1, 0x4EBA)): return .author  // 发信人
                case (2, (0x6807, 0x9898, 0)): return .title  // 标题
                case (3, (0x53D1, 0x4FE1, 0x7AD9)): return .site  // 发信站
                case (3, (0x8F6C, 0x4FE1, 0x7AD9)): return .relay  // 转信站
                default: return nil
                }
            }
            switch scalar.value {
            case 0x09...0x0D, 0x20, 0xA0, 0x2000...0x200B, 0x3000: continue
            default: break
            }
            switch count {
            case 0: label.0 = scalar.value
            case 1: label.1 = scalar.value
            case 2: label.2 = scalar.value
            default: return nil
            }
            count += 1
        }
        return nil
    }

    /// Where the header ends: after its last labelled line before the first
    /// blank one. A line without a label between two labelled ones is the
    /// first one's text wrapped (a `<br />` inside a long title); so is one
    /// after the `发信站` line while its time's bracket is open, or that
    /// goes on with what follows the time (`站内`, `, 转信`). Any other line
    /// without a label is the body's, whether or not a blank line came
    /// between: a header without its blank line kept the body's first
    /// paragraph in the header, and lost it. A label seen twice is the
    /// body's too (a post that starts `标题：…`).
    ///
    /// A title that is the header's last line (`发信人`, `发信站`, `标题`,
    /// as some posts order it) has no label after it to show where its
    /// text ends: one line without a label after it is its text wrapped
    /// when the header's blank line follows that line (`titleWrap`).
    static func headerEnd(_ lines: [String]) -> Int {
        var last = 0
        var seen: [HeaderLabel] = [.author]
        var open = 0
        var index = 1
        // A header is a few lines: past `headerReach` lines without a label
        // (a post with no blank line at all) the rest is the body's, unread
        // here line by line.
        while index < lines.count, index - last <= headerReach, !isBlank(lines[index]) {
            let line = lines[index]
            if let label = headerLabel(line) {
                if seen.contains(label) { break }
                seen.append(label)
                last = index
                open = label == .site ? openBrackets(line) : 0
            } else if seen.last == .site, last == index - 1, open > 0 || isSiteTail(line) {
                last = index
                open += openBrackets(line)
            }
            index += 1
        }
        if seen.last == .title, titleWrap(lines, after: last) { return last + 2 }
        return last + 1
    }

    /// Whether the line after the title at `title`, the header's last
    /// labelled line, is the title's text wrapped: a line without a label
    /// (nor a quote, nor `--`), then the header's blank line. One line
    /// only: the forum keeps titles short, so a wrapped one makes two
    /// lines, and a body that follows a header without its blank line
    /// stays the body's unless its first paragraph is a single line.
    private static func titleWrap(_ lines: [String], after title: Int) -> Bool {
        let next = title + 1
        guard next + 1 < lines.count, !isBlank(lines[next]), isBlank(lines[next + 1]),
            headerLabel(lines[next]) == nil
        else { return false }
        let conventions = SMTHPostConventions()
        return conventions.quoteHeaderAuthor(lines[next]) == nil && conventions.quotedLine(lines[next]) == nil
            && !isSignatureSeparator(lines[next])
    }

    /// What follows the time on a `发信站` line, broken onto a line of its
    /// own: `站内`, `, 转信`.
    private static func isSiteTail(_ line: String) -> Bool {
        // All of the line: a body that starts 站内信… is the body's.
        let text = ANSIText.strip(line).drop { $0.isWhitespace || $0 == "," || $0 == "，" }
        return ["站内", "转信"].contains(HTMLWhitespace.trimmed(text, newlines: false))
    }

    /// Lines read past the last labelled one for another label: a label
    /// line broken in two or three by `<br />` is still joined up.
    static let headerReach = 4

    /// Brackets the line opens and does not close (ASCII or full-width).
    private static func openBrackets(_ line: String) -> Int {
        // By bytes: ( and ) are 28 and 29, （ and ） EF BC 88 and EF BC 89
        // (88 and 89 after EF BC are those two and nothing else).
        var count = 0
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in line.utf8 {
            if byte == 0x28 || (byte == 0x88 && previous == (0xEF, 0xBC)) { count += 1 }
            if byte == 0x29 || (byte == 0x89 && previous == (0xEF, 0xBC)) { count -= 1 }
            previous = (previous.1, byte)
        }
        return count
    }

    /// The header's lines without their colours, each with the unlabelled
    /// lines after it (its text wrapped) joined to it.
    static func headerLines(_ lines: ArraySlice<String>) -> [String] {
        var out: [String] = []
        for line in lines {
            let plain = ANSIText.strip(line)
            if headerLabel(plain) == nil, let previous = out.popLast() {
                // Rejoined as the page showed it: a space between two
                // Latin words or numbers (`Jul 31` / `15:20:24`), none
                // between Chinese characters.
                let next = HTMLWhitespace.trimmed(plain, newlines: false)
                let spaced = (previous.last?.isASCII ?? false) && (next.first?.isASCII ?? false)
                out.append(previous + (spaced ? " " : "") + next)
            } else {
                out.append(plain)
            }
        }
        return out
    }

    /// Blank, colours aside.
    private static func isBlank(_ line: String) -> Bool { HTMLWhitespace.isBlank(ANSIText.strip(line)) }

    static func parseHeader(_ lines: [String]) -> Header? {
        guard let first = lines.first, let colon = first.firstIndex(where: { $0 == ":" || $0 == "：" }) else {
            return nil
        }
        var rest = HTMLWhitespace.trimmed(first[first.index(after: colon)...], newlines: false)
        // `, 信区: Board`, with either comma and colon, and any spaces.
        var board: String?
        if let range = boardMarker(in: rest) {
            let after = rest[range.upperBound...].drop { $0 == " " || $0 == ":" || $0 == "：" }
            board = HTMLWhitespace.trimmed(after, newlines: false)
            rest = String(rest[..<range.lowerBound])
            rest = HTMLWhitespace.trimmed(rest, newlines: false)
            while let last = rest.last, last == "," || last == "，" || last == " " { rest.removeLast() }
        }
        // The id runs up to the first blank or bracket; the nick is inside
        // the brackets after it (ASCII or full-width).
        let author = String(rest.prefix { !$0.isWhitespace && $0 != "(" && $0 != "（" && $0 != "," && $0 != "，" })
        var nick: String?
        let afterID = rest.dropFirst(author.count).drop { $0.isWhitespace }
        if let open = afterID.first, open == "(" || open == "（",
            let close = afterID.lastIndex(where: { $0 == ")" || $0 == "）" }),
            close > afterID.startIndex
        {
            nick = String(afterID[afterID.index(after: afterID.startIndex)..<close])
        }
        var header = Header(author: author, nick: nick, board: board)
        for line in lines.dropFirst() {
            guard let label = headerLabel(line), let colon = line.firstIndex(where: { $0 == ":" || $0 == "：" }) else {
                continue
            }
            let value = HTMLWhitespace.trimmed(line[line.index(after: colon)...], newlines: false)
            switch label {
            case .title:
                header.title = value
            case .site:
                (header.site, header.postedAt) = siteAndTime(value)
            case .author, .relay:
                break
            }
        }
        return header
    }

    /// `水木社区 (Fri Mar 25 11:52:04 2016), 站内` → (`水木社区`, the time): the
    /// time is the last bracketed text that reads as one (ASCII or
    /// full-width brackets), so a site name with brackets of its own
    /// (`水木社区(newsmth) (…)`) keeps them. Without one, the whole value is
    /// the site, and the time is `nil` (the post says so in its warning).
    static func siteAndTime(_ value: String) -> (site: String, time: Date?) {
        // As the forum writes it: one pair of ASCII brackets, the time inside.
        if let open = value.firstIndex(of: "("), let close = value[open...].firstIndex(of: ")"),
            let time = bbsTime(String(value[value.index(after: open)..<close]))
        {
            return (HTMLWhitespace.trimmed(value[..<open], newlines: false), time)
        }
        var end = value.endIndex
        while let open = value[..<end].lastIndex(where: { $0 == "(" || $0 == "（" }) {
            let after = value.index(after: open)
            if let close = value[after...].firstIndex(where: { $0 == ")" || $0 == "）" }),
                let time = bbsTime(HTMLWhitespace.trimmed(value[after..<close], newlines: false))
            {
                return (HTMLWhitespace.trimmed(value[..<open], newlines: false), time)
            }
            end = open
        }
        if let open = value.firstIndex(where: { $0 == "(" || $0 == "（" }) {
            return (HTMLWhitespace.trimmed(value[..<open], newlines: false), nil)
        }
        return (value, nil)
    }

    /// The last `信区` followed (blanks aside) by a colon: the board's label,
    /// not a nick that holds the word.
    private static func boardMarker(in text: String) -> Range<String.Index>? {
        // By bytes: 信区 is E4 BF A1 E5 8C BA, ： EF BC 9A.
        let bytes = Array(text.utf8)
        let marker: [UInt8] = [0xE4, 0xBF, 0xA1, 0xE5, 0x8C, 0xBA]
        var start = bytes.count - marker.count
        while start >= 0 {
            if bytes[start] == 0xE4, bytes[start..<(start + marker.count)].elementsEqual(marker) {
                var next = start + marker.count
                while next < bytes.count, bytes[next] == UInt8(ascii: " ") { next += 1 }
                if next < bytes.count,
                    bytes[next] == UInt8(ascii: ":")
                        || bytes[next...].starts(with: [0xEF, 0xBC, 0x9A])
                {
                    let lower = text.utf8.index(text.utf8.startIndex, offsetBy: start)
                    return lower..<text.utf8.index(lower, offsetBy: marker.count)
                }
            }
            start -= 1
        }
        return nil
    }

    /// `Fri Mar 25 11:52:04 2016` (the day may be padded with a space) or,
    /// without the weekday, `Mar 29 09:43:17 2016`; Beijing time.
    static func bbsTime(_ text: String) -> Date? {
        var fields = text.split(separator: " ").map(String.init)
        if fields.count == 5 { fields.removeFirst() }
        guard fields.count == 4, let month = months.firstIndex(of: fields[0].prefix(3).lowercased()),
            let day = Int(fields[1]), let year = Int(fields[3])
        else { return nil }
        let clock = fields[2].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        return SMTHSiteRules.time.date(
            .init(year: year, month: month + 1, day: day, hour: clock[0], minute: clock[1], second: clock[2]))
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// `…[FROM: 101.90.125.*]` → `101.90.125.*`.
    static func fromAddress(_ line: String) -> String? {
        guard let range = line.range(of: "FROM:", options: .backwards) else { return nil }
        let rest = HTMLWhitespace.trimmed(line[range.upperBound...], newlines: false)
        let address = rest.prefix { $0 != "]" && $0 != " " }
        return address.isEmpty ? nil : String(address)
    }

    /// `※ 修改:·user 于 Mar 29 09:43:17 2016 修改本文·[FROM: …]` → (user, time).
    static func editNote(_ line: String) -> (String?, Date?) {
        guard let colon = line.firstIndex(where: { $0 == ":" || $0 == "：" }) else { return (nil, nil) }
        let rest = line[line.index(after: colon)...].drop { isMiddleDot($0) || $0.isWhitespace }
        guard let on = rest.range(of: " 于 ") else {
            let user = rest.prefix { !$0.isWhitespace && !isMiddleDot($0) }
            return (user.isEmpty ? nil : String(user), nil)
        }
        let user = String(rest[..<on.lowerBound])
        let timeText = HTMLWhitespace.trimmed(rest[on.upperBound...].prefix { $0 != "修" }, newlines: false)
        return (user.isEmpty ? nil : user, bbsTime(timeText))
    }

    private static func dropLeadingBlanks(_ lines: inout [String]) {
        let start = lines.firstIndex { !HTMLWhitespace.isBlank($0) } ?? lines.endIndex
        lines.removeSubrange(..<start)
    }

    private static func trimTrailingBlanks(_ lines: inout [String]) {
        while let last = lines.last, HTMLWhitespace.isBlank(last) { lines.removeLast() }
    }
}

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
    package static func split(_ lines: [String]) -> PostText {
        var lines = lines
        var header: Header?
        if let first = lines.first, first.hasPrefix("发信人:") {
            // One cut, not `removeFirst` per line: linear however long the header.
            let end = lines.firstIndex(where: HTMLWhitespace.isBlank) ?? lines.endIndex
            header = parseHeader(Array(lines[..<end]))
            lines.removeSubrange(..<end)
        }

        var ip: String?
        var editedBy: String?
        var editedAt: Date?
        trimTrailingBlanks(&lines)
        // The 来源 and 修改 lines are known by their text: the forum colours
        // them at random, and a colour is no reason to lose them.
        while let last = lines.last, ByteSearch.contains(last, "※"),
            case let line = HTMLWhitespace.trimmed(ANSIText.strip(last), newlines: false), line.hasPrefix("※ ")
        {
            if line.hasPrefix("※ 来源:") || line.hasPrefix("※ 来源："), ip == nil {
                ip = fromAddress(line)
            } else if line.hasPrefix("※ 修改:") || line.hasPrefix("※ 修改："), editedBy == nil {
                (editedBy, editedAt) = editNote(line)
                if ip == nil { ip = fromAddress(line) }
            }
            lines.removeLast()
            trimTrailingBlanks(&lines)
        }

        var signature: [String]?
        if let separator = lines.lastIndex(where: {
            $0.utf8.contains(UInt8(ascii: "-")) && HTMLWhitespace.trimmed($0, newlines: false) == "--"
        }) {
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

    /// Whether a line (colour codes aside) is a `※ 来源` or `※ 修改` line.
    static func isOriginOrEditLine(_ line: String) -> Bool {
        // Every such line holds a ※ (most lines do not): a quick no.
        guard ByteSearch.contains(line, "※") else { return false }
        let text = HTMLWhitespace.trimmed(ANSIText.strip(line), newlines: false)
        return ["※ 来源:", "※ 来源：", "※ 修改:", "※ 修改："].contains { text.hasPrefix($0) }
    }

    static func parseHeader(_ lines: [String]) -> Header? {
        guard let first = lines.first else { return nil }
        // As `split` calls it, the line starts with 发信人: (four characters,
        // none of which decomposes: the first match is there).
        let colon =
            first.hasPrefix("发信人:")
            ? first.startIndex..<first.index(first.startIndex, offsetBy: 4) : first.range(of: "发信人:")
        guard let colon else { return nil }
        var rest = HTMLWhitespace.trimmed(first[colon.upperBound...], newlines: false)
        var board: String?
        if let range = rest.range(of: ", 信区:", options: .backwards) ?? rest.range(of: "，信区:", options: .backwards) {
            board = HTMLWhitespace.trimmed(rest[range.upperBound...], newlines: false)
            rest = String(rest[..<range.lowerBound])
        }
        var author = rest
        var nick: String?
        if let open = rest.firstIndex(of: "("), rest.hasSuffix(")") {
            author = HTMLWhitespace.trimmed(rest[..<open], newlines: false)
            nick = String(rest[rest.index(after: open)..<rest.index(before: rest.endIndex)])
        }
        var header = Header(author: author, nick: nick, board: board)
        for line in lines.dropFirst() {
            let compact = String(line.filter { $0 != " " })
            if compact.hasPrefix("标题:"), let colon = line.firstIndex(of: ":") {
                header.title = HTMLWhitespace.trimmed(line[line.index(after: colon)...], newlines: false)
            } else if compact.hasPrefix("发信站:"), let colon = line.firstIndex(of: ":") {
                let value = HTMLWhitespace.trimmed(line[line.index(after: colon)...], newlines: false)
                if let open = value.firstIndex(of: "("), let close = value.firstIndex(of: ")"), open < close {
                    header.site = HTMLWhitespace.trimmed(value[..<open], newlines: false)
                    header.postedAt = bbsTime(String(value[value.index(after: open)..<close]))
                } else {
                    header.site = value
                }
            }
        }
        return header
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
        let rest = line[line.index(after: colon)...].drop { $0 == "·" || $0 == " " }
        guard let on = rest.range(of: " 于 ") else {
            let user = rest.prefix { $0 != " " && $0 != "·" }
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

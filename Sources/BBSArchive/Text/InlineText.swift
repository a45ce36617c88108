import Foundation

/// A stretch of one line of post text with one look: its colours (from
/// ANSI codes), UBB emphasis, and the link it belongs to, if any.
package struct InlineSegment: Sendable, Equatable {
    package var text: String
    /// An http(s), ftp or mailto address this text links to.
    package var link: String?
    package var style: ANSIText.Style = .plain
    package var bold = false
    package var italic = false
    package var underline = false
    /// An emoticon (e.g. `em01`, `ema3`, as the forum's `PostConventions`
    /// name it), shown as the archived image the forum's source names for
    /// it, else as its code.
    package var emoticon: String?

    /// CSS classes for the look, e.g. `fg9 bg4 b`.
    package var classes: String {
        var names: [String] = []
        if let fg = style.foreground { names.append("fg\(fg)") }
        if let bg = style.background { names.append("bg\(bg)") }
        if bold { names.append("b") }
        if italic { names.append("i") }
        if underline { names.append("u") }
        if emoticon != nil { names.append("em") }
        return names.joined(separator: " ")
    }
}

/// Reads the inline markup of post text: ANSI colour codes, bare web
/// addresses and, for a forum whose `PostConventions` use them, bracket
/// (UBB) tags (`[b]`, `[i]`, `[u]`, `[color=…]`, `[size=…]`, `[url=…]`,
/// `[email=…]`, `[img=…]`) and the emoticon tags the conventions name.
///
/// Only web and mail addresses become links; everything else stays text,
/// so a post can never smuggle markup or a `javascript:` link into a page.
package enum InlineText {
    package static func segments(_ line: String, conventions: any PostConventions) -> [InlineSegment] {
        let clean = removingControlCharacters(line)
        let tags = conventions.usesBracketTags
        // Most lines have nothing to read: one plain segment.
        // (A line the byte scan sends on needlessly comes out the same below.)
        // Byte scans, not `contains(_:)` (Foundation's, through `NSString`).
        if !clean.containsUTF8(0x1B), !(tags && clean.containsUTF8(UInt8(ascii: "["))), !clean.mayContainASCII("://"),
            !clean.mayContainASCII("www.")
        {
            return clean.isEmpty ? [] : [InlineSegment(text: clean)]
        }
        var result: [InlineSegment] = []
        for run in ANSIText.runs(clean) {
            for segment in tags ? ubb(run.text, conventions: conventions) : [InlineSegment(text: run.text)] {
                var segment = segment
                segment.style = run.style
                if segment.link == nil, segment.emoticon == nil {
                    result += autolink(segment)
                } else {
                    result.append(segment)
                }
            }
        }
        return result.filter { !$0.text.isEmpty }
    }

    /// How far a tag's `]` may be from its `[` (characters): a bracket
    /// with no `]` that near is text, so a line of brackets stays linear.
    static let longestTag = 512

    /// The line's text as a reader sees it: no codes, UBB tags kept as written.
    package static func plain(_ line: String) -> String {
        removingControlCharacters(ANSIText.strip(line))
    }

    // MARK: UBB

    private struct State {
        var bold = false
        var italic = false
        var underline = false
        var link: String?
    }

    private static func ubb(_ text: String, conventions: any PostConventions) -> [InlineSegment] {
        guard text.containsUTF8(UInt8(ascii: "[")) else { return [InlineSegment(text: text)] }
        var segments: [InlineSegment] = []
        var state = State()
        var stack: [(tag: String, state: State)] = []
        // How many of each tag are open, so that a closing tag with no
        // opening one is known at once, without searching the stack: a
        // post of unmatched tags stays linear.
        var openCount: [String: Int] = [:]
        var current = ""
        func flush() {
            guard !current.isEmpty else { return }
            segments.append(
                InlineSegment(
                    text: current, link: state.link, bold: state.bold, italic: state.italic,
                    underline: state.underline))
            current = ""
        }
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "[") {
            current += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "]"), rest.distance(from: open, to: close) <= longestTag
            else {
                current += rest[open...]
                rest = ""
                break
            }
            let tag = String(rest[rest.index(after: open)..<close])
            let lower = tag.lowercased()
            rest = rest[rest.index(after: close)...]
            let name = lower.split(separator: "=", maxSplits: 1).first.map(String.init) ?? lower
            let value = tag.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init)
            switch name {
            case "b", "i", "u", "color", "size", "url", "email", "img", "font":
                flush()
                stack.append((name, state))
                openCount[name, default: 0] += 1
                switch name {
                case "b": state.bold = true
                case "i": state.italic = true
                case "u": state.underline = true
                case "url", "img": state.link = value.flatMap(safeLink) ?? (value == nil ? "" : nil)
                case "email": state.link = value.map { "mailto:" + $0 }.flatMap(safeLink)
                default: break
                }
            case "/b", "/i", "/u", "/color", "/size", "/url", "/email", "/img", "/font":
                let closing = String(name.dropFirst())
                guard openCount[closing, default: 0] > 0, let index = stack.lastIndex(where: { $0.tag == closing })
                else {
                    current += "[\(tag)]"
                    continue
                }
                // `[url]http://…[/url]`: the text is the address.
                if (closing == "url" || closing == "img"), state.link == "" {
                    state.link = safeLink(current)
                }
                flush()
                state = stack[index].state
                // Amortized: every entry searched past above is removed here.
                for entry in stack[index...] { openCount[entry.tag, default: 0] -= 1 }
                stack.removeSubrange(index...)
            default:
                if let emoticon = conventions.emoticon(tag: lower) {
                    flush()
                    segments.append(InlineSegment(text: "[\(tag)]", emoticon: emoticon))
                } else {
                    current += "[\(tag)]"
                }
            }
        }
        current += rest
        flush()
        return segments.map { segment in
            var segment = segment
            if segment.link == "" { segment.link = nil }
            return segment
        }
    }

    /// The emoticon codes a post's text uses (lowercased, no brackets), as
    /// `segments` reads them by the forum's `conventions`.
    package static func emoticonCodes(in text: String, conventions: any PostConventions) -> Set<String> {
        guard text.contains("[") else { return [] }
        var codes: Set<String> = []
        for line in text.split(separator: "\n") where line.contains("[") {
            for segment in segments(String(line), conventions: conventions) {
                if let code = segment.emoticon { codes.insert(code) }
            }
        }
        return codes
    }

    // MARK: Bare addresses

    private static func autolink(_ segment: InlineSegment) -> [InlineSegment] {
        let text = segment.text
        guard text.mayContainASCII("://") || text.mayContainASCII("www.") else { return [segment] }
        var result: [InlineSegment] = []
        var rest = Substring(text)
        while let start = nextAddress(in: rest) {
            let end = rest[start...].firstIndex(where: { !isAddressCharacter($0) }) ?? rest.endIndex
            var address = String(rest[start..<end])
            // Trailing punctuation belongs to the sentence.
            while let last = address.last, ".,;:!?)".contains(last) { address.removeLast() }
            let addressEnd = rest.index(start, offsetBy: address.count)
            let target = address.hasPrefix("www.") ? "http://" + address : address
            if !rest[..<start].isEmpty {
                var before = segment
                before.text = String(rest[..<start])
                result.append(before)
            }
            var link = segment
            link.text = address
            link.link = safeLink(target)
            result.append(link)
            rest = rest[addressEnd...]
        }
        if !rest.isEmpty {
            var after = segment
            after.text = String(rest)
            result.append(after)
        }
        return result
    }

    /// Where the first address starts. One pass that stops at the first
    /// match, never a search of the whole rest per kind of address, so
    /// many addresses on a line cost linear time.
    private static func nextAddress(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            switch text[index] {
            case "h":
                let rest = text[index...]
                if rest.hasPrefix("https://") || rest.hasPrefix("http://") { return index }
            case "f":
                if text[index...].hasPrefix("ftp://") { return index }
            case "w":
                if text[index...].hasPrefix("www.") { return index }
            default:
                break
            }
            text.formIndex(after: &index)
        }
        return nil
    }

    private static func isAddressCharacter(_ c: Character) -> Bool {
        guard c.isASCII, !c.isWhitespace else { return false }
        return !"<>\"'`[]{}|\\^".contains(c)
    }

    /// Only http(s), ftp and mailto addresses are links (`SafeLink` decides).
    static func safeLink(_ address: String) -> String? {
        SafeLink.external(address)
    }

    /// Whether a byte below 0x20 other than ESC and tab is in `text`: a
    /// loop over its contiguous bytes (the generic `contains(where:)` on
    /// `utf8` took several times as many instructions per byte).
    static func hasControlByte(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return false }
            var index = 0
            // Eight bytes at a time while none is below 0x20 (the test for
            // a byte below `n`, exact as a yes or no), then byte by byte.
            let ones: UInt64 = 0x0101_0101_0101_0101
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if (word &- ones &* 0x20) & ~word & (ones &* 0x80) != 0 { break }
                index += 8
            }
            while index < bytes.count {
                let byte = base[index]
                if byte < 0x20 && byte != 0x1B && byte != UInt8(ascii: "\t") { return true }
                index += 1
            }
            return false
        }
    }

    private static func removingControlCharacters(_ text: String) -> String {
        // A byte scan: in UTF-8 a byte below 0x20 is that control character
        // and nothing else, so no scalar need be decoded to find one.
        guard hasControlByte(text) else { return text }
        return String(
            String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\u{1B}" || $0 == "\t" }))
    }
}

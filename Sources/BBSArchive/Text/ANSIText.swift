import Foundation

/// Colours in post text, kept as the BBS stores them: ANSI SGR codes such as
/// `ESC[1;31m` … `ESC[m`. The desktop site turns them into
/// `<font class="fXYZ">` (X background 0–7, YZ foreground 00–15); the
/// archive turns those back into codes, and renders codes as styled runs.
package enum ANSIText {
    /// How a run of text is coloured; `nil` is the terminal's default.
    package struct Style: Sendable, Equatable, Hashable {
        /// 0–15; 8–15 are the bright (bold) colours.
        package var foreground: Int?
        /// 0–7.
        package var background: Int?

        package static let plain = Style(foreground: nil, background: nil)

        /// The default colours (white on black) count as plain, so `ESC[37m`
        /// and no code at all read the same.
        package var normalized: Style {
            Style(
                foreground: foreground == 7 ? nil : foreground,
                background: background == 0 ? nil : background)
        }
    }

    package struct Run: Sendable, Equatable {
        package var text: String
        package var style: Style
    }

    static let escape: Character = "\u{1B}"

    /// Whether the text holds an ESC byte at all: a byte scan that spares
    /// most lines the walk by `Character` (grapheme breaking) of
    /// `contains(escape)`, which can only find one where the byte is.
    static func mayHaveCodes(_ text: String) -> Bool { text.containsUTF8(0x1B) }

    /// The text without any colour codes.
    package static func strip(_ text: String) -> String {
        guard mayHaveCodes(text), text.contains(escape) else { return text }
        return runs(text).map(\.text).joined()
    }

    /// The escape sequences the text starts with, and the text after them:
    /// a line coloured from its first character reads, colours aside, as
    /// what follows (`: quoted` is a quoted line in any colour).
    package static func leadingCodes(_ text: String) -> (codes: Substring, rest: Substring) {
        var index = text.startIndex
        while index < text.endIndex, text[index] == escape, let (_, end) = sequence(in: text, at: index) {
            index = end
        }
        return (text[..<index], text[index...])
    }

    /// Splits text into runs of one style each (empty runs dropped).
    package static func runs(_ text: String) -> [Run] {
        guard mayHaveCodes(text), text.contains(escape) else {
            return text.isEmpty ? [] : [Run(text: text, style: .plain)]
        }
        var result: [Run] = []
        var style = Style.plain
        var current = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == escape, let (codes, end) = sequence(in: text, at: index) {
                if !current.isEmpty { result.append(Run(text: current, style: style.normalized)) }
                current = ""
                style = apply(codes, to: style)
                index = end
                continue
            }
            current.append(character)
            index = text.index(after: index)
        }
        if !current.isEmpty { result.append(Run(text: current, style: style.normalized)) }
        // Neighbours of one style are one run.
        var merged: [Run] = []
        for run in result {
            if let last = merged.last, last.style == run.style {
                merged[merged.count - 1].text += run.text
            } else {
                merged.append(run)
            }
        }
        return merged
    }

    /// `ESC[1;31m` at `index` → ([1, 31], index after `m`); other escape
    /// sequences (cursor moves and the like) are skipped as empty codes.
    private static func sequence(in text: String, at index: String.Index) -> ([Int], String.Index)? {
        var cursor = text.index(after: index)
        guard cursor < text.endIndex, text[cursor] == "[" else { return nil }
        cursor = text.index(after: cursor)
        var parameters = ""
        while cursor < text.endIndex {
            let c = text[cursor]
            if c.isNumber || c == ";" {
                parameters.append(c)
                cursor = text.index(after: cursor)
                continue
            }
            guard c.isLetter else { return nil }
            let end = text.index(after: cursor)
            guard c == "m" else { return ([], end) }
            let codes = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
            return (codes.isEmpty ? [0] : codes, end)
        }
        return nil
    }

    private static func apply(_ codes: [Int], to style: Style) -> Style {
        var style = style
        var bold = (style.foreground ?? 0) >= 8
        for code in codes {
            switch code {
            case 0:
                style = .plain
                bold = false
            case 1:
                bold = true
                if let fg = style.foreground, fg < 8 { style.foreground = fg + 8 }
            case 22:
                bold = false
                if let fg = style.foreground, fg >= 8 { style.foreground = fg - 8 }
            case 30...37:
                style.foreground = code - 30 + (bold ? 8 : 0)
            case 39:
                style.foreground = nil
            case 40...47:
                style.background = code - 40
            case 49:
                style.background = nil
            default:
                continue
            }
        }
        return style
    }

    /// The codes that start a run of `style` (`ESC[1;31m`), or reset to plain.
    package static func codes(for style: Style) -> String {
        var parts: [String] = []
        if let fg = style.foreground {
            parts.append(fg >= 8 ? "1;3\(fg - 8)" : "3\(fg)")
        }
        if let bg = style.background { parts.append("4\(bg)") }
        return parts.isEmpty ? "\(escape)[m" : "\(escape)[\(parts.joined(separator: ";"))m"
    }

    /// The style of nForum's `fXYZ` class: X background, YZ foreground.
    package static func style(forFontClass name: String) -> Style? {
        let digits = Array(name.dropFirst())
        guard name.hasPrefix("f"), digits.count == 3, digits.allSatisfy(\.isNumber),
            let background = Int(String(digits[0])), let foreground = Int(String(digits[1...]))
        else { return nil }
        guard (0...7).contains(background), (0...15).contains(foreground) else { return nil }
        return Style(foreground: foreground, background: background)
    }
}

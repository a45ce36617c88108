import Foundation

/// Recognizes text drawn for an 80-column terminal, where a CJK character
/// is two columns wide: box-drawing and block characters, columns aligned
/// with runs of spaces, and ANSI art (runs painted with background
/// colours). Such text reads only in a monospace font that keeps every
/// space.
package enum TerminalArt {
    /// Lines that look drawn before the text counts as art.
    static let minimumLines = 2

    /// Whether these lines (ANSI codes still in) were drawn for a terminal.
    package static func isArt(_ lines: [String]) -> Bool {
        var drawn = 0
        for line in lines where isDrawn(line) {
            drawn += 1
            if drawn >= minimumLines { return true }
        }
        return false
    }

    /// One line with box drawing, space-aligned columns or painted cells.
    static func isDrawn(_ line: String) -> Bool {
        if hasBoxDrawing(line) { return true }
        if ANSIText.mayHaveCodes(line), line.contains(ANSIText.escape),
            ANSIText.runs(line).contains(where: { $0.style.background != nil && $0.text.contains(" ") })
        {
            return true
        }
        return hasAlignmentGap(ANSIText.strip(line))
    }

    /// Whether a scalar of `line` is box drawing or a block element, by
    /// its UTF-8 bytes: U+2500–U+259F is E2 94 80 – E2 96 9F.
    static func hasBoxDrawing(_ line: String) -> Bool {
        var line = line
        return line.withUTF8 { bytes in
            guard bytes.count >= 3 else { return false }
            var index = 0
            while index < bytes.count - 2 {
                if bytes[index] == 0xE2 {
                    let second = bytes[index + 1]
                    if second == 0x94 || second == 0x95 || (second == 0x96 && bytes[index + 2] <= 0x9F) { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// U+2500–U+259F: box drawing and block elements.
    static func isBoxDrawing(_ scalar: Unicode.Scalar) -> Bool {
        (0x2500...0x259F).contains(scalar.value)
    }

    /// A run of three or more spaces (or two ideographic ones) after the
    /// line's first visible character: a gap that lines up a column. Leading
    /// indentation alone is not alignment (Chinese paragraphs start with
    /// two ideographic spaces).
    static func hasAlignmentGap(_ line: String) -> Bool {
        // By UTF-8 bytes: a scalar of several bytes is "text" at its lead
        // byte, and its continuation bytes, met with `columns` at zero,
        // change nothing; U+3000 is E3 80 80.
        var line = line
        return line.withUTF8 { bytes in
            var seenText = false
            var columns = 0
            var index = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: " "): columns += 1
                case UInt8(ascii: "\t"): columns += 4
                case 0xE3 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && bytes[index + 2] == 0x80:
                    columns += 2
                    index += 2
                default:
                    if seenText, columns >= 3 { return true }
                    seenText = true
                    columns = 0
                }
                index += 1
            }
            return false
        }
    }
}

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
        if line.unicodeScalars.contains(where: isBoxDrawing) { return true }
        if ANSIText.mayHaveCodes(line), line.contains(ANSIText.escape),
            ANSIText.runs(line).contains(where: { $0.style.background != nil && $0.text.contains(" ") })
        {
            return true
        }
        return hasAlignmentGap(ANSIText.strip(line))
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
        var seenText = false
        var columns = 0
        for scalar in line.unicodeScalars {
            switch scalar {
            case " ": columns += 1
            case "\u{3000}": columns += 2
            case "\t": columns += 4
            default:
                if seenText, columns >= 3 { return true }
                seenText = true
                columns = 0
            }
        }
        return false
    }
}

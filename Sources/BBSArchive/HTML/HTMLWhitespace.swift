import Foundation

/// HTML's rules for whitespace in text nodes, for readers that rebuild the
/// lines of a text from its markup.
///
/// ASCII whitespace (space, tab, newline, carriage return, form feed) is
/// collapsible: a run of it shows as one space, and none shows at the start
/// or the end of a line. A newline in a text node is therefore a space like
/// any other, never a line break: `<br>` (and the page's own structure)
/// decide the lines. `&nbsp;` is not collapsible; it is a space that counts.
enum HTMLWhitespace {
    static func isCollapsible(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy { scalar in
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
        }
    }

    /// Text as one line: every run of collapsible whitespace is one space,
    /// none at either end; `&nbsp;` (U+00A0) becomes a plain space after.
    static func collapse(_ text: String) -> String {
        var line = CollapsingLine()
        line.append(text)
        return line.finish()
    }

    /// Undoes the line-wrapping of re-indented markup and nothing else: a
    /// run of whitespace that holds a line break becomes one space, other
    /// runs stay as they are. For short fields (titles, nicks) whose spaces
    /// the page writes as they are.
    static func unwrap(_ text: String) -> String {
        guard text.contains(where: { $0.unicodeScalars.contains { $0 == "\n" || $0 == "\r" } }) else { return text }
        var out = ""
        var run = ""
        func flush() {
            if run.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) {
                out += " "
            } else {
                out += run
            }
            run = ""
        }
        for character in text {
            if isCollapsible(character) {
                run.append(character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }
}

/// One line of text built from text nodes by HTML's whitespace rules, with
/// room for text that is not shown (colour codes) in between.
struct CollapsingLine {
    private(set) var text = ""
    /// Whether the line shows anything yet (hidden codes do not count).
    private(set) var started = false
    /// Where the collapsible space that ends the line so far is (UTF-8
    /// offset): it goes when the line ends there, or when more whitespace
    /// follows.
    private var trailingSpace: Int?

    /// Text of a text node: collapsible whitespace collapses.
    mutating func append(_ piece: String) {
        for character in piece {
            if HTMLWhitespace.isCollapsible(character) {
                guard started, trailingSpace == nil else { continue }
                trailingSpace = text.utf8.count
                text.append(" ")
            } else {
                text.append(character == "\u{00A0}" ? " " : character)
                started = true
                trailingSpace = nil
            }
        }
    }

    /// Text that shows, whitespace and all (an image's alt text).
    mutating func appendVisible(_ piece: String) {
        guard !piece.isEmpty else { return }
        text += piece
        started = true
        trailingSpace = nil
    }

    /// Text that does not show (colour codes): whitespace around it still
    /// collapses across it.
    mutating func appendHidden(_ piece: String) {
        text += piece
    }

    /// Replaces the text (after a reader took a piece off its end).
    mutating func replace(with newText: String) {
        text = newText
        trailingSpace = nil
        started = !newText.isEmpty
    }

    /// The line, without the collapsible space it may end with.
    mutating func finish() -> String {
        if let offset = trailingSpace {
            let index = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
            text.remove(at: index)
        }
        let line = text
        self = CollapsingLine()
        return line
    }
}

/// Text from a forum made safe for a terminal or a log line.
///
/// Error messages, URLs, board names and titles come from whoever runs the
/// forum. Written raw, an escape sequence could retitle the terminal or
/// erase the line, and a `\r` or newline could forge a second log line.
package enum TerminalText {
    /// `text` on one line: C0 and C1 controls, DEL, and line or paragraph
    /// separators become a space; everything else is kept.
    package static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(isControl(scalar) ? " " : scalar)
        }
        return String(scalars)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
        default: return false
        }
    }
}

extension ProgressEvent {
    /// The event with every string in it made safe for a terminal.
    package var terminalSafe: ProgressEvent {
        switch self {
        case .note(let message):
            return .note(TerminalText.clean(message))
        case .stage(let name, let done, let total, let failed):
            return .stage(name: TerminalText.clean(name), done: done, total: total, failed: failed)
        case .retry(let url, let reason, let wait, let attempt, let of):
            return .retry(
                url: TerminalText.clean(url), reason: TerminalText.clean(reason), wait: wait, attempt: attempt, of: of)
        case .failure(let url, let reason):
            return .failure(url: TerminalText.clean(url), reason: TerminalText.clean(reason))
        }
    }
}

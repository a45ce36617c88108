import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes to standard error and output that never stop the run: a log on a
/// full disk (`>> archive.log 2>&1`) or a closed terminal loses the line,
/// not the work. Foundation's `FileHandle.write(_:)` traps when a write
/// fails (exit 132, without a word), so nothing here goes through it.
enum Console {
    static func error(_ text: String) { write(text, to: STDERR_FILENO) }
    static func output(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// All of `text`, in as many writes as it takes; a write that fails
    /// (other than for a signal) ends it, and the rest is dropped.
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard var at = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let wrote = Glibc.write(descriptor, at, left)
                if wrote < 0 {
                    if errno == EINTR { continue }
                    return
                }
                at += wrote
                left -= wrote
            }
        }
    }
}

/// A run stopped by SIGINT or SIGTERM says so in one line before it ends
/// as the signal ends it (exit 130 or 143 to the shell): that what it
/// stored is kept, and how to go on. Without it, the last line was a
/// progress line. (`serve` has handlers of its own.)
enum StopNotice {
    /// The line, made once before any signal can come: the handler only
    /// writes it, as a signal handler may.
    nonisolated(unsafe) private static var line: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var length = 0

    static func install() {
        // On a terminal the live progress line is cleared first.
        let clear = isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[2K" : ""
        let text = clear + "bbsarchive: stopped; what was stored is kept: run the same command to go on\n"
        line = strdup(text)
        length = text.utf8.count
        signal(SIGINT, stopped)
        signal(SIGTERM, stopped)
    }

    private static let stopped: @convention(c) (Int32) -> Void = { number in
        if let line = StopNotice.line { _ = Glibc.write(STDERR_FILENO, line, StopNotice.length) }
        signal(number, SIG_DFL)
        raise(number)
    }
}

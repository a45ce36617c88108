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

import BBSArchive
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Shows a run's progress on standard error: a live line that rewrites
/// itself on a terminal, plain lines every few seconds in a log file or a
/// pipe, or one JSON object a line for machines. Notes, retries and
/// failures always get a line of their own.
final class ProgressPrinter: @unchecked Sendable {
    // @unchecked: all mutable state is only touched while holding `lock`.
    enum Format { case text, json }

    private let format: Format
    private let quiet: Bool
    private let terminal: Bool
    private let lock = NSLock()
    private var liveLine = ""
    private var lastDraw = Date.distantPast
    private var lastPlain: [String: Date] = [:]
    private var started: [String: Date] = [:]

    /// Plain (non-terminal) output repeats a stage's line at most this often.
    private let plainInterval: TimeInterval = 10

    init(format: Format, quiet: Bool) {
        self.format = format
        self.quiet = quiet
        terminal = isatty(STDERR_FILENO) != 0
    }

    func handle(_ event: ProgressEvent) {
        if quiet { return }
        // Forum-supplied text (titles, messages, URLs) never reaches the
        // terminal or the log with its control characters.
        let event = event.terminalSafe
        lock.withLock {
            switch format {
            case .json: writeLine(Self.json(event, started: &started))
            case .text: text(event)
            }
        }
    }

    /// A closing line, after the live line is cleared.
    func summary(_ line: String) {
        if quiet { return }
        let line = TerminalText.clean(line)
        lock.withLock {
            switch format {
            case .json: writeLine(Self.jsonObject(["event": "summary", "message": line]))
            case .text: writeLine(line)
            }
        }
    }

    /// The end of an update of `archive --every`: how long it took, and
    /// when the next one begins.
    func update(
        number: Int, fetch: Double, build: Double, threads: Int, written: Int, next: Date, every: String
    ) {
        if quiet { return }
        let at = Self.time.iso8601(next)
        lock.withLock {
            switch format {
            case .json:
                writeLine(
                    Self.jsonObject([
                        "event": "update", "update": number, "fetchSeconds": fetch, "buildSeconds": build,
                        "threadsFetched": threads, "filesWritten": written, "next": at,
                    ]))
            case .text:
                writeLine(
                    "update \(number) done in \(Self.seconds(fetch + build)) (fetch \(Self.seconds(fetch)), build "
                        + "\(Self.seconds(build))): \(threads) thread(s) fetched, \(written) file(s) written; the next at "
                        + "\(at) (every \(every)); Ctrl-C stops")
            }
        }
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%.2f s", value)
    }

    /// Clears the live line so whatever comes next starts clean.
    func finish() {
        lock.withLock {
            if terminal, !liveLine.isEmpty {
                Console.error("\r\u{1B}[2K")
                liveLine = ""
            }
        }
    }

    // MARK: Text

    private func text(_ event: ProgressEvent) {
        switch event {
        case .note(let message):
            writeLine(message)
        case .retry(let url, let reason, let wait, let attempt, let of):
            writeLine("retrying \(url) in \(Self.seconds(wait)) (\(reason); try \(attempt) of \(of))")
        case .failure(let url, let reason):
            writeLine("failed: \(url): \(reason)")
        case .stage(let name, let done, let total, let failed):
            let now = Date()
            let start = started[name] ?? now
            if started[name] == nil { started[name] = now }
            let line = Self.stageLine(
                name, done: done, total: total, failed: failed, elapsed: now.timeIntervalSince(start))
            let finished = total.map { done >= $0 } ?? false
            if terminal {
                guard finished || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
                lastDraw = now
                liveLine = line
                Console.error("\r\u{1B}[2K\(line)")
                if finished {
                    Console.error("\n")
                    liveLine = ""
                }
            } else {
                guard finished || now.timeIntervalSince(lastPlain[name] ?? .distantPast) >= plainInterval else {
                    return
                }
                lastPlain[name] = now
                Console.error(line + "\n")
            }
        }
    }

    /// Prints a whole line, keeping the live line below it on a terminal.
    private func writeLine(_ line: String) {
        if terminal, !liveLine.isEmpty {
            Console.error("\r\u{1B}[2K\(line)\n\(liveLine)")
        } else {
            Console.error(line + "\n")
        }
    }

    /// `threads 120/450 · 3.2/s · ETA 1m43s · 2 failed`
    static func stageLine(_ name: String, done: Int, total: Int?, failed: Int, elapsed: TimeInterval) -> String {
        var parts = ["\(name) \(done)" + (total.map { "/\($0)" } ?? "")]
        if elapsed >= 1 {
            let rate = Double(done) / elapsed
            parts.append(String(format: "%.1f/s", rate))
            if let total, rate > 0, done < total {
                parts.append("ETA " + duration(Double(total - done) / rate))
            }
        }
        if failed > 0 { parts.append("\(failed) failed") }
        return parts.joined(separator: " · ")
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m\(String(format: "%02d", whole % 60))s" }
        return "\(whole / 3600)h\(String(format: "%02d", whole / 60 % 60))m"
    }

    static func seconds(_ duration: Duration) -> String {
        let value = duration.inSeconds
        return value < 10 ? String(format: "%.1f s", value) : "\(Int(value.rounded())) s"
    }

    // MARK: JSON

    private static func json(_ event: ProgressEvent, started: inout [String: Date]) -> String {
        var object: [String: Any]
        switch event {
        case .note(let message):
            object = ["event": "note", "message": message]
        case .retry(let url, let reason, let wait, let attempt, let of):
            object = [
                "event": "retry", "url": url, "reason": reason, "wait": wait.inSeconds, "attempt": attempt, "of": of,
            ]
        case .failure(let url, let reason):
            object = ["event": "failure", "url": url, "reason": reason]
        case .stage(let name, let done, let total, let failed):
            let now = Date()
            let start = started[name] ?? now
            if started[name] == nil { started[name] = now }
            object = ["event": "stage", "stage": name, "done": done, "failed": failed]
            if let total { object["total"] = total }
            let elapsed = now.timeIntervalSince(start)
            if elapsed > 0 { object["rate"] = (Double(done) / elapsed * 100).rounded() / 100 }
        }
        return jsonObject(object)
    }

    /// Log times read in the zone of the default forum, like its pages' times.
    static let time = ForumSources.profile(sources: []).time

    static func jsonObject(_ fields: [String: Any]) -> String {
        var object = fields
        object["time"] = time.iso8601(Date())
        return JSONLine.object(object)
    }
}

/// One JSON object on one line, its keys sorted, for `--log-format json`.
/// Strings, integers, floating-point numbers and booleans are written here
/// (through `JSONSerialization`, the log of a running `archive --every`
/// took 6.7 % of its CPU between updates at 100k posts), as UTF-8 bytes
/// (appended a Unicode scalar at a time to a `String`, the 69 lines of an
/// update to 20 boards took 2.7 % of its CPU); a value of any
/// other type goes through `JSONSerialization`, and `null` stands for what
/// JSON cannot hold (NaN, infinities).
enum JSONLine {
    static func object(_ fields: [String: Any]) -> String {
        var line: [UInt8] = []
        line.reserveCapacity(192)
        line.append(UInt8(ascii: "{"))
        for (index, key) in fields.keys.sorted().enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            appendString(key, to: &line)
            line.append(UInt8(ascii: ":"))
            switch fields[key] {
            case let text as String: appendString(text, to: &line)
            case let flag as Bool: line += (flag ? "true" : "false").utf8
            case let number as Int: line += String(number).utf8
            case let number as Double: line += (number.isFinite ? "\(number)" : "null").utf8
            case let other?:
                // Wrapped in an array, which JSONSerialization writes whatever the value.
                let data = try? JSONSerialization.data(withJSONObject: [other], options: [.sortedKeys])
                line += data.map { [UInt8]($0.dropFirst().dropLast()) } ?? Array("null".utf8)
            case nil: line += "null".utf8
            }
        }
        line.append(UInt8(ascii: "}"))
        return String(decoding: line, as: UTF8.self)
    }

    /// `text` as a JSON string, in UTF-8: quotes, backslashes, control
    /// characters, U+FEFF, U+2028 and U+2029 escaped.
    static func appendString(_ text: String, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var plain = 0
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                // The bytes the escape stands for, and the escape: a short
                // one, or `\u` and the scalar's four hex digits.
                var length = 1
                var short: UInt8 = 0
                var scalar: UInt32 = 0
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): short = byte
                case 0x0A: short = UInt8(ascii: "n")
                case 0x0D: short = UInt8(ascii: "r")
                case 0x09: short = UInt8(ascii: "t")
                case ..<0x20: scalar = UInt32(byte)
                // And the byte order mark (EF BB BF), which Foundation's
                // reader drops from the start of a string, and the line and
                // paragraph separators (E2 80 A8, E2 80 A9).
                case 0xEF where index + 2 < utf8.count && utf8[index + 1] == 0xBB && utf8[index + 2] == 0xBF:
                    (length, scalar) = (3, 0xFEFF)
                case 0xE2
                where index + 2 < utf8.count && utf8[index + 1] == 0x80
                    && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
                    (length, scalar) = (3, 0x2000 | UInt32(utf8[index + 2] - 0x80))
                default:
                    index += 1
                    continue
                }
                line += UnsafeBufferPointer(rebasing: utf8[plain..<index])
                line.append(UInt8(ascii: "\\"))
                if short != 0 {
                    line.append(short)
                } else {
                    line.append(UInt8(ascii: "u"))
                    for shift in stride(from: 12, through: 0, by: -4) {
                        let digit = UInt8((scalar >> UInt32(shift)) & 0xF)
                        line.append(digit < 10 ? 0x30 + digit : 0x57 + digit)
                    }
                }
                index += length
                plain = index
            }
            line += UnsafeBufferPointer(rebasing: utf8[plain...])
        }
        line.append(UInt8(ascii: "\""))
    }
}

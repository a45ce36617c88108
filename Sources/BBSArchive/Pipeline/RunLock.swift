import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One run at a time per store and per output folder: an exclusive
/// `flock` on a small file beside it (`archive.sqlite.lock`, `site.lock`).
///
/// The kernel drops the lock when its holder ends, however it ends
/// (`kill -9` included), so a lock is never left behind; the file only
/// says who holds it (pid, command, since when) for the message of the
/// run that finds it taken.
package final class RunLock: Sendable {
    /// The lock file.
    package let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The lock file that guards `target` (a store file or an output folder):
    /// beside the file or folder it names, its links followed, so that every
    /// spelling of it (a symbolic link, `..`) takes the same lock.
    package static func lockPath(for target: String) -> String {
        var trimmed = target
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return resolved(trimmed) + ".lock"
    }

    /// `path` with its links followed: the file or folder itself, or, for
    /// one not made yet, its folder; as given when neither can be resolved.
    static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        guard let real = realpath(folder, nil) else { return path }
        defer { free(real) }
        let base = String(cString: real)
        return (base.hasSuffix("/") ? base : base + "/") + url.lastPathComponent
    }

    /// Takes the lock of `target`. When another process holds it: throws
    /// `.locked` at once, or with `wait` calls `waiting` with the holder
    /// and blocks until the lock is free.
    /// What a lock guards, for the error when its file cannot be made.
    package enum Target: Sendable {
        case store, output
    }

    package static func acquire(
        _ target: String, guarding kind: Target = .store, command: String, wait: Bool,
        waiting: (String) -> Void = { _ in }
    ) throws(ArchiveError) -> RunLock {
        var path = lockPath(for: target)
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        // A folder whose parent cannot be written (`--out .` in a folder of
        // one's own under another's) keeps its lock inside: any spelling of
        // it then finds the same one, as no lock can be made beside it.
        if descriptor < 0, errno == EACCES || errno == EROFS, kind == .output {
            let besideFailed = errno
            let inside = resolved(target) + "/..lock"
            let second = open(inside, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            if second >= 0 {
                path = inside
                descriptor = second
            } else {
                // The error said is the one beside the folder.
                errno = besideFailed
            }
        }
        guard descriptor >= 0 else {
            let code = errno
            // A store whose folder (or lock file) this process may not write
            // cannot be written at all: said as such, with what to do.
            if kind == .store, code == EACCES || code == EPERM || code == EROFS {
                let reason =
                    ArchiveStore.unwritable(target)
                    ?? "its lock file \(path) cannot be written (\(String(cString: strerror(code))))"
                throw .storeReadOnly(path: target, need: .command(reason: reason))
            }
            let reason = "its lock file \(path) cannot be created (\(String(cString: strerror(code))))"
            switch kind {
            case .store: throw .storeUnavailable(path: target, reason: reason)
            case .output: throw .outputUnwritable(path: target, reason: reason)
            }
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let busy = errno == EWOULDBLOCK
            guard busy else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw .storeUnavailable(path: target, reason: "its lock file \(path) cannot be locked (\(reason))")
            }
            let holder = holderDescription(descriptor)
            guard wait else {
                close(descriptor)
                throw .locked(path: target, holder: holder)
            }
            waiting(holder)
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let reason = String(cString: strerror(errno))
                    close(descriptor)
                    throw .storeUnavailable(
                        path: target, reason: "its lock file \(path) cannot be locked (\(reason))")
                }
            }
        }
        let note = "pid \(getpid())\ncommand \(command)\nsince \(utcStamp(time(nil)))\n"
        _ = ftruncate(descriptor, 0)
        _ = note.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return RunLock(path: path, descriptor: descriptor)
    }

    /// `2026-11-23T03:00:01Z`, as ISO8601DateFormatter writes it, without
    /// loading ICU for one line at the start of every run.
    static func utcStamp(_ seconds: time_t) -> String {
        var clock = seconds
        var parts = tm()
        guard gmtime_r(&clock, &parts) != nil else { return "an unknown time" }
        func pad(_ value: Int32, _ width: Int = 2) -> String { String(value).leftPadded(to: width) }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))Z"
    }

    /// "pid 123 (bbsarchive archive Geography) since 2026-…", from the file.
    static func holderDescription(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 4096, 0) }
        let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let pid = fields["pid"] else { return "another bbsarchive process" }
        return "pid \(pid) (\(fields["command"] ?? "bbsarchive")) since \(fields["since"] ?? "an unknown time")"
    }
}

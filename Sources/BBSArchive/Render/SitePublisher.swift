import Foundation

/// Where the site builder's files go: the disk for a real build, memory in tests.
package protocol SitePublisher: Sendable {
    /// Writes `data` at `path` (relative to the site's root, `/`-separated).
    /// Returns `false` when an identical file was already there.
    @discardableResult
    func write(_ data: Data, to path: String) throws(ArchiveError) -> Bool
    /// Whether a file exists at `path` (used to skip content-addressed media).
    func exists(_ path: String) -> Bool
    /// The bytes of the file at `path`, if there is one.
    func read(_ path: String) -> Data?
}

/// Writes the site into a folder. A file whose bytes are unchanged is left
/// alone (its time too), so a rebuild touches only what changed; changed
/// files are replaced atomically, so a reader never sees half a page.
package struct DiskPublisher: SitePublisher {
    package let root: URL

    package init(root: URL) throws(ArchiveError) {
        self.root = root
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw .outputUnwritable(path: root.path, reason: Self.reason(error))
        }
    }

    package func write(_ data: Data, to path: String) throws(ArchiveError) -> Bool {
        let url = root.appendingPathComponent(path)
        if let existing = FileManager.default.contents(atPath: url.path), existing == data { return false }
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw .outputUnwritable(path: url.path, reason: Self.reason(error))
        }
        return true
    }

    package func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    package func read(_ path: String) -> Data? {
        FileManager.default.contents(atPath: root.appendingPathComponent(path).path)
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}

/// Keeps the site in memory, for tests.
package final class MemoryPublisher: SitePublisher, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String: Data] = [:]

    package init() {}

    package var files: [String: Data] { lock.withLock { storage } }

    package func write(_ data: Data, to path: String) throws(ArchiveError) -> Bool {
        lock.withLock {
            if storage[path] == data { return false }
            storage[path] = data
            return true
        }
    }

    package func exists(_ path: String) -> Bool { lock.withLock { storage[path] != nil } }

    package func read(_ path: String) -> Data? { lock.withLock { storage[path] } }
}

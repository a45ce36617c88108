import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension ArchiveStore {
    /// Asks the operating system to read the whole store file into its
    /// page cache, in order, on a thread of its own, for a run that is
    /// about to read most of it (a full build). Started only when the file
    /// takes at most half of the memory the system says is available
    /// (`MemAvailable`); otherwise, and where the system has no such call,
    /// nothing is done and nil is returned.
    ///
    /// Why: SQLite reads a page at a time, where the run needs it. A full
    /// build of the 1M-post store (2.4 GB) read its file 1.96 million times;
    /// with the file out of the page cache (after a reboot, or after another
    /// program such as Hugo took the memory), each of those reads that
    /// missed waited for the disk. Measured on that store, release build,
    /// 2 cores: 87.5 and 88.6 s with the file dropped from the cache first,
    /// 75.8 s dropped and then read this way by the build, 74.3 s with it
    /// read beforehand (`cat`). Read in order, the whole file took 1.4 s of
    /// requests and was in memory about 2 s after they began.
    ///
    /// Each request covers 128 kB: Linux reads at most its read-ahead
    /// window (128 kB by default, 8 MB on the machine above) of each
    /// `POSIX_FADV_WILLNEED` range and leaves the rest unread.
    @discardableResult
    package func prefetchFile(memoryAvailable: Int? = ArchiveStore.memoryAvailable()) -> FilePrefetch? {
        FilePrefetch.start(path: path, memoryAvailable: memoryAvailable)
    }

    /// `MemAvailable` of `/proc/meminfo`, in bytes; nil where there is none.
    package static func memoryAvailable(meminfo: String = "/proc/meminfo") -> Int? {
        guard let text = try? String(contentsOfFile: meminfo, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[2] == "kB", let kibibytes = Int(fields[1]) else { return nil }
            return kibibytes.multipliedReportingOverflow(by: 1024).overflow ? nil : kibibytes * 1024
        }
        return nil
    }
}

/// The reading `ArchiveStore.prefetchFile` started; a test waits for it.
package final class FilePrefetch: Sendable {
    /// The requests' size (see `ArchiveStore.prefetchFile`).
    static let requestBytes = 128 << 10

    private let done = DispatchSemaphore(value: 0)

    /// Starts asking for `path`'s pages, or returns nil when the file is
    /// not there, is empty, or takes more than half of `memoryAvailable`
    /// (nil: not known, so nothing is read).
    static func start(path: String, memoryAvailable: Int?) -> FilePrefetch? {
        #if os(Linux)
            guard let memoryAvailable else { return nil }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_size > 0, Int(status.st_size) <= memoryAvailable / 2 else {
                close(descriptor)
                return nil
            }
            let size = Int(status.st_size)
            let prefetch = FilePrefetch()
            Thread.detachNewThread {
                var offset = 0
                // Only a hint: a request the system refuses ends the reading,
                // and SQLite reads what it needs as before.
                while offset < size,
                    posix_fadvise(descriptor, off_t(offset), off_t(requestBytes), POSIX_FADV_WILLNEED) == 0
                {
                    offset += requestBytes
                }
                close(descriptor)
                prefetch.done.signal()
            }
            return prefetch
        #else
            return nil
        #endif
    }

    /// Waits until every request has been made (not until the disk has
    /// answered them all).
    package func wait() { done.wait() }
}

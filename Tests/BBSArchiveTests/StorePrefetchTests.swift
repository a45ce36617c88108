import Foundation
import Testing

@testable import BBSArchive

#if canImport(Glibc)
    import Glibc
#endif

/// A full build asks the system to read the store file in order before
/// SQLite needs its pages (`ArchiveStore.prefetchFile`), when it fits in
/// half of the memory available.
@Suite struct StorePrefetchTests {
    @Test func theMemoryAvailableIsReadFromMeminfo() throws {
        let folder = try Fixtures.temporaryFolder("prefetch-meminfo")
        let file = folder.appendingPathComponent("meminfo")
        try "MemTotal:       24684092 kB\nMemFree:          580084 kB\nMemAvailable:   23172696 kB\n"
            .write(to: file, atomically: true, encoding: .utf8)
        #expect(ArchiveStore.memoryAvailable(meminfo: file.path) == 23_172_696 * 1024)
        for text in ["MemTotal:       24684092 kB\n", "MemAvailable:   lots kB\n", "MemAvailable:   12 MB\n", ""] {
            try text.write(to: file, atomically: true, encoding: .utf8)
            #expect(ArchiveStore.memoryAvailable(meminfo: file.path) == nil, "\(text)")
        }
        #expect(ArchiveStore.memoryAvailable(meminfo: folder.appendingPathComponent("none").path) == nil)
    }

    /// Only a file that takes at most half of the memory available is
    /// read; none when that is not known, and none that is not there.
    @Test func aFileIsReadOnlyWhenHalfTheMemoryAvailableHoldsIt() throws {
        let folder = try Fixtures.temporaryFolder("prefetch-bound")
        let file = folder.appendingPathComponent("store.sqlite")
        try Data(count: 1000).write(to: file)
        #if os(Linux)
            #expect(FilePrefetch.start(path: file.path, memoryAvailable: 2000) != nil)
        #endif
        #expect(FilePrefetch.start(path: file.path, memoryAvailable: 1998) == nil)
        #expect(FilePrefetch.start(path: file.path, memoryAvailable: nil) == nil)
        #expect(FilePrefetch.start(path: folder.appendingPathComponent("none").path, memoryAvailable: 1 << 30) == nil)
        try Data().write(to: file)
        #expect(FilePrefetch.start(path: file.path, memoryAvailable: 1 << 30) == nil)
    }

    #if os(Linux)
        /// A store file dropped from the page cache is in it again after
        /// the prefetch, with nothing read by the program itself.
        @Test func aStoreDroppedFromThePageCacheIsReadIntoItAgain() throws {
            let folder = try Fixtures.temporaryFolder("prefetch-read")
            let path = folder.appendingPathComponent("archive.sqlite").path
            do {
                // 8 MB of pages beyond what the schema takes, in the store
                // file itself once the store is closed (its last checkpoint).
                let store = try ArchiveStore(path: path)
                let filler = Data((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
                try store.write { db in
                    try db.execute(sql: "CREATE TABLE filler (bytes BLOB)")
                    try db.execute(sql: "INSERT INTO filler (bytes) VALUES (?)", arguments: [filler])
                }
            }
            let store = try ArchiveStore(path: path)
            try Self.drop(path)
            let before = try Self.resident(path)
            try #require(before < 0.5, "the file system kept \(before) of the pages it was asked to drop")
            let prefetch = try #require(store.prefetchFile(memoryAvailable: 1 << 40))
            prefetch.wait()
            var after = try Self.resident(path)
            let deadline = Date().addingTimeInterval(10)
            while after < 0.95, Date() < deadline {
                usleep(20_000)
                after = try Self.resident(path)
            }
            #expect(after >= 0.95, "resident: \(before) before, \(after) after")
        }

        /// Flushes `path` and asks the system to drop its pages.
        static func drop(_ path: String) throws {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            fsync(descriptor)
            #expect(posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0)
        }

        /// The share of `path`'s pages in the page cache (`mincore`).
        static func resident(_ path: String) throws -> Double {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            var status = stat()
            try #require(fstat(descriptor, &status) == 0 && status.st_size > 0)
            let size = Int(status.st_size)
            let map = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0)
            try #require(map != MAP_FAILED)
            defer { munmap(map, size) }
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            var pages = [UInt8](repeating: 0, count: (size + page - 1) / page)
            try #require(mincore(map, size, &pages) == 0)
            return Double(pages.filter { $0 & 1 == 1 }.count) / Double(pages.count)
        }
    #endif
}

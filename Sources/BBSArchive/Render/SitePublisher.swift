import Foundation
import Glibc
import Synchronization

/// Where the site builder's files go: the disk for a real build, memory in tests.
package protocol SitePublisher: Sendable {
    /// Writes `data` at `path` (relative to the site's root, `/`-separated).
    /// Returns `false` when an identical file was already there.
    @discardableResult
    func write(_ data: Data, to path: String) throws(ArchiveError) -> Bool
    /// The same for bytes held elsewhere (a rendered page, a string's
    /// UTF-8), read in place: no `Data` copy is made of them.
    @discardableResult
    func write(contentsOf bytes: UnsafeRawBufferPointer, to path: String) throws(ArchiveError) -> Bool
    /// Whether a file exists at `path` (used to skip content-addressed media).
    func exists(_ path: String) -> Bool
    /// The bytes of the file at `path`, if there is one.
    func read(_ path: String) -> Data?
    /// Deletes the file at `path`, if there is one: only a file that must
    /// not stay, such as an active document an older release kept.
    func remove(_ path: String) throws(ArchiveError)
    /// The files directly in `folder` (site paths), none when it is absent.
    func files(in folder: String) -> [String]
    /// Makes everything written so far durable (one flush of the whole
    /// output, instead of one per file).
    func flush() throws(ArchiveError)
    /// What the build calls before it records that it is done: makes what
    /// it wrote durable and returns nil, or, where this publisher may leave
    /// files to the kernel (`boot`) and the build wrote many, or a flush
    /// would wait for much else (`DiskPublisher.settlesBelow`), leaves them
    /// there and returns the boot's id, which the build's state then
    /// carries (`BuildState.unflushedBoot`). `earlier`: files that this
    /// build did not write may not be durable yet (an earlier build of this
    /// boot left its own to the kernel, or stopped part way): they are
    /// flushed too, with the whole file system, or, where that would wait
    /// for much, left with the boot named.
    func settle(earlier: Bool) throws(ArchiveError) -> String?
    /// The boot (the kernel's id of it) in which this publisher may leave
    /// many files to the kernel, and in which a state that says so is
    /// trusted; nil where everything is flushed.
    var boot: String? { get }
    /// Whether every file there was written by this publisher (a folder
    /// that held no site): then `write` of a `media/` file already there,
    /// named by its bytes' hash, returns false without reading it, and
    /// asking first (`exists`) only costs a look-up.
    var writesMediaOnce: Bool { get }
}

extension SitePublisher {
    package func flush() throws(ArchiveError) {}

    package func settle(earlier: Bool) throws(ArchiveError) -> String? {
        try flush()
        return nil
    }

    package var boot: String? { nil }

    package var writesMediaOnce: Bool { false }

    package func write(contentsOf bytes: UnsafeRawBufferPointer, to path: String) throws(ArchiveError) -> Bool {
        try write(Data(bytes), to: path)
    }

    /// Writes a rendered page's bytes as they are, without a `Data` copy.
    @discardableResult
    package func write(bytes: [UInt8], to path: String) throws(ArchiveError) -> Bool {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(ArchiveError) in try write(contentsOf: buffer, to: path) }
        }.get()
    }

    /// Writes a string's UTF-8 as it is, without a `Data` copy.
    @discardableResult
    package func write(text: String, to path: String) throws(ArchiveError) -> Bool {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(ArchiveError) in try write(contentsOf: UnsafeRawBufferPointer(buffer), to: path) }
        }.get()
    }
}

/// Writes the site into a folder. A file whose bytes are unchanged is left
/// alone (its time too), so a rebuild touches only what changed; changed
/// files are replaced atomically, so a reader never sees half a page.
///
/// Into a folder that was empty (a first build; hidden files such as
/// `.nojekyll` or `.git` do not count), there is nothing to
/// compare with or replace: a file is created in place, one `open` and no
/// `rename` (creating files is most of a full build's kernel time), media
/// too. Every file a build that stopped part way left is compared again by
/// the next build, which renders everything (the build state is written
/// last), so a half file is rewritten, never taken for done. `media/`,
/// whose files a later build trusts by their name alone, is trusted so
/// only in a folder with a build state (`BuildState.path`): a build that
/// finished, whose files were flushed before it wrote its state, or were
/// left to the kernel in this boot (`settle`, `BuildState.Mark`). In a
/// folder without one (a first build stopped part way), a media file is
/// compared like any other when the build gets to it, and rewritten when
/// it differs (then, and not before, the build takes it for there, as a
/// hot topic's card asks); media written outside a first build still go through a
/// temporary file, so no half file is left beside a build state.
package struct DiskPublisher: SitePublisher {
    package let root: URL
    /// The files written since the last flush, until there are too many to
    /// flush one by one (`nil`: then the whole file system is flushed).
    private let log: WriteLog
    private static let flushOneByOne = 256
    /// `root/`, once, rather than joined anew for every file.
    private let prefix: String

    /// The boot in which a build may leave many files to the kernel
    /// (`settle`): a build writes its state without waiting for the disk,
    /// marked with this boot, and a state so marked is trusted only in it.
    package let boot: String?
    /// How much the kernel may still have to write back (`Dirty` and
    /// `Writeback` of `/proc/meminfo`, all file systems) for an update to
    /// flush the whole file system after a build that left its files to
    /// the kernel (`settle`); with more pending, the update flushes only
    /// its own files and its state keeps the boot.
    private let settlesBelow: Int

    /// `earlyFlushBytes`: once more than `flushOneByOne` files are
    /// written, each time this many more bytes are, the disk starts on them
    /// in the background (`WriteLog.wrote`). What is left of the last
    /// bound is what the build's last flush waits for with every core idle:
    /// at the 100k site (ext4, 2 cores), 0.29 s with 64 MB, 0.04 s with 16 MB,
    /// for the same user and system CPU. None is started where many files
    /// are left to the kernel (`boot`).
    ///
    /// `boot`: the boot (`currentBoot`) in which a build that wrote many
    /// files may leave them to the kernel instead of flushing the file
    /// system before it writes its state. That flush cost the 100k build
    /// 0.4–0.6 s of its 5 on this machine's disk, the kernel's threads
    /// writing the site back while the build's waited (4 alternated pairs:
    /// 5.27–5.48 s against 4.75–4.90 s on 1 December 2026), and more on a
    /// slow disk; Hugo does not flush at all. A power cut or a crash of the
    /// system can lose what the kernel held; it also ends the boot, so the
    /// next build, in another boot, trusts neither the state nor the media
    /// by name, and compares every file, as after a build that stopped part
    /// way. nil: every build flushes (as `flush` does).
    ///
    /// `settlesBelow`: an update flushes its files, and the next update of
    /// the boot the whole file system (the earlier files too), only when
    /// the kernel has at most this much left to write back, so that it
    /// never waits for a site's writeback (a rebuild right after the 100k
    /// build waited 1.1 s for it, against 0.02 s), nor for another
    /// program's; otherwise they are left to the kernel with the boot named.
    package init(
        root: URL, earlyFlushBytes: Int = 16 << 20, boot: String? = nil, settlesBelow: Int = 16 << 20
    ) throws(ArchiveError) {
        self.root = root
        self.boot = boot
        self.settlesBelow = settlesBelow
        prefix = root.path + "/"
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw .outputUnwritable(path: root.path, reason: Self.reason(error))
        }
        Self.removeLeftovers(prefix + Self.temporaryFolder)
        let fresh = Self.holdsNoSite(root.path)
        log = WriteLog(
            folder: root.path, fresh: fresh,
            trustsMedia: fresh || BuildState.trusted(Self.contents(prefix + BuildState.path), in: boot),
            earlyFlushBytes: boot == nil ? earlyFlushBytes : nil)
    }

    /// The kernel's id of this boot (`/proc/sys/kernel/random/boot_id`, a
    /// new one at every start), or nil where it cannot be read.
    package static let currentBoot: String? = {
        guard let data = contents("/proc/sys/kernel/random/boot_id") else { return nil }
        let id = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? nil : id
    }()

    /// A file's bytes (a build state, a boot id, `/proc/meminfo`), or nil.
    private static func contents(_ path: String) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return try? handle.readToEnd()
    }

    /// Where files are written before they are renamed over their place:
    /// one hidden folder, so that what a build stopped part way (`kill`, a
    /// power cut) leaves is found, and removed, by the next one (QA 7:
    /// `page.html.tmp-PID-N` files beside the pages stayed, and were
    /// published). It goes when a build has flushed its files.
    static let temporaryFolder = ".bbsarchive-tmp"

    /// Removes the files in `folder`, and the folder.
    private static func removeLeftovers(_ folder: String) {
        guard let directory = opendir(folder) else { return }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { unlink(folder + "/" + name) }
        }
        closedir(directory)
        rmdir(folder)
    }

    /// How many early flushes (`WriteLog.wrote`) this publisher has started.
    package var earlyFlushes: Int { log.earlyFlushes.load(ordering: .relaxed) }

    /// Whether the folder holds nothing a build writes: nothing at all, or
    /// only hidden files other than a build's state (`.nojekyll`, `.git`,
    /// which a host asks for before the first build; a build writes no
    /// other hidden file, and no file of its own is hidden).
    private static func holdsNoSite(_ path: String) -> Bool {
        guard let folder = opendir(path) else { return false }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            if !name.hasPrefix(".") || name.hasPrefix(BuildState.path) { return false }
        }
        return true
    }

    /// Compares with the file already there (its size first), then writes
    /// a temporary file beside it and renames it over: a reader sees the
    /// old file or the new one, never half of one. Nothing is flushed to
    /// the disk here, file by file; `flush()` does it once for the build.
    @discardableResult
    package func write(_ data: Data, to path: String) throws(ArchiveError) -> Bool {
        try data.withUnsafeBytes { bytes in
            Result { () throws(ArchiveError) in try write(contentsOf: bytes, to: path) }
        }.get()
    }

    /// The same, from bytes held elsewhere (read in place, not copied).
    @discardableResult
    package func write(contentsOf data: UnsafeRawBufferPointer, to path: String) throws(ArchiveError) -> Bool {
        let target = prefix + path
        // A first build: nothing there to compare with. A file is created
        // in place unless this build wrote it already (pages asking for a
        // media file meanwhile find it there, by its name); a half one is
        // never trusted by a later build (see above).
        let media = path.hasPrefix("media/")
        if log.fresh {
            let descriptor = try Self.create(target)
            if descriptor >= 0 { return try finish(descriptor, data, target: target, temporary: nil) }
            // There already, so written by this build: under the hash of
            // the same bytes, whole, or being written whole by another task.
            if media { return false }
        }
        if Self.compare(data, at: target) == .same {
            if media { log.confirm(path) }
            return false
        }
        // Even a new file goes through a temporary one: a build that stops
        // part way leaves no half file.
        let temporary = prefix + Self.temporaryFolder + "/\(getpid())-\(Self.nextNumber())"
        let descriptor = try Self.create(temporary)
        guard descriptor >= 0 else { throw .outputUnwritable(path: target, reason: Self.lastError()) }
        let written = try finish(descriptor, data, target: target, temporary: temporary)
        if media { log.confirm(path) }
        // The build state is written last: the temporary folder is empty.
        if path == BuildState.path { rmdir(prefix + Self.temporaryFolder) }
        return written
    }

    /// Creates `path` (not there before), and its folder when missing;
    /// -1 when it exists already, and throws for anything else.
    private static func create(_ path: String) throws(ArchiveError) -> Int32 {
        var descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        if descriptor < 0, errno == ENOENT {
            do {
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            } catch {
                throw .outputUnwritable(path: path, reason: Self.reason(error))
            }
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        }
        if descriptor < 0, errno != EEXIST { throw .outputUnwritable(path: path, reason: Self.lastError()) }
        return descriptor
    }

    /// Renames `temporary` over `target`, making `target`'s folder first
    /// when it is not there yet; false with `errno` set when it cannot. A
    /// `target` on another file system (a folder of the site that is a link
    /// elsewhere) gets `bytes` through a temporary file beside it.
    private static func move(_ temporary: String, to target: String, bytes: UnsafeRawBufferPointer) -> Bool {
        if rename(temporary, target) == 0 { return true }
        if errno == ENOENT {
            let folder = (target as NSString).deletingLastPathComponent
            guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
            else { return false }
            if rename(temporary, target) == 0 { return true }
        }
        guard errno == EXDEV else { return false }
        unlink(temporary)
        let beside = target + ".tmp-\(getpid())-\(nextNumber())"
        let descriptor = open(beside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return false }
        let written = writeAll(descriptor, bytes)
        guard close(descriptor) == 0, written, rename(beside, target) == 0 else {
            let failure = errno
            unlink(beside)
            errno = failure
            return false
        }
        return true
    }

    /// Writes all of `bytes` to the open `descriptor`, again after an
    /// interruption or a short write; false on an error (`errno` says
    /// which) or when nothing more goes in.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                if count == 0 { errno = EIO }
                return false
            }
            offset += count
        }
        return true
    }

    /// Writes `data` to the open `descriptor`, closes it and renames the
    /// `temporary` file (when there is one) over `target`.
    private func finish(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, target: String, temporary: String?)
        throws(ArchiveError) -> Bool
    {
        let complete = Self.writeAll(descriptor, bytes)
        let failure = complete ? nil : Self.lastError()
        let closed = close(descriptor) == 0
        guard complete, closed, temporary.map({ Self.move($0, to: target, bytes: bytes) }) ?? true else {
            let reason = failure ?? Self.lastError()
            // A half file in place is removed; the next build writes it.
            unlink(temporary ?? target)
            throw .outputUnwritable(path: target, reason: reason)
        }
        let many = log.unflushed.withLock { paths -> Bool in
            guard var list = paths.take() else { return true }
            list.append(target)
            paths = list.count > Self.flushOneByOne ? nil : list
            return paths == nil
        }
        if many { log.wrote(bytes.count) }
        return true
    }

    /// Flushes what was written since the last flush: nothing when nothing
    /// was, a few files one by one (`fsync`), many at once (the output's
    /// file system, `syncfs`).
    package func flush() throws(ArchiveError) {
        _ = try settle(earlier: false, leaving: false)
    }

    package func settle(earlier: Bool) throws(ArchiveError) -> String? {
        try settle(earlier: earlier, leaving: true)
    }

    /// `leaving`: many files may be left to the kernel, if `boot` says so.
    private func settle(earlier: Bool, leaving: Bool) throws(ArchiveError) -> String? {
        // Empty now: every file written went to its place.
        rmdir(prefix + Self.temporaryFolder)
        let written = log.unflushed.withLock { paths in
            defer { paths = [] }
            return paths
        }
        guard let written else {
            if leaving, let boot { return boot }
            try flushAll()
            return nil
        }
        // A few files, while the kernel has much to write back (an earlier
        // build's files, another program's): left to it too, with the boot
        // named, since an `fsync` of one new file waits for the file
        // system's journal, and with it for writes that are not this
        // build's. 28 updates of a running `archive --every` after one
        // reply each (100k posts, ext4), started right after 830 MB were
        // copied into the file system: 11 of them waited 86-209 ms to
        // flush their 19 files, the others 3-19 ms; left to the kernel,
        // 14 such updates took 0.4-1.5 ms here.
        if leaving, let boot, !written.isEmpty || earlier,
            Self.pendingWriteback().map({ $0 > settlesBelow }) ?? true
        {
            return boot
        }
        if earlier {
            // Files of an earlier build may still be the kernel's: flushed
            // with the file system (where a boot is named, only when little
            // is left to write back: see above).
            try flushAll()
            return nil
        }
        try flush(written)
        return nil
    }

    /// Bytes the kernel has yet to write back to any disk (`Dirty` and
    /// `Writeback` of `/proc/meminfo`), or nil where it does not say.
    static func pendingWriteback() -> Int? {
        guard let data = contents("/proc/meminfo") else { return nil }
        var total = 0
        var found = 0
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n")
        where line.hasPrefix("Dirty:") || line.hasPrefix("Writeback:") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
            total += kilobytes * 1024
            found += 1
        }
        return found == 2 ? total : nil
    }

    /// `written`, each flushed on its own (`fsync`).
    private func flush(_ written: [String]) throws(ArchiveError) {
        // Several at once: one by one, each fsync waits for the disk in
        // turn. 56 files of 6 kB while other programs write: 139–412 ms one
        // by one, 9–176 ms on 8 threads (10–20 ms and 9–15 ms on a quiet disk).
        let queue = FlushQueue(paths: written)
        let group = DispatchGroup()
        for _ in 0..<min(Self.flushWidth, written.count) {
            group.enter()
            Thread.detachNewThread {
                queue.run()
                group.leave()
            }
        }
        group.wait()
        if let failure = queue.failure.withLock({ $0 }) { throw failure }
    }

    /// Files flushed at the same time.
    private static let flushWidth = 8

    /// Paths handed out one at a time to the threads that flush them.
    private final class FlushQueue: Sendable {
        let paths: [String]
        let next = Mutex(0)
        let failure = Mutex<ArchiveError?>(nil)

        init(paths: [String]) { self.paths = paths }

        func run() {
            while true {
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                guard index < paths.count else { return }
                let path = paths[index]
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                // A file replaced or removed since is not this build's to flush.
                guard descriptor >= 0 else { continue }
                if fsync(descriptor) != 0 {
                    let reason = DiskPublisher.lastError()
                    failure.withLock { $0 = $0 ?? .outputUnwritable(path: path, reason: reason) }
                }
                close(descriptor)
            }
        }
    }

    private func flushAll() throws(ArchiveError) {
        guard Self.syncFileSystem(of: root.path) else {
            throw .outputUnwritable(path: root.path, reason: Self.lastError())
        }
    }

    /// Flushes the file system that holds `folder` (`syncfs`; `sync` where
    /// glibc has no `syncfs`); false, with `errno` set, when that fails.
    fileprivate static func syncFileSystem(of folder: String) -> Bool {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard let syncfs else {
            sync()
            return true
        }
        return syncfs(descriptor) == 0
    }

    /// glibc's `syncfs`, which Swift's Glibc module leaves out.
    private static let syncfs: (@convention(c) (Int32) -> Int32)? = dlsym(nil, "syncfs").map {
        unsafeBitCast($0, to: (@convention(c) (Int32) -> Int32).self)
    }

    private enum Existing { case same, different, absent }

    /// Whether the file at `path` holds exactly `data` (read only when the sizes agree).
    private static func compare(_ data: UnsafeRawBufferPointer, at path: String) -> Existing {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno == ENOENT ? .absent : .different }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int(status.st_size) == data.count else { return .different }
        // One byte more than expected: a file that grew meanwhile is not the same.
        var existing = Data(count: data.count + 1)
        var filled = 0
        while filled < existing.count {
            let count = existing.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(descriptor, base + filled, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        guard filled == data.count else { return .different }
        let same = existing.withUnsafeBytes { old -> Bool in
            guard let old = old.baseAddress, let new = data.baseAddress else { return data.isEmpty }
            return memcmp(old, new, data.count) == 0
        }
        return same ? .same : .different
    }

    private static let counter = Mutex(0)

    private static func nextNumber() -> Int {
        counter.withLock { value in
            value += 1
            return value
        }
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }

    package var writesMediaOnce: Bool { log.fresh }

    package func exists(_ path: String) -> Bool {
        // In a folder that held no site, a media file is there only if this
        // build wrote it (or is writing it). The file system answers, not a
        // set of every path written: that set grew with the archive (at 1M
        // posts, 129,755 paths, 16.6 MB, held until the build ended).
        // Not trusted by name where a first build may have stopped part
        // way: the caller writes them, and `write` compares; those this
        // build wrote or found whole are there (a set held only in such a
        // folder, for the rare build after one that stopped).
        if !log.trustsMedia, path.hasPrefix("media/") { return log.confirmed(path) }
        // One `access`, not a URL built and bridged.
        return access(prefix + path, F_OK) == 0
    }

    package func read(_ path: String) -> Data? {
        FileManager.default.contents(atPath: root.appendingPathComponent(path).path)
    }

    package func remove(_ path: String) throws(ArchiveError) {
        if unlink(prefix + path) != 0, errno != ENOENT {
            throw .outputUnwritable(path: prefix + path, reason: Self.lastError())
        }
    }

    package func files(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: prefix + folder)) ?? []).map { folder + "/" + $0 }
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

    package func remove(_ path: String) { _ = lock.withLock { storage.removeValue(forKey: path) } }

    package func files(in folder: String) -> [String] {
        lock.withLock {
            storage.keys.filter { $0.hasPrefix(folder + "/") && !$0.dropFirst(folder.count + 1).contains("/") }
        }
    }
}

/// What a `DiskPublisher` wrote and has not flushed yet, shared by its
/// copies, and whether its folder held no site when it was made.
private final class WriteLog: Sendable {
    let unflushed = Mutex<[String]?>([])
    let fresh: Bool
    /// Whether a media file there may be taken for done by its name: in a
    /// folder that held no site, or that holds the state of a finished build
    /// that may be trusted in this boot (`BuildState.Mark`).
    let trustsMedia: Bool
    /// Bytes written since the last early flush started, and the bound
    /// (nil: no early flush, the files are left to the kernel).
    private let unstarted = Mutex(0)
    private let earlyFlushBytes: Int?
    /// Whether an early flush is running, and how many were started.
    private let flushing = Atomic(false)
    let earlyFlushes = Atomic(0)

    /// The site's folder, whose file system an early flush flushes.
    private let folder: String
    /// Where media are not trusted by name: those this build wrote, or
    /// compared and found whole (a card shows a picture only if its file
    /// is there). Held only then, a first build into a folder that held a
    /// site's files (one that stopped part way): a path a media file.
    private let confirmedMedia = Mutex<Set<String>>([])

    func confirm(_ path: String) {
        guard !trustsMedia else { return }
        _ = confirmedMedia.withLock { $0.insert(path) }
    }

    func confirmed(_ path: String) -> Bool { confirmedMedia.withLock { $0.contains(path) } }

    init(folder: String, fresh: Bool, trustsMedia: Bool, earlyFlushBytes: Int?) {
        self.folder = folder
        self.fresh = fresh
        self.trustsMedia = trustsMedia
        self.earlyFlushBytes = earlyFlushBytes.map { max(1, $0) }
    }

    /// Notes `bytes` written into the folder by a build that writes many
    /// files, whose `flush()` is one `syncfs`. Left alone, the kernel starts
    /// on a build's pages only when they pass a tenth of the memory or are
    /// 30 s old, so that `syncfs` waited for the whole site at the end: 1.8–2.2 s
    /// for the 100k site's 750 MB, a fifth of the build, with the cores idle.
    /// Each `earlyFlushBytes`, a thread of its own starts the disk on what is
    /// written so far (`syncfs`, one at a time) while the build goes on; the
    /// last `flush()` still waits for everything, so nothing changes in what
    /// is durable when the build state is written. An early flush's failure
    /// is the last one's to report.
    func wrote(_ bytes: Int) {
        guard let earlyFlushBytes else { return }
        let due = unstarted.withLock { total -> Bool in
            total += bytes
            guard total >= earlyFlushBytes else { return false }
            total = 0
            return true
        }
        guard due, flushing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        earlyFlushes.add(1, ordering: .relaxed)
        Thread.detachNewThread { [self] in
            _ = DiskPublisher.syncFileSystem(of: folder)
            flushing.store(false, ordering: .releasing)
        }
    }
}

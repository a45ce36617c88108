import Foundation
import Synchronization

/// What a build read of images the store had no facts of, and the images
/// it made thumbnails of, on their way to the store. They are recorded
/// once, at the end of the build: until then the search index may hold the
/// store's writer, and no task waits for it.
///
/// Shared by every task of a build, unlike the rest of a `BuildRun`: it is
/// a cache, and no page depends on what it holds or in which order. At
/// most `limit` facts are kept in memory; beyond that they go to a
/// temporary file, unlinked as soon as it is made, so the build's memory
/// does not grow with the archive. Kept in a dictionary merged from every
/// task, at the peak of the 1M-post build (about 130,000 images) its tables
/// held 37.9 MB, beside the images' hashes that were its keys (heaptrack).
final class ImageFactsLog: Sendable {
    /// What the build learnt of one image: its facts (`nil`: no image
    /// could be read), and whether the store is to keep its thumbnails
    /// (`ArchiveStore.recordThumbnails`): the build made them, or found
    /// them in the folder and not in the store.
    struct Entry: Sendable, Equatable {
        var facts: ImageFacts?
        var thumbnailsToKeep = false
    }

    private struct State: ~Copyable {
        var recent: [String: Entry] = [:]
        /// The temporary file's descriptor (-1: none yet) and its length.
        var descriptor: Int32 = -1
        var spilled = 0
    }

    private let state = Mutex(State())
    let limit: Int

    init(limit: Int = 4096) { self.limit = max(1, limit) }

    deinit {
        state.withLock { if $0.descriptor >= 0 { close($0.descriptor) } }
    }

    /// The facts of `hash` read by this build, if they are still in memory
    /// (`.some(nil)`: no image could be read). An image spilled already is
    /// looked at again: that costs one probe, never a wrong answer.
    func facts(_ hash: String) -> ImageFacts?? { state.withLock { $0.recent[hash].map(\.facts) } }

    /// `thumbnailsToKeep`: the store is to keep the image's thumbnails
    /// (never taken back by a later `add` of the same image).
    func add(_ hash: String, _ facts: ImageFacts?, thumbnailsToKeep: Bool = false) {
        state.withLock { state in
            let made = thumbnailsToKeep || state.recent[hash]?.thumbnailsToKeep == true
            state.recent[hash] = Entry(facts: facts, thumbnailsToKeep: made)
            guard state.recent.count >= limit else { return }
            // When the file cannot be written they stay in memory: a cache
            // that grows is better than facts lost.
            if Self.append(Self.encoded(state.recent), to: &state) { state.recent.removeAll(keepingCapacity: true) }
        }
    }

    /// Hands every fact to `body`, at most `limit` at a time: those spilled
    /// first, then those in memory. A spill file that cannot be read back
    /// whole gives what it could (they are only a cache).
    /// An image spilled more than once (added again after it went to the
    /// file) is handed once a time it was spilled: recording it again is
    /// harmless.
    func drain(_ body: ([String: Entry]) throws(ArchiveError) -> Void) throws(ArchiveError) {
        let (descriptor, length) = state.withLock { ($0.descriptor, $0.spilled) }
        if descriptor >= 0 {
            var reader = Reader(descriptor: descriptor, length: length)
            var chunk: [String: Entry] = [:]
            while let (hash, entry) = reader.next() {
                let made = entry.thumbnailsToKeep || chunk[hash]?.thumbnailsToKeep == true
                chunk[hash] = Entry(facts: entry.facts, thumbnailsToKeep: made)
                if chunk.count >= limit {
                    try body(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            if !chunk.isEmpty { try body(chunk) }
        }
        let recent = state.withLock { $0.recent }
        if !recent.isEmpty { try body(recent) }
    }

    // MARK: The spill file

    /// A fact's record: the hash's length (4 bytes) and UTF-8, then 0 (no
    /// image), or 1 (2: its thumbnails are to be kept) and the width, height
    /// and frames (8 bytes each) and alpha (1 byte); numbers little-endian.
    static func encoded(_ facts: [String: Entry]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(facts.count * 96)
        func put<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        for (hash, entry) in facts {
            put(UInt32(hash.utf8.count))
            bytes.append(contentsOf: hash.utf8)
            guard let fact = entry.facts else {
                bytes.append(0)
                continue
            }
            bytes.append(entry.thumbnailsToKeep ? 2 : 1)
            put(Int64(fact.width))
            put(Int64(fact.height))
            put(Int64(fact.frames))
            bytes.append(fact.alpha ? 1 : 0)
        }
        return bytes
    }

    private static func append(_ bytes: [UInt8], to state: inout State) -> Bool {
        if state.descriptor < 0 {
            let directory = FileManager.default.temporaryDirectory.path
            var template = Array("\(directory)/bbsarchive-image-facts-XXXXXX".utf8CString)
            let descriptor = template.withUnsafeMutableBufferPointer { name -> Int32 in
                guard let path = name.baseAddress else { return -1 }
                let descriptor = mkstemp(path)
                // Unlinked at once: nothing is left behind, however the build ends.
                if descriptor >= 0 { unlink(path) }
                return descriptor
            }
            guard descriptor >= 0 else { return false }
            state.descriptor = descriptor
        }
        let descriptor = state.descriptor
        let start = state.spilled
        let written = bytes.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let count = pwrite(descriptor, base + offset, buffer.count - offset, off_t(start + offset))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        // A record written in part is not counted: the next one goes over it.
        if written { state.spilled += bytes.count }
        return written
    }

    /// Reads the spill file's records back, a block at a time.
    struct Reader {
        let descriptor: Int32
        let length: Int
        private var offset = 0
        private var buffer: [UInt8] = []
        private var position = 0

        init(descriptor: Int32, length: Int) {
            self.descriptor = descriptor
            self.length = length
        }

        private var ended = false

        /// The next record; nil at the end or at anything damaged, and
        /// after that.
        mutating func next() -> (String, Entry)? {
            guard !ended else { return nil }
            if let record = record() { return record }
            ended = true
            return nil
        }

        private mutating func record() -> (String, Entry)? {
            guard let count = integer(UInt32.self).map(Int.init), count <= 1 << 16, let hash = take(count),
                let flag = take(1)?.first
            else { return nil }
            let text = String(decoding: hash, as: UTF8.self)
            guard flag == 1 || flag == 2 else { return flag == 0 ? (text, Entry(facts: nil)) : nil }
            guard let width = integer(Int64.self), let height = integer(Int64.self), let frames = integer(Int64.self),
                let alpha = take(1)?.first
            else { return nil }
            let facts = ImageFacts(width: Int(width), height: Int(height), frames: Int(frames), alpha: alpha != 0)
            return (text, Entry(facts: facts, thumbnailsToKeep: flag == 2))
        }

        private mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard let bytes = take(MemoryLayout<T>.size) else { return nil }
            var value: T = 0
            withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
            return T(littleEndian: value)
        }

        /// The next `count` bytes, reading more of the file when needed.
        private mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            while buffer.count - position < count {
                guard offset < length else { return nil }
                let want = min(1 << 20, length - offset)
                var block = [UInt8](repeating: 0, count: want)
                let read = block.withUnsafeMutableBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return 0 }
                    return pread(descriptor, base, want, off_t(offset))
                }
                if read < 0, errno == EINTR { continue }
                guard read > 0 else { return nil }
                buffer.removeFirst(position)
                position = 0
                buffer.append(contentsOf: block[..<read])
                offset += read
            }
            defer { position += count }
            return buffer[position..<position + count]
        }
    }
}

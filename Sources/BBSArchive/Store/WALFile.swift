import Foundation

/// A store's `-wal` file read as SQLite's recovery reads it
/// (https://www.sqlite.org/walformat.html), to tell whether it holds
/// anything the store file lacks, where SQLite itself cannot read it: a
/// read-only folder without the `-shm` file SQLite would make.
///
/// The store keeps its WAL between runs (`ArchiveStore.keepWALFile`), and
/// the frames of a run's last writes stay valid in it after its closing
/// checkpoint has copied them into the store file: a WAL that is not empty
/// is the common case, a WAL with writes the file lacks (a run stopped
/// before that checkpoint) the rare one.
enum WALFile {
    /// Whether the store file at `path` is the whole store: the WAL beside
    /// it holds no committed frame, or the store file holds, byte for byte,
    /// the last committed version of every page the WAL holds, and is as
    /// long as the WAL's last commit says. A WAL that SQLite would read as
    /// holding nothing (no header, a header or frame that fails its
    /// checksum) adds nothing; one that cannot be read, or that SQLite would
    /// refuse (another version), is not known to add nothing.
    static func addsNothing(store path: String) -> Bool {
        guard let wal = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"), options: .alwaysMapped),
            let store = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        else { return false }
        return wal.withUnsafeBytes { wal in store.withUnsafeBytes { store in addsNothing(wal: wal, store: store) } }
    }

    static func addsNothing(wal: UnsafeRawBufferPointer, store: UnsafeRawBufferPointer) -> Bool {
        let headerSize = 32
        let frameHeaderSize = 24
        guard wal.count >= headerSize else { return true }
        let magic = bigEndian(wal, 0)
        guard magic & 0xFFFF_FFFE == 0x377F_0682 else { return true }
        // SQLite refuses a WAL of another version rather than read it as empty.
        guard bigEndian(wal, 4) == 3_007_000 else { return false }
        let pageSize = Int(bigEndian(wal, 8))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return true }
        // The checksums are sums of 32-bit words in the byte order the magic names.
        let wordsBigEndian = magic & 1 == 1
        var sums = checksum(wal, 0..<24, words: wordsBigEndian, from: (0, 0))
        guard sums == (bigEndian(wal, 24), bigEndian(wal, 28)) else { return true }
        let salts = (bigEndian(wal, 16), bigEndian(wal, 20))

        // Each page's last frame, of the frames up to the last commit.
        var committed: [UInt32: Int] = [:]
        var pending: [UInt32: Int] = [:]
        var pages = 0
        var frame = headerSize
        while frame + frameHeaderSize + pageSize <= wal.count {
            let page = bigEndian(wal, frame)
            guard page != 0, (bigEndian(wal, frame + 8), bigEndian(wal, frame + 12)) == salts else { break }
            sums = checksum(wal, frame..<(frame + 8), words: wordsBigEndian, from: sums)
            let data = frame + frameHeaderSize
            sums = checksum(wal, data..<(data + pageSize), words: wordsBigEndian, from: sums)
            guard sums == (bigEndian(wal, frame + 16), bigEndian(wal, frame + 20)) else { break }
            pending[page] = data
            // A commit frame: the store's size in pages after its transaction.
            let size = bigEndian(wal, frame + 4)
            if size != 0 {
                committed.merge(pending) { _, later in later }
                pending = [:]
                pages = Int(size)
            }
            frame = data + pageSize
        }
        guard !committed.isEmpty else { return true }
        guard store.count >= 100, store.count == pages * pageSize, let storeBytes = store.baseAddress,
            let walBytes = wal.baseAddress
        else { return false }
        // The store's page size, in its header: 1 stands for 65536.
        let stored = Int(store[16]) << 8 | Int(store[17])
        guard (stored == 1 ? 65536 : stored) == pageSize else { return false }
        for (page, data) in committed {
            let offset = (Int(page) - 1) * pageSize
            guard offset + pageSize <= store.count, memcmp(storeBytes + offset, walBytes + data, pageSize) == 0
            else { return false }
        }
        return true
    }

    /// SQLite's WAL checksum of `range` of `bytes`, continued from `sums`.
    private static func checksum(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, words bigEndianWords: Bool,
        from sums: (UInt32, UInt32)
    ) -> (UInt32, UInt32) {
        var (first, second) = sums
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            let a = bigEndianWords ? bigEndian(bytes, at) : littleEndian(bytes, at)
            let b = bigEndianWords ? bigEndian(bytes, at + 4) : littleEndian(bytes, at + 4)
            first = first &+ a &+ second
            second = second &+ b &+ first
            at += 8
        }
        return (first, second)
    }

    private static func bigEndian(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    private static func littleEndian(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(bytes[at + 3]) << 24 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at])
    }
}

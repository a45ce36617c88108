import Foundation

/// A 64-bit hash of bytes that is not SHA-256: for telling a change from no
/// change where nobody gains by forging a match, at 8 bytes a step. The
/// search index's row hashes (`SearchIndexWriter.rowHash`) and the build's
/// fingerprint of the template files use it; SHA-256 here costs 40 to 110
/// instructions a byte without libcrypto (12.9 M of a one-reply build for
/// 117 kB of templates, against 0.4 M for this).
enum ByteHash {
    /// A 64-bit hash of bytes (multiply, rotate, xor-shift mixing of 8-byte
    /// little-endian words, the last one padded with zeros; the length mixed in).
    static func hash64(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let k1: UInt64 = 0x87C3_7B91_1142_53D5
        let k2: UInt64 = 0x4CF5_AD43_2745_937F
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ (UInt64(bytes.count) &* k2)
        func mix(_ word: UInt64) {
            var w = word &* k1
            w = (w << 31) | (w >> 33)
            hash ^= w &* k2
            hash = ((hash << 27) | (hash >> 37)) &* 5 &+ 0x52DC_E729
        }
        let raw = UnsafeRawBufferPointer(bytes)
        var at = 0
        while at + 8 <= bytes.count {
            mix(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
            at += 8
        }
        var last: UInt64 = 0
        var shift: UInt64 = 0
        while at < bytes.count {
            last |= UInt64(bytes[at]) << shift
            shift += 8
            at += 1
        }
        mix(last)
        hash ^= hash >> 33
        hash = hash &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash = hash &* 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash
    }

    /// The hash of `bytes` as 16 hex digits.
    static func hex(_ bytes: UnsafeBufferPointer<UInt8>) -> String { hex(hash64(bytes)) }

    /// A hash as 16 hex digits (as `hex(_:)` spells the hash of bytes).
    static func hex(_ hash: UInt64) -> String { String(hash, radix: 16).leftPadded(to: 16) }

    static func hex(_ data: Data) -> String {
        data.withUnsafeBytes { raw in hex(raw.bindMemory(to: UInt8.self)) }
    }
}

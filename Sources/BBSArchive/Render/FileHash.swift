import Foundation

/// A 128-bit hash of a file's bytes, for the build's fingerprint of the
/// templates and assets: eight bytes a step, about 2 instructions a byte
/// where SHA-256 here takes 40 to 110 (libcrypto is not loaded for so
/// little). A build after one reply hashed its 117 kB of templates with
/// SHA-256 in 12.9 M of its 258 M instructions.
///
/// Only for files the archivist chose (the templates folder), never for
/// what the forum sent: it tells an edit from no edit, and an edit made to
/// collide with another is of no use to anyone.
enum FileHash {
    static func hex(_ data: Data) -> String {
        var a: UInt64 = 0x9E37_79B9_7F4A_7C15
        var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                a = (a ^ word) &* 0x0000_0100_0000_01B3
                b = rotated(b ^ word, 29) &* 0xFF51_AFD7_ED55_8CCD
                offset += 8
            }
            var last: UInt64 = 0
            for (shift, index) in (offset..<bytes.count).enumerated() {
                last |= UInt64(bytes[index]) << UInt64(8 * shift)
            }
            a = (a ^ last) &* 0x0000_0100_0000_01B3
            b = rotated(b ^ last, 29) &* 0xFF51_AFD7_ED55_8CCD
        }
        let length = UInt64(data.count)
        let high = mixed(a ^ length ^ rotated(b, 32))
        let low = mixed(b &+ length &+ rotated(a, 17))
        return hex(high) + hex(low)
    }

    private static func rotated(_ x: UInt64, _ n: UInt64) -> UInt64 { (x << n) | (x >> (64 - n)) }

    /// The last mixing step of MurmurHash3's 64-bit hash: every bit of the
    /// result depends on every bit of `x`.
    private static func mixed(_ x: UInt64) -> UInt64 {
        var x = x
        x ^= x >> 33
        x = x &* 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x = x &* 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

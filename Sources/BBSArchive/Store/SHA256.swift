import CSHA256
import Foundation

/// SHA-256 (FIPS 180-4), for content-addressed names of captures and media,
/// and the keys that tell a build what changed.
///
/// By the system's libcrypto where one can be loaded (`bbs_sha256`: the
/// CPU's SHA instructions, about 1.3 GB/s here), else by the portable code
/// below (about 40 instructions a byte): no crypto package in the build.
/// The two give the same digest (SHA256Tests compares them).
enum SHA256 {
    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in digest(data) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The digest of `data`, read in place: whole 64-byte blocks straight
    /// from its bytes, only the last one or two (with the padding and the
    /// length) from a small buffer, and every table through a pointer. The
    /// earlier version copied the data into an array, padded it by appending
    /// byte by byte, and checked bounds at every word: a build after one
    /// reply spent 5.4 % of its instructions here (the templates it
    /// fingerprints, the hot pages' keys), about 20 instructions a byte.
    static func digest(_ data: Data) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        let status = digest.withUnsafeMutableBufferPointer { out in
            data.withUnsafeBytes { bytes in bbs_sha256(bytes.baseAddress, bytes.count, out.baseAddress) }
        }
        return status == 0 ? digest : portableDigest(data)
    }

    /// The digest by the code here, whatever libcrypto there is.
    static func portableDigest(_ data: Data) -> [UInt8] {
        var h: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
        let length = data.count
        // The bytes after the last whole block, 0x80, zeros and the length
        // in bits (big-endian): one block, or two when fewer than 9 bytes are left.
        var tail = [UInt8](repeating: 0, count: 128)
        let whole = length - length % 64
        h.withUnsafeMutableBufferPointer { h in
            k.withUnsafeBufferPointer { k in
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                    data.withUnsafeBytes { bytes in
                        if let base = bytes.baseAddress {
                            for offset in stride(from: 0, to: whole, by: 64) { compress(base + offset, w, h, k) }
                        }
                        for i in whole..<length { tail[i - whole] = bytes[i] }
                    }
                    let rest = length - whole
                    tail[rest] = 0x80
                    let blocks = rest < 56 ? 1 : 2
                    let bits = UInt64(length) &* 8
                    for i in 0..<8 { tail[blocks * 64 - 1 - i] = UInt8(truncatingIfNeeded: bits >> UInt64(8 * i)) }
                    tail.withUnsafeBytes { tail in
                        guard let base = tail.baseAddress else { return }
                        for block in 0..<blocks { compress(base + block * 64, w, h, k) }
                    }
                }
            }
        }
        var digest = [UInt8]()
        digest.reserveCapacity(32)
        for word in h {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> shift))
            }
        }
        return digest
    }

    /// One 64-byte block at `block` into the state `h`; `w`: room for
    /// the schedule's 64 words.
    @inline(__always)
    private static func compress(
        _ block: UnsafeRawPointer, _ w: UnsafeMutableBufferPointer<UInt32>, _ h: UnsafeMutableBufferPointer<UInt32>,
        _ k: UnsafeBufferPointer<UInt32>
    ) {
        for i in 0..<16 { w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)) }
        for i in 16..<64 {
            let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
        for i in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let choice = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ choice &+ k[i] &+ w[i]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ majority
            (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
        h[0] &+= a
        h[1] &+= b
        h[2] &+= c
        h[3] &+= d
        h[4] &+= e
        h[5] &+= f
        h[6] &+= g
        h[7] &+= hh
    }

    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

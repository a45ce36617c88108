import CSHA256
import Foundation
import Testing

@testable import BBSArchive

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func matchesTheStandardVectors(_ input: String, _ expected: String) {
        #expect(SHA256.hex(Data(input.utf8)) == expected)
    }

    @Test func hashesMultiBlockInput() {
        let million = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hex(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths around the padding's edges (55 bytes and 56, where the
    /// length no longer fits in the last block) and the blocks' (63, 64,
    /// 65, 127, 128, 129): byte `i` is `(7i + 3) mod 256`, digests by `sha256sum`.
    @Test(arguments: [
        (55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"),
        (56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"),
        (57, "35df609437dcfea3279283ab79fd554e2bf78f8f7ae2de532d8ee300b09e8f73"),
        (63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"),
        (64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"),
        (65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"),
        (119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"),
        (120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"),
        (127, "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07"),
        (128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"),
        (129, "307f8fc2c1622b92762e818d39a185d4d667ad49a4b07ceae1f4afa008a93ec4"),
        (1000, "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371"),
    ])
    func matchesAtEveryEdgeOfTheBlocks(_ count: Int, _ expected: String) {
        #expect(SHA256.hex(Self.pattern(count)) == expected)
    }

    /// A slice of a larger `Data` (its indices do not start at 0).
    @Test func hashesASliceOfData() {
        let slice = Self.pattern(200)[5..<150]
        #expect(slice.startIndex == 5)
        #expect(SHA256.hex(slice) == "1a595d40333d676306dba376c87119240eaccf293a30954c9edf1add6edc8918")
    }

    /// The vectors above go through libcrypto on this machine (libssl3 is
    /// there with curl); the portable code must give the same digests, at
    /// every length up to three blocks and for a slice.
    @Test func thePortableCodeGivesLibcryptosDigests() {
        var out = [UInt8](repeating: 0, count: 32)
        // An input this large loads libcrypto (smaller ones may be left to the portable code).
        let large = Data(count: Int(BBS_SHA256_LOAD_FROM))
        _ = large.withUnsafeBytes { bytes in
            out.withUnsafeMutableBufferPointer { bbs_sha256(bytes.baseAddress, bytes.count, $0.baseAddress) }
        }
        let loaded = out.withUnsafeMutableBufferPointer { bbs_sha256(nil, 0, $0.baseAddress) } == 0
        #expect(
            loaded || ProcessInfo.processInfo.environment["BBSARCHIVE_PORTABLE_SHA256"] != nil,
            "libcrypto was not loaded: the tests above checked only the portable code")
        #expect(!loaded || out == SHA256.portableDigest(Data()))
        for count in 0...200 {
            let data = Self.pattern(count)
            #expect(SHA256.portableDigest(data) == SHA256.digest(data), "\(count) bytes")
        }
        let slice = Self.pattern(300)[7..<290]
        #expect(SHA256.portableDigest(slice) == SHA256.digest(slice))
        #expect(
            SHA256.portableDigest(Data("abc".utf8)).map { String(format: "%02x", $0) }.joined().hasPrefix("ba7816bf"))
    }

    static func pattern(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
    }
}

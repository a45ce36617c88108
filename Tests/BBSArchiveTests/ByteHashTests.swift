import Foundation
import Testing

@testable import BBSArchive

/// The fingerprint's hash of a template file tells any edit from none.
@Suite struct ByteHashTests {
    /// Every one-byte change, every length and every swap of two bytes of
    /// a 100-byte file gives a hash of its own; the same bytes, the same hash.
    @Test func everySmallEditChangesTheHash() {
        let file = Data((0..<100).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        var seen: [String: String] = [:]
        func add(_ data: Data, _ what: String) {
            let hash = ByteHash.hex(data)
            #expect(hash.count == 16 && hash.allSatisfy(\.isHexDigit), "\(what)")
            #expect(ByteHash.hex(Data(data)) == hash, "\(what) again")
            if let other = seen[hash] { Issue.record("\(what) and \(other) both hash to \(hash)") }
            seen[hash] = what
        }
        for length in 0...file.count { add(file.prefix(length), "length \(length)") }
        for index in file.indices {
            for bit in 0..<8 {
                var edited = file
                edited[index] ^= 1 << UInt8(bit)
                add(edited, "bit \(bit) of byte \(index)")
            }
        }
        for index in file.indices.dropLast() {
            var swapped = file
            swapped.swapAt(index, index + 1)
            add(swapped, "bytes \(index) and \(index + 1) swapped")
        }
        // A longer file made of zeros: its length alone tells it apart.
        add(Data(count: 8), "8 zeros")
        add(Data(count: 16), "16 zeros")
        #expect(seen.count == 101 + 800 + 99 + 2)
    }
}

import Foundation
import Testing

@testable import BBSArchive

@Suite struct DeflateTests {
    @Test func roundTripsText() throws {
        let text = Data(String(repeating: "水木社区 SMTH <li class=\"hla\">", count: 200).utf8)
        let packed = try #require(Deflate.compress(text))
        #expect(packed.count < text.count / 4)
        #expect(Deflate.decompress(packed, size: text.count) == text)
        #expect(Deflate.decompress(packed.prefix(10), size: text.count) == nil)
    }

    @Test func leavesCompressedFormatsAlone() {
        #expect(!Deflate.isCompressible(Data([0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 0, count: 300))))
        #expect(Deflate.isCompressible(Data(String(repeating: "a", count: 300).utf8)))
    }
}

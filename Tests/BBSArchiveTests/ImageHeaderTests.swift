import Foundation
import Testing

@testable import BBSArchive
@testable import SMTHReplica

/// The PNG and JPEG headers read without libvips say what libvips says of
/// the same bytes; anything they cannot say for sure is left to libvips.
@Suite struct ImageHeaderTests {
    /// A PNG of `width`×`height` pixels of colour type `colour` (8 bits a
    /// sample, 16 with `wide`), with `extra` chunks before its data.
    static func png(
        width: Int, height: Int, colour: UInt8, wide: Bool = false, extra: [(String, [UInt8])] = []
    ) -> Data {
        let channels: [UInt8: Int] = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4]
        let rowBytes = width * (channels[colour] ?? 1) * (wide ? 2 : 1)
        var rows: [UInt8] = []
        for row in 0..<height {
            rows.append(0)
            rows += (0..<rowBytes).map { UInt8(truncatingIfNeeded: $0 * 7 + row * 3) & (colour == 3 ? 1 : 0xFF) }
        }
        func big(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let named = Array(type.utf8) + body
            return big(body.count) + named + big(Int(PNGEncoder.crc32(named)))
        }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", big(width) + big(height) + [wide ? 16 : 8, colour, 0, 0, 0])
        if colour == 3 { bytes += chunk("PLTE", [200, 30, 30, 30, 200, 30]) }
        for (type, body) in extra { bytes += chunk(type, body) }
        bytes += chunk("IDAT", PNGEncoder.zlibStored(rows))
        bytes += chunk("IEND", [])
        return Data(bytes)
    }

    @Test func pngAndJPEGHeadersSayWhatLibvipsSays() throws {
        try #require(Thumbnailer.started, "libvips is needed to compare with (make setup installs it)")
        var images: [(String, Data)] = [
            ("grey", Self.png(width: 33, height: 7, colour: 0)),
            ("grey, tRNS", Self.png(width: 33, height: 7, colour: 0, extra: [("tRNS", [0, 9])])),
            ("rgb", Self.png(width: 640, height: 20, colour: 2)),
            ("rgb 16-bit", Self.png(width: 20, height: 640, colour: 2, wide: true)),
            ("rgb, tRNS", Self.png(width: 5, height: 5, colour: 2, extra: [("tRNS", [0, 1, 0, 2, 0, 3])])),
            ("palette", Self.png(width: 17, height: 3, colour: 3)),
            ("palette, tRNS", Self.png(width: 17, height: 3, colour: 3, extra: [("tRNS", [0, 255])])),
            ("grey and alpha", Self.png(width: 9, height: 9, colour: 4)),
            ("rgba", Self.png(width: 1200, height: 2, colour: 6)),
            ("rgb, text chunk", Self.png(width: 8, height: 8, colour: 2, extra: [("tEXt", Array("a\u{0}b".utf8))])),
        ]
        for image in PhotoBoard.images where image.name != PhotoBoard.brokenName {
            images.append((image.name, image.bytes))
        }
        // JPEGs as libvips writes them (the build's own thumbnails).
        for (name, data) in images.prefix(12) {
            guard let jpeg = Thumbnailer.thumbnail(data, width: 480, format: "jpg") else { continue }
            images.append(("\(name) as JPEG", jpeg))
        }
        #expect(images.count > 20)
        for (name, data) in images {
            let read = ImageHeader.facts(data)
            #expect(read != nil, "\(name): not read")
            #expect(read == Thumbnailer.probe(data), "\(name): \(String(describing: read))")
        }
    }

    /// What the header cannot say for sure is libvips's to say: cut short,
    /// out of order, a size of 0 or past `maximumSide`, a chunk running
    /// past the end, other kinds of JPEG, other formats.
    @Test func anythingUncertainIsLeftToLibvips() throws {
        let good = Self.png(width: 10, height: 10, colour: 2)
        var zeroWide = good
        zeroWide.replaceSubrange(16..<20, with: [0, 0, 0, 0])
        var tooWide = good
        tooWide.replaceSubrange(16..<20, with: [0, 0x0F, 0xFF, 0xFF])
        var badDepth = good
        badDepth[24] = 3
        var longChunk = Self.png(width: 10, height: 10, colour: 2, extra: [("tEXt", [1, 2, 3])])
        longChunk.replaceSubrange(33..<37, with: [0x7F, 0, 0, 0])
        // A JPEG's start and a frame header of another kind (lossless, SOF3),
        // 12 bits, or four components (CMYK).
        func jpeg(marker: UInt8, precision: UInt8 = 8, components: UInt8 = 3) -> Data {
            Data(
                [0xFF, 0xD8, 0xFF, marker, 0, 17, precision, 0, 9, 0, 16, components] + [UInt8](repeating: 1, count: 9))
        }
        #expect(ImageHeader.facts(jpeg(marker: 0xC0)) == ImageFacts(width: 16, height: 9))
        #expect(ImageHeader.facts(jpeg(marker: 0xC2)) == ImageFacts(width: 16, height: 9))
        let uncertain: [(String, Data)] = [
            ("empty", Data()), ("signature alone", good.prefix(8)), ("header cut", good.prefix(30)),
            ("no data chunk", good.prefix(33)), ("width 0", zeroWide), ("too wide", tooWide),
            ("bit depth 3", badDepth), ("chunk past the end", longChunk), ("lossless JPEG", jpeg(marker: 0xC3)),
            ("12-bit JPEG", jpeg(marker: 0xC0, precision: 12)), ("CMYK JPEG", jpeg(marker: 0xC0, components: 4)),
            ("JPEG cut", jpeg(marker: 0xC0).prefix(8)), ("GIF", Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8)),
            ("JPEG with scan first", Data([0xFF, 0xD8, 0xFF, 0xDA, 0, 2])),
        ]
        for (name, data) in uncertain { #expect(ImageHeader.facts(data) == nil, "\(name)") }
    }
}

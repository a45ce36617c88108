import Foundation

/// An image's facts read from the first bytes of a PNG or JPEG, as libvips
/// reports them (`Thumbnailer.probe`), without libvips: a build's first
/// build of a store probed every image with it, about 150 µs each (the
/// 100k replica's 23,680 images: 3.5 s of user CPU, 29 % of that build's).
///
/// Only what the header says for sure: anything else (another format, a
/// header cut short or out of order, a size of 0) is `nil`, and libvips
/// is asked. It reads the header as libvips does: a PNG's size from `IHDR`,
/// with alpha when its colour type has it or a `tRNS` chunk comes before
/// the image data, and one frame (libvips reads no APNG animation); a
/// JPEG's size from its first frame header, with no alpha and one frame.
enum ImageHeader {
    static func facts(_ bytes: Data) -> ImageFacts? {
        bytes.withUnsafeBytes { raw in
            let data = raw.bindMemory(to: UInt8.self)
            return png(data) ?? jpeg(data)
        }
    }

    /// A side past this is left to libvips, which refuses some.
    static let maximumSide = 100_000

    /// The bit depths of each PNG colour type the format allows (libvips refuses others).
    private static let depths: [UInt8: [UInt8]] = [
        0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
    ]

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private static func big32(_ data: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int {
        Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3])
    }

    private static func big16(_ data: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int {
        Int(data[at]) << 8 | Int(data[at + 1])
    }

    /// `IHDR` first (13 bytes: width, height, depth, colour type, …), then
    /// the chunks up to `IDAT`, for `tRNS`.
    private static func png(_ data: UnsafeBufferPointer<UInt8>) -> ImageFacts? {
        guard data.count >= 33, data.prefix(8).elementsEqual(pngSignature), big32(data, 8) == 13,
            data[12] == 0x49, data[13] == 0x48, data[14] == 0x44, data[15] == 0x52
        else { return nil }
        let width = big32(data, 16)
        let height = big32(data, 20)
        let depth = data[24]
        let colour = data[25]
        guard (1...maximumSide).contains(width), (1...maximumSide).contains(height),
            depths[colour]?.contains(depth) == true, data[26] == 0, data[27] == 0, data[28] <= 1
        else { return nil }
        var alpha = colour == 4 || colour == 6
        var at = 33
        while !alpha {
            // A chunk: its length, type, data and CRC; the header must reach
            // the image data whole, or libvips decides.
            guard at + 8 <= data.count else { return nil }
            let length = big32(data, at)
            let type = (data[at + 4], data[at + 5], data[at + 6], data[at + 7])
            if type == (0x49, 0x44, 0x41, 0x54) { break }  // IDAT
            if type == (0x74, 0x52, 0x4E, 0x53) { alpha = true }  // tRNS
            guard length <= Int(Int32.max), at + 12 + length <= data.count else { return nil }
            at += 12 + length
        }
        return ImageFacts(width: width, height: height, frames: 1, alpha: alpha)
    }

    /// The markers up to the first frame header, whose height and width it
    /// gives: only a baseline, extended or progressive one of 8 bits and
    /// one or three components (other kinds, CMYK among them, are left to
    /// libvips, which reads some and not others).
    private static func jpeg(_ data: UnsafeBufferPointer<UInt8>) -> ImageFacts? {
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        var at = 2
        while at + 4 <= data.count {
            guard data[at] == 0xFF else { return nil }
            let marker = data[at + 1]
            // Fill bytes before a marker.
            if marker == 0xFF {
                at += 1
                continue
            }
            // Markers without a length (TEM, RST0–7); a second start, an end
            // or a scan before any frame header is left to libvips.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                at += 2
                continue
            }
            if marker == 0xD8 || marker == 0xD9 || marker == 0xDA { return nil }
            let length = big16(data, at + 2)
            guard length >= 2, at + 2 + length <= data.count else { return nil }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard marker <= 0xC2, length >= 8, data[at + 4] == 8 else { return nil }
                let height = big16(data, at + 5)
                let width = big16(data, at + 7)
                let components = data[at + 9]
                guard width > 0, height > 0, components == 1 || components == 3 else { return nil }
                return ImageFacts(width: width, height: height, frames: 1, alpha: false)
            }
            at += 2 + length
        }
        return nil
    }
}

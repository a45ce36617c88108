import Foundation

/// Writes truecolour PNG files without a compression library: the pixel rows
/// go into zlib "stored" (uncompressed) deflate blocks. Files are larger than
/// a real encoder's, which is harmless for a replica and keeps the encoder a
/// few dozen lines that need nothing outside Foundation.
enum PNGEncoder {
    /// Encodes `width`×`height` RGB pixels, `rgb` holding 3 bytes a pixel, row by row.
    /// Returns nil when the sizes don't match.
    static func encodeRGB(width: Int, height: Int, rgb: [UInt8]) -> Data? {
        guard width > 0, height > 0, rgb.count == width * height * 3 else { return nil }

        // Each scanline is prefixed with its filter type; 0 = None.
        let rowBytes = width * 3
        var raw = [UInt8]()
        raw.reserveCapacity(height * (rowBytes + 1))
        for row in 0..<height {
            raw.append(0)
            raw.append(contentsOf: rgb[(row * rowBytes)..<((row + 1) * rowBytes)])
        }

        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

        var header = [UInt8]()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        // Bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace.
        header.append(contentsOf: [8, 2, 0, 0, 0])
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", zlibStored(raw), to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// A zlib stream holding `data` in stored deflate blocks (RFC 1950/1951).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        // CMF 0x78: deflate with a 32K window; FLG 0x01 makes CMF*256+FLG a
        // multiple of 31 as the header check demands.
        var out: [UInt8] = [0x78, 0x01]
        out.reserveCapacity(data.count + data.count / 65_535 * 5 + 11)
        var start = 0
        repeat {
            let length = min(65_535, data.count - start)
            let isLast = start + length >= data.count
            // Stored blocks start byte-aligned: BFINAL bit, BTYPE 00, padding.
            out.append(isLast ? 1 : 0)
            let len = UInt16(length)
            out.append(UInt8(len & 0xFF))
            out.append(UInt8(len >> 8))
            out.append(UInt8(~len & 0xFF))
            out.append(UInt8(~len >> 8))
            out.append(contentsOf: data[start..<(start + length)])
            start += length
        } while start < data.count
        out.appendBigEndian(adler32(data))
        return out
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        // 5552 is the largest run after which the sums cannot overflow 32 bits.
        var index = 0
        while index < data.count {
            let end = min(index + 5552, data.count)
            while index < end {
                a &+= UInt32(data[index])
                b &+= a
                index += 1
            }
            a %= 65_521
            b %= 65_521
        }
        return (b << 16) | a
    }

    static func crc32<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The reflected CRC-32 (polynomial 0xEDB88320) that PNG chunks use.
    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 {
            c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1
        }
        return c
    }

    private static func appendChunk(_ type: String, _ body: [UInt8], to png: inout Data) {
        var chunk = [UInt8]()
        chunk.reserveCapacity(body.count + 12)
        chunk.appendBigEndian(UInt32(body.count))
        let typeBytes = Array(type.utf8)
        chunk.append(contentsOf: typeBytes)
        chunk.append(contentsOf: body)
        // The CRC covers the type and the data, not the length.
        chunk.appendBigEndian(crc32(chunk[4...]))
        png.append(contentsOf: chunk)
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}

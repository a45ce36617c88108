import CZlib
import Foundation

/// zlib compression for stored page bodies: HTML shrinks several times,
/// and the raw captures are most of a store's size.
enum Deflate {
    static func compress(_ data: Data) -> Data? {
        guard !data.isEmpty, data.count < Int(UInt32.max) else { return nil }
        var length = compressBound(uLong(data.count))
        var output = Data(count: Int(length))
        let status = output.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in
                compress2(
                    out.bindMemory(to: Bytef.self).baseAddress, &length,
                    input.bindMemory(to: Bytef.self).baseAddress, uLong(data.count), 6)
            }
        }
        guard status == Z_OK else { return nil }
        output.count = Int(length)
        return output
    }

    /// Inflates `data` into exactly `size` bytes; `nil` if it is damaged.
    static func decompress(_ data: Data, size: Int) -> Data? {
        guard size > 0 else { return Data() }
        var length = uLong(size)
        var output = Data(count: size)
        let status = output.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in
                uncompress(
                    out.bindMemory(to: Bytef.self).baseAddress, &length,
                    input.bindMemory(to: Bytef.self).baseAddress, uLong(data.count))
            }
        }
        guard status == Z_OK, Int(length) == size else { return nil }
        return output
    }

    /// Whether compressing is worth trying: not for formats that already are
    /// compressed (PNG, JPEG, GIF, WebP, ZIP, gzip).
    static func isCompressible(_ data: Data) -> Bool {
        let magic: [[UInt8]] = [
            [0x89, 0x50, 0x4E, 0x47], [0xFF, 0xD8, 0xFF], [0x47, 0x49, 0x46], [0x52, 0x49, 0x46, 0x46],
            [0x50, 0x4B, 0x03, 0x04], [0x1F, 0x8B],
        ]
        return data.count >= 256 && !magic.contains { data.starts(with: $0) }
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text to GBK bytes, as nForum sends its pages. The encoder is GB18030, the
/// superset of GBK that agrees with it byte for byte on every character GBK
/// has and gives four-byte codes to the rest: that is what the real site's
/// pages hold (declared GBK or even gb2312, with characters beyond), and it
/// means no character can make a page fail to encode.
enum GBKEncoding {
    /// The bytes of `text` in GB18030. Should the C library refuse a
    /// character all the same, it becomes `?` rather than an error.
    static func encode(_ text: String) -> Data {
        var input = Array(text.utf8)
        guard !input.isEmpty else { return Data() }
        // A pure ASCII text is its own encoding; most of a page's markup is.
        if input.allSatisfy({ $0 < 0x80 }) { return Data(input) }

        let converter = iconv_open("GB18030", "UTF-8")
        // iconv_open reports failure as (iconv_t)-1.
        guard let converter, converter != iconv_t(bitPattern: Int(-1)) else {
            return Data(String(text.unicodeScalars.map { $0.isASCII ? Character($0) : "?" }).utf8)
        }
        defer { iconv_close(converter) }

        // A character takes at most four bytes in GB18030 and at least two in
        // UTF-8 once it is beyond ASCII, so twice the input always fits.
        var output = [UInt8](repeating: 0, count: input.count * 2 + 16)
        var written = 0
        input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                guard let inBase = inBuffer.baseAddress, let outBase = outBuffer.baseAddress else { return }
                var inOffset = 0
                while inOffset < inBuffer.count {
                    var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBase + inOffset)
                        .assumingMemoryBound(to: CChar.self)
                    var inLeft = inBuffer.count - inOffset
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBase + written)
                        .assumingMemoryBound(to: CChar.self)
                    var outLeft = outBuffer.count - written
                    let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                    inOffset = inBuffer.count - inLeft
                    written = outBuffer.count - outLeft
                    if result != iconvError { break }
                    // Skip the character the converter refused and write `?`.
                    guard inOffset < inBuffer.count, written < outBuffer.count else { break }
                    outBase[written] = UInt8(ascii: "?")
                    written += 1
                    inOffset += max(1, utf8Length(inBase[inOffset]))
                }
            }
        }
        return Data(output.prefix(written))
    }

    /// iconv reports an error as (size_t)-1.
    private static let iconvError = size_t.max

    /// How many bytes the UTF-8 sequence starting with `lead` takes.
    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...: 4
        case 0xE0...: 3
        case 0xC0...: 2
        default: 1
        }
    }
}

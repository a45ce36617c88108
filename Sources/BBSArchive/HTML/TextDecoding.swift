import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns a page's bytes into UTF-8 with replacement: every byte that does
/// not decode becomes U+FFFD and decoding goes on, so that one bad byte
/// never loses a page (libxml2 stops at its first conversion error).
enum TextDecoding {
    /// `data` in `encoding` (an iconv name) as UTF-8 bytes. UTF-8 input is
    /// repaired by the standard library; anything else goes through iconv
    /// with a manual replacement loop. An encoding iconv does not know is
    /// read as GB18030 (SMTH's family), and failing that as UTF-8.
    /// `knownValid`: the caller has found `data` to be valid UTF-8 already.
    static func utf8(_ data: Data, from encoding: String, knownValid: Bool = false) -> Data {
        let label = encoding.uppercased()
        if label == "UTF-8" || label == "UTF8" {
            return knownValid || TextEncodingDetector.isValidUTF8(data)
                ? data : Data(String(decoding: data, as: UTF8.self).utf8)
        }
        if let converted = convert(data, from: encoding) ?? convert(data, from: "GB18030") { return converted }
        return Data(String(decoding: data, as: UTF8.self).utf8)
    }

    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Opened converters kept for the next page: `iconv_open` costs about
    /// as much as converting a page.
    private static let converters = ConverterPool()

    /// Idle iconv converters to UTF-8, by source encoding; each is used by
    /// one caller at a time and reset before it is handed out again.
    private final class ConverterPool: @unchecked Sendable {
        private let lock = NSLock()
        private var idle: [String: [iconv_t]] = [:]

        /// An idle converter from `encoding`, or a new one; `nil` when
        /// iconv does not know the encoding.
        func take(_ encoding: String) -> iconv_t? {
            let kept = lock.withLock { idle[encoding]?.popLast() }
            if let kept { return kept }
            let converter = iconv_open("UTF-8", encoding)
            guard let converter, converter != iconv_t(bitPattern: -1) else { return nil }
            return converter
        }

        /// Back to the pool in its initial state (a few per encoding at most).
        func give(_ converter: iconv_t, _ encoding: String) {
            _ = iconv(converter, nil, nil, nil, nil)
            let kept = lock.withLock {
                guard idle[encoding, default: []].count < 8 else { return false }
                idle[encoding, default: []].append(converter)
                return true
            }
            if !kept { iconv_close(converter) }
        }
    }

    private static func convert(_ data: Data, from encoding: String) -> Data? {
        guard let converter = converters.take(encoding) else { return nil }
        let label = encoding.uppercased()
        let gbFamily = label.hasPrefix("GB") || label == "CP936"
        defer { converters.give(converter, encoding) }
        // Bytes, made into `Data` once at the end; a chunk no bigger than a
        // page needs (GB18030 takes at most twice its bytes in UTF-8).
        var output: [UInt8] = []
        output.reserveCapacity(data.count * 2 + 16)
        var chunk = [CChar](repeating: 0, count: min(64 * 1024, data.count * 2 + 16))
        var input = [CChar](repeating: 0, count: data.count)
        data.withUnsafeBytes { raw in
            input.withUnsafeMutableBytes { $0.copyMemory(from: raw) }
        }
        input.withUnsafeMutableBufferPointer { inBuffer in
            guard var inPointer = inBuffer.baseAddress else { return }
            var inLeft = inBuffer.count
            while inLeft > 0 {
                let (result, code, produced) = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    var outPointer = outBuffer.baseAddress
                    var outLeft = outBuffer.count
                    var inOptional: UnsafeMutablePointer<CChar>? = inPointer
                    let result = iconv(converter, &inOptional, &inLeft, &outPointer, &outLeft)
                    let code = errno
                    if let advanced = inOptional { inPointer = advanced }
                    return (result, code, outBuffer.count - outLeft)
                }
                chunk.withUnsafeBytes { output.append(contentsOf: $0.prefix(produced)) }
                if result != -1 { break }
                switch code {
                case E2BIG:
                    continue  // the chunk is full: write it out and go on
                case EILSEQ:
                    // A byte that starts no character: replace it, skip it.
                    // In the GB family a lone 0x80 is the euro sign, as
                    // browsers read and write it (the WHATWG gbk encoder
                    // writes € so; GB18030 proper has it elsewhere, and
                    // iconv refuses the byte).
                    let euro = gbFamily && UInt8(bitPattern: inPointer.pointee) == 0x80
                    output.append(contentsOf: euro ? [0xE2, 0x82, 0xAC] : replacement)
                    inPointer += 1
                    inLeft -= 1
                case EINVAL:
                    // A character cut off at the end.
                    output.append(contentsOf: replacement)
                    inLeft = 0
                default:
                    output.append(contentsOf: replacement)
                    inLeft = 0
                }
            }
        }
        return Data(output)
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decides which character encoding a fetched page is in.
///
/// The order is the one browsers use, tuned for SMTH: the HTTP
/// `Content-Type` charset, then the page's own declaration (`<?xml
/// encoding>` or `<meta charset>`), then UTF-8 if the bytes are valid UTF-8,
/// else GB18030. Every GB-family label becomes GB18030, because SMTH pages
/// that say gb2312 or GBK contain characters only GB18030 has.
enum TextEncodingDetector {
    /// An iconv name libxml2 understands: `UTF-8` or `GB18030`, or another
    /// label as declared.
    static func encoding(of body: Data, contentType: String?) -> String {
        decide(body, contentType: contentType).encoding
    }

    /// `encoding(of:contentType:)`, and whether the answer is UTF-8 because
    /// the bytes were found to be valid UTF-8 on the way (so that a reader
    /// need not check all of them again).
    static func decide(_ body: Data, contentType: String?) -> (encoding: String, validUTF8: Bool) {
        var validity = UTF8Validity(body)
        if let label = contentType.flatMap(charset(inContentType:)),
            let encoding = normalized(label, body: body, validity: &validity)
        {
            return (encoding, encoding == "UTF-8" && validity.known == true)
        }
        if let label = declaredCharset(in: body), let encoding = normalized(label, body: body, validity: &validity) {
            return (encoding, encoding == "UTF-8" && validity.known == true)
        }
        let encoding = validity.isMostlyUTF8 ? "UTF-8" : "GB18030"
        return (encoding, encoding == "UTF-8" && validity.known == true)
    }

    /// `isMostlyUTF8` of one body, worked out at most once.
    private struct UTF8Validity {
        let body: Data
        /// Whether the body is valid UTF-8, once asked.
        private(set) var known: Bool?

        init(_ body: Data) { self.body = body }

        var isMostlyUTF8: Bool {
            mutating get {
                let valid = known ?? TextEncodingDetector.isValidUTF8(body)
                known = valid
                return valid || TextEncodingDetector.isMostlyUTF8(body, valid: false)
            }
        }
    }

    /// `text/html; charset=GBK` → `GBK`.
    static func charset(inContentType value: String) -> String? {
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, HTMLWhitespace.trimmed(pair[0], newlines: false).lowercased() == "charset" else {
                continue
            }
            let scalars = pair[1].unicodeScalars
            let kept = { (scalar: Unicode.Scalar) in scalar != " " && scalar != "\t" && scalar != "\"" && scalar != "'"
            }
            guard let first = scalars.firstIndex(where: kept), let last = scalars.lastIndex(where: kept)
            else { return nil }
            let label = String(Substring(scalars[first...last]))
            return label.isEmpty ? nil : label
        }
        return nil
    }

    /// The charset a page declares in its first kilobytes.
    static func declaredCharset(in body: Data) -> String? {
        let head = String(decoding: body.prefix(2048), as: UTF8.self).lowercased()
        for marker in ["encoding=", "charset="] {
            guard let range = head.range(of: marker) else { continue }
            let rest = head[range.upperBound...].drop { $0 == "\"" || $0 == "'" || $0 == " " }
            let label = rest.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            if !label.isEmpty { return String(label) }
        }
        return nil
    }

    /// Maps a declared label to the encoding to decode with. A page that
    /// claims UTF-8 but is not valid UTF-8 is decoded as GB18030 instead:
    /// a wrong header must not turn Chinese text into replacement marks.
    private static func normalized(_ label: String, body: Data, validity: inout UTF8Validity) -> String? {
        switch label.lowercased() {
        case "utf-8", "utf8":
            return validity.isMostlyUTF8 ? "UTF-8" : "GB18030"
        case "gb2312", "gbk", "x-gbk", "gb18030", "cp936", "euc-cn", "gb_2312-80":
            // Chinese text in GBK is practically never valid UTF-8, while
            // UTF-8 text decoded as GB18030 turns into nonsense without any
            // error: bytes that are valid UTF-8 beyond ASCII win over the label.
            return validity.isMostlyUTF8 && body.contains(where: { $0 >= 0x80 }) ? "UTF-8" : "GB18030"
        case "":
            return nil
        default:
            return label
        }
    }

    /// Valid UTF-8, or UTF-8 with a few bad bytes: many more characters
    /// beyond ASCII decode than bytes fail. GBK text almost never forms
    /// valid UTF-8 sequences, so it fails here, while a UTF-8 page with a
    /// stray byte or a pasted GBK phrase is still read as UTF-8 (the bad
    /// bytes become U+FFFD) rather than garbled whole.
    static func isMostlyUTF8(_ body: Data) -> Bool {
        isMostlyUTF8(body, valid: isValidUTF8(body))
    }

    /// `isMostlyUTF8` when whether the body is valid UTF-8 is known.
    private static func isMostlyUTF8(_ body: Data, valid: Bool) -> Bool {
        if valid { return true }
        return body.withUnsafeBytes { raw in
            var iterator = CountingIterator(base: raw.bindMemory(to: UInt8.self).makeIterator())
            var decoder = UTF8()
            var wide = 0
            var errors = 0
            var steps = 0
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): if !scalar.isASCII { wide += 1 }
                case .emptyInput: return errors == 0 || wide >= 8 * errors
                case .error: errors += 1
                }
                steps += 1
                // A quick no once even the rest of the bytes as two-byte
                // characters (plus what the decoder holds) could not make up
                // for the errors so far: the answer cannot be yes any more.
                if steps & 255 == 0, wide + (raw.count - iterator.consumed + 4) / 2 < 8 * errors { return false }
            }
        }
    }

    /// Whether the bytes are well-formed UTF-8 (Unicode's table 3-7: no
    /// overlong forms, no surrogates, nothing above U+10FFFF), checked a
    /// byte at a time with ASCII skipped eight bytes at a time.
    /// A byte iterator that counts what it handed out.
    private struct CountingIterator: IteratorProtocol {
        var base: UnsafeBufferPointer<UInt8>.Iterator
        var consumed = 0

        mutating func next() -> UInt8? {
            guard let byte = base.next() else { return nil }
            consumed += 1
            return byte
        }
    }

    static func isValidUTF8(_ body: Data) -> Bool {
        body.withUnsafeBytes { raw in isValidUTF8(raw.bindMemory(to: UInt8.self)) }
    }

    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            // Eight ASCII bytes at a time.
            while index + 8 <= count,
                UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
            }
            guard index < count else { break }
            let lead = base[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The allowed range of the second byte, and the sequence's length.
            let (low, high, length): (UInt8, UInt8, Int)
            switch lead {
            case 0xC2...0xDF: (low, high, length) = (0x80, 0xBF, 2)
            case 0xE0: (low, high, length) = (0xA0, 0xBF, 3)
            case 0xE1...0xEC, 0xEE...0xEF: (low, high, length) = (0x80, 0xBF, 3)
            case 0xED: (low, high, length) = (0x80, 0x9F, 3)
            case 0xF0: (low, high, length) = (0x90, 0xBF, 4)
            case 0xF1...0xF3: (low, high, length) = (0x80, 0xBF, 4)
            case 0xF4: (low, high, length) = (0x80, 0x8F, 4)
            default: return false
            }
            guard index + length <= count, (low...high).contains(base[index + 1]) else { return false }
            for offset in 2..<length where base[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }

    /// The body as UTF-8 bytes, decoded in the order above (header,
    /// declaration, UTF-8 validity, GB18030), for readers that take only
    /// UTF-8 (JSON); `nil` when the bytes do not decode.
    static func utf8(_ body: Data, contentType: String?) -> Data? {
        let encoding = encoding(of: body, contentType: contentType)
        if encoding == "UTF-8" { return isValidUTF8(body) ? body : nil }
        return convert(body, from: encoding)
    }

    private static func convert(_ body: Data, from encoding: String) -> Data? {
        guard !body.isEmpty else { return body }
        let converter = iconv_open("UTF-8", encoding)
        guard let converter, converter != iconv_t(bitPattern: Int(-1)) else { return nil }
        defer { iconv_close(converter) }
        var input = [UInt8](body)
        // UTF-8 takes at most twice the bytes of any GB18030 text, plus room.
        var output = [UInt8](repeating: 0, count: input.count * 2 + 16)
        let written: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                guard let inBase = inBuffer.baseAddress, let outBase = outBuffer.baseAddress else { return nil }
                var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBase)
                    .assumingMemoryBound(to: CChar.self)
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBase)
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = outBuffer.count
                guard iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1, inLeft == 0 else {
                    return nil
                }
                return outBuffer.count - outLeft
            }
        }
        return written.map { Data(output.prefix($0)) }
    }
}

import Mustache

/// The escaper of every value a template prints with `{{name}}`, for HTML
/// text, HTML attributes and XML alike.
///
/// It works on UTF-8 bytes, not `Character`s: a `"` followed by a combining
/// mark or a zero-width joiner is one grapheme cluster that is not `"`, so
/// an escaper that compares `Character`s lets it through into an attribute.
/// Every byte of `& < > " '` is replaced wherever it stands. Control
/// characters other than tab, line feed and carriage return (C0, DEL, C1)
/// are allowed in neither HTML nor XML 1.0 text and are dropped.
package enum MarkupEscaper {
    /// The name templates are rendered under (`{{% CONTENT_TYPE: …}}`).
    static let contentTypeName = "BBSARCHIVE-MARKUP"

    /// Registers the escaper with swift-mustache; `TemplateSet` does it
    /// before it parses any template. It replaces the library's own `HTML`
    /// type too, so a template's `{{% CONTENT_TYPE: HTML}}` keeps it.
    static let registered: Void = {
        MustacheContentTypes.register(ContentType(), named: contentTypeName)
        MustacheContentTypes.register(ContentType(), named: "HTML")
    }()

    struct ContentType: MustacheContentType {
        func escapeText(_ text: String) -> String { MarkupEscaper.escape(text) }
    }

    /// `text` fit for HTML text, a quoted HTML attribute or XML.
    package static func escape(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        escape(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text`, escaped as `escape(_:)` does, to `out`: the runs
    /// of bytes between the ones replaced or dropped are copied whole.
    static func escape<Output: ByteOutput>(_ text: String, into out: inout Output) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            let count = bytes.count
            var start = 0
            var index = 0
            while index < count {
                // Eight bytes at a time while none of them can need work
                // (CJK text: lead and continuation bytes are all above
                // `>`); a word that may is read byte by byte below.
                if index + 8 <= count,
                    !mayNeedWork(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                {
                    index += 8
                    continue
                }
                let stop = min(index + 8, count)
                while index < stop {
                    let byte = base[index]
                    // Every byte above `>` but DEL and 0xC2 passes (letters, CJK):
                    // one comparison; those below by a bit of `lowWork`.
                    if byte > 0x3E {
                        guard byte == 0x7F || byte == 0xC2 else {
                            index += 1
                            continue
                        }
                    } else if lowWork & (1 << UInt64(byte)) == 0 {
                        index += 1
                        continue
                    }
                    let skip: Int
                    switch byte {
                    case UInt8(ascii: "&"): skip = 1
                    case UInt8(ascii: "<"): skip = 1
                    case UInt8(ascii: ">"): skip = 1
                    case UInt8(ascii: "\""): skip = 1
                    case UInt8(ascii: "'"): skip = 1
                    // A C1 control (U+0080–U+009F) is dropped, both its bytes;
                    // any other character led by 0xC2 passes.
                    case 0xC2:
                        guard index + 1 < count, (0x80...0x9F).contains(base[index + 1]) else {
                            index += 1
                            continue
                        }
                        skip = 2
                    default: skip = 1  // C0 controls but tab, LF and CR, and DEL: dropped
                    }
                    out.append(UnsafeBufferPointer(start: base + start, count: index - start))
                    switch byte {
                    case UInt8(ascii: "&"): out.append(amp)
                    case UInt8(ascii: "<"): out.append(lt)
                    case UInt8(ascii: ">"): out.append(gt)
                    case UInt8(ascii: "\""): out.append(quot)
                    case UInt8(ascii: "'"): out.append(apos)
                    default: break
                    }
                    index += skip
                    start = index
                }
            }
            out.append(UnsafeBufferPointer(start: base + start, count: count - start))
        }
    }

    /// Whether any of the eight bytes of `word` is a C0 control, one of
    /// `" & ' < >`, DEL or 0xC2: the bytes `escape` may replace or drop
    /// (and tab, line feed and carriage return, which it keeps). Exact as
    /// a yes or no (the classic tests for a byte below `n` and for a zero
    /// byte, whose false hits come only after a true one). Digits, spaces,
    /// `.`, `/`, `:`, `-` and `#` pass eight at a time: links and dates are
    /// most of the text escaped, and a test for every byte below 0x3F sent
    /// nearly each of their words byte by byte.
    @inline(__always)
    static func mayNeedWork(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func holds(_ byte: UInt64) -> UInt64 {
            let x = word ^ (ones &* byte)
            return (x &- ones) & ~x
        }
        let controls = (word &- ones &* 0x20) & ~word
        return
            (controls | holds(0x22) | holds(0x26) | holds(0x27) | holds(0x3C) | holds(0x3E) | holds(0x7F)
            | holds(0xC2)) & highs != 0
    }

    /// The bytes below 0x3F that are replaced or dropped, as bits: `& < > " '`
    /// and the C0 controls but tab, line feed and carriage return.
    /// A literal, so it is a constant in the loop (computed in a closure,
    /// it was a lazily made global, checked for every byte).
    static let lowWork: UInt64 = 0x5000_00C4_FFFF_D9FF

    private static let amp: StaticString = "&amp;"
    private static let lt: StaticString = "&lt;"
    private static let gt: StaticString = "&gt;"
    private static let quot: StaticString = "&quot;"
    private static let apos: StaticString = "&#39;"
}

/// Where rendered bytes go: an array, or the renderer's page buffer.
protocol ByteOutput {
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension ByteOutput {
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

extension Array: ByteOutput where Element == UInt8 {
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

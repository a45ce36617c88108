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

    /// Appends `text`, escaped as `escape(_:)` does, to `out`.
    static func escape(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            guard let first = bytes.firstIndex(where: needsWork) else {
                out.append(contentsOf: bytes)
                return
            }
            out.append(contentsOf: bytes[..<first])
            var index = first
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "&"): out.append(contentsOf: amp)
                case UInt8(ascii: "<"): out.append(contentsOf: lt)
                case UInt8(ascii: ">"): out.append(contentsOf: gt)
                case UInt8(ascii: "\""): out.append(contentsOf: quot)
                case UInt8(ascii: "'"): out.append(contentsOf: apos)
                case 0x09, 0x0A, 0x0D: out.append(byte)
                case 0x00..<0x20, 0x7F: break
                case 0xC2 where index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]):
                    index += 1
                default: out.append(byte)
                }
                index += 1
            }
        }
    }

    private static func needsWork(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"): true
        case 0x09, 0x0A, 0x0D: false
        case 0x00..<0x20, 0x7F, 0xC2: true
        default: false
        }
    }

    private static let amp = Array("&amp;".utf8)
    private static let lt = Array("&lt;".utf8)
    private static let gt = Array("&gt;".utf8)
    private static let quot = Array("&quot;".utf8)
    private static let apos = Array("&#39;".utf8)
}

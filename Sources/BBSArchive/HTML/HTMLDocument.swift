import CLibXML2
import Foundation

/// An HTML page parsed by libxml2's tolerant HTML parser.
///
/// Owns the C document (`xmlDoc`) and its XPath context and frees both in
/// `deinit`. Nodes handed out keep the document alive. Not `Sendable`: a
/// document stays inside the task that parsed it.
final class HTMLDocument {
    private let document: htmlDocPtr
    private let xpath: xmlXPathContextPtr
    /// Each XPath expression compiled once per document: a parser asks the
    /// same few questions of every post. Kept per document, never shared
    /// between tasks; freed in `deinit`.
    private var compiled: [String: xmlXPathCompExprPtr] = [:]

    /// Parses `data` as HTML in the given encoding (an iconv name such as
    /// `UTF-8` or `GB18030`); `encoding` always wins over what the page
    /// declares, so the caller decides (see `TextEncodingDetector`).
    ///
    /// The bytes are decoded to UTF-8 first, each undecodable byte becoming
    /// U+FFFD (`TextDecoding`), so a stray byte or a GBK/UTF-8 mix loses a
    /// character, never the page; libxml2 then reads valid UTF-8 only and
    /// ignores the page's own charset hints.
    init(data: Data, url: String, encoding: String) throws(HTMLParseError) {
        LibXML2.initialize()
        bbs_xml_silence()
        let utf8 = TextDecoding.utf8(data, from: encoding)
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue | HTML_PARSE_IGNORE_ENC.rawValue)
        let parsed: htmlDocPtr? = utf8.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0, raw.count <= Int(Int32.max) else { return nil }
            return htmlReadMemory(base.assumingMemoryBound(to: CChar.self), Int32(raw.count), url, "UTF-8", options)
        }
        guard let parsed else { throw HTMLParseError.unparseable }
        guard let context = xmlXPathNewContext(parsed) else {
            xmlFreeDoc(parsed)
            throw HTMLParseError.unparseable
        }
        document = parsed
        xpath = context
    }

    deinit {
        for expression in compiled.values { xmlXPathFreeCompExpr(expression) }
        xmlXPathFreeContext(xpath)
        xmlFreeDoc(document)
    }

    /// The nodes an XPath expression selects, relative to `node` or the root.
    func select(_ expression: String, from node: HTMLNode? = nil) -> [HTMLNode] {
        xpath.pointee.node = node?.pointer ?? xmlDocGetRootElement(document)
        let program: xmlXPathCompExprPtr
        if let known = compiled[expression] {
            program = known
        } else {
            guard let made = xmlXPathCtxtCompile(xpath, expression) else { return [] }
            compiled[expression] = made
            program = made
        }
        guard let result = xmlXPathCompiledEval(program, xpath) else { return [] }
        defer { xmlXPathFreeObject(result) }
        guard let set = result.pointee.nodesetval, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab else {
            return []
        }
        return (0..<Int(set.pointee.nodeNr)).compactMap { index in
            table[index].map { HTMLNode(pointer: $0, document: self) }
        }
    }

    /// The first node an XPath expression selects.
    func first(_ expression: String, from node: HTMLNode? = nil) -> HTMLNode? {
        select(expression, from: node).first
    }
}

/// The reason a byte buffer could not become a document at all.
enum HTMLParseError: Error {
    case unparseable
}

/// A node inside an `HTMLDocument`; holds the document so it outlives it.
struct HTMLNode {
    let pointer: xmlNodePtr
    let document: HTMLDocument

    /// The lower-case element name, or `text`, `comment`, ... for other nodes.
    var name: String {
        guard let name = pointer.pointee.name else { return "" }
        return String(cString: name)
    }

    var isElement: Bool { pointer.pointee.type == XML_ELEMENT_NODE }
    var isText: Bool { pointer.pointee.type == XML_TEXT_NODE || pointer.pointee.type == XML_CDATA_SECTION_NODE }

    /// The attribute's value with entities decoded, or `nil` when absent.
    func attribute(_ name: String) -> String? {
        guard let value = xmlGetProp(pointer, name) else { return nil }
        defer { bbs_xml_free(value) }
        return String(cString: value)
    }

    /// The space-separated classes of the `class` attribute.
    var classes: [Substring] {
        (attribute("class") ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
    }

    func hasClass(_ name: String) -> Bool { classes.contains { $0 == name } }

    /// All text inside the node, entities decoded (libxml2 returns UTF-8).
    var text: String {
        guard let content = xmlNodeGetContent(pointer) else { return "" }
        defer { bbs_xml_free(content) }
        return String(cString: content)
    }

    /// Child nodes of every type, in document order.
    var children: [HTMLNode] {
        var result: [HTMLNode] = []
        var child = pointer.pointee.children
        while let current = child {
            result.append(HTMLNode(pointer: current, document: document))
            child = current.pointee.next
        }
        return result
    }

    var elementChildren: [HTMLNode] { children.filter(\.isElement) }

    var nextSibling: HTMLNode? {
        pointer.pointee.next.map { HTMLNode(pointer: $0, document: document) }
    }

    func select(_ expression: String) -> [HTMLNode] { document.select(expression, from: self) }
    func first(_ expression: String) -> HTMLNode? { document.first(expression, from: self) }
}

/// libxml2's one-time global set-up.
enum LibXML2 {
    private static let once: Void = { xmlInitParser() }()

    /// Runs `xmlInitParser` once per process, before any parse.
    static func initialize() { _ = once }
}

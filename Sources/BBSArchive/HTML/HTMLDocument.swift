import CLibXML2
import CXMLArena
import Foundation

/// An HTML page parsed by libxml2's tolerant HTML parser.
///
/// Owns the C document (`xmlDoc`) and, once asked an XPath question, its
/// XPath context, and frees both in `deinit`. Nodes handed out keep the
/// document alive. Not `Sendable`: a document stays inside the task that
/// parsed it.
///
/// Readers on hot paths walk the tree directly (`HTMLNode.firstChild`,
/// `firstElement`, `hasClass` …): no XPath is compiled or evaluated, no
/// string is made for a name or a class. XPath (`select`) stays for the
/// rare page kinds and for checking the walks against it (tests).
final class HTMLDocument {
    private let document: htmlDocPtr
    /// The memory of `document`'s tree (`CXMLArena`): libxml2 allocates
    /// into it while it parses and frees nothing into malloc when the tree
    /// goes; `nil` when it could not be made (malloc then, as before).
    private let arena: OpaquePointer?
    private var xpath: xmlXPathContextPtr?
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
    /// ignores the page's own charset hints. Numeric references libxml2
    /// would drop or misread are first written as a browser reads them
    /// (`CharacterReferences`).
    ///
    /// `validUTF8`: the caller has found `data` to be valid UTF-8 already
    /// (`TextEncodingDetector.decide`), so it is not checked again.
    init(data: Data, url: String, encoding: String, validUTF8: Bool = false) throws(HTMLParseError) {
        LibXML2.initialize()
        bbs_xml_silence()
        // References libxml2 would drop or misread, read as a browser reads them.
        let utf8 = CharacterReferences.asBrowsersRead(TextDecoding.utf8(data, from: encoding, knownValid: validUTF8))
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue | HTML_PARSE_IGNORE_ENC.rawValue
                | HTML_PARSE_NODEFDTD.rawValue)
        let arena = bbs_xml_arena_create()
        let outside = bbs_xml_arena_enter(arena)
        let parsed: htmlDocPtr? = utf8.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0, raw.count <= Int(Int32.max) else { return nil }
            return htmlReadMemory(base.assumingMemoryBound(to: CChar.self), Int32(raw.count), url, "UTF-8", options)
        }
        // libxml2 stops reading at its depth limit (256 elements) and keeps
        // the tree so far, as if the page ended there: the posts after that
        // point would be gone without a word.
        let tooDeep = Self.stoppedTooDeep()
        // Freed inside the arena, where its memory came from.
        if tooDeep, let parsed { xmlFreeDoc(parsed) }
        // The thread's last error holds strings from the arena: cleared
        // before leaving it, so nothing outside points into it.
        xmlResetLastError()
        bbs_xml_arena_leave(outside)
        guard let parsed, !tooDeep else {
            bbs_xml_arena_destroy(arena)
            throw tooDeep ? HTMLParseError.tooDeep : HTMLParseError.unparseable
        }
        document = parsed
        self.arena = arena
    }

    /// `data` without its `<font …>` and `</font>` tags (their text kept,
    /// but for a font hidden with `display: none`, which goes with its
    /// text, as a browser shows it: nForum hides each post's id so, just
    /// before its header), any case; `nil` when it has none. Bytes of the
    /// tags are ASCII in every encoding a page is read in, so this works
    /// before decoding.
    static func withoutFontTags(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        var found = false
        func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        func isFontTag(at start: Int) -> Bool {
            var at = start + 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "/") { at += 1 }
            let name: [UInt8] = Array("font".utf8)
            guard at + name.count < bytes.count else { return false }
            for offset in 0..<name.count where lower(bytes[at + offset]) != name[offset] { return false }
            let next = bytes[at + name.count]
            return next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || next == 0x20 || next == 0x09
                || next == 0x0A || next == 0x0D
        }
        var closers = true
        /// Past the `</font>` that closes a font hidden by `tag`'s style.
        func hiddenEnd(tag: ArraySlice<UInt8>, from start: Int) -> Int? {
            let lowered = tag.prefix(400).map(lower)
            let text = String(decoding: lowered.filter { $0 != 0x20 }, as: UTF8.self)
            guard closers, text.contains("display:none") else { return nil }
            var at = start
            // None found once: none after any later hidden font either.
            defer { if at >= bytes.count { closers = false } }
            while at < bytes.count {
                if bytes[at] == UInt8(ascii: "<"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "/"),
                    isFontTag(at: at), let close = bytes[at...].firstIndex(of: UInt8(ascii: ">"))
                {
                    return close + 1
                }
                at += 1
            }
            return nil
        }
        // No `>` after a place: none after any later one (a page of many
        // unclosed `<font` is read once, not once a tag).
        var closed = true
        while index < bytes.count {
            if closed, bytes[index] == UInt8(ascii: "<"), isFontTag(at: index) {
                if let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) {
                    found = true
                    let tag = bytes[index..<close]
                    index = close + 1
                    if let end = hiddenEnd(tag: tag, from: index) { index = end }
                    continue
                }
                closed = false
            }
            out.append(bytes[index])
            index += 1
        }
        return found ? Data(out) : nil
    }

    /// Whether the parse just done stopped at libxml2's depth limit.
    private static func stoppedTooDeep() -> Bool {
        guard let error = xmlGetLastError(), error.pointee.code == XML_ERR_INTERNAL_ERROR.rawValue,
            let message = error.pointee.message
        else { return false }
        return strncmp(message, "Excessive depth", 15) == 0
    }

    deinit {
        for expression in compiled.values { xmlXPathFreeCompExpr(expression) }
        if let xpath { xmlXPathFreeContext(xpath) }
        let outside = bbs_xml_arena_enter(arena)
        if xpath == nil, bbs_xml_arena_spilled(arena) == 0 {
            // All of the tree is in the arena (nothing after the parse adds
            // to a tree that is only read, and the tree walks only read):
            // it goes with the arena, without a walk over every node. Only
            // the dictionary holds something of malloc's (its mutex).
            if let dictionary = document.pointee.dict { xmlDictFree(dictionary) }
        } else {
            // Inside the arena its blocks' frees cost nothing; whatever the
            // tree got from malloc (XPath's questions may add names to its
            // dictionary) still goes back to malloc.
            xmlFreeDoc(document)
        }
        bbs_xml_arena_leave(outside)
        bbs_xml_arena_destroy(arena)
    }

    /// The root element (`html`), if the page has one.
    var root: HTMLNode? {
        xmlDocGetRootElement(document).map { HTMLNode(pointer: $0, document: self) }
    }

    /// The first element, in document order, that `match` accepts: the
    /// root itself or any element below it (XPath's `//…[…]`).
    func firstElement(where match: (HTMLNode) -> Bool) -> HTMLNode? {
        guard let root else { return nil }
        return match(root) ? root : root.firstDescendant(where: match)
    }

    /// Every element, in document order, that `match` accepts.
    func elements(where match: (HTMLNode) -> Bool) -> [HTMLNode] {
        guard let root else { return [] }
        return (match(root) ? [root] : []) + root.descendants(where: match)
    }

    /// The nodes an XPath expression selects, relative to `node` or the root.
    func select(_ expression: String, from node: HTMLNode? = nil) -> [HTMLNode] {
        if xpath == nil { xpath = xmlXPathNewContext(document) }
        guard let xpath else { return [] }
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
    /// Markup nested deeper than libxml2 reads (256 elements).
    case tooDeep
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

    /// Whether this is an element named `name` (libxml2's HTML parser writes
    /// element names in lower case), without making a string of its name.
    func isElement(_ name: StaticString) -> Bool {
        guard pointer.pointee.type == XML_ELEMENT_NODE, let own = pointer.pointee.name else { return false }
        return xmlStrEqual(own, name.utf8Start) != 0
    }

    /// Whether a browser starts the element on a line of its own and ends
    /// the line after it (`p`, `div`, `li`, `pre`, a heading …): text in
    /// two of them is two lines, as `<br />` makes it.
    var isBlock: Bool {
        guard pointer.pointee.type == XML_ELEMENT_NODE, let own = pointer.pointee.name else { return false }
        return Self.blockNames.contains { xmlStrEqual(own, $0.utf8Start) != 0 }
    }

    private static let blockNames: [StaticString] = [
        "p", "div", "pre", "blockquote", "li", "ul", "ol", "dl", "dt", "dd", "table", "tr", "center", "h1", "h2",
        "h3", "h4", "h5", "h6", "hr",
    ]

    /// The attribute's value with entities decoded, or `nil` when absent.
    func attribute(_ name: String) -> String? {
        guard let value = xmlGetProp(pointer, name) else { return nil }
        defer { bbs_xml_free(value) }
        return String(cString: value)
    }

    /// Calls `body` with the bytes of the attribute's value (UTF-8, entities
    /// decoded, no terminator), or `nil` when the attribute is absent. The
    /// HTML parser keeps a value as one text node, read in place; anything
    /// else goes through `xmlGetProp`. The bytes live only during `body`.
    func withAttribute<Result>(_ name: StaticString, _ body: (UnsafeBufferPointer<UInt8>?) -> Result) -> Result {
        var property = pointer.pointee.properties
        while let current = property {
            guard let own = current.pointee.name, xmlStrEqual(own, name.utf8Start) != 0 else {
                property = current.pointee.next
                continue
            }
            guard let child = current.pointee.children else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            if child.pointee.next == nil, child.pointee.type == XML_TEXT_NODE, let content = child.pointee.content {
                return body(UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
            }
            guard let value = xmlGetProp(pointer, name.utf8Start) else { return body(nil) }
            defer { bbs_xml_free(value) }
            return body(UnsafeBufferPointer(start: value, count: Int(xmlStrlen(value))))
        }
        return body(nil)
    }

    /// Whether the attribute is present and its value contains `part`
    /// (XPath's `contains(@name, part)`).
    func attribute(_ name: StaticString, contains part: StaticString) -> Bool {
        withAttribute(name) { value in
            guard let value else { return false }
            return ByteSearch.contains(value, UnsafeBufferPointer(start: part.utf8Start, count: part.utf8CodeUnitCount))
        }
    }

    /// Whether the attribute is present and its value starts with `prefix`
    /// (XPath's `starts-with(@name, prefix)`).
    func attribute(_ name: StaticString, hasPrefix prefix: StaticString) -> Bool {
        withAttribute(name) { value in
            guard let value, value.count >= prefix.utf8CodeUnitCount else { return false }
            guard let base = value.baseAddress else { return prefix.utf8CodeUnitCount == 0 }
            return memcmp(base, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
        }
    }

    /// The space-separated classes of the `class` attribute.
    var classes: [Substring] {
        (attribute("class") ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
    }

    /// Whether `name` is among the classes, split at XML whitespace (space,
    /// tab, CR, LF) as XPath's `contains(concat(' ', normalize-space(@class),
    /// ' '), ' name ')` does; read in place, no string made.
    func hasClass(_ name: StaticString) -> Bool {
        withAttribute("class") { value in
            guard let value, let base = value.baseAddress else { return false }
            let wanted = (start: name.utf8Start, count: name.utf8CodeUnitCount)
            var index = 0
            while index < value.count {
                while index < value.count, ByteSearch.isXMLSpace(base[index]) { index += 1 }
                let start = index
                while index < value.count, !ByteSearch.isXMLSpace(base[index]) { index += 1 }
                if index - start == wanted.count, memcmp(base + start, wanted.start, wanted.count) == 0 {
                    return true
                }
            }
            return false
        }
    }

    /// All text inside the node, entities decoded (libxml2 returns UTF-8).
    var text: String {
        if isText, let content = pointer.pointee.content { return String(cString: content) }
        guard let content = xmlNodeGetContent(pointer) else { return "" }
        defer { bbs_xml_free(content) }
        return String(cString: content)
    }

    /// Calls `body` with the bytes of a text node as libxml2 holds them
    /// (what `text` would decode), in place.
    func withTextBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        guard isText, let content = pointer.pointee.content else {
            var text = self.text
            return text.withUTF8(body)
        }
        return body(UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
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

    /// Calls `body` with each child node, in document order, until it
    /// returns `false`.
    func forEachChild(_ body: (HTMLNode) -> Bool) {
        var child = pointer.pointee.children
        while let current = child {
            guard body(HTMLNode(pointer: current, document: document)) else { return }
            child = current.pointee.next
        }
    }

    /// The first child element that `match` accepts (XPath's `name[…]`).
    func firstChild(where match: (HTMLNode) -> Bool) -> HTMLNode? {
        var found: HTMLNode?
        forEachChild { child in
            if child.isElement, match(child) {
                found = child
                return false
            }
            return true
        }
        return found
    }

    /// Every child element that `match` accepts, in document order.
    func children(where match: (HTMLNode) -> Bool) -> [HTMLNode] {
        var found: [HTMLNode] = []
        forEachChild { child in
            if child.isElement, match(child) { found.append(child) }
            return true
        }
        return found
    }

    /// Calls `body` with each element below this node (not the node
    /// itself), in document order, until it returns `false`.
    func forEachDescendant(_ body: (HTMLNode) -> Bool) {
        var next = pointer.pointee.children
        while let current = next {
            if current.pointee.type == XML_ELEMENT_NODE {
                guard body(HTMLNode(pointer: current, document: document)) else { return }
                // Into the element's children, if it has any.
                if let child = current.pointee.children {
                    next = child
                    continue
                }
            }
            // Else to the next sibling, climbing back up as far as needed,
            // never above this node.
            var climb: xmlNodePtr? = current
            next = nil
            while let node = climb, node != pointer {
                if let sibling = node.pointee.next {
                    next = sibling
                    break
                }
                climb = node.pointee.parent
            }
        }
    }

    /// The first element below this node that `match` accepts (XPath's
    /// `.//…[…]`).
    func firstDescendant(where match: (HTMLNode) -> Bool) -> HTMLNode? {
        var found: HTMLNode?
        forEachDescendant { element in
            if match(element) {
                found = element
                return false
            }
            return true
        }
        return found
    }

    /// Every element below this node that `match` accepts, in document order.
    func descendants(where match: (HTMLNode) -> Bool) -> [HTMLNode] {
        var found: [HTMLNode] = []
        forEachDescendant { element in
            if match(element) { found.append(element) }
            return true
        }
        return found
    }

    func select(_ expression: String) -> [HTMLNode] { document.select(expression, from: self) }
    func first(_ expression: String) -> HTMLNode? { document.first(expression, from: self) }
}

/// Byte-level helpers for the readers' hot paths.
enum ByteSearch {
    /// XML's whitespace (XPath's `normalize-space`): space, tab, LF, CR.
    @inline(__always) static func isXMLSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Whether `needle` occurs in `haystack` (an empty needle always does).
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count, let base = haystack.baseAddress, let wanted = needle.baseAddress
        else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if base[index] == first, memcmp(base + index, wanted, needle.count) == 0 { return true }
            index += 1
        }
        return false
    }

    /// Where `needle` first occurs in `haystack`, as a byte offset.
    static func firstOffset(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Int? {
        let count = needle.utf8CodeUnitCount
        guard count > 0 else { return 0 }
        guard haystack.count >= count, let base = haystack.baseAddress else { return nil }
        let first = needle.utf8Start[0]
        for index in 0...(haystack.count - count)
        where base[index] == first && memcmp(base + index, needle.utf8Start, count) == 0 {
            return index
        }
        return nil
    }

    /// The first range of `needle`'s bytes in `text` (for an ASCII needle,
    /// where `range(of:)` answers the same without Foundation).
    static func range(of needle: StaticString, in text: String) -> Range<String.Index>? {
        var bytes = text
        guard let offset = bytes.withUTF8({ firstOffset($0, needle) }) else { return nil }
        let lower = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
        return lower..<text.utf8.index(lower, offsetBy: needle.utf8CodeUnitCount)
    }

    /// Whether `text`'s UTF-8 holds `needle`'s.
    static func contains(_ text: String, _ needle: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            contains(bytes, UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount))
        }
    }
}

/// libxml2's one-time global set-up.
enum LibXML2 {
    private static let once: Void = {
        // Before xmlInitParser, as libxml2 asks; outside an arena these are
        // malloc, realloc and free (see CXMLArena.h).
        xmlMemSetup(bbs_xml_arena_free, bbs_xml_arena_malloc, bbs_xml_arena_realloc, bbs_xml_arena_strdup)
        xmlInitParser()
    }()

    /// Installs the arena allocator and runs `xmlInitParser`, once per
    /// process, before any parse.
    static func initialize() { _ = once }
}

import CCmarkGFM
import CXMLArena
import Foundation

/// A Markdown document built as a cmark-gfm node tree and written by its
/// CommonMark renderer, so forum text is escaped by cmark, never by hand.
///
/// Owns the C tree and frees it in `deinit`. Blocks are appended in order;
/// inline content goes through `Inline` values.
///
/// The tree, its text and the rendered text live in an arena of the
/// document's own (`CXMLArena`), given back whole in `deinit`. With
/// malloc, a thread's copy took a `calloc` a node and a `malloc` a text,
/// each freed again one by one: the 100k full build without the index
/// (into tmpfs, 4 runs each) took 5.86 s of user CPU with them, 5.58 s this way.
final class MarkdownDocument {
    private let root: OpaquePointer
    /// `nil` when the arena could not be made: then cmark uses malloc.
    private let arena: OpaquePointer?

    /// Inline content of a paragraph or heading.
    enum Inline {
        case text(String)
        case lineBreak
        case link(url: String, text: String)
        case image(url: String, alt: String)
        case emphasis(String)
        case strong(String)
    }

    /// cmark's allocator for the document's tree: the arena current for
    /// Markdown on the thread (`inArena`). Made once, and never freed:
    /// every node keeps a pointer to it.
    private nonisolated(unsafe) static let memory: UnsafeMutablePointer<cmark_mem> = {
        let memory = UnsafeMutablePointer<cmark_mem>.allocate(capacity: 1)
        memory.initialize(
            to: cmark_mem(
                calloc: bbs_markdown_arena_calloc, realloc: bbs_markdown_arena_realloc, free: bbs_markdown_arena_free))
        return memory
    }()

    init() {
        CmarkGFM.initialize()
        arena = bbs_xml_arena_create()
        let outside = bbs_markdown_arena_enter(arena)
        // Only fails when malloc does, which aborts anyway.
        root = cmark_node_new_with_mem(CMARK_NODE_DOCUMENT, Self.memory)
        bbs_markdown_arena_leave(outside)
    }

    deinit {
        let outside = bbs_markdown_arena_enter(arena)
        // A node or a text that malloc served (the arena could not grow)
        // is freed by cmark; the rest goes with the arena.
        if bbs_xml_arena_spilled(arena) != 0 { cmark_node_free(root) }
        bbs_markdown_arena_leave(outside)
        bbs_xml_arena_destroy(arena)
    }

    /// Runs `body`, whose cmark calls build, render or free this document,
    /// with its arena current for Markdown on this thread.
    private func inArena<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let outside = bbs_markdown_arena_enter(arena)
        defer { bbs_markdown_arena_leave(outside) }
        return try body()
    }

    func heading(_ level: Int32, _ inlines: [Inline]) {
        inArena {
            let node = Self.newNode(CMARK_NODE_HEADING)
            cmark_node_set_heading_level(node, level)
            Self.append(inlines, to: node)
            cmark_node_append_child(root, node)
        }
    }

    func paragraph(_ inlines: [Inline]) {
        inArena { _ = cmark_node_append_child(root, Self.paragraphNode(inlines)) }
    }

    /// A paragraph of `lines`, kept as lines with hard breaks: what
    /// `paragraph` makes of them as `.text` and `.lineBreak`, with no list
    /// of inlines made first (a thread's copy made three arrays a paragraph).
    func paragraph(lines: some Sequence<String>) {
        inArena { _ = cmark_node_append_child(root, Self.paragraphNode(lines: lines)) }
    }

    /// A block quote of a paragraph of `header` (when there is one), then
    /// a paragraph of `lines` (when there are any, see `paragraph(lines:)`).
    func quote(header: String?, lines: some Collection<String>) {
        guard header != nil || !lines.isEmpty else { return }
        inArena {
            let node = Self.newNode(CMARK_NODE_BLOCK_QUOTE)
            if let header { cmark_node_append_child(node, Self.paragraphNode([.text(header)])) }
            if !lines.isEmpty { cmark_node_append_child(node, Self.paragraphNode(lines: lines)) }
            cmark_node_append_child(root, node)
        }
    }

    /// A block quote holding one paragraph per entry.
    func quote(_ paragraphs: [[Inline]]) {
        inArena {
            let node = Self.newNode(CMARK_NODE_BLOCK_QUOTE)
            for inlines in paragraphs { cmark_node_append_child(node, Self.paragraphNode(inlines)) }
            cmark_node_append_child(root, node)
        }
    }

    /// A bullet list, one paragraph per item.
    func list(_ items: [[Inline]]) {
        guard !items.isEmpty else { return }
        inArena {
            let list = Self.newNode(CMARK_NODE_LIST)
            cmark_node_set_list_type(list, CMARK_BULLET_LIST)
            cmark_node_set_list_tight(list, 1)
            for inlines in items {
                let item = Self.newNode(CMARK_NODE_ITEM)
                cmark_node_append_child(item, Self.paragraphNode(inlines))
                cmark_node_append_child(list, item)
            }
            cmark_node_append_child(root, list)
        }
    }

    func rule() {
        inArena { _ = cmark_node_append_child(root, Self.newNode(CMARK_NODE_THEMATIC_BREAK)) }
    }

    /// The document as CommonMark text (UTF-8), no hard wrapping.
    func render() -> String {
        withRendered { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the document's CommonMark text (UTF-8, no hard
    /// wrapping) where cmark wrote it: no `String` is made of it. cmark
    /// writes valid UTF-8 (it replaces any invalid byte as it reads), so
    /// these are the bytes `render()` gives.
    func withRendered<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        // In the arena too, which keeps it until the document goes.
        guard let text = inArena({ cmark_render_commonmark_with_mem(root, CMARK_OPT_DEFAULT, 0, Self.memory) })
        else {
            return try body(UnsafeBufferPointer(start: nil, count: 0))
        }
        defer { inArena { bbs_markdown_arena_free(text) } }
        return try text.withMemoryRebound(to: UInt8.self, capacity: 1) { start throws(Failure) in
            try body(UnsafeBufferPointer(start: start, count: strlen(text)))
        }
    }

    /// A node of the document's tree (the arena must be current).
    private static func newNode(_ type: cmark_node_type) -> OpaquePointer? {
        cmark_node_new_with_mem(type, memory)
    }

    private static func paragraphNode(_ inlines: [Inline]) -> OpaquePointer? {
        let node = newNode(CMARK_NODE_PARAGRAPH)
        append(inlines, to: node)
        return node
    }

    private static func paragraphNode(lines: some Sequence<String>) -> OpaquePointer? {
        let node = newNode(CMARK_NODE_PARAGRAPH)
        var first = true
        for line in lines {
            if !first { cmark_node_append_child(node, newNode(CMARK_NODE_LINEBREAK)) }
            first = false
            cmark_node_append_child(node, textNode(line))
        }
        return node
    }

    private static func append(_ inlines: [Inline], to parent: OpaquePointer?) {
        for inline in inlines {
            switch inline {
            case .text(let text):
                cmark_node_append_child(parent, textNode(text))
            case .lineBreak:
                cmark_node_append_child(parent, newNode(CMARK_NODE_LINEBREAK))
            case .link(let url, let text) where !SafeLink.allows(url):
                // Never a `javascript:` (or any other active) link, whoever built the node.
                cmark_node_append_child(parent, textNode(text))
            case .link(let url, let text):
                let link = newNode(CMARK_NODE_LINK)
                url.withCString { _ = cmark_node_set_url(link, $0) }
                cmark_node_append_child(link, textNode(text))
                cmark_node_append_child(parent, link)
            case .image(let url, let alt) where !SafeLink.allows(url):
                cmark_node_append_child(parent, textNode(alt))
            case .image(let url, let alt):
                let image = newNode(CMARK_NODE_IMAGE)
                url.withCString { _ = cmark_node_set_url(image, $0) }
                cmark_node_append_child(image, textNode(alt))
                cmark_node_append_child(parent, image)
            case .emphasis(let text), .strong(let text):
                let wrapper: OpaquePointer?
                if case .emphasis = inline {
                    wrapper = newNode(CMARK_NODE_EMPH)
                } else {
                    wrapper = newNode(CMARK_NODE_STRONG)
                }
                cmark_node_append_child(wrapper, textNode(text))
                cmark_node_append_child(parent, wrapper)
            }
        }
    }

    private static func textNode(_ text: String) -> OpaquePointer? {
        let node = newNode(CMARK_NODE_TEXT)
        // In place: passed as a `String`, the text was copied into an array first.
        text.withCString { _ = cmark_node_set_literal(node, $0) }
        return node
    }
}

/// cmark-gfm's one-time set-up: its core extensions registered before any
/// document could attach them.
enum CmarkGFM {
    private static let once: Void = { cmark_gfm_core_extensions_ensure_registered() }()

    static func initialize() { _ = once }
}

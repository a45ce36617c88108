import Mustache

/// The project's own renderer of the Mustache subset `templates/` uses:
/// text, `{{name}}` (escaped by `MarkupEscaper`), `{{{name}}}` and
/// `{{&name}}`, sections `{{#name}}`, inverted sections `{{^name}}`,
/// partials `{{> name}}`, partials with blocks of their own
/// (`{{<name}}{{$block}}…{{/block}}{{/name}}`), blocks `{{$block}}…{{/block}}`,
/// comments and `{{% CONTENT_TYPE: … }}` pragmas.
///
/// Each template is parsed once into a tree of nodes, then laid out as
/// flat instructions (`Program`): a section's body follows it, a partial
/// names its template by number. A page is rendered by walking them over
/// the typed views (`templateValue(named:)`) straight into one byte
/// buffer. Whitespace follows swift-mustache's rules exactly (standalone
/// tags take their line with them; an indented standalone partial indents
/// its lines), so the pages are byte for byte what swift-mustache renders
/// (`TemplateEngineTests`). A template using a feature outside the subset
/// (set delimiters, transforms `name(…)`, dynamic partials) is refused
/// with the file and line.
struct CompiledTemplates: Sendable {
    /// A template as parsed: what `Program` lays out flat.
    enum Node: Sendable {
        case text([UInt8])
        /// A name split at its dots; `[]` is `.`, the current value.
        case variable([String], escaped: Bool, fromTop: Bool)
        case section([String], fromTop: Bool, inverted: Bool, body: [Node])
        /// `overrides`: the blocks a `{{<name}}` partial gives its template.
        case partial(String, indentation: [UInt8]?, overrides: [String: [Node]]?)
        /// `{{$name}}default{{/name}}`: a block an including template may replace.
        case block(String, defaultBody: [Node], indentation: [UInt8])
        /// A block given inside `{{<name}}…{{/name}}` (only while parsing).
        case blockDefinition(String, [Node])
    }

    struct ParseError: Error {
        var line: Int
        var reason: String
    }

    private var program = Program()

    init() {}

    /// Parses a template's text and keeps it under `name`.
    mutating func register(_ text: String, named name: String) throws(ParseError) {
        var parser = TemplateParser(text)
        let nodes = try parser.parseAll()
        program.add(nodes, named: name)
    }

    func has(_ name: String) -> Bool { program.range(of: name) != nil }

    /// Renders the template `name` with `view` at the bottom of the
    /// context stack; `nil` when there is no such template. `capacity`:
    /// the bytes reserved up front (a page's worth unless told less, for
    /// a fragment such as a post's body that is kept until its page is done).
    func render(_ name: String, _ view: some TemplateView, capacity: Int = 16 * 1024) -> [UInt8]? {
        withRendered(name, view, capacity: capacity) { Array($0) }
    }

    /// Renders as `render` does, then calls `body` with the bytes where
    /// they were rendered (valid only during the call): a page written out
    /// as it is needs no copy of its own.
    func withRendered<Result>(
        _ name: String, _ view: some TemplateView, capacity: Int = 16 * 1024,
        _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result? {
        guard let range = program.range(of: name) else { return nil }
        // The program's arrays are read through pointers while a page is
        // rendered: an instruction is a plain value, loaded without a
        // retain, where walking `[Node]` copied each enum (and retained
        // its arrays) on every visit: 3.4 % of a full build (issue 10).
        return program.instructions.withUnsafeBufferPointer { instructions in
            program.text.withUnsafeBufferPointer { text in
                program.names.withUnsafeBufferPointer { names in
                    program.nameBytes.withUnsafeBufferPointer { nameBytes in
                        var renderer = Renderer(
                            program: program, instructions: instructions, text: text, names: names,
                            nameBytes: nameBytes, out: PageBuffer(capacity: capacity))
                        // The view's own conformance says whether it is typed:
                        // a cast (`as? any TypedTemplateView`) scanned every
                        // conformance record of the program the first time
                        // each type was rendered.
                        if let typed = view.typedBox {
                            renderer.stack.append(.typed(typed))
                        } else {
                            renderer.stack.append(.parent(ParentBox(view)))
                        }
                        defer { renderer.out.free() }
                        renderer.render(range, indentation: nil)
                        return body(renderer.out.contents)
                    }
                }
            }
        }
    }
}

/// Every template of a set as one flat list of instructions.
private struct Program: Sendable {
    struct Instruction {
        enum Kind: UInt8 {
            /// `text[a..<a + b]`.
            case text
            /// The name `names[a..<a + b]`.
            case variable
            /// The name `names[a..<a + b]`; its body is the instructions up to `end`.
            case section
            /// The template numbered `a` (`templates[a]`), indented by
            /// `indentations[b]` (none when -1), with the blocks
            /// `overrides[c]` (none when -1); the blocks' bodies follow it, up to `end`.
            case partial
            /// The block `blockNames[a]`, indented by `indentations[b]`; its
            /// default body is the instructions up to `end`.
            case block
        }

        var kind: Kind
        /// `escaped` for a variable, `inverted` for a section.
        var flag = false
        var fromTop = false
        var a = 0
        var b = 0
        var c = 0
        var end = 0
    }

    /// A name's bytes in `nameBytes`, and its key, found once here.
    struct NameSpan {
        var start: Int
        var count: Int
        var key: TemplateKey
    }

    var instructions: [Instruction] = []
    var text: [UInt8] = []
    var names: [NameSpan] = []
    var nameBytes: [UInt8] = []
    var indentations: [[UInt8]] = []
    var overrides: [[String: Range<Int>]] = []
    var blockNames: [String] = []
    /// Each template's instructions, by number (`nil`: a partial names it, but it was never registered).
    var templates: [Range<Int>?] = []
    var numbers: [String: Int] = [:]

    func range(of name: String) -> Range<Int>? { numbers[name].flatMap { templates[$0] } }

    mutating func add(_ nodes: [CompiledTemplates.Node], named name: String) {
        let start = instructions.count
        emit(nodes)
        templates[number(name)] = start..<instructions.count
    }

    private mutating func number(_ name: String) -> Int {
        if let number = numbers[name] { return number }
        numbers[name] = templates.count
        templates.append(nil)
        return templates.count - 1
    }

    private mutating func emit(_ nodes: [CompiledTemplates.Node]) {
        // Text nodes stay apart, not joined: an indented partial indents
        // what each one writes after a line break.
        for node in nodes {
            switch node {
            case .text(let bytes):
                instructions.append(.init(kind: .text, a: text.count, b: bytes.count))
                text.append(contentsOf: bytes)
            case .variable(let path, let escaped, let fromTop):
                instructions.append(
                    .init(kind: .variable, flag: escaped, fromTop: fromTop, a: names.count, b: path.count))
                add(path)
            case .section(let path, let fromTop, let inverted, let body):
                let index = instructions.count
                instructions.append(
                    .init(kind: .section, flag: inverted, fromTop: fromTop, a: names.count, b: path.count))
                add(path)
                emit(body)
                instructions[index].end = instructions.count
            case .partial(let name, let indentation, let given):
                let index = instructions.count
                var indented = -1
                if let indentation { indented = add(indentation) }
                instructions.append(.init(kind: .partial, a: number(name), b: indented, c: -1))
                if let given {
                    var blocks: [String: Range<Int>] = [:]
                    for (block, body) in given {
                        let start = instructions.count
                        emit(body)
                        blocks[block] = start..<instructions.count
                    }
                    instructions[index].c = overrides.count
                    overrides.append(blocks)
                }
                instructions[index].end = instructions.count
            case .block(let name, let defaultBody, let indentation):
                let index = instructions.count
                instructions.append(.init(kind: .block, a: blockNames.count, b: add(indentation)))
                blockNames.append(name)
                emit(defaultBody)
                instructions[index].end = instructions.count
            case .blockDefinition:
                continue
            }
        }
    }

    private mutating func add(_ path: [String]) {
        for name in path {
            names.append(NameSpan(start: nameBytes.count, count: name.utf8.count, key: TemplateKey(name)))
            nameBytes.append(contentsOf: name.utf8)
        }
    }

    private mutating func add(_ indentation: [UInt8]) -> Int {
        indentations.append(indentation)
        return indentations.count - 1
    }
}

// MARK: Rendering

private struct Renderer {
    let program: Program
    let instructions: UnsafeBufferPointer<Program.Instruction>
    let text: UnsafeBufferPointer<UInt8>
    let names: UnsafeBufferPointer<Program.NameSpan>
    let nameBytes: UnsafeBufferPointer<UInt8>
    /// The values sections entered, innermost last, each sorted once.
    var stack: [Entry] = []
    var out: PageBuffer
    /// The blocks the partials being rendered were given.
    var inherited: [String: Range<Int>]?

    init(
        program: Program, instructions: UnsafeBufferPointer<Program.Instruction>, text: UnsafeBufferPointer<UInt8>,
        names: UnsafeBufferPointer<Program.NameSpan>, nameBytes: UnsafeBufferPointer<UInt8>, out: PageBuffer
    ) {
        self.program = program
        self.instructions = instructions
        self.text = text
        self.names = names
        self.nameBytes = nameBytes
        self.out = out
    }

    /// Renders the instructions of `range` into `out`. With an indentation
    /// (an indented standalone partial), every non-empty piece that starts
    /// a line of this run gets it in front, as swift-mustache does.
    mutating func render(_ range: Range<Int>, indentation: [UInt8]?) {
        var index = range.lowerBound
        guard let indentation, !indentation.isEmpty else {
            while index < range.upperBound { index = run(index, indentation: indentation) }
            return
        }
        // In place: an instruction's output gets the indentation in front
        // when it is not empty and follows a line break this run wrote
        // (not one from before the run).
        let begin = out.count
        while index < range.upperBound {
            let mark = out.count
            index = run(index, indentation: indentation)
            if out.count > mark, mark > begin, out[mark - 1] == UInt8(ascii: "\n") {
                out.insert(indentation, at: mark)
            }
        }
    }

    /// Runs the instruction at `index`; returns the index of the next one.
    private mutating func run(_ index: Int, indentation: [UInt8]?) -> Int {
        let instruction = instructions[index]
        switch instruction.kind {
        case .text:
            out.append(UnsafeBufferPointer(rebasing: text[instruction.a..<instruction.a + instruction.b]))
            return index + 1
        case .variable:
            let escaped = instruction.flag
            switch lookup(instruction.a..<instruction.a + instruction.b, fromTop: instruction.fromTop) {
            case nil: break
            case .text(let text)?:
                if escaped { MarkupEscaper.escape(text, into: &out) } else { out.append(text) }
            case .markup(let markup)?:
                if escaped {
                    MarkupEscaper.escape(markup.renderText, into: &out)
                } else {
                    out.append(markup.bytes)
                }
            case .number(let number)?:
                out.append(String(number))
            case let value?:
                write(value.any, escaped: escaped)
            }
            return index + 1
        case .section:
            section(instruction, body: index + 1..<instruction.end, indentation: indentation)
            return instruction.end
        case .partial:
            guard let nodes = program.templates[instruction.a] else { return instruction.end }
            var combined = indentation
            if instruction.b >= 0 { combined = (indentation ?? []) + program.indentations[instruction.b] }
            let outer = inherited
            if instruction.c >= 0 {
                // Blocks given further out win over those given here.
                inherited = (outer ?? [:]).merging(program.overrides[instruction.c]) { given, _ in given }
            }
            render(nodes, indentation: combined)
            inherited = outer
            return instruction.end
        case .block:
            let combined = (indentation ?? []) + program.indentations[instruction.b]
            render(
                inherited?[program.blockNames[instruction.a]] ?? (index + 1..<instruction.end), indentation: combined)
            return instruction.end
        }
    }

    private mutating func section(_ instruction: Program.Instruction, body: Range<Int>, indentation: [UInt8]?) {
        let value = lookup(instruction.a..<instruction.a + instruction.b, fromTop: instruction.fromTop)
        if instruction.flag {
            if Self.isFalsey(value) { render(body, indentation: indentation) }
            return
        }
        switch value {
        case nil: return
        case .flag(let flag)?:
            if flag { render(body, indentation: indentation) }
        case .view(let box)?:
            stack.append(.typed(box))
            render(body, indentation: indentation)
            stack.removeLast()
        case .typedList(let views)?:
            // Each item is asked in its list, where it is: neither cast
            // nor copied into an existential box of its own.
            for index in 0..<views.typedCount {
                stack.append(.item(views, index))
                render(body, indentation: indentation)
                stack.removeLast()
            }
        case .text(let text)?:
            stack.append(.text(text))
            render(body, indentation: indentation)
            stack.removeLast()
        case .boxed(let box)?:
            section(box.value, body: body, indentation: indentation)
        case .number(let number)?:
            stack.append(.other(AnyBox(number)))
            render(body, indentation: indentation)
            stack.removeLast()
        case .markup(let markup)?:
            stack.append(.other(AnyBox(markup)))
            render(body, indentation: indentation)
            stack.removeLast()
        }
    }

    /// A section over a value no typed view gave (a view answering by
    /// `child(named:)` only, a list of plain values, anything else).
    private mutating func section(_ value: Any, body: Range<Int>, indentation: [UInt8]?) {
        switch value {
        case let flag as Bool:
            if flag { render(body, indentation: indentation) }
        case let text as String:
            stack.append(.text(text))
            render(body, indentation: indentation)
            stack.removeLast()
        case let views as any TemplateViewList:
            for index in 0..<views.templateCount {
                push(views.templateView(index))
                render(body, indentation: indentation)
                stack.removeLast()
            }
        case let list as any TemplateList:
            for index in 0..<list.templateCount {
                push(list.templateItem(index))
                render(body, indentation: indentation)
                stack.removeLast()
            }
        default:
            push(value)
            render(body, indentation: indentation)
            stack.removeLast()
        }
    }

    private static func isFalsey(_ value: TemplateValue?) -> Bool {
        switch value {
        case nil: true
        case .flag(let flag)?: !flag
        case .typedList(let views)?: views.typedCount == 0
        case .boxed(let box)?:
            switch box.value {
            case let flag as Bool: !flag
            case is String: false
            case let views as any TemplateViewList: views.templateCount == 0
            case let list as any TemplateList: list.templateCount == 0
            default: false
            }
        default: false
        }
    }

    private mutating func write(_ value: Any, escaped: Bool) {
        switch value {
        case let text as String:
            if escaped { MarkupEscaper.escape(text, into: &out) } else { out.append(text) }
        case let markup as RenderedMarkup:
            if escaped {
                MarkupEscaper.escape(markup.renderText, into: &out)
            } else {
                out.append(markup.bytes)
            }
        case let number as Int:
            out.append(String(number))
        default:
            let text = String(describing: Self.unwrapped(value))
            if escaped { MarkupEscaper.escape(text, into: &out) } else { out.append(text) }
        }
    }

    /// The value an `Any` holding an optional holds (or the optional itself when it is `nil`).
    private static func unwrapped(_ value: Any) -> Any {
        guard let optional = value as? any OptionalValue else { return value }
        return optional.wrappedAny ?? value
    }

    /// A value on the stack: a typed view (answering names with typed
    /// values), an item of a list of them, a string a section entered, a
    /// view answering names itself, or anything else. Every payload is a
    /// reference or a plain value, so an entry is asked where it is: with
    /// an existential payload (`any TypedTemplateView`, `Any`) the enum
    /// was address-only and each name asked copied the entry out first.
    enum Entry {
        case typed(TypedViewBox)
        case item(TypedTemplateViewList, Int)
        case text(String)
        case parent(ParentBox)
        case other(AnyBox)

        var value: TemplateValue {
            switch self {
            case .typed(let box): .view(box)
            case .item(let views, let index): views.typedView(index) ?? .other(views.templateArray)
            case .text(let text): .text(text)
            case .parent(let box): .other(box.parent)
            case .other(let box): TemplateValue(any: box.value)
            }
        }

        func child(_ name: TemplateName) -> TemplateValue? {
            switch self {
            case .typed(let box): box.value(named: name)
            case .item(let views, let index): views.typedValue(index, named: name)
            case .text: nil
            case .parent(let box): box.parent.child(named: name.text).map(TemplateValue.init(any:))
            case .other(let box): Renderer.child(name.text, of: box.value).map(TemplateValue.init(any:))
            }
        }
    }

    /// A value from a view answering by `child(named:)`, or from a plain list.
    mutating func push(_ value: Any) {
        if let view = value as? any TypedTemplateView, let box = view.typedBox {
            stack.append(.typed(box))
        } else if let view = value as? any MustacheParent {
            stack.append(.parent(ParentBox(view)))
        } else if let text = value as? String {
            stack.append(.text(text))
        } else {
            stack.append(.other(AnyBox(value)))
        }
    }

    /// The name at `index` of `names`, its bytes read in place.
    private func name(_ index: Int) -> TemplateName {
        let span = names[index]
        return TemplateName(
            unsafeBytes: UnsafeBufferPointer(rebasing: nameBytes[span.start..<span.start + span.count]), key: span.key)
    }

    private func lookup(_ path: Range<Int>, fromTop: Bool) -> TemplateValue? {
        guard !path.isEmpty else { return stack.last?.value }
        let first = name(path.lowerBound)
        var value: TemplateValue?
        if fromTop {
            value = stack.last.flatMap { $0.child(first) }
        } else {
            // By index, innermost first: each entry is asked in place, not copied out.
            var index = stack.count - 1
            while index >= 0 {
                if let found = stack[index].child(first) {
                    value = found
                    break
                }
                index -= 1
            }
        }
        for index in path.dropFirst() {
            let name = name(index)
            switch value {
            case nil: return nil
            case .view(let box)?: value = box.value(named: name)
            case let other?: value = Self.child(name.text, of: other.any).map(TemplateValue.init(any:))
            }
        }
        return value
    }

    fileprivate static func child(_ name: String, of object: Any) -> Any? {
        // The plain values first, by their type: the cast to a protocol
        // scans every conformance record the first time a type meets it.
        switch object {
        case is String, is Int, is Bool: return nil
        default: break
        }
        if let parent = object as? any MustacheParent { return parent.child(named: name) }
        switch object {
        default:
            // A plain value (not one of the typed views): by reflection, as swift-mustache reads it.
            guard let match = Mirror(reflecting: object).children.first(where: { $0.label == name }) else {
                return nil
            }
            let mirror = Mirror(reflecting: match.value)
            guard mirror.displayStyle == .optional else { return match.value }
            return mirror.children.first?.value
        }
    }
}

/// The bytes of a page being rendered: each piece copied in with one
/// `memcpy` after one capacity check. `[UInt8].append(contentsOf:)` of a
/// template's text took ~100 instructions a piece, 2.4 % of a build's.
/// Freed by whoever made it (`free()`), once its bytes are taken.
struct PageBuffer: ByteOutput {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    func free() { base.deallocate() }

    /// The bytes, copied out.
    var bytes: [UInt8] { Array(contents) }

    /// The bytes where they are (valid until `free()`).
    var contents: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    subscript(index: Int) -> UInt8 { base[index] }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// `bytes` inserted at `index`, what follows moved up.
    mutating func insert(_ bytes: [UInt8], at index: Int) {
        precondition(index >= 0 && index <= count)
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        // Overlapping: `copyMemory` is a memmove.
        UnsafeMutableRawPointer(base + index + bytes.count).copyMemory(from: base + index, byteCount: count - index)
        bytes.withUnsafeBufferPointer { source in
            if let start = source.baseAddress { (base + index).update(from: start, count: source.count) }
        }
        count += bytes.count
    }

    private mutating func grow(to needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }
}

/// What a template rendered, kept as bytes, for another template to
/// insert as is (`{{{body}}}`): the UTF-8 is not decoded and encoded again.
struct RenderedMarkup: MustacheCustomRenderable, Sendable, Equatable {
    var bytes: [UInt8]

    /// For swift-mustache (the `reference` engine).
    var renderText: String { String(decoding: bytes, as: UTF8.self) }
    var isNull: Bool { false }
}

/// What a typed view answers for a name: a value the renderer prints or
/// enters as it is, without casting an `Any` to find out what it is.
/// Every payload is a reference or a plain value (views and anything else
/// in a class box), so the enum is returned in registers and switched on
/// in place, not copied through its value witnesses.
enum TemplateValue {
    case text(String)
    case markup(RenderedMarkup)
    case number(Int)
    case flag(Bool)
    /// A typed view (`.typed(view)`).
    case view(TypedViewBox)
    case typedList(TypedTemplateViewList)
    /// Anything else (`.other(value)`), rendered as swift-mustache renders it.
    case boxed(AnyBox)

    /// A typed view.
    static func typed<View: TypedTemplateView>(_ view: View) -> TemplateValue { .view(TypedViewBoxOf(view)) }

    /// Anything else.
    static func other(_ value: Any) -> TemplateValue { .boxed(AnyBox(value)) }

    /// A list of typed views (see `TypedTemplateViewList`).
    static func typedList<View: TypedTemplateView>(_ views: [View]) -> TemplateValue {
        .typedList(TypedTemplateViewList(views))
    }

    /// Sorts a value by what it is (the casts a typed view spares).
    init(any value: Any) {
        switch value {
        case let text as String: self = .text(text)
        case let flag as Bool: self = .flag(flag)
        case let number as Int: self = .number(number)
        case let markup as RenderedMarkup: self = .markup(markup)
        default: self = .boxed(AnyBox(value))
        }
    }

    /// The value itself, as `child(named:)` answers it.
    var any: Any {
        switch self {
        case .text(let text): text
        case .markup(let markup): markup
        case .number(let number): number
        case .flag(let flag): flag
        case .view(let box): box.any
        case .typedList(let views): views.templateArray
        case .boxed(let box): box.value
        }
    }
}

/// A typed view in a class box: one reference for the renderer's stack
/// and `TemplateValue` to hold, its names asked through the class's table.
class TypedViewBox {
    func value(named name: TemplateName) -> TemplateValue? { nil }
    /// The view itself.
    var any: Any { () }
}

final class TypedViewBoxOf<View: TypedTemplateView>: TypedViewBox {
    let view: View

    init(_ view: View) { self.view = view }

    override func value(named name: TemplateName) -> TemplateValue? { view.templateValue(named: name) }

    override var any: Any { view }
}

/// A view answering by `child(named:)` only, boxed.
final class ParentBox {
    let parent: any MustacheParent

    init(_ parent: any MustacheParent) { self.parent = parent }
}

/// Any other value, boxed.
final class AnyBox {
    let value: Any

    init(_ value: Any) { self.value = value }
}

/// A view that answers names with typed values; `child(named:)` (what
/// swift-mustache, the reference engine, reads) is the same answer as an `Any`.
protocol TypedTemplateView: TemplateView {
    func templateValue(named name: TemplateName) -> TemplateValue?
}

extension TemplateView {
    /// A view answering by `child(named:)` only: none.
    var typedBox: TypedViewBox? { nil }
}

extension TypedTemplateView {
    /// The view itself, known typed by its conformance, without a cast.
    var typedBox: TypedViewBox? { TypedViewBoxOf(self) }
}

extension TypedTemplateView {
    func child(named name: String) -> Any? { TemplateName.with(name) { templateValue(named: $0)?.any } }
}

/// A name a template reads: its UTF-8 bytes, read where they are kept
/// (the compiled templates' names, or a string's own storage), so that
/// handing a name to a view copies two words and retains nothing. It is
/// only valid while it is being asked for: a view never keeps one.
/// The project's views switch on `key`. A view whose names are not in
/// `TemplateKey` (a test's, the bench's) may `switch name { case "title": … }`:
/// that matches by length and bytes against the literal (`~=` below).
struct TemplateName: CustomStringConvertible {
    let utf8: UnsafeBufferPointer<UInt8>
    /// The name as one of the names the project's views answer
    /// (`.unknown` for any other), found when the templates were compiled:
    /// a view's `switch name.key` is a jump on a small integer, and a name
    /// it does not answer costs it nothing but that jump.
    let key: TemplateKey

    init(unsafeBytes utf8: UnsafeBufferPointer<UInt8>, key: TemplateKey) {
        self.utf8 = utf8
        self.key = key
    }

    /// `body` with `text` as a name.
    static func with<Result>(_ text: String, _ body: (TemplateName) -> Result) -> Result {
        let key = TemplateKey(text)
        var text = text
        return text.withUTF8 { body(TemplateName(unsafeBytes: $0, key: key)) }
    }

    var text: String { String(decoding: utf8, as: UTF8.self) }

    var description: String { text }

    @inline(__always)
    static func ~= (pattern: StaticString, name: TemplateName) -> Bool {
        let count = pattern.utf8CodeUnitCount
        guard name.utf8.count == count else { return false }
        let bytes = pattern.utf8Start
        var index = 0
        while index < count {
            if name.utf8[index] != bytes[index] { return false }
            index += 1
        }
        return true
    }
}

/// A list of typed views, its items asked where they are in it.
///
/// Made where the views' type is known (`.typedList(segments)` in a
/// view), so the closure that asks an item is compiled for that type.
/// Asked through a generic conformance of `Array` instead, every name
/// copied the whole item out of the array first (a post's view: a dozen
/// strings retained and released): 6.9 % of a build's instructions.
struct TypedTemplateViewList {
    let typedCount: Int
    /// Item `index`'s answer for a name; for no name, the item itself
    /// (`.typed`); at index -1, the whole list (`.other`).
    private let ask: (Int, TemplateName?) -> TemplateValue?

    init<View: TypedTemplateView>(_ items: [View]) {
        typedCount = items.count
        ask = { index, name in
            guard items.indices.contains(index) else { return index == -1 ? .other(items) : nil }
            guard let name else { return .typed(items[index]) }
            // What keeps the item from being copied out per name is the
            // views' `templateValue` inlined here (`@inline(__always)`); the
            // buffer alone measured the same as `items[index]`.
            return items.withUnsafeBufferPointer { $0[index].templateValue(named: name) }
        }
    }

    /// What the item at `index` answers for `name`.
    func typedValue(_ index: Int, named name: TemplateName) -> TemplateValue? { ask(index, name) }

    /// The item at `index` itself (`{{.}}`).
    func typedView(_ index: Int) -> TemplateValue? { ask(index, nil) }

    /// The list itself (for `child(named:)`).
    var templateArray: Any { ask(-1, nil)?.any ?? [Any]() }
}

/// A list a section repeats its text for.
private protocol TemplateList {
    var templateCount: Int { get }
    func templateItem(_ index: Int) -> Any
}

extension Array: TemplateList {
    fileprivate var templateCount: Int { count }
    fileprivate func templateItem(_ index: Int) -> Any { self[index] }
}

/// A list of typed views: its items go on the stack as they are, without
/// the cast to `MustacheParent` a plain item takes.
private protocol TemplateViewList {
    var templateCount: Int { get }
    func templateView(_ index: Int) -> any MustacheParent
}

extension Array: TemplateViewList where Element: MustacheParent {
    fileprivate func templateView(_ index: Int) -> any MustacheParent { self[index] }
}

private protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedAny: Any? { self.map { $0 } }
}

// MARK: Parsing

/// Reads a template the way swift-mustache's parser does, for the subset.
/// Reads a template's UTF-8 bytes: every delimiter is ASCII, and no byte
/// of a multi-byte character is, so text passes through as it is. Reading
/// `[Character]` cost ~3.5 ms of CPU a build (grapheme breaking, a
/// `Character` hashed for every name byte): 8 % of a no-change build at
/// 100k posts, and every build after one reply pays it too (issue 10). Line breaks and white space are Swift's (`Character.isNewline`,
/// `Unicode.Scalar.Properties.isWhitespace`), as the templates were read before.
private struct TemplateParser {
    let bytes: [UInt8]
    var position = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var reachedEnd: Bool { position >= bytes.count }
    var current: UInt8 { reachedEnd ? 0 : bytes[position] }

    struct State {
        var sectionName: String?
        var newLine = true
        /// Inside `{{<name}}…{{/name}}`, and directly in it (not in one of its blocks).
        var inPartialDefinition = false
        var partialDefinitionTopLevel = false
        var partialDefinitionIndent: Int?

        func section(_ name: String, newLine: Bool) -> State {
            var state = self
            state.sectionName = name
            state.partialDefinitionTopLevel = false
            if !newLine { state.newLine = false }
            return state
        }
    }

    mutating func parseAll() throws(CompiledTemplates.ParseError) -> [CompiledTemplates.Node] {
        try parse(State())
    }

    private var line: Int {
        var count = 1
        var index = 0
        while index < min(position, bytes.count) {
            let length = newlineLength(at: index)
            if length > 0 { count += 1 }
            index += max(length, 1)
        }
        return count
    }

    private func fail(_ reason: String) -> CompiledTemplates.ParseError {
        CompiledTemplates.ParseError(line: line, reason: reason)
    }

    private mutating func parse(_ initial: State) throws(CompiledTemplates.ParseError) -> [CompiledTemplates.Node] {
        var nodes: [CompiledTemplates.Node] = []
        var state = initial
        var whiteSpaceBefore: ArraySlice<UInt8> = []
        func text(_ parts: ArraySlice<UInt8>...) { nodes.append(.text(Array(parts.joined()))) }
        while !reachedEnd {
            if state.newLine {
                let whiteSpace = read { $0 == .space || $0 == .tab }
                if state.inPartialDefinition, !state.partialDefinitionTopLevel {
                    // The first line of a block given to a partial sets how much of
                    // each line's indentation is the block's.
                    if let indent = state.partialDefinitionIndent {
                        whiteSpaceBefore = whiteSpace.dropFirst(indent)
                    } else {
                        state.partialDefinitionIndent = whiteSpace.count
                    }
                } else {
                    whiteSpaceBefore = whiteSpace
                }
            }
            let before = try readUntilTagOrNewline()
            let newline = newlineLength(at: position)
            if newline > 0 {
                text(whiteSpaceBefore, before, bytes[position..<position + newline])
                state.newLine = true
                position += newline
                continue
            }
            if !before.isEmpty {
                text(whiteSpaceBefore, before)
                whiteSpaceBefore = []
                state.newLine = false
            }
            if reachedEnd { break }
            var setNewLine = false
            switch current {
            case UInt8(ascii: "#"), UInt8(ascii: "^"):
                let inverted = current == UInt8(ascii: "^")
                position += 1
                let name = try parseName()
                if isStandalone(state) {
                    setNewLine = true
                } else if !whiteSpaceBefore.isEmpty {
                    text(whiteSpaceBefore)
                    whiteSpaceBefore = []
                }
                let body = try parse(state.section(name, newLine: setNewLine))
                let (names, fromTop) = Self.split(name)
                nodes.append(.section(names, fromTop: fromTop, inverted: inverted, body: body))
            case UInt8(ascii: "/"):
                position += 1
                let name = try parseName()
                guard name == state.sectionName else {
                    throw fail("{{/\(name)}} closes no open section (expected {{/\(state.sectionName ?? "")}})")
                }
                if !isStandalone(state), !whiteSpaceBefore.isEmpty { text(whiteSpaceBefore) }
                return nodes
            case UInt8(ascii: "!"):
                position += 1
                guard let end = find(Self.close) else { throw fail("a comment is not closed") }
                position = end + 2
                setNewLine = isStandalone(state)
            case UInt8(ascii: "{"), UInt8(ascii: "&"):
                let triple = current == UInt8(ascii: "{")
                if !whiteSpaceBefore.isEmpty {
                    text(whiteSpaceBefore)
                    whiteSpaceBefore = []
                }
                position += 1
                let name = try parseName()
                if triple {
                    guard current == UInt8(ascii: "}") else { throw fail("{{{\(name)}} is not closed by }}}") }
                    position += 1
                }
                let (names, fromTop) = Self.split(name)
                nodes.append(.variable(names, escaped: false, fromTop: fromTop))
            case UInt8(ascii: ">"):
                position += 1
                skipWhiteSpace()
                if current == UInt8(ascii: "*") { throw fail("dynamic partials ({{>*name}}) are not supported") }
                let name = readName(Self.partialNameBytes)
                skipWhiteSpace()
                guard readBytes(Self.close) else { throw fail("the partial {{> \(name) is not closed by }}") }
                if !whiteSpaceBefore.isEmpty { text(whiteSpaceBefore) }
                if isStandalone(state) {
                    setNewLine = true
                    nodes.append(.partial(name, indentation: Array(whiteSpaceBefore), overrides: nil))
                } else {
                    nodes.append(.partial(name, indentation: nil, overrides: nil))
                }
                whiteSpaceBefore = []
            case UInt8(ascii: "%"):
                position += 1
                skipWhiteSpace()
                let variable = readName(Self.pragmaBytes)
                skipWhiteSpace()
                guard variable == "CONTENT_TYPE", readBytes([UInt8(ascii: ":")]) else {
                    throw fail("only the {{% CONTENT_TYPE: … }} pragma is supported")
                }
                skipWhiteSpace()
                let value = readName(Self.pragmaBytes)
                skipWhiteSpace()
                guard !value.isEmpty, readBytes(Self.close) else {
                    throw fail("a {{% CONTENT_TYPE: … }} pragma is malformed")
                }
                setNewLine = isStandalone(state)
            case UInt8(ascii: "="):
                throw fail("set delimiters ({{=…=}}) are not supported")
            case UInt8(ascii: "<"):
                position += 1
                skipWhiteSpace()
                let name = readName(Self.partialNameBytes)
                skipWhiteSpace()
                guard readBytes(Self.close) else { throw fail("the partial {{<\(name) is not closed by }}") }
                if name.first == "*" { throw fail("dynamic partials ({{<*name}}) are not supported") }
                if !whiteSpaceBefore.isEmpty { text(whiteSpaceBefore) }
                if isStandalone(state) { setNewLine = true }
                var definition = state
                definition.sectionName = name
                definition.newLine = true
                definition.inPartialDefinition = true
                definition.partialDefinitionTopLevel = true
                var overrides: [String: [CompiledTemplates.Node]] = [:]
                for node in try parse(definition) {
                    switch node {
                    case .blockDefinition(let block, let body): overrides[block] = body
                    case .text: break
                    default: throw fail("{{<\(name)}} may only hold blocks ({{$name}}…{{/name}})")
                    }
                }
                nodes.append(.partial(name, indentation: Array(whiteSpaceBefore), overrides: overrides))
                whiteSpaceBefore = []
            case UInt8(ascii: "$"):
                position += 1
                let name = try parseName()
                if state.partialDefinitionTopLevel {
                    if isStandalone(state) { setNewLine = true }
                    let body = try parse(state.section(name, newLine: setNewLine))
                    nodes.append(.blockDefinition(name, body))
                } else {
                    if !whiteSpaceBefore.isEmpty { text(whiteSpaceBefore) }
                    if isStandalone(state) { setNewLine = true }
                    let body = try parse(state.section(name, newLine: setNewLine))
                    nodes.append(.block(name, defaultBody: body, indentation: Array(whiteSpaceBefore)))
                    whiteSpaceBefore = []
                }
            default:
                if !whiteSpaceBefore.isEmpty {
                    text(whiteSpaceBefore)
                    whiteSpaceBefore = []
                }
                let name = try parseName()
                let (names, fromTop) = Self.split(name)
                nodes.append(.variable(names, escaped: true, fromTop: fromTop))
            }
            state.newLine = setNewLine
        }
        if let open = state.sectionName { throw fail("the section {{#\(open)}} is not closed") }
        return nodes
    }

    /// `a.b` → (["a", "b"], false); `.` → ([], false); `.a` → (["a"], true).
    private static func split(_ name: String) -> ([String], Bool) {
        if name == "." { return ([], false) }
        return (name.split(separator: ".").map(String.init), name.first == ".")
    }

    private mutating func parseName() throws(CompiledTemplates.ParseError) -> String {
        skipWhiteSpace()
        let name = readName(Self.nameBytes)
        skipWhiteSpace()
        guard readBytes(Self.close) else { throw fail("a tag is not closed by }} (or its name has other characters)") }
        // By byte: `String.contains(String)` is Foundation's search (CFStringFind), 4 of
        // the 15 perf samples left in the parse.
        if name.utf8.contains(where: { $0 == UInt8(ascii: "(") || $0 == UInt8(ascii: ")") }) {
            throw fail("transforms ({{name(…)}}) are not supported")
        }
        if name.isEmpty { throw fail("a tag has no name") }
        return name
    }

    /// Text up to the next `{{` (consumed) or line break (not consumed).
    private mutating func readUntilTagOrNewline() throws(CompiledTemplates.ParseError) -> ArraySlice<UInt8> {
        let start = position
        while !reachedEnd {
            let byte = bytes[position]
            if byte == UInt8(ascii: "{") {
                let end = position
                if readBytes(Self.open) { return bytes[start..<end] }
                if position + 1 >= bytes.count { throw fail("the template ends in a lone {") }
            } else if newlineLength(at: position) > 0 {
                break
            }
            position += 1
        }
        return bytes[start..<position]
    }

    /// A tag alone on its line (spaces and tabs aside): its line break is consumed.
    private mutating func isStandalone(_ state: State) -> Bool {
        guard state.newLine, lineFinished() else { return false }
        consumeLineEnd()
        return true
    }

    /// True at the end, or when only spaces and tabs are left on the line.
    private func lineFinished() -> Bool {
        if reachedEnd { return true }
        var look = position
        while look < bytes.count, bytes[look] == .space || bytes[look] == .tab { look += 1 }
        return look < bytes.count && newlineLength(at: look) > 0
    }

    private mutating func consumeLineEnd() {
        while !reachedEnd, current == .space || current == .tab { position += 1 }
        position += newlineLength(at: position)
    }

    /// The bytes of the line break at `index` (as `Character.isNewline`
    /// reads them: LF, VT, FF, CR, CR LF, NEL, LS, PS); 0 when there is none.
    private func newlineLength(at index: Int) -> Int {
        guard index < bytes.count else { return 0 }
        switch bytes[index] {
        case 0x0D: return index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
        case 0x0A, 0x0B, 0x0C: return 1
        case 0xC2: return index + 1 < bytes.count && bytes[index + 1] == 0x85 ? 2 : 0
        case 0xE2:
            guard index + 2 < bytes.count, bytes[index + 1] == 0x80 else { return 0 }
            return bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 ? 3 : 0
        default: return 0
        }
    }

    /// Skips white space (any Unicode white space, line breaks too, as `Character.isWhitespace`).
    private mutating func skipWhiteSpace() {
        while !reachedEnd {
            let byte = bytes[position]
            if byte < 0x80 {
                guard byte == .space || (0x09...0x0D).contains(byte) else { return }
                position += 1
                continue
            }
            // A multi-byte scalar: decoded to ask whether it is white space.
            var iterator = bytes[position...].makeIterator()
            var decoder = UTF8()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator), scalar.properties.isWhitespace else {
                return
            }
            position += UTF8.width(scalar)
        }
    }

    private mutating func read(while matches: (UInt8) -> Bool) -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.count, matches(bytes[position]) { position += 1 }
        return bytes[start..<position]
    }

    /// A name of the ASCII characters `allowed` flags.
    private mutating func readName(_ allowed: [Bool]) -> String {
        String(decoding: read { $0 < 0x80 && allowed[Int($0)] }, as: UTF8.self)
    }

    private mutating func readBytes(_ wanted: [UInt8]) -> Bool {
        guard position + wanted.count <= bytes.count, bytes[position..<position + wanted.count].elementsEqual(wanted)
        else { return false }
        position += wanted.count
        return true
    }

    private func find(_ wanted: [UInt8]) -> Int? {
        var index = position
        while index + wanted.count <= bytes.count {
            if bytes[index..<index + wanted.count].elementsEqual(wanted) { return index }
            index += 1
        }
        return nil
    }

    private static let open: [UInt8] = Array("{{".utf8)
    private static let close: [UInt8] = Array("}}".utf8)

    /// ASCII bytes as flags: `allowed[byte]`.
    private static func flags(_ characters: String) -> [Bool] {
        var allowed = [Bool](repeating: false, count: 128)
        for byte in characters.utf8 { allowed[Int(byte)] = true }
        return allowed
    }

    private static let nameBytes = flags("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?()*")
    private static let partialNameBytes = flags(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?()*/")
    /// A pragma's words: name characters but the parentheses.
    private static let pragmaBytes = flags("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?*")
}

extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
}

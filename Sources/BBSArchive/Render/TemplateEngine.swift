import Mustache

/// The project's own renderer of the Mustache subset `templates/` uses:
/// text, `{{name}}` (escaped by `MarkupEscaper`), `{{{name}}}` and
/// `{{&name}}`, sections `{{#name}}`, inverted sections `{{^name}}`,
/// partials `{{> name}}`, partials with blocks of their own
/// (`{{<name}}{{$block}}…{{/block}}{{/name}}`), blocks `{{$block}}…{{/block}}`,
/// comments and `{{% CONTENT_TYPE: … }}` pragmas.
///
/// Each template is parsed once into a tree of instructions; a page is
/// rendered by walking it over the typed views (`child(named:)`) straight
/// into one byte buffer. Whitespace follows swift-mustache's rules exactly
/// (standalone tags take their line with them; an indented standalone
/// partial indents its lines), so the pages are byte for byte what
/// swift-mustache renders (`TemplateEngineTests`). A template using a
/// feature outside the subset (set delimiters, transforms `name(…)`,
/// dynamic partials) is refused with the file and line.
struct CompiledTemplates: Sendable {
    enum Node: Sendable {
        case text([UInt8])
        /// A name split at its dots; `[]` is `.`, the current value.
        case variable([TemplateName], escaped: Bool, fromTop: Bool)
        case section([TemplateName], fromTop: Bool, inverted: Bool, body: [Node])
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

    private(set) var templates: [String: [Node]] = [:]

    init() {}

    /// Parses a template's text and keeps it under `name`.
    mutating func register(_ text: String, named name: String) throws(ParseError) {
        var parser = TemplateParser(text)
        templates[name] = try parser.parseAll()
    }

    func has(_ name: String) -> Bool { templates[name] != nil }

    /// Renders the template `name` with `view` at the bottom of the
    /// context stack; `nil` when there is no such template. `capacity`:
    /// the bytes reserved up front (a page's worth unless told less, for
    /// a fragment such as a post's body that is kept until its page is done).
    func render(_ name: String, _ view: Any, capacity: Int = 16 * 1024) -> [UInt8]? {
        guard let nodes = templates[name] else { return nil }
        var renderer = Renderer(templates: templates)
        renderer.push(view)
        renderer.out.reserveCapacity(capacity)
        renderer.render(nodes, indentation: nil)
        return renderer.out
    }
}

// MARK: Rendering

private struct Renderer {
    let templates: [String: [CompiledTemplates.Node]]
    /// The values sections entered, innermost last, each sorted once.
    var stack: [Entry] = []
    var out: [UInt8] = []
    /// The blocks the partials being rendered were given.
    var inherited: [String: [CompiledTemplates.Node]]?

    /// Renders `nodes` into `out`. With an indentation (an indented
    /// standalone partial), every non-empty piece that starts a line of
    /// this run of nodes gets it in front, as swift-mustache does.
    mutating func render(_ nodes: [CompiledTemplates.Node], indentation: [UInt8]?) {
        guard let indentation, !indentation.isEmpty else {
            for node in nodes { render(node, indentation: indentation) }
            return
        }
        // In place: a node's output gets the indentation in front when it
        // is not empty and follows a line break this run wrote (not one
        // from before the run).
        let begin = out.count
        for node in nodes {
            let mark = out.count
            render(node, indentation: indentation)
            if out.count > mark, mark > begin, out[mark - 1] == UInt8(ascii: "\n") {
                out.insert(contentsOf: indentation, at: mark)
            }
        }
    }

    private mutating func render(_ node: CompiledTemplates.Node, indentation: [UInt8]?) {
        switch node {
        case .text(let bytes):
            out.append(contentsOf: bytes)
        case .variable(let names, let escaped, let fromTop):
            switch lookup(names, fromTop: fromTop) {
            case nil: return
            case .text(let text)?:
                if escaped { MarkupEscaper.escape(text, into: &out) } else { out.append(contentsOf: text.utf8) }
            case .markup(let markup)?:
                if escaped {
                    MarkupEscaper.escape(markup.renderText, into: &out)
                } else {
                    out.append(contentsOf: markup.bytes)
                }
            case .number(let number)?:
                out.append(contentsOf: String(number).utf8)
            case let value?:
                write(value.any, escaped: escaped)
            }
        case .section(let names, let fromTop, let inverted, let body):
            let value = lookup(names, fromTop: fromTop)
            if inverted {
                if !Self.isFalsey(value) { return }
                render(body, indentation: indentation)
                return
            }
            switch value {
            case nil: return
            case .flag(let flag)?:
                if flag { render(body, indentation: indentation) }
            case .typed(let view)?:
                stack.append(.typed(view))
                render(body, indentation: indentation)
                stack.removeLast()
            case .typedList(let views)?:
                // Each item goes on the stack as the view it is: no cast per item.
                for index in 0..<views.typedCount {
                    stack.append(.typed(views.typedView(index)))
                    render(body, indentation: indentation)
                    stack.removeLast()
                }
            case .text(let text)?:
                stack.append(.plain(text))
                render(body, indentation: indentation)
                stack.removeLast()
            case .other(let value)?:
                section(value, body: body, indentation: indentation)
            case let value?:
                push(value.any)
                render(body, indentation: indentation)
                stack.removeLast()
            }
        case .partial(let name, let indented, let overrides):
            guard let nodes = templates[name] else { return }
            var combined = indentation
            if let indented { combined = (indentation ?? []) + indented }
            let outer = inherited
            if let overrides {
                // Blocks given further out win over those given here.
                inherited = (outer ?? [:]).merging(overrides) { given, _ in given }
            }
            render(nodes, indentation: combined)
            inherited = outer
        case .block(let name, let defaultBody, let indented):
            let combined = (indentation ?? []) + indented
            render(inherited?[name] ?? defaultBody, indentation: combined)
        case .blockDefinition:
            return
        }
    }

    /// A section over a value no typed view gave (a view answering by
    /// `child(named:)` only, a list of plain values, anything else).
    private mutating func section(_ value: Any, body: [CompiledTemplates.Node], indentation: [UInt8]?) {
        switch value {
        case let flag as Bool:
            if flag { render(body, indentation: indentation) }
        case let text as String:
            stack.append(.plain(text))
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
        case .other(let value)?:
            switch value {
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
            if escaped { MarkupEscaper.escape(text, into: &out) } else { out.append(contentsOf: text.utf8) }
        case let markup as RenderedMarkup:
            if escaped {
                MarkupEscaper.escape(markup.renderText, into: &out)
            } else {
                out.append(contentsOf: markup.bytes)
            }
        case let number as Int:
            out.append(contentsOf: String(number).utf8)
        default:
            let text = String(describing: Self.unwrapped(value))
            if escaped { MarkupEscaper.escape(text, into: &out) } else { out.append(contentsOf: text.utf8) }
        }
    }

    /// The value an `Any` holding an optional holds (or the optional itself when it is `nil`).
    private static func unwrapped(_ value: Any) -> Any {
        guard let optional = value as? any OptionalValue else { return value }
        return optional.wrappedAny ?? value
    }

    /// A value on the stack: a typed view (answering names with typed
    /// values), a view answering names itself, or anything else (a string
    /// a section entered, say).
    enum Entry {
        case typed(any TypedTemplateView)
        case view(any MustacheParent)
        case plain(Any)

        var value: TemplateValue {
            switch self {
            case .typed(let view): .typed(view)
            case .view(let view): .other(view)
            case .plain(let value): TemplateValue(any: value)
            }
        }

        func child(_ name: TemplateName) -> TemplateValue? {
            switch self {
            case .typed(let view): view.templateValue(named: name)
            case .view(let view): view.child(named: name.text).map(TemplateValue.init(any:))
            case .plain(let value): Renderer.child(name.text, of: value).map(TemplateValue.init(any:))
            }
        }
    }

    mutating func push(_ value: Any) {
        if let view = value as? any TypedTemplateView {
            stack.append(.typed(view))
        } else if let view = value as? any MustacheParent {
            stack.append(.view(view))
        } else {
            stack.append(.plain(value))
        }
    }

    private func lookup(_ names: [TemplateName], fromTop: Bool) -> TemplateValue? {
        guard let first = names.first else { return stack.last?.value }
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
        guard names.count > 1 else { return value }
        for name in names[1...] {
            switch value {
            case nil: return nil
            case .typed(let view)?: value = view.templateValue(named: name)
            case let other?: value = Self.child(name.text, of: other.any).map(TemplateValue.init(any:))
            }
        }
        return value
    }

    fileprivate static func child(_ name: String, of object: Any) -> Any? {
        if let parent = object as? any MustacheParent { return parent.child(named: name) }
        switch object {
        case is String, is Int, is Bool: return nil
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
enum TemplateValue {
    case text(String)
    case markup(RenderedMarkup)
    case number(Int)
    case flag(Bool)
    case typed(any TypedTemplateView)
    case typedList(any TypedTemplateViewList)
    /// Anything else, rendered as swift-mustache renders it.
    case other(Any)

    /// Sorts a value by what it is (the casts a typed view spares).
    init(any value: Any) {
        switch value {
        case let text as String: self = .text(text)
        case let flag as Bool: self = .flag(flag)
        case let number as Int: self = .number(number)
        case let markup as RenderedMarkup: self = .markup(markup)
        default: self = .other(value)
        }
    }

    /// The value itself, as `child(named:)` answers it.
    var any: Any {
        switch self {
        case .text(let text): text
        case .markup(let markup): markup
        case .number(let number): number
        case .flag(let flag): flag
        case .typed(let view): view
        case .typedList(let views): views.templateArray
        case .other(let value): value
        }
    }
}

/// A view that answers names with typed values; `child(named:)` (what
/// swift-mustache, the reference engine, reads) is the same answer as an `Any`.
protocol TypedTemplateView: TemplateView {
    func templateValue(named name: TemplateName) -> TemplateValue?
}

extension TypedTemplateView {
    func child(named name: String) -> Any? { templateValue(named: TemplateName(name))?.any }
}

/// A name a template reads, as parsed once: its text and its UTF-8 bytes.
/// A typed view's `switch name { case "title": … }` matches it by length
/// and bytes against the literal (`~=` below), inlined, instead of one
/// call to the standard library's string comparison per case tried: the
/// renderer asks every view on its stack, innermost first, for each name.
struct TemplateName: Sendable, CustomStringConvertible {
    let text: String
    let utf8: [UInt8]

    init(_ text: String) {
        self.text = text
        utf8 = Array(text.utf8)
    }

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

/// A list of typed views, its items entered without a cast each.
protocol TypedTemplateViewList {
    var typedCount: Int { get }
    func typedView(_ index: Int) -> any TypedTemplateView
    /// The list itself (for `child(named:)`).
    var templateArray: Any { get }
}

extension Array: TypedTemplateViewList where Element: TypedTemplateView {
    var typedCount: Int { count }
    func typedView(_ index: Int) -> any TypedTemplateView { self[index] }
    var templateArray: Any { self }
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
private struct TemplateParser {
    let chars: [Character]
    var position = 0

    init(_ text: String) { chars = Array(text) }

    var reachedEnd: Bool { position >= chars.count }
    var current: Character { reachedEnd ? "\0" : chars[position] }

    struct State {
        var sectionName: String?
        var newLine = true
        /// Inside `{{<name}}…{{/name}}`, and directly in it (not in one of its blocks).
        var inPartialDefinition = false
        var partialDefinitionTopLevel = false
        var partialDefinitionIndent: String?

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

    private var line: Int { chars[..<min(position, chars.count)].reduce(1) { $1.isNewline ? $0 + 1 : $0 } }

    private func fail(_ reason: String) -> CompiledTemplates.ParseError {
        CompiledTemplates.ParseError(line: line, reason: reason)
    }

    private mutating func parse(_ initial: State) throws(CompiledTemplates.ParseError) -> [CompiledTemplates.Node] {
        var nodes: [CompiledTemplates.Node] = []
        var state = initial
        var whiteSpaceBefore = ""
        func text(_ string: String) { nodes.append(.text(Array(string.utf8))) }
        while !reachedEnd {
            if state.newLine {
                let whiteSpace = read { $0 == " " || $0 == "\t" }
                if state.inPartialDefinition, !state.partialDefinitionTopLevel {
                    // The first line of a block given to a partial sets how much of
                    // each line's indentation is the block's.
                    if let indent = state.partialDefinitionIndent {
                        whiteSpaceBefore = String(whiteSpace.dropFirst(indent.count))
                    } else {
                        state.partialDefinitionIndent = whiteSpace
                    }
                } else {
                    whiteSpaceBefore = whiteSpace
                }
            }
            let before = try readUntilTagOrNewline()
            if current.isNewline {
                text(whiteSpaceBefore + before + String(current))
                state.newLine = true
                position += 1
                continue
            }
            if !before.isEmpty {
                text(whiteSpaceBefore + before)
                whiteSpaceBefore = ""
                state.newLine = false
            }
            if reachedEnd { break }
            var setNewLine = false
            switch current {
            case "#", "^":
                let inverted = current == "^"
                position += 1
                let name = try parseName()
                if isStandalone(state) {
                    setNewLine = true
                } else if !whiteSpaceBefore.isEmpty {
                    text(whiteSpaceBefore)
                    whiteSpaceBefore = ""
                }
                let body = try parse(state.section(name, newLine: setNewLine))
                let (names, fromTop) = Self.split(name)
                nodes.append(.section(names, fromTop: fromTop, inverted: inverted, body: body))
            case "/":
                position += 1
                let name = try parseName()
                guard name == state.sectionName else {
                    throw fail("{{/\(name)}} closes no open section (expected {{/\(state.sectionName ?? "")}})")
                }
                if !isStandalone(state), !whiteSpaceBefore.isEmpty { text(whiteSpaceBefore) }
                return nodes
            case "!":
                position += 1
                guard let end = find("}}") else { throw fail("a comment is not closed") }
                position = end + 2
                setNewLine = isStandalone(state)
            case "{", "&":
                let triple = current == "{"
                if !whiteSpaceBefore.isEmpty {
                    text(whiteSpaceBefore)
                    whiteSpaceBefore = ""
                }
                position += 1
                let name = try parseName()
                if triple {
                    guard current == "}" else { throw fail("{{{\(name)}} is not closed by }}}") }
                    position += 1
                }
                let (names, fromTop) = Self.split(name)
                nodes.append(.variable(names, escaped: false, fromTop: fromTop))
            case ">":
                position += 1
                _ = read { $0.isWhitespace }
                if current == "*" { throw fail("dynamic partials ({{>*name}}) are not supported") }
                let name = read { Self.partialNameChars.contains($0) }
                _ = read { $0.isWhitespace }
                guard readString("}}") else { throw fail("the partial {{> \(name) is not closed by }}") }
                if !whiteSpaceBefore.isEmpty { text(whiteSpaceBefore) }
                if isStandalone(state) {
                    setNewLine = true
                    nodes.append(.partial(name, indentation: Array(whiteSpaceBefore.utf8), overrides: nil))
                } else {
                    nodes.append(.partial(name, indentation: nil, overrides: nil))
                }
                whiteSpaceBefore = ""
            case "%":
                position += 1
                _ = read { $0.isWhitespace }
                let variable = read { Self.nameChars.contains($0) && $0 != "(" && $0 != ")" }
                _ = read { $0.isWhitespace }
                guard variable == "CONTENT_TYPE", readString(":") else {
                    throw fail("only the {{% CONTENT_TYPE: … }} pragma is supported")
                }
                _ = read { $0.isWhitespace }
                let value = read { Self.nameChars.contains($0) && $0 != "(" && $0 != ")" }
                _ = read { $0.isWhitespace }
                guard !value.isEmpty, readString("}}") else {
                    throw fail("a {{% CONTENT_TYPE: … }} pragma is malformed")
                }
                setNewLine = isStandalone(state)
            case "=":
                throw fail("set delimiters ({{=…=}}) are not supported")
            case "<":
                position += 1
                _ = read { $0.isWhitespace }
                let name = read { Self.partialNameChars.contains($0) }
                _ = read { $0.isWhitespace }
                guard readString("}}") else { throw fail("the partial {{<\(name) is not closed by }}") }
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
                nodes.append(.partial(name, indentation: Array(whiteSpaceBefore.utf8), overrides: overrides))
                whiteSpaceBefore = ""
            case "$":
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
                    nodes.append(.block(name, defaultBody: body, indentation: Array(whiteSpaceBefore.utf8)))
                    whiteSpaceBefore = ""
                }
            default:
                if !whiteSpaceBefore.isEmpty {
                    text(whiteSpaceBefore)
                    whiteSpaceBefore = ""
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
    private static func split(_ name: String) -> ([TemplateName], Bool) {
        if name == "." { return ([], false) }
        return (name.split(separator: ".").map { TemplateName(String($0)) }, name.first == ".")
    }

    private mutating func parseName() throws(CompiledTemplates.ParseError) -> String {
        _ = read { $0.isWhitespace }
        let name = read { Self.nameChars.contains($0) }
        _ = read { $0.isWhitespace }
        guard readString("}}") else { throw fail("a tag is not closed by }} (or its name has other characters)") }
        if name.contains("(") || name.contains(")") { throw fail("transforms ({{name(…)}}) are not supported") }
        if name.isEmpty { throw fail("a tag has no name") }
        return name
    }

    /// Text up to the next `{{` (consumed) or line break (not consumed).
    private mutating func readUntilTagOrNewline() throws(CompiledTemplates.ParseError) -> String {
        var text = ""
        while !reachedEnd {
            let character = chars[position]
            if character.isNewline { break }
            if character == "{" {
                if readString("{{") { break }
                if position + 1 >= chars.count { throw fail("the template ends in a lone {") }
            }
            text.append(character)
            position += 1
        }
        return text
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
        while look < chars.count, chars[look] == " " || chars[look] == "\t" { look += 1 }
        return look < chars.count && chars[look].isNewline
    }

    private mutating func consumeLineEnd() {
        while !reachedEnd, current == " " || current == "\t" { position += 1 }
        if !reachedEnd, current.isNewline { position += 1 }
    }

    private mutating func read(while matches: (Character) -> Bool) -> String {
        let start = position
        while position < chars.count, matches(chars[position]) { position += 1 }
        return String(chars[start..<position])
    }

    private mutating func readString(_ string: String) -> Bool {
        let wanted = Array(string)
        guard position + wanted.count <= chars.count, Array(chars[position..<position + wanted.count]) == wanted
        else { return false }
        position += wanted.count
        return true
    }

    private func find(_ string: String) -> Int? {
        let wanted = Array(string)
        var index = position
        while index + wanted.count <= chars.count {
            if Array(chars[index..<index + wanted.count]) == wanted { return index }
            index += 1
        }
        return nil
    }

    private static let nameChars = Set<Character>(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?()*")
    private static let partialNameChars = Set<Character>(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?()*/")
}

import Foundation
import Testing

@testable import BBSArchive

/// The project's own Mustache renderer (`CompiledTemplates`) against
/// swift-mustache: the same bytes for every page of a site, for the
/// whitespace rules on their own, and a clear error for what it does not
/// support.
@Suite struct TemplateEngineTests {
    /// The golden and parallel-build store, every file of its site.
    @Test func handMadeSiteIsByteIdenticalToSwiftMustache() async throws {
        let store = try ParallelBuildTests.makeStore()
        let compiled = try await Self.build(store, engine: .compiled)
        let reference = try await Self.build(store, engine: .reference)
        #expect(compiled.count > 100)
        Self.expectSame(compiled, reference)
    }

    /// A site fetched from the replica (every kind of page, long threads,
    /// pagers, author views, feeds, sitemap), as built on disk.
    @Test func replicaSiteIsByteIdenticalToSwiftMustache() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let store = try ArchiveStore(path: built.storePath)
        let templates = try await TemplateSet(directory: Fixtures.templates, engine: .reference)
        var options = SiteBuilder.Options()
        options.forum = Fixtures.smthForum
        options.siteURL = ReadingSiteFixture.siteURL
        options.threadsPerPage = ReadingSiteFixture.threadsPerPage
        options.postsPerPage = ReadingSiteFixture.postsPerPage
        let publisher = MemoryPublisher()
        _ = try SiteBuilder(store: store, templates: templates, publisher: publisher, options: options).build()
        var onDisk: [String: Data] = [:]
        let root = built.published.root
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walker?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let relative = String(url.path.dropFirst(root.path.count).drop { $0 == "/" })
            onDisk[relative] = try Data(contentsOf: url)
        }
        let reference = publisher.files.filter { $0.key != BuildState.path }
        onDisk[BuildState.path] = nil
        #expect(reference.count > 500)
        Self.expectSame(onDisk, reference)
    }

    /// Standalone tags, indented partials, comments, pragmas, dotted names,
    /// `{{.}}`, inverted sections over lists, optionals and flags, and
    /// values that need escaping, rendered by both engines.
    @Test func whitespaceAndLookupRulesMatchSwiftMustache() async throws {
        let folder = try Self.templatesCopy([
            "t-main": """
            {{! a comment alone on its line }}
              {{#items}}
              <li>{{name}} {{n}}{{#flag}} on{{/flag}}{{^flag}} off{{/flag}}</li>
              {{/items}}
            {{^items}}none{{/items}}{{^empty}}no items{{/empty}}
              {{> t-part}}
            a {{> t-part}} b
            {{#inner}}{{inner.name}} {{.name}} {{top}} {{missing}}{{/inner}}
            {{#text}}[{{.}}]{{/text}} {{{raw}}} {{&raw}} {{ spaced }}
            \t{{#flag}}
            tabbed
            \t{{/flag}}
            {{% CONTENT_TYPE: HTML }}
            end {{#n}}n={{.}}{{/n}}{{#none}}never{{/none}}
            """,
            "t-part": "<p>\n{{top}}\n</p>\n  {{#items}}\n  - {{name}}\n  {{/items}}\n",
        ])
        let view = Probe(
            top: "<top & \"q\">",
            items: [Probe.Item(name: "a'b", n: 1, flag: true), Probe.Item(name: "c", n: 22, flag: false)],
            inner: Probe.Item(name: "inner", n: 3, flag: false), text: "x<y", raw: "<b>raw</b>", n: 0)
        let compiled = try await TemplateSet(directory: folder)
        let reference = try await TemplateSet(directory: folder, engine: .reference)
        let ours = try compiled.render("t-main", view)
        let theirs = try reference.render("t-main", view)
        #expect(ours == theirs)
        #expect(ours.contains("&lt;top &amp; &quot;q&quot;&gt;"))
        #expect(ours.contains("<b>raw</b>"))
    }

    /// Templates are read as UTF-8 bytes: Chinese text around tags, a
    /// lone `{`, CR LF line ends around standalone tags, and a full-width
    /// space inside a tag come out as swift-mustache renders them.
    @Test func multiByteTextAndLineEndsMatchSwiftMustache() async throws {
        let template =
            "第{{n}}页 {x} 热门话题\r\n  {{#items}}\r\n  <li>「{{name}}」</li>\r\n  {{/items}}\r\n"
            + "{{\u{3000}top\u{3000}}}只看\n{{^items}}无{{/items}}原帖已删除"
        let folder = try Self.templatesCopy(["t-cjk": template])
        let view = Probe(
            top: "楼主 & <b>",
            items: [Probe.Item(name: "水木", n: 1, flag: true), Probe.Item(name: "c", n: 2, flag: false)],
            inner: Probe.Item(name: "", n: 0, flag: false), text: "", raw: "", n: 24)
        let compiled = try await TemplateSet(directory: folder)
        let reference = try await TemplateSet(directory: folder, engine: .reference)
        let ours = try compiled.render("t-cjk", view)
        #expect(ours == (try reference.render("t-cjk", view)))
        #expect(ours.hasPrefix("第24页 {x} 热门话题\r\n  <li>「水木」</li>\r\n  <li>「c」</li>\r\n楼主 &amp; &lt;b&gt;只看\n"))
    }

    /// Typed lists' items are asked in place (their list and index on the
    /// stack, no box per item): nested lists, names found further out,
    /// dotted names, `{{.}}` of an item's value, empty and inverted lists,
    /// the same as swift-mustache renders them.
    @Test func typedListItemsMatchSwiftMustache() async throws {
        let folder = try Self.templatesCopy([
            "t-typed": """
            {{#rows}}<{{name}}:{{#cells}}{{text}}{{#href}}({{.}}){{/href}}{{^href}}-{{/href}}{{title}}{{/cells}}\
            {{^cells}}none{{/cells}} {{count}}>{{/rows}}{{^empty}}E{{/empty}}{{#empty}}never{{/empty}}
            {{#rows}}{{#cells}}{{.text}}{{first.name}}{{/cells}}{{/rows}}{{#first}}{{name}}{{#cells}}[{{text}}]{{/cells}}{{/first}}
            """
        ])
        let cells = [TypedProbe.Cell(text: "a<b", href: "h&1"), TypedProbe.Cell(text: "c", href: nil)]
        let view = TypedProbe(
            title: "T\"", rows: [.init(name: "r1", cells: cells), .init(name: "r2", cells: [])], empty: [])
        let ours = try await TemplateSet(directory: folder).render("t-typed", view)
        let theirs = try await TemplateSet(directory: folder, engine: .reference).render("t-typed", view)
        #expect(ours == theirs)
        #expect(ours.contains("<r1:a&lt;b(h&amp;1)T&quot;c-T&quot;"))
    }

    /// Templates laid out flat (a section's body after it, a partial by
    /// number, blocks given to a partial after it): partials named before
    /// they are registered, one never registered, blocks given inside a
    /// section and the text after each, as swift-mustache renders them.
    @Test func flatLayoutMatchesSwiftMustache() async throws {
        let folder = try Self.templatesCopy([
            "t-a": """
            {{#rows}}[{{<t-frame}}{{$body}}{{name}}{{/body}}{{/t-frame}}]{{/rows}} after {{> t-missing}}end
              {{> t-b}}
            {{<t-frame}}{{/t-frame}} {{#first}}{{^cells}}no cells{{/cells}}{{#cells}}{{text}}{{/cells}}{{/first}} {{title}}
            """,
            "t-b": "b1 {{#rows}}{{name}}{{/rows}}\nb2 {{title}}\n",
            "t-frame": "<{{$body}}default{{/body}}|{{$other}}o {{title}}{{/other}}>",
        ])
        let view = TypedProbe(
            title: "T", rows: [.init(name: "r1", cells: [.init(text: "c", href: nil)]), .init(name: "r2", cells: [])],
            empty: [])
        let ours = try await TemplateSet(directory: folder).render("t-a", view)
        let theirs = try await TemplateSet(directory: folder, engine: .reference).render("t-a", view)
        #expect(ours == theirs)
        #expect(ours.hasPrefix("[<r1|o T>][<r2|o T>] after end\n  b1 r1r2\n  b2 T\n<default|o T> c T"), "\(ours)")
    }

    /// The project's views answer by key (`TemplateKey`, found when the
    /// templates are compiled): a user's template with names no view
    /// answers (`bogus`, a name spelled like the unknown key, a name only
    /// another view knows) renders them empty, falsey and their inverted
    /// sections shown, names found further out, dotted names and `{{.}}`
    /// as swift-mustache renders them.
    @Test func projectViewsAnswerByKeyAndUnknownNamesRenderEmpty() async throws {
        let folder = try Self.templatesCopy([
            "t-keys": """
            {{current}}/{{total}} {{#pages}}[{{number}}{{#isCurrent}}*{{/isCurrent}} {{href}} {{total}} {{bogus}}]\
            {{/pages}}{{#firstPage}}{{href}}{{/firstPage}}{{^lastPage}}no last{{/lastPage}} {{firstPage.number}} \
            {{firstPage.bogus}}{{unknown}}{{segHref}}{{#bogus}}never{{/bogus}}{{^bogus}}empty{{/bogus}}\
            {{#jump}}{{pattern}} {{pages}} {{floors}} {{#first}}<{{.}}>{{/first}}{{/jump}}{{^unknown}}!{{/unknown}}
            """
        ])
        guard var view = Pager.view(current: 2, total: 3, href: { "p\($0)&.html" }) else {
            Issue.record("no pager for three pages")
            return
        }
        view.lastPage = nil
        view.jump = PageJumpView(pages: 3, floors: [0, 10, 20]) { $0 == 1 ? "first.html" : "p\($0).html" }
        let ours = try await TemplateSet(directory: folder).render("t-keys", view)
        let theirs = try await TemplateSet(directory: folder, engine: .reference).render("t-keys", view)
        #expect(ours == theirs)
        #expect(ours.hasPrefix("2/3 [1 p1&amp;.html 3 ][2* p2&amp;.html 3 ][3 p3&amp;.html 3 ]"), "\(ours)")
        #expect(ours.hasSuffix("empty" + "p{n}.html 3 0,10,20 <first.html>!"), "\(ours)")
        #expect(TemplateKey("segHref") == .segHref)
        #expect(TemplateKey("bogus") == .unknown)
        #expect(TemplateKey("unknown") == .unknown)
    }

    struct TypedProbe: TypedTemplateView {
        struct Cell: TypedTemplateView {
            var text: String
            var href: String?
            func templateValue(named name: TemplateName) -> TemplateValue? {
                switch name {
                case "text": .text(text)
                case "href": href.map(TemplateValue.text)
                default: nil
                }
            }
        }
        struct Row: TypedTemplateView {
            var name: String
            var cells: [Cell]
            func templateValue(named name: TemplateName) -> TemplateValue? {
                switch name {
                case "name": .text(self.name)
                case "cells": .typedList(cells)
                case "count": .number(cells.count)
                default: nil
                }
            }
        }
        var title: String
        var rows: [Row]
        var empty: [Row]
        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name {
            case "title": .text(title)
            case "rows": .typedList(rows)
            case "empty": .typedList(empty)
            case "first": rows.first.map(TemplateValue.typed)
            default: nil
            }
        }
    }

    /// A feature outside the subset fails loading with the file and line.
    @Test(arguments: [
        ("{{=<% %>=}}", "set delimiters"), ("{{>*dynamic}}", "dynamic partials"), ("{{upper(name)}}", "transforms"),
    ])
    func unsupportedFeatureIsRefusedWithFileAndLine(template: String, words: String) async throws {
        let folder = try Self.templatesCopy(["t-bad": "line one\nline two\n  \(template)\n"])
        do {
            _ = try await TemplateSet(directory: folder)
            Issue.record("\(template) was accepted")
        } catch {
            let message = "\(error)"
            #expect(message.contains("t-bad.mustache"), "\(message)")
            #expect(message.contains("line 3"), "\(message)")
            #expect(message.contains(words), "\(message)")
        }
    }

    struct Probe: TemplateView {
        struct Item: TemplateView {
            var name: String
            var n: Int
            var flag: Bool
            func child(named name: String) -> Any? {
                switch name {
                case "name": self.name
                case "n": n
                case "flag": flag
                default: nil
                }
            }
        }
        var top: String
        var items: [Item]
        var inner: Item?
        var text: String
        var raw: String
        var n: Int
        var none: String? = nil

        func child(named name: String) -> Any? {
            switch name {
            case "top": top
            case "items": items
            case "empty": [Item]()
            case "inner": inner
            case "text": text
            case "raw": raw
            case "spaced": "sp"
            case "n": n
            case "none": none
            default: nil
            }
        }
    }

    /// The project's templates plus `extra`, in a folder of their own.
    static func templatesCopy(_ extra: [String: String]) throws -> URL {
        let folder = try Fixtures.temporaryFolder("templates").appendingPathComponent("templates")
        try FileManager.default.copyItem(at: Fixtures.templates, to: folder)
        for (name, text) in extra {
            try Data(text.utf8).write(to: folder.appendingPathComponent("\(name).mustache"))
        }
        return folder
    }

    static func build(_ store: ArchiveStore, engine: TemplateSet.Engine) async throws -> [String: Data] {
        let publisher = MemoryPublisher()
        var options = SiteBuilder.Options()
        options.forum = Fixtures.smthForum
        options.siteURL = "https://archive.example.org/smth/"
        options.threadsPerPage = 3
        options.postsPerPage = 2
        let templates = try await TemplateSet(directory: Fixtures.templates, engine: engine)
        _ = try SiteBuilder(store: store, templates: templates, publisher: publisher, options: options).build()
        return publisher.files.filter { $0.key != BuildState.path }
    }

    static func expectSame(_ ours: [String: Data], _ theirs: [String: Data]) {
        #expect(Set(ours.keys) == Set(theirs.keys))
        let differing = ours.keys.filter { ours[$0] != theirs[$0] }.sorted()
        #expect(differing.isEmpty, "differ: \(differing.prefix(10))")
        if let first = differing.first, let a = ours[first], let b = theirs[first] {
            let at = Array(zip(a, b)).firstIndex { $0 != $1 } ?? min(a.count, b.count)
            let ourText = String(decoding: a.dropFirst(max(0, at - 80)).prefix(200), as: UTF8.self)
            let theirText = String(decoding: b.dropFirst(max(0, at - 80)).prefix(200), as: UTF8.self)
            Issue.record("\(first) at byte \(at):\nours:   \(ourText)\ntheirs: \(theirText)")
        }
    }
}

import Foundation
import Testing

@testable import BBSArchive

/// The words the program writes itself come from `strings.toml` beside the
/// templates (issue 10): no Swift source outside the forums spells one, a
/// broken table fails the load with the file, key and problem, and a
/// changed word changes the site.
@Suite struct SiteStringsTests {
    // MARK: No words in Swift

    /// Every Swift file under `Sources/BBSArchive` outside `Forums/`
    /// (where the parsers read the forums' own words): no CJK character
    /// outside comments, in a string literal or anywhere else.
    @Test func noSwiftSourceOutsideTheForumsSpellsAWord() throws {
        let root = Fixtures.projectRoot.appendingPathComponent("Sources/BBSArchive")
        let paths = try FileManager.default.subpathsOfDirectory(atPath: root.path)
        let sources = paths.filter { $0.hasSuffix(".swift") && !$0.hasPrefix("Forums/") }.sorted()
        #expect(sources.count > 50)
        var found: [String] = []
        for path in sources {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            found += Self.wordsOutsideComments(text).map { "\(path):\($0)" }
        }
        #expect(found.isEmpty, "move these words into templates/strings.toml: \(found)")
    }

    /// The scan finds words in literals, interpolations and raw strings,
    /// and none in comments or after a `//` inside a literal.
    @Test func theScanFindsWordsOnlyOutsideComments() {
        let source = """
            let a = "x" // 楼主
            /* 楼主 /* 楼主 */ 楼主 */ let b = 1
            /// 楼主
            let c = "\\(n)楼"
            let d = "\\(f ? "楼主" : "") · \\(g("https://x/")) 原帖"
            let e = #"第\\#(n)页"#
            let f = \"""
                附件
                \"""
            let g = "https://example.org/a" + "b" // 楼主
            let h = "\\"" + "、"
            """
        #expect(Self.wordsOutsideComments(source) == [4, 5, 6, 8, 11])
    }

    /// The lines of `text` (1 for the first) with a CJK character outside
    /// comments: Swift's comments (nested `/* */` too), its string
    /// literals (multi-line, raw, with interpolations) told apart.
    static func wordsOutsideComments(_ text: String) -> [Int] {
        let s = Array(text.unicodeScalars)
        enum Mode {
            case code(parens: Int)
            case string(multiLine: Bool, hashes: Int)
        }
        var stack: [Mode] = [.code(parens: 0)]
        var lines: [Int] = []
        var line = 1
        var i = 0
        func at(_ k: Int) -> Unicode.Scalar? { k < s.count ? s[k] : nil }
        func hashes(from k: Int) -> Int {
            var j = k
            while at(j) == "#" { j += 1 }
            return j - k
        }
        func isWord(_ c: Unicode.Scalar) -> Bool {
            (0x3400...0x9FFF).contains(c.value) || (0x3000...0x303F).contains(c.value)
                || (0xFF00...0xFFEF).contains(c.value) || (0x20000...0x2FA1F).contains(c.value)
        }
        func take(_ c: Unicode.Scalar) {
            if c == "\n" { line += 1 }
            if isWord(c), lines.last != line { lines.append(line) }
        }
        while i < s.count {
            let c = s[i]
            switch stack[stack.count - 1] {
            case .code(let parens):
                if c == "/", at(i + 1) == "/" {
                    while i < s.count, s[i] != "\n" { i += 1 }
                } else if c == "/", at(i + 1) == "*" {
                    var depth = 0
                    repeat {
                        if s[i] == "/", at(i + 1) == "*" {
                            depth += 1
                            i += 2
                        } else if s[i] == "*", at(i + 1) == "/" {
                            depth -= 1
                            i += 2
                        } else {
                            if s[i] == "\n" { line += 1 }
                            i += 1
                        }
                    } while depth > 0 && i < s.count
                } else if c == "\"" || (c == "#" && at(i + hashes(from: i)) == "\"") {
                    let count = hashes(from: i)
                    let start = i + count
                    let multiLine = at(start + 1) == "\"" && at(start + 2) == "\""
                    stack.append(.string(multiLine: multiLine, hashes: count))
                    i = start + (multiLine ? 3 : 1)
                } else {
                    if c == "(" { stack[stack.count - 1] = .code(parens: parens + 1) }
                    if c == ")" {
                        if parens == 0, stack.count > 1 {
                            stack.removeLast()
                        } else {
                            stack[stack.count - 1] = .code(parens: max(0, parens - 1))
                        }
                    }
                    take(c)
                    i += 1
                }
            case .string(let multiLine, let count):
                if c == "\\", hashes(from: i + 1) == count {
                    let next = i + 1 + count
                    if at(next) == "(" {
                        stack.append(.code(parens: 0))
                        i = next + 1
                    } else {
                        if let escaped = at(next) { take(escaped) }
                        i = next + 1
                    }
                } else if c == "\"", !multiLine || (at(i + 1) == "\"" && at(i + 2) == "\""),
                    hashes(from: i + (multiLine ? 3 : 1)) >= count
                {
                    stack.removeLast()
                    i += (multiLine ? 3 : 1) + count
                } else {
                    take(c)
                    i += 1
                }
            }
        }
        return lines
    }

    // MARK: A broken table

    /// A copy of the project's templates with `strings.toml` edited.
    static func templates(strings edit: (String) -> String) throws -> URL {
        let folder = try Fixtures.temporaryFolder("strings").appendingPathComponent("templates")
        try FileManager.default.copyItem(at: Fixtures.templates, to: folder)
        let file = folder.appendingPathComponent(SiteStrings.fileName)
        let text = try String(contentsOf: file, encoding: .utf8)
        let edited = edit(text)
        #expect(edited != text)
        try Data(edited.utf8).write(to: file)
        return folder
    }

    /// `text` with the line that sets `key` replaced (or dropped, for nil).
    static func setting(_ key: String, to line: String?, in text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { old in
            old.hasPrefix("\(key) =") ? line : String(old)
        }.joined(separator: "\n")
    }

    @Test(arguments: [
        ("floor", nil, "strings.toml lacks the key floor"),
        ("floor", #"floor = "{m}楼""#, "strings.toml key floor has an unknown placeholder {m}; it may use {n}"),
        ("latest", #"latest = "最新{n}""#, "strings.toml key latest has an unknown placeholder {n}; it takes none"),
        ("page", #"page = "第{n页""#, "strings.toml key page has a { with no }; write {{ for one"),
        ("page", #"page = "第n}页""#, "strings.toml key page has a } with no {; write }} for one"),
        ("replies", "replies = 3", "strings.toml key replies is not a string in quotes"),
        ("search", "search = \"搜索\"\nsearch-all = \"全站\"", "strings.toml has an unknown key search-all"),
        ("utc", "utc = \"UTC", "strings.toml does not parse: line"),
    ])
    func aBrokenTableFailsTheLoadNamingTheKey(key: String, line: String?, message: String) async throws {
        let folder = try Self.templates { Self.setting(key, to: line, in: $0) }
        do {
            _ = try await TemplateSet(directory: folder)
            Issue.record("a table with \(line ?? "no \(key)") was accepted")
        } catch {
            let text = "\(error)"
            #expect(text.contains(message), "\(text)")
            #expect(text.contains(folder.path), "\(text)")
            #expect(!text.contains("\n"), "\(text)")
        }
    }

    @Test func aFolderWithoutTheTableFailsTheLoad() async throws {
        let folder = try Fixtures.temporaryFolder("strings").appendingPathComponent("templates")
        try FileManager.default.copyItem(at: Fixtures.templates, to: folder)
        try FileManager.default.removeItem(at: folder.appendingPathComponent(SiteStrings.fileName))
        do {
            _ = try await TemplateSet(directory: folder)
            Issue.record("a folder without strings.toml was accepted")
        } catch {
            #expect("\(error)".contains("strings.toml is missing"), "\(error)")
        }
    }

    /// Places are filled in the order the table's key lists them, however
    /// often and wherever the text uses them; braces are written doubled.
    @Test func aPhraseFillsItsPlaces() throws {
        let phrase = try SiteStrings.Phrase.parse("{b}: {a}, {{a}} {b}}}", names: ["a", "b"]).get()
        #expect(phrase("1", "2") == "2: 1, {a} 2}")
        let none = try SiteStrings.Phrase.parse("no places", names: ["n"]).get()
        #expect(none("7") == "no places")
    }

    // MARK: A changed word

    static func build(templates folder: URL) async throws -> [String: String] {
        let publisher = MemoryPublisher()
        _ = try SiteBuilder(
            store: try GoldenPagesTests.makeStore(), templates: try await TemplateSet(directory: folder),
            publisher: publisher, options: SiteBuilder.Options()
        ).build()
        return publisher.files.mapValues { String(decoding: $0, as: UTF8.self) }
    }

    /// The same store built with the project's table and with one whose
    /// words are changed: the Markdown and the HTML take the new words.
    @Test func aChangedWordChangesTheSite() async throws {
        let folder = try Self.templates { text in
            var text = text
            for (key, line) in [
                ("floor", #"floor = "第{n}层""#), ("first-floor", #"first-floor = "一楼""#),
                ("board-figures", #"board-figures = "主题 {threads}，文章 {posts}""#),
                ("search", #"search = "查找""#), ("utc", #"utc = "世界时""#),
            ] {
                text = Self.setting(key, to: line, in: text)
            }
            return text
        }
        let before = try await Self.build(templates: Fixtures.templates)
        let after = try await Self.build(templates: folder)
        #expect(before.keys.sorted() == after.keys.sorted())
        func markdown(_ files: [String: String]) -> String {
            files.filter { $0.key.hasSuffix(".md") }.sorted { $0.key < $1.key }.map(\.value).joined()
        }
        #expect(markdown(before).contains("## 楼主 · "))
        #expect(markdown(before).contains("## 1楼 · "))
        #expect(!markdown(after).contains("## 楼主 · "))
        #expect(markdown(after).contains("## 一楼 · "))
        #expect(markdown(after).contains("## 第1层 · "))
        let board = try #require(after[SitePaths.boardMarkdown("Golden")])
        #expect(board.contains("主题 "), "\(board)")
        #expect(!board.contains(" 个主题 · "))
        let home = try #require(after[SitePaths.markdownHome])
        #expect(home.contains("，文章 "))
        let search = try #require(after[SitePaths.search])
        #expect(search.contains("<title>查找 · "), "\(search.prefix(800))")
        #expect(try #require(before[SitePaths.search]).contains("<title>搜索 · "))
        #expect(try #require(before[SitePaths.home]).contains("时间均为协调世界时 (UTC)。"))
        #expect(try #require(after[SitePaths.home]).contains("时间均为世界时。"))
    }

    /// The table is part of the build's fingerprint, as the templates
    /// are: a build after it changed renders the pages again.
    @Test func aChangedTableRendersTheSiteAgain() async throws {
        let store = try GoldenPagesTests.makeStore()
        let site = try Fixtures.temporaryFolder("strings-site")
        let folder = try Self.templates { Self.setting("floor", to: #"floor = "第{n}层""#, in: $0) }
        func thread() throws -> String {
            let names = try FileManager.default.subpathsOfDirectory(atPath: site.path)
            return try names.filter { $0.hasPrefix("board/Golden/") && $0.hasSuffix(".md") && !$0.contains("page-") }
                .sorted().map { try String(contentsOf: site.appendingPathComponent($0), encoding: .utf8) }.joined()
        }
        _ = try await BuildAction(storePath: store.path, outputPath: site.path, templatesPath: Fixtures.templates.path)
            .run()
        #expect(try thread().contains("## 1楼 · "))
        _ = try await BuildAction(storePath: store.path, outputPath: site.path, templatesPath: folder.path).run()
        #expect(try thread().contains("## 第1层 · "))
        #expect(!(try thread()).contains("## 1楼 · "))
    }

    /// The Markdown home names the group of boards filed in no section
    /// as the table says: 全部版面 without sections, 其他版面 with them.
    @Test func theMarkdownHomeNamesTheUnfiledBoards() async throws {
        let strings = try await TemplateSet(directory: Fixtures.templates).strings
        let boards = ["A", "B"].map(SiteNavigationTests.board)
        let flat = SiteNavigation(boards: boards, filing: StoredSectionFiling(sections: [], boardSection: [:]))
        let filed = SiteNavigation(
            boards: boards,
            filing: StoredSectionFiling(
                sections: [StoredSection(code: "1", name: "社会信息", parent: nil)], boardSection: ["A": "1"]))
        #expect(HomeMarkdown.render(flat, siteTitle: "T", strings: strings).contains("\n## 全部版面\n"))
        let home = HomeMarkdown.render(filed, siteTitle: "T", strings: strings)
        #expect(home.contains("\n## 社会信息\n"))
        #expect(home.contains("\n## 其他版面\n"))
    }
}

import Foundation

/// What the original-link lookup page knows: every archived board (by its
/// forum id, case as stored) with its folder and the gids of its threads.
///
/// Written as a script that sets `window.BBSArchiveLookup`, not as a JSON
/// file, because browsers refuse `fetch` of a file from `file://` but do
/// run a `<script src>`; the value is plain JSON, so tests read it back.
struct LookupMap {
    struct Board: Codable, Equatable {
        var dir: String
        var title: String
        var threads: [Int]
    }

    static let prefix = "window.BBSArchiveLookup = "

    private(set) var boards: [String: Board] = [:]
    /// The forum address of one archived thread, shown as the example.
    private(set) var example: String?

    init(boards: [String: Board] = [:]) { self.boards = boards }

    mutating func add(board: StoredBoard, threads: [StoredThread]) {
        boards[board.name] = Board(
            dir: SitePaths.component(board.name), title: board.title ?? board.name, threads: threads.map(\.gid).sorted()
        )
        if example == nil, let thread = threads.first(where: { !$0.sticky }) ?? threads.first {
            example = thread.originalURL
        }
    }

    /// Adds the boards of a map made apart (by another build task); the
    /// example stays the first one found, in the order maps are merged.
    mutating func merge(_ other: LookupMap) {
        boards.merge(other.boards) { _, new in new }
        if example == nil { example = other.example }
    }

    func script() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and integers cannot fail.
        let json = (try? encoder.encode(["boards": boards])) ?? Data("{\"boards\":{}}".utf8)
        return Data(Self.prefix.utf8) + json + Data(";\n".utf8)
    }

    static let rulesPrefix = "window.BBSArchiveLookupRules = "

    /// The script that hands `lookup.js` the forum's forms of address
    /// (`LookupRules`) and its name, for the message on an address it
    /// does not know.
    static func rulesScript(_ forum: ForumProfile) -> Data {
        struct Script: Encodable {
            var forumName: String
            var base: String
            var rules: [LookupRule]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let script = Script(forumName: forum.wording.forumName, base: forum.lookup.base, rules: forum.lookup.rules)
        // Strings, integers and arrays of them always encode.
        let json = (try? encoder.encode(script)) ?? Data("{\"rules\":[]}".utf8)
        return Data(rulesPrefix.utf8) + json + Data(";\n".utf8)
    }

    /// Reads a map back from its script (for tests and tools).
    static func decode(script: Data) -> [String: Board]? {
        let text = String(decoding: script, as: UTF8.self)
        guard text.hasPrefix(prefix) else { return nil }
        var json = text.dropFirst(prefix.count)
        while let last = json.last, last == "\n" || last == ";" { json = json.dropLast() }
        return (try? JSONDecoder().decode([String: [String: Board]].self, from: Data(json.utf8)))?["boards"]
    }
}

/// The Markdown archive's front page: every board, linking its `index.md`,
/// grouped like the home page, so the `.md` tree browses on its own.
enum HomeMarkdown {
    static func render(_ navigation: SiteNavigation, siteTitle: String) -> String {
        let document = MarkdownDocument()
        document.heading(1, [.text(siteTitle)])
        let threads = navigation.boards.reduce(0) { $0 + $1.threadCount }
        let posts = navigation.boards.reduce(0) { $0 + $1.postCount }
        document.paragraph([
            .text("\(navigation.boards.count) 个版面 · \(threads) 个主题 · \(posts) 篇文章 · "),
            .link(url: SitePaths.home, text: "网页版"),
        ])
        for group in navigation.groups {
            document.heading(2, [.text(group.name)])
            document.list(
                group.boards.map { board in
                    [
                        .link(url: SitePaths.boardMarkdown(board.name), text: board.title ?? board.name),
                        .text(" (\(board.name)) · \(board.threadCount) 个主题 · \(board.postCount) 篇文章"),
                    ]
                })
        }
        return document.render()
    }
}

import Foundation
import TOMLKit

/// The words the program writes itself (the Markdown copies, the search
/// page's title, the lookup page's list separators, the name of UTC),
/// read from `strings.toml` beside the templates, so that a `--templates`
/// folder changes them as it changes the pages' other words.
///
/// Read once, with the templates. Every key must be there, each a string;
/// a missing, unknown or malformed entry fails the load, before anything
/// is written. `{name}` marks where a number or a name goes, and each key
/// may use only the names it is given below.
package struct SiteStrings: Sendable {
    /// A phrase with places for values, split at load time into its
    /// literal parts and the places between them, so that filling it in
    /// is a few appends.
    package struct Phrase: Sendable, Equatable {
        /// The literal text around the places: one more than `slots`.
        let texts: [String]
        /// For each place, which of the values goes there (0 for the first).
        let slots: [Int]

        /// The phrase with `a` as its first value.
        func callAsFunction(_ a: String) -> String { fill { _ in a } }

        /// The phrase with `a` and `b` as its first and second values.
        func callAsFunction(_ a: String, _ b: String) -> String { fill { $0 == 0 ? a : b } }

        /// The phrase with `a`, `b` and `c` as its values.
        func callAsFunction(_ a: String, _ b: String, _ c: String) -> String {
            fill { $0 == 0 ? a : $0 == 1 ? b : c }
        }

        private func fill(_ value: (Int) -> String) -> String {
            var text = texts[0]
            for index in slots.indices {
                text += value(slots[index])
                text += texts[index + 1]
            }
            return text
        }

        /// Splits `text` at its places; `names` are the places it may use,
        /// in the order their values are given. The reason is returned when
        /// the text is malformed.
        static func parse(_ text: String, names: [String]) -> Result<Phrase, Reason> {
            var texts: [String] = []
            var slots: [Int] = []
            var literal = ""
            var rest = Substring(text)
            while let first = rest.first {
                rest = rest.dropFirst()
                if first == "{", rest.first == "{" {
                    literal.append("{")
                    rest = rest.dropFirst()
                } else if first == "}" {
                    guard rest.first == "}" else { return .failure(Reason("has a } with no {; write }} for one")) }
                    literal.append("}")
                    rest = rest.dropFirst()
                } else if first == "{" {
                    guard let close = rest.firstIndex(of: "}") else {
                        return .failure(Reason("has a { with no }; write {{ for one"))
                    }
                    let name = String(rest[..<close])
                    guard let slot = names.firstIndex(of: name) else {
                        let known =
                            names.isEmpty
                            ? "it takes none" : "it may use " + names.map { "{\($0)}" }.joined(separator: ", ")
                        return .failure(Reason("has an unknown placeholder {\(name)}; \(known)"))
                    }
                    texts.append(literal)
                    literal = ""
                    slots.append(slot)
                    rest = rest[rest.index(after: close)...]
                } else {
                    literal.append(first)
                }
            }
            texts.append(literal)
            return .success(Phrase(texts: texts, slots: slots))
        }
    }

    /// Why an entry cannot be used.
    package struct Reason: Error {
        package var text: String
        init(_ text: String) { self.text = text }
    }

    /// The file's name in the templates folder.
    package static let fileName = "strings.toml"

    // A thread's Markdown copy.
    /// `{n} 篇`: the posts of the thread.
    let threadPosts: Phrase
    /// `原帖`: the link to the thread on the forum.
    let original: String
    /// `楼主`: the first post's floor.
    let firstFloor: String
    /// `{n}楼`: any other post's floor.
    let floor: Phrase
    /// The note on a post the forum deleted later; `{time}` is when the archive saw it gone.
    let forumDeleted: Phrase
    /// `附件: ` before an archived attachment.
    let attachment: String
    /// `附件 (未存档): ` before one the archive does not hold.
    let attachmentUnarchived: String
    /// `修改: {user}`.
    let editedBy: Phrase

    // A board's Markdown pages and the Markdown home page.
    /// `{boards} 个版面 · {threads} 个主题 · {posts} 篇文章`.
    let siteFigures: Phrase
    /// `{threads} 个主题 · {posts} 篇文章`.
    let boardFigures: Phrase
    /// `全部版面`: the link to the Markdown home, and its one group when the forum has no sections.
    let allBoards: String
    /// `其他版面`: the group of boards filed in no section.
    let otherBoards: String
    /// `网页版`: the link from the Markdown home to the HTML one.
    let webVersion: String
    /// `按发帖时间：` before the links to a board's pages.
    let byStart: String
    /// `第{n}页`.
    let page: Phrase
    /// `最新`, `较早`, `较新`: the links of a board's page.
    let latest: String
    let earlier: String
    let later: String
    /// `{n} 回复`.
    let replies: Phrase

    // Elsewhere.
    /// `搜索`: the search page's title and crumb.
    let search: String
    /// `、` and `和`: between the lookup page's address forms, and before the last one.
    let listComma: String
    let listAnd: String
    /// `协调世界时 (UTC)`: the zone of a forum that names none (`ForumTime.utc`).
    let utc: String

    /// What the site calls `time`'s zone: the forum's own name for it, or
    /// this table's for UTC when the forum gave none.
    func zoneName(_ time: ForumTime) -> String { time == .utc ? utc : time.name }

    /// Reads the table from the bytes of `strings.toml`; the reason names
    /// the key and what is wrong with it.
    package init(data: Data) throws(Reason) {
        guard let text = String(data: data, encoding: .utf8) else { throw Reason("is not UTF-8 text") }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw Reason("does not parse: line \(error.source.begin.line): \(error.description)")
        } catch {
            throw Reason("does not parse: \(error)")
        }
        var reader = Reader(table: table)
        threadPosts = try reader.phrase("thread-posts", ["n"])
        original = try reader.word("original")
        firstFloor = try reader.word("first-floor")
        floor = try reader.phrase("floor", ["n"])
        forumDeleted = try reader.phrase("forum-deleted", ["time"])
        attachment = try reader.word("attachment")
        attachmentUnarchived = try reader.word("attachment-unarchived")
        editedBy = try reader.phrase("edited-by", ["user"])
        siteFigures = try reader.phrase("site-figures", ["boards", "threads", "posts"])
        boardFigures = try reader.phrase("board-figures", ["threads", "posts"])
        allBoards = try reader.word("all-boards")
        otherBoards = try reader.word("other-boards")
        webVersion = try reader.word("web-version")
        byStart = try reader.word("by-start")
        page = try reader.phrase("page", ["n"])
        latest = try reader.word("latest")
        earlier = try reader.word("earlier")
        later = try reader.word("later")
        replies = try reader.phrase("replies", ["n"])
        search = try reader.word("search")
        listComma = try reader.word("list-comma")
        listAnd = try reader.word("list-and")
        utc = try reader.word("utc")
        if let unknown = table.keys.sorted().first(where: { !reader.read.contains($0) }) {
            throw Reason("has an unknown key \(unknown)")
        }
    }

    /// Takes the table's entries one by one, remembering which were read.
    private struct Reader {
        let table: TOMLTable
        var read: Set<String> = []

        mutating func phrase(_ key: String, _ names: [String]) throws(Reason) -> Phrase {
            read.insert(key)
            guard let value = table[key] else { throw Reason("lacks the key \(key)") }
            guard let text = value.string else { throw Reason("key \(key) is not a string in quotes") }
            switch Phrase.parse(text, names: names) {
            case .success(let phrase): return phrase
            case .failure(let reason): throw Reason("key \(key) \(reason.text)")
            }
        }

        mutating func word(_ key: String) throws(Reason) -> String {
            let phrase = try phrase(key, [])
            return phrase.texts[0]
        }
    }
}

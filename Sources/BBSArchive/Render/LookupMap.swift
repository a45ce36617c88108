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

        /// This entry with the threads of `added` (new ones, in order) and its folder and title.
        func adding(_ added: Board) -> Board {
            var threads = threads
            // New threads come last, as a rule: merged from the end.
            for gid in added.threads.sorted() {
                if let last = threads.last, last < gid {
                    threads.append(gid)
                } else if !threads.contains(gid) {
                    threads.insert(gid, at: threads.firstIndex { $0 > gid } ?? threads.endIndex)
                }
            }
            return Board(dir: added.dir, title: added.title, threads: threads)
        }
    }

    static let prefix = "window.BBSArchiveLookup = "

    private(set) var boards: [String: Board] = [:]
    /// Boards of an incremental build known only by their new threads:
    /// put into the last build's entry for the board, not in its place.
    private(set) var additions: [String: Board] = [:]
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

    /// Adds threads new since the last build to a board's entry (an
    /// incremental build reads no more of the board than what changed).
    mutating func add(board: StoredBoard, newThreads gids: [Int]) {
        additions[board.name] = Board(
            dir: SitePaths.component(board.name), title: board.title ?? board.name, threads: gids.sorted())
    }

    /// The boards known only by their new threads get their whole entry
    /// from `gids` (when the last build's map cannot take the additions).
    mutating func complete(_ gids: (String) throws(ArchiveError) -> [Int]) throws(ArchiveError) {
        for (name, board) in additions.sorted(by: { $0.key < $1.key }) {
            boards[name] = Board(dir: board.dir, title: board.title, threads: try gids(name))
        }
        additions = [:]
    }

    /// Adds the boards of a map made apart (by another build task); the
    /// example stays the first one found, in the order maps are merged.
    mutating func merge(_ other: LookupMap) {
        boards.merge(other.boards) { _, new in new }
        additions.merge(other.additions) { _, new in new }
        if example == nil { example = other.example }
    }

    func script() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and integers cannot fail.
        let json = (try? encoder.encode(["boards": boards])) ?? Data("{\"boards\":{}}".utf8)
        return Data(Self.prefix.utf8) + json + Data(";\n".utf8)
    }

    /// The script of the last build with the boards of `fresh` put in (the
    /// threads of its `additions` added to the old entries), the boards no
    /// longer in `present` left out, and every other board's bytes as they
    /// were: only the changed boards are encoded. Without an old script
    /// (or one this cannot read) it is `fresh`'s alone; `nil` when `fresh`
    /// has additions that the old script has no entry for (then
    /// `complete(_:)` them and ask again).
    static func updated(_ old: Data?, with fresh: LookupMap, present: Set<String>) -> Data? {
        guard let old else { return fresh.additions.isEmpty ? fresh.script() : nil }
        if let spliced = splice(old, replacing: fresh.boards, adding: fresh.additions, present: present) {
            return spliced
        }
        guard var boards = decode(script: old) else { return fresh.additions.isEmpty ? fresh.script() : nil }
        for (name, added) in fresh.additions {
            guard let had = boards[name] else { return nil }
            boards[name] = had.adding(added)
        }
        var map = LookupMap(boards: boards.filter { present.contains($0.key) })
        map.merge(LookupMap(boards: fresh.boards))
        return map.script()
    }

    /// `old` with the value of each board in `replacing` encoded anew, and
    /// of each in `adding` read, given the new threads and encoded anew,
    /// when `old` holds exactly the boards of `present` (so their order,
    /// the encoder's, stays); `nil` when it does not, or cannot be read.
    static func splice(
        _ old: Data, replacing: [String: Board], adding: [String: Board] = [:], present: Set<String>
    ) -> Data? {
        let opening = Array((prefix + "{\"boards\":{").utf8)
        let bytes = [UInt8](old)
        guard bytes.starts(with: opening) else { return nil }
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        /// The index just past the string that starts at `start`.
        func endOfString(_ start: Int) -> Int? {
            var index = start + 1
            while index < bytes.count {
                if bytes[index] == backslash {
                    index += 2
                } else if bytes[index] == quote {
                    return index + 1
                } else {
                    index += 1
                }
            }
            return nil
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var result = Data(opening)
        var seen = Set<String>()
        var index = opening.count
        while index < bytes.count, bytes[index] != UInt8(ascii: "}") {
            if bytes[index] == UInt8(ascii: ",") {
                result.append(bytes[index])
                index += 1
            }
            guard index < bytes.count, bytes[index] == quote, let keyEnd = endOfString(index),
                keyEnd < bytes.count, bytes[keyEnd] == UInt8(ascii: ":"),
                let key =
                    (try? JSONDecoder().decode(
                        [String].self, from: Data([UInt8(ascii: "[")] + bytes[index..<keyEnd] + [UInt8(ascii: "]")])))?
                    .first
            else { return nil }
            // The board's value: an object, its end found by depth outside strings.
            var end = keyEnd + 1
            var depth = 0
            repeat {
                guard end < bytes.count else { return nil }
                switch bytes[end] {
                case quote:
                    guard let after = endOfString(end) else { return nil }
                    end = after
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                end += 1
            } while depth > 0
            seen.insert(key)
            result.append(contentsOf: bytes[index...keyEnd])
            if let board = replacing[key] {
                guard let value = try? encoder.encode(board) else { return nil }
                result.append(value)
            } else if let added = adding[key] {
                // Only this board's entry is read: its thread ids, new ones merged in.
                guard let had = try? JSONDecoder().decode(Board.self, from: Data(bytes[(keyEnd + 1)..<end])),
                    let value = try? encoder.encode(had.adding(added))
                else { return nil }
                result.append(value)
            } else {
                result.append(contentsOf: bytes[(keyEnd + 1)..<end])
            }
            index = end
        }
        guard seen == present, Set(replacing.keys).union(adding.keys).isSubset(of: present) else { return nil }
        result.append(contentsOf: bytes[index...])
        return result
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
    static func render(_ navigation: SiteNavigation, siteTitle: String, strings: SiteStrings) -> String {
        let document = MarkdownDocument()
        document.heading(1, [.text(siteTitle)])
        let threads = navigation.boards.reduce(0) { $0 + $1.threadCount }
        let posts = navigation.boards.reduce(0) { $0 + $1.postCount }
        document.paragraph([
            .text(strings.siteFigures(String(navigation.boards.count), String(threads), String(posts)) + " · "),
            .link(url: SitePaths.home, text: strings.webVersion),
        ])
        for group in navigation.groups {
            let name =
                group.code != nil ? group.name : navigation.hasSections ? strings.otherBoards : strings.allBoards
            document.heading(2, [.text(name)])
            document.list(
                group.boards.map { board in
                    [
                        .link(url: SitePaths.boardMarkdown(board.name), text: board.title ?? board.name),
                        .text(
                            " (\(board.name)) · "
                                + strings.boardFigures(String(board.threadCount), String(board.postCount))),
                    ]
                })
        }
        return document.render()
    }
}

import Foundation
import Testing

@testable import BBSArchive

/// A small hand-made store (a thread with a quote, colours, a link, an
/// image, a file, a nickname, a signature and likes; a board; home) built
/// into memory and compared with the pages committed under `Golden/`, so
/// any change in rendered content shows up. `BBSARCHIVE_UPDATE_GOLDEN=1`
/// rewrites them after an intended change.
@Suite struct GoldenPagesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let pages = [
        "board/Golden/100.html": "thread.html",
        "board/Golden/index.html": "board.html",
        "index.html": "home.html",
        "board/Golden/feed.xml": "board-feed.xml",
        "boards.js": "boards.js",
    ]

    /// The store every golden and parallel-build test renders.
    static func makeStore() throws -> ArchiveStore {
        let folder = try Fixtures.temporaryFolder("golden")
        let store = try ArchiveStore(path: folder.appendingPathComponent("archive.sqlite").path)
        let source = SMTHNForumSource()
        let day = Fixtures.beijing(2026, 3, 1, 9, 30, 0)
        let image = "https://att.newsmth.net/nForum/att/Golden/100/1"
        let file = "https://att.newsmth.net/nForum/att/Golden/100/2"
        let opening = Post(
            floor: 0, author: "alice", postedAt: day,
            body: "第一行，\u{1b}[1;31m红色\u{1b}[m 和 [b]粗体[/b]\n链接 http://example.org/a?b=1&c=2\n<script>alert(1)</script>",
            attachments: [
                Attachment(name: "照片.png", url: image, kind: .image, size: "1KB"),
                Attachment(name: "说明\"\u{301} onfocus=x.txt", url: file, kind: .file, size: "2KB"),
                Attachment(
                    name: "丢失.zip", url: "https://att.newsmth.net/nForum/att/Golden/100/3", kind: .file, size: nil),
            ],
            ip: "10.0.0.*", nick: "爱丽丝", signature: "签名档\n第二行", postID: 100,
            likes: [Like(score: 1, user: "bob", message: "好文", at: day.addingTimeInterval(60))])
        let quoted = (1...8).map { ": 引用第\($0)行" }.joined(separator: "\n")
        let reply = Post(
            floor: 1, author: "bob", postedAt: day.addingTimeInterval(3600),
            body: "【 在 alice (爱丽丝) 的大作中提到: 】\n\(quoted)\n\n回复\u{200D}\"' <>&", ip: "10.0.0.*",
            editedBy: "bob", signature: "", postID: 101)
        let again = Post(floor: 2, author: "alice", postedAt: day.addingTimeInterval(7200), body: "再说一句", postID: 102)
        let title = "金标主题\"\u{301} autofocus onfocus=alert(1)"
        let summary = ThreadSummary(
            gid: 100, title: title, replies: 2, sticky: false, author: "alice", postedAt: day, lastReplier: "alice",
            lastReplyAt: day.addingTimeInterval(7200), hasAttachment: true)
        let other = ThreadSummary(
            gid: 90, title: "置顶", replies: 0, sticky: true, marked: true, author: nil,
            postedAt: day.addingTimeInterval(-86400),
            lastReplier: nil, lastReplyAt: day.addingTimeInterval(-86400))
        try store.saveBoardPage(
            BoardPage(board: "Golden", title: "金标版", page: PageInfo(current: 1, total: 1), threads: [other, summary]),
            source: source)
        try store.saveThread(
            board: "Golden",
            pages: [
                ThreadPage(
                    board: "Golden", gid: 100, title: title, page: PageInfo(current: 1, total: 1),
                    posts: [opening, reply, again])
            ], summary: summary)
        try store.saveThread(
            board: "Golden",
            pages: [
                ThreadPage(
                    board: "Golden", gid: 90, title: "置顶", page: PageInfo(current: 1, total: 1),
                    posts: [Post(floor: 0, author: "carol", postedAt: day.addingTimeInterval(-86400), body: "置顶内容")])
            ], summary: other)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52])
        try store.saveMedia(
            url: image,
            response: HTTPResponse(
                url: image, status: 200, headers: [("Content-Type", "image/png")], body: png, fetchedAt: day))
        try store.saveMedia(
            url: file,
            response: HTTPResponse(
                url: file, status: 200, headers: [("Content-Type", "text/plain")], body: Data("说明".utf8),
                fetchedAt: day))
        return store
    }

    static func build(_ store: ArchiveStore) async throws -> [String: Data] {
        let publisher = MemoryPublisher()
        var options = SiteBuilder.Options()
        options.forum = Fixtures.smthForum
        options.siteURL = "https://archive.example.org/smth/"
        _ = try SiteBuilder(
            store: store, templates: try await TemplateSet(directory: Fixtures.templates), publisher: publisher,
            options: options
        ).build()
        return publisher.files
    }

    /// The version string is the only thing expected to differ between releases.
    static func normalized(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self).replacingOccurrences(of: BBSArchiveVersion.version, with: "VERSION")
    }

    @Test func pagesMatchTheCommittedOnes() async throws {
        let files = try await Self.build(try Self.makeStore())
        let update = ProcessInfo.processInfo.environment["BBSARCHIVE_UPDATE_GOLDEN"] == "1"
        for (path, golden) in Self.pages.sorted(by: { $0.key < $1.key }) {
            let built = Self.normalized(try #require(files[path], "\(path) was not written"))
            let url = Self.folder.appendingPathComponent(golden)
            if update { try Data(built.utf8).write(to: url) }
            let expected = try String(contentsOf: url, encoding: .utf8)
            #expect(built == expected, "\(path) differs from Golden/\(golden)")
        }
    }

    @Test func hostileTextNeverLeavesItsAttribute() async throws {
        let files = try await Self.build(try Self.makeStore())
        // Built outside #expect: the macro's own copy of a quote followed by
        // a combining mark does not survive its expansion.
        let hostile = [
            String(decoding: [0x22, 0xCC, 0x81], as: UTF8.self),
            String(decoding: [0xE2, 0x80, 0x8D, 0x22], as: UTF8.self),
            "<script>alert",
        ]
        for (path, data) in files where path.hasSuffix(".html") || path.hasSuffix(".xml") {
            let text = String(decoding: data, as: UTF8.self)
            for needle in hostile {
                let found = text.contains(needle)
                #expect(!found, "\(path) has \(needle.debugDescription) unescaped")
            }
        }
    }
}

@Suite struct MarkupEscaperTests {
    @Test(arguments: [
        ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&#39;"),
        ("\"\u{301}", "&quot;\u{301}"), ("\"\u{200D}", "&quot;\u{200D}"), ("\u{200D}\"", "\u{200D}&quot;"),
        ("a\u{301}<b\u{20DD}>", "a\u{301}&lt;b\u{20DD}&gt;"), ("e\u{301}'\u{308}", "e\u{301}&#39;\u{308}"),
        ("👨‍👩‍👧\"", "👨‍👩‍👧&quot;"), ("水木\u{1b}[1m社区", "水木[1m社区"), ("a\u{0}b\u{7f}c\u{85}d", "abcd"),
        ("tab\tline\ncr\r", "tab\tline\ncr\r"), ("纯文本", "纯文本"), ("", ""),
        // Runs between specials, specials at both ends, 0xC2 leading a
        // character that passes (· U+00B7, U+00A0) or a C1 control (dropped).
        ("<&>", "&lt;&amp;&gt;"), ("'a\"b<", "&#39;a&quot;b&lt;"), ("x·\u{9F}", "x·"),
        ("\u{A0}\u{80}\u{A0}·", "\u{A0}\u{A0}·"), ("\u{85}", ""), ("水<木>社\u{7F}区", "水&lt;木&gt;社区"),
    ])
    func escapesEveryByteOfTheSpecials(input: String, expected: String) {
        #expect(MarkupEscaper.escape(input) == expected)
    }

    /// Each ASCII character between a letter and a combining mark, compared
    /// byte by byte (`String.contains` compares grapheme clusters, the very
    /// mistake this escaper avoids).
    /// The bytes below `?` it replaces or drops, as the bits of `lowWork`.
    @Test func lowWorkIsTheSpecialsBelowQuestionMark() {
        for byte in 0..<64 {
            let special = byte < 0x20 && ![0x09, 0x0A, 0x0D].contains(byte) || "&<>\"'".utf8.contains(UInt8(byte))
            #expect((MarkupEscaper.lowWork >> UInt64(byte)) & 1 == (special ? 1 : 0), "byte \(byte)")
        }
    }

    @Test func everyASCIICharacterBeforeACombiningMark() {
        let entities: [UInt8: String] = [
            UInt8(ascii: "&"): "&amp;", UInt8(ascii: "<"): "&lt;", UInt8(ascii: ">"): "&gt;",
            UInt8(ascii: "\""): "&quot;", UInt8(ascii: "'"): "&#39;",
        ]
        for byte in UInt8(0)..<128 {
            let kept = byte >= 0x20 && byte != 0x7F || byte == 0x09 || byte == 0x0A || byte == 0x0D
            let middle = entities[byte].map { Array($0.utf8) } ?? (kept ? [byte] : [])
            let escaped = MarkupEscaper.escape(String(decoding: [0x78, byte, 0xCC, 0x81], as: UTF8.self))
            #expect(Array(escaped.utf8) == [0x78] + middle + [0xCC, 0x81], "byte \(byte)")
        }
    }

    @Test func templatesUseItAndCannotSwitchItOff() async throws {
        let folder = try Fixtures.temporaryFolder("escaper-templates")
        for name in TemplateSet.required {
            try Data("{{% CONTENT_TYPE: HTML}}<a title=\"{{title}}\">{{title}}</a>".utf8).write(
                to: folder.appendingPathComponent("\(name).mustache"))
        }
        // A templates folder has its strings table too.
        try FileManager.default.copyItem(
            at: Fixtures.templates.appendingPathComponent(SiteStrings.fileName),
            to: folder.appendingPathComponent(SiteStrings.fileName))
        let templates = try await TemplateSet(directory: folder)
        let html = try templates.render("home", CrumbView(label: "", href: ""))
        #expect(html == "<a title=\"\"></a>")
        let view = LinkTitleView(title: "x\"\u{301} onfocus=alert(1)")
        #expect(
            try templates.render("home", view)
                == "<a title=\"x&quot;\u{301} onfocus=alert(1)\">x&quot;\u{301} onfocus=alert(1)</a>")
    }
}

private struct LinkTitleView: TemplateView {
    var title: String
    func child(named name: String) -> Any? { name == "title" ? title : nil }
}

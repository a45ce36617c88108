import Foundation
import Testing

@testable import BBSArchive

/// The forum seam: a second forum's profile (its words, time zone, post
/// conventions and address forms) shapes the whole built site, with the
/// default templates as they are. The golden pages show that SMTH's build
/// is unchanged.
@Suite struct ForumSeamTests {
    /// A forum whose posts quote with `> ` under a `Quote from X:` line, with
    /// no tags and no emoticons.
    struct OtherConventions: PostConventions {
        func quoteHeaderAuthor(_ line: String) -> String? {
            guard line.hasPrefix("Quote from "), line.hasSuffix(":") else { return nil }
            return String(line.dropFirst("Quote from ".count).dropLast())
        }
        func quotedLine(_ line: String) -> (depth: Int, text: String)? {
            let depth = line.prefix { $0 == ">" }.count
            guard depth > 0 else { return nil }
            return (depth, line.dropFirst(depth).trimmingCharacters(in: .whitespaces))
        }
        var usesBracketTags: Bool { false }
        func emoticon(tag: String) -> String? { nil }
    }

    static let other = ForumProfile(
        wording: SiteWording(
            siteTitle: "某论坛旧帖", deletedAuthor: "作者已不在", lookupExample: "https://forum.example/forums/Golden/topics/1",
            forumName: "某论坛"),
        time: ForumTime(zone: "America/Sao_Paulo", offsetSeconds: -3 * 3600, name: "圣保罗时间"),
        conventions: OtherConventions(),
        lookup: LookupRules(
            base: "https://forum.example/",
            rules: [
                LookupRule(part: .path, pattern: #"^/forums/([^/]+)/topics/(\d+)"#, board: 1, gid: 2),
                LookupRule(part: .path, pattern: #"^/forums/([^/]+)/?$"#, board: 1),
            ],
            forms: [.init(label: "网页版", shape: "forum.example/forums/版面/topics/编号")]))

    /// The golden store built with `forum` into a new folder.
    static func build(_ forum: ForumProfile) async throws -> SiteInspector {
        let store = try SiteWordingTests.storeWithAnAuthorlessThread()
        let root = try Fixtures.temporaryFolder("forum-seam")
        var options = SiteBuilder.Options()
        options.forum = forum
        _ = try SiteBuilder(
            store: store, templates: try await TemplateSet(directory: Fixtures.templates),
            publisher: try DiskPublisher(root: root), options: options
        ).build()
        return SiteInspector(root: root)
    }

    @Test func aSecondForumsWordsReplaceSMTHsOnEveryPage() async throws {
        let site = try await Self.build(Self.other)
        let smth = Fixtures.smthForum.wording
        let pages = [
            SitePaths.lookup, SitePaths.notFound, SitePaths.search, SitePaths.hot, SitePaths.board("Golden"),
            SitePaths.boardList("Golden", page: 1), SitePaths.boardFeed("Golden"), SitePaths.feed,
        ]
        for page in pages {
            let text = site.text(page)
            #expect(!text.isEmpty, "\(page) was not written")
            #expect(!text.contains(smth.forumName) && !text.contains(smth.deletedAuthor), "\(page) speaks of SMTH")
        }
        // Thread 80 has no author: each list says so in the forum's words.
        for page in [SitePaths.board("Golden"), SitePaths.boardList("Golden", page: 1)] {
            #expect(site.text(page).contains(Self.other.wording.deletedAuthor), "\(page)")
        }
        #expect(site.text(SitePaths.boardFeed("Golden")).contains("<name>作者已不在</name>"))
        let lookup = site.text(SitePaths.lookup)
        #expect(lookup.contains("把某论坛的帖子或版面链接贴在下面"))
        #expect(lookup.contains("网页版（forum.example/forums/版面/topics/编号）的链接都可以。"))
        #expect(lookup.contains(">某论坛链接</label>"))
        #expect(site.text(SitePaths.notFound).contains("用某论坛的原帖链接查找"))
        #expect(site.text(SitePaths.search).contains("打开某论坛的链接。"))
        #expect(site.text(SitePaths.search).contains("（圣保罗时间，含当天）"))
        #expect(site.text(SitePaths.home).contains("时间均为圣保罗时间。"))
        #expect(!site.text(SitePaths.home).contains("北京"))
    }

    /// Board ids go into SMTH's addresses as they are when they need no
    /// escaping (the fast path), and percent-encoded when they do.
    @Test func smthsAddressesEscapeBoardIdsOnlyWhereNeeded() {
        let source = SMTHMobileSource(baseURL: "https://m.example/")
        #expect(source.boardURL(board: "Geography_2.x-y~", page: 3) == "https://m.example/board/Geography_2.x-y~?p=3")
        #expect(source.boardURL(board: "a b/c?d#e", page: 1) == "https://m.example/board/a%20b%2Fc%3Fd%23e?p=1")
        #expect(source.originalThreadURL(board: "水木", gid: 7) == "https://m.example/article/%E6%B0%B4%E6%9C%A8/7")
    }

    @Test func smthsLookupPageNamesBothOfItsForms() async throws {
        let lookup = try await Self.build(Fixtures.smthForum).text(SitePaths.lookup)
        #expect(
            lookup.contains(
                "把水木社区的帖子或版面链接贴在下面，就能打开它在本存档中的页面。手机版（m.newsmth.net/article/版面/编号）和电脑版（www.newsmth.net/nForum/#!article/版面/编号）的链接都可以。"
            ))
    }

    @Test func aSecondForumsConventionsAndZoneShapeItsPosts() async throws {
        let body = "Quote from alice:\n> 一层\n>> 两层\n[b]不是粗体[/b] [em01]\n【 在 bob 的大作中提到: 】"
        let blocks = PostNormalizer.normalize(body, conventions: Self.other.conventions).blocks
        #expect(
            blocks == [
                .quote(
                    header: "Quote from alice:", author: "alice",
                    lines: [.init(depth: 1, text: "一层"), .init(depth: 2, text: "两层")]),
                .text(["[b]不是粗体[/b] [em01]", "【 在 bob 的大作中提到: 】"]),
            ])
        #expect(
            InlineText.segments("[b]不是粗体[/b] [em01]", conventions: Self.other.conventions)
                == [InlineSegment(text: "[b]不是粗体[/b] [em01]")])
        let smth = Fixtures.smthForum.conventions
        #expect(InlineText.segments("[b]粗体[/b]", conventions: smth).first?.bold == true)
        #expect(PostNormalizer.normalize("Quote from alice:\n> 一层", conventions: smth).blocks.count == 1)

        // The golden thread: 2026-03-01 09:30 in Beijing is 2026-02-28 22:30 at UTC−3.
        let thread = try await Self.build(Self.other).text(SitePaths.thread("Golden", gid: 100))
        #expect(thread.contains(#"datetime="2026-02-28T22:30:00-03:00""#))
        #expect(thread.contains("2026-02-28 22:30:00"))
        #expect(!thread.contains("+08:00"))
        // SMTH's tags and quote header are only text on this forum.
        #expect(thread.contains("[b]粗体[/b]"))
        #expect(thread.contains("的大作中提到"))
        #expect(!thread.contains("<blockquote"))
    }

    @Test func aSecondForumsAddressFormsDriveTheLookup() async throws {
        let site = try await Self.build(Self.other)
        let rules = site.text(SitePaths.lookupRules)
        #expect(rules.hasPrefix(LookupMap.rulesPrefix) && rules.contains("forum.example"))
        #expect(!rules.contains("newsmth"))
        let forms = [
            "https://forum.example/forums/Golden/topics/100", "forum.example/forums/golden/topics/100?page=2",
            "/forums/Golden/", "https://forum.example/forums/Golden/topics/7", "https://forum.example/forums/Nope/",
            "https://m.newsmth.net/article/Golden/100",
        ]
        let formsJSON = String(decoding: try JSONSerialization.data(withJSONObject: forms), as: UTF8.self)
        let resolve =
            "JSON.stringify(\(formsJSON).map(u => { const r = BBSArchiveResolve(u); return [r.kind, r.href || '', r.message] }))"
        let report = try BrowserTests.check(
            site: site, pages: [], probes: [(SitePaths.lookup, resolve)], widths: [1180])
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        let probe = try #require(report.probes.first)
        #expect(probe.error == nil, "\(probe.error ?? "")")
        let results = try #require(
            try JSONSerialization.jsonObject(with: Data((probe.value ?? "").utf8)) as? [[String]])
        #expect(results.map { $0[0] } == ["thread", "thread", "board", "board", "unknown-board", "invalid"])
        #expect(results[0][1] == "board/Golden/100.html" && results[1][1] == "board/Golden/100.html")
        #expect(results[2][1] == "board/Golden/index.html")
        #expect(results[5][2] == "这不像是某论坛的帖子或版面链接。")
    }
}

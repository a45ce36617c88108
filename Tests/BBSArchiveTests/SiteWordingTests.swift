import Foundation
import Testing

@testable import BBSArchive

/// The forum's words reach the build as a typed value from the pipeline:
/// the render half names no forum.
@Suite struct SiteWordingTests {
    static let other = SiteWording(
        siteTitle: "某论坛旧帖", deletedAuthor: "作者已不在", lookupExample: "https://forum.example/t/1")

    @Test func theFirstKnownStoredSourceChoosesTheWords() throws {
        let nforum = try ForumSources.make("smth-nforum", baseURL: nil).wording
        #expect(ForumSources.wording(sources: [nil, "no-such-forum", "smth-nforum"]) == nforum)
        let fallback = try ForumSources.make(ForumSources.defaultName, baseURL: nil).wording
        #expect(ForumSources.wording(sources: []) == fallback)
    }

    /// The golden store plus thread 80, whose first post is gone: only its row on the list.
    static func storeWithAnAuthorlessThread() throws -> ArchiveStore {
        let store = try GoldenPagesTests.makeStore()
        let gone = ThreadSummary(
            gid: 80, title: "无主", replies: 0, sticky: false, author: nil, postedAt: Fixtures.beijing(2026, 2, 1),
            lastReplier: nil, lastReplyAt: Fixtures.beijing(2026, 2, 1))
        try store.saveBoardPage(
            BoardPage(board: "Golden", title: "金标版", page: PageInfo(current: 1, total: 1), threads: [gone]),
            source: SMTHNForumSource())
        return store
    }

    @Test func theBuildShowsTheWordsItIsGiven() async throws {
        let store = try Self.storeWithAnAuthorlessThread()
        let publisher = MemoryPublisher()
        var options = SiteBuilder.Options()
        options.wording = Self.other
        _ = try SiteBuilder(
            store: store, templates: try await TemplateSet(directory: Fixtures.templates), publisher: publisher,
            options: options
        ).build()
        let home = String(decoding: publisher.files[SitePaths.home] ?? Data(), as: UTF8.self)
        let index = String(decoding: publisher.files[SitePaths.boardMarkdown("Golden")] ?? Data(), as: UTF8.self)
        let smth = ForumSources.wording(sources: ["smth-mobile"])
        #expect(home.contains("<title>\(Self.other.siteTitle)</title>"))
        #expect(!home.contains(smth.siteTitle))
        #expect(index.contains(" · \(Self.other.deletedAuthor) · "))
    }

    @Test func anEmptyStoreGetsTheDefaultSourcesWords() async throws {
        let folder = try Fixtures.temporaryFolder("wording")
        let storePath = folder.appendingPathComponent("archive.sqlite").path
        _ = try ArchiveStore(path: storePath)
        let site = folder.appendingPathComponent("site")
        _ = try await BuildAction(
            storePath: storePath, outputPath: site.path, templatesPath: Fixtures.templates.path
        ).run()
        let words = try ForumSources.make(ForumSources.defaultName, baseURL: nil).wording
        let lookup = try String(contentsOf: site.appendingPathComponent(SitePaths.lookup), encoding: .utf8)
        let home = try String(contentsOf: site.appendingPathComponent(SitePaths.home), encoding: .utf8)
        #expect(lookup.contains(words.lookupExample))
        #expect(home.contains("<title>\(words.siteTitle)</title>"))
    }
}

import Foundation
import Testing

@testable import BBSArchive

/// A post's earlier versions survive a run that changes or blanks it.
@Suite struct PostHistoryTests {
    let pieces = ArchiveStoreTests()

    @Test func aCensoringRunKeepsTheArchivedText() throws {
        let store = try pieces.openStore()
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [pieces.summary()]),
            source: pieces.source)
        try store.saveThread(board: "T", pages: pieces.sampleThread(), summary: pieces.summary())
        #expect(try store.postVersions(board: "T", gid: 700, floor: 1).isEmpty)

        var censored = pieces.sampleThread()
        censored[0].posts[1].body = "此文章已被删除"
        try store.saveThread(board: "T", pages: censored, summary: pieces.summary())
        // Saving the same text again keeps no second copy.
        try store.saveThread(board: "T", pages: censored, summary: pieces.summary())

        #expect(try store.postVersions(board: "T", gid: 700, floor: 1).map(\.body) == ["第1楼"])
        #expect(try store.postVersions(board: "T", gid: 700, floor: 0).isEmpty)
        #expect(try store.posts(board: "T", gid: 700).map(\.body) == ["第0楼", "此文章已被删除"])
    }

    /// An attachment or a like a later run no longer finds on the post's
    /// page is kept, with when it went; ones still there are not copied.
    @Test func removedAttachmentsAndLikesAreKept() throws {
        let store = try pieces.openStore()
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [pieces.summary()]),
            source: pieces.source)
        func like(_ user: String) -> Like { Like(score: 1, user: user, message: "赞", at: nil) }
        func file(_ name: String) -> BBSArchive.Attachment {
            Attachment(name: name, url: "http://127.0.0.1:9/att/T/700/\(name)", kind: .image, size: "1KB")
        }
        var pages = pieces.sampleThread()
        pages[0].posts[1].attachments = [file("a.png"), file("b.png")]
        pages[0].posts[1].signature = ""
        pages[0].posts[1].likes = [like("x"), like("y")]
        try store.saveThread(board: "T", pages: pages, summary: nil)
        pages[0].posts[1].attachments = [file("a.png")]
        pages[0].posts[1].likes = [like("y"), like("z")]
        try store.saveThread(board: "T", pages: pages, summary: nil)
        try store.saveThread(board: "T", pages: pages, summary: nil)
        let (files, likes) = try store.read { db in
            (
                try String.fetchAll(db, sql: "SELECT name FROM attachment_removed WHERE gid = 700 AND floor = 1"),
                try String.fetchAll(db, sql: "SELECT user FROM post_like_removed WHERE gid = 700 AND floor = 1")
            )
        }
        #expect(files == ["b.png"])
        #expect(likes == ["x"])
        let post = try #require(try store.posts(board: "T", gid: 700).last)
        #expect(post.attachments.map(\.name) == ["a.png"])
        #expect(post.likes.map(\.user) == ["y", "z"])
    }

    /// Through `Ingest`, as both a run and `reparse` store pages: a post the
    /// forum blanked keeps its archived text and author, noted as deleted.
    @Test func aDeletionNoticeKeepsTheArchivedPost() async throws {
        let folder = try Fixtures.temporaryFolder("history")
        let storePath = folder.appendingPathComponent("a.sqlite").path
        let store = try ArchiveStore(path: storePath)
        let ingest = Ingest(store: store, source: pieces.source)
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [pieces.summary()]),
            source: pieces.source)
        try ingest.thread(pieces.sampleThread(), board: "T", gid: 700, summary: pieces.summary())
        var censored = pieces.sampleThread()
        censored[0].posts[1].body = "此文章已被删除"
        censored[0].posts[1].author = "deleted"
        for _ in 0..<2 {  // a censoring run, then reparse reading the same page again
            try ingest.thread(censored, board: "T", gid: 700, summary: nil)
        }
        let posts = try store.posts(board: "T", gid: 700)
        #expect(posts.map(\.body) == ["第0楼", "第1楼"])
        #expect(posts.map(\.author) == ["alice", "bob"])
        #expect(Set(try store.forumDeletions(board: "T", gid: 700).keys) == [1])
        #expect(try store.posts(board: "T", gid: 700).map { $0.forumDeletedAt != nil } == [false, true])
        // A notice the archive never had text for is kept as the forum shows it.
        var fresh = pieces.sampleThread(gid: 701)
        fresh[0].posts[0].body = "此文章已被删除"
        try ingest.thread(fresh, board: "T", gid: 701, summary: nil)
        #expect(try store.posts(board: "T", gid: 701).first?.body == "此文章已被删除")
        #expect(try store.forumDeletions(board: "T", gid: 701).isEmpty)

        // The thread page shows the archived text, with the note on that post only.
        let out = folder.appendingPathComponent("site")
        _ = try await BuildAction(storePath: storePath, outputPath: out.path, templatesPath: Fixtures.templates.path)
            .run()
        let page = try String(contentsOf: out.appendingPathComponent("board/T/700.html"), encoding: .utf8)
        #expect(page.contains("第1楼"))
        #expect(!page.contains("此文章已被删除"))
        #expect(page.components(separatedBy: "class=\"forum-deleted\"").count == 2)
        // So does its Markdown copy.
        let markdown = try String(contentsOf: out.appendingPathComponent("board/T/700.md"), encoding: .utf8)
        #expect(markdown.contains("第1楼"))
        #expect(!markdown.contains("此文章已被删除"))
        #expect(markdown.components(separatedBy: "论坛后来删除了这篇文章").count == 2)
    }

    @Test(arguments: [
        ("此文章已被删除", true), ("本文已被屏蔽", true), ("我觉得这篇文章已被删除是好事，因为……" + String(repeating: "长", count: 40), false),
        ("普通的文章", false), ("\n  此文章已被删除 \u{3000}\r\n", true),
        // Forty characters after the trim are a notice still, forty-one not.
        ("此文章已被删除" + String(repeating: "。", count: 33) + "\n", true),
        ("此文章已被删除" + String(repeating: "。", count: 34), false),
    ])
    func deletionNotices(_ text: String, _ notice: Bool) {
        #expect(SMTHSiteRules.isDeletionNotice(text) == notice)
    }

    @Test func reparseReadsACaptureAsTheThreadItWasAskedFor() {
        let asked = PageAddress.thread("T", gid: 1, page: 1)
        #expect(ReparseAction.sameThread(asked, .thread("T", gid: 1, page: 2)))
        #expect(!ReparseAction.sameThread(asked, .thread("T", gid: 2, page: 1)))
        #expect(!ReparseAction.sameThread(asked, .thread("U", gid: 1, page: 1)))
        #expect(ReparseAction.sameThread(.board("T", page: 1), .thread("T", gid: 2, page: 1)))
    }

    @Test func theHostPolicyNamesHostsAndPorts() {
        let source = SMTHMobileSource(baseURL: "http://127.0.0.1:8080")
        let policy = HostPolicy.forum(source, mediaHosts: ["img.example.org"])
        #expect(policy.refusal("http://127.0.0.1:8080/att/T/1/2") == nil)
        #expect(policy.refusal("https://att.newsmth.net/nForum/att/T/1/2") == nil)
        #expect(policy.refusal("http://img.example.org/a.png") == nil)
        #expect(policy.refusal("http://localhost:8080/x?f=/att/T/1/2") != nil)
        #expect(policy.refusal("http://127.0.0.1:8081/att/T/1/2") != nil)
        #expect(policy.refusal("http://img.example.org.evil.example/a.png") != nil)
        #expect(policy.refusal("javascript:alert(1)//att/T/1") != nil)
        #expect(
            policy.refuseRedirect("http://127.0.0.1:8080/article/T/1?p=1", "http://127.0.0.1:8080/article/T/2") != nil)
        #expect(
            policy.refuseRedirect("http://127.0.0.1:8080/article/T/1?p=1", "http://127.0.0.1:8080/article/T/1?p=2")
                == nil)
    }
}

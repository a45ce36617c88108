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

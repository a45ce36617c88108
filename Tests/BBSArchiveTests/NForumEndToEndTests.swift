import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// The desktop front end for real: the replica's GBK `?ajax` fragments
/// through libcurl, libxml2 and the store, compared post by post with what
/// the replica generated, fields only the desktop pages show included.
@Suite(.serialized) struct NForumEndToEndTests {
    static let config = ReplicaConfig(
        seed: 31, sections: 1, boardsPerSection: 2, threadsPerBoard: 24, maxPostsPerThread: 16)

    /// A line's colour runs with the codes' spelling forgotten: what a reader sees.
    static func look(_ line: String) -> [String] {
        ANSIText.runs(line).map { "\($0.style.foreground ?? -1)/\($0.style.background ?? -1):\($0.text)" }
    }

    @Test func theDesktopSiteArchivesEveryFieldFaithfully() async throws {
        let harness = try await ReplicaHarness.start(Self.config)
        let source = SMTHNForumSource(baseURL: harness.base)
        let report = try await harness.fetch(source: source)
        await harness.stop()
        #expect(report.failures.isEmpty, "\(report.failures)")
        let store = try harness.store()
        var checked = (posts: 0, coloured: 0, signatures: 0, likes: 0, edits: 0, files: 0)
        for name in harness.forum.boardNames {
            let board = try #require(harness.forum.board(named: name))
            let truth = try #require(harness.forum.groundTruth().boards.first { $0.name == name })
            let stored = try #require(try store.boards().first { $0.name == name })
            #expect(stored.threadCount == truth.threads)
            #expect(stored.postCount == truth.posts)
            for thread in board.threads {
                let posts = try store.posts(board: name, gid: thread.gid)
                #expect(posts.map(\.floor) == thread.posts.map(\.floor), "floors of \(thread.gid)")
                for (post, original) in zip(posts, thread.posts) {
                    let at = "\(name)/\(thread.gid)#\(original.floor)"
                    #expect(post.author == original.author, "\(at)")
                    #expect(post.nick == original.nick, "nick of \(at)")
                    #expect(post.title == original.title, "title of \(at)")
                    #expect(post.postID == original.id, "id of \(at)")
                    #expect(post.postedAt == original.postedAt, "time of \(at)")
                    let lines = post.body.isEmpty ? [] : post.body.components(separatedBy: "\n")
                    let expected = ReplicaTruth.trimmed(original.lines)
                    #expect(lines.map(InlineText.plain) == expected.map(InlineText.plain), "text of \(at)")
                    #expect(lines.map(Self.look) == expected.map(Self.look), "colours of \(at)")
                    #expect(
                        (post.signature ?? "").components(separatedBy: "\n").map(Self.look)
                            == (original.signature.isEmpty ? [""] : original.signature).map(Self.look),
                        "signature of \(at)")
                    #expect(post.ip == original.ip, "ip of \(at)")
                    #expect(post.editedBy == original.editedBy, "editor of \(at)")
                    #expect(post.editedAt == original.editedAt, "edit time of \(at)")
                    #expect(
                        post.likes.map {
                            "\($0.score) \($0.user): \($0.message) \($0.at.map(Fixtures.smthForum.time.display) ?? "")"
                        }
                            == original.likes.map {
                                "\($0.score) \($0.user): \($0.message) \(Fixtures.smthForum.time.display($0.at))"
                            },
                        "likes of \(at)")
                    #expect(post.attachments.map(\.name) == original.attachments.map(\.name), "attachments of \(at)")
                    #expect(
                        post.attachments.map(\.url) == original.attachments.map { harness.base + "/nForum" + $0.path })
                    for (attachment, file) in zip(post.attachments, original.attachments) {
                        let hash = try #require(attachment.hash, "\(attachment.url) was not fetched")
                        #expect(try store.blob(hash: hash) == file.bytes)
                    }
                    checked.posts += 1
                    if original.lines.contains(where: { $0.contains("\u{1B}") }) { checked.coloured += 1 }
                    if !original.signature.isEmpty { checked.signatures += 1 }
                    if !original.likes.isEmpty { checked.likes += 1 }
                    if original.editedBy != nil { checked.edits += 1 }
                    checked.files += original.attachments.filter { !$0.isImage }.count
                }
            }
        }
        // The comparison covered every kind of field, not only plain posts.
        #expect(checked.posts > 100)
        #expect(checked.coloured > 0 && checked.signatures > 0 && checked.likes > 0 && checked.edits > 0)
        #expect(checked.files > 0)
    }

    @Test func mobileAfterDesktopKeepsWhatOnlyTheDesktopShows() async throws {
        let harness = try await ReplicaHarness.start(ReplicaHarness.small)
        _ = try await harness.fetch(source: SMTHNForumSource(baseURL: harness.base))
        let store = try harness.store()
        let before = try harness.forum.board(named: harness.board)?.threads.flatMap { thread in
            try store.posts(board: harness.board, gid: thread.gid)
        }
        // The same forum read again through the mobile site, from scratch.
        let queue = try GRDBTestAccess.open(harness.storePath)
        try queue.resetArchivedState()
        let report = try await harness.fetch()
        await harness.stop()
        #expect(report.failures.isEmpty)
        let after = try harness.forum.board(named: harness.board)?.threads.flatMap { thread in
            try store.posts(board: harness.board, gid: thread.gid)
        }
        let colouredBefore = before?.filter { $0.body.contains("\u{1B}") }.count ?? 0
        #expect(colouredBefore > 0)
        #expect(after?.map(\.body) == before?.map(\.body))
        #expect(after?.map(\.nick) == before?.map(\.nick))
        #expect(after?.map(\.signature) == before?.map(\.signature))
        #expect(after?.map(\.likes) == before?.map(\.likes))
    }
}

import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// Compares an archive with what the replica served.
enum ReplicaTruth {
    /// Every board, thread and post the replica serves is in the store, as served.
    static func expectStore(_ store: ArchiveStore, matches forum: ReplicaForum, base: String) throws {
        let truth = forum.groundTruth()
        let boards = try store.boards()
        #expect(boards.map(\.name).sorted() == truth.boards.map(\.name).sorted())
        for expected in truth.boards {
            let board = try #require(boards.first { $0.name == expected.name })
            #expect(board.title == expected.title)
            #expect(board.threadCount == expected.threads, "threads of \(expected.name)")
            #expect(board.postCount == expected.posts, "posts of \(expected.name)")
            let replicaBoard = try #require(forum.board(named: expected.name))
            let stored = try store.threads(board: expected.name)
            // Sticky first, then newest activity first, as the forum lists them.
            #expect(stored.map(\.gid) == replicaBoard.threads.map(\.gid))
            for thread in replicaBoard.threads {
                let posts = try store.posts(board: expected.name, gid: thread.gid)
                #expect(posts.count == thread.posts.count, "posts of thread \(thread.gid)")
                let storedThread = try #require(stored.first { $0.gid == thread.gid })
                #expect(storedThread.title == thread.title)
                #expect(storedThread.sticky == thread.sticky)
                // The forum counts a deleted first post among the replies' elders.
                #expect(storedThread.replies == thread.posts.count - (thread.firstPostDeleted ? 0 : 1))
                #expect(storedThread.firstPostArchived == !thread.firstPostDeleted)
                #expect(storedThread.author == (thread.firstPostDeleted ? nil : thread.posts.first?.author))
                for (post, original) in zip(posts, thread.posts) {
                    #expect(post.floor == original.floor)
                    #expect(post.author == original.author)
                    #expect(post.postedAt == original.postedAt)
                    #expect(
                        post.body == Self.trimmed(original.plainLines).joined(separator: "\n"),
                        "body of \(thread.gid)#\(post.floor)")
                    #expect(post.ip == original.ip)
                    #expect(post.editedBy == original.editedBy)
                    #expect(post.attachments.map(\.name) == original.attachments.map(\.name))
                    #expect(post.attachments.map(\.url) == original.attachments.map { base + $0.path })
                    #expect(post.attachments.map { $0.kind == .image } == original.attachments.map(\.isImage))
                    for (attachment, bytes) in zip(post.attachments, original.attachments.map(\.bytes)) {
                        let hash = try #require(attachment.hash, "\(attachment.url) was not fetched")
                        #expect(try store.blob(hash: hash) == bytes)
                    }
                }
            }
        }
    }

    static func trimmed(_ lines: [String]) -> [String] {
        var lines = lines
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        return lines
    }
}

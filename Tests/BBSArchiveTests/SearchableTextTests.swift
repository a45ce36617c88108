import Foundation
import Testing

@testable import BBSArchive
@testable import SMTHReplica

/// A post's searchable text, spelled from its bytes (`SearchText.searchable`),
/// is the text read from its blocks as the page shows them
/// (`SearchText.searchableByBlocks`, through `PostNormalizer`).
@Suite struct SearchableTextTests {
    static func post(body: String, signature: String?, floor: Int = 0) -> StoredPost {
        StoredPost(
            board: "B", gid: 1, floor: floor, author: "a", postedAt: Date(timeIntervalSince1970: 0), body: body,
            ip: nil, editedBy: nil, attachments: [], signature: signature)
    }

    /// The posts whose two texts differ (at most ten, described).
    static func mismatches(
        _ posts: [(post: StoredPost, title: String)], conventions: any PostConventions
    ) -> [String] {
        var found: [String] = []
        for (post, title) in posts where found.count < 10 {
            let bytes = SearchText.searchable(post: post, threadTitle: title, conventions: conventions)
            let blocks = SearchText.searchableByBlocks(post: post, threadTitle: title, conventions: conventions)
            // Compared as scalars: `==` on `String` would let canonically equal texts pass.
            if Array(bytes.unicodeScalars) != Array(blocks.unicodeScalars) {
                found.append(
                    "\(post.body.debugDescription) / \((post.signature ?? "").debugDescription): "
                        + "\(bytes.debugDescription) != \(blocks.debugDescription)")
            }
        }
        return found
    }

    /// Lines that test every turn of the two readings: quote headers and
    /// quoted lines (with and without their marks), empty and blank lines,
    /// control characters, colour codes, carriage returns, marks after `:`
    /// and after a line break, full-width spaces.
    static let pieces = [
        "", "", " ", "\t", "\u{3000}", "\u{00A0}", "正文", "text", ":", ": 引用", "::深", ": : 深", ":\u{301}x",
        "【 在 alice (A) 的大作中提到: 】", "  【 在 bob 的邮件中提到: 】 ", "【 在 的大作中提到: 】", "【不是引用】",
        "\u{1B}[1;31m红\u{1B}[m", "\u{1B}[m", "a\u{07}b", "\u{7F}", "x\ry", "\r", "\u{301}", "--",
        "※ 来源:·水木社区 ·[FROM: 1.2.3.*]", "[b]粗[/b] http://example.org", "\u{2028}", "👍🏻", "é",
    ]

    @Test func handMadeLinesReadAlike() {
        var generator = SeededRandom(seed: 9)
        var posts: [(StoredPost, String)] = []
        for round in 0..<4000 {
            func text(_ most: Int) -> String {
                (0..<Int(generator.next() % UInt64(most + 1))).map { _ in
                    Self.pieces[Int(generator.next() % UInt64(Self.pieces.count))]
                }.joined(separator: "\n")
            }
            let signature: String? = round % 3 == 0 ? nil : text(3)
            let title = round % 5 == 0 ? "" : Self.pieces[round % Self.pieces.count] + "标题"
            posts.append((Self.post(body: text(8), signature: signature, floor: round % 2), title))
        }
        for (index, piece) in Self.pieces.enumerated() {
            posts.append((Self.post(body: piece, signature: piece), piece))
            posts.append((Self.post(body: piece + "\n", signature: nil), ""))
            posts.append((Self.post(body: "a\n" + piece + "\n\n", signature: "\n" + piece), Self.pieces[index / 2]))
        }
        #expect(Self.mismatches(posts, conventions: SMTHPostConventions()).isEmpty)
        #expect(Self.mismatches(posts, conventions: ForumSeamTests.OtherConventions()).isEmpty)
        #expect(Self.mismatches(posts, conventions: PlainPostConventions()).isEmpty)
    }

    /// The replica's posts, as the store keeps them from either front end:
    /// the mobile body, and nForum's whole article text with its signature.
    @Test func replicaPostsReadAlike() {
        let forum = ReplicaForum(
            config: ReplicaConfig(
                seed: 14, sections: 2, boardsPerSection: 3, threadsPerBoard: 40, maxPostsPerThread: 12))
        var posts: [(StoredPost, String)] = []
        for name in forum.boardNames {
            guard let board = forum.board(named: name) else { continue }
            for thread in board.threads {
                for post in thread.posts {
                    posts.append(
                        (
                            Self.post(body: post.plainLines.joined(separator: "\n"), signature: nil, floor: post.floor),
                            thread.title
                        ))
                    posts.append(
                        (
                            Self.post(
                                body: post.articleText(board: name).joined(separator: "\n"),
                                signature: post.signature.joined(separator: "\n"), floor: post.floor), thread.title
                        ))
                }
            }
        }
        #expect(posts.count > 500)
        #expect(Self.mismatches(posts, conventions: SMTHPostConventions()).isEmpty)
    }

    /// The real nForum post in the fixtures.
    @Test func fixturePostReadsAlike() throws {
        let post = try NForumParserTests().post(gbk: false)
        let stored = Self.post(body: post.body, signature: post.signature)
        #expect(!post.body.isEmpty)
        #expect(Self.mismatches([(stored, "如果面对国民党酷刑，你会变节吗")], conventions: SMTHPostConventions()).isEmpty)
    }

    /// Every post of the store that `BBSARCHIVE_SEARCHABLE_STORE` names (a
    /// copy: opening a store may migrate it), when it names one: the bench's
    /// 10k and 100k stores were checked so.
    @Test func storePostsReadAlike() throws {
        guard let path = ProcessInfo.processInfo.environment["BBSARCHIVE_SEARCHABLE_STORE"] else { return }
        let store = try ArchiveStore(path: path)
        let forum = ForumSources.profile(sources: try store.boards().map(\.source))
        var checked = 0
        for board in try store.boards() {
            for thread in try store.threads(board: board.name) {
                let posts = try store.posts(board: board.name, gid: thread.gid).map { ($0, thread.title) }
                checked += posts.count
                let found = Self.mismatches(posts, conventions: forum.conventions)
                #expect(found.isEmpty, "\(found)")
            }
        }
        print("searchable text alike for \(checked) posts of \(path)")
        #expect(checked > 0)
    }
}

import Foundation
import GRDB
import SMTHReplica
import Testing

@testable import BBSArchive

/// Issue 15 end to end: the replica's posts with randomly coloured origin
/// and edit lines, `:text` quotes and re-indented pages, archived through
/// both front ends (nForum in GBK, the mobile site in UTF-8) and compared
/// with what the replica generated; pages whose headers cannot be read;
/// and `reparse` mending a store the old parser wrote.
@Suite(.serialized) struct RealPageVariantsEndToEndTests {
    static let config = ReplicaConfig(
        seed: 15, sections: 1, boardsPerSection: 1, threadsPerBoard: 16, maxPostsPerThread: 13)

    /// What the comparison covered: each variant must have been seen.
    struct Coverage {
        var posts = 0
        var reindented = 0
        var colouredOrigins = 0
        var colouredEdits = 0
        var bareQuotes = 0
    }

    static func covered(_ original: ReplicaPost, in thread: ReplicaThread, _ coverage: inout Coverage) {
        coverage.posts += 1
        if thread.reindented { coverage.reindented += 1 }
        if !["f000", "f007"].contains(original.originColour) { coverage.colouredOrigins += 1 }
        if original.editedBy != nil, !["f000", "f007"].contains(original.editColour) { coverage.colouredEdits += 1 }
        if original.lines.contains(where: { $0.hasPrefix(":") && !$0.hasPrefix(": ") }) { coverage.bareQuotes += 1 }
    }

    static func expectEveryVariant(_ coverage: Coverage) {
        #expect(coverage.posts > 60)
        #expect(coverage.reindented > 5)
        #expect(coverage.colouredOrigins > 5)
        #expect(coverage.colouredEdits > 0)
        #expect(coverage.bareQuotes > 0)
    }

    @Test func theDesktopSiteInGBK() async throws {
        let harness = try await ReplicaHarness.start(Self.config)
        let report = try await harness.fetch(source: SMTHNForumSource(baseURL: harness.base))
        await harness.stop()
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.partialPosts == 0)
        let store = try harness.store()
        var coverage = Coverage()
        for name in harness.forum.boardNames {
            let board = try #require(harness.forum.board(named: name))
            for thread in board.threads {
                let posts = try store.posts(board: name, gid: thread.gid)
                #expect(posts.map(\.floor) == thread.posts.map(\.floor), "floors of \(thread.gid)")
                for (post, original) in zip(posts, thread.posts) {
                    let at = "\(name)/\(thread.gid)#\(original.floor)"
                    #expect(post.warning == nil, "\(at)")
                    #expect(post.postedAt == original.postedAt, "time of \(at)")
                    let expected = ReplicaTruth.trimmed(original.lines)
                    let lines = post.body.isEmpty ? [] : post.body.components(separatedBy: "\n")
                    #expect(lines.map(ANSIText.strip) == expected.map(ANSIText.strip), "text of \(at)")
                    #expect(
                        lines.map(NForumEndToEndTests.look) == expected.map(NForumEndToEndTests.look),
                        "colours of \(at)")
                    #expect(
                        ANSIText.strip(post.signature ?? "")
                            == original.signature.map(ANSIText.strip).joined(
                                separator: "\n"), "signature of \(at)")
                    #expect(post.ip == original.ip, "ip of \(at)")
                    #expect(post.editedBy == original.editedBy, "editor of \(at)")
                    #expect(post.editedAt == original.editedAt, "edit time of \(at)")
                    #expect(post.title == original.title, "title of \(at)")
                    #expect(post.likes.map(\.message) == original.likes.map(\.message), "likes of \(at)")
                    Self.covered(original, in: thread, &coverage)
                }
            }
        }
        Self.expectEveryVariant(coverage)
    }

    @Test func theMobileSiteInUTF8() async throws {
        let harness = try await ReplicaHarness.start(Self.config)
        let report = try await harness.fetch()
        await harness.stop()
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.partialPosts == 0)
        let store = try harness.store()
        try ReplicaTruth.expectStore(store, matches: harness.forum, base: harness.base)
        var coverage = Coverage()
        for name in harness.forum.boardNames {
            for thread in harness.forum.board(named: name)?.threads ?? [] {
                for original in thread.posts { Self.covered(original, in: thread, &coverage) }
                #expect(try store.posts(board: name, gid: thread.gid).allSatisfy { $0.warning == nil })
            }
        }
        Self.expectEveryVariant(coverage)
    }

    /// Every thread page with headers no parser can read: every post is
    /// stored all the same, with a warning and its raw text, and the run
    /// counts them and lists each page as partial.
    @Test(arguments: [false, true])
    func unreadableHeadersAreStoredWithAWarningAndReported(nforum: Bool) async throws {
        let config = ReplicaConfig(seed: 5, sections: 1, boardsPerSection: 1, threadsPerBoard: 5, maxPostsPerThread: 4)
        let harness = try await ReplicaHarness.start(
            config, faults: ReplicaFaults(rules: [.init(.garbledHeaders, paths: .threads, times: 1000)]))
        let source: any ForumSource =
            nforum ? SMTHNForumSource(baseURL: harness.base) : SMTHMobileSource(baseURL: harness.base)
        let report = try await harness.fetch(source: source)
        await harness.stop()
        let store = try harness.store()
        let board = try #require(harness.forum.board(named: harness.board))
        let total = board.threads.reduce(0) { $0 + $1.posts.count }
        #expect(report.posts == total)
        #expect(report.partialPosts == total)
        let partial = report.failures.filter { $0.kind == .partial }
        #expect(partial.count == board.threads.count)
        #expect(partial.count == report.failures.count)
        #expect(try store.failureList().filter { $0.kind == "partial" }.count == board.threads.count)
        for thread in board.threads {
            let posts = try store.posts(board: harness.board, gid: thread.gid)
            #expect(posts.map(\.floor) == thread.posts.map(\.floor))
            #expect(posts.map(\.author) == thread.posts.map(\.author))
            for post in posts {
                #expect(post.warning != nil)
                #expect(post.rawText?.isEmpty == false)
            }
        }
    }

    /// List pages whose rows' dates cannot be read: the run says so for
    /// each page, naming the threads, and counts the page as partial; the
    /// rows it could read are archived as ever. Before, such rows were left
    /// out in silence, and their threads never archived.
    @Test(arguments: [false, true])
    func unreadableListRowsAreReported(nforum: Bool) async throws {
        // Two list pages: the second page's walk must not forget the first's rows.
        let config = ReplicaConfig(seed: 5, sections: 1, boardsPerSection: 1, threadsPerBoard: 45, maxPostsPerThread: 2)
        let harness = try await ReplicaHarness.start(
            config, faults: ReplicaFaults(rules: [.init(.garbledRows, paths: .boards, times: 1000)]))
        let source: any ForumSource =
            nforum ? SMTHNForumSource(baseURL: harness.base) : SMTHMobileSource(baseURL: harness.base)
        let report = try await harness.fetch(source: source)
        await harness.stop()
        let board = try #require(harness.forum.board(named: harness.board))
        let stored = Set(try harness.store().threads(board: harness.board).map(\.gid))
        let missing = board.threads.map(\.gid).filter { !stored.contains($0) }
        // The replica's threads are older than its day: their rows show dates.
        #expect(!missing.isEmpty)
        let partial = report.failures.filter { $0.kind == .partial }
        #expect(!partial.isEmpty)
        #expect(partial.allSatisfy { $0.description.contains("row(s) could not be read") })
        for gid in missing {
            #expect(
                partial.contains { $0.description.contains("thread \(gid): its time") }, "thread \(gid) is not named")
        }
        #expect(report.boardPages >= 2)
        // Each thread not archived is kept as a failure of its own address
        // until it is archived.
        let kept = Set(try harness.store().failureList().filter { $0.kind == "partial" }.map(\.url))
        for gid in missing {
            #expect(
                kept.contains(source.originalThreadURL(board: harness.board, gid: gid)), "thread \(gid) is not kept")
        }
    }

    /// A store the parser before issue 15 wrote: coloured origin lines were
    /// read as the signature and their IP lost. `reparse` reads the kept
    /// captures again and mends both.
    @Test func reparseRepairsIPsAndSignatures() async throws {
        let harness = try await ReplicaHarness.start(Self.config)
        _ = try await harness.fetch(source: SMTHNForumSource(baseURL: harness.base))
        await harness.stop()
        // What the old reader stored for a post whose 来源 line had a colour
        // of its own: no IP, and the coloured line at the end of the signature.
        let access = try GRDBTestAccess.open(harness.storePath)
        try await access.queue.write { db in
            try db.execute(
                sql: """
                    UPDATE post SET ip = NULL,
                      signature = coalesce(signature || char(10), '') || char(27) || '[32m※ 来源:·水木社区 http://www.newsmth.net·[FROM: ' || ip || ']' || char(27) || '[m'
                    """)
        }
        let board = try #require(harness.forum.board(named: harness.board))
        let broken = try harness.store().posts(board: harness.board, gid: try #require(board.threads.first).gid)
        #expect(broken.allSatisfy { $0.ip == nil })

        let report = try ReparseAction(storePath: harness.storePath).run()
        #expect(report.failures.isEmpty)
        let store = try harness.store()
        for thread in board.threads {
            for (post, original) in zip(try store.posts(board: harness.board, gid: thread.gid), thread.posts) {
                #expect(post.ip == original.ip)
                #expect(
                    ANSIText.strip(post.signature ?? "")
                        == original.signature.map(ANSIText.strip).joined(separator: "\n"))
            }
        }
    }
}

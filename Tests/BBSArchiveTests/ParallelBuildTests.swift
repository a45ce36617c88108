import Foundation
import Testing

@testable import BBSArchive

/// Boards, and runs of pages within a board, render at the same time; the
/// site must be the same, byte for byte, as one rendered one page at a time.
@Suite struct ParallelBuildTests {
    /// Three boards of 25 threads, posts by a handful of users, so that
    /// boards, users, hot topics and feeds all meet in several tasks.
    static func makeStore() throws -> ArchiveStore {
        let store = try GoldenPagesTests.makeStore()
        let source = SMTHNForumSource()
        let users = ["alice", "bob", "carol", "dave", "erin"]
        let start = Fixtures.beijing(2026, 1, 1, 8, 0, 0)
        for (b, board) in ["Alpha", "Beta", "Gamma"].enumerated() {
            var threads: [(ThreadSummary, [Post])] = []
            for t in 0..<25 {
                let gid = 1000 + t
                let count = 1 + (t * 7 + b) % 6
                let posts = (0..<count).map { floor in
                    Post(
                        floor: floor, author: users[(t + floor + b) % users.count],
                        postedAt: start.addingTimeInterval(Double(t * 3600 + floor * 60 + b)),
                        body: "\(board) 第\(t)帖 \(floor)楼\n: 引用\n正文", postID: gid + floor)
                }
                // Equal reply counts across boards, so ties in hot topics are broken by board order.
                let summary = ThreadSummary(
                    gid: gid, title: "\(board) 主题 \(t)", replies: count - 1, sticky: t == 0, author: posts[0].author,
                    postedAt: posts[0].postedAt, lastReplier: posts.last?.author,
                    lastReplyAt: posts.last?.postedAt ?? start)
                threads.append((summary, posts))
            }
            try store.saveBoardPage(
                BoardPage(board: board, title: nil, page: PageInfo(current: 1, total: 1), threads: threads.map(\.0)),
                source: source)
            for (summary, posts) in threads {
                try store.saveThread(
                    board: board,
                    pages: [
                        ThreadPage(
                            board: board, gid: summary.gid, title: summary.title, page: PageInfo(current: 1, total: 1),
                            posts: posts)
                    ], summary: summary)
            }
        }
        return store
    }

    static func build(_ store: ArchiveStore, workers: Int) async throws -> [String: Data] {
        let publisher = MemoryPublisher()
        var options = Self.options()
        options.workers = workers
        _ = try SiteBuilder(
            store: store, templates: try await TemplateSet(directory: Fixtures.templates), publisher: publisher,
            options: options
        ).build()
        // The build's own note of when it ran is the one file that differs.
        return publisher.files.filter { $0.key != BuildState.path }
    }

    /// Small pages, so that every kind of page comes in several.
    static func options() -> SiteBuilder.Options {
        var options = SiteBuilder.Options()
        options.forum = Fixtures.smthForum
        options.siteURL = "https://archive.example.org/smth/"
        options.boardPagesPerTask = 1
        options.threadsPerPage = 3
        options.postsPerPage = 2
        options.hotTopics = 7
        options.feedEntries = 5
        return options
    }

    @Test func parallelBuildIsByteIdenticalToSerial() async throws {
        let store = try Self.makeStore()
        let serial = try await Self.build(store, workers: 1)
        let parallel = try await Self.build(store, workers: 4)
        #expect(serial.count > 100)
        #expect(Set(parallel.keys) == Set(serial.keys))
        let differing = serial.keys.filter { serial[$0] != parallel[$0] }.sorted()
        #expect(differing.isEmpty, "differ: \(differing.prefix(10))")
    }
}

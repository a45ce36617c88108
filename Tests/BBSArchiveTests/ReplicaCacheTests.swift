import Foundation
import SMTHReplica
import Testing

/// How many boards the replica keeps generated changes its memory and speed,
/// never a byte it serves: a board let go is generated again the same.
@Suite(.serialized) struct ReplicaCacheTests {
    @Test func aBoardGeneratedAgainServesTheSameBytes() async throws {
        var config = ReplicaNForumTests.config
        config.sections = 2
        let kept = try await ReplicaNForumTests.Served.start(config)
        config.cachedBoards = 1
        let evicted = try await ReplicaNForumTests.Served.start(config)
        var answers: [(path: String, kept: ReplicaNForumTests.Fetched, evicted: ReplicaNForumTests.Fetched)] = []
        do {
            answers = try await Self.answers(kept, evicted)
        } catch {
            Issue.record(error)
        }
        await kept.stop()
        await evicted.stop()
        #expect(answers.count >= 6)
        for answer in answers {
            #expect(answer.kept.status == 200, "\(answer.path)")
            #expect(answer.kept.body == answer.evicted.body, "\(answer.path)")
        }
        func counts(_ forum: ReplicaForum) -> [String] {
            forum.groundTruth().boards.map { "\($0.name) \($0.threads) \($0.posts) \($0.images) \($0.files)" }
        }
        #expect(counts(kept.forum) == counts(evicted.forum))
        #expect(counts(kept.forum).count == kept.forum.boardNames.count)
    }

    /// The same pages from both replicas, in an order that makes the one
    /// keeping a single board generate a board anew for each.
    static func answers(
        _ kept: ReplicaNForumTests.Served, _ evicted: ReplicaNForumTests.Served
    ) async throws -> [(path: String, kept: ReplicaNForumTests.Fetched, evicted: ReplicaNForumTests.Fetched)] {
        let names = kept.forum.boardNames
        try #require(names.count >= 3)
        let first = try #require(kept.forum.board(named: names[0])?.threads.last)
        // Each board in turn, then the first again and another: with one
        // board kept, every request after the first generates its board anew.
        let paths =
            names.map { "/board/\($0)?p=1" } + [
                "/board/\(names[0])?p=2", "/article/\(names[0])/\(first.gid)?p=1", "/board/\(names[1])?p=1",
            ]
        var answers: [(path: String, kept: ReplicaNForumTests.Fetched, evicted: ReplicaNForumTests.Fetched)] = []
        for path in paths { answers.append((path, try await kept.get(path), try await evicted.get(path))) }
        return answers
    }
}

import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// Issue 12, bug 3: the board's id is the forum's spelling, not the case the
/// reader typed, so `fetch geography` and `fetch Geography` make one tree.
@Suite(.serialized) struct BoardIdCaseTests {
    @Test(arguments: [false, true])
    func theForumsSpellingWins(nforum: Bool) async throws {
        let config = ReplicaConfig(seed: 7, sections: 1, boardsPerSection: 1, threadsPerBoard: 3, maxPostsPerThread: 3)
        let harness = try await ReplicaHarness.start(config)
        let source: any ForumSource =
            nforum ? SMTHNForumSource(baseURL: harness.base) : SMTHMobileSource(baseURL: harness.base)
        let canonical = harness.board
        #expect(canonical != canonical.lowercased())
        let first = try await harness.fetch(boards: [canonical.lowercased()], source: source)
        #expect(first.failures.isEmpty, "\(first.failures)")
        // The same board asked for the other way adds nothing new.
        let second = try await harness.fetch(boards: [canonical.uppercased()], source: source)
        await harness.stop()
        #expect(second.failures.isEmpty, "\(second.failures)")
        let store = try harness.store()
        #expect(try store.boards().map(\.name) == [canonical])
        let threads = try store.threads(board: canonical)
        #expect(threads.count == config.threadsPerBoard)
    }
}

import Foundation
import Synchronization
import Testing

@testable import BBSArchive

/// `parallelMap` runs a build's tasks on one pool of workers; a call made
/// from a task (a board's pages and threads) shares the same workers.
@Suite struct WorkerPoolTests {
    static func builder(workers: Int) async throws -> SiteBuilder {
        var options = SiteBuilder.Options()
        options.workers = workers
        return SiteBuilder(
            store: try GoldenPagesTests.makeStore(), templates: try await TemplateSet(directory: Fixtures.templates),
            publisher: MemoryPublisher(), options: options)
    }

    @Test(arguments: [1, 2, 3])
    func nestedCallsReturnEveryResultInOrder(workers: Int) async throws {
        let builder = try await Self.builder(workers: workers)
        let runs = Mutex(0)
        let results = try builder.parallelMap(Array(0..<7)) { outer throws(ArchiveError) in
            try builder.parallelMap(Array(0..<(outer * 3))) { inner throws(ArchiveError) in
                runs.withLock { $0 += 1 }
                return outer * 100 + inner
            }
        }
        var expected: [[Int]] = []
        for outer in 0..<7 { expected.append((0..<(outer * 3)).map { outer * 100 + $0 }) }
        #expect(results == expected)
        #expect(runs.withLock { $0 } == expected.map(\.count).reduce(0, +))
    }

    /// The first item of a board's run waits until another of its items has
    /// started: only a second worker can start it, one that finished its
    /// own board and joined this one. (A nested call that ran its items one
    /// after the other on the caller's thread would wait for ever; the
    /// wait's bound turns that into a failure.)
    @Test func workersJoinAnotherTaskNestedItems() async throws {
        let builder = try await Self.builder(workers: 2)
        let started = DispatchSemaphore(value: 0)
        let joined = Mutex(false)
        _ = try builder.parallelMap([0, 1]) { outer throws(ArchiveError) in
            guard outer == 0 else { return 0 }
            return try builder.parallelMap([0, 1, 2, 3]) { inner throws(ArchiveError) in
                if inner == 0 {
                    let outcome = started.wait(timeout: .now() + 60)
                    joined.withLock { $0 = outcome == .success }
                } else if inner == 1 {
                    started.signal()
                }
                return inner
            }.count
        }
        #expect(joined.withLock { $0 })
    }

    @Test func theFirstFailureIsThrownFromANestedCall() async throws {
        let builder = try await Self.builder(workers: 2)
        let failure = ArchiveError.outputUnwritable(path: "board/B/3.html", reason: "no space left")
        #expect(throws: failure) {
            _ = try builder.parallelMap(Array(0..<4)) { outer throws(ArchiveError) in
                try builder.parallelMap(Array(0..<5)) { inner throws(ArchiveError) in
                    if outer == 2 && inner == 3 { throw failure }
                    return inner
                }
            }
        }
    }
}

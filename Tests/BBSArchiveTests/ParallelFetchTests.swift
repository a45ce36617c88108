import Foundation
import GRDB
import SMTHReplica
import Testing

@testable import BBSArchive

/// Boards walked at the same time: the store ends up as a walk of one
/// board after another leaves it, and the one `--connections` budget holds.
@Suite struct ParallelFetchTests {
    static let config = ReplicaConfig(
        seed: 21, sections: 1, boardsPerSection: 4, threadsPerBoard: 14, maxPostsPerThread: 24,
        now: Fixtures.beijing(2026, 8, 1, 12))

    @Test func aParallelWalkStoresWhatASerialWalkStores() async throws {
        let forum = ReplicaForum(config: Self.config)
        let clock = TestClock(Self.config.now)
        let harness = try await ReplicaHarness.start(
            forum: forum, faults: ReplicaFaults(), folder: try Fixtures.temporaryFolder("parallel"), clock: clock)
        // The first board twice more, in other cases: one board, walked once.
        let first = harness.board
        let boards = forum.boardNames + [first.lowercased(), first.uppercased()]
        var results: [(rows: [String: [String]], requests: [String], report: Archiver.Report)] = []
        for walks in [1, 4] {
            let path = harness.folder.appendingPathComponent("walks-\(walks).sqlite").path
            var action = FetchAction(
                boards: boards, source: harness.source, storePath: path, rate: 0,
                options: Archiver.Options(connections: 3, boardWalks: walks))
            action.clock = { clock.now() }
            let logStart = await harness.server.requestCount()
            let report = try await action.run(events: { _ in })
            let requests = await harness.server.requestLog().dropFirst(logStart)
            results.append((try Self.rows(path), requests.sorted(), report))
        }
        await harness.stop()
        let (serial, parallel) = (results[0], results[1])
        #expect(serial.report.failures.isEmpty)
        #expect(parallel.report == serial.report)
        // The same pages asked for, each as often (the doubled board once).
        #expect(parallel.requests == serial.requests)
        #expect(serial.requests.filter { $0.lowercased() == "/board/\(first.lowercased())?p=1" }.count == 1)
        #expect(serial.rows.keys.sorted() == parallel.rows.keys.sorted())
        for table in serial.rows.keys.sorted() {
            #expect(serial.rows[table] == parallel.rows[table], "table \(table) differs")
        }
        #expect((serial.rows["post"] ?? []).count > 100)
        try ReplicaTruth.expectStore(
            try ArchiveStore(path: harness.folder.appendingPathComponent("walks-4.sqlite").path), matches: forum,
            base: harness.base)
    }

    /// The forum's sections page is asked for beside the walks, not after
    /// every thread, and it still files every board, even on a first fetch
    /// when no board is in the store yet: it is filed after the walks.
    @Test func theSectionsPageIsAskedForBesideTheWalksAndFilesEveryBoard() async throws {
        let forum = ReplicaForum(config: Self.config)
        let harness = try await ReplicaHarness.start(
            forum: forum, faults: ReplicaFaults(), folder: try Fixtures.temporaryFolder("sections"),
            clock: TestClock(Self.config.now))
        let report = try await harness.fetch(options: Archiver.Options(connections: 3))
        let requests = await harness.server.requestLog()
        await harness.stop()
        #expect(report.failures.isEmpty)
        let sections = try #require(requests.firstIndex(of: "/section"))
        let lastList = try #require(requests.lastIndex { $0.hasPrefix("/board/") })
        #expect(sections < lastList, "the sections page was asked for after the walks: \(requests)")
        let filed = try await DatabaseQueue(path: harness.storePath).read { db in
            try Row.fetchAll(db, sql: "SELECT name, section FROM board ORDER BY name").map {
                ($0["name"] as String, $0["section"] as String?)
            }
        }
        #expect(filed.map(\.0) == forum.boardNames.sorted())
        #expect(filed.allSatisfy { $0.1 != nil }, "boards left unfiled: \(filed)")
    }

    /// Every row of every table, sorted, leaving out row ids (which follow
    /// the order rows were written in) and the writer's lock.
    static func rows(_ path: String) throws -> [String: [String]] {
        try DatabaseQueue(path: path).read { db in
            var tables: [String: [String]] = [:]
            let names = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                      AND name NOT IN ('grdb_migrations', 'store_writer')
                    """)
            for name in names {
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(name))")
                let keys = columns.filter { ($0["pk"] as Int) > 0 }
                let rowID = keys.count == 1 && (keys[0]["type"] as String).uppercased() == "INTEGER"
                let kept = columns.map { $0["name"] as String }.filter { !rowID || $0 != (keys[0]["name"] as String) }
                let list = kept.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")
                tables[name] = try String.fetchAll(db, sql: "SELECT \(list) FROM \"\(name)\"").sorted()
            }
            return tables
        }
    }

    @Test func theGateLetsNoMoreThanItsWidthThrough() async throws {
        let gate = RequestGate(width: 3)
        let counter = InFlight()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    do {
                        try await gate.enter()
                    } catch {
                        return
                    }
                    counter.enter()
                    try? await Task.sleep(for: .milliseconds(5))
                    counter.leave()
                    await gate.leave()
                }
            }
        }
        #expect(counter.most == 3)
        #expect(counter.total == 24)
    }

    @Test func aCancelledTaskStopsWaitingAtTheGate() async throws {
        let gate = RequestGate(width: 1)
        try await gate.enter()
        let waiter = Task { () -> Bool in
            do {
                try await gate.enter()
                return true
            } catch {
                return false
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        #expect(await waiter.value == false)
        // The place it never took is still there for the next one.
        await gate.leave()
        try await gate.enter()
    }
}

/// Counts tasks inside a section and the most there were at once.
final class InFlight: @unchecked Sendable {
    // @unchecked: every field is only touched while holding `lock`.
    private let lock = NSLock()
    private var now = 0
    private var peak = 0
    private var count = 0
    func enter() {
        lock.withLock {
            now += 1
            count += 1
            peak = max(peak, now)
        }
    }
    func leave() { lock.withLock { now -= 1 } }
    var most: Int { lock.withLock { peak } }
    var total: Int { lock.withLock { count } }
}

import Foundation
import GRDB
import SMTHReplica
import Testing

@testable import BBSArchive

/// Stores made by earlier releases keep working: a store is months of
/// polite fetching, and an upgrade must never cost a row of it.
@Suite struct OldStoreTests {
    /// Written by the unmodified release e6c8b60 (see Stores/README.md).
    static let release = Fixtures.projectRoot.appendingPathComponent(
        "Tests/BBSArchiveTests/Stores/release-e6c8b60.sqlite")

    /// The forum the fixture was archived from, frozen at the same moment.
    static let forum = ReplicaConfig(
        seed: 3, sections: 1, boardsPerSection: 2, threadsPerBoard: 6, maxPostsPerThread: 25,
        now: Fixtures.beijing(2026, 8, 1, 12))

    /// The replica's port when the fixture was made: its URLs are in the store.
    static let releasePort: UInt16 = 44667

    static let forumTables = [
        "blob", "capture", "board", "section", "user", "post", "post_like", "attachment", "media",
    ]

    /// A copy of the release's store in a fresh folder.
    func copyOfRelease() throws -> URL {
        let folder = try Fixtures.temporaryFolder("old-store")
        let path = folder.appendingPathComponent("archive.sqlite")
        try FileManager.default.copyItem(at: Self.release, to: path)
        return path
    }

    /// Every row of `tables`, as text, per table.
    func rows(_ path: URL, _ tables: [String]) throws -> [String: Set<String>] {
        let queue = try DatabaseQueue(path: path.path)
        return try queue.read { db in
            var all: [String: Set<String>] = [:]
            for table in tables {
                all[table] = Set(try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map(\.description))
            }
            return all
        }
    }

    /// Builds the store's site; every thread with posts gets its page.
    func buildExpectingEveryThreadPage(_ path: URL) async throws {
        let out = path.deletingLastPathComponent().appendingPathComponent("site")
        let built = try await BuildAction(
            storePath: path.path, outputPath: out.path, templatesPath: Fixtures.templates.path
        ).run()
        #expect(built.pages > 0)
        try expectThreadPages(store: path, site: out, count: 11)
    }

    /// Every thread with posts got its page: `count` of them.
    func expectThreadPages(store path: URL, site: URL, count: Int) throws {
        let store = try ArchiveStore(path: path.path)
        var pages = 0
        for board in try store.boards() {
            for thread in try store.threads(board: board.name) where thread.postCount > 0 {
                let page = site.appendingPathComponent("board/\(board.name)/\(thread.gid).html")
                #expect(FileManager.default.fileExists(atPath: page.path), "\(page.path)")
                pages += 1
            }
        }
        #expect(pages == count)
    }

    /// Every row of `tables` as column → value, per table.
    func values(_ path: URL, _ tables: [String]) throws -> [String: [[String: DatabaseValue]]] {
        try DatabaseQueue(path: path.path).read { db in
            var all: [String: [[String: DatabaseValue]]] = [:]
            for table in tables {
                all[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map { row in
                    Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, row[$0] as DatabaseValue) })
                }
            }
            return all
        }
    }

    /// Changes the store behind the program's back.
    func execute(_ path: URL, _ sql: String) throws {
        try DatabaseQueue(path: path.path).write { db in try db.execute(sql: sql) }
    }

    /// Rows of `before` that no row of `after` keeps: kept means some row
    /// now has every value the old row had (a board may gain its section
    /// and title, a thread its original address; neither loses anything).
    func lost(
        _ before: [String: [[String: DatabaseValue]]], _ after: [String: [[String: DatabaseValue]]]
    ) -> [String: [[String: DatabaseValue]]] {
        var lost: [String: [[String: DatabaseValue]]] = [:]
        for (table, old) in before {
            let gone = old.filter { row in
                !after[table, default: []].contains { new in
                    row.allSatisfy { column, value in value.isNull || new[column] == value }
                }
            }
            if !gone.isEmpty { lost[table] = gone }
        }
        return lost
    }

    @Test func buildAndArchiveKeepEveryRowOfTheRelease() async throws {
        let path = try copyOfRelease()
        let tables = Self.forumTables + ["thread", "crawl", "failure"]
        let before = try values(path, tables)
        #expect(before["post"]?.count == 67)
        #expect(before["failure"]?.count == 1)

        // build: reads everything, loses nothing, adds no row.
        try await buildExpectingEveryThreadPage(path)
        let afterBuild = try values(path, tables)
        #expect(lost(before, afterBuild).isEmpty, "\(lost(before, afterBuild))")
        #expect(afterBuild.mapValues(\.count) == before.mapValues(\.count))
        // Threads saved before the store kept original addresses got theirs.
        let store = try ArchiveStore(path: path.path)
        for board in ["Geography", "WorkLife"] {
            #expect(
                try store.threads(board: board).allSatisfy {
                    $0.originalURL?.hasPrefix("http://127.0.0.1:\(Self.releasePort)/") == true
                })
        }
        #expect(try store.posts(board: "WorkLife", gid: store.threads(board: "WorkLife")[0].gid).isEmpty == false)

        // archive from the same forum: the failed thread is fetched now and
        // its failure forgotten; every row stored before is still there.
        let harness = try await ReplicaHarness.start(
            forum: ReplicaForum(config: Self.forum), faults: ReplicaFaults(), folder: path.deletingLastPathComponent(),
            port: Self.releasePort)
        let report = try await harness.fetch(boards: ["Geography"])
        await harness.stop()
        #expect(report.failures.isEmpty)
        #expect(report.threadsFetched == 1)
        let after = try values(path, tables)
        let gone = lost(before, after)
        #expect(Set(gone.keys).isSubset(of: ["crawl", "failure", "thread"]), "\(gone)")
        // What changed is the crawl state and the failed thread: archived now.
        #expect(gone["thread"]?.count ?? 0 <= 1)
        #expect(after["thread"]?.count == before["thread"]?.count)
        #expect(after["failure"]?.isEmpty == true)
        #expect(try ArchiveStore(path: path.path).threads(board: "Geography").allSatisfy { $0.postCount > 0 })
    }

    /// A store whose `v1` predates its final form (columns and tables added
    /// to `v1` in place later) is repaired, not refused.
    @Test func storesOfEarlierV1EditionsAreRepaired() async throws {
        let path = try copyOfRelease()
        let dropped = ["nick", "title", "signature", "postID", "editedAt"].map { "ALTER TABLE post DROP COLUMN \($0)" }
        try execute(
            path,
            dropped.joined(separator: ";")
                + """
                ; ALTER TABLE thread DROP COLUMN changedAt; ALTER TABLE board DROP COLUMN section;
                ALTER TABLE board DROP COLUMN source; ALTER TABLE board DROP COLUMN baseURL;
                ALTER TABLE media DROP COLUMN variant;
                DROP TABLE post_like; DROP TABLE section; DROP TABLE crawl; DROP TABLE failure
                """)
        let store = try ArchiveStore(path: path.path)
        let gid = try #require(try store.threads(board: "WorkLife").first?.gid)
        #expect(try store.posts(board: "WorkLife", gid: gid).isEmpty == false)
        #expect(try store.failures().isEmpty)
        try await buildExpectingEveryThreadPage(path)
    }

    /// A store with every migration applied opens without migrating, but
    /// one last written by another version still records this one.
    @Test func aCurrentStoreWrittenByAnotherVersionRecordsThisOne() throws {
        let path = try copyOfRelease()
        _ = try ArchiveStore(path: path.path)
        try execute(path, "UPDATE store_writer SET version = '0.0.1'")
        _ = try ArchiveStore(path: path.path)
        let writer = try DatabaseQueue(path: path.path).read { db in
            try String.fetchOne(db, sql: "SELECT version FROM store_writer WHERE id = 1")
        }
        #expect(writer == BBSArchiveVersion.build)
    }

    @Test func aStoreOfANewerReleaseIsRefusedNamingBothVersions() throws {
        let path = try copyOfRelease()
        _ = try ArchiveStore(path: path.path)
        try execute(
            path,
            "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future'); UPDATE store_writer SET version = '9.9.9'"
        )
        let before = try rows(path, Self.forumTables)
        #expect {
            _ = try ArchiveStore(path: path.path)
        } throws: { error in
            let text = "\(error)"
            return text.contains("bbsarchive 9.9.9, schema v99-from-the-future")
                && text.contains(
                    "bbsarchive \(BBSArchiveVersion.build), schema \(StoreSchema.migrator.migrations.last ?? "")")
                && !text.contains("\n")
        }
        #expect(try rows(path, Self.forumTables) == before)
    }
}

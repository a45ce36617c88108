import Foundation
import GRDB
import Testing

@testable import BBSArchive

/// A finished store kept where no one can write it (a read-only mount, a
/// folder of another user, a disc): `status`, `export` and `build` read it
/// there, with or without its `-wal` and `-shm` files, and show what they
/// show of the same store where it can be written; the commands that write
/// it say in one line that it cannot be. Nothing of it changes.
@Suite(
    .serialized,
    .enabled(
        if: ReadOnlyFolder.available,
        "no folder can be made read-only to this process here: as root that takes `chattr +i`, which needs a file system with the immutable attribute and CAP_LINUX_IMMUTABLE"
    ))
struct ReadOnlyStoreTests {
    /// A store of three boards whose `-wal` file still holds the frames of
    /// its last write, already copied into the store file (as every run
    /// leaves them), and its `-shm` file beside it.
    static func makeStore() throws -> String {
        // Released at once: its many frames are copied in and the WAL emptied.
        let path = try ParallelBuildTests.makeStore().path
        let store = try ArchiveStore(path: path)
        try IncrementalBuildTests.newThread(
            3000, board: "Beta", at: Fixtures.beijing(2026, 1, 3, 9), title: "最后一帖", to: store)
        return path
    }

    /// The files of a store that a copy holds.
    enum Kept: String, CaseIterable, Sendable {
        case all, storeFileOnly, withoutWAL, withoutSHM

        var suffixes: [String] {
            switch self {
            case .all: ["", "-wal", "-shm"]
            case .storeFileOnly: [""]
            case .withoutWAL: ["", "-shm"]
            case .withoutSHM: ["", "-wal"]
            }
        }
    }

    /// A copy of the store at `path` in a folder of its own, with the files
    /// `suffixes` names (`""` the store file, `-wal`, `-shm`).
    static func copy(_ path: String, _ suffixes: [String]) throws -> String {
        let folder = try Fixtures.temporaryFolder("read-only")
        let copy = folder.appendingPathComponent("archive.sqlite").path
        for suffix in suffixes { try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix) }
        return copy
    }

    /// The bytes of every file beside the store, by name.
    static func snapshot(_ path: String) throws -> [String: Data] {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    /// The site in `folder`, its build state aside.
    static func site(_ folder: URL) throws -> [String: Data] {
        try DiskPublisherTests.files(in: folder).filter { $0.key != BuildState.path }
    }

    static func build(_ store: String, into folder: URL) async throws -> CommandLineTests.Outcome {
        try await CommandLineTests().run([
            "build", "--store", store, "--out", folder.path, "--templates", Fixtures.templates.path, "--quiet",
        ])
    }

    static func statusJSON(_ outcome: CommandLineTests.Outcome) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
    }

    /// A value of a JSON object as JSON with its keys sorted, to compare.
    static func canonical(_ value: Any?) throws -> String {
        let data = try JSONSerialization.data(
            withJSONObject: value ?? NSNull(), options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }

    /// `status`, `export` and `build` of the store where it can be written,
    /// then of copies that no one can write: all of its files, the store
    /// file alone (no WAL: nothing can be missing from it), without its
    /// WAL, and without its `-shm` (the WAL's frames are all in the store
    /// file, which is checked before it is read without them).
    @Test func statusExportAndBuildReadItWithOrWithoutItsWALAndSHM() async throws {
        let path = try Self.makeStore()
        let wal = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        try #require(wal > 32, "the WAL holds frames")
        try #require(FileManager.default.fileExists(atPath: path + "-shm"))
        let copies = try Kept.allCases.map { ($0, try Self.copy(path, $0.suffixes)) }

        let out = try Fixtures.temporaryFolder("read-only-out")
        let status = try Self.statusJSON(try await CommandLineTests().run(["status", "--json", "--store", path]))
        let jsonl = out.appendingPathComponent("writable.jsonl").path
        _ = try ExportAction(storePath: path, format: .jsonl, outputPath: jsonl).run()
        let built = try await Self.build(path, into: out.appendingPathComponent("writable"))
        #expect(built.status == 0, "\(built.stderr)")
        let site = try Self.site(out.appendingPathComponent("writable"))

        for (kept, copy) in copies {
            let before = try Self.snapshot(copy)
            let folder = try ReadOnlyFolder.lock(URL(fileURLWithPath: copy).deletingLastPathComponent())
            defer { folder.unlock() }

            let shown = try await CommandLineTests().run(["status", "--json", "--store", copy])
            #expect(shown.status == 0, "\(kept): \(shown.stderr)")
            let json = try Self.statusJSON(shown)
            for key in ["boards", "failures", "migrations", "captures"] {
                #expect(try Self.canonical(json[key]) == Self.canonical(status[key]), "\(kept): \(key)")
            }

            let exported = out.appendingPathComponent("\(kept).jsonl").path
            let report = try ExportAction(storePath: copy, format: .jsonl, outputPath: exported).run()
            #expect(report.records > 0)
            #expect(FileManager.default.contents(atPath: exported) == FileManager.default.contents(atPath: jsonl))

            let into = out.appendingPathComponent(kept.rawValue)
            let first = try await Self.build(copy, into: into)
            #expect(first.status == 0, "\(kept): \(first.stderr)")
            let copySite = try Self.site(into)
            #expect(Set(copySite.keys) == Set(site.keys), "\(kept)")
            #expect(site.keys.filter { copySite[$0] != site[$0] }.sorted().prefix(10) == [], "\(kept)")
            // Built again, with nothing changed.
            let again = try await Self.build(copy, into: into)
            #expect(again.status == 0, "\(kept): \(again.stderr)")
            #expect(try Self.site(into) == copySite, "\(kept)")

            folder.unlock()
            #expect(try Self.snapshot(copy) == before, "\(kept): the store's files changed")
        }
    }

    /// Writes still only in the WAL (a run that stopped before its closing
    /// checkpoint) are read from it when the `-shm` is there (the store
    /// named directly or through a link); without the
    /// `-shm`, SQLite could not read them from a folder that cannot take
    /// one, and the store file alone would show the store as it was before
    /// them: the command says so in one line and shows nothing.
    @Test func writesOnlyInTheWALAreReadOrTheStoreIsRefused() async throws {
        let path = try Self.makeStore()
        let queue = try DatabaseQueue(path: path)
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        try await queue.write { db in
            try db.execute(sql: "UPDATE board SET title = '只在日志里' WHERE name = 'Beta'")
        }
        let withSHM = try Self.copy(path, Kept.all.suffixes)
        let withoutSHM = try Self.copy(path, Kept.withoutSHM.suffixes)
        let fileAlone = try Self.copy(path, Kept.storeFileOnly.suffixes)
        try queue.close()
        let alone = try DatabaseQueue(path: fileAlone)
        let before = try await alone.read { db in
            try String.fetchOne(db, sql: "SELECT title FROM board WHERE name = 'Beta'")
        }
        try alone.close()
        try #require(before == nil, "the store file alone lacks the write")

        let folder = try ReadOnlyFolder.lock(URL(fileURLWithPath: withSHM).deletingLastPathComponent())
        defer { folder.unlock() }
        let shown = try await CommandLineTests().run(["status", "--store", withSHM])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("Beta (只在日志里)"), "\(shown.stdout)")
        let (status, _) = try StatusAction(storePath: withSHM).run()
        #expect(status.boards.first { $0.board == "Beta" }?.title == "只在日志里")
        // Through a link from elsewhere: the -wal and -shm are beside the file it names.
        let link = try Fixtures.temporaryFolder("read-only-link").appendingPathComponent("linked.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: withSHM)
        let (linked, _) = try StatusAction(storePath: link).run()
        #expect(linked.boards.first { $0.board == "Beta" }?.title == "只在日志里")

        let refusing = try ReadOnlyFolder.lock(URL(fileURLWithPath: withoutSHM).deletingLastPathComponent())
        defer { refusing.unlock() }
        for command in [["status"], ["export", "--format", "jsonl", "--out", fileAlone + ".jsonl"]] {
            let refused = try await CommandLineTests().run(command + ["--store", withoutSHM])
            CommandLineTests().expectOneLineError(refused, containing: "its -wal file holds writes")
            #expect(refused.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: fileAlone + ".jsonl"))
    }

    /// A store an older bbsarchive wrote is upgraded when it is opened,
    /// which writes it: where it cannot be written, the commands that read
    /// it say so in one line, and it stays as it was.
    @Test func aStoreThatNeedsAnUpgradeIsRefusedAndLeftAsItWas() async throws {
        let copy = try Self.copy(OldStoreTests.release.path, [""])
        let original = try Self.snapshot(copy)
        let out = try Fixtures.temporaryFolder("read-only-out")
        let folder = try ReadOnlyFolder.lock(URL(fileURLWithPath: copy).deletingLastPathComponent())
        defer { folder.unlock() }
        for command in [
            ["status"], ["export", "--format", "warc", "--out", out.appendingPathComponent("a.warc.gz").path],
            ["build", "--out", out.appendingPathComponent("site").path, "--templates", Fixtures.templates.path],
        ] {
            let refused = try await CommandLineTests().run(command + ["--store", copy])
            CommandLineTests().expectOneLineError(refused, containing: "needs an upgrade")
            #expect(refused.stderr.contains(copy))
        }
        folder.unlock()
        #expect(try Self.snapshot(copy) == original)
    }

    /// The commands that write the store say in one line that its folder
    /// cannot be written, and what to do.
    @Test func commandsThatWriteTheStoreSayItsFolderCannotBeWritten() async throws {
        let copy = try Self.copy(try Self.makeStore(), Kept.all.suffixes)
        let out = try Fixtures.temporaryFolder("read-only-out")
        let folder = try ReadOnlyFolder.lock(URL(fileURLWithPath: copy).deletingLastPathComponent())
        defer { folder.unlock() }
        let forum = ["--forum-url", "http://127.0.0.1:1", "--rate", "0"]
        for command in [
            ["fetch", "Beta"] + forum, ["archive", "Beta", "--out", out.appendingPathComponent("site").path] + forum,
            ["reparse"],
        ] {
            let refused = try await CommandLineTests().run(command + ["--store", copy])
            CommandLineTests().expectOneLineError(refused, containing: "cannot write the store \(copy): its folder ")
            #expect(refused.stderr.contains("cannot be written"), "\(refused.stderr)")
            #expect(refused.stderr.contains("copy it with its -wal and -shm files to a folder you can write"))
        }
    }

    /// A site built before from the store where it could be written is
    /// brought up to date from a copy no one can write: the pages of what
    /// changed since, the hot windows counted from the posts (the store
    /// cannot keep its counts) and the search index made anew (the store
    /// cannot record what it holds). The site then equals a full build;
    /// and a later build where the store can be written, after another
    /// change, equals one too (no index is appended to that the store does
    /// not describe: its search index holds what a full pass's does).
    @Test func aSiteBuiltBeforeIsBroughtUpToDateFromACopyNoOneCanWrite() async throws {
        let path = try Self.makeStore()
        let out = try Fixtures.temporaryFolder("read-only-out")
        let site = out.appendingPathComponent("site")
        #expect(try await Self.build(path, into: site).status == 0)
        do {
            let store = try ArchiveStore(path: path)
            try IncrementalBuildTests.newThread(
                3001, board: "Alpha", at: Fixtures.beijing(2026, 6, 1, 10), title: "又一帖", body: "新词汇", to: store)
        }
        let copy = try Self.copy(path, Kept.all.suffixes)
        let folder = try ReadOnlyFolder.lock(URL(fileURLWithPath: copy).deletingLastPathComponent())
        defer { folder.unlock() }
        let updated = try await Self.build(copy, into: site)
        #expect(updated.status == 0, "\(updated.stderr)")
        let full = out.appendingPathComponent("full")
        #expect(try await Self.build(path, into: full).status == 0)
        let expected = try Self.site(full)
        var got = try Self.site(site)
        #expect(Set(got.keys) == Set(expected.keys))
        #expect(expected.keys.filter { got[$0] != expected[$0] }.sorted().prefix(10) == [])

        do {
            let store = try ArchiveStore(path: path)
            try IncrementalBuildTests.newThread(
                3002, board: "Gamma", at: Fixtures.beijing(2026, 6, 2, 11), title: "第三帖", to: store)
        }
        #expect(try await Self.build(path, into: site).status == 0)
        let fullAgain = out.appendingPathComponent("full-again")
        #expect(try await Self.build(path, into: fullAgain).status == 0)
        // The index appended to holds what a full pass does, in files of its own.
        func pages(_ folder: URL) throws -> [String: Data] {
            try Self.site(folder).filter { !$0.key.hasPrefix("search/") }
        }
        got = try pages(site)
        let expectedAgain = try pages(fullAgain)
        #expect(Set(got.keys) == Set(expectedAgain.keys))
        #expect(expectedAgain.keys.filter { got[$0] != expectedAgain[$0] }.sorted().prefix(10) == [])
        func index(_ folder: URL) throws -> SearchIndexTests.Content {
            try SearchIndexTests.Content { try? Data(contentsOf: folder.appendingPathComponent($0)) }
        }
        #expect(try index(site) == index(fullAgain))
    }

    /// From a store it cannot write, a build makes the search index anew
    /// (the store could not record the map of an appended one) and records
    /// nothing; while it writes its files over the index that store names,
    /// the manifest on disk names no index the store does: a build stopped
    /// among them leaves none that a later build, where the store can be
    /// written, would append to. Checked at every file but the manifest.
    @Test func aPassFromAStoreNoOneCanWriteLeavesNoIndexTheStoreNamesWhileItWrites() async throws {
        let (path, store, _, site, first) = try await SearchIndexTests.indexedCopy("read-only-search")
        let body = "迟到的回复：鄱阳湖的候鸟 Zyxwvut 2048\n看看"
        let changes = try await SearchIndexTests.insert(path, store, [(0, 60, body), (1, 120, body)])
        let copy = try Self.copy(path, Kept.all.suffixes)
        let folder = try ReadOnlyFolder.lock(URL(fileURLWithPath: copy).deletingLastPathComponent())
        defer { folder.unlock() }
        let readOnly = try ArchiveStore(path: copy, use: .read)
        #expect(readOnly.readOnly)
        func named() throws -> [String] {
            try readOnly.read { db in try String.fetchAll(db, sql: "SELECT id FROM search_index") }
        }
        let manifest = try #require(
            site.publisher.read(SearchIndexWriter.manifestPath).flatMap(SearchIndexWriter.parseManifest))
        #expect(try named() == [manifest.id], "the store names the site's index")

        var writer = SearchIndexWriter(store: readOnly, postsPerPage: 20, forum: Fixtures.smthForum)
        writer.filesAtOnce = 1
        let names = try named()
        let watched = site.watched { names }
        let written = site.written.count
        let report = try writer.update(changes, watched)
        #expect(report.full && report.documents == first.documents + 2)
        #expect(site.written.count - written > 10, "the pass wrote few files; the test proves little")
        let agreed = site.lock.withLock { site.agreed }
        #expect(agreed.isEmpty, "\(agreed.prefix(5))")
        #expect(try named() == names)

        let full = SearchIndexTests.Recorder()
        _ = try SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum).update(
            SearchChanges(threads: nil), full.output)
        let content = try SearchIndexTests.Content(site.publisher.read)
        #expect(content == (try SearchIndexTests.Content(full.publisher.read)))
        #expect(content.postings["u:鄱"]?.count ?? 0 >= 2)
    }
}

/// A folder and its files that no one can write until `unlock()`, root
/// included: root ignores permission bits, so as root they take the
/// immutable attribute (`chattr +i`), which binds root too; otherwise
/// plain modes (0555 and 0444) do.
struct ReadOnlyFolder {
    let url: URL
    private let files: [URL]

    private static let asRoot = geteuid() == 0
    private static let chattr = "/usr/bin/chattr"

    /// Whether this process can be kept from writing a folder here, tried
    /// once on a scratch folder: a file in it cannot be opened for writing,
    /// nor a new one made.
    static let available: Bool = {
        guard let folder = try? Fixtures.temporaryFolder("read-only-probe") else { return false }
        let file = folder.appendingPathComponent("file")
        guard FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8)),
            let locked = try? lock(folder)
        else { return false }
        defer { locked.unlock() }
        let write = open(file.path, O_WRONLY)
        let create = open(folder.appendingPathComponent("new").path, O_WRONLY | O_CREAT, 0o644)
        for descriptor in [write, create] where descriptor >= 0 { close(descriptor) }
        return write < 0 && create < 0
    }()

    static func lock(_ url: URL) throws -> ReadOnlyFolder {
        let files = try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
        let locked = ReadOnlyFolder(url: url, files: files)
        if asRoot {
            try run(["+i"] + files.map(\.path) + [url.path])
        } else {
            for file in files { chmod(file.path, 0o444) }
            chmod(url.path, 0o555)
        }
        return locked
    }

    /// Makes the folder and its files writable again (twice does no harm).
    func unlock() {
        if Self.asRoot {
            try? Self.run(["-i", url.path] + files.map(\.path))
        } else {
            chmod(url.path, 0o755)
            for file in files { chmod(file.path, 0o644) }
        }
    }

    private struct Failed: Error {}

    private static func run(_ arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: chattr) else { throw Failed() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chattr)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failed() }
    }
}

import Foundation
import GRDB
import Glibc
import Synchronization

/// The archive's SQLite store: raw captures, boards, threads, posts, users
/// and media. Every write is one transaction, and every write is an upsert
/// keyed by forum ids, so running the same archive twice adds nothing.
///
/// Bodies (pages and media) live once each in `blob`, keyed by SHA-256;
/// `capture` and `media` point at them.
package final class ArchiveStore: Sendable {
    package let path: String
    private let database: DatabasePool
    /// When things happen: a thread changes, a walk starts, a page fails.
    let clock: ArchiveClock
    /// Whether the store is open read-only: it cannot be written where it
    /// is, and the command only reads it (`Use.read`). Nothing is written
    /// to it then: no migration, no writer, no checkpoint, and none of the
    /// build's counts, search map or image facts (see `readOnlyLocation`).
    package let readOnly: Bool
    /// The walks begun afresh (`beginWalk`) whose row in `crawl` is not
    /// written yet, by board. The row is written with the walk's first list
    /// page stored, or, for a walk that finished having stored none, with
    /// the run's others in one commit at the fetch's end (`writeFinishedWalks`).
    let unwrittenWalks = Mutex<[String: UnwrittenWalk]>([:])

    /// What a command does with the store.
    package enum Use: Sendable {
        /// `fetch`, `reparse`: it opens, makes and upgrades the store.
        case write
        /// `status`, `export`, `build`: it only needs to read the store, so
        /// it reads one it cannot write (on a read-only mount, in another
        /// user's folder, on a disc) read-only, where it is.
        case read
    }

    /// Opens (or creates) the store at `path` and brings its schema up to
    /// date; with `use` `.read`, opens it read-only when it cannot be
    /// written where it is (and refuses one that would need an upgrade).
    package init(path: String, clock: @escaping ArchiveClock = SystemClock.now, use: Use = .write)
        throws(ArchiveError)
    {
        self.path = path
        self.clock = clock
        // Only a command that reads asks first (a few system calls, about
        // 10 µs): one that writes learns it from its lock file, or from SQLite.
        readOnly = use == .read && Self.unwritable(path) != nil
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // Every connection keeps up to 16 MB of the store's pages
            // (SQLite's default is 2 MB), so a build, and the search index's
            // full pass on the writer, read most pages once from the file,
            // not several times over. The writer and a handful of readers:
            // well inside the build's memory bound.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.pageCacheKiB)")
            if !db.configuration.readonly { Self.keepWALFile(db) }
        }
        let location = readOnly ? try Self.readOnlyLocation(path) : path
        do {
            database = try DatabasePool(path: location, configuration: configuration)
        } catch {
            throw Self.failure(error, path: path)
        }
        let schema = try StoreSchema.refuseNewer(database, path: path)
        if readOnly {
            // An upgrade writes the store: never done read-only, nor the store read without it.
            guard schema.current else { throw .storeReadOnly(path: path, need: .upgrade) }
            return
        }
        do {
            // A store with every migration applied and written last by this
            // version needs no write to open: the common case of an update.
            if !schema.current { try StoreSchema.migrator.migrate(database) }
            if !schema.current || schema.writer != BBSArchiveVersion.version {
                try database.write { try StoreSchema.recordWriter($0) }
            }
        } catch {
            throw Self.failure(error, path: path)
        }
    }

    deinit {
        if !readOnly { emptyLargeWAL() }
    }

    /// WAL frames left at the end of a run above which the WAL is emptied
    /// (1.6 MB of pages). Every run reads again the frames it finds (a
    /// build with nothing to do took 19.6 ms with 584 frames, 16.9 ms with
    /// one) and copies them into the store again when it closes; emptying
    /// the file costs the next run GRDB's write (see `keepWALFile`), about
    /// 1.2 ms. An update after one reply (fetch, then build) adds about 100
    /// frames. At 1,000 (SQLite's automatic checkpoint size, the bound
    /// before) the runs of an update found about 500 frames each. At 128
    /// the file was emptied after every update, which took 2.9 ms less
    /// (median of 24 paired updates at 100k posts, of about 120 ms); at
    /// this bound it is emptied every three or four updates, which took
    /// 5.2 and 8.1 ms less (two such runs, of about 150 ms).
    static let largeWALFrames = 400

    /// Empties the WAL file when this run leaves many frames in it, so that
    /// the next run does not copy them into the store again.
    ///
    /// The closing checkpoint copies the WAL into the store, but with the
    /// WAL file kept (`keepWALFile`) its frames stay valid on disk, and the
    /// next run's first connection re-reads them all (SQLite's recovery)
    /// and its closing checkpoint writes them all into the store again,
    /// and syncs it. After a full build that was 10-49 MB: the next fetch,
    /// with nothing new, took 1.06 s instead of 0.07 s, and `status` 0.7 s.
    /// A run that writes a little keeps its few frames, which the next run
    /// copies cheaply: an empty WAL file would make GRDB write one (see
    /// `keepWALFile`). Best effort: when another process is reading, the
    /// WAL stays as it was (the next run copies it).
    private func emptyLargeWAL() {
        try? database.writeWithoutTransaction { db in
            guard try db.checkpoint(.passive).walFrameCount > Self.largeWALFrames else { return }
            // Never wait for another process's reads: the run is over.
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            _ = try db.checkpoint(.truncate)
        }
    }

    /// Keeps the `-wal` (and `-shm`) file beside the store when the last
    /// connection closes (SQLite's persistent WAL), emptied by the closing
    /// checkpoint as before, instead of deleting it. Otherwise every run
    /// found no WAL file, and GRDB made one by writing (creating and
    /// dropping a table: a schema change, a new file, a synced WAL header
    /// and a synced folder) before anything else, in `fetch` and `build`
    /// alike. What is durable is unchanged: the closing checkpoint still
    /// syncs the WAL and the store. Best effort: without it, only slower.
    private static func keepWALFile(_ db: Database) {
        guard let fileControl, let connection = db.sqliteConnection else { return }
        var on: Int32 = 1
        _ = fileControl(connection, nil, persistWAL, &on)
    }

    /// The page cache of each connection, in KiB.
    static let pageCacheKiB = 16 * 1024

    /// `SQLITE_FCNTL_PERSIST_WAL`.
    private static let persistWAL: Int32 = 10

    /// SQLite's `sqlite3_file_control`, found in the process (GRDB links
    /// SQLite; its C module is not a dependency of this target).
    private static let fileControl:
        (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutableRawPointer?) -> Int32)? =
            dlsym(nil, "sqlite3_file_control").map {
                unsafeBitCast(
                    $0,
                    to: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutableRawPointer?) ->
                        Int32)
                        .self)
            }

    func write(_ body: (Database) throws -> Void) throws(ArchiveError) {
        do {
            try database.write(body)
        } catch {
            throw Self.failure(error, path: path)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(ArchiveError) -> T {
        do {
            // Inside `reading(_:)` on this thread: its transaction serves.
            if let open = ReadScope.open, open.store == ObjectIdentifier(self) { return try body(open.db) }
            return try database.read(body)
        } catch {
            throw .storeUnavailable(path: path, reason: Self.describe(error))
        }
    }

    /// Runs `body` with every read it makes of this store, on this thread,
    /// in one read transaction (one snapshot), instead of one transaction
    /// per query: a build reads each thread's posts and each user's posts
    /// in runs of many, and a transaction (a reader taken from the pool,
    /// `BEGIN`, the WAL's read lock, `COMMIT`) cost about as much as the
    /// query. Reads made on other threads take their own.
    ///
    /// `body` must not read from tasks it starts (`parallelMap`): GRDB
    /// allows a connection only on its own queue, and a task is not on it
    /// even when it runs on the same thread.
    package func reading<T>(_ body: () throws(ArchiveError) -> T) throws(ArchiveError) -> T {
        if let open = ReadScope.open, open.store == ObjectIdentifier(self) { return try body() }
        var outcome: Result<T, ArchiveError>?
        do {
            try database.read { db in
                ReadScope.$open.withValue(OpenRead(db: db, store: ObjectIdentifier(self))) {
                    do throws(ArchiveError) {
                        outcome = .success(try body())
                    } catch {
                        outcome = .failure(error)
                    }
                }
            }
        } catch {
            throw .storeUnavailable(path: path, reason: Self.describe(error))
        }
        guard let outcome else { throw .storeUnavailable(path: path, reason: "a read did not run") }
        return try outcome.get()
    }

    /// The error a failed open or write of the store at `path` is told
    /// as: one that SQLite refused because the store cannot be written
    /// where it is says what cannot be written (asked only then).
    private static func failure(_ error: any Error, path: String) -> ArchiveError {
        if let code = (error as? DatabaseError)?.resultCode,
            [.SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM].contains(code),
            let reason = unwritable(path)
        {
            return .storeReadOnly(path: path, need: .command(reason: reason))
        }
        return .storeUnavailable(path: path, reason: describe(error))
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB: return "it is not a SQLite database"
            case .SQLITE_CANTOPEN: return "the file cannot be created or opened there"
            case .SQLITE_READONLY, .SQLITE_PERM: return "it is read-only"
            case .SQLITE_FULL: return ArchiveError.storeDiskFull
            case .SQLITE_BUSY, .SQLITE_LOCKED: return "another bbsarchive is using it"
            default: return error.message ?? "\(error.resultCode)"
            }
        }
        return "\(error)"
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}

/// The read transaction `ArchiveStore.reading(_:)` holds, seen by the
/// reads made on the same thread while it runs. Only that thread uses it,
/// within the transaction's closure: hence `@unchecked`.
private final class OpenRead: @unchecked Sendable {
    let db: Database
    let store: ObjectIdentifier

    init(db: Database, store: ObjectIdentifier) {
        self.db = db
        self.store = store
    }
}

private enum ReadScope {
    /// Outside a Swift task, a thread-local value.
    @TaskLocal static var open: OpenRead?
}

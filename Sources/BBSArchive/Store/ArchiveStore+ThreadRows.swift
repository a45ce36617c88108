import Foundation
import GRDB
import Synchronization

/// The rows of the threads the pages about the whole archive show (the
/// home page, the feeds, the hot windows: `StoredThread`), kept between
/// the builds of one process that builds again and again (`archive
/// --every`), so that a build after one reply reads from the store only
/// the rows of the threads that changed, not the few hundred it shows.
///
/// Every column of such a row follows a change logged in `build_change`
/// for its thread: the thread's own columns (its triggers, with the
/// original address since `v17-original-url-changes`) and its posts
/// (first and last, the count). So a row read by one build is still the
/// store's at the next, unless that build's changes name its thread: the
/// next build drops those (`begin`), and everything when it does not
/// continue from the build that kept the rows (another change sequence,
/// or a build of everything).
///
/// In a running `archive --every` at 100k posts, after one reply each
/// update, the two orders' rows took 7.7 % of the CPU samples and the hot
/// windows' (with their counts) 6.7 % (perf), most of it SQLite finding
/// each row's thread and first and last posts in pages the fetch's writes
/// had just dropped from its page cache. With the memo, 8 updates took
/// 585-615 ms of CPU against 615-696 ms without (3 alternated runs each,
/// -7 % at the median); their wall times did not differ beyond the noise.
package final class ThreadRowMemo: Sendable {
    private struct State {
        /// The change sequence the rows are the store's at (`begin`).
        var through: Int64?
        var rows: [BuildChanges.ThreadKey: StoredThread] = [:]
        /// The rows the build since `begin` took or read: only those are
        /// kept for the next, so the memo holds what one build shows, not
        /// every thread that was ever hot in a process that runs for months.
        var used: Set<BuildChanges.ThreadKey> = []
        var hits = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Called by a build before it reads a row: `changes` are those logged
    /// after `seq` (nil: the build renders everything), the build's state
    /// will say `through`. The rows the last build used stay, but for
    /// those of changed threads; none when the rows kept are not those of
    /// the state at `seq`.
    func begin(changes: BuildChanges?, after seq: Int64?, through: Int64) {
        state.withLock { state in
            if let changes, let seq, state.through == seq {
                state.rows = state.rows.filter { state.used.contains($0.key) && !changes.threads.contains($0.key) }
            } else {
                state.rows = [:]
            }
            state.used = []
            state.through = through
        }
    }

    /// The kept rows of `keys` (those it has).
    func rows(_ keys: [BuildChanges.ThreadKey]) -> [BuildChanges.ThreadKey: StoredThread] {
        state.withLock { state in
            var found: [BuildChanges.ThreadKey: StoredThread] = [:]
            for key in keys { if let row = state.rows[key] { found[key] = row } }
            state.used.formUnion(found.keys)
            state.hits += found.count
            return found
        }
    }

    func keep(_ rows: [BuildChanges.ThreadKey: StoredThread]) {
        state.withLock { state in
            state.rows.merge(rows) { _, new in new }
            state.used.formUnion(rows.keys)
        }
    }

    /// How many rows it holds (for tests).
    package var count: Int { state.withLock { $0.rows.count } }

    /// How many rows were taken from the memo, not the store (for tests).
    package var hits: Int { state.withLock { $0.hits } }
}

extension ArchiveStore {
    /// The rows of `keys`, in their order (a thread without a row left
    /// out): those `memo` keeps, and the others read, in one statement,
    /// and kept.
    static func threadRows(
        _ db: Database, _ keys: [BuildChanges.ThreadKey], memo: ThreadRowMemo?
    ) throws -> [StoredThread] {
        var found = memo?.rows(keys) ?? [:]
        let missing = keys.filter { found[$0] == nil }
        if !missing.isEmpty {
            // One statement prepared once, the keys bound as one JSON array
            // (`jsonArgument`, written by hand): a `VALUES` list of the keys
            // cost SQLite 10 M instructions for a hot window's 144 to walk,
            // `JSONEncoder` 4 M, and a statement a thread 7 M in GRDB's
            // set-up of 288 cursors.
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        WITH k(board, gid) AS MATERIALIZED (
                          SELECT json_extract(value, '$[0]'), CAST(json_extract(value, '$[1]') AS INTEGER)
                          FROM json_each(?))
                        SELECT \(StoredThread.columns(posts: "s.posts"))
                        FROM k CROSS JOIN thread t ON t.board = k.board AND t.gid = k.gid
                        CROSS JOIN thread_summary s ON s.board = t.board AND s.gid = t.gid
                        \(StoredThread.firstAndLastPosts)
                        """),
                arguments: [jsonArgument(missing.map { [$0.board, String($0.gid)] })])
            var read: [BuildChanges.ThreadKey: StoredThread] = [:]
            while let row = try rows.next() {
                let thread = StoredThread(row: row)
                read[BuildChanges.ThreadKey(board: thread.board, gid: thread.gid)] = thread
            }
            memo?.keep(read)
            found.merge(read) { kept, _ in kept }
        }
        return keys.compactMap { found[$0] }
    }
}

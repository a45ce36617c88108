import Foundation

/// The one error type a user sees: each case reads as one sentence that says
/// what happened and what to do about it.
package enum ArchiveError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The forum answered that the board does not exist.
    case unknownBoard(String, message: String)
    /// The host could not be reached at all (DNS, refused, timed out).
    case unreachable(url: String, reason: String)
    /// A connection was made but the transfer broke (timeout, reset, cut short).
    case transfer(url: String, reason: String)
    /// The site's robots.txt asks crawlers to leave this page alone.
    case robotsDisallowed(url: String)
    /// The fetcher would not ask for this: another host, or a redirect it
    /// does not follow (to another host, to another thread, too many hops).
    case refused(url: String, reason: String)
    /// The board needs a logged-in reader.
    case needsLogin(board: String, cookies: CookieState)
    /// The server answered with an HTTP error status.
    case httpStatus(url: String, status: Int)
    /// The page is not a page of the expected forum and kind.
    case notAForumPage(url: String, expected: String)
    /// The forum showed an error page of its own.
    case forumError(url: String, message: String)
    /// A page holds a value that cannot be right (a time outside 1990–2100).
    case implausible(url: String, what: String)
    /// The store file could not be opened or is not a bbsarchive store.
    case storeUnavailable(path: String, reason: String)
    /// The store cannot be written where it is (its folder or files are
    /// read-only to this process: a read-only mount, another user's folder,
    /// a disc), and the run needs to write it or beside it.
    case storeReadOnly(path: String, need: StoreWriteNeed)
    /// The store was written by a newer bbsarchive, whose schema this one does not know.
    case storeFromNewerRelease(path: String, storeVersion: String, ownVersion: String)
    /// `build` was pointed at a store that does not exist yet.
    case noStore(path: String)
    /// A file the user named could not be read.
    case unreadableFile(path: String, reason: String)
    /// The templates folder is missing or a template does not parse.
    case templates(path: String, reason: String)
    /// The output folder could not be written.
    case outputUnwritable(path: String, reason: String)
    /// The temporary folder (`TMPDIR`) could not take a build's scratch
    /// files (the search index's spilled postings).
    case scratchUnwritable(path: String, reason: String)
    /// The run was stopping (a login wall, a store failure), so the page was not fetched.
    case cancelled(url: String)
    /// An option has a value that cannot work.
    case invalidOption(String)
    /// A shared library the run needs could not be loaded (the sentence
    /// says which, and how to install it).
    case missingLibrary(String)
    /// Some pages failed; the rest of the run went on.
    case incomplete(failures: [String])
    /// `reparse`: stored pages that no longer parse (`URL: reason`); their
    /// threads were kept as stored. Another run reads the same captures,
    /// so it would not help.
    case unreadableCaptures(failures: [String])
    /// Another run holds the store or the output folder (`holder` says
    /// which process, which command and since when).
    case locked(path: String, holder: String)
    /// A page was stored, but some of its posts could only be read in part
    /// (they are kept with what could be read, their raw text and a warning).
    case parseWarning(url: String, message: String)

    /// Why a run needs to write a store it cannot write.
    package enum StoreWriteNeed: Equatable, Sendable {
        /// The command writes the store (`fetch`, `archive`, `reparse`);
        /// `reason` says what cannot be written.
        case command(reason: String)
        /// The store's schema is older than this bbsarchive's, which
        /// upgrades it before anything else.
        case upgrade
        /// Its `-wal` file holds writes the store file lacks, which SQLite
        /// reads only through a `-shm` file that it makes beside them.
        case walIndex
    }

    /// What the reader gave to get past a login wall.
    package enum CookieState: Equatable, Sendable {
        case none
        case expired(String)
        case rejected(String)
    }

    /// What the store says when SQLite finds the disk full (`SQLITE_FULL`).
    static let storeDiskFull = "the disk is full"

    /// Whether `reason` is the system's word for a full disk or quota.
    static func isFullDisk(_ reason: String) -> Bool {
        [ENOSPC, EDQUOT].contains { reason.contains(String(cString: strerror($0))) }
    }

    /// One line, with anything the forum supplied stripped of controls
    /// (it reaches the terminal).
    package var description: String { TerminalText.clean(message) }

    private var message: String {
        switch self {
        case .unknownBoard(let board, let message):
            return
                "board \"\(board)\" does not exist on this forum (it says: \(message)); check the board's id (case matters) and --forum-url"
        case .unreachable(let url, let reason):
            return "cannot reach \(url): \(reason); check --forum-url and your network, then run the same command again"
        case .transfer(let url, let reason):
            return "fetching \(url) failed: \(reason); run the same command again to retry"
        case .robotsDisallowed(let url):
            return
                "robots.txt of the site disallows \(url), so bbsarchive leaves it alone; pass --ignore-robots only if the site's owners allow you"
        case .refused(let url, let reason):
            return "\(url) was not fetched: \(reason)"
        case .needsLogin(let board, let cookies):
            switch cookies {
            case .none:
                return
                    "board \"\(board)\" needs a login: log in with a browser, export its cookies as cookies.txt and pass --cookies FILE (bbsarchive never logs in by itself)"
            case .expired(let origin):
                return
                    "board \"\(board)\" needs a login and the cookies in \(origin) have expired: log in again in the browser and export them again"
            case .rejected(let origin):
                return
                    "board \"\(board)\" did not accept the cookies in \(origin) (logged out or expired?): log in again in the browser and export them again"
            }
        case .httpStatus(let url, let status):
            return "the forum answered HTTP \(status) for \(url); check --forum-url, or try again later"
        case .notAForumPage(let url, let expected):
            return "\(url) is not \(expected); check --forum-url and --source"
        case .forumError(let url, let message):
            return "the forum refused \(url): \(message)"
        case .implausible(let url, let what):
            return "\(url) shows \(what), which cannot be right; the page is left out and tried again on the next run"
        case .storeUnavailable(let path, let reason):
            if reason == Self.storeDiskFull {
                return
                    "the store \(path) cannot take more: \(reason); free some space on that disk, then run the same command again: what was stored is kept, and it carries on from there"
            }
            return "cannot open the store \(path): \(reason); pass --store with a writable SQLite file path"
        case .storeReadOnly(let path, let need):
            let copy = "copy it with its -wal and -shm files to a folder you can write and pass --store with the copy"
            switch need {
            case .command(let reason):
                return
                    "cannot write the store \(path): \(reason); \(copy) (status, export and build read it where it is)"
            case .upgrade:
                return
                    "the store \(path) needs an upgrade to this bbsarchive's schema, which writes it, and it cannot be written where it is; \(copy), or read it with the bbsarchive that wrote it (nothing in it was changed)"
            case .walIndex:
                return
                    "cannot read the store \(path) where it is: its -wal file holds writes that are not in the store file yet, which SQLite reads only through a -shm file beside them, and that folder cannot take one; copy it with its -wal file to a folder you can write and pass --store with the copy"
            }
        case .storeFromNewerRelease(let path, let theirs, let ours):
            return
                "the store \(path) was written by a newer bbsarchive (\(theirs)) than this one (\(ours)): use that bbsarchive or a later one with this store"
        case .noStore(let path):
            return
                "there is no store at \(path): run `bbsarchive fetch BOARD --store \(path)` first, or pass --store with the right file"
        case .unreadableFile(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .templates(let path, let reason):
            return
                "templates in \(path) cannot be used: \(reason); pass --templates DIR with the project's templates/ folder or a copy of it"
        case .outputUnwritable(let path, let reason):
            // A full disk is not a folder to change: what was written stays,
            // and the same command carries on from it once there is room.
            if Self.isFullDisk(reason) {
                return
                    "cannot write the site to \(path): \(reason); free some space on that disk (or pass --out with a folder on another), then run the same command again: what was written is kept"
            }
            return "cannot write the site to \(path): \(reason); pass --out with a writable folder"
        case .scratchUnwritable(let path, let reason):
            return
                "cannot write the search index's temporary files in \(path): \(reason); set TMPDIR to a folder on a disk with room, then run the same command again"
        case .cancelled(let url):
            return "\(url) was not fetched: the run was stopping; run the same command again to fetch it"
        case .invalidOption(let message), .missingLibrary(let message):
            return message
        case .locked(let path, let holder):
            return "\(path) is in use by \(holder); wait for that run to end, or pass --wait to wait for it"
        case .parseWarning(let url, let message):
            return
                "\(url) was stored with posts read only in part (\(message)); their raw text is kept, and `bbsarchive reparse` reads them again with a newer parser"
        case .incomplete(let failures):
            // Pages stored with posts read only in part are listed as `URL: partial: …`.
            let partial = failures.filter { $0.contains(": partial: ") }
            let failed = failures.filter { !$0.contains(": partial: ") }
            guard let first = failed.first else {
                return
                    "\(partial.count) page(s) were stored with posts read only in part (first: \(partial.first ?? "")); their raw text is kept, and `bbsarchive reparse` reads them again with a newer parser"
            }
            let also = partial.isEmpty ? "" : ", and \(partial.count) page(s) were stored with posts read only in part"
            return
                "\(failed.count) page(s) failed and were not archived (first: \(first))\(also); run the same command again to retry them"
        case .unreadableCaptures(let failures):
            return
                "\(failures.count) stored page(s) could not be read again (first: \(failures.first ?? "")); what the store holds of them is kept as it was"
        }
    }
}

import Foundation
import Glibc

/// A store kept where it cannot be written: a read-only mount, a folder
/// of another user, a disc. `status`, `export` and `build` read it there.
extension ArchiveStore {
    /// Why this process cannot write the store at `path` where it is, or
    /// `nil` when it can: SQLite writes the store file and its `-wal` and
    /// `-shm` files, and makes them in the store's folder, as a run makes
    /// its lock file. Only a refusal counts (a read-only file system,
    /// permissions, the immutable attribute, which binds root too); a
    /// folder or file that is not there is left for the open to tell.
    /// A link is followed, as SQLite follows it to put the `-wal` and
    /// `-shm` beside the file it names.
    package static func unwritable(_ path: String) -> String? {
        func refused(_ file: String) -> String? {
            guard faccessat(AT_FDCWD, file, W_OK, AT_EACCESS) != 0 else { return nil }
            let code = errno
            guard code == EACCES || code == EPERM || code == EROFS else { return nil }
            return String(cString: strerror(code))
        }
        let file = RunLock.resolved(path)
        let folder = file.lastIndex(of: "/").map { $0 == file.startIndex ? "/" : String(file[..<$0]) } ?? "."
        if let why = refused(folder) { return "its folder \(folder) cannot be written (\(why))" }
        for file in [file, file + "-wal", file + "-shm"] {
            if let why = refused(file) { return "\(file) cannot be written (\(why))" }
        }
        return nil
    }

    /// What SQLite opens to read the store at `path` read-only.
    ///
    /// SQLite reads a store in WAL mode through its `-shm` file (since
    /// 3.22, from memory of its own when it cannot write that file) and,
    /// read-only, cannot make one: without it, it opens nothing. The store
    /// keeps its `-wal` and `-shm` beside it between runs (`keepWALFile`),
    /// so with both there it is read as any run reads it, the WAL's frames
    /// included: a run stopped before its closing checkpoint leaves writes
    /// there that the store file lacks.
    ///
    /// Without a WAL (or an empty one), or with one whose every frame the
    /// store file already holds (`WALFile.addsNothing`), the store file
    /// alone is the whole store: it is opened `immutable`, which needs no
    /// `-shm` and takes no lock, and ignores any WAL. (It also assumes no
    /// one writes the file meanwhile; a bbsarchive that opens it makes a
    /// WAL first, which a later read then finds.) A WAL with writes the file
    /// lacks and no `-shm` cannot be read here, and the file alone would
    /// show the store as it was before them: refused.
    static func readOnlyLocation(_ path: String) throws(ArchiveError) -> String {
        // Beside the file a link names, where SQLite looks for them.
        let file = RunLock.resolved(path)
        func size(_ file: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: file)[.size]) as? Int
        }
        // A rollback journal a stopped write left (a store in another
        // journal mode): SQLite says what it makes of it.
        if (size(file + "-journal") ?? 0) > 0 { return path }
        if (size(file + "-wal") ?? 0) > 0 {
            if FileManager.default.fileExists(atPath: file + "-shm") { return path }
            guard WALFile.addsNothing(store: file) else { throw .storeReadOnly(path: path, need: .walIndex) }
        }
        return immutableURI(file)
    }

    /// `path` as an SQLite `file:` URI with `immutable=1`, every byte but
    /// letters, digits and `/._~-` escaped. (The system's SQLite reads URIs
    /// as file names: Debian builds it with `SQLITE_USE_URI`. One that did
    /// not would find no file of that name, and open nothing.)
    static func immutableURI(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let hex = Array("0123456789ABCDEF".utf8)
        var uri = Array("file:".utf8)
        for byte in absolute.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "-"):
                uri.append(byte)
            default:
                uri += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: uri, as: UTF8.self) + "?immutable=1"
    }
}

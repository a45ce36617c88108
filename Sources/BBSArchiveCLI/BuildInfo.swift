import BBSArchive
import CBuildInfo

/// What `bbsarchive --version` prints: the version and the commit built from.
enum BuildInfo {
    static let commit = String(cString: bbsarchive_build_commit())
    static let versionLine = "bbsarchive \(BBSArchiveVersion.version) (commit \(commit))"
}

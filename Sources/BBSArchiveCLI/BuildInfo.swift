import BBSArchive

/// What `bbsarchive --version` prints: the version and the commit built from.
enum BuildInfo {
    static let versionLine = "bbsarchive \(BBSArchiveVersion.build)"
}

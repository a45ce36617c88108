import Foundation

/// Stores made before threads kept their original address (migration
/// `v4-thread-original-url`) get it filled in from each board's source,
/// once, before a build: the build half itself never makes a `ForumSource`.
enum OriginalURLs {
    /// A store that cannot be written keeps them missing: their pages lack
    /// the link to the forum until a build where it can be written records
    /// them, which logs them as changed, so that build renders them again.
    static func fillIn(_ store: ArchiveStore) throws(ArchiveError) {
        guard !store.readOnly else { return }
        let missing = try store.threadsWithoutOriginalURL()
        guard !missing.isEmpty else { return }
        for board in try store.boards() {
            guard let name = board.source, let source = try? ForumSources.make(name, baseURL: board.baseURL) else {
                continue
            }
            guard let gids = missing[board.name], !gids.isEmpty else { continue }
            try store.setOriginalURLs(
                board: board.name, gids.map { ($0, source.originalThreadURL(board: board.name, gid: $0)) })
        }
    }
}

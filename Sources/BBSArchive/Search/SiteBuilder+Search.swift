import Foundation
import GRDB

/// What changed for search since the last build of the folder: the threads
/// whose posts or title changed, or `nil` when everything must be indexed
/// (a first build, `--full`, or a change of templates or options).
struct SearchChanges: Sendable {
    var threads: [ThreadKey]?

    struct ThreadKey: Sendable, Hashable {
        var board: String
        var gid: Int
    }

    init(threads: [ThreadKey]?) { self.threads = threads }

    /// The threads changed at or after `since` (the previous build's start).
    init(since: Date?, store: ArchiveStore) throws(ArchiveError) {
        guard let since else {
            threads = nil
            return
        }
        threads = try store.read { db in
            try Row.fetchAll(
                db, sql: "SELECT board, gid FROM thread WHERE changedAt >= ? ORDER BY board, gid",
                arguments: [ArchiveStore.seconds(since)]
            ).map { ThreadKey(board: $0["board"], gid: $0["gid"]) }
        }
    }
}

/// The search page and its index.
extension SiteBuilder {
    func buildSearch(_ changes: SearchChanges, run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.search
        var context = try common(path: path, title: "搜索", crumbs: [("搜索", path)], run: run)
        context["searchScript"] = SitePaths.relative(from: path, to: SitePaths.searchScript)
        context["manifest"] = SitePaths.relative(from: path, to: SearchIndexWriter.manifestPath)
        context["boards"] = run.navigation.boards.map { ["name": $0.name, "title": $0.title ?? $0.name] }
        try page(path, template: "search", context, run: run)

        // New posts are appended to the index; anything else indexes the
        // store again. Either way only files whose bytes change are written.
        let writer = SearchIndexWriter(store: store, postsPerPage: max(1, options.postsPerPage))
        let output = SearchIndexWriter.Output(
            read: { publisher.read($0) },
            write: { data, path throws(ArchiveError) in
                let written = try publisher.write(data, to: path)
                if written { run.report.written += 1 } else { run.report.unchanged += 1 }
                return written
            })
        _ = try writer.update(changes, output)
    }
}

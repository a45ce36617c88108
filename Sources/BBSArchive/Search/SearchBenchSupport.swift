import Foundation

/// What `bbsarchive-bench` (make bench) needs of search: the index written
/// on its own, to time it apart from the rest of a build, and every post's
/// searchable text, for a ground truth computed without the index.
package enum SearchBenchSupport {
    /// Writes the whole search index of the store at `storePath` into
    /// `outPath` (as `search/…`, where `build` puts it). Returns its counts.
    package static func writeIndex(
        storePath: String, outPath: String, postsPerPage: Int = 20
    ) throws(ArchiveError) -> [String: Int] {
        let store = try ArchiveStore(path: storePath)
        // Written as `build` writes: through the site's publisher (a
        // temporary file renamed over, one flush at the end).
        let publisher = try DiskPublisher(root: URL(fileURLWithPath: outPath))
        // As `build` does: the forum of the stored boards' source.
        let forum = ForumSources.profile(sources: try store.boards().map(\.source))
        let writer = SearchIndexWriter(store: store, postsPerPage: max(1, postsPerPage), forum: forum)
        let output = SearchIndexWriter.Output(
            read: { _ in nil },
            write: { data, path throws(ArchiveError) in try publisher.write(data, to: path) })
        let through = try store.lastBuildChange()
        let report = try writer.writeAll(output)
        try publisher.flush()
        return [
            "documents": report.documents, "shards": report.shards, "files": report.filesWritten,
            "bytes": report.bytes, "through": Int(through),
        ]
    }

    /// Appends to the index in `outPath` (written by `writeIndex`) the posts
    /// of the threads changed after change `after` (its `through`), as
    /// `build` does after a fetch. Returns its counts and the seconds it took (with
    /// `flushSeconds`, the share spent making the files durable).
    package static func appendIndex(
        storePath: String, outPath: String, after: Int64, postsPerPage: Int = 20
    ) throws(ArchiveError) -> [String: Any] {
        let store = try ArchiveStore(path: storePath)
        let publisher = try DiskPublisher(root: URL(fileURLWithPath: outPath))
        let forum = ForumSources.profile(sources: try store.boards().map(\.source))
        let writer = SearchIndexWriter(store: store, postsPerPage: max(1, postsPerPage), forum: forum)
        let output = SearchIndexWriter.Output(publisher)
        let start = Date()
        let changes = try store.buildChanges(after: after)
        let report = try writer.update(SearchChanges(changes), output)
        let updated = Date()
        try publisher.flush()
        return [
            "seconds": Date().timeIntervalSince(start), "flushSeconds": Date().timeIntervalSince(updated),
            "full": report.full, "documents": report.documents,
            "appended": report.appended, "files": report.filesWritten, "bytes": report.bytes,
            "through": Int(changes.through),
        ]
    }

    /// Calls `line` with one JSON object per post: `href` (the floor on its
    /// thread page), `board`, `author` (both lower case), `day` (YYYYMMDD,
    /// the forum's time) and `text`, the searchable text, normalized.
    package static func documents(
        storePath: String, postsPerPage: Int = 20, _ line: (Data) -> Void
    ) throws(ArchiveError) {
        let store = try ArchiveStore(path: storePath)
        let perPage = max(1, postsPerPage)
        let forum = ForumSources.profile(sources: try store.boards().map(\.source))
        for board in try store.boards() {
            for thread in try store.threads(board: board.name) {
                for (index, post) in try store.posts(board: board.name, gid: thread.gid).enumerated() {
                    let c = forum.time.components(of: post.postedAt)
                    let object: [String: Any] = [
                        "href": SitePaths.thread(board.name, gid: thread.gid, page: index / perPage + 1)
                            + "#a\(post.floor)",
                        "board": SearchText.normalize(board.name), "author": SearchText.normalize(post.author),
                        "day": c.year * 10000 + c.month * 100 + c.day,
                        "text": SearchText.normalize(
                            SearchText.searchable(
                                post: post, threadTitle: thread.title, conventions: forum.conventions)),
                    ]
                    guard let data = try? JSONSerialization.data(withJSONObject: object) else { continue }
                    line(data)
                }
            }
        }
    }
}

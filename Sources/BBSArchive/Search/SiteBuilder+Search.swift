import Foundation
import GRDB

/// What changed for search since the last build of the folder: the threads
/// whose posts or title changed, or `nil` when everything must be indexed
/// (a first build, `--full`, or a change of templates or options).
struct SearchChanges: Sendable {
    /// The threads changed since the last build, or nil for a full build.
    var threads: [ThreadKey]?

    typealias ThreadKey = BuildChanges.ThreadKey

    init(threads: [ThreadKey]?) { self.threads = threads }

    /// The threads of the store's change log since the last build; nil
    /// (a full build) indexes every post.
    init(_ changes: BuildChanges?) { threads = changes.map { $0.threads.sorted() } }
}

/// The search page and its index.
extension SiteBuilder {
    func buildSearch(_ changes: SearchChanges, run: BuildRun) throws(ArchiveError) {
        let path = SitePaths.search
        let view = SearchPageView(
            chrome: try common(
                path: path, title: templates.strings.search, crumbs: [(templates.strings.search, path)], run: run),
            searchScript: SitePaths.relative(from: path, to: SitePaths.searchScript),
            manifest: SitePaths.relative(from: path, to: SearchIndexWriter.manifestPath))
        try page(path, template: "search", view, run: run)
        guard options.searchIndex else { return }

        // New posts are appended to the index; anything else indexes the
        // store again. Either way only files whose bytes change are written.
        let writer = SearchIndexWriter(store: store, postsPerPage: max(1, options.postsPerPage), forum: options.forum)
        // Called from several threads at once (`FileBatch`).
        let lock = NSLock()
        var output = SearchIndexWriter.Output(publisher)
        output.write = { data, path throws(ArchiveError) in
            let written = try publisher.write(data, to: path)
            lock.withLock {
                if written { run.report.written += 1 } else { run.report.unchanged += 1 }
            }
            return written
        }
        _ = try writer.update(changes, output)
    }
}

/// The search page: the chrome, the client and the index's manifest.
struct SearchPageView: TypedTemplateView {
    var chrome: PageChrome
    var searchScript: String
    var manifest: String

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .searchScript: .text(searchScript)
        case .manifest: .text(manifest)
        default: chrome.templateValue(named: name)
        }
    }
}

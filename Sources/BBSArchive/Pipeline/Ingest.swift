import Foundation

/// Turns parsed forum pages into stored rows: the one path that crawling
/// and `reparse` both take, so a page is stored the same way whether it
/// came off the wire now or out of a capture.
struct Ingest: Sendable {
    let store: ArchiveStore
    let source: any ForumSource

    /// Stores a board list page under the board id `board`.
    func board(_ page: BoardPage, board: String) throws(ArchiveError) {
        var page = page
        page.board = board
        try store.saveBoardPage(page, source: source)
    }

    /// Stores pages of one thread at once under `board` and `gid`, with
    /// the thread's original address; with `summary`, marks it archived as
    /// the board listed it.
    func thread(_ pages: [ThreadPage], board: String, gid: Int, summary: ThreadSummary?) throws(ArchiveError) {
        let pages = pages.map { page in
            var page = page
            page.board = board
            page.gid = gid
            for index in page.posts.indices {
                page.posts[index].deletedByForum = source.isDeletionNotice(page.posts[index].body)
            }
            return page
        }
        try store.saveThread(
            board: board, pages: pages, summary: summary,
            originalURL: source.originalThreadURL(board: board, gid: gid))
    }
}

import Foundation

/// Turns parsed forum pages into stored rows: the one path that crawling
/// and `reparse` both take, so a page is stored the same way whether it
/// came off the wire now or out of a capture.
struct Ingest: Sendable {
    let store: ArchiveStore
    let source: any ForumSource

    /// Stores a board list page under the board id `board`; with `walked`,
    /// records it as that page of the board's walk in the same transaction.
    /// Returns what the store held of the listed threads' archived posts.
    @discardableResult
    func board(_ page: BoardPage, board: String, walked: (page: Int, url: String)? = nil) throws(ArchiveError)
        -> ArchivedListings
    {
        var page = page
        page.board = board
        return try store.saveBoardPage(page, source: source, walked: walked)
    }

    /// Stores pages of one thread at once under `board` and `gid`, with
    /// the thread's original address; with `summary`, marks it archived as
    /// the board listed it. Returns what the store kept over what the pages
    /// say, a line each (`ArchiveStore.saveThread`).
    @discardableResult
    func thread(_ pages: [ThreadPage], board: String, gid: Int, summary: ThreadSummary?) throws(ArchiveError)
        -> [String]
    {
        let pages = pages.map { page in
            var page = page
            page.board = board
            page.gid = gid
            for index in page.posts.indices {
                page.posts[index].deletedByForum = source.isDeletionNotice(page.posts[index].body)
            }
            return page
        }
        let notes = try store.saveThread(
            board: board, pages: pages, summary: summary,
            originalURL: source.originalThreadURL(board: board, gid: gid))
        try noteEmoticons(in: pages.flatMap(\.posts).flatMap { [$0.body, $0.signature ?? ""] })
        return notes
    }

    /// Records the emoticons `texts` use, each with the forum's address of
    /// its image, for the media step to fetch once.
    func noteEmoticons(in texts: [String]) throws(ArchiveError) {
        var codes: Set<String> = []
        for text in texts {
            codes.formUnion(InlineText.emoticonCodes(in: text, conventions: source.profile.conventions))
        }
        let known = codes.sorted().compactMap { code in source.emoticonURL(code).map { (code: code, url: $0) } }
        if !known.isEmpty { try store.noteEmoticons(known) }
    }
}

import Foundation

/// The JSON that `bbsarchive parse` prints: a stable, documented shape with
/// ISO 8601 times in Beijing time (`+08:00`).
enum PageJSON {
    static func encode(_ page: ForumPage) throws(ArchiveError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            switch page {
            case .board(let board): data = try encoder.encode(Board(board))
            case .thread(let thread): data = try encoder.encode(Thread(thread))
            }
        } catch {
            throw .invalidOption("the page model could not be written as JSON: \(error)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    struct Board: Encodable {
        let kind = "board"
        let board: String
        let title: String?
        let page: PageInfo
        let threads: [Row]

        init(_ page: BoardPage) {
            board = page.board
            title = page.title
            self.page = page.page
            threads = page.threads.map(Row.init)
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(kind, forKey: .kind)
            try c.encode(board, forKey: .board)
            try c.encode(title, forKey: .title)
            try c.encode(page, forKey: .page)
            try c.encode(threads, forKey: .threads)
        }
    }

    struct Row: Encodable {
        let summary: ThreadSummary

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(summary.gid, forKey: .gid)
            try c.encode(summary.title, forKey: .title)
            try c.encode(summary.replies, forKey: .replies)
            try c.encode(summary.sticky, forKey: .sticky)
            try c.encode(summary.marked, forKey: .marked)
            try c.encode(summary.author, forKey: .author)
            try c.encode(BeijingTime.iso8601(summary.postedAt), forKey: .postedAt)
            try c.encode(summary.lastReplier, forKey: .lastReplier)
            try c.encode(BeijingTime.iso8601(summary.lastReplyAt), forKey: .lastReplyAt)
        }
    }

    struct Thread: Encodable {
        let page: ThreadPage

        init(_ page: ThreadPage) { self.page = page }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("thread", forKey: .kind)
            try c.encode(page.board, forKey: .board)
            try c.encode(page.gid, forKey: .gid)
            try c.encode(page.title, forKey: .title)
            try c.encode(page.page, forKey: .page)
            try c.encode(page.posts.map(PostJSON.init), forKey: .posts)
        }
    }

    struct PostJSON: Encodable {
        let post: Post

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(post.floor, forKey: .floor)
            try c.encode(post.author, forKey: .author)
            try c.encode(BeijingTime.iso8601(post.postedAt), forKey: .postedAt)
            try c.encode(post.body, forKey: .body)
            try c.encode(post.attachments, forKey: .attachments)
            try c.encode(post.ip, forKey: .ip)
            try c.encode(post.editedBy, forKey: .editedBy)
        }
    }

    enum Key: String, CodingKey {
        case kind, board, gid, title, page, threads, replies, sticky, marked, author, postedAt, lastReplier,
            lastReplyAt, posts, floor, body, attachments, ip, editedBy
    }
}

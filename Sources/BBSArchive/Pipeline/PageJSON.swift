import Foundation

/// The JSON that `bbsarchive parse` prints: a stable, documented shape with
/// ISO 8601 times in the forum's zone (SMTH's: `+08:00`).
enum PageJSON {
    /// `forum`: the zone of the times, the conventions that find quotes.
    static func encode(_ page: ForumPage, forum: ForumProfile) throws(ArchiveError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        give(forum, to: encoder)
        let data: Data
        do {
            switch page {
            case .board(let board): data = try encoder.encode(Board(board))
            case .thread(let thread): data = try encoder.encode(Thread(thread))
            case .sections(let sections): data = try encoder.encode(Sections(page: sections))
            case .hot(let hot): data = try encoder.encode(Hot(page: hot))
            case .user(let profile): data = try encoder.encode(User(profile: profile))
            }
        } catch {
            throw .invalidOption("the page model could not be written as JSON: \(error)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// (A key of a valid name: never `nil`.)
    static let forumKey = CodingUserInfoKey(rawValue: "forum")

    /// Hands the encoder's `PageJSON` values the forum they are of.
    static func give(_ forum: ForumProfile, to encoder: JSONEncoder) {
        if let forumKey { encoder.userInfo[forumKey] = forum }
    }

    /// The forum the encoder was given.
    static func forum(_ encoder: any Encoder) -> ForumProfile {
        forumKey.flatMap { encoder.userInfo[$0] } as? ForumProfile ?? .plain
    }

    struct Board: Encodable {
        let kind = "board"
        let board: String
        let title: String?
        let page: PageInfo
        let threads: [Row]
        let unreadRows: [String]
        let partlyReadRows: [String]

        init(_ page: BoardPage) {
            board = page.board
            title = page.title
            self.page = page.page
            threads = page.threads.map(Row.init)
            unreadRows = page.unreadRows.map(\.description)
            partlyReadRows = page.partlyReadRows.map(\.description)
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(kind, forKey: .kind)
            try c.encode(board, forKey: .board)
            try c.encode(title, forKey: .title)
            try c.encode(page, forKey: .page)
            try c.encode(threads, forKey: .threads)
            if !unreadRows.isEmpty { try c.encode(unreadRows, forKey: .unreadRows) }
            if !partlyReadRows.isEmpty { try c.encode(partlyReadRows, forKey: .partlyReadRows) }
        }
    }

    struct Row: Encodable {
        let summary: ThreadSummary

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            let time = PageJSON.forum(encoder).time
            try c.encode(summary.gid, forKey: .gid)
            try c.encode(summary.title, forKey: .title)
            try c.encode(summary.replies, forKey: .replies)
            // Only where the row's count is not exact: the least it can be.
            if !summary.repliesExact { try c.encode(false, forKey: .repliesExact) }
            try c.encode(summary.sticky, forKey: .sticky)
            try c.encode(summary.marked, forKey: .marked)
            try c.encode(summary.author, forKey: .author)
            try c.encode(time.iso8601(summary.postedAt), forKey: .postedAt)
            try c.encode(summary.lastReplier, forKey: .lastReplier)
            try c.encode(time.iso8601(summary.lastReplyAt), forKey: .lastReplyAt)
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
            // Said only when something could not be read.
            let partial = page.partialPosts.count
            if partial > 0 { try c.encode(partial, forKey: .partialPosts) }
            if let containers = page.containers, containers != page.posts.count {
                try c.encode(containers, forKey: .containers)
            }
        }
    }

    struct PostJSON: Encodable {
        let post: Post

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            let forum = PageJSON.forum(encoder)
            try c.encode(post.floor, forKey: .floor)
            try c.encode(post.author, forKey: .author)
            try c.encodeIfPresent(post.nick, forKey: .nick)
            try c.encodeIfPresent(post.postID, forKey: .id)
            try c.encodeIfPresent(post.title, forKey: .title)
            try c.encode(forum.time.iso8601(post.postedAt), forKey: .postedAt)
            try c.encode(post.body, forKey: .body)
            let quotes = PostNormalizer.normalize(post.body, conventions: forum.conventions).blocks.compactMap {
                block -> QuoteJSON? in
                guard case .quote(_, let author, let lines) = block else { return nil }
                return QuoteJSON(
                    author: author, lines: lines.map { String(repeating: ": ", count: $0.depth - 1) + $0.text })
            }
            if let first = quotes.first { try c.encode(first, forKey: .quote) }
            try c.encodeIfPresent(post.signature, forKey: .signature)
            try c.encode(post.attachments, forKey: .attachments)
            try c.encode(post.ip, forKey: .ip)
            try c.encode(post.editedBy, forKey: .editedBy)
            try c.encodeIfPresent(post.editedAt.map(forum.time.iso8601), forKey: .editedAt)
            try c.encodeIfPresent(post.warning, forKey: .warning)
            try c.encodeIfPresent(post.rawText, forKey: .rawText)
            if !post.likes.isEmpty {
                try c.encode(
                    post.likes.map {
                        LikeJSON(
                            score: $0.score, user: $0.user, message: $0.message, at: $0.at.map(forum.time.iso8601))
                    }, forKey: .likes)
            }
        }
    }

    struct QuoteJSON: Encodable {
        let author: String?
        let lines: [String]
    }

    struct LikeJSON: Encodable {
        let score: Int
        let user: String
        let message: String
        let at: String?
    }

    struct Sections: Encodable {
        let page: SectionPage

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("sections", forKey: .kind)
            try c.encode(page.sections, forKey: .sections)
            try c.encode(page.boardTitles, forKey: .boards)
        }
    }

    struct User: Encodable {
        let profile: UserProfile

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("user", forKey: .kind)
            try c.encode(profile.id, forKey: .id)
            try c.encodeIfPresent(profile.nick, forKey: .nick)
            try c.encodeIfPresent(profile.level, forKey: .level)
            try c.encodeIfPresent(profile.posts, forKey: .posts)
            try c.encodeIfPresent(profile.gender, forKey: .gender)
            try c.encodeIfPresent(profile.faceURL, forKey: .face)
            try c.encodeIfPresent(profile.lastLoginAt.map(PageJSON.forum(encoder).time.iso8601), forKey: .lastLoginAt)
        }
    }

    struct Hot: Encodable {
        let page: HotTopicsPage

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode("hot", forKey: .kind)
            try c.encode(page.topics, forKey: .topics)
        }
    }

    enum Key: String, CodingKey {
        case kind, board, gid, title, page, threads, replies, sticky, marked, author, postedAt, lastReplier,
            lastReplyAt, posts, floor, body, attachments, ip, editedBy, editedAt, nick, id, quote, signature, likes,
            sections, boards, topics, level, gender, face, lastLoginAt, warning, rawText, containers, partialPosts,
            unreadRows, partlyReadRows, repliesExact
    }
}

import Foundation

/// Where a page sits in a paginated listing, as the forum's pager states it.
public struct PageInfo: Sendable, Equatable, Codable {
    public var current: Int
    public var total: Int

    public init(current: Int, total: Int) {
        self.current = current
        self.total = total
    }
}

/// One row of a board's thread list.
public struct ThreadSummary: Sendable, Equatable, Codable {
    /// The thread id: the id of its first post.
    public var gid: Int
    public var title: String
    /// Posts minus one, as the forum counts them.
    public var replies: Int
    public var sticky: Bool
    public var marked: Bool
    /// The first post's author, or `nil` when the forum says it was deleted.
    public var author: String?
    public var postedAt: Date
    public var lastReplier: String?
    public var lastReplyAt: Date
    /// Whether the list marks the thread as carrying attachments (nForum only).
    public var hasAttachment: Bool

    public init(
        gid: Int, title: String, replies: Int, sticky: Bool, marked: Bool = false,
        author: String?, postedAt: Date, lastReplier: String?, lastReplyAt: Date, hasAttachment: Bool = false
    ) {
        self.gid = gid
        self.title = title
        self.replies = replies
        self.sticky = sticky
        self.marked = marked
        self.author = author
        self.postedAt = postedAt
        self.lastReplier = lastReplier
        self.lastReplyAt = lastReplyAt
        self.hasAttachment = hasAttachment
    }
}

/// One page of a board's thread list (thread mode).
public struct BoardPage: Sendable, Equatable {
    /// The board's ASCII id, e.g. `Geography`.
    public var board: String
    /// The board's Chinese title, e.g. `地理`, when the page shows it.
    public var title: String?
    public var page: PageInfo
    public var threads: [ThreadSummary]
    /// The board's thread count, where the page states it (nForum: 主题数).
    public var threadCount: Int? = nil
}

/// A file attached to a post.
public struct Attachment: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case image
        case file
    }

    public var name: String
    /// Absolute URL of the full-size file (never a thumbnail).
    public var url: String
    public var kind: Kind
    /// The size as the forum prints it, e.g. `12.3KB`.
    public var size: String?

    public init(name: String, url: String, kind: Kind, size: String?) {
        self.name = name
        self.url = url
        self.kind = kind
        self.size = size
    }
}

/// A reader's rating of a post (nForum's likes block).
public struct Like: Sendable, Equatable, Codable {
    /// -5…+5; 0 when the reader left a message without a score.
    public var score: Int
    public var user: String
    public var message: String
    /// To the minute, as the forum prints it.
    public var at: Date?

    public init(score: Int, user: String, message: String, at: Date?) {
        self.score = score
        self.user = user
        self.message = message
        self.at = at
    }
}

/// One post as a thread page shows it.
public struct Post: Sendable, Equatable {
    /// 0 for the first post (楼主), N for reply N.
    public var floor: Int
    public var author: String
    public var postedAt: Date
    /// The post's own text with lines joined by `\n`: its body and quote,
    /// without the header, the signature, the attachment links and the
    /// trailing `FROM` / `※ 来源` / `修改` lines. Colours are kept as the
    /// BBS stores them, as ANSI SGR codes (`ESC[1;31m`).
    public var body: String
    public var attachments: [Attachment]
    /// The masked IP of the `FROM` line, e.g. `101.90.125.*`.
    public var ip: String?
    /// Who last edited the post, from a `修改` line.
    public var editedBy: String?
    /// The author's nickname, where the page shows it (nForum).
    public var nick: String?
    /// The post's own title from its header (`Re: …` for most replies).
    public var title: String?
    /// The lines after the last `--`: `nil` when the page does not show
    /// signatures (mobile), empty when the post has none.
    public var signature: String?
    /// The forum's id of the post, where the page shows it.
    public var postID: Int?
    /// When the post was last edited, where the page says so.
    public var editedAt: Date?
    public var likes: [Like]
    /// What could not be read (header, time, floor, author), when the post
    /// was kept with only what could: `nil` for a post read whole.
    public var warning: String?
    /// The post's whole text as the page shows it, kept with a warning so
    /// that nothing the forum said is lost.
    public var rawText: String?

    public init(
        floor: Int, author: String, postedAt: Date, body: String,
        attachments: [Attachment] = [], ip: String? = nil, editedBy: String? = nil, nick: String? = nil,
        title: String? = nil, signature: String? = nil, postID: Int? = nil, editedAt: Date? = nil, likes: [Like] = [],
        warning: String? = nil, rawText: String? = nil
    ) {
        self.floor = floor
        self.author = author
        self.postedAt = postedAt
        self.body = body
        self.attachments = attachments
        self.ip = ip
        self.editedBy = editedBy
        self.nick = nick
        self.title = title
        self.signature = signature
        self.postID = postID
        self.editedAt = editedAt
        self.likes = likes
        self.warning = warning
        self.rawText = rawText
    }
}

/// One page of a thread.
public struct ThreadPage: Sendable, Equatable {
    public var board: String
    public var gid: Int
    public var title: String
    public var page: PageInfo
    public var posts: [Post]
    /// How many post containers the markup holds; `posts` has one post for
    /// each, read whole or kept with a warning.
    public var containers: Int? = nil

    /// The posts kept with a parse warning.
    public var partialPosts: [Post] { posts.filter { $0.warning != nil } }
}

/// A section (分区) and what it lists: boards and nested sections.
public struct SectionPage: Sendable, Equatable {
    public struct Entry: Sendable, Equatable, Codable {
        public var code: String
        public var name: String
        /// The enclosing section's code, `nil` for a top-level section.
        public var parent: String?
        /// Board ids filed directly under this section.
        public var boards: [String]
    }

    public var sections: [Entry]
    /// Board id → Chinese title, as the list shows them.
    public var boardTitles: [String: String]
}

/// The forum's hot topics (十大).
public struct HotTopicsPage: Sendable, Equatable {
    public struct Topic: Sendable, Equatable, Codable {
        public var board: String
        public var gid: Int
        public var title: String
        public var replies: Int?
    }

    public var topics: [Topic]
}

/// A user as the forum describes them (mobile user page or nForum's user JSON).
public struct UserProfile: Sendable, Equatable, Codable {
    public var id: String
    public var nick: String?
    public var level: String?
    public var posts: Int?
    public var gender: String?
    public var faceURL: String?
    public var lastLoginAt: Date?
}

/// What a forum page turned out to be.
public enum ForumPage: Sendable, Equatable {
    case board(BoardPage)
    case thread(ThreadPage)
    case sections(SectionPage)
    case hot(HotTopicsPage)
    case user(UserProfile)
}

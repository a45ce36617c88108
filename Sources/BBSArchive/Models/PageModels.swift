import Foundation

/// Where a page sits in a paginated listing, as the forum's pager states it.
package struct PageInfo: Sendable, Equatable, Codable {
    package var current: Int
    package var total: Int

    package init(current: Int, total: Int) {
        self.current = current
        self.total = total
    }
}

/// What a thread's row on its board's list says and the store keeps of
/// every thread alike: its id, title, flags, author and times. Both
/// `ThreadSummary` (a row as listed) and `StoredThread` (a thread as
/// stored) embed it and read its fields as their own.
package struct ThreadHeading: Sendable, Equatable {
    /// The thread id: the id of its first post.
    package var gid: Int
    package var title: String
    package var sticky: Bool
    package var marked: Bool
    /// The first post's author, or `nil` when the forum says it was deleted.
    package var author: String?
    package var postedAt: Date
    package var lastReplier: String?
    package var lastReplyAt: Date
}

/// One row of a board's thread list.
@dynamicMemberLookup
package struct ThreadSummary: Sendable, Equatable {
    package var heading: ThreadHeading
    /// Posts minus one, as the forum counts them; the least it can be when
    /// `repliesExact` is false.
    package var replies: Int
    /// Whether the row wrote its count in full. A count the forum rounds or
    /// caps (`1.5k`, `17+`) or one that could not be read is a hint only:
    /// the same `1.5k` on a later list hides the replies made since, so
    /// such a row never shows its thread archived as listed, and its
    /// thread's pages never end "where the row says" (no post is marked
    /// deleted by it).
    package var repliesExact: Bool
    /// Whether the list marks the thread as carrying attachments (nForum only).
    package var hasAttachment: Bool

    package init(
        gid: Int, title: String, replies: Int, repliesExact: Bool = true, sticky: Bool, marked: Bool = false,
        author: String?, postedAt: Date, lastReplier: String?, lastReplyAt: Date, hasAttachment: Bool = false
    ) {
        heading = ThreadHeading(
            gid: gid, title: title, sticky: sticky, marked: marked, author: author, postedAt: postedAt,
            lastReplier: lastReplier, lastReplyAt: lastReplyAt)
        self.replies = replies
        self.repliesExact = repliesExact
        self.hasAttachment = hasAttachment
    }

    package subscript<Value>(dynamicMember path: WritableKeyPath<ThreadHeading, Value>) -> Value {
        get { heading[keyPath: path] }
        set { heading[keyPath: path] = newValue }
    }
}

/// One page of a board's thread list (thread mode).
package struct BoardPage: Sendable, Equatable {
    /// The board's ASCII id, e.g. `Geography`.
    package var board: String
    /// The board's Chinese title, e.g. `地理`, when the page shows it.
    package var title: String?
    package var page: PageInfo
    package var threads: [ThreadSummary]
    /// The board's thread count, where the page states it (nForum: 主题数).
    package var threadCount: Int? = nil
    /// Rows that link a thread but could not be read: never left out in silence.
    package var unreadRows: [UnreadRow] = []
    /// Rows kept in `threads` with a field that could not be read and that
    /// another stands in for (a last reply's time: the post's time), said
    /// in a note of the run (not a failure: the thread is archived).
    package var partlyReadRows: [UnreadRow] = []

    /// What of the rows could not be read, as one line for a run's report;
    /// `nil` when every row was read whole.
    package var rowReport: String? {
        var parts: [String] = []
        if !unreadRows.isEmpty {
            parts.append(
                "\(unreadRows.count) row(s) could not be read: " + unreadRows.map(\.description).joined(separator: "; ")
            )
        }
        if !partlyReadRows.isEmpty {
            parts.append(
                "\(partlyReadRows.count) row(s) read in part: "
                    + partlyReadRows.map(\.description).joined(separator: "; "))
        }
        return parts.isEmpty ? nil : parts.joined(separator: " | ")
    }
}

/// A list row that links a thread and what of it could not be read.
package struct UnreadRow: Sendable, Equatable, CustomStringConvertible {
    package var gid: Int
    /// What could not be read, e.g. `its time "2016/05/05" could not be read`.
    package var problem: String

    package init(gid: Int, problem: String) {
        self.gid = gid
        self.problem = problem
    }

    package var description: String { "thread \(gid): \(problem)" }
}

/// A file attached to a post.
package struct Attachment: Sendable, Equatable, Codable {
    package enum Kind: String, Sendable, Codable {
        case image
        case file
    }

    package var name: String
    /// Absolute URL of the full-size file (never a thumbnail).
    package var url: String
    package var kind: Kind
    /// The size as the forum prints it, e.g. `12.3KB`.
    package var size: String?

    package init(name: String, url: String, kind: Kind, size: String?) {
        self.name = name
        self.url = url
        self.kind = kind
        self.size = size
    }
}

/// A reader's rating of a post (nForum's likes block).
package struct Like: Sendable, Equatable, Codable {
    /// -5…+5; 0 when the reader left a message without a score.
    package var score: Int
    package var user: String
    package var message: String
    /// To the minute, as the forum prints it.
    package var at: Date?

    package init(score: Int, user: String, message: String, at: Date?) {
        self.score = score
        self.user = user
        self.message = message
        self.at = at
    }
}

/// One post as a thread page shows it.
package struct Post: Sendable, Equatable {
    /// 0 for the first post (楼主), N for reply N.
    package var floor: Int
    package var author: String
    package var postedAt: Date
    /// The post's own text with lines joined by `\n`: its body and quote,
    /// without the header, the signature, the attachment links and the
    /// trailing `FROM` / `※ 来源` / `修改` lines. Colours are kept as the
    /// BBS stores them, as ANSI SGR codes (`ESC[1;31m`).
    package var body: String
    package var attachments: [Attachment]
    /// The masked IP of the `FROM` line, e.g. `101.90.125.*`.
    package var ip: String?
    /// Who last edited the post, from a `修改` line.
    package var editedBy: String?
    /// The author's nickname, where the page shows it (nForum).
    package var nick: String?
    /// The post's own title from its header (`Re: …` for most replies).
    package var title: String?
    /// The lines after the last `--`: `nil` when the page does not show
    /// signatures (mobile), empty when the post has none.
    package var signature: String?
    /// The forum's id of the post, where the page shows it.
    package var postID: Int?
    /// When the post was last edited, where the page says so.
    package var editedAt: Date?
    package var likes: [Like]
    /// What could not be read (header, time, floor, author), when the post
    /// was kept with only what could: `nil` for a post read whole.
    package var warning: String?
    /// The post's whole text as the page shows it, kept with a warning so
    /// that nothing the forum said is lost.
    package var rawText: String?
    /// The forum shows only a deletion notice in its place (the source
    /// decides, `ForumSource.isDeletionNotice`): the store keeps the text it
    /// archived before and notes when the forum deleted it.
    package var deletedByForum = false

    package init(
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
package struct ThreadPage: Sendable, Equatable {
    package var board: String
    package var gid: Int
    package var title: String
    package var page: PageInfo
    package var posts: [Post]
    /// How many post containers the markup holds; `posts` has one post for
    /// each, read whole or kept with a warning.
    package var containers: Int? = nil

    /// The posts kept with a parse warning.
    package var partialPosts: [Post] { posts.filter { $0.warning != nil } }
}

/// A section (分区) and what it lists: boards and nested sections.
package struct SectionPage: Sendable, Equatable {
    package struct Entry: Sendable, Equatable, Codable {
        package var code: String
        package var name: String
        /// The enclosing section's code, `nil` for a top-level section.
        package var parent: String?
        /// Board ids filed directly under this section.
        package var boards: [String]
    }

    package var sections: [Entry]
    /// Board id → Chinese title, as the list shows them.
    package var boardTitles: [String: String]
}

/// The forum's hot topics (十大).
package struct HotTopicsPage: Sendable, Equatable {
    package struct Topic: Sendable, Equatable, Codable {
        package var board: String
        package var gid: Int
        package var title: String
        package var replies: Int?
    }

    package var topics: [Topic]
}

/// A user as the forum describes them (mobile user page or nForum's user JSON).
package struct UserProfile: Sendable, Equatable, Codable {
    package var id: String
    package var nick: String?
    package var level: String?
    package var posts: Int?
    package var gender: String?
    package var faceURL: String?
    package var lastLoginAt: Date?
}

/// What a forum page turned out to be.
package enum ForumPage: Sendable, Equatable {
    case board(BoardPage)
    case thread(ThreadPage)
    case sections(SectionPage)
    case hot(HotTopicsPage)
    case user(UserProfile)
}

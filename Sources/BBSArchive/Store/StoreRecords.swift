import Foundation

/// A board as the store holds it.
public struct StoredBoard: Sendable, Equatable {
    public var name: String
    public var title: String?
    /// The `--source` and forum address it was archived from.
    public var source: String?
    public var baseURL: String?
    public var threadCount: Int
    public var postCount: Int
}

/// A thread as the store holds it, with times taken from its posts where
/// they were archived (board lists give only the day for older threads).
public struct StoredThread: Sendable, Equatable {
    public var board: String
    public var gid: Int
    public var title: String
    public var sticky: Bool
    public var marked: Bool
    /// `nil` when the first post was deleted on the forum.
    public var author: String?
    public var postedAt: Date
    public var lastReplier: String?
    public var lastReplyAt: Date
    /// Posts archived for this thread.
    public var postCount: Int
    /// Whether floor 0 is archived. When it is not (deleted on the forum),
    /// `postedAt` comes from the board list and may be exact to the day only.
    public var firstPostArchived: Bool
    /// When its posts or title last changed in the store.
    public var changedAt: Date?
    /// The thread's address on the live forum, as its source named it when it was saved.
    public var originalURL: String? = nil

    /// Replies as the forum counts them: every post after the first.
    public var replies: Int { firstPostArchived ? max(0, postCount - 1) : postCount }
}

/// A post as the store holds it.
public struct StoredPost: Sendable, Equatable {
    public var board: String
    public var gid: Int
    public var floor: Int
    public var author: String
    public var postedAt: Date
    public var body: String
    public var ip: String?
    public var editedBy: String?
    public var attachments: [StoredAttachment]
    /// What only the desktop pages show (`nil` / empty when archived from mobile).
    public var nick: String?
    public var title: String?
    public var signature: String?
    public var postID: Int?
    public var editedAt: Date?
    public var likes: [Like] = []
    /// What the parser could not read, for a post kept with what it could.
    public var warning: String? = nil
    /// The post's whole text as the page showed it, kept with a warning.
    public var rawText: String? = nil
}

/// An attachment and, once fetched, the content hash of its bytes.
public struct StoredAttachment: Sendable, Equatable {
    public var name: String
    public var url: String
    public var kind: Attachment.Kind
    public var size: String?
    /// SHA-256 of the file's bytes, or `nil` if it could not be fetched.
    public var hash: String?
    public var mime: String?
}

/// A post of one user, with the thread it belongs to.
public struct StoredUserPost: Sendable, Equatable {
    public var board: String
    public var gid: Int
    public var floor: Int
    /// How many of the thread's archived posts come before it.
    public var position: Int
    public var threadTitle: String
    public var postedAt: Date
}

/// How many rows of each kind the store holds.
public struct StoreCounts: Sendable, Equatable {
    public var boards: Int
    public var threads: Int
    public var posts: Int
    public var users: Int
    public var attachments: Int
    public var media: Int
    public var captures: Int
    public var blobs: Int
}

import Foundation

/// A board as the store holds it.
package struct StoredBoard: Sendable, Equatable {
    package var name: String
    package var title: String?
    /// The `--source` and forum address it was archived from.
    package var source: String?
    package var baseURL: String?
    package var threadCount: Int
    package var postCount: Int
}

/// A thread as the store holds it, with times taken from its posts where
/// they were archived (board lists give only the day for older threads).
/// Its heading's fields (`gid`, `title`, `author`, …) read as its own.
@dynamicMemberLookup
package struct StoredThread: Sendable, Equatable {
    package var board: String
    /// Its author is `nil` when the first post was deleted on the forum.
    package var heading: ThreadHeading
    /// Posts archived for this thread.
    package var postCount: Int
    /// Whether floor 0 is archived. When it is not (deleted on the forum),
    /// `postedAt` comes from the board list and may be exact to the day only.
    package var firstPostArchived: Bool
    /// When its posts or title last changed in the store.
    package var changedAt: Date?
    /// The thread's address on the live forum, as its source named it when it was saved.
    package var originalURL: String? = nil

    /// Replies as the forum counts them: every post after the first.
    package var replies: Int { firstPostArchived ? max(0, postCount - 1) : postCount }

    package subscript<Value>(dynamicMember path: WritableKeyPath<ThreadHeading, Value>) -> Value {
        get { heading[keyPath: path] }
        set { heading[keyPath: path] = newValue }
    }
}

/// A post as the store holds it.
package struct StoredPost: Sendable, Equatable {
    package var board: String
    package var gid: Int
    package var floor: Int
    package var author: String
    package var postedAt: Date
    package var body: String
    package var ip: String?
    package var editedBy: String?
    package var attachments: [StoredAttachment]
    /// What only the desktop pages show (`nil` / empty when archived from mobile).
    package var nick: String?
    package var title: String?
    package var signature: String?
    package var postID: Int?
    package var editedAt: Date?
    package var likes: [Like] = []
    /// What the parser could not read, for a post kept with what it could.
    package var warning: String? = nil
    /// The post's whole text as the page showed it, kept with a warning.
    package var rawText: String? = nil
    /// When the forum was seen to replace this post by a deletion notice;
    /// the text is what was archived before.
    package var forumDeletedAt: Date? = nil
}

/// An attachment and, once fetched, the content hash of its bytes.
package struct StoredAttachment: Sendable, Equatable {
    package var name: String
    package var url: String
    package var kind: Attachment.Kind
    package var size: String?
    /// SHA-256 of the file's bytes, or `nil` if it could not be fetched.
    package var hash: String?
    package var mime: String?
}

/// A post of one user, with the thread it belongs to.
package struct StoredUserPost: Sendable, Equatable {
    package var board: String
    package var gid: Int
    package var floor: Int
    /// How many of the thread's archived posts come before it; its floor
    /// when that is below the `countedFrom` of `posts(byUser:…)`.
    package var position: Int
    package var threadTitle: String
    package var postedAt: Date
}

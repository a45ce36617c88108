import Foundation

/// A section (分区) of the forum and the boards filed under it.
public struct ReplicaSection: Sendable {
    /// "0", "1", ... as in `/section/{code}`.
    public var code: String
    public var name: String
    public var boardNames: [String]
}

/// One generated board.
public struct ReplicaBoard: Sendable {
    /// ASCII id, as in `/board/{name}`.
    public var name: String
    /// Chinese title, e.g. 地理.
    public var title: String
    /// Listing order: sticky threads first, then by newest last activity.
    public var threads: [ReplicaThread]
}

public struct ReplicaThread: Sendable {
    /// Id of the thread's first post, even when that post was deleted.
    public var gid: Int
    public var title: String
    public var sticky: Bool
    /// The first post (floor 0) is gone; `posts` then starts at floor 1.
    public var firstPostDeleted: Bool
    /// The visible posts, in floor order.
    public var posts: [ReplicaPost]

    /// Author and time of the deleted first post, which the board listing still
    /// shows (as 原帖已删除 and its date) although the post itself is gone.
    var deletedFirstPost: (author: String, postedAt: Date)?

    /// The reply count the board listing prints: every post but the first,
    /// counting a deleted first post as a post.
    var listedReplies: Int {
        posts.count - 1 + (firstPostDeleted ? 1 : 0)
    }
}

public struct ReplicaPost: Sendable {
    /// Board-wide post id; ids grow with posting time.
    public var id: Int
    /// 0 = 楼主, N = N楼.
    public var floor: Int
    public var author: String
    /// Whole seconds.
    public var postedAt: Date
    /// The body as the mobile page shows it: text lines, a quote block
    /// (`【 在 … 的大作中提到: 】` and `: ` lines) when present. No header,
    /// no signature, no FROM line.
    public var lines: [String]
    public var attachments: [ReplicaAttachment]
    /// Masked origin, e.g. "101.90.125.*".
    public var ip: String
    /// Who edited the post (always the author here), nil when never edited.
    public var editedBy: String?
}

public struct ReplicaAttachment: Sendable {
    /// File name as uploaded, e.g. "IMG_2041.png" or "资料.txt".
    public var name: String
    /// Full-size route, "/att/{B}/{postId}/{pos}".
    public var path: String
    public var isImage: Bool
    /// The full-size file.
    public var bytes: Data
    /// As printed on the page: "812B" or "12.3KB".
    public var sizeText: String

    /// How to redraw the image at another size for `/middle` and `/small`;
    /// nil for plain files.
    var image: ImagePattern?
    /// The `{pos}` path component.
    var pos: Int
}

/// What an archive of the whole forum should contain, per board.
public struct GroundTruth: Codable, Sendable {
    public var boards: [BoardTruth]
}

public struct BoardTruth: Codable, Sendable {
    public var name: String
    public var title: String
    /// Threads on the board, sticky ones included.
    public var threads: Int
    /// Visible posts (a deleted first post is not counted).
    public var posts: Int
    /// Image attachments, counted per post (an image reused by two posts counts twice).
    public var images: Int
    /// Non-image attachments, counted per post.
    public var files: Int
}

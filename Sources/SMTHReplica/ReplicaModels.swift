import Foundation

/// A section (分区) of the forum and the boards filed under it.
public struct ReplicaSection: Sendable {
    /// "0", "1", ... as in `/section/{code}`; a nested section (目录) has an
    /// ASCII id instead, as on the real site.
    public var code: String
    public var name: String
    /// The boards filed directly in this section (not those of nested sections).
    public var boardNames: [String]
    /// The enclosing section's code for a nested section, nil at the top level.
    public var parent: String?

    init(code: String, name: String, boardNames: [String], parent: String? = nil) {
        self.code = code
        self.name = name
        self.boardNames = boardNames
        self.parent = parent
    }
}

/// One generated board.
public struct ReplicaBoard: Sendable {
    /// ASCII id, as in `/board/{name}`.
    public var name: String
    /// Chinese title, e.g. 地理.
    public var title: String
    /// Listing order: sticky threads first, then by newest last activity.
    public var threads: [ReplicaThread]
    /// 版主, shown in the nForum board header.
    public var moderators: [String] = []
    /// Posts written today (Beijing time, as of the config's `now`), for
    /// nForum's board header.
    var todayPosts = 0
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

    /// Served re-indented (`Reindent`): `<br />` on lines of their own and
    /// text nodes wrapped at some of their spaces, on both front ends.
    public var reindented = false

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
    /// The author's nickname (昵称) from the user pool; it may hold spaces,
    /// brackets, `&` and `<`.
    public var nick: String
    /// The thread title on floor 0, `Re: {thread title}` on replies.
    public var title: String
    /// The author's signature (签名档), 0–3 lines, the same on every post of
    /// the author; lines may carry ANSI colour codes.
    public var signature: [String]
    /// When the post was last edited: set exactly when `editedBy` is, later than `postedAt`.
    public var editedAt: Date?
    /// Readers' ratings (评价) shown under the post on nForum, oldest first.
    public var likes: [ReplicaLike]
    /// The font class nForum wraps the `※ 来源` line in: picked per post,
    /// as the real site does, from `f000`–`f017`.
    public var originColour = "f007"
    /// The same for the `※ 修改` line.
    public var editColour = "f000"

    /// `lines` without ANSI colour codes: the text the mobile site shows.
    public var plainLines: [String] {
        lines.map(ANSIText.strip)
    }

    /// The whole post text as the BBS stores it and nForum shows it: the
    /// three header lines, an empty line, the body, `--`, the signature, the
    /// `※ 修改` line when edited and the `※ 来源` line. ANSI codes are kept;
    /// attachments are not part of the text (nForum shows them between the
    /// body and `--`).
    public func articleText(board: String) -> [String] {
        var text = [
            "发信人: \(author) (\(nick)), 信区: \(board)",
            "标  题: \(title)",
            "发信站: 水木社区 (\(BeijingClock.postHeaderText(BeijingClock.seconds(postedAt)))), 站内",
            "",
        ]
        text += lines
        text.append("--")
        text += signature
        if let editor = editedBy {
            let when = BeijingClock.editText(BeijingClock.seconds(editedAt ?? postedAt))
            text.append("※ 修改:·\(editor) 于 \(when) 修改本文·[FROM: \(ip)]")
        }
        text.append("※ 来源:·水木社区 http://www.newsmth.net·[FROM: \(ip)]")
        return text
    }
}

/// One reader's rating of a post (nForum's 评价 / Like).
public struct ReplicaLike: Sendable, Equatable {
    /// 0 for a plain like, else -5…+5 without 0.
    public var score: Int
    public var user: String
    public var message: String
    /// Whole minutes.
    public var at: Date

    public init(score: Int, user: String, message: String, at: Date) {
        self.score = score
        self.user = user
        self.message = message
        self.at = at
    }
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

import Foundation

/// What both SMTH front ends share beyond their markup: how the forum says
/// "log in first", which smaller copies of an attachment it serves, and
/// what the archive of it needs to know (its words, its time zone, how its
/// posts are written, the forms of its addresses).
enum SMTHSiteRules {
    static let wording = SiteWording(
        siteTitle: "水木社区存档", deletedAuthor: "原帖已删除",
        lookupExample: "https://m.newsmth.net/article/Geography/12345", forumName: "水木社区")

    static let exampleBoards = ["Geography", "WorkLife"]

    /// Every SMTH page prints its times in Beijing time.
    static let time = ForumTime(zone: "Asia/Shanghai", offsetSeconds: 8 * 3600, name: "北京时间")

    /// The forms of an SMTH address on any host (newsmth.net, mysmth.net, a
    /// mirror): `m.newsmth.net/article/BOARD/GID[?p=N]` (mobile),
    /// `www.newsmth.net/nForum/#!article/BOARD/GID` and
    /// `…/nForum/article/BOARD/GID[?ajax]` (desktop), and a board's
    /// `…/board/BOARD`, `…/nForum/#!board/BOARD`.
    static let lookup = LookupRules(
        base: "https://m.newsmth.net/",
        rules: [
            LookupRule(part: .fragment, pattern: #"^#!(?:nForum/)?article/([^/?]+)(?:/([^/?]*))?"#, board: 1, gid: 2),
            LookupRule(part: .fragment, pattern: #"^#!(?:nForum/)?board/([^/?]+)"#, board: 1),
            LookupRule(part: .path, pattern: #"^/(?:nForum/)?article/([^/]+)(?:/([^/]*))?"#, board: 1, gid: 2),
            LookupRule(part: .path, pattern: #"^/(?:nForum/)?board/([^/]+)"#, board: 1),
        ],
        forms: [
            .init(label: "手机版", shape: "m.newsmth.net/article/版面/编号"),
            .init(label: "电脑版", shape: "www.newsmth.net/nForum/#!article/版面/编号"),
        ])

    static let profile = ForumProfile(
        wording: wording, time: time, conventions: SMTHPostConventions(), lookup: lookup)

    /// 您无权阅读此版面, 请先登录 and their misspelling 登陆.
    static func isLoginWall(message: String) -> Bool {
        message.contains("无权") || message.contains("登录") || message.contains("登陆")
    }

    /// An attachment (`/att/…`) whose original is gone may still be served
    /// as a thumbnail: `…/large`, then `…/middle`.
    static func mediaFallbacks(for url: String) -> [(url: String, variant: String)] {
        guard url.contains("/att/") else { return [] }
        return ["large", "middle"].map { (url + "/" + $0, $0) }
    }

    /// The hosts of the forum's own site, attachments and images.
    static let mediaHosts = [
        "newsmth.net", "www.newsmth.net", "m.newsmth.net", "att.newsmth.net", "static.newsmth.net",
        "images.newsmth.net",
    ]

    /// 此文章已被删除 and its variants: a short text that is only the notice.
    static func isDeletionNotice(_ body: String) -> Bool {
        // Trimmed without Foundation, and counted no further than the 41st
        // character: 113,000 instructions a post before (a whole body
        // bridged to `NSString`, every character counted), asked of every
        // post a fetch stores.
        let text = body.trimmingBlanksAndNewlines
        guard text.index(text.startIndex, offsetBy: 41, limitedBy: text.endIndex) == nil else { return false }
        return ["已被删除", "已经被删除", "已删除", "被屏蔽", "已被屏蔽"].contains { text.contains($0) }
            && ["文章", "本文", "帖子", "此帖", "该帖", "内容", "此文"].contains { text.contains($0) }
    }

    /// A board's list pages are `…/board/NAME?…`, its threads' pages
    /// `…/article/NAME/GID?…`: the paths without page and id.
    static func captureMarkers(board: String, source: some ForumSource) -> [String] {
        let boardPath = source.boardURL(board: board, page: 1).split(separator: "?").first.map(String.init) ?? ""
        let threadPath =
            source.threadURL(board: board, gid: 0, page: 1)
            .split(separator: "?").first.map { String($0.dropLast(1)) } ?? ""
        return [boardPath, threadPath]
    }
}

/// Both SMTH front ends: what they share comes from `SMTHSiteRules`.
protocol SMTHFrontEnd: ForumSource {}

extension SMTHFrontEnd {
    package func captureMarkers(board: String) -> [String] {
        SMTHSiteRules.captureMarkers(board: board, source: self)
    }
    package func isLoginWall(message: String) -> Bool { SMTHSiteRules.isLoginWall(message: message) }
    package var profile: ForumProfile { SMTHSiteRules.profile }
    package var exampleBoards: [String] { SMTHSiteRules.exampleBoards }
    package func mediaFallbacks(for url: String) -> [(url: String, variant: String)] {
        SMTHSiteRules.mediaFallbacks(for: url)
    }
    package var mediaHosts: [String] { SMTHSiteRules.mediaHosts }
    package func isDeletionNotice(_ body: String) -> Bool { SMTHSiteRules.isDeletionNotice(body) }
}

extension SMTHMobileSource: SMTHFrontEnd {}
extension SMTHNForumSource: SMTHFrontEnd {}

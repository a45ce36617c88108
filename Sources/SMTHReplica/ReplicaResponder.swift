import Foundation

/// What the replica answers to one request, independent of the HTTP library.
struct ReplicaResponse: Sendable {
    var status: Int
    var contentType: String
    var body: Data
    /// Where a 3xx sends the client.
    var location: String? = nil

    static func redirect(_ location: String) -> ReplicaResponse {
        ReplicaResponse(status: 302, contentType: "text/html; charset=utf-8", body: Data(), location: location)
    }

    static func html(_ text: String, status: Int = 200) -> ReplicaResponse {
        ReplicaResponse(status: status, contentType: "text/html; charset=utf-8", body: Data(text.utf8))
    }

    /// An nForum page: GBK bytes (GB18030 for what GBK lacks), labelled GBK.
    static func gbk(_ text: String, status: Int = 200) -> ReplicaResponse {
        ReplicaResponse(status: status, contentType: "text/html; charset=GBK", body: GBKEncoding.encode(text))
    }

    static let notFound = html("<html><body><p>404 Not Found</p></body></html>", status: 404)
}

/// Maps the mobile site's routes to pages of a forum, and hands `/nForum/…`
/// to `NForumResponder`.
struct ReplicaResponder: Sendable {
    let forum: ReplicaForum

    /// - Parameters:
    ///   - path: the decoded path, e.g. "/board/Geography".
    ///   - query: decoded query items; the first of a name wins.
    ///   - now: when the request is served; decides "today" on board listings.
    func respond(path: String, query: [(name: String, value: String)], now: Date) -> ReplicaResponse {
        let parts = path.split(separator: "/").map(String.init)
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        let page = value("p").map(Self.pageNumber) ?? 1

        switch parts.first {
        case nil, "index":
            return parts.count <= 1 ? .html(MobileMarkup.homePage(forum)) : .notFound

        case "hot":
            return parts.count == 1 ? .html(MobileMarkup.hotPage(forum)) : .notFound

        case "nForum":
            return NForumResponder(forum: forum).respond(Array(parts.dropFirst()), query: query, now: now)

        case "section":
            guard parts.count <= 2,
                let html = MobileMarkup.sectionPage(forum, code: parts.count == 2 ? parts[1] : nil)
            else { return .notFound }
            return .html(html)

        case "board":
            guard parts.count >= 2 else { return .notFound }
            guard let generated = forum.generated(named: parts[1]) else {
                return .html(MobileMarkup.boardMissing())
            }
            // `/board/{B}/{mode}` (经典, 文摘, 保留) shows the same thread list here.
            guard parts.count == 2 || (parts.count == 3 && Int(parts[2]) != nil) else { return .notFound }
            return .html(
                MobileMarkup.boardPage(
                    generated.board, page: page,
                    reference: BeijingClock.seconds(now)))

        case "article":
            guard parts.count >= 2 else { return .notFound }
            guard let generated = forum.generated(named: parts[1]) else {
                return .html(MobileMarkup.boardMissing())
            }
            guard parts.count == 3, let gid = Int(parts[2]), let thread = generated.thread(gid: gid) else {
                return .html(MobileMarkup.articleMissing())
            }
            let author = value("au").flatMap { $0.isEmpty ? nil : $0 }
            return .html(MobileMarkup.threadPage(thread, board: generated.board, page: page, author: author))

        case "att":
            return attachment(parts)

        case "img":
            guard parts.count == 4, parts[1] == "ubb", let gif = EmoticonImages.image(family: parts[2], file: parts[3])
            else { return .notFound }
            return ReplicaResponse(status: 200, contentType: "image/gif", body: gif)

        case "user":
            guard parts.count == 3, parts[1] == "query" else { return .notFound }
            return .html(MobileMarkup.userPage(parts[2], nick: forum.users.nicks[parts[2]]))

        case "_replica":
            guard parts.count == 2, parts[1] == "truth.json" else { return .notFound }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            guard let json = try? encoder.encode(forum.groundTruth()) else { return .notFound }
            return ReplicaResponse(status: 200, contentType: "application/json", body: json)

        default:
            return .notFound
        }
    }

    /// `?p=`: a number too large for Int means "the last page", anything
    /// unreadable the first; out-of-range pages are clamped later.
    static func pageNumber(_ text: String) -> Int {
        let digits = text.trimmingCharacters(in: .whitespaces)
        if let number = Int(digits) { return number }
        let isHuge = !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
        return isHuge ? Int.max : 1
    }

    /// `/att/{B}/{id}/{pos}[/middle|/small|/large]`.
    func attachment(_ parts: [String]) -> ReplicaResponse {
        guard parts.count == 4 || parts.count == 5,
            let id = Int(parts[2]), let pos = Int(parts[3]),
            let generated = forum.generated(named: parts[1]),
            let attachment = generated.attachmentsByKey[GeneratedBoard.key(postID: id, pos: pos)]
        else { return .notFound }
        let size = parts.count == 5 ? parts[4] : nil
        guard let image = attachment.image else {
            // Files have no thumbnails.
            guard size == nil else { return .notFound }
            return ReplicaResponse(status: 200, contentType: "application/octet-stream", body: attachment.bytes)
        }
        switch size {
        case nil, "large":
            return ReplicaResponse(status: 200, contentType: "image/png", body: attachment.bytes)
        case "middle":
            return ReplicaResponse(status: 200, contentType: "image/png", body: image.thumbnail(divisor: 2))
        case "small":
            return ReplicaResponse(status: 200, contentType: "image/png", body: image.thumbnail(divisor: 4))
        default:
            return .notFound
        }
    }
}

import Foundation

/// Maps the desktop site's routes (under `/nForum/`) to pages of a forum.
/// Pages are `?ajax` fragments in GBK; without `ajax` a route answers the
/// JavaScript shell, as the real site does.
struct NForumResponder: Sendable {
    let forum: ReplicaForum

    /// - Parameter parts: the path's components after `nForum`.
    func respond(_ parts: [String], query: [(name: String, value: String)], now: Date) -> ReplicaResponse {
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        let isAjax = query.contains { $0.name == "ajax" }
        let page = value("p").map(ReplicaResponder.pageNumber) ?? 1
        // The shell's `#!` address: the same route and query, less `ajax`.
        func shell() -> ReplicaResponse {
            let rest = query.filter { $0.name != "ajax" }
                .map { NForumMarkup.queryValue($0.name) + "=" + NForumMarkup.queryValue($0.value) }
            let route = parts.map(NForumMarkup.queryValue).joined(separator: "/")
            return .gbk(NForumMarkup.shell(route: route + (rest.isEmpty ? "" : "?" + rest.joined(separator: "&"))))
        }

        switch parts.first {
        case "board":
            guard parts.count == 2 else { return .notFound }
            guard isAjax else { return shell() }
            guard let generated = forum.generated(named: parts[1]) else { return .gbk(NForumMarkup.boardMissing()) }
            return .gbk(
                NForumMarkup.boardPage(generated.board, page: page, reference: BeijingClock.seconds(now)))

        case "article":
            guard parts.count == 3 else { return .notFound }
            guard isAjax else { return shell() }
            guard let generated = forum.generated(named: parts[1]), let gid = Int(parts[2]),
                let thread = generated.thread(gid: gid)
            else { return .gbk(NForumMarkup.boardMissing()) }
            let author = value("au").flatMap { $0.isEmpty ? nil : $0 }
            return .gbk(
                NForumMarkup.threadPage(
                    thread, board: generated.board, users: forum.users, page: page, author: author))

        case "att":
            // The same files as the mobile site's `/att/…`.
            return ReplicaResponder(forum: forum).attachment(parts)

        case "section":
            guard parts.count == 2 else { return .notFound }
            guard isAjax else { return shell() }
            guard let html = NForumMarkup.sectionPage(forum, code: parts[1]) else {
                return .gbk(NForumMarkup.errorTable("不存在该分区"))
            }
            return .gbk(html)

        case "mainpage":
            guard parts.count == 1 else { return .notFound }
            guard isAjax else { return shell() }
            return .gbk(NForumMarkup.mainPage(forum))

        case "user":
            guard parts.count == 3, parts[1] == "query", parts[2].hasSuffix(".json") else { return .notFound }
            return userQuery(String(parts[2].dropLast(".json".count)))

        default:
            return .notFound
        }
    }

    /// `/nForum/user/query/{id}.json`, shaped like the real answer (UTF-8 JSON).
    private func userQuery(_ id: String) -> ReplicaResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let nick = forum.users.nicks[id], let profile = forum.users.profiles[id] else {
            // The real site answers an unknown id with 200 and this error object.
            let text = #"{"ajax_st":0,"ajax_code":"0104","ajax_msg":"用户不存在"}"#
            return ReplicaResponse(status: 200, contentType: "application/json", body: Data(text.utf8))
        }
        let now = Int(BeijingClock.seconds(forum.config.now))
        let initial = id.first.map { String($0).uppercased() } ?? "_"
        let user = UserQuery(
            id: id, user_name: nick,
            face_url: "http://images.newsmth.net/nForum/uploadFace/\(initial)/\(id).jpg",
            face_width: 120, face_height: 120, gender: profile.gender, astro: "白羊座", life: "楠木",
            lifelevel: min(12, 1 + profile.loginCount / 2500), qq: "", msn: "", home_page: "", level: "用户",
            is_online: profile.loginCount % 3 == 0, post_count: profile.postCount,
            last_login_time: now - profile.loginCount % 86_400, last_login_ip: "10.0.0.0", is_hide: false,
            is_activated: true, is_register: true, login_count: profile.loginCount, is_admin: false,
            first_login_time: now - 86_400 * (300 + profile.loginCount % 3000),
            stay_count: profile.loginCount * 3600, score_user: profile.score, score_manager: 0,
            plans: "", status: "目前不在站上", ajax_st: 1, ajax_code: "0005", ajax_msg: "操作成功")
        guard let json = try? encoder.encode(user) else { return .notFound }
        return ReplicaResponse(status: 200, contentType: "application/json", body: json)
    }
}

/// The fields of nForum's user query, named as the site names them.
private struct UserQuery: Encodable {
    var id: String
    var user_name: String
    var face_url: String
    var face_width: Int
    var face_height: Int
    var gender: String
    var astro: String
    var life: String
    var lifelevel: Int
    var qq: String
    var msn: String
    var home_page: String
    var level: String
    var is_online: Bool
    var post_count: Int
    var last_login_time: Int
    var last_login_ip: String
    var is_hide: Bool
    var is_activated: Bool
    var is_register: Bool
    var login_count: Int
    var is_admin: Bool
    var first_login_time: Int
    var stay_count: Int
    var score_user: Int
    var score_manager: Int
    var plans: String
    var status: String
    var ajax_st: Int
    var ajax_code: String
    var ajax_msg: String
}

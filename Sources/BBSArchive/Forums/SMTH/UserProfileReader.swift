import Foundation

/// Reads nForum's user JSON (`/nForum/user/query/{id}.json`), which both
/// front ends' sources accept, since it is the same on both hosts.
enum UserProfileReader {
    /// The profile, `nil` when the bytes are not a JSON object, or the
    /// forum's own error (`用户不存在`). The JSON may come in GBK: it is
    /// decoded as pages are (header, declaration, UTF-8 validity, GB18030).
    static func json(_ body: Data, url: String, contentType: String? = nil) throws(ArchiveError) -> UserProfile? {
        guard body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) == UInt8(ascii: "{"),
            let text = TextEncodingDetector.utf8(body, contentType: contentType),
            let object = try? JSONSerialization.jsonObject(with: text) as? [String: Any]
        else { return nil }
        if let status = object["ajax_st"] as? Int, status == 0 {
            throw .forumError(url: url, message: (object["ajax_msg"] as? String) ?? "the forum refused the request")
        }
        guard let id = object["id"] as? String else { return nil }
        let lastLogin = (object["last_login_time"] as? Double).map { Date(timeIntervalSince1970: $0) }
        return UserProfile(
            id: id, nick: object["user_name"] as? String, level: object["level"] as? String,
            posts: object["post_count"] as? Int, gender: object["gender"] as? String,
            faceURL: object["face_url"] as? String, lastLoginAt: lastLogin)
    }
}

import Foundation

/// SMTH's mobile site (`m.newsmth.net`): UTF-8 XHTML, 30 threads a board
/// page, 10 posts a thread page.
package struct SMTHMobileSource: ForumSource {
    package static let defaultBaseURL = "https://m.newsmth.net"

    package let id = "smth-mobile"
    package let baseURL: String

    package init(baseURL: String = SMTHMobileSource.defaultBaseURL) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
    }

    package func boardURL(board: String, page: Int) -> String {
        "\(baseURL)/board/\(Self.escapePath(board))?p=\(page)"
    }

    package func threadURL(board: String, gid: Int, page: Int) -> String {
        "\(baseURL)/article/\(Self.escapePath(board))/\(gid)?p=\(page)"
    }

    package func originalThreadURL(board: String, gid: Int) -> String {
        "\(baseURL)/article/\(Self.escapePath(board))/\(gid)"
    }

    package var postsPerThreadPage: Int { 10 }

    package var requestHeaders: [(name: String, value: String)] { [] }

    package var sectionsURL: String? { "\(baseURL)/section" }

    package var hotURL: String? { "\(baseURL)/hot" }

    package func address(of url: String) -> PageAddress? {
        guard let components = URLComponents(string: url) else { return nil }
        let page = components.queryItems?.first { $0.name == "p" }?.value.flatMap { Int($0) } ?? 1
        guard components.queryItems?.contains(where: { $0.name == "au" }) != true else { return nil }
        let parts = components.path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        switch (parts.first, parts.count) {
        case ("board", 2):
            return .board(parts[1], page: page)
        case ("article", 3):
            return Int(parts[2]).map { .thread(parts[1], gid: $0, page: page) }
        default:
            return nil
        }
    }

    package func parse(_ page: FetchedPage) throws(ArchiveError) -> ForumPage {
        try SMTHMobileParser(page: page).parse()
    }

    /// What a path segment may hold as it is: a path's characters, less the
    /// ones that would end the segment.
    private static let segmentAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))

    /// `segment` percent-encoded for a URL path. Board ids are ASCII letters,
    /// digits and `_`, which need nothing: they are handed back without
    /// going through Foundation's character sets (asked for every row of
    /// every list page walked).
    static func escapePath(_ segment: String) -> String {
        if segment.utf8.allSatisfy(isUnreserved) { return segment }
        return segment.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? segment
    }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

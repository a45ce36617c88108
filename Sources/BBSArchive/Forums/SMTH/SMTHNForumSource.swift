import Foundation

/// SMTH's desktop front end, nForum (`www.newsmth.net/nForum`): GBK pages,
/// read through their `?ajax` fragments (without it the pages are only
/// JavaScript shells), 30 threads a board page, 10 posts a thread page.
/// Unlike the mobile site it shows the whole post text: header, signature,
/// colours, nicknames and likes.
package struct SMTHNForumSource: ForumSource {
    package static let defaultBaseURL = "https://www.newsmth.net"

    package let id = "smth-nforum"
    package let baseURL: String

    package init(baseURL: String = SMTHNForumSource.defaultBaseURL) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasSuffix("/nForum") { base.removeLast("/nForum".count) }
        self.baseURL = base
    }

    /// nForum answers fragments to requests that say they come from its own script.
    package var requestHeaders: [(name: String, value: String)] { [("X-Requested-With", "XMLHttpRequest")] }

    package func boardURL(board: String, page: Int) -> String {
        "\(baseURL)/nForum/board/\(SMTHMobileSource.escapePath(board))?ajax&p=\(page)"
    }

    package func threadURL(board: String, gid: Int, page: Int) -> String {
        "\(baseURL)/nForum/article/\(SMTHMobileSource.escapePath(board))/\(gid)?ajax&p=\(page)"
    }

    package func originalThreadURL(board: String, gid: Int) -> String {
        "\(baseURL)/nForum/#!article/\(SMTHMobileSource.escapePath(board))/\(gid)"
    }

    package var postsPerThreadPage: Int { 10 }

    /// nForum lists sections one at a time; the mobile site's `/section`
    /// lists them all, and both sites file boards the same way.
    package var sectionsURL: String? { nil }

    package var hotURL: String? { "\(baseURL)/nForum/mainpage?ajax" }

    package func address(of url: String) -> PageAddress? {
        guard let components = URLComponents(string: url) else { return nil }
        let items = components.queryItems ?? []
        guard !items.contains(where: { $0.name == "au" }) else { return nil }
        let page = items.first { $0.name == "p" }?.value.flatMap { Int($0) } ?? 1
        let parts = components.path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        guard parts.first == "nForum" else { return nil }
        switch (parts.dropFirst().first, parts.count) {
        case ("board", 3):
            return .board(parts[2], page: page)
        case ("article", 4):
            return Int(parts[3]).map { .thread(parts[2], gid: $0, page: page) }
        default:
            return nil
        }
    }

    package func parse(_ page: FetchedPage) throws(ArchiveError) -> ForumPage {
        try SMTHNForumParser(page: page).parse()
    }
}

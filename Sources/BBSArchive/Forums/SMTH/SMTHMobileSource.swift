import Foundation

/// SMTH's mobile site (`m.newsmth.net`): UTF-8 XHTML, 30 threads a board
/// page, 10 posts a thread page.
public struct SMTHMobileSource: ForumSource {
    public static let defaultBaseURL = "https://m.newsmth.net"

    public let id = "smth-mobile"
    public let baseURL: String

    public init(baseURL: String = SMTHMobileSource.defaultBaseURL) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
    }

    public func boardURL(board: String, page: Int) -> String {
        "\(baseURL)/board/\(Self.escapePath(board))?p=\(page)"
    }

    public func threadURL(board: String, gid: Int, page: Int) -> String {
        "\(baseURL)/article/\(Self.escapePath(board))/\(gid)?p=\(page)"
    }

    public func originalThreadURL(board: String, gid: Int) -> String {
        "\(baseURL)/article/\(Self.escapePath(board))/\(gid)"
    }

    public func parse(_ page: FetchedPage) throws(ArchiveError) -> ForumPage {
        try SMTHMobileParser(page: page).parse()
    }

    static func escapePath(_ segment: String) -> String {
        segment.addingPercentEncoding(
            withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#")))
            ?? segment
    }
}

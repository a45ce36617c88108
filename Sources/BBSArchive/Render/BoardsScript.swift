import Foundation

/// `boards.js`: every group of boards as the sidebar lists them, written
/// once for the whole site. A page carries only the sidebar's frame
/// (`SidebarView`) and `site.js` fills it from this file, so a page does
/// not grow with the number of boards (about 110 bytes a board on every
/// page before: 66 kB a page for a forum of 600 boards), and a new board
/// rewrites this file instead of every page of the archive.
///
/// A script that calls `BBSBoards(…)`, not JSON, so that it loads through a
/// `<script>` element from `file://` too. The value is plain JSON (tests
/// read it back); board titles and section names come from the forum and
/// are set as text by `site.js`, never parsed as markup.
enum BoardsScript {
    static let prefix = "BBSBoards("

    /// One group of the sidebar: a section (`kind` `section`, with its page),
    /// or the boards filed nowhere (`all` when the store knows no sections,
    /// `other` beside them), which the sidebar's template names.
    struct Group: Codable, Equatable {
        var name: String
        var kind: String
        var href: String?
        /// Each board as [name, title, site path of its index page].
        var boards: [[String]]
    }

    static func groups(_ navigation: SiteNavigation) -> [Group] {
        // Without the control characters a page leaves out of its text too.
        navigation.groups.map { group in
            Group(
                name: SiteBuilder.displayable(group.name),
                kind: group.code != nil ? "section" : navigation.hasSections ? "other" : "all",
                href: group.code.map(SitePaths.section),
                boards: group.boards.map { board in
                    [
                        board.name, SiteBuilder.displayable(board.title ?? board.name), SitePaths.board(board.name),
                    ]
                })
        }
    }

    static func script(_ navigation: SiteNavigation) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings cannot fail.
        let json = (try? encoder.encode(groups(navigation))) ?? Data("[]".utf8)
        return Data(prefix.utf8) + json + Data(");\n".utf8)
    }

    /// The groups a script holds, or `nil` when it is not one.
    static func parse(_ data: Data) -> [Group]? {
        let suffix = Data(");\n".utf8)
        guard data.starts(with: Data(prefix.utf8)), data.count >= prefix.utf8.count + suffix.count,
            data.suffix(suffix.count) == suffix
        else { return nil }
        return try? JSONDecoder().decode(
            [Group].self, from: data.dropFirst(prefix.utf8.count).dropLast(suffix.count))
    }
}

import Foundation

/// A page as it came off the wire, ready to parse.
package struct FetchedPage: Sendable {
    /// The URL the page was fetched from (after redirects), used to resolve links.
    package var url: String
    package var body: Data
    /// The `Content-Type` header, which may name the charset.
    package var contentType: String?
    /// When the page was fetched: `HH:MM:SS` times on it mean "that day".
    package var fetchedAt: Date

    package init(url: String, body: Data, contentType: String?, fetchedAt: Date) {
        self.url = url
        self.body = body
        self.contentType = contentType
        self.fetchedAt = fetchedAt
    }
}

extension FetchedPage {
    /// The page parsed as HTML in the encoding its header, declaration or
    /// bytes say; a page that is no HTML at all is `expected`'s error.
    func document(expected: String) throws(ArchiveError) -> HTMLDocument {
        let encoding = TextEncodingDetector.encoding(of: body, contentType: contentType)
        do {
            return try HTMLDocument(data: body, url: url, encoding: encoding)
        } catch {
            throw .notAForumPage(url: url, expected: "\(expected) (it is empty or not HTML)")
        }
    }
}

/// A page of a forum, named by forum ids.
package enum PageAddress: Sendable, Equatable {
    case board(String, page: Int)
    case thread(String, gid: Int, page: Int)
}

/// One forum front end: where its pages are and how to read them.
///
/// This is the seam a new forum plugs into: the fetch pipeline and the
/// store only see `BoardPage` and `ThreadPage` models, and everything that
/// knows one forum (its addresses, markup, error words, thumbnail sizes)
/// lives in that forum's folder under `Forums/` (`Forums/SMTH/`). A second
/// forum is one new folder under `Forums/` with its `ForumSource`, plus one
/// line in `ForumSources.make`. Keep it that way: the store keeps each
/// thread's original address at save time, so the build half never makes a
/// `ForumSource`, and the words the site shows (its title, the deleted-author
/// label, the lookup example) reach the build as a `SiteWording` chosen by
/// the pipeline from the stored boards' source.
package protocol ForumSource: Sendable {
    /// The `--source` name, e.g. `smth-mobile`.
    var id: String { get }
    /// The base URL of the forum, without a trailing slash.
    var baseURL: String { get }
    func boardURL(board: String, page: Int) -> String
    func threadURL(board: String, gid: Int, page: Int) -> String
    /// The thread's address on the live forum, for "original" links.
    func originalThreadURL(board: String, gid: Int) -> String
    /// Posts on one thread page of the forum, to find the page a post is on.
    var postsPerThreadPage: Int { get }
    /// What a URL of this source addresses, for re-reading stored captures.
    func address(of url: String) -> PageAddress?
    /// Headers every request to this front end carries.
    var requestHeaders: [(name: String, value: String)] { get }
    /// The page listing the forum's sections and their boards, if any.
    var sectionsURL: String? { get }
    /// The forum's hot topics (十大), if any.
    var hotURL: String? { get }
    /// Reads a fetched page as whatever forum page it is.
    func parse(_ page: FetchedPage) throws(ArchiveError) -> ForumPage
    /// Whether an error page's message (`ArchiveError.forumError`) means
    /// the board needs a logged-in reader.
    func isLoginWall(message: String) -> Bool
    /// Smaller copies the forum serves of an attachment whose original is
    /// gone (404 or 410), best first, each with the variant name the store
    /// keeps; none when it serves no such copies.
    func mediaFallbacks(for url: String) -> [(url: String, variant: String)]
    /// Hosts besides the forum's own that serve its attachments and images
    /// (`host` or `host:port`): the only others the fetcher may ask.
    var mediaHosts: [String] { get }
    /// Whether a post's text is only the forum's notice that it was deleted
    /// (or censored), not anything its author wrote.
    func isDeletionNotice(_ body: String) -> Bool
    /// What the URLs of a board's list pages, then of its threads' pages,
    /// contain, so `reparse` finds the board's captures: list pages first.
    func captureMarkers(board: String) -> [String]
    /// What the build needs to know of this forum: the words its archive
    /// shows, its time zone, its posts' conventions, its address forms.
    var profile: ForumProfile { get }
}

extension ForumSource {
    /// The words the built archive of this forum shows.
    package var wording: SiteWording { profile.wording }
    /// The zone the forum prints its times in.
    package var time: ForumTime { profile.time }
}

/// The forum sources bbsarchive knows, by `--source` name.
package enum ForumSources {
    package static let names = ["smth-mobile", "smth-nforum"]
    /// The source used when none is named.
    package static let defaultName = "smth-mobile"

    /// What the site built from a store whose boards came from `sources`
    /// (their `--source` names) needs to know of its forum: the first known
    /// source's profile, else the default source's.
    package static func profile(sources: [String?]) -> ForumProfile {
        for case let name? in sources {
            if let source = try? make(name, baseURL: nil) { return source.profile }
        }
        return (try? make(defaultName, baseURL: nil))?.profile ?? .plain
    }

    /// The words of the site built from a store whose boards came from
    /// `sources`: those of `profile(sources:)`.
    package static func wording(sources: [String?]) -> SiteWording { profile(sources: sources).wording }

    /// The source named `name`, talking to `baseURL` (or its real site).
    package static func make(_ name: String, baseURL: String?) throws(ArchiveError) -> any ForumSource {
        switch name {
        case "smth-mobile":
            return SMTHMobileSource(baseURL: baseURL ?? SMTHMobileSource.defaultBaseURL)
        case "smth-nforum":
            return SMTHNForumSource(baseURL: baseURL ?? SMTHNForumSource.defaultBaseURL)
        default:
            throw .invalidOption(
                "unknown --source \"\(name)\"; choose one of: \(names.joined(separator: ", "))")
        }
    }
}

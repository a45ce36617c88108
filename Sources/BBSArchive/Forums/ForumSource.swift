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
    /// Whether it is, byte for byte, what the last fetch of its URL kept.
    package var repeatsLatestCapture = false

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
        let (encoding, validUTF8) = TextEncodingDetector.decide(body, contentType: contentType)
        do {
            return try HTMLDocument(data: body, url: url, encoding: encoding, validUTF8: validUTF8)
        } catch .tooDeep {
            // Colours nested past the limit (`<font>` tags left open, as UBB
            // [color] tags become) are what reaches it on a forum's page;
            // the readers take no data from them, so the page is read
            // without them. Nesting of anything else refuses the page.
            if let plain = HTMLDocument.withoutFontTags(body),
                let document = try? HTMLDocument(data: plain, url: url, encoding: encoding, validUTF8: validUTF8)
            {
                return document
            }
            throw .implausible(
                url: url, what: "markup nested more than 256 elements deep, past which nothing of it could be read")
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
/// This is the seam a new forum plugs into, and the test of it is this: a
/// second forum is one new folder under `Forums/` (its `ForumSource`, its
/// parser, its `PostConventions`, its `LookupRules`) plus one line in
/// `ForumSources.registry`, with no edit anywhere else, templates included.
/// Everything that knows one forum lives in its folder (`Forums/SMTH/`):
/// its addresses, markup, error words, thumbnail sizes, how its posts are
/// written (quote headers, origin lines, signatures, UBB, emoticons), its
/// time zone, the forms of its addresses and the words its archive shows.
///
/// The fetch pipeline and the store see only `BoardPage` and `ThreadPage`
/// models, and the store keeps each thread's original address and each
/// board's source name at save time, so the build half never makes a
/// `ForumSource`: the pipeline hands it the stored boards' source's
/// `ForumProfile` (`ForumSources.profile(sources:)`).
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
    /// The address of the forum's image for an emoticon code as the text
    /// writes it (`em01`, `ema3`, lowercased, no brackets); nil for a code
    /// the forum has no image for.
    func emoticonURL(_ code: String) -> String?
    /// Whether a post's text is only the forum's notice that it was deleted
    /// (or censored), not anything its author wrote.
    func isDeletionNotice(_ body: String) -> Bool
    /// What the URLs of a board's list pages, then of its threads' pages,
    /// contain, so `reparse` finds the board's captures: list pages first.
    func captureMarkers(board: String) -> [String]
    /// What the build needs to know of this forum: the words its archive
    /// shows, its time zone, its posts' conventions, its address forms.
    var profile: ForumProfile { get }
    /// A few of the forum's boards, for examples in help and `init`'s file.
    var exampleBoards: [String] { get }
}

extension ForumSource {
    /// The words the built archive of this forum shows.
    package var wording: SiteWording { profile.wording }
    /// The zone the forum prints its times in.
    package var time: ForumTime { profile.time }
}

/// The forum sources bbsarchive knows, by `--source` name.
package enum ForumSources {
    /// Every source by name, with how to make it talking to an address (or
    /// its real site, given `nil`): a new forum is one line here.
    private static let registry: [(name: String, make: @Sendable (String?) -> any ForumSource)] = [
        ("smth-mobile", { SMTHMobileSource(baseURL: $0 ?? SMTHMobileSource.defaultBaseURL) }),
        ("smth-nforum", { SMTHNForumSource(baseURL: $0 ?? SMTHNForumSource.defaultBaseURL) }),
    ]

    package static var names: [String] { registry.map(\.name) }

    /// What page an address is, read by whichever front end knows its form.
    package static func address(of url: String) -> PageAddress? {
        for entry in registry {
            if let address = entry.make(nil).address(of: url) { return address }
        }
        return nil
    }
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

    /// The default source's example boards, e.g. `Geography WorkLife`.
    package static var exampleBoards: [String] {
        (try? make(defaultName, baseURL: nil))?.exampleBoards ?? []
    }

    /// Every source with its real site: `smth-mobile (https://m.newsmth.net) or …`.
    package static var described: String {
        let each = names.map { name in
            ((try? make(name, baseURL: nil)).map { "\(name) (\($0.baseURL))" }) ?? name
        }
        return each.dropLast().joined(separator: ", ") + (each.count > 1 ? " or " : "") + (each.last ?? "")
    }

    /// The source named `name`, talking to `baseURL` (or its real site).
    package static func make(_ name: String, baseURL: String?) throws(ArchiveError) -> any ForumSource {
        guard let entry = registry.first(where: { $0.name == name }) else {
            throw .invalidOption("unknown --source \"\(name)\"; choose one of: \(names.joined(separator: ", "))")
        }
        return entry.make(baseURL)
    }
}

/// Every name the project's views answer (`templateValue(named:)`), as
/// one small number: a template's names are looked up here once, when the
/// templates are compiled, so that a view asked for a name switches on an
/// integer instead of comparing the name's bytes with each name it knows,
/// and a view that does not know a name (most of the stack, asked
/// innermost first) says so in one jump. Names no view answers (a user's
/// own templates may have any) are `unknown`: every project view answers
/// them `nil`, and they render empty, as with swift-mustache.
///
/// Add a name here when a view starts answering it.
enum TemplateKey: String, CaseIterable, Sendable {
    /// Not a name any view of the project answers.
    case unknown = ""
    case alternate
    case anchor
    case archiveHref
    case at
    case atISO
    case author
    case authorHref
    case authorPosts
    case authorView
    case backJump
    case base
    case blocks
    case board
    case boardFeed
    case boardHref
    case boardTitle
    case boards
    case body
    case bootScript
    case byThreadAuthor
    case count
    case crumbs
    case current
    case deletedAuthor
    case depth
    case download
    case editedBy
    case emSrc
    case entries
    case example
    case excerpt
    case feed
    case feedHref
    case files
    case first
    case firstPage
    case floor
    case floors
    case forms
    case forum
    case forumDeletedAt
    case forumDeletedISO
    case forwardJump
    case from
    case gid
    case groups
    case hasBoards
    case hasExcerpt
    case hasFiles
    case hasForms
    case hasImages
    case hasMissing
    case hasNeighbours
    case hasSections
    case hasSignature
    case hasSubsections
    case header
    case headerHref
    case height
    case home
    case hot
    case hotHref
    case href
    case icon
    case id
    case image
    case images
    case inlineScript
    case inlineScriptHash
    case ip
    case isAll
    case isArt
    case isCurrent
    case isHome
    case isLastPage
    case isLatest
    case isLong
    case isMono
    case isOpening
    case isOther
    case isQuote
    case isTall
    case isText
    case isToday
    case isWeek
    case items
    case jump
    case key
    case label
    case lastPage
    case lastReplier
    case lastReplyAt
    case lastReplyISO
    case latestHref
    case likes
    case lineCount
    case lines
    case listHref
    case loc
    case lookupHref
    case lookupMap
    case lookupRules
    case lookupScript
    case manifest
    case markdown
    case marked
    case message
    case missing
    case name
    case nested
    case newerHref
    case next
    case nextPage
    case nick
    case number
    case olderHref
    case onlyHref
    case opHref
    case openingDeleted
    case original
    case pageNumber
    case pageTitle
    case pager
    case pages
    case pattern
    case permalink
    case plain
    case postedAt
    case postedISO
    case posts
    case prevPage
    case previous
    case published
    case rank
    case recent
    case replies
    case root
    case rows
    case score
    case scoreClass
    case searchBoard
    case searchScript
    case searchHref
    case section
    case segClass
    case segHref
    case segments
    case selfHref
    case separator
    case shape
    case sidebar
    case signature
    case siteScript
    case siteTitle
    case sitemaps
    case size
    case sizes
    case src
    case srcset
    case stats
    case sticky
    case stylesheet
    case subsections
    case summary
    case text
    case thread
    case threadList
    case threads
    case timeZone
    case title
    case to
    case topics
    case total
    case updated
    case url
    case urls
    case user
    case userHref
    case version
    case width
    case windows

    /// The key of `name` (`unknown` when no view answers it).
    init(_ name: String) {
        self = Self.byName[name] ?? .unknown
    }

    private static let byName: [String: TemplateKey] = Dictionary(
        uniqueKeysWithValues: allCases.lazy.filter { $0 != .unknown }.map { ($0.rawValue, $0) })
}

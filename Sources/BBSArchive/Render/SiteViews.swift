import Mustache

// One `Sendable` value per template and per row a template repeats. Each
// answers the names its template reads through `templateValue(named:)`, a
// switch over the name's key (`TemplateKey`), rather than through reflection: on a 30-row board page that is several
// times faster than `Mirror` (`bbsarchive-bench render-lookup`). A name a view does not
// know answers `nil`, so Mustache looks it up in the enclosing view, as it
// would in nested dictionaries. The words readers see are in the templates.

/// A value a template reads by name.
protocol TemplateView: MustacheParent, Sendable {
    /// The view as a typed view, when it is one (`TypedTemplateView`
    /// answers itself): what the renderer puts at the bottom of its stack.
    var typedBox: TypedViewBox? { get }
}

/// What every page's head, breadcrumbs, sidebar and footer read.
struct PageChrome: Sendable {
    var root: String
    var home: String
    var hotHref: String
    var lookupHref: String
    var feedHref: String
    var searchHref: String
    /// On a board's pages, the board that 本版搜索 narrows a search to.
    var searchBoard: String?
    var stylesheet: String
    var bootScript: String
    var siteScript: String
    var icon: String
    /// The page's own title; pages whose title is a fixed word say it in their template.
    var pageTitle: String
    /// The page number, shown in the title from page 2 on.
    var pageNumber: Int?
    var siteTitle: String
    /// The forum's own words: `{{forum.name}}`, `{{forum.deletedAuthor}}`.
    var forum: ForumWordsView
    var version: String
    var crumbs: [CrumbView]
    /// The rendered sidebar, inserted as is.
    var sidebar: String
    var base: String? = nil
    var boardFeed: String? = nil
    var markdown: String? = nil
    var isHome = false
    /// A script inlined into the page, allowed by its hash in the page's
    /// Content-Security-Policy (only 404.html has one).
    var inlineScript: String? = nil
    /// Its CSP source, `sha256-…`.
    var inlineScriptHash: String? = nil

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .root: .text(root)
        case .home: .text(home)
        case .hotHref: .text(hotHref)
        case .lookupHref: .text(lookupHref)
        case .feedHref: .text(feedHref)
        case .searchHref: .text(searchHref)
        case .searchBoard: searchBoard.map(TemplateValue.text)
        case .stylesheet: .text(stylesheet)
        case .bootScript: .text(bootScript)
        case .siteScript: .text(siteScript)
        case .icon: .text(icon)
        case .pageTitle: .text(pageTitle)
        case .pageNumber: pageNumber.map(TemplateValue.number)
        case .siteTitle: .text(siteTitle)
        case .forum: .typed(forum)
        case .version: .text(version)
        case .crumbs: .typedList(crumbs)
        case .sidebar: .text(sidebar)
        case .base: base.map(TemplateValue.text)
        case .boardFeed: boardFeed.map(TemplateValue.text)
        case .markdown: markdown.map(TemplateValue.text)
        case .isHome: .flag(isHome)
        case .inlineScript: inlineScript.map(TemplateValue.text)
        case .inlineScriptHash: inlineScriptHash.map(TemplateValue.text)
        default: nil
        }
    }
}

struct CrumbView: TypedTemplateView {
    var label: String
    var href: String

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .label: .text(label)
        case .href: .text(href)
        default: nil
        }
    }
}

/// A user id with the link to its page.
struct UserLinkView: TypedTemplateView {
    var id: String
    var href: String

    init(id: String, href: String) {
        self.id = id
        self.href = href
    }

    /// A link to `user`'s page from the page at `path`.
    init(user: String, from path: String) {
        self.init(id: user, href: SitePaths.relative(from: path, to: SitePaths.user(user)))
    }

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .id: .text(id)
        case .href: .text(href)
        default: nil
        }
    }
}

/// A link with nothing but an address (`loc` for sitemaps).
struct LinkView: TypedTemplateView {
    var href: String

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .href, .loc: .text(href)
        default: nil
        }
    }
}

// MARK: Pager

struct PagerView: TypedTemplateView {
    struct Page: TypedTemplateView {
        var number: Int
        var href: String
        var isCurrent: Bool

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .number: .number(number)
            case .href: .text(href)
            case .isCurrent: .flag(isCurrent)
            default: nil
            }
        }
    }

    var current: Int
    var total: Int
    var pages: [Page]
    var firstPage: Page?
    var prevPage: Page?
    var nextPage: Page?
    var lastPage: Page?
    var backJump: Page?
    var forwardJump: Page?
    /// On the latest-activity page, where no page of the list is current.
    var isLatest = false
    /// The form to type a page number (or a floor), on threads and boards.
    var jump: PageJumpView? = nil

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .current: .number(current)
        case .total: .number(total)
        case .pages: .typedList(pages)
        case .firstPage: firstPage.map(TemplateValue.typed)
        case .prevPage: prevPage.map(TemplateValue.typed)
        case .nextPage: nextPage.map(TemplateValue.typed)
        case .lastPage: lastPage.map(TemplateValue.typed)
        case .backJump: backJump.map(TemplateValue.typed)
        case .forwardJump: forwardJump.map(TemplateValue.typed)
        case .isLatest: .flag(isLatest)
        case .jump: jump.map(TemplateValue.typed)
        default: nil
        }
    }
}

// MARK: Navigation

/// A group of boards (a section, or the boards filed nowhere) on the home
/// page or a section page (the sidebar lists them from `BoardsScript`).
struct BoardGroupView: TypedTemplateView {
    struct Board: TypedTemplateView {
        var name: String
        var title: String
        var href: String
        var threads: Int
        var posts: Int
        var from: String?
        var to: String?

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .name: .text(self.name)
            case .title: .text(title)
            case .href: .text(href)
            case .threads: .number(threads)
            case .posts: .number(posts)
            case .from: from.map(TemplateValue.text)
            case .to: to.map(TemplateValue.text)
            default: nil
            }
        }
    }

    /// The section's name; empty for the group of unfiled boards, which
    /// the templates name (`isAll` when there are no sections, else `isOther`).
    var name: String
    var isAll: Bool
    var isOther: Bool
    var href: String?
    var boards: [Board]
    var subsections: [CrumbView] = []

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .name: .text(self.name)
        case .isAll: .flag(isAll)
        case .isOther: .flag(isOther)
        case .href: href.map(TemplateValue.text)
        case .boards: .typedList(boards)
        case .hasBoards: .flag(!boards.isEmpty)
        case .subsections: .typedList(subsections)
        case .hasSubsections: .flag(!subsections.isEmpty)
        default: nil
        }
    }
}

/// The sidebar's frame: its links to the whole site and the board it
/// marks. Its groups of boards come from `boards.js` (`BoardsScript`),
/// which `site.js` lists in it, so no page carries every board.
struct SidebarView: TypedTemplateView {
    var board: String?
    var home: String
    var hotHref: String
    var lookupHref: String

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .board: board.map(TemplateValue.text)
        case .home: .text(home)
        case .hotHref: .text(hotHref)
        case .lookupHref: .text(lookupHref)
        default: nil
        }
    }
}

// MARK: Rows

/// A thread in a board's list.
struct BoardRowView: TypedTemplateView {
    var gid: Int
    var title: String
    var href: String
    var key: String
    var replies: Int
    var sticky: Bool
    var marked: Bool
    var hasFiles: Bool
    var postedAt: String
    var postedISO: String
    var lastReplyAt: String
    var lastReplyISO: String
    var author: UserLinkView?
    var lastReplier: UserLinkView?

    // Inlined into the list that asks it (`TypedTemplateViewList`): called,
    // the view was copied out of its list for every name asked.
    @inline(__always)
    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .gid: .number(gid)
        case .title: .text(title)
        case .href: .text(href)
        case .key: .text(key)
        case .replies: .number(replies)
        case .sticky: .flag(sticky)
        case .marked: .flag(marked)
        case .hasFiles: .flag(hasFiles)
        case .postedAt: .text(postedAt)
        case .postedISO: .text(postedISO)
        case .lastReplyAt: .text(lastReplyAt)
        case .lastReplyISO: .text(lastReplyISO)
        case .author: author.map(TemplateValue.typed)
        case .lastReplier: lastReplier.map(TemplateValue.typed)
        default: nil
        }
    }
}

/// A thread in the short list framed beside every thread.
struct ListRowView: TypedTemplateView {
    var title: String
    var href: String
    var key: String
    /// The row's anchor, the target of the thread pages' frame.
    var anchor: String?
    var author: String?
    var replies: Int
    var sticky: Bool
    var hasFiles: Bool
    var isCurrent: Bool
    var lastReplyAt: String
    var lastReplyISO: String

    // Inlined into the list that asks it (`TypedTemplateViewList`): called,
    // the view was copied out of its list for every name asked.
    @inline(__always)
    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .title: .text(title)
        case .href: .text(href)
        case .key: .text(key)
        case .anchor: anchor.map(TemplateValue.text)
        case .author: author.map(TemplateValue.text)
        case .replies: .number(replies)
        case .sticky: .flag(sticky)
        case .hasFiles: .flag(hasFiles)
        case .isCurrent: .flag(isCurrent)
        case .lastReplyAt: .text(lastReplyAt)
        case .lastReplyISO: .text(lastReplyISO)
        default: nil
        }
    }
}

/// A thread in a list of the whole archive (home, hot topics).
struct DigestRowView: TypedTemplateView {
    struct Image: TypedTemplateView {
        var href: String
        var name: String

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .href: .text(href)
            case .name: .text(self.name)
            default: nil
            }
        }
    }

    var title: String
    var href: String
    var key: String
    var board: String
    var boardTitle: String
    var boardHref: String
    var replies: Int
    var posts: Int
    var sticky: Bool
    var excerpt: String
    var postedAt: String
    var postedISO: String
    var lastReplyAt: String
    var lastReplyISO: String
    var author: UserLinkView?
    var image: Image?
    var rank: Int?

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .title: .text(title)
        case .href: .text(href)
        case .key: .text(key)
        case .board: .text(board)
        case .boardTitle: .text(boardTitle)
        case .boardHref: .text(boardHref)
        case .replies: .number(replies)
        case .posts: .number(posts)
        case .sticky: .flag(sticky)
        case .excerpt: .text(excerpt)
        case .hasExcerpt: .flag(!excerpt.isEmpty)
        case .postedAt: .text(postedAt)
        case .postedISO: .text(postedISO)
        case .lastReplyAt: .text(lastReplyAt)
        case .lastReplyISO: .text(lastReplyISO)
        case .author: author.map(TemplateValue.typed)
        case .image: image.map(TemplateValue.typed)
        case .rank: rank.map(TemplateValue.number)
        default: nil
        }
    }
}

/// A post in a user's list.
struct UserPostRowView: TypedTemplateView {
    var title: String
    var board: String
    var boardHref: String
    var href: String
    var key: String
    var floor: Int
    var postedAt: String
    var postedISO: String

    // Inlined into the list that asks it (`TypedTemplateViewList`): called,
    // the view was copied out of its list for every name asked.
    @inline(__always)
    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .title: .text(title)
        case .board: .text(board)
        case .boardHref: .text(boardHref)
        case .href: .text(href)
        case .key: .text(key)
        case .floor: .number(floor)
        case .isOpening: .flag(floor == 0)
        case .postedAt: .text(postedAt)
        case .postedISO: .text(postedISO)
        default: nil
        }
    }
}

// MARK: Posts

/// One line of post text as segments: text, with its link and CSS classes.
struct LineView: TypedTemplateView {
    struct Segment: TypedTemplateView {
        var text: String
        var segHref: String?
        var segClass: String?
        /// An emoticon's archived image, shown instead of its code.
        var emSrc: String? = nil

        /// Text and nothing else (no link, look or emoticon): most
        /// segments, which the template then prints with one lookup.
        var isPlain: Bool { segHref == nil && segClass == nil && emSrc == nil }

        // Inlined into the list that asks it (`TypedTemplateViewList`): called,
        // the view was copied out of its list for every name asked.
        @inline(__always)
        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .plain: .flag(isPlain)
            case .text: .text(text)
            case .segHref: segHref.map(TemplateValue.text)
            case .segClass: segClass.map(TemplateValue.text)
            case .emSrc: emSrc.map(TemplateValue.text)
            default: nil
            }
        }
    }

    var segments: [Segment]
    var depth = 1

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .segments: .typedList(segments)
        case .depth: .number(depth)
        case .nested: .flag(depth > 1)
        default: nil
        }
    }
}

struct BlockView: TypedTemplateView {
    var isQuote: Bool
    var lines: [LineView]
    /// Long quotes fold away (a `<details>`, so without JavaScript too).
    var isLong = false
    var header: String?
    var author: String?
    /// Text drawn for a terminal: a `<pre>`, so that every space stays,
    /// in text browsers too.
    var isArt = false
    /// The quoted post, when it is in the thread.
    var headerHref: String?

    // Inlined into the list that asks it (`TypedTemplateViewList`): called,
    // the view was copied out of its list for every name asked.
    @inline(__always)
    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .headerHref: headerHref.map(TemplateValue.text)
        case .isText: .flag(!isQuote && !isArt)
        case .isArt: .flag(!isQuote && isArt)
        case .isQuote: .flag(isQuote)
        case .lines: .typedList(lines)
        case .lineCount: .number(lines.count)
        case .isLong: .flag(isLong)
        case .header: header.map(TemplateValue.text)
        case .author: author.map(TemplateValue.text)
        default: nil
        }
    }
}

struct AttachmentView: TypedTemplateView {
    var name: String
    /// The local copy, or the original address of one never fetched (empty
    /// when that address may not be a link).
    var href: String
    var size: String
    /// Who posted it, for the image's alternative text.
    var author: String
    /// An image's thumbnails (`srcset`, widest last) and its size, when known.
    var thumbnails: [(width: Int, href: String)] = []
    var width: Int?
    var height: Int?
    /// A long screenshot: shown as a crop with 展开.
    var isTall = false

    /// The name a click saves the file under: inert as the archive keeps
    /// it (`a.html`, stored as `.bin`, saves as `a.html.bin`), never turned
    /// back into the page or program the forum's name says.
    var download: String {
        href.hasSuffix(".bin") && !name.lowercased().hasSuffix(".bin") ? name + ".bin" : name
    }

    /// An image with its thumbnails; `link` makes a site path relative to the page.
    mutating func show(_ variants: ImageVariants, link: (String) -> String) {
        thumbnails = variants.thumbnails.map { ($0.width, link($0.path)) }
        width = variants.facts.width
        height = variants.facts.height
        isTall = Thumbnailer.isTall(variants.facts)
    }

    // Inlined into the list that asks it (`TypedTemplateViewList`): called,
    // the view was copied out of its list for every name asked.
    @inline(__always)
    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .name: .text(self.name)
        case .href: .text(href)
        // What the page shows: the widest thumbnail (the browser picks from srcset).
        case .src: .text(thumbnails.last?.href ?? href)
        case .srcset:
            thumbnails.isEmpty
                ? nil
                : .text(
                    (thumbnails.map { "\($0.href) \($0.width)w" } + [width.map { "\(href) \($0)w" }].compactMap { $0 })
                        .joined(separator: ", "))
        // The column an image fills: the screen on a phone; a tall one the column.
        case .sizes: .text(isTall ? "(max-width: 720px) 100vw, 640px" : "(max-width: 720px) 100vw, 600px")
        case .width: width.map { .text(String($0)) }
        case .height: height.map { .text(String($0)) }
        case .isTall: .flag(isTall)
        case .url: href.isEmpty ? nil : .text(href)
        case .download: .text(download)
        case .size: .text(size)
        case .author: .text(author)
        default: nil
        }
    }
}

struct LikeView: TypedTemplateView {
    var score: Int
    var user: String
    var message: String
    var userHref: String
    var at: String?
    var atISO: String?

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .score: .text(score > 0 ? "+\(score)" : score < 0 ? "\(score)" : "")
        case .scoreClass: .text(score > 0 ? "up" : score < 0 ? "down" : "none")
        case .user: .text(user)
        case .message: .text(message)
        case .userHref: .text(userHref)
        case .at: at.map(TemplateValue.text)
        case .atISO: atISO.map(TemplateValue.text)
        default: nil
        }
    }
}

struct LikesView: TypedTemplateView {
    var items: [LikeView]

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .count: .number(items.count)
        case .items: .typedList(items)
        default: nil
        }
    }
}

/// What `post-body.mustache` reads: a post's text, signature, attachments and likes.
struct PostBodyView: TypedTemplateView {
    var blocks: [BlockView]
    var signature: [LineView]
    var images: [AttachmentView]
    var files: [AttachmentView]
    var missing: [AttachmentView]
    var likes: LikesView?

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .blocks: .typedList(blocks)
        case .signature: .typedList(signature)
        case .hasSignature: .flag(!signature.isEmpty)
        case .images: .typedList(images)
        case .files: .typedList(files)
        case .missing: .typedList(missing)
        case .hasImages: .flag(!images.isEmpty)
        case .hasFiles: .flag(!files.isEmpty)
        case .hasMissing: .flag(!missing.isEmpty)
        case .likes: likes.map(TemplateValue.typed)
        default: nil
        }
    }
}

struct PostView: TypedTemplateView {
    var floor: Int
    var permalink: String
    var author: String
    var authorHref: String
    var onlyHref: String?
    var authorPosts: Int
    var postedAt: String
    var postedISO: String
    var nick: String?
    var ip: String?
    var editedBy: String?
    /// When the forum was seen to delete the post (its archived text is shown).
    var forumDeletedAt: String? = nil
    var forumDeletedISO: String? = nil
    /// Rendered (and escaped) by `post-body.mustache`, inserted as is.
    var body: RenderedMarkup
    /// The post holds text drawn for a terminal: it starts in monospace.
    var isMono = false
    /// A reply by whoever started the thread.
    var byThreadAuthor = false

    // Inlined into the list that asks it (`TypedTemplateViewList`): called,
    // the view was copied out of its list for every name asked.
    @inline(__always)
    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .isMono: .flag(isMono)
        case .byThreadAuthor: .flag(byThreadAuthor && floor != 0)
        case .floor: .number(floor)
        case .isOpening: .flag(floor == 0)
        case .anchor: .text("a\(floor)")
        case .permalink: .text(permalink)
        case .author: .text(author)
        case .authorHref: .text(authorHref)
        case .onlyHref: onlyHref.map(TemplateValue.text)
        case .authorPosts: .number(authorPosts)
        case .postedAt: .text(postedAt)
        case .postedISO: .text(postedISO)
        case .nick: nick.map(TemplateValue.text)
        case .ip: ip.map(TemplateValue.text)
        case .editedBy: editedBy.map(TemplateValue.text)
        case .forumDeletedAt: forumDeletedAt.map(TemplateValue.text)
        case .forumDeletedISO: forumDeletedISO.map(TemplateValue.text)
        case .body: .markup(body)
        default: nil
        }
    }
}

// MARK: Pages

struct BoardPageView: TypedTemplateView {
    struct Board: TypedTemplateView {
        var name: String
        var title: String
        var threads: Int
        var posts: Int
        var feed: String
        var latestHref: String

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .name: .text(self.name)
            case .title: .text(title)
            case .threads: .number(threads)
            case .posts: .number(posts)
            case .feed: .text(feed)
            case .latestHref: .text(latestHref)
            default: nil
            }
        }
    }

    var chrome: PageChrome
    var board: Board
    /// `index.html`: the latest activity; otherwise a page of the list by start.
    var isLatest: Bool
    var threads: [BoardRowView]
    var pager: PagerView?

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .board: .typed(board)
        case .isLatest: .flag(isLatest)
        case .threads: .typedList(threads)
        case .pager: pager.map(TemplateValue.typed)
        default: chrome.templateValue(named: name)
        }
    }
}

struct ThreadListPageView: TypedTemplateView {
    var chrome: PageChrome
    var boardTitle: String
    var boardHref: String
    var rows: [ListRowView]
    /// The next window of newer threads, and of older ones.
    var newerHref: String?
    var olderHref: String?

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .boardTitle: .text(boardTitle)
        case .boardHref: .text(boardHref)
        case .rows: .typedList(rows)
        case .newerHref: newerHref.map(TemplateValue.text)
        case .olderHref: olderHref.map(TemplateValue.text)
        default: chrome.templateValue(named: name)
        }
    }
}

struct ThreadPageView: TypedTemplateView {
    struct Thread: TypedTemplateView {
        var title: String
        var board: String
        var boardTitle: String
        var posts: Int
        var boardHref: String
        var href: String
        var key: String
        var original: String?
        /// 只看楼主: the opening poster's view, or their only post.
        var opHref: String? = nil

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .title: .text(title)
            case .board: .text(board)
            case .boardTitle: .text(boardTitle)
            case .posts: .number(posts)
            case .boardHref: .text(boardHref)
            case .href: .text(href)
            case .key: .text(key)
            case .original: original.map(TemplateValue.text)
            case .opHref: opHref.map(TemplateValue.text)
            default: nil
            }
        }
    }

    struct ListFrame: TypedTemplateView {
        var listHref: String
        var boardTitle: String

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .listHref: .text(listHref)
            case .boardTitle: .text(boardTitle)
            default: nil
            }
        }
    }

    struct AuthorFilter: TypedTemplateView {
        var author: String
        var count: Int
        var authorHref: String

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .author: .text(author)
            case .count: .number(count)
            case .authorHref: .text(authorHref)
            default: nil
            }
        }
    }

    /// A neighbouring thread of the board, in the order threads were started.
    struct Neighbour: TypedTemplateView {
        var title: String
        var href: String

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .title: .text(title)
            case .href: .text(href)
            default: nil
            }
        }
    }

    var chrome: PageChrome
    var thread: Thread
    var threadList: ListFrame
    var authorView: AuthorFilter?
    var posts: [PostView]
    var pager: PagerView?
    /// The thread started just before this one on its board, and just after.
    var previous: Neighbour?
    var next: Neighbour?
    /// The thread's last page (not an author view): it ends with a way on.
    var isLastPage = false
    /// The thread's first post (楼主's) was deleted before it was archived.
    var openingDeleted = false

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .thread: .typed(thread)
        case .threadList: .typed(threadList)
        case .previous: previous.map(TemplateValue.typed)
        case .next: next.map(TemplateValue.typed)
        case .hasNeighbours: .flag(previous != nil || next != nil)
        case .isLastPage: .flag(isLastPage)
        case .openingDeleted: .flag(openingDeleted)
        case .authorView: authorView.map(TemplateValue.typed)
        case .posts: .typedList(posts)
        case .pager: pager.map(TemplateValue.typed)
        default: chrome.templateValue(named: name)
        }
    }
}

struct HomePageView: TypedTemplateView {
    struct Stats: TypedTemplateView {
        var boards: Int
        var threads: Int
        var posts: Int
        var from: String?
        var to: String?

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .boards: .number(boards)
            case .threads: .number(threads)
            case .posts: .number(posts)
            case .from: from.map(TemplateValue.text)
            case .to: to.map(TemplateValue.text)
            default: nil
            }
        }
    }

    var chrome: PageChrome
    var stats: Stats
    var hot: [DigestRowView]
    var recent: [DigestRowView]
    var groups: [BoardGroupView]
    var hasSections: Bool

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .stats: .typed(stats)
        case .hot: .typedList(hot)
        case .recent: .typedList(recent)
        case .groups: .typedList(groups)
        case .hasSections: .flag(hasSections)
        default: chrome.templateValue(named: name)
        }
    }
}

struct SectionPageView: TypedTemplateView {
    var chrome: PageChrome
    var section: BoardGroupView

    func templateValue(named name: TemplateName) -> TemplateValue? {
        name.key == .section ? .typed(section) : chrome.templateValue(named: name)
    }
}

struct HotPageView: TypedTemplateView {
    /// A window's tab: 今日, 本周 or 全部.
    struct Window: TypedTemplateView {
        var href: String
        var isCurrent: Bool
        var isToday: Bool
        var isWeek: Bool

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .href: .text(href)
            case .isCurrent: .flag(isCurrent)
            case .isToday: .flag(isToday)
            case .isWeek: .flag(isWeek)
            default: nil
            }
        }
    }

    var chrome: PageChrome
    var topics: [DigestRowView]
    var windows: [Window] = []
    var isToday = false
    var isWeek = false
    var isAll = true
    var pager: PagerView? = nil

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .topics: .typedList(topics)
        case .windows: .typedList(windows)
        case .isToday: .flag(isToday)
        case .isWeek: .flag(isWeek)
        case .isAll: .flag(isAll)
        case .pager: pager.map(TemplateValue.typed)
        default: chrome.templateValue(named: name)
        }
    }
}

struct LookupPageView: TypedTemplateView {
    var chrome: PageChrome
    var lookupMap: String
    var lookupRules: String
    var lookupScript: String
    var example: String
    /// The forms of address the page names, joined into one sentence.
    var forms: [Form]

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .lookupMap: .text(lookupMap)
        case .lookupRules: .text(lookupRules)
        case .lookupScript: .text(lookupScript)
        case .example: .text(example)
        case .forms: .typedList(forms)
        case .hasForms: .flag(!forms.isEmpty)
        default: chrome.templateValue(named: name)
        }
    }

    /// One form as 标签（形状）, then what joins it to the next.
    struct Form: TypedTemplateView {
        var label: String
        var shape: String
        /// 、 between forms, 和 before the last one, nothing after it.
        var separator: String

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .label: .text(label)
            case .shape: .text(shape)
            case .separator: .text(separator)
            default: nil
            }
        }

        static func list(_ forms: [LookupRules.Form], strings: SiteStrings) -> [Form] {
            forms.enumerated().map { index, form in
                let separator =
                    index == forms.count - 1 ? "" : index == forms.count - 2 ? strings.listAnd : strings.listComma
                return Form(label: form.label, shape: form.shape, separator: separator)
            }
        }
    }
}

/// The forum's own words, as templates read them (`{{forum.name}}`,
/// `{{forum.deletedAuthor}}`, `{{forum.timeZone}}`), so that no template
/// names a forum.
struct ForumWordsView: TypedTemplateView {
    var forum: ForumProfile
    /// What the site calls the forum's zone (`SiteStrings.zoneName`).
    var timeZone: String

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .name: .text(forum.wording.forumName)
        case .deletedAuthor: .text(forum.wording.deletedAuthor)
        case .siteTitle: .text(forum.wording.siteTitle)
        case .timeZone: .text(timeZone)
        default: nil
        }
    }
}

struct PlainPageView: TypedTemplateView {
    var chrome: PageChrome

    func templateValue(named name: TemplateName) -> TemplateValue? { chrome.templateValue(named: name) }
}

struct UserPageView: TypedTemplateView {
    var chrome: PageChrome
    /// The user's landing page, linked from this one.
    var user: UserLinkView
    /// The landing page (newest posts, the count) or a page of the archive.
    var isLatest: Bool
    var postCount: Int
    /// The archive's first page, from the landing page when there is one.
    var archiveHref: String?
    var posts: [UserPostRowView]
    var pager: PagerView?

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .user:
            .typed(
                UserSummary(
                    id: user.id, posts: postCount, isLatest: isLatest, latestHref: user.href, archiveHref: archiveHref))
        case .posts: .typedList(posts)
        case .pager: pager.map(TemplateValue.typed)
        case .isLatest: .flag(isLatest)
        default: chrome.templateValue(named: name)
        }
    }

    struct UserSummary: TypedTemplateView {
        var id: String
        var posts: Int
        var isLatest: Bool
        var latestHref: String
        var archiveHref: String?

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .id: .text(id)
            case .posts: isLatest ? .number(posts) : nil
            case .isLatest: .flag(isLatest)
            case .latestHref: .text(latestHref)
            case .archiveHref: archiveHref.map(TemplateValue.text)
            default: nil
            }
        }
    }
}

// MARK: Feeds and sitemaps

struct FeedView: TypedTemplateView {
    struct Entry: TypedTemplateView {
        var id: String
        var title: String
        var updated: String
        var published: String
        var author: String?
        var authorHref: String?
        var href: String
        var board: String
        var boardTitle: String
        var summary: String

        func templateValue(named name: TemplateName) -> TemplateValue? {
            switch name.key {
            case .id: .text(id)
            case .title: .text(title)
            case .updated: .text(updated)
            case .published: .text(published)
            case .author: author.map(TemplateValue.text)
            case .authorHref: authorHref.map(TemplateValue.text)
            case .href: .text(href)
            case .board: .text(board)
            case .boardTitle: .text(boardTitle)
            case .summary: .text(summary)
            default: nil
            }
        }
    }

    var id: String
    var title: String
    var updated: String
    var selfHref: String
    var alternate: String
    var siteTitle: String
    var forum: ForumWordsView
    var version: String
    var entries: [Entry]

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .id: .text(id)
        case .title: .text(title)
        case .updated: .text(updated)
        case .selfHref: .text(selfHref)
        case .alternate: .text(alternate)
        case .siteTitle: .text(siteTitle)
        case .forum: .typed(forum)
        case .version: .text(version)
        case .entries: .typedList(entries)
        default: nil
        }
    }
}

struct SitemapView: TypedTemplateView {
    /// `urls` for a sitemap, `sitemaps` for a sitemap index.
    var urls: [LinkView] = []
    var sitemaps: [LinkView] = []

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .urls: .typedList(urls)
        case .sitemaps: .typedList(sitemaps)
        default: nil
        }
    }
}

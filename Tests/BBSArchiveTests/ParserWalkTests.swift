import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// The parsers ask their questions of a page by walking libxml2's tree
/// (`SMTHMobileParser.Walk`, `SMTHNForumParser.Walk`) instead of through
/// XPath. Each walk must give the nodes its XPath expression gives, in the
/// same order: checked on the real captured pages and on the pages the
/// replica serves over HTTP, from the document and from every element of it.
@Suite(.serialized) struct ParserWalkTests {
    /// A parsed page and what it is.
    struct Page {
        var name: String
        var document: HTMLDocument

        init(_ name: String, _ body: Data, url: String, contentType: String) throws {
            self.name = name
            let fetched = FetchedPage(url: url, body: body, contentType: contentType, fetchedAt: Date())
            document = try fetched.document(expected: "a page")
        }

        /// Every element, the root first, in document order.
        var elements: [HTMLNode] { document.elements { _ in true } }
    }

    static func same(_ walked: [HTMLNode], _ selected: [HTMLNode]) -> Bool {
        walked.map(\.pointer) == selected.map(\.pointer)
    }

    static func same(_ walked: HTMLNode?, _ selected: HTMLNode?) -> Bool {
        walked?.pointer == selected?.pointer
    }

    // MARK: Pages

    /// The captured pages, as UTF-8.
    static func fixturePages() throws -> [Page] {
        let type = "text/html; charset=utf-8"
        return [
            try Page(
                "mobile board", try Fixtures.data("mobile/board-Geography-p1.xhtml"),
                url: "https://m.newsmth.net/board/Geography", contentType: type),
            try Page(
                "nForum board", try Fixtures.data("nforum/board-FamilyLife-p2.html"),
                url: "https://www.newsmth.net/nForum/board/FamilyLife?ajax&p=2", contentType: type),
            try Page(
                "nForum post", try Fixtures.data("nforum/post-content.html"),
                url: "https://www.newsmth.net/nForum/article/WorkLife/1?ajax", contentType: type),
            try Page(
                "nForum errors", try Fixtures.data("nforum/error-pages.html"),
                url: "https://www.newsmth.net/nForum/board/Nope?ajax", contentType: type),
        ]
    }

    /// A board's first list page and its first threads (every page of
    /// them), from both front ends of a replica with colours, likes,
    /// attachments, signatures and edits.
    static func replicaPages() async throws -> (mobile: [Page], nforum: [Page]) {
        let served = try await ReplicaNForumTests.Served.start()
        do {
            let pages = try await replicaPages(served)
            await served.stop()
            return pages
        } catch {
            await served.stop()
            throw error
        }
    }

    private static func replicaPages(_ served: ReplicaNForumTests.Served) async throws -> (
        mobile: [Page], nforum: [Page]
    ) {
        var mobile: [Page] = []
        var nforum: [Page] = []
        func get(_ path: String, into pages: inout [Page]) async throws {
            let headers = path.hasPrefix("/nForum/") ? ["X-Requested-With": "XMLHttpRequest"] : [:]
            let fetched = try await served.get(path, headers: headers)
            #expect(fetched.status == 200, "\(path)")
            try pages.append(
                Page(path, fetched.body, url: served.base + path, contentType: fetched.contentType ?? "text/html"))
        }
        let board = try #require(served.forum.boardNames.first)
        try await get("/board/\(board)", into: &mobile)
        try await get("/nForum/board/\(board)?ajax", into: &nforum)
        let gids = Mobile.rows(try #require(Mobile.list(mobile[0].document))).compactMap { row in
            Mobile.cells(row).first.flatMap(Mobile.rowLink)?.attribute("href").flatMap(SMTHMobileParser.articlePath)?.1
        }
        #expect(gids.count >= 8)
        for gid in gids.prefix(8) {
            try await get("/article/\(board)/\(gid)", into: &mobile)
            try await get("/nForum/article/\(board)/\(gid)?ajax", into: &nforum)
        }
        return (mobile, nforum)
    }

    // MARK: Checks

    typealias Mobile = SMTHMobileParser.Walk
    typealias NForum = SMTHNForumParser.Walk

    /// The mobile parser's walks on one page; returns how many comparisons held.
    static func checkMobile(_ page: Page) -> Int {
        let document = page.document
        var checked = 0
        func expectSame(_ held: Bool, _ what: String) {
            #expect(held, "\(page.name): \(what)")
            checked += 1
        }
        let list = "contains(concat(' ', normalize-space(@class), ' '), ' list ')"
        expectSame(same(Mobile.list(document), document.first("//ul[\(list)]")), "list")
        expectSame(same(Mobile.menu(document), document.first("//div[\(XPath.hasClass("menu"))]")), "menu")
        expectSame(
            (Mobile.firstListedArticle(document) != nil)
                == (document.first("//ul[\(list)]/li/div/a[starts-with(@href, '/article/')]") != nil),
            "listed article")
        expectSame(
            same(Mobile.authorFilterLink(document), document.first("//a[contains(@href, '?au=')]")), "?au= link")
        expectSame(
            same(document.elements(where: Mobile.isPager), document.select("//a[\(XPath.hasClass("plant"))]")),
            "pager")
        for element in page.elements {
            func from(_ expression: String) -> [HTMLNode] { document.select(expression, from: element) }
            expectSame(same(Mobile.heading(element), from("li[\(XPath.hasClass("f"))]").first), "heading")
            expectSame(same(Mobile.rows(element), from("li")), "rows")
            expectSame(same(Mobile.cells(element), from("div")), "cells")
            expectSame(
                same(
                    Mobile.rowLink(element),
                    from(".//a[starts-with(@href, '/article/') or contains(@href, '/article/')]").first),
                "row link")
            expectSame(same(Mobile.postItems(element), from("li[div[\(XPath.hasClass("nav"))]]")), "posts")
            expectSame(same(Mobile.postAnchors(element), from("li/a[starts-with(@name, 'a')]")), "anchors")
            expectSame(same(Mobile.nav(element), from("div[\(XPath.hasClass("nav"))]/div").first), "nav")
            expectSame(same(Mobile.plants(element), from(".//*[\(XPath.hasClass("plant"))]")), "plants")
            expectSame(same(Mobile.anchor(element), from("a[starts-with(@name, 'a')]").first), "anchor")
            expectSame(same(Mobile.author(element), from(".//a[contains(@href, '/user/query/')]").first), "author")
            expectSame(same(Mobile.body(element), from("div[\(XPath.hasClass("sp"))]").first), "body")
        }
        return checked
    }

    /// The nForum parser's walks on one page; returns how many comparisons held.
    static func checkNForum(_ page: Page) -> Int {
        let document = page.document
        var checked = 0
        func expectSame(_ held: Bool, _ what: String) {
            #expect(held, "\(page.name): \(what)")
            checked += 1
        }
        func hasClass(_ name: String) -> String { XPath.hasClass(name) }
        expectSame(same(NForum.articles(document), document.select("//table[\(hasClass("article"))]")), "articles")
        expectSame(same(NForum.boardList(document), document.first("//table[\(hasClass("board-list"))]")), "list")
        expectSame(same(NForum.pagePre(document), document.first("//li[\(hasClass("page-pre"))]")), "page-pre")
        expectSame(same(NForum.threadCount(document), document.first("//li[\(hasClass("page-pre"))]/i")), "count")
        expectSame(
            same(NForum.title(document), document.first("//div[\(hasClass("b-head"))]//span[\(hasClass("n-left"))]")),
            "title")
        expectSame(same(NForum.wraps(document), document.select("//div[\(hasClass("a-wrap"))]")), "wraps")
        expectSame(same(NForum.pageSelect(document), document.first("//li[\(hasClass("page-select"))]")), "current")
        expectSame(
            same(NForum.pagerLinks(document), document.select("//ul[\(hasClass("pagination"))]//a[@href]")), "pager")
        let notPaging = "not(ancestor::span[\(hasClass("threads-tab"))])"
        for element in page.elements {
            func from(_ expression: String) -> [HTMLNode] { document.select(expression, from: element) }
            expectSame(same(NForum.firstTitleCell(element), from(".//td[\(hasClass("title_9"))]").first), "title_9")
            expectSame(same(NForum.rows(element), from(".//tbody/tr | ./tr[td]")), "rows")
            expectSame(
                same(
                    NForum.rowLink(element),
                    from(
                        "td[\(hasClass("title_9"))]//a[contains(@href, '/article/') and \(notPaging) and "
                            + "not(contains(@href, '?')) and not(contains(@href, '#'))]"
                    ).first
                        ?? from("td[\(hasClass("title_9"))]//a[contains(@href, '/article/') and \(notPaging)]").first
                        ?? from(
                            "td[\(hasClass("title_9"))]//a[contains(@href, '/article/') and "
                                + "not(contains(@href, '?')) and not(contains(@href, '#'))]"
                        ).first
                        ?? from("td[\(hasClass("title_9"))]//a[contains(@href, '/article/')]").first),
                "row link")
            expectSame(same(NForum.dates(element), from("td[\(hasClass("title_10"))]")), "dates")
            expectSame(same(NForum.people(element), from("td[\(hasClass("title_12"))]")), "people")
            expectSame(same(NForum.counts(element), from("td[\(hasClass("title_11"))]")), "counts")
            expectSame(
                same(NForum.markedIcon(element), from(".//samp[contains(@class, 'ico-pos-article-m')]").first),
                "marked")
            expectSame(same(NForum.attachmentIcon(element), from(".//samp[\(hasClass("tag-att"))]").first), "att")
            expectSame(same(NForum.userName(element), from(".//span[\(hasClass("a-u-name"))]").first), "user")
            expectSame(same(NForum.position(element), from(".//span[\(hasClass("a-pos"))]").first), "position")
            expectSame(same(NForum.anchor(element), from("preceding-sibling::a[@name][1]").first), "anchor")
            expectSame(same(NForum.postLink(element), from(".//a[\(hasClass("a-post"))]").first), "post link")
            expectSame(same(NForum.nick(element), from(".//div[\(hasClass("a-u-uid"))]").first), "nick")
            expectSame(same(NForum.content(element), from(".//td[\(hasClass("a-content"))]").first), "content")
            expectSame(same(NForum.likes(element), from(".//div[\(hasClass("likes"))]//li")), "likes")
            expectSame(same(NForum.likeUser(element), from(".//span[\(hasClass("like_user"))]").first), "like user")
            expectSame(
                same(NForum.likeScore(element), from(".//span[starts-with(@class, 'like_score')]").first), "like score")
            expectSame(same(NForum.likeMessage(element), from(".//span[\(hasClass("like_msg"))]").first), "like msg")
            expectSame(same(NForum.likeTime(element), from(".//span[\(hasClass("like_time"))]").first), "like time")
        }
        return checked
    }

    // MARK: Tests

    @Test func walksMatchXPathOnTheCapturedPages() throws {
        let pages = try Self.fixturePages()
        var checked = 0
        for page in pages {
            checked += Self.checkMobile(page)
            checked += Self.checkNForum(page)
        }
        #expect(checked > 1000)
    }

    @Test func walksMatchXPathOnReplicaPages() async throws {
        let (mobile, nforum) = try await Self.replicaPages()
        #expect(mobile.count >= 9)
        #expect(nforum.count == mobile.count)
        for page in mobile { _ = Self.checkMobile(page) }
        for page in nforum { _ = Self.checkNForum(page) }
        // The pages hold what the walks look for: posts, likes, pagers.
        let posts = mobile.dropFirst().map { Mobile.list($0.document).map(Mobile.postItems)?.count ?? 0 }
        #expect(posts.allSatisfy { $0 > 0 })
        let likes = nforum.flatMap { NForum.articles($0.document) }.compactMap(NForum.content).flatMap(NForum.likes)
        #expect(!likes.isEmpty)
        #expect(nforum.contains { !NForum.pagerLinks($0.document).isEmpty })
    }

    /// A class is a whole word of the attribute, split at any XML space,
    /// as XPath's `contains(concat(' ', normalize-space(@class), ' '), …)`.
    @Test func classesAreWholeWordsAtAnySpace() throws {
        let html = """
            <div class="a-wrap corner"><span class="a-pos\tx">1</span><span class="\na-pos\r\n">2</span>
            <span class="a-posx">3</span><span class="xa-pos">4</span><span>5</span><span class="">6</span></div>
            """
        let page = try Page("classes", Data(html.utf8), url: "http://127.0.0.1/", contentType: "text/html")
        let walked = page.document.elements { $0.hasClass("a-pos") }
        #expect(walked.map(\.text) == ["1", "2"])
        #expect(Self.same(walked, page.document.select("//*[\(XPath.hasClass("a-pos"))]")))
    }
}

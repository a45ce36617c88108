import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The reading experience over a built replica archive: pagers, valid
/// HTML, links, feeds, sitemap, the lookup map, the Markdown tree.
@Suite struct ReadingSiteTests {
    // MARK: Pager

    /// The numbers, jumps and first/last links of the first pager on a page.
    struct PagerSeen: Equatable {
        var numbers: [Int]
        var current: Int?
        var first = false
        var prev = false
        var next = false
        var last = false
        var back: Int?
        var forward: Int?
    }

    static func pager(_ html: String) -> PagerSeen? {
        guard let start = html.range(of: "<nav class=\"pager\""),
            let end = html.range(of: "</nav>", range: start.upperBound..<html.endIndex)
        else { return nil }
        let nav = String(html[start.lowerBound..<end.upperBound])
        func numbers(_ pattern: String) -> [Int] {
            guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
            return regex.matches(in: nav, range: NSRange(nav.startIndex..., in: nav)).compactMap { match in
                Range(match.range(at: 1), in: nav).flatMap { Int(nav[$0]) }
            }
        }
        return PagerSeen(
            numbers: numbers(#"<li>(?:<a href="[^"]*"|<span class="current" aria-current="page")>(\d+)<"#),
            current: numbers(#"aria-current="page">(\d+)<"#).first,
            first: nav.contains("class=\"first\""), prev: nav.contains("rel=\"prev\""),
            next: nav.contains("rel=\"next\""), last: nav.contains("class=\"last\""),
            back: numbers(#"class="jump" href="[^"]*" title="第 (\d+) 页">−10"#).first,
            forward: numbers(#"class="jump" href="[^"]*" title="第 (\d+) 页">\+10"#).first)
    }

    @Test func boardPagerWindowsAtFirstMiddleAndLastPage() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let board = try #require(built.forum.boardNames.first)
        let site = built.published
        let pages = built.forum.board(named: board)?.threads.count ?? 0
        #expect(pages == 40)
        // The list by start is page-1 (oldest) to page-40; index.html is the latest activity.
        let first = try #require(Self.pager(site.text("board/\(board)/page-1.html")))
        #expect(first.numbers == [1, 2, 3, 4, 5])
        #expect(first.current == 1)
        #expect(!first.first && !first.prev && first.next && first.last)
        #expect(first.back == nil && first.forward == 11)

        let middle = try #require(Self.pager(site.text("board/\(board)/page-20.html")))
        #expect(middle.numbers == [18, 19, 20, 21, 22])
        #expect(middle.current == 20)
        #expect(middle.first && middle.prev && middle.next && middle.last)
        #expect(middle.back == 10 && middle.forward == 30)

        let last = try #require(Self.pager(site.text("board/\(board)/page-40.html")))
        #expect(last.numbers == [36, 37, 38, 39, 40])
        #expect(last.current == 40)
        #expect(last.first && last.prev && !last.next && !last.last)
        #expect(last.back == 30 && last.forward == nil)
        #expect(!site.exists("board/\(board)/page-41.html"))

        // Every pager link lands on an existing page of the same board.
        let latest = try #require(Self.pager(site.text("board/\(board)/index.html")))
        #expect(latest.current == nil && latest.numbers == [36, 37, 38, 39, 40])
        for page in ["index.html", "page-1.html", "page-20.html", "page-40.html"] {
            for reference in try site.references(in: "board/\(board)/\(page)") where reference.hasPrefix("page-") {
                #expect(site.exists("board/\(board)/\(reference)"), "\(page) → \(reference)")
            }
        }
    }

    @Test func longThreadsArePaginatedWithEveryPostOnce() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let site = built.published
        let board = try #require(built.forum.boardNames.first)
        let thread = try #require(built.forum.board(named: board)?.threads.max { $0.posts.count < $1.posts.count })
        let perPage = ReadingSiteFixture.postsPerPage
        let total = (thread.posts.count + perPage - 1) / perPage
        #expect(total > 2)
        var floors: [Int] = []
        for number in 1...total {
            let path = SitePaths.thread(board, gid: thread.gid, page: number)
            let html = site.text(path)
            // Posts drawn for a terminal are `class="post mono"`.
            floors += html.components(separatedBy: "<article class=\"post").dropFirst().compactMap {
                $0.components(separatedBy: " id=\"a").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
            }
            let pager = try #require(Self.pager(html), "no pager on \(path)")
            #expect(pager.current == number)
            #expect(pager.numbers == Array(Pager.numbers(current: number, total: total)))
        }
        #expect(floors == thread.posts.map(\.floor))
        #expect(!site.exists(SitePaths.thread(board, gid: thread.gid, page: total + 1)))
    }

    @Test func onlyThisAuthorViewsHoldThatAuthorsPosts() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let site = built.published
        var checked = 0
        for name in built.forum.boardNames {
            for thread in built.forum.board(named: name)?.threads ?? [] {
                let byAuthor = Dictionary(grouping: thread.posts, by: \.author)
                for (author, posts) in byAuthor {
                    let view = SitePaths.authorView(name, gid: thread.gid, author: author)
                    if posts.count < 2 {
                        #expect(!site.exists(view))
                        continue
                    }
                    let pages = (posts.count + ReadingSiteFixture.postsPerPage - 1) / ReadingSiteFixture.postsPerPage
                    var authors: [String] = []
                    for number in 1...pages {
                        let html = site.text(SitePaths.authorView(name, gid: thread.gid, author: author, page: number))
                        authors += html.components(separatedBy: "<article class=\"post").dropFirst().compactMap {
                            $0.components(separatedBy: "data-author=\"").dropFirst().first?.components(
                                separatedBy: "\""
                            ).first
                        }
                    }
                    #expect(authors == Array(repeating: author, count: posts.count), "\(view)")
                    checked += 1
                }
            }
        }
        #expect(checked > 0)
        // And every post links to its author's view, but for an author of
        // one post (a link to the post itself would lead nowhere).
        let board = try #require(built.forum.boardNames.first)
        let thread = try #require(built.forum.board(named: board)?.threads.first { !$0.sticky })
        let html = built.published.text(SitePaths.thread(board, gid: thread.gid))
        let shown = thread.posts.prefix(ReadingSiteFixture.postsPerPage)
        let several = shown.filter { post in thread.posts.filter { $0.author == post.author }.count > 1 }.count
        #expect(html.components(separatedBy: "只看此ID</a>").count - 1 == several)
    }

    // MARK: Validity, links, third parties

    @Test func everyPageIsValidHTML() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        for site in [built.published, built.plain] {
            for page in site.pages() {
                #expect(site.isWellFormed(page), "\(page) is not well-formed XML")
            }
        }
        let java = try #require(ExternalTool.find("java"), "no java on PATH: run `make setup`")
        let jar = try #require(ExternalTool.vnuJar(), "the Nu HTML validator is missing: run `make setup`")
        for site in [built.published, built.plain] {
            let output = try ExternalTool.run(
                java,
                [
                    "-Xss4m", "-jar", jar, "--errors-only", "--no-langdetect", "--format", "json", "--skip-non-html",
                    site.root.path,
                ], timeout: 300)
            #expect(!output.timedOut, "the validator did not finish in 5 minutes")
            let json = try JSONSerialization.jsonObject(with: output.stderr) as? [String: Any]
            let messages = (json?["messages"] as? [[String: Any]]) ?? []
            let described = messages.prefix(8).map {
                "\($0["url"] ?? ""):\($0["lastLine"] ?? "") \($0["message"] ?? "")"
            }
            #expect(messages.isEmpty, "HTML errors: \(described.joined(separator: "\n"))")
            #expect(output.status == 0, "vnu exited \(output.status): \(output.errorText.prefix(500))")
        }
    }

    @Test func everyLinkImageScriptFeedAndSitemapEntryResolves() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        for site in [built.published, built.plain] {
            var broken: [String] = []
            for page in site.pages() {
                for reference in try site.references(in: page) where !SiteInspector.isExternal(reference) {
                    #expect(!reference.hasPrefix("/"), "\(page) links to the absolute \(reference)")
                    if let target = site.resolve(reference, from: page), !site.exists(target) {
                        broken.append("\(page) → \(reference)")
                    }
                }
            }
            #expect(broken.isEmpty, "broken links: \(broken.prefix(8))")
        }

        // With --site-url, feeds and the sitemap use absolute addresses under it.
        let published = built.published
        let base = ReadingSiteFixture.siteURL
        #expect(built.publishedReport.sitemap)
        let sitemap = try XMLDocument(data: Data(published.text(SitePaths.sitemap).utf8))
        let locations = try sitemap.nodes(forXPath: "//*[local-name()='loc']").compactMap(\.stringValue)
        #expect(locations.count > 100)
        #expect(locations.contains(base))
        for location in locations {
            #expect(location.hasPrefix(base), "\(location) is not under --site-url")
            let path = location == base ? "index.html" : String(location.dropFirst(base.count))
            #expect(published.exists(path), "sitemap entry \(location) has no page")
            #expect(!path.contains(".au."), "a filtered thread view is in the sitemap: \(path)")
        }
        for feed in published.files().filter({ $0.hasSuffix(".xml") && $0 != SitePaths.sitemap }) {
            for href in try Self.feedLinks(published.text(feed)) {
                #expect(href.hasPrefix(base), "\(feed) links to \(href)")
                let path = href == base ? "index.html" : String(href.dropFirst(base.count))
                #expect(published.exists(path), "\(feed) → \(href) has no page")
            }
        }

        // Without it: no sitemap, and feed links are relative to the feed.
        let plain = built.plain
        #expect(!built.plainReport.sitemap)
        #expect(!plain.exists(SitePaths.sitemap))
        for feed in plain.files().filter({ $0.hasSuffix(".xml") }) {
            for href in try Self.feedLinks(plain.text(feed)) {
                #expect(!SiteInspector.isExternal(href) && !href.hasPrefix("/"), "\(feed) → \(href)")
                let target = try #require(plain.resolve(href, from: feed))
                #expect(plain.exists(target), "\(feed) → \(href)")
            }
        }
    }

    static func feedLinks(_ xml: String) throws -> [String] {
        let document = try XMLDocument(data: Data(xml.utf8))
        return try document.nodes(forXPath: "//*[local-name()='link']/@href | //*[local-name()='uri']").compactMap(
            \.stringValue)
    }

    @Test func nothingIsLoadedFromAnotherSite() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let site = built.published
        for page in site.pages() {
            let html = site.text(page)
            for pattern in [
                #"<(?:img|script|iframe|source|video|audio)[^>]+src="(?:https?:)?//"#,
                #"<link[^>]+rel="(?:stylesheet|icon|preload|modulepreload)"[^>]+href="(?:https?:)?//"#,
            ] {
                #expect(html.range(of: pattern, options: .regularExpression) == nil, "\(page) loads from afar")
            }
            #expect(!html.contains("<script>"), "\(page) has an inline script")
        }
        for asset in site.files().filter({ $0.hasPrefix("assets/") }) {
            let text = site.text(asset)
            #expect(!text.contains("@import"), "\(asset) imports")
            #expect(text.range(of: #"url\(\s*["']?(?:https?:)?//"#, options: .regularExpression) == nil, "\(asset)")
            if asset == SitePaths.findRootScript {
                // 404.html's root finder asks only its own site for the archive's stylesheet.
                #expect(text.contains("fetch(folders[index] + \"assets/style.css\""))
                #expect(!text.contains("XMLHttpRequest"))
                continue
            }
            if asset == SitePaths.searchScript {
                // The search reads rows of its own index files (search/d/), by Range, and nothing else.
                #expect(text.components(separatedBy: "fetch(").count == 2, "\(asset) fetches more than its index")
                #expect(text.contains("fetch(base + path, {"))
                #expect(!text.contains("XMLHttpRequest"))
                continue
            }
            #expect(!text.contains("fetch(") && !text.contains("XMLHttpRequest"), "\(asset) talks to a server")
        }
    }

    // MARK: Feeds

    @Test func feedsAreValidAtom() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let atom = "http://www.w3.org/2005/Atom"
        for site in [built.published, built.plain] {
            let feeds = site.files().filter { $0.hasSuffix(".xml") && !$0.hasPrefix("sitemap") }
            #expect(feeds.contains(SitePaths.feed))
            for name in built.forum.boardNames { #expect(feeds.contains(SitePaths.boardFeed(name))) }
            for feed in feeds {
                let document = try XMLDocument(data: Data(site.text(feed).utf8))
                let root = try #require(document.rootElement())
                #expect(root.localName == "feed" && root.uri == atom, "\(feed) is not an Atom feed")
                func children(_ element: XMLElement, _ name: String) -> [XMLElement] {
                    element.elements(forLocalName: name, uri: atom)
                }
                for required in ["id", "title", "updated", "author", "link"] {
                    #expect(!children(root, required).isEmpty, "\(feed) lacks <\(required)>")
                }
                #expect(
                    children(root, "link").contains { link in
                        link.attributes?.contains { $0.name == "rel" && $0.stringValue == "self" } ?? false
                    }, "\(feed) has no rel=self link")
                let entries = children(root, "entry")
                #expect(!entries.isEmpty, "\(feed) has no entries")
                var ids: Set<String> = []
                for entry in entries {
                    for required in ["id", "title", "updated", "link", "author"] {
                        #expect(!children(entry, required).isEmpty, "an entry of \(feed) lacks <\(required)>")
                    }
                    let id = children(entry, "id").first?.stringValue ?? ""
                    #expect(URL(string: id)?.scheme != nil, "\(feed): entry id \(id) is not an IRI")
                    #expect(ids.insert(id).inserted, "\(feed): id \(id) twice")
                    for time in ["updated", "published"] {
                        for value in children(entry, time).compactMap(\.stringValue) {
                            #expect(Self.isRFC3339(value), "\(feed): \(time) \(value)")
                        }
                    }
                }
                for value in children(root, "updated").compactMap(\.stringValue) {
                    #expect(Self.isRFC3339(value), "\(feed): updated \(value)")
                }
            }
        }
    }

    static func isRFC3339(_ text: String) -> Bool {
        text.range(
            of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"#, options: .regularExpression)
            != nil
            && ForumTime.parseISO8601(text) != nil
    }

    // MARK: Lookup, Markdown

    @Test func lookupMapHoldsEveryArchivedThread() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let site = built.published
        #expect(site.exists(SitePaths.lookup))
        let map = try #require(LookupMap.decode(script: Data(site.text(SitePaths.lookupMap).utf8)))
        #expect(Set(map.keys) == Set(built.forum.boardNames))
        for name in built.forum.boardNames {
            let board = try #require(built.forum.board(named: name))
            let entry = try #require(map[name])
            #expect(entry.title == board.title)
            #expect(entry.threads == board.threads.map(\.gid).sorted())
            #expect(site.exists("board/\(entry.dir)/index.html"))
            for gid in entry.threads { #expect(site.exists("board/\(entry.dir)/\(gid).html")) }
        }
    }

    @Test func markdownTreeBrowsesOnItsOwn() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let site = built.published
        let home = site.text(SitePaths.markdownHome)
        for name in built.forum.boardNames {
            #expect(home.contains("(\(SitePaths.boardMarkdown(name)))"), "index.md does not link \(name)")
            let index = site.text(SitePaths.boardMarkdown(name))
            #expect(index.contains("(../../index.md)"))
            // The index links its pages by start, as the HTML list does;
            // each page links the latest page and the pages either side, and
            // the pages together link every thread.
            var pages: [String] = []
            while site.exists(SitePaths.boardMarkdown(name, page: pages.count + 1)) {
                let number = pages.count + 1
                let page = site.text(SitePaths.boardMarkdown(name, page: number))
                #expect(page.contains("(index.md)") && page.contains("(../../index.md)"), "\(name) page \(number)")
                if number > 1 { #expect(page.contains("(page-\(number - 1).md)"), "\(name) page \(number)") }
                pages.append(page)
            }
            #expect(!pages.isEmpty)
            #expect(index.contains("(page-1.md)") && index.contains("(page-\(pages.count).md)"))
            #expect(pages.dropLast().enumerated().allSatisfy { $1.contains("(page-\($0 + 2).md)") })
            let listed = pages.joined()
            for thread in built.forum.board(named: name)?.threads ?? [] {
                #expect(listed.contains("(\(thread.gid).md)"), "\(name)'s pages do not link \(thread.gid).md")
                #expect(site.exists(SitePaths.threadMarkdown(name, gid: thread.gid)))
                #expect(site.text(SitePaths.threadMarkdown(name, gid: thread.gid)).contains("(index.md)"))
            }
        }
    }

    @Test func homeShowsBoardsHotTopicsAndRecentThreads() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let html = built.published.text(SitePaths.home)
        for name in built.forum.boardNames {
            let board = try #require(built.forum.board(named: name))
            #expect(html.contains(">\(board.title)</a> <span class=\"id\">\(name)</span>"))
        }
        #expect(html.contains("id=\"hot-title\""))
        #expect(html.contains("id=\"recent-title\""))
        #expect(html.contains("id=\"recent-read\" hidden=\"hidden\""))
        // The most replied thread of the archive leads the hot topics.
        let threads = built.forum.boardNames.flatMap { built.forum.board(named: $0)?.threads ?? [] }
        let most = try #require(threads.map(\.posts.count).max())
        let hot = built.published.text(SitePaths.hot)
        let firstCard = try #require(hot.components(separatedBy: "<li class=\"card\"").dropFirst().first)
        let leader = try #require(threads.first { firstCard.contains("/\($0.gid).html\"") })
        #expect(leader.posts.count == most)
        #expect(hot.components(separatedBy: "<li class=\"card\"").count - 1 == min(threads.count, 48))
        #expect(built.published.exists(SitePaths.notFound))
        #expect(built.published.text(SitePaths.notFound).contains("<base href=\"\(ReadingSiteFixture.siteURL)\""))
        #expect(!built.plain.text(SitePaths.notFound).contains("<base"))
    }

    @Test func boardRowsCarryTheirFlags() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let name = try #require(built.forum.boardNames.first)
        let board = try #require(built.forum.board(named: name))
        let html = built.plain.text(SitePaths.board(name))
        let rows = html.components(separatedBy: "<tr").dropFirst(2)
        for (row, thread) in zip(rows, board.threads.prefix(30)) {
            #expect(row.contains("/\(thread.gid).html\"") || row.contains("\"\(thread.gid).html\""))
            #expect(row.contains("sticky-flag") == thread.sticky, "sticky flag of \(thread.gid)")
            let hasFiles = thread.posts.contains { !$0.attachments.isEmpty }
            #expect(row.contains("file-flag") == hasFiles, "attachment flag of \(thread.gid)")
            #expect(row.components(separatedBy: "<time").count - 1 == 2, "first and last time of \(thread.gid)")
        }
    }
}

import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// Issue 11, the rest of the reading pass: hot topics in windows of the
/// archive's own activity, paged; breadcrumbs naming a sub-section's
/// parent; 只看楼主; a form to type a page or a floor; emoticons archived
/// as images once each. In Chromium at 390, 820 and 1440 px, light and dark.
@Suite struct NavigationAidsTests {
    /// The `data-key`s of a hot page's cards, in order.
    static func cardKeys(_ html: String) -> [String] {
        html.components(separatedBy: "<li class=\"card\" data-key=\"").dropFirst().compactMap {
            $0.split(separator: "\"", maxSplits: 1).first.map(String.init)
        }
    }

    /// The `href`s of a page's breadcrumbs, in order.
    static func crumbs(_ html: String) -> [String] {
        guard let start = html.range(of: "<nav class=\"crumbs\""),
            let end = html[start.upperBound...].range(of: "</nav>")
        else { return [] }
        return html[start.upperBound..<end.lowerBound].components(separatedBy: "<a href=\"").dropFirst().compactMap {
            $0.split(separator: "\"", maxSplits: 1).first.map(String.init)
        }
    }

    /// An attribute's value on the first element carrying `marker`.
    static func attribute(_ name: String, after marker: String, in html: String) -> String? {
        guard let start = html.range(of: marker) else { return nil }
        let tag = html[start.lowerBound...].prefix { $0 != ">" }
        guard let value = tag.range(of: " \(name)=\"") else { return nil }
        return tag[value.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
    }

    @Test func hotTopicsComeInWindowsOfTheArchivesOwnActivity() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let store = try ArchiveStore(path: built.storePath)
        let site = built.plain
        struct Entry {
            var key: String
            var thread: StoredThread
            var times: [Date]
        }
        var entries: [Entry] = []
        for board in try store.boards() {
            for thread in try store.threads(board: board.name) {
                let posts = try store.posts(board: board.name, gid: thread.gid)
                entries.append(
                    Entry(
                        key: SitePaths.thread(board.name, gid: thread.gid), thread: thread, times: posts.map(\.postedAt)
                    ))
            }
        }
        let newest = try #require(entries.map(\.thread.lastReplyAt).max())
        let perPage = SiteBuilder.Options().hotTopics
        for (slug, span) in [("today", 86_400.0), ("week", 7 * 86_400.0)] {
            let cut = newest.addingTimeInterval(-span)
            // Ranked by the posts of the window, then all posts, latest reply, newest thread.
            let expected = entries.compactMap { entry -> (Int, Entry)? in
                let recent = entry.times.filter { $0 >= cut }.count
                return recent > 0 && entry.thread.lastReplyAt >= cut ? (recent, entry) : nil
            }.sorted { a, b in
                if a.0 != b.0 { return a.0 > b.0 }
                if a.1.times.count != b.1.times.count { return a.1.times.count > b.1.times.count }
                if a.1.thread.lastReplyAt != b.1.thread.lastReplyAt {
                    return a.1.thread.lastReplyAt > b.1.thread.lastReplyAt
                }
                if a.1.thread.gid != b.1.thread.gid { return a.1.thread.gid > b.1.thread.gid }
                return a.1.thread.board < b.1.thread.board
            }.map(\.1.key)
            try #require(!expected.isEmpty, "no thread in the \(slug) window")
            let html = site.text("hot-\(slug).html")
            #expect(Self.cardKeys(html) == Array(expected.prefix(perPage)), "hot-\(slug).html")
            // The window's tab is the current one.
            #expect(html.contains("<span class=\"current\" aria-current=\"page\">\(slug == "today" ? "今日" : "本周")"))
        }
        #expect(
            site.text("hot-today.html").contains("<a href=\"hot-week.html\">本周</a>")
                && site.text("hot-week.html").contains("<a href=\"hot.html\">全部</a>"))

        // 全部, paged: 80 threads make two pages of 48, ranks running on.
        let all = try store.topThreads(.mostPosts, limit: 3 * perPage).map { SitePaths.thread($0.board, gid: $0.gid) }
        try #require(all.count > perPage)
        #expect(Self.cardKeys(site.text(SitePaths.hot)) == Array(all.prefix(perPage)))
        #expect(Self.cardKeys(site.text("hot-2.html")) == Array(all.dropFirst(perPage).prefix(perPage)))
        #expect(site.text(SitePaths.hot).contains("<a class=\"next\" href=\"hot-2.html\" rel=\"next\">"))
        #expect(site.text("hot-2.html").contains("<span class=\"rank\">#\(perPage + 1)</span>"))
        #expect(!site.exists("hot-3.html"))
        // The same store gives the same pages, whenever and however it is built.
        #expect(Self.cardKeys(site.text("hot-today.html")) == Self.cardKeys(built.published.text("hot-today.html")))
    }

    @Test func subSectionCrumbsNameTheParentSection() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let nested = try #require(built.forum.sections.first { $0.parent != nil })
        let parent = try #require(nested.parent)
        let site = built.plain
        #expect(
            Self.crumbs(site.text(SitePaths.section(nested.code)))
                == ["../index.html", "\(parent).html", "\(nested.code).html"])
        let board = try #require(nested.boardNames.first)
        let sectionCrumbs = ["../../section/\(parent).html", "../../section/\(nested.code).html"]
        #expect(
            Self.crumbs(site.text(SitePaths.board(board))) == ["../../index.html"] + sectionCrumbs + ["index.html"])
        let thread = try #require(built.forum.board(named: board)?.threads.first)
        #expect(
            Self.crumbs(site.text(SitePaths.thread(board, gid: thread.gid)))
                == ["../../index.html"] + sectionCrumbs + ["index.html", "\(thread.gid).html"])
        // A board of a top-level section names that section only.
        let top = try #require(built.forum.sections.first { $0.parent == nil && !$0.boardNames.isEmpty })
        let topBoard = try #require(top.boardNames.first)
        #expect(
            Self.crumbs(site.text(SitePaths.board(topBoard)))
                == ["../../index.html", "../../section/\(top.code).html", "index.html"])
    }

    @Test func onlyTheOpeningPosterAndTheJumpForm() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let store = try ArchiveStore(path: built.storePath)
        let site = built.plain
        let board = try #require(built.forum.boardNames.first)
        var sawView = false
        var sawSingle = false
        var sawPaged = false
        for thread in try store.threads(board: board) {
            let posts = try store.posts(board: board, gid: thread.gid)
            let path = SitePaths.thread(board, gid: thread.gid)
            let html = site.text(path)
            let op = thread.author ?? posts.first { $0.floor == 0 }?.author
            let byOP = posts.indices.filter { posts[$0].author == op }
            let href = Self.attribute("href", after: "<a class=\"only-op\"", in: html)
            if op == nil || byOP.isEmpty {
                #expect(href == nil, "\(path)")
            } else if byOP.count > 1 {
                sawView = true
                let view = SitePaths.authorView(board, gid: thread.gid, author: op ?? "")
                #expect(href == String(view.split(separator: "/").last ?? ""), "\(path)")
                // Not on the view itself.
                #expect(site.exists(view) && !site.text(view).contains("class=\"only-op\""))
            } else {
                sawSingle = true
                let first = byOP[0]
                let page = SitePaths.thread(board, gid: thread.gid, page: first / 20 + 1)
                #expect(href == "\(page.split(separator: "/").last ?? "")#a\(posts[first].floor)", "\(path)")
            }
            // The jump form on paged threads: where each page starts, hidden until site.js shows it.
            let pages = (posts.count + 19) / 20
            if pages > 1 {
                sawPaged = true
                let floors = stride(from: 0, to: posts.count, by: 20).map { String(posts[$0].floor) }
                #expect(
                    Self.attribute("data-floors", after: "<form class=\"jump\"", in: html)
                        == floors.joined(separator: ","))
                #expect(
                    Self.attribute("data-pattern", after: "<form class=\"jump\"", in: html) == "\(thread.gid)-{n}.html")
                #expect(Self.attribute("data-first", after: "<form class=\"jump\"", in: html) == "\(thread.gid).html")
                #expect(Self.attribute("data-pages", after: "<form class=\"jump\"", in: html) == String(pages))
                #expect(Self.attribute("hidden", after: "<form class=\"jump\"", in: html) == "hidden")
            } else {
                #expect(!html.contains("<form class=\"jump\""), "\(path)")
            }
        }
        #expect(sawView && sawPaged, "no thread shows 只看楼主 as a view, or none has two pages")
        _ = sawSingle
        // Boards: pages by number, page 1 being page-1.html.
        let boardHTML = built.published.text(SitePaths.board(board))
        #expect(Self.attribute("data-pattern", after: "<form class=\"jump\"", in: boardHTML) == "page-{n}.html")
        #expect(Self.attribute("data-first", after: "<form class=\"jump\"", in: boardHTML) == nil)
        let boardPages = try store.threads(board: board).count
        #expect(Self.attribute("data-pages", after: "<form class=\"jump\"", in: boardHTML) == String(boardPages))
    }

    @Test func emoticonCodesAndTheirImages() throws {
        #expect(
            InlineText.emoticonCodes(
                in: "哈哈[em01][EMA12]\n[emz3] [em1234] [em] [b]x[/b]", conventions: Fixtures.smthForum.conventions) == [
                    "em01", "ema12", "emz3",
                ])
        let source = SMTHMobileSource(baseURL: "https://m.newsmth.net")
        #expect(source.emoticonURL("em01") == "https://m.newsmth.net/img/ubb/em/1.gif")
        #expect(source.emoticonURL("ema12") == "https://m.newsmth.net/img/ubb/ema/12.gif")
        #expect(source.emoticonURL("emz3") == nil)
        // Without an archived image the code stays text; with one, it is the image.
        let plain = SiteBuilder.segments("a[em01]", conventions: Fixtures.smthForum.conventions)
        #expect(plain.map(\.text) == ["a", "[em01]"] && plain.allSatisfy { $0.emSrc == nil })
        let shown = SiteBuilder.segments(
            "a[em01]", conventions: Fixtures.smthForum.conventions, emoticons: ["em01": "media/ab/abc.gif"],
            from: "board/B/1.html")
        #expect(shown.last?.emSrc == "../../media/ab/abc.gif" && shown.last?.text == "[em01]")
    }

    @Test func emoticonsAreArchivedOnceAndShownAsImages() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let store = try ArchiveStore(path: built.storePath)
        let site = built.plain
        // The codes the replica's posts use, read here from its text.
        var used: Set<String> = []
        let pattern = /\[(em[a-d]?\d{1,3})\]/.ignoresCase()
        for board in built.forum.boardNames {
            for thread in built.forum.board(named: board)?.threads ?? [] {
                for post in thread.posts {
                    for line in post.lines + post.signature {
                        for match in line.matches(of: pattern) { used.insert(String(match.1).lowercased()) }
                    }
                }
            }
        }
        try #require(!used.isEmpty, "the replica's posts use no emoticon")
        let images = try store.emoticonImages()
        #expect(Set(images.map(\.code)) == used)
        #expect(try store.missingEmoticons().isEmpty)
        // One file per image, however many posts show it.
        for image in images {
            #expect(site.exists(SitePaths.media(hash: image.hash, extension: "gif")), "\(image.code)")
        }
        // Shown as the image, with the code as its text alternative.
        let board = try #require(built.forum.boardNames.first)
        let thread = try #require(
            built.forum.board(named: board)?.threads.first { thread in
                thread.posts.prefix(20).contains { $0.lines.contains { $0.contains("[em01]") } }
            }, "no post with [em01] on a first page")
        let path = SitePaths.thread(board, gid: thread.gid)
        let html = site.text(path)
        let src = try #require(Self.attribute("src", after: "<img class=\"em\"", in: html))
        #expect(site.resolve(src, from: path).map(site.exists) == true, "\(src)")
        #expect(html.contains("alt=\"[em01]\""))
        #expect(!html.contains(">[em01]<"), "the code is still shown as text")
    }

    /// An emoticon the forum has no image for is noted once, not a failure,
    /// and not asked for again; the others are fetched once.
    @Test func anEmoticonTheForumDoesNotHaveStaysText() async throws {
        let forum = ReplicaForum(
            config: ReplicaConfig(seed: 5, sections: 1, boardsPerSection: 1, threadsPerBoard: 2, maxPostsPerThread: 3))
        let server = ReplicaServer(forum: forum)
        let base = try await server.start()
        defer { Task { await server.stop() } }
        let folder = try Fixtures.temporaryFolder("emoticons")
        let storePath = folder.appendingPathComponent("archive.sqlite").path
        let store = try ArchiveStore(path: storePath)
        let root = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        try store.noteEmoticons([("em199", root + "/img/ubb/em/199.gif"), ("em999", root + "/img/ubb/em/999.gif")])
        let fetch = FetchAction(
            boards: forum.boardNames, source: SMTHMobileSource(baseURL: root), storePath: storePath, rate: 0)
        let report = try await fetch.run { _ in }
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(try store.missingEmoticons().isEmpty)
        let codes = try store.emoticonImages().map(\.code)
        #expect(codes.contains("em199") && !codes.contains("em999"))
        #expect(try store.failures().isEmpty)
    }

    /// In Chromium at every width, light and dark: the emoticon shows as a
    /// loaded image, the jump form (shown by site.js) and 只看楼主 fit the
    /// screen, hot topics' windows mark the current one, a sub-section's
    /// crumbs show, and the reading settings stay on screen at ×1.6 with the
    /// theme button showing its state (820 px dark included). Over HTTP,
    /// typing a floor or a page in the form goes there.
    @Test func navigationAidsAtEveryWidthInBothThemes() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let store = try ArchiveStore(path: built.storePath)
        let site = built.plain
        let board = try #require(built.forum.boardNames.first)
        var paged: (gid: Int, floor: Int)?
        var emoticonPage: String?
        for thread in try store.threads(board: board) {
            let posts = try store.posts(board: board, gid: thread.gid)
            if paged == nil, posts.count > 20 { paged = (thread.gid, posts[20].floor) }
            if emoticonPage == nil, posts.prefix(20).contains(where: { $0.body.contains("[em01]") }) {
                emoticonPage = SitePaths.thread(board, gid: thread.gid)
            }
        }
        let long = try #require(paged, "no thread of two pages")
        let emPage = try #require(emoticonPage)
        let longPage = SitePaths.thread(board, gid: long.gid)
        let nested = try #require(built.forum.sections.first { $0.parent != nil })

        let threadProbe = """
            (() => {
              const em = document.querySelector('img.em');
              const form = document.querySelector('form.jump');
              const op = document.querySelector('a.only-op');
              const box = e => e ? e.getBoundingClientRect() : null;
              const inside = b => !!b && b.width > 0 && b.left >= 0 && b.right <= innerWidth + 0.5;
              return JSON.stringify({
                em: em ? em.complete && em.naturalWidth > 0 && box(em).height > 0 : null,
                form: form ? !form.hidden && getComputedStyle(form).display !== 'none' && inside(box(form)) : null,
                op: op ? inside(box(op)) : null,
                overflow: document.documentElement.scrollWidth - innerWidth});
            })()
            """
        let hotProbe = """
            (() => {
              const current = document.querySelector('.hot-windows [aria-current]');
              const other = document.querySelector('.hot-windows a');
              return JSON.stringify({current: current ? current.textContent : '',
                marked: !!current && !!other && getComputedStyle(current).backgroundColor
                  !== getComputedStyle(other).backgroundColor,
                cards: document.querySelectorAll('li.card').length,
                overflow: document.documentElement.scrollWidth - innerWidth});
            })()
            """
        let sectionProbe = """
            JSON.stringify([...document.querySelectorAll('nav.crumbs a')].filter(a => a.getBoundingClientRect().width > 0)
              .map(a => a.getAttribute('href')))
            """
        // The settings at ×1.6 stay on screen; the theme button shows its state and switches.
        let settingsProbe = """
            (() => {
              document.documentElement.style.setProperty('--font-scale', '1.6');
              const details = document.querySelector('details.settings');
              details.open = true;
              const box = details.querySelector('.settings-panel').getBoundingClientRect();
              const toggle = document.querySelector('[data-theme-toggle]');
              const before = toggle.getAttribute('aria-pressed');
              const offColour = getComputedStyle(toggle).backgroundColor;
              const page = getComputedStyle(document.body).backgroundColor;
              toggle.click();
              const result = JSON.stringify({inside: box.left >= 0 && box.right <= innerWidth, before,
                after: toggle.getAttribute('aria-pressed'), button: offColour !== getComputedStyle(toggle).backgroundColor,
                page: page !== getComputedStyle(document.body).backgroundColor});
              try { localStorage.clear(); } catch (e) {}
              return result;
            })()
            """
        let report = try BrowserTests.check(
            site: site, pages: [],
            probes: [
                (emPage, threadProbe), (longPage, threadProbe), ("hot-today.html", hotProbe),
                (SitePaths.section(nested.code), sectionProbe), (SitePaths.home, settingsProbe),
            ], everywhere: true)
        #expect(report.fatal == nil)
        try #require(report.probes.count == 5 * 6, "\(report.probes.count) probes")
        for probe in report.probes {
            let place = "\(probe.page) at \(probe.width ?? 0) px \(probe.scheme ?? "")"
            #expect(probe.error == nil && probe.problems.isEmpty, "\(place): \(probe.error ?? "") \(probe.problems)")
            let data = Data((probe.value ?? "").utf8)
            switch probe.page {
            case emPage, longPage:
                struct Thread: Decodable {
                    var em: Bool?
                    var form: Bool?
                    var op: Bool?
                    var overflow: Int
                }
                let state = try JSONDecoder().decode(Thread.self, from: data)
                if probe.page == emPage { #expect(state.em == true, "\(place): the emoticon image") }
                if probe.page == longPage { #expect(state.form == true, "\(place): the jump form") }
                #expect(state.op != false, "\(place): 只看楼主 off screen")
                #expect(state.overflow <= 0, "\(place): scrolls sideways")
            case "hot-today.html":
                struct Hot: Decodable {
                    var current: String
                    var marked: Bool
                    var cards: Int
                    var overflow: Int
                }
                let state = try JSONDecoder().decode(Hot.self, from: data)
                #expect(state.current == "今日" && state.marked && state.cards > 0, "\(place): \(state)")
                #expect(state.overflow <= 0, "\(place): scrolls sideways")
            case SitePaths.home:
                struct Settings: Decodable {
                    var inside: Bool
                    var before: String
                    var after: String
                    var button: Bool
                    var page: Bool
                }
                let state = try JSONDecoder().decode(Settings.self, from: data)
                let dark = probe.scheme == "dark"
                #expect(state.inside, "\(place): the settings panel runs off the screen")
                #expect(
                    state.before == (dark ? "true" : "false") && state.after == (dark ? "false" : "true"), "\(place)")
                #expect(state.button && state.page, "\(place): the theme switch shows no change: \(state)")
            default:
                let hrefs = try JSONDecoder().decode([String].self, from: data)
                let parent = nested.parent ?? ""
                #expect(hrefs.contains("\(parent).html") && hrefs.contains("\(nested.code).html"), "\(place): \(hrefs)")
            }
        }

        // An iPad in landscape gets three columns: boards, the board's threads (loaded), the thread.
        let columns = """
            JSON.stringify(['.sidebar', '.threadlist', 'main'].map(s => {
              const box = document.querySelector(s).getBoundingClientRect();
              return [Math.round(box.left), Math.round(box.width)]; }))
            """
        let tablet = try BrowserTests.check(
            site: site, pages: [longPage], probes: [(longPage, columns)], widths: [1180])
        #expect(tablet.fatal == nil)
        for load in tablet.loads {
            #expect(load.visible?.contains("threadlist") == true, "1180 px \(load.scheme ?? ""): \(load.visible ?? [])")
            #expect((load.frame ?? "").hasPrefix("list-"), "1180 px: the list is not loaded")
            #expect((load.overflow ?? 1) <= 0, "1180 px: scrolls sideways")
        }
        let boxes = try JSONDecoder().decode([[Int]].self, from: Data((tablet.probes.first?.value ?? "[]").utf8))
        try #require(boxes.count == 3)
        #expect(boxes[0][0] < boxes[1][0] && boxes[1][0] < boxes[2][0], "side by side: \(boxes)")
        #expect(boxes.allSatisfy { $0[1] > 0 } && boxes[2][1] >= 560, "the thread's column: \(boxes)")

        // Typing a floor goes to its page and post; typing a page number to that page.
        let server = SiteServer(root: site.root)
        let base = try await server.start()
        defer { Task { await server.stop() } }
        let name = "\(long.gid).html"
        let jump = """
            (async () => {
              const frame = document.createElement('iframe');
              frame.style.width = '800px'; frame.style.height = '600px';
              const loaded = () => new Promise(r => {
                frame.addEventListener('load', r, {once: true});
                setTimeout(r, 5000);
              });
              let next = loaded();
              frame.src = '\(name)';
              document.body.appendChild(frame);
              await next;
              let form = frame.contentDocument.querySelector('form.jump');
              form.elements.floor.value = '\(long.floor)';
              next = loaded();
              form.requestSubmit();
              await next;
              const floor = frame.contentWindow.location.href;
              const target = frame.contentDocument.querySelector(':target');
              form = frame.contentDocument.querySelector('form.jump');
              form.elements.page.value = '1';
              next = loaded();
              form.requestSubmit();
              await next;
              return JSON.stringify([floor, target ? target.id : '', frame.contentWindow.location.href]);
            })()
            """
        let served = try BrowserTests.check(
            site: site, pages: [], probes: [(longPage, jump)], widths: [1440], base: base)
        try #require(served.probes.count == 1)
        let folder = base + "board/\(board)/"
        #expect(
            served.probes[0].value
                == "[\"\(folder)\(long.gid)-2.html#a\(long.floor)\",\"a\(long.floor)\",\"\(folder)\(name)\"]",
            "\(served.probes[0].value ?? served.probes[0].error ?? "")")
    }
}

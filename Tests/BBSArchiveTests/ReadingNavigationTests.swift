import FlyingFox
import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// Issue 11: no dead ends (上一主题 / 下一主题 in the board's order of
/// starting, the end of a thread, the framed list window around the thread),
/// text drawn for a terminal in a monospace block whose columns line up, and
/// a 404 page that works at any depth.
@Suite struct ReadingNavigationTests {
    /// An address whose path names another host (`http://archive//other.host/a/x`)
    /// is a missing page of the archive: 404.html's root finder looks only
    /// at folders of its own host. It asked the other host for the style
    /// sheet, and took its CSS and every link there (QA 7).
    @Test func theRootFinderNeverAsksAnotherHost() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        final class Asked: @unchecked Sendable {
            let lock = NSLock()
            var paths: [String] = []
        }
        let asked = Asked()
        let other = HTTPServer(address: try .inet(ip4: "127.0.0.2", port: 0), logger: .disabled)
        await other.appendRoute("GET *") { request in
            asked.lock.withLock { asked.paths.append(request.path) }
            var headers = HTTPHeaders()
            headers[HTTPHeader("Access-Control-Allow-Origin")] = "*"
            headers[.contentType] = "text/css"
            return HTTPResponse(statusCode: .ok, headers: headers, body: Data("html { color: red }".utf8))
        }
        let task = Task { try await other.run() }
        try await other.waitUntilListening()
        guard case .ip4(_, let port) = await other.listeningAddress else { throw ArchiveError.invalidOption("no port") }
        let server = SiteServer(root: built.plain.root)
        let base = try await server.start()
        let probe = """
            (async () => {
              await new Promise(r => setTimeout(r, 1500));
              return JSON.stringify({root: document.documentElement.getAttribute('data-root'),
                sheets: [...document.styleSheets].map(s => s.href)});
            })()
            """
        let report = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try BrowserTests.check(
                            site: built.plain, pages: [], probes: [("/127.0.0.2:\(port)/a/deeper/x", probe)],
                            widths: [390], base: base)
                    })
            }
        }
        await server.stop()
        await other.stop()
        task.cancel()
        #expect(report.fatal == nil, "\(report.fatal ?? "")")
        let value = try #require(report.probes.first?.value)
        #expect(!value.contains("127.0.0.2"), "\(value)")
        #expect(asked.lock.withLock { asked.paths }.isEmpty, "the other host was asked: \(asked.paths)")
    }

    /// The `href` of the first `<a class="NAME" …>` of a page.
    static func link(_ html: String, class name: String) -> String? {
        guard let start = html.range(of: "<a class=\"\(name)\" href=\"") else { return nil }
        let rest = html[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    @Test func previousAndNextFollowTheBoardsOrderOfStarting() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let store = try ArchiveStore(path: built.storePath)
        let site = built.plain
        let board = try #require(built.forum.boardNames.first)
        let byStart = try store.threads(board: board).sorted { ($0.postedAt, $0.gid) < ($1.postedAt, $1.gid) }
        try #require(byStart.count >= 3)
        for (index, thread) in byStart.enumerated() {
            let path = SitePaths.thread(board, gid: thread.gid)
            let html = site.text(path)
            let previous = Self.link(html, class: "prev-thread")
            let next = Self.link(html, class: "next-thread")
            #expect(previous == (index > 0 ? "\(byStart[index - 1].gid).html" : nil), "\(path): previous")
            #expect(next == (index + 1 < byStart.count ? "\(byStart[index + 1].gid).html" : nil), "\(path): next")
            // Top and bottom of the page.
            #expect(html.components(separatedBy: "class=\"thread-nav\"").count == 3, "\(path)")
            // The ends of the board say so instead of linking.
            #expect(html.contains("本版最早的主题") == (index == 0), "\(path)")
            #expect(html.contains("本版最新的主题") == (index == byStart.count - 1), "\(path)")
            // The framed list is the window of threads by start that holds it, its row the target.
            let window = index / 30 + 1
            #expect(html.contains("data-src=\"list-\(window).html#t\(thread.gid)\""), "\(path): frame")
            #expect(site.text(SitePaths.boardList(board, page: window)).contains("id=\"t\(thread.gid)\""))
        }
        // The end of a thread: back to the board, onward, the Markdown copy; on its last page only.
        let long = try #require(built.forum.board(named: board)?.threads.max { $0.posts.count < $1.posts.count })
        let pages = (long.posts.count + 19) / 20
        try #require(pages >= 2, "no thread of two pages")
        #expect(!site.text(SitePaths.thread(board, gid: long.gid)).contains("class=\"thread-end\""))
        let last = site.text(SitePaths.thread(board, gid: long.gid, page: pages))
        #expect(last.contains("class=\"thread-end\""))
        #expect(last.contains("<li><a href=\"index.html\">返回 "))
        #expect(last.contains("href=\"\(long.gid).md\">本主题的 Markdown 副本"))
    }

    /// The posts drawn for a terminal, as the reading site's replica has them.
    static func drawnPost(_ forum: ReplicaForum, board: String) -> (thread: ReplicaThread, floor: Int)? {
        for thread in forum.board(named: board)?.threads ?? [] {
            if let post = thread.posts.first(where: { $0.lines.contains("│品名    │数量│") }) {
                return (thread, post.floor)
            }
        }
        return nil
    }

    @Test func drawnTextIsAPreformattedMonospaceBlock() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let board = try #require(built.forum.boardNames.first)
        let drawn = try #require(Self.drawnPost(built.forum, board: board), "no box-drawn post on \(board)")
        let index = try #require(drawn.thread.posts.firstIndex { $0.floor == drawn.floor })
        let page = SitePaths.thread(board, gid: drawn.thread.gid, page: index / 20 + 1)
        let html = built.plain.text(page)
        let article = try #require(html.range(of: "id=\"a\(drawn.floor)\"").map { html[$0.lowerBound...] })
        let post = String(article).components(separatedBy: "</article>")[0]
        #expect(post.contains("<pre class=\"text art\">"), "\(page)")
        // Every space stays in the HTML, so text browsers line the columns up too.
        #expect(post.contains("│apple   │  12│"))
        #expect(html.contains("class=\"post mono\" id=\"a\(drawn.floor)\""))

        // And w3m shows the columns lined up.
        let w3m = try #require(ExternalTool.find("w3m"), "no w3m on PATH: run `make setup`")
        let output = try ExternalTool.run(
            w3m,
            [
                "-dump", "-cols", "200", "-T", "text/html", "-I", "UTF-8", "-O", "UTF-8",
                built.plain.root.appendingPathComponent(page).path,
            ], timeout: 60)
        #expect(output.status == 0 && !output.timedOut)
        #expect(output.text.contains("│apple   │  12│\n"), "w3m lost the spaces")
        #expect(output.text.contains("│香蕉bana│   7│\n"))
    }

    @Test func detectsTerminalArtButNotProse() {
        #expect(TerminalArt.isArt(["┌──┐", "│表│", "└──┘"]))
        #expect(TerminalArt.isArt(["车次      出发", "G1        07:00"]))
        #expect(TerminalArt.isArt(["\u{1B}[41m    \u{1B}[m", "\u{1B}[42m    \u{1B}[m"]))
        // Paragraph indents, one aligned line, colour without painted cells, a lone rule.
        #expect(!TerminalArt.isArt(["\u{3000}\u{3000}第一段。", "\u{3000}\u{3000}第二段。"]))
        #expect(!TerminalArt.isArt(["名字     值", "普通的一行"]))
        #expect(!TerminalArt.isArt(["\u{1B}[1;31m红字\u{1B}[m 和 \u{1B}[44m蓝底\u{1B}[m", "再一行"]))
        #expect(!TerminalArt.isArt(["──────", "签名"]))
    }

    /// The pages issue 11's reading checks look at, found in the plain site.
    struct GridPages {
        /// The thread page with the box-drawn table, opened at that post's permalink.
        var art: String
        var artFloor: Int
        var gid: Int
        /// Thread pages that show, between them, the deleted-楼主 notice,
        /// a reply marked 楼主, a quote header that links, and the end of a thread.
        var threads: [String]
    }

    static func gridPages(_ built: ReadingSiteFixture.Built, board: String) throws -> GridPages {
        let drawn = try #require(drawnPost(built.forum, board: board))
        let index = try #require(drawn.thread.posts.firstIndex { $0.floor == drawn.floor })
        let art = SitePaths.thread(board, gid: drawn.thread.gid, page: index / 20 + 1)
        var wanted = ["class=\"notice opening-deleted\"", "op-flag", "<a class=\"quoted\"", "class=\"thread-end\""]
        var pages: [String] = []
        for thread in built.forum.board(named: board)?.threads ?? [] where !wanted.isEmpty {
            for number in 1...max(1, (thread.posts.count + 19) / 20) {
                let path = SitePaths.thread(board, gid: thread.gid, page: number)
                let html = built.plain.text(path)
                // A page with the most features still wanted first.
                let has = wanted.filter { html.contains($0) }
                if has.count >= min(2, wanted.count) {
                    pages.append(path)
                    wanted.removeAll { has.contains($0) }
                }
            }
        }
        for thread in built.forum.board(named: board)?.threads ?? [] where !wanted.isEmpty {
            for number in 1...max(1, (thread.posts.count + 19) / 20) {
                let path = SitePaths.thread(board, gid: thread.gid, page: number)
                let html = built.plain.text(path)
                let has = wanted.filter { html.contains($0) }
                if !has.isEmpty {
                    pages.append(path)
                    wanted.removeAll { has.contains($0) }
                }
            }
        }
        try #require(wanted.isEmpty, "no thread page shows \(wanted)")
        return GridPages(art: art, artFloor: drawn.floor, gid: drawn.thread.gid, threads: pages)
    }

    /// What every thread page of the grid shows, wherever it is present:
    /// 上一主题 / 下一主题 top and bottom on the screen, the tab's title with
    /// the board, the deleted-楼主 notice, the 楼主 mark, the quote
    /// header's link (to a post that is there) and the end of the thread.
    static let threadProbe = """
        (async () => {
          const box = e => e.getBoundingClientRect();
          const shown = e => !!e && getComputedStyle(e).display !== 'none' && box(e).width > 0 && box(e).left >= 0
            && box(e).right <= innerWidth + 0.5;
          const main = document.querySelector('main');
          const navs = [...document.querySelectorAll('.thread-nav')];
          const find = s => document.querySelector(s);
          const quoted = find('a.quoted');
          let target = null;
          if (quoted) {
            const url = new URL(quoted.getAttribute('href'), location.href);
            const html = await (await fetch(url.href.split('#')[0])).text();
            target = url.hash.length > 1 && html.includes('id="' + url.hash.slice(1) + '"');
          }
          return JSON.stringify({
            title: document.title.includes(main.dataset.boardTitle) && document.title.includes(main.dataset.threadTitle),
            navs: navs.length, navShown: navs.every(n => [...n.querySelectorAll('a, span')].every(shown)),
            notice: find('.opening-deleted') ? shown(find('.opening-deleted')) : null,
            op: find('.op-flag') ? shown(find('.op-flag')) : null,
            quoted: quoted ? shown(quoted) && target : null,
            end: find('.thread-end') ? shown(find('.thread-end')) && [...find('.thread-end').querySelectorAll('a')]
              .every(shown) : null,
            overflow: document.documentElement.scrollWidth - innerWidth});
        })()
        """

    /// In Chromium over HTTP from a plain static server, at 390, 820 and
    /// 1440 px in light and dark (one browser): the columns of the
    /// box-drawn table line up in the monospace block (and do not once the
    /// post is switched to the proportional font, so the measure can fail),
    /// the post reached by its permalink is highlighted, the framed list
    /// loads only where it shows (wide screens), marks the thread and
    /// follows a theme switch, the thread pages' aids show on the screen,
    /// and the 404 page works three folders deep.
    @Test func columnsLineUpAndThe404PageWorksAtAnyDepth() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let board = try #require(built.forum.boardNames.first)
        let grid = try Self.gridPages(built, board: board)
        let gid = grid.gid
        let art = """
            (async () => {
              const post = document.getElementById('a\(grid.artFloor)');
              const others = [...document.querySelectorAll('.post')].filter(p => p !== post);
              const highlighted = !!post.matches(':target') && others.length > 0
                && getComputedStyle(post).backgroundColor !== getComputedStyle(others[0]).backgroundColor;
              const pre = post.querySelector('pre.art');
              function bars() {
                const rows = {};
                const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
                for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                  for (let i = 0; i < node.data.length; i++) {
                    if (node.data[i] !== '│') continue;
                    const range = document.createRange();
                    range.setStart(node, i); range.setEnd(node, i + 1);
                    const box = range.getBoundingClientRect();
                    const y = Math.round(box.top);
                    (rows[y] = rows[y] || []).push(Math.round(box.left * 10) / 10);
                  }
                }
                return Object.keys(rows).sort((a, b) => a - b).map(k => rows[k]);
              }
              const mono = bars();
              const button = post.querySelector('[data-mono-toggle]');
              const before = button.getAttribute('aria-pressed');
              button.click();
              const proportional = bars();
              const after = button.getAttribute('aria-pressed');
              button.click();
              // The framed list: loaded only where it shows; then its row marked and its theme following.
              const aside = document.querySelector('.threadlist');
              const frame = aside.querySelector('iframe');
              const shows = getComputedStyle(aside).display !== 'none';
              const loads = performance.getEntriesByType('resource').filter(e => /list-[0-9]+[.]html/.test(e.name)).length;
              let marked = '', inner = '';
              if (shows) {
                for (let i = 0; i < 100 && !(frame.contentDocument && frame.contentDocument.getElementById('t\(gid)')); i++)
                  await new Promise(r => setTimeout(r, 50));
                const doc = frame.contentDocument;
                const row = doc.querySelector('li:target');
                marked = row ? row.id : '';
                document.querySelector('[data-theme-toggle]').click();
                for (let i = 0; i < 40 && doc.documentElement.getAttribute('data-theme')
                  !== document.documentElement.getAttribute('data-theme'); i++)
                  await new Promise(r => setTimeout(r, 50));
                inner = doc.documentElement.getAttribute('data-theme') || '';
              } else {
                document.querySelector('[data-theme-toggle]').click();
              }
              const theme = document.documentElement.getAttribute('data-theme') || '';
              try { localStorage.clear(); } catch (e) {}
              return JSON.stringify({mono, proportional, before, after, hidden: button.hidden, highlighted,
                shows, src: frame.getAttribute('src'), loads, marked, inner, theme});
            })()
            """
        let deep = """
            (async () => {
              for (let i = 0; i < 100 && !document.documentElement.getAttribute('data-root'); i++)
                await new Promise(r => setTimeout(r, 50));
              await new Promise(r => setTimeout(r, 300));
              const home = [...document.querySelectorAll('main a')][0];
              return JSON.stringify({root: document.documentElement.getAttribute('data-root'), home: home.href,
                styled: getComputedStyle(document.querySelector('header.site')).borderBottomStyle,
                tools: !document.querySelector('header.site .tools').hidden,
                overflow: document.documentElement.scrollWidth - innerWidth});
            })()
            """
        // Hot topics rank left to right: three a row on an iPad in landscape.
        let hot = """
            JSON.stringify([...document.querySelectorAll('li.card')].slice(0, 4).map(c => {
              const box = c.getBoundingClientRect(); return [Math.round(box.left), Math.round(box.top)]; }))
            """
        let server = SiteServer(root: built.plain.root)
        let base = try await server.start()
        defer { Task { await server.stop() } }
        let probes =
            [(grid.art + "#a\(grid.artFloor)", art), ("a/b/c/no-such-page.html", deep)]
            + grid.threads.map { ($0, Self.threadProbe) }
        // Off the cooperative pool: the in-process server needs it.
        let served = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try BrowserTests.check(
                            site: built.plain, pages: [], probes: probes, base: base, everywhere: true)
                    })
            }
        }
        let tablet = try BrowserTests.check(
            site: built.plain, pages: [], probes: [(SitePaths.hot, hot)], widths: [1180])
        #expect(served.fatal == nil && tablet.fatal == nil, "\(served.fatal ?? "") \(tablet.fatal ?? "")")
        try #require(served.probes.count == probes.count * 6 && tablet.probes.count == 1)

        struct Art: Decodable {
            var mono: [[Double]]
            var proportional: [[Double]]
            var before: String
            var after: String
            var hidden: Bool
            var highlighted: Bool
            var shows: Bool
            var src: String?
            var loads: Int
            var marked: String
            var inner: String
            var theme: String
        }
        struct Deep: Decodable {
            var root: String
            var home: String
            var styled: String
            var tools: Bool
            var overflow: Int
        }
        struct Thread: Decodable {
            var title: Bool
            var navs: Int
            var navShown: Bool
            var notice: Bool?
            var op: Bool?
            var quoted: Bool?
            var end: Bool?
            var overflow: Int
        }
        var seen = Set<String>()
        for probe in served.probes {
            let width = probe.width ?? 0
            let place = "\(probe.page) at \(width) px \(probe.scheme ?? "")"
            // The 404 page looks for the site's root by asking for its stylesheet a folder up at a time.
            let problems = probe.problems.filter { !(probe.page.hasPrefix("a/b/c/") && $0.contains("status of 404")) }
            #expect(probe.error == nil && problems.isEmpty, "\(place): \(probe.error ?? "") \(problems)")
            let data = Data((probe.value ?? "").utf8)
            if probe.page.hasPrefix(grid.art + "#") {
                let state = try JSONDecoder().decode(Art.self, from: data)
                // Three bars on each of the table's four rows of text, each column within 1 px.
                let monoRows = state.mono.filter { $0.count == 3 }
                #expect(monoRows.count == 4, "\(place): \(state.mono)")
                for row in monoRows {
                    for (column, x) in row.enumerated() {
                        #expect(abs(x - monoRows[0][column]) < 1, "\(place): column \(column) at \(x)")
                    }
                }
                let proportionalRows = state.proportional.filter { $0.count == 3 }
                #expect(
                    proportionalRows.contains { abs($0[1] - proportionalRows[0][1]) >= 1 },
                    "\(place): the columns line up in the proportional font too: the check cannot fail")
                #expect(state.before == "true" && state.after == "false" && !state.hidden, "\(place)")
                #expect(state.highlighted, "\(place): the permalink's post is not highlighted")
                // The framed list shows and loads on wide screens only, never on a phone or tablet upright.
                let wide = width >= 1168
                #expect(state.shows == wide && (state.loads > 0) == wide, "\(place): \(state.shows) \(state.loads)")
                #expect((state.src ?? "").hasPrefix("list-") == wide, "\(place): frame \(state.src ?? "-")")
                let switched = probe.scheme == "dark" ? "light" : "dark"
                #expect(state.theme == switched, "\(place): theme \(state.theme)")
                if wide {
                    #expect(state.marked == "t\(gid)", "\(place): the current thread is not marked")
                    #expect(state.inner == switched, "\(place): the framed list stays \(state.inner)")
                }
            } else if probe.page.hasPrefix("a/b/c/") {
                let state = try JSONDecoder().decode(Deep.self, from: data)
                #expect(state.root == "/" && state.home == base + "index.html", "\(place): \(state)")
                #expect(state.styled == "solid", "\(place): the stylesheet did not load")
                #expect(state.tools, "\(place): site.js did not run")
                #expect(state.overflow <= 0, "\(place): scrolls sideways")
            } else {
                let state = try JSONDecoder().decode(Thread.self, from: data)
                #expect(state.title, "\(place): the tab's title lacks the board or thread")
                #expect(state.navs == 2 && state.navShown, "\(place): 上一主题 / 下一主题 \(state)")
                #expect(state.overflow <= 0, "\(place): scrolls sideways")
                for (name, value) in [
                    ("deleted-楼主 notice", state.notice), ("楼主 mark", state.op), ("quote link", state.quoted),
                    ("end of thread", state.end),
                ] {
                    guard let value else { continue }
                    #expect(value, "\(place): the \(name) is off the screen or broken")
                    seen.insert(name)
                }
            }
        }
        #expect(seen.count == 4, "features seen: \(seen.sorted())")

        let cards = try JSONDecoder().decode([[Int]].self, from: Data((tablet.probes[0].value ?? "").utf8))
        try #require(cards.count == 4)
        #expect(cards[0][1] == cards[1][1] && cards[1][1] == cards[2][1], "the first row: \(cards)")
        #expect(cards[0][0] < cards[1][0] && cards[1][0] < cards[2][0], "left to right: \(cards)")
        #expect(cards[3][1] > cards[0][1], "three a row at 1180 px: \(cards)")
    }
}

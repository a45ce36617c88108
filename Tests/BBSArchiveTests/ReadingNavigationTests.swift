import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// Issue 11: no dead ends (上一主题 / 下一主题 in the board's order of
/// starting, the end of a thread, the framed list window around the thread),
/// text drawn for a terminal in a monospace block whose columns line up, and
/// a 404 page that works at any depth.
@Suite struct ReadingNavigationTests {
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

    /// In Chromium: the columns of the box-drawn table line up in the
    /// monospace block (and do not once the post is switched to the
    /// proportional font, so the measure can fail), the hidden framed list
    /// is not loaded on a phone, and the 404 page works three folders deep
    /// on a plain static server.
    @Test func columnsLineUpAndThe404PageWorksAtAnyDepth() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let board = try #require(built.forum.boardNames.first)
        let drawn = try #require(Self.drawnPost(built.forum, board: board))
        let index = try #require(drawn.thread.posts.firstIndex { $0.floor == drawn.floor })
        let page = SitePaths.thread(board, gid: drawn.thread.gid, page: index / 20 + 1)
        let measure = """
            (() => {
              const post = document.getElementById('a\(drawn.floor)');
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
              return JSON.stringify({mono, proportional, before, after: button.getAttribute('aria-pressed'),
                hidden: button.hidden});
            })()
            """
        let frame = """
            JSON.stringify([document.querySelector('.threadlist iframe').getAttribute('src'),
              performance.getEntriesByType('resource').filter(e => /list-[0-9]+[.]html/.test(e.name)).length])
            """
        let server = SiteServer(root: built.plain.root)
        let base = try await server.start()
        defer { Task { await server.stop() } }
        let deep = """
            (async () => {
              for (let i = 0; i < 100 && !document.documentElement.getAttribute('data-root'); i++)
                await new Promise(r => setTimeout(r, 50));
              await new Promise(r => setTimeout(r, 300));
              const home = [...document.querySelectorAll('main a')][0];
              return JSON.stringify({root: document.documentElement.getAttribute('data-root'), home: home.href,
                styled: getComputedStyle(document.querySelector('header.site')).borderBottomStyle,
                tools: !document.querySelector('header.site .tools').hidden});
            })()
            """
        // The reading settings at ×1.6 on a phone stay on the screen; the theme button shows its state.
        let settings = """
            (() => {
              document.documentElement.style.setProperty('--font-scale', '1.6');
              const details = document.querySelector('details.settings');
              details.open = true;
              const box = details.querySelector('.settings-panel').getBoundingClientRect();
              const toggle = document.querySelector('[data-theme-toggle]');
              const off = getComputedStyle(toggle).backgroundColor;
              toggle.click();
              const on = getComputedStyle(toggle).backgroundColor;
              return JSON.stringify({inside: box.left >= 0 && box.right <= innerWidth, off, on,
                pressed: toggle.getAttribute('aria-pressed')});
            })()
            """
        // On a wide screen, over HTTP: the framed list marks the thread and follows a theme switch.
        let gid = drawn.thread.gid
        let framed = """
            (async () => {
              const frame = document.querySelector('.threadlist iframe');
              for (let i = 0; i < 100 && !(frame.contentDocument && frame.contentDocument.getElementById('t\(gid)')); i++)
                await new Promise(r => setTimeout(r, 50));
              const inner = frame.contentDocument;
              document.querySelector('[data-theme-toggle]').click();
              for (let i = 0; i < 40 && !inner.documentElement.getAttribute('data-theme'); i++)
                await new Promise(r => setTimeout(r, 50));
              const target = inner.querySelector('li:target');
              return JSON.stringify([target ? target.id : '', inner.documentElement.getAttribute('data-theme') || '',
                document.documentElement.getAttribute('data-theme')]);
            })()
            """
        // Hot topics rank left to right: three a row on an iPad in landscape.
        let hot = """
            JSON.stringify([...document.querySelectorAll('li.card')].slice(0, 4).map(c => {
              const box = c.getBoundingClientRect(); return [Math.round(box.left), Math.round(box.top)]; }))
            """
        let local = try BrowserTests.check(
            site: built.plain, pages: [], probes: [(page, measure), (page, frame), (SitePaths.home, settings)],
            widths: [390])
        let served = try BrowserTests.check(
            site: built.plain, pages: [],
            probes: [("a/b/c/no-such-page.html", deep), (SitePaths.thread(board, gid: gid), framed)], widths: [1440],
            base: base)
        let tablet = try BrowserTests.check(
            site: built.plain, pages: [], probes: [(SitePaths.hot, hot)], widths: [1180])
        #expect(local.fatal == nil && served.fatal == nil && tablet.fatal == nil)
        try #require(local.probes.count == 3 && served.probes.count == 2 && tablet.probes.count == 1)

        struct Columns: Decodable {
            var mono: [[Double]]
            var proportional: [[Double]]
            var before: String
            var after: String
            var hidden: Bool
        }
        let columns = try JSONDecoder().decode(Columns.self, from: Data((local.probes[0].value ?? "").utf8))
        // Three bars on each of the table's four rows of text.
        let monoRows = columns.mono.filter { $0.count == 3 }
        #expect(monoRows.count == 4, "\(columns.mono)")
        for row in monoRows {
            for (column, x) in row.enumerated() {
                #expect(abs(x - monoRows[0][column]) < 1, "column \(column) at \(x), not \(monoRows[0][column])")
            }
        }
        let proportionalRows = columns.proportional.filter { $0.count == 3 }
        #expect(
            proportionalRows.contains { abs($0[1] - proportionalRows[0][1]) >= 1 },
            "the columns line up in the proportional font too: the check cannot fail")
        #expect(columns.before == "true" && columns.after == "false" && !columns.hidden)

        // On a phone the hidden list is never loaded.
        #expect(local.probes[1].value == "[null,0]", "\(local.probes[1].value ?? "")")

        struct Deep: Decodable {
            var root: String
            var home: String
            var styled: String
            var tools: Bool
        }
        let deepState = try JSONDecoder().decode(Deep.self, from: Data((served.probes[0].value ?? "").utf8))
        #expect(deepState.root == "/")
        #expect(deepState.home == base + "index.html")
        #expect(deepState.styled == "solid", "the stylesheet did not load")
        #expect(deepState.tools, "site.js did not run")

        struct Settings: Decodable {
            var inside: Bool
            var off: String
            var on: String
            var pressed: String
        }
        let panel = try JSONDecoder().decode(Settings.self, from: Data((local.probes[2].value ?? "").utf8))
        #expect(panel.inside, "the settings panel runs off a 390-px screen at ×1.6")
        #expect(panel.pressed == "true" && panel.on != panel.off, "the theme button shows no state: \(panel)")

        #expect(served.probes[1].value == "[\"t\(gid)\",\"dark\",\"dark\"]", "\(served.probes[1].value ?? "")")

        let cards = try JSONDecoder().decode([[Int]].self, from: Data((tablet.probes[0].value ?? "").utf8))
        try #require(cards.count == 4)
        #expect(cards[0][1] == cards[1][1] && cards[1][1] == cards[2][1], "the first row: \(cards)")
        #expect(cards[0][0] < cards[1][0] && cards[1][0] < cards[2][0], "left to right: \(cards)")
        #expect(cards[3][1] > cards[0][1], "three a row at 1180 px: \(cards)")
    }
}

import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// The archive in real browsers: headless Chromium (phone, tablet and
/// desktop widths, light and dark, with and without stored settings) and
/// a text browser.
@Suite struct BrowserTests {
    static let widths = [390, 820, 1440]

    struct Report: Decodable {
        struct Load: Decodable {
            var page: String
            var width: Int?
            var scheme: String?
            var problems: [String]
            var overflow: Int?
            var background: String?
            var visible: [String]?
            /// The framed thread list's `src` (nil: no frame; "": not loaded).
            var frame: String?
        }
        struct Probe: Decodable {
            var page: String
            /// Where it ran (with `everywhere`; otherwise the first width, light).
            var width: Int?
            var scheme: String?
            var value: String?
            var error: String?
            var problems: [String]
        }
        var loads: [Load]
        var probes: [Probe]
        var fatal: String?
    }

    /// Runs `scripts/browser-check.py` and decodes its report.
    static func check(
        site: SiteInspector, pages: [String], probes: [(String, String)], widths: [Int] = widths, base: String? = nil,
        everywhere: Bool = false
    ) throws -> Report {
        let python = try #require(ExternalTool.find("python3"), "no python3 on PATH: run `make setup`")
        try #require(ExternalTool.find("chromium") != nil, "no chromium on PATH: run `make setup`")
        var arguments = [
            Fixtures.projectRoot.appendingPathComponent("scripts/browser-check.py").path, "--site", site.root.path,
            "--widths", widths.map(String.init).joined(separator: ","), "--schemes", "light,dark", "--timeout", "40",
        ]
        if let base { arguments += ["--base", base] }
        if everywhere { arguments.append("--probe-everywhere") }
        for page in pages { arguments += ["--page", page] }
        for (page, expression) in probes { arguments += ["--probe", page, expression] }
        let output = try ExternalTool.run(python, arguments, timeout: 300)
        #expect(!output.timedOut, "the browser check did not finish in 5 minutes")
        #expect(output.status == 0, "browser-check.py exited \(output.status): \(output.errorText.suffix(800))")
        return try JSONDecoder().decode(Report.self, from: output.stdout)
    }

    @Test func pagesLoadWithoutErrorsAtEveryWidthInBothThemes() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let site = built.plain
        let forum = built.forum
        let board = try #require(forum.boardNames.first)
        let long = try #require(forum.board(named: board)?.threads.max { $0.posts.count < $1.posts.count })
        let withImages = try #require(
            forum.board(named: board)?.threads.first { thread in
                thread.posts.prefix(20).flatMap(\.attachments).filter(\.isImage).count >= 2
            }, "no thread with two images on its first page")
        let other = try #require(forum.board(named: board)?.threads.first { !$0.sticky && $0.gid != withImages.gid })
        let threadPage = SitePaths.thread(board, gid: long.gid)
        let pages = [SitePaths.home, SitePaths.board(board), threadPage]

        // Addresses in both of SMTH's forms, for the lookup page's resolver.
        let gid = long.gid
        let forms = [
            "https://m.newsmth.net/article/\(board)/\(gid)", "m.newsmth.net/article/\(board)/\(gid)?p=2",
            "https://www.newsmth.net/nForum/#!article/\(board)/\(gid)",
            "http://www.mysmth.net/nForum/article/\(board.lowercased())/\(gid)?ajax",
            "https://m.newsmth.net/board/\(board)", "https://www.newsmth.net/nForum/#!board/\(board)?p=3",
            "https://m.newsmth.net/article/\(board)/1", "https://m.newsmth.net/article/NoSuchBoard/\(gid)",
            "not a link",
        ]
        let formsJSON = String(decoding: try JSONSerialization.data(withJSONObject: forms), as: UTF8.self)
        let resolve =
            "JSON.stringify(\(formsJSON).map(u => { const r = BBSArchiveResolve(u); return [r.kind, r.href || ''] }))"
        let given = "lookup.html?url=" + (forms[2].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let viewer = """
            (async () => {
              const links = document.querySelectorAll('a[data-viewer]');
              links[0].click();
              const dialog = document.querySelector('dialog.viewer');
              const opened = !!(dialog && dialog.open);
              const before = dialog.querySelector('.caption').textContent;
              dialog.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
              const after = dialog.querySelector('.caption').textContent;
              dialog.querySelector('.stage').dispatchEvent(new WheelEvent('wheel', {deltaY: -400, clientX: 200, clientY: 300, bubbles: true, cancelable: true}));
              const zoomed = dialog.querySelector('.stage img').style.transform;
              const focused = document.activeElement === dialog.querySelector('.close');
              dialog.querySelector('.close').click();
              return JSON.stringify({count: links.length, opened, before, after, zoomed, focused, closed: !dialog.open});
            })()
            """
        let toggle = """
            (() => { document.querySelector('[data-theme-toggle]').click();
              return JSON.stringify([document.documentElement.getAttribute('data-theme'), localStorage.getItem('bbsarchive.theme'),
                document.querySelector('header.site .tools').hidden]); })()
            """
        // The sidebar's boards, listed by site.js from boards.js (from file://).
        let sidebar = """
            (async () => {
              for (let i = 0; i < 60 && !document.querySelector('.sidebar .group'); i++) await new Promise(r => setTimeout(r, 50));
              const links = [...document.querySelectorAll('.sidebar .group li:not(.section-link) a')];
              const current = document.querySelector('.sidebar a[aria-current]');
              return JSON.stringify({
                boards: links.map(a => a.querySelector('.id').textContent),
                hrefs: links.map(a => a.getAttribute('href')),
                current: current ? current.querySelector('.id').textContent : '',
                open: [...document.querySelectorAll('.sidebar details[open] a[aria-current]')].length });
            })()
            """
        let otherKey = SitePaths.thread(board, gid: other.gid)
        let report = try Self.check(
            site: site, pages: pages,
            probes: [
                ("lookup.html", resolve),
                (
                    given,
                    "document.getElementById('lookup-target') ? document.getElementById('lookup-target').getAttribute('href') : 'none'"
                ),
                (SitePaths.thread(board, gid: withImages.gid), viewer),
                (SitePaths.home, toggle),
                (otherKey, "document.documentElement.getAttribute('data-theme')"),
                (
                    SitePaths.board(board),
                    "JSON.stringify([...document.querySelectorAll('tr.read')].map(r => r.dataset.key))"
                ),
                (
                    SitePaths.home,
                    "JSON.stringify([document.getElementById('recent-read').hidden, [...document.querySelectorAll('[data-recent-list] a')].map(a => a.getAttribute('href'))])"
                ),
                (threadPage, sidebar),
            ])
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")

        #expect(report.loads.count == pages.count * Self.widths.count * 2)
        for load in report.loads {
            let label = "\(load.page) at \(load.width ?? 0)px, \(load.scheme ?? "")"
            #expect(load.problems.isEmpty, "\(label): \(load.problems)")
            #expect((load.overflow ?? 1) <= 0, "\(label) scrolls sideways by \(load.overflow ?? -1)px")
            let visible = load.visible ?? []
            let width = load.width ?? 0
            #expect(visible.contains("sidebar") == (width >= 768), "\(label): sidebar \(visible)")
            #expect(
                visible.contains("threadlist") == (load.page == threadPage && width >= 1168), "\(label): \(visible)")
            // The list beside a thread loads only where it shows: never on a phone or tablet.
            if load.page == threadPage {
                #expect(
                    (load.frame ?? "").hasPrefix("list-") == (width >= 1168), "\(label): frame \(load.frame ?? "-")")
            }
        }
        for page in pages {
            for width in Self.widths {
                let light = report.loads.first { $0.page == page && $0.width == width && $0.scheme == "light" }
                let dark = report.loads.first { $0.page == page && $0.width == width && $0.scheme == "dark" }
                #expect(light?.background == "rgb(255, 255, 255)", "\(page) \(width) light: \(light?.background ?? "")")
                #expect(dark?.background != light?.background, "\(page) \(width) has no dark theme")
            }
        }

        try #require(report.probes.count == 8)
        for probe in report.probes {
            #expect(probe.error == nil, "\(probe.page): \(probe.error ?? "")")
            #expect(probe.problems.isEmpty, "\(probe.page): \(probe.problems)")
        }
        let threadHref = "board/\(board)/\(gid).html"
        let boardHref = "board/\(board)/index.html"
        let resolved = try JSONDecoder().decode([[String]].self, from: Data((report.probes[0].value ?? "").utf8))
        #expect(
            resolved == [
                ["thread", threadHref], ["thread", threadHref], ["thread", threadHref], ["thread", threadHref],
                ["board", boardHref], ["board", boardHref], ["board", boardHref], ["unknown-board", ""],
                ["invalid", ""],
            ])
        #expect(report.probes[1].value == threadHref)

        struct ViewerState: Decodable {
            var count: Int
            var opened: Bool
            var before: String
            var after: String
            var zoomed: String
            var focused: Bool
            var closed: Bool
        }
        let state = try JSONDecoder().decode(ViewerState.self, from: Data((report.probes[2].value ?? "").utf8))
        #expect(state.count >= 2)
        #expect(state.opened && state.closed && state.focused)
        #expect(state.before.hasPrefix("1 / \(state.count)") && state.after.hasPrefix("2 / \(state.count)"))
        #expect(state.zoomed.contains("scale(") && !state.zoomed.contains("scale(1)"), "wheel zoom: \(state.zoomed)")

        // The toggle flips from the light system theme and is remembered on the next page.
        #expect(report.probes[3].value == "[\"dark\",\"dark\",false]")
        #expect(report.probes[4].value == "dark")
        // Visited threads are marked in lists and listed on the home page.
        let read = try JSONDecoder().decode([String].self, from: Data((report.probes[5].value ?? "").utf8))
        #expect(read.contains(otherKey))
        #expect(report.probes[6].value?.hasPrefix("[false,[\"\(otherKey)\"") == true, "\(report.probes[6].value ?? "")")
        // Every board in the sidebar, linked from the thread's folder, its own marked in an open group.
        struct Sidebar: Decodable {
            var boards: [String]
            var hrefs: [String]
            var current: String
            var open: Int
        }
        let listed = try JSONDecoder().decode(Sidebar.self, from: Data((report.probes[7].value ?? "").utf8))
        #expect(Set(listed.boards) == Set(forum.boardNames) && listed.boards.count == forum.boardNames.count)
        #expect(listed.hrefs == listed.boards.map { "../../" + SitePaths.board($0) })
        for href in listed.hrefs {
            #expect(
                FileManager.default.fileExists(atPath: site.root.appendingPathComponent(String(href.dropFirst(6))).path)
            )
        }
        #expect(listed.current == board && listed.open == 1, "\(listed)")
    }

    @Test func textBrowserReadsThePostsInOrder() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let board = try #require(built.forum.boardNames.first)
        let thread = try #require(built.forum.board(named: board)?.threads.max { $0.posts.count < $1.posts.count })
        let w3m = try #require(ExternalTool.find("w3m"), "no w3m on PATH: run `make setup`")
        let page = built.plain.root.appendingPathComponent(SitePaths.thread(board, gid: thread.gid)).path
        let output = try ExternalTool.run(
            w3m, ["-dump", "-cols", "2000", "-T", "text/html", "-I", "UTF-8", "-O", "UTF-8", page], timeout: 60)
        #expect(output.status == 0 && !output.timedOut)
        // Text browsers know no `white-space: pre-wrap`: runs of spaces
        // collapse, and w3m drops them between Chinese characters.
        func squeezed(_ text: String) -> String { String(text.filter { !$0.isWhitespace }) }
        let dump = squeezed(output.text)
        var cursor = dump.startIndex
        var found = 0
        for post in thread.posts.prefix(20) {
            let heading = (post.floor == 0 ? "楼主" : "\(post.floor)楼") + post.author
            guard let at = dump.range(of: heading, range: cursor..<dump.endIndex) else {
                Issue.record("\(heading) is missing or out of order in the text dump")
                continue
            }
            cursor = at.upperBound
            let own = post.plainLines.first { line in
                !line.trimmingCharacters(in: .whitespaces).isEmpty && QuotePrefix.colons(line) == nil
                    && Fixtures.smthForum.conventions.quoteHeaderAuthor(line) == nil
            }
            if let own {
                guard let text = dump.range(of: squeezed(own), range: cursor..<dump.endIndex) else {
                    Issue.record("the text of \(heading) (\(own)) is missing or out of order")
                    continue
                }
                cursor = text.upperBound
            }
            found += 1
        }
        #expect(found == min(20, thread.posts.count))
    }
}

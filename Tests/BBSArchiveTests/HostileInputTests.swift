import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// Numbers from the network never trap: dates, delays, sizes.
@Suite struct HostileNumbersTests {
    let fetchedAt = Fixtures.beijing(2026, 8, 1, 12)

    @Test(arguments: [
        "99999999999-01-01", "99999999999-01-01 00:00:00", "9223372036854775807-12-31 23:59:59",
        "1989-12-31", "2101-01-01 00:00:00", "-5-01-01",
    ])
    func implausibleYearsAreNoDates(_ text: String) {
        #expect(SMTHTimeParser.parse(text, fetchedAt: fetchedAt) == nil)
    }

    @Test func implausibleTimesAreAnErrorForThePage() throws {
        #expect(throws: ArchiveError.self) {
            try SMTHTimeParser.checked("99999999999-01-01", fetchedAt: fetchedAt, url: "u")
        }
        #expect(throws: ArchiveError.self) {
            try SMTHTimeParser.checked("2026-02-30", fetchedAt: fetchedAt, url: "u")
        }
        #expect(try SMTHTimeParser.checked("原帖已删除", fetchedAt: fetchedAt, url: "u") == nil)
        #expect(try SMTHTimeParser.checked("2026-02-28", fetchedAt: fetchedAt, url: "u") != nil)
    }

    @Test func bbsTimesWithHugeYearsAreNoDates() {
        #expect(PostText.bbsTime("Fri Mar 25 11:52:04 99999999999999") == nil)
        #expect(PostText.bbsTime("Mar 29 09:43:17 9223372036854775807") == nil)
        #expect(PostText.bbsTime("Fri Mar 25 11:52:04 2016") != nil)
    }

    @Test func extremeInstantsStillPrint() {
        for date in [Date.distantFuture, Date.distantPast, Date(timeIntervalSince1970: 1e300)] {
            #expect(!Fixtures.smthForum.time.iso8601(date).isEmpty)
        }
    }

    @Test func hugeCrawlDelaysAndRatesAreClamped() async {
        let robots = RobotsTxt("User-agent: *\nCrawl-delay: 10000000000\n")
        #expect(robots.crawlDelay == 10_000_000_000)
        let limiter = RateLimiter(requestsPerSecond: 1e-300)
        await limiter.setMinimumInterval(robots.crawlDelay ?? 0, host: "h")
        await limiter.setMinimumInterval(.infinity, host: "h")
        await limiter.setMinimumInterval(.nan, host: "h")
    }

    @Test func farRetryAfterDatesAreBounded() {
        let wait = RetryPolicy.retryAfter("Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(wait != nil)
        #expect((wait ?? .zero) <= .seconds(366 * 86_400))
        #expect(RetryPolicy.retryAfter("99999999999999999999999") == nil)
    }
}

@Suite struct TerminalTextTests {
    @Test func controlsAndLineBreaksBecomeSpaces() {
        let hostile = "出错了\u{1B}]0;pwned\u{07}\u{1B}[2K\r\nfailed: 伪造\u{9B}31m\u{2028}x\u{7F}"
        let clean = TerminalText.clean(hostile)
        #expect(!clean.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!clean.contains("\u{2028}"))
        #expect(clean.contains("出错了") && clean.contains("failed: 伪造"))
        #expect(TerminalText.clean("plain 文字") == "plain 文字")
    }

    @Test func errorsAndEventsAreCleanedToo() {
        let error = ArchiveError.forumError(url: "http://x/\u{1B}[2J", message: "a\r\nfailed: b\u{1B}]0;t\u{07}")
        #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 })
        let event = ProgressEvent.failure(url: "u\n", reason: "r\u{1B}").terminalSafe
        #expect(event == .failure(url: "u ", reason: "r "))
    }
}

@Suite struct SafeLinkTests {
    @Test(arguments: [
        "http://example.org/a?b=c", "https://example.org/", "ftp://files.example.org/x.zip", "mailto:a@example.org",
        "  https://example.org/ ", "HTTP://EXAMPLE.ORG/",
    ])
    func webAndMailAddressesAreLinks(_ address: String) {
        #expect(SafeLink.external(address) != nil)
        #expect(SafeLink.allows(address))
    }

    @Test(arguments: [
        "javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
        "javascript:alert(1)//att/B/1/2", "data:text/html,<script>", "vbscript:msgbox", "file:///etc/passwd",
        "http:foo", "http://", "https:/x", "//evil.example/", "jar:http://x!/", "\u{1}javascript:x",
    ])
    func everythingElseIsText(_ address: String) {
        #expect(SafeLink.external(address) == nil)
        #expect(!SafeLink.allows(address))
    }

    /// The trim that skips Foundation when no end is blank gives what
    /// `trimmingCharacters(in: .whitespaces)` gives, blank ends or not.
    @Test(arguments: [
        "", " ", "\t", "a", " a", "a ", "\u{3000}http://x.example/\u{3000}", "\u{A0}a", "a\u{2009}", "\n a \n",
        "\u{200B}a", "a b", " \t ", "长 ", "\u{1680}x\u{202F}", " \u{301}x", "a \u{301}", "\u{3000}\u{3000}",
        "e\u{301} ", "\u{1F600} \u{1F600}\u{3000}", "\r\n", "\u{85}a\u{85}",
    ])
    func blanksAreTrimmedAsFoundationTrimsThem(_ text: String) {
        #expect(text.trimmingBlanks == text.trimmingCharacters(in: .whitespaces))
    }

    @Test func theArchivesOwnRelativePathsAreAllowed() {
        #expect(SafeLink.allows("../board/Test/index.md"))
        #expect(SafeLink.allows("user/~E9~95~BF.html"))
        // A colon only after the first `/`, `?` or `#`: ASCII (read byte by byte) or not.
        for path in ["a/b:c", "x?y:z", "p#q:r", "长/x:y", "长?:"] { #expect(SafeLink.allows(path), "\(path)") }
        for path in ["a:b/c", "x-1:y", "长:x", "a.b:"] { #expect(!SafeLink.allows(path), "\(path)") }
        #expect(SafeLink.external("MailTo:a@example.org") == "MailTo:a@example.org")
    }

    @Test func ubbAndMarkdownUseIt() {
        let segments = InlineText.segments(
            "[url=javascript:alert(1)]x[/url] [url=http://ok.example/]y[/url] www.a.cn",
            conventions: Fixtures.smthForum.conventions)
        #expect(segments.compactMap(\.link) == ["http://ok.example/", "http://www.a.cn"])

        let document = MarkdownDocument()
        document.paragraph([.link(url: "javascript:alert(1)", text: "原始链接"), .image(url: "data:x", alt: "图")])
        let markdown = document.render()
        #expect(!markdown.lowercased().contains("javascript:"))
        #expect(!markdown.contains("data:x"))
        #expect(markdown.contains("原始链接"))
    }
}

@Suite struct InertMediaTests {
    static let html = Data(#"<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>"#.utf8)

    @Test(arguments: ["page.xht", "a.xml", "a.svgz", "a.shtml", "a.php", "a.mjs", "a.hta", "a.xsl", "a.html", "a"])
    func activeNamesBecomeBin(_ name: String) {
        #expect(InertMedia.declared(mime: nil, name: name) == "bin")
        #expect(InertMedia.sniffed(Self.html, declared: InertMedia.declared(mime: nil, name: name)) == "bin")
    }

    @Test func theBytesDecide() {
        #expect(InertMedia.sniffed(Self.html, declared: "png") == "bin")
        #expect(InertMedia.sniffed(Self.html, declared: "txt") == "bin")
        #expect(InertMedia.sniffed(Data("纯文本\n".utf8), declared: "txt") == "txt")
        #expect(InertMedia.sniffed(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), declared: "gif") == "png")
        #expect(InertMedia.sniffed(Data("%PDF-1.4".utf8), declared: "bin") == "pdf")
        #expect(InertMedia.sniffed(Data([0x50, 0x4B, 0x03, 0x04, 0, 0]), declared: "docx") == "docx")
        #expect(InertMedia.sniffed(Data([0x50, 0x4B, 0x03, 0x04, 0, 0]), declared: "bin") == "zip")
        #expect(InertMedia.sniffed(Data("<svg onload=alert(1)>".utf8), declared: "bin") == "bin")
    }
}

@Suite struct LongIdTests {
    @Test func longIdsGetShortInjectiveFileNames() {
        let long = String(repeating: "长", count: 120)
        let other = long + "x"
        let a = SitePaths.component(long)
        let b = SitePaths.component(other)
        #expect(a != b)
        #expect(a.utf8.count <= SitePaths.componentLimit)
        #expect(a.hasPrefix(String(SitePaths.component("长长长长"))))
        for path in [
            SitePaths.userArchive(long, page: 99_999),
            SitePaths.authorView(long, gid: Int.max, author: long, page: 99_999),
            SitePaths.thread(long, gid: Int.max, page: Int.max),
        ] {
            for part in path.split(separator: "/") { #expect(part.utf8.count <= 255, "\(part)") }
        }
        // A short id that looks like a cut one stays distinct.
        #expect(SitePaths.component("~~") != SitePaths.component(long))
        #expect(SitePaths.component("Geography") == "Geography")
    }
}

@Suite struct TextDecodingTests {
    @Test func strayBytesBecomeReplacementCharacters() {
        let gbk = Data([0xC4, 0xE3, 0xBA, 0xC3, 0xFF, 0x41, 0x81])
        let text = String(decoding: TextDecoding.utf8(gbk, from: "GB18030"), as: UTF8.self)
        #expect(text.hasPrefix("你好"))
        #expect(text.contains("A"))
        #expect(text.contains("\u{FFFD}"))
        let utf8 = Data("前".utf8) + Data([0xFF, 0xE4, 0xBD]) + Data("后".utf8)
        let repaired = String(decoding: TextDecoding.utf8(utf8, from: "UTF-8"), as: UTF8.self)
        #expect(repaired.hasPrefix("前") && repaired.hasSuffix("后"))
        #expect(TextEncodingDetector.isValidUTF8(TextDecoding.utf8(Data([0x80, 0xFE]), from: "no-such-charset")))
    }

    /// A lone 0x80 in a GBK page is the euro sign, as browsers write and
    /// read it (the WHATWG gbk encoder writes € so); it was a U+FFFD. As a
    /// second byte it is part of another character.
    @Test func theEuroSignOfGBKPagesIsKept() {
        // 价格 5, 0x80, ，
        let gbk = Data([0xBC, 0xDB, 0xB8, 0xF1, 0x20, 0x35, 0x80, 0xA3, 0xAC])
        #expect(String(decoding: TextDecoding.utf8(gbk, from: "GB18030"), as: UTF8.self) == "价格 5€，")
        #expect(String(decoding: TextDecoding.utf8(Data([0x81, 0x80]), from: "GB18030"), as: UTF8.self) == "亐")
    }

    @Test(arguments: [false, true])
    func aRealPageWithBadBytesKeepsItsThreads(gbk: Bool) throws {
        let (body, type) = try NForumParserTests.bytes("nforum/board-FamilyLife-p2.html", gbk: gbk)
        // Break a byte in the middle of the page, inside the thread list.
        var broken = body
        broken.insert(contentsOf: [0xFF, 0x80, 0xFE], at: broken.count / 2)
        func threads(_ data: Data) throws -> Int {
            let page = FetchedPage(
                url: "https://www.newsmth.net/nForum/board/FamilyLife?ajax&p=2", body: data, contentType: type,
                fetchedAt: Fixtures.beijing(2016, 5, 5, 22))
            guard case .board(let board) = try SMTHNForumSource().parse(page) else { return -1 }
            return board.threads.count
        }
        let whole = try threads(body)
        #expect(whole > 20)
        #expect(try threads(broken) >= whole - 1)
    }
}

/// Eight times the text costs about eight times the time: the ratio of the
/// fastest of five runs at n and at 8n stays far below the 64 a quadratic
/// algorithm gives. The runs at n and 8n take turns, so a machine that gets
/// busy part way slows both sizes alike (under load, the fastest of three runs
/// of the large size alone once gave 32.8). Time is the calling thread's CPU
/// time, not the clock's: a run waiting for a core on a busy machine (the
/// suite failed once so, filtered, at load 5) costs nothing.
@Suite(.serialized) struct LinearTimeTests {
    static func seconds(_ work: () -> Void) -> Double {
        let start = threadCPUTime()
        work()
        return threadCPUTime() - start
    }

    /// The CPU time this thread has used, in seconds.
    static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The fastest of five runs of `large` over the fastest of five of `small`.
    static func ratio(small: () -> Void, large: () -> Void) -> Double {
        var best = (small: Double.infinity, large: Double.infinity)
        for _ in 0..<5 {
            best.small = min(best.small, seconds(small))
            best.large = min(best.large, seconds(large))
        }
        return best.large / max(best.small, 1e-6)
    }

    static func ratio(_ n: Int, _ make: (Int) -> String, _ work: (String) -> Void) -> Double {
        let small = make(n)
        let large = make(8 * n)
        return ratio(small: { work(small) }, large: { work(large) })
    }

    @Test func unmatchedUBBTags() {
        let ratio = Self.ratio(1500, { String(repeating: "[b]", count: $0) + String(repeating: "[/i]", count: $0) }) {
            _ = InlineText.segments($0, conventions: Fixtures.smthForum.conventions)
        }
        #expect(ratio < 30, "8× the tags cost \(ratio)×")
    }

    @Test func manyBareAddresses() {
        let ratio = Self.ratio(400, { n in (0..<n).map { "http://a\($0).example/ 文字" }.joined(separator: " ") }) {
            _ = InlineText.segments($0, conventions: Fixtures.smthForum.conventions)
        }
        #expect(ratio < 30, "8× the addresses cost \(ratio)×")
    }

    @Test func longHeaders() {
        let lines: (Int) -> [String] = { n in
            ["发信人: a (b), 信区: C"] + (0..<n).map { "标  题: \($0)" } + ["", "正文"]
        }
        let small = lines(3000)
        let large = lines(24_000)
        let ratio = Self.ratio(small: { _ = PostText.split(small) }, large: { _ = PostText.split(large) })
        #expect(ratio < 30, "8× the header lines cost \(ratio)×")
    }
}

/// The replica's hostile board, archived and built for real.
@Suite(.serialized) struct HostileForumTests {
    static let config = ReplicaConfig(
        seed: 3, sections: 1, boardsPerSection: 1, threadsPerBoard: 2, maxPostsPerThread: 2)

    @Test func aHostileBoardCrashesNothingAndLeavesNoActiveLink() async throws {
        var faults = ReplicaFaults()
        faults.hostile = true
        let harness = try await ReplicaHarness.start(Self.config, faults: faults)
        let events = EventLog()
        let maxPages = 25
        let report = try await harness.fetch(
            boards: [HostileBoard.name], options: Archiver.Options(maxThreadPages: maxPages), retry: .fast,
            events: { events.add($0) })
        await harness.stop()

        // Nothing is asked of another host: not the attachment whose link
        // names one, not the one that redirects to one; a thread that
        // redirects to another thread is refused, and that thread keeps its own posts.
        let other = HostileBoard.otherHost("127.0.0.1:\(harness.port)")
        #expect(!harness.server.visits().isEmpty)
        #expect(!harness.server.visits().contains { $0.host == other }, "a request reached \(other)")
        let refused = report.failures.filter { if case .refused = $0.error { true } else { false } }.map(\.url)
        #expect(refused.contains { $0.contains("/article/\(HostileBoard.name)/\(HostileBoard.redirectGid)?") })
        #expect(refused.contains { $0.hasPrefix("http://\(other)/") && $0.contains("/att/") })
        #expect(refused.contains { $0.hasSuffix("/att/\(HostileBoard.name)/2/4") })

        // What cannot be right is a failure of its page, named, and the run goes on.
        let failed = report.failures.map(\.url)
        #expect(failed.contains { $0.contains("/article/\(HostileBoard.name)/\(HostileBoard.forumErrorGid)?") })
        #expect(!failed.contains { $0.contains("/article/\(HostileBoard.name)/\(HostileBoard.badBytesGid)?") })
        #expect(failed.contains { $0.contains("/board/\(HostileBoard.name)?p=2") })
        #expect(report.failures.contains { if case .implausible = $0.error { true } else { false } })
        for line in events.lines + report.failures.map(\.description) {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
        }

        let store = try harness.store()
        let threads = try store.threads(board: HostileBoard.name).map(\.gid)
        for gid in HostileBoard.archivableGids { #expect(threads.contains(gid), "thread \(gid)") }
        #expect(try store.posts(board: HostileBoard.name, gid: HostileBoard.redirectGid).isEmpty)
        #expect(try store.posts(board: HostileBoard.name, gid: 1).map(\.author) == [HostileBoard.longUser])
        // The endless pager is cut at --max-thread-pages, and says so.
        let endless = try store.posts(board: HostileBoard.name, gid: HostileBoard.endlessGid)
        #expect(endless.count == maxPages)
        #expect(events.lines.contains { $0.contains("--max-thread-pages") })
        // A post's impossible time is no reason to lose it: it keeps its
        // place, with a warning (and the page is reported as partial).
        let traveller = try store.posts(board: HostileBoard.name, gid: HostileBoard.timeTravelGid)
        #expect(traveller.count == 1)
        #expect(traveller.first?.warning?.contains("time") == true)
        // Bad bytes cost characters, not the page.
        let bad = try store.posts(board: HostileBoard.name, gid: HostileBoard.badBytesGid)
        #expect(bad.first?.body.contains("之后的文字") == true)
        #expect(bad.first?.body.contains("\u{FFFD}") == true)

        let out = harness.folder.appendingPathComponent("site")
        _ = try await BuildAction(
            storePath: harness.storePath, outputPath: out.path, templatesPath: Fixtures.templates.path
        ).run()
        let site = SiteInspector(root: out)
        let files = site.files()
        #expect(files.contains { $0.hasPrefix("user/") && $0.contains("~~") })
        for file in files {
            for part in file.split(separator: "/") { #expect(part.utf8.count <= 255) }
            if file.hasPrefix("media/") {
                let ext = file.split(separator: ".").last.map(String.init) ?? ""
                #expect(InertMedia.allowed.contains(ext) || ext == "bin", "\(file)")
            }
            guard file.hasSuffix(".html") || file.hasSuffix(".md") || file.hasSuffix(".xml") else { continue }
            let text = site.text(file)
            for target in Self.linkTargets(text) {
                #expect(SafeLink.allows(target), "\(file) links to \(target)")
            }
        }
        let attachments = site.text("board/\(HostileBoard.name)/2.html")
        #expect(attachments.contains("evil.txt"))
        #expect(files.filter { $0.hasPrefix("media/") }.allSatisfy { $0.hasSuffix(".bin") })
        // A click saves the file as the archive keeps it, not as the page or
        // program its name says (QA 7: `download="a.html"` undid the `.bin`).
        let saved = attachments.components(separatedBy: "download=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(!saved.isEmpty)
        for name in saved { #expect(name.hasSuffix(".bin"), "a .bin file saves as \(name)") }
        // A PDF that runs a script as it opens is kept as `.bin` too.
        #expect(saved.contains("\(HostileBoard.pdfName).bin"))

        // A site an older release built kept that PDF as `.pdf`: the next
        // build links the `.bin` and deletes the `.pdf`.
        let pdfMedia = try #require(files.first { $0.hasPrefix("media/") && site.text($0).hasPrefix("%PDF-") })
        let oldName = pdfMedia.replacingOccurrences(of: ".bin", with: ".pdf")
        try FileManager.default.copyItem(
            at: out.appendingPathComponent(pdfMedia), to: out.appendingPathComponent(oldName))
        let statePath = out.appendingPathComponent(BuildState.path)
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: statePath)) as? [String: Any])
        state["mediaRules"] = nil
        state["fingerprint"] = "made by an older release"
        try JSONSerialization.data(withJSONObject: state).write(to: statePath)
        _ = try await BuildAction(
            storePath: harness.storePath, outputPath: out.path, templatesPath: Fixtures.templates.path
        ).run()
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(oldName).path))
        #expect(
            site.text("board/\(HostileBoard.name)/2.html").contains(
                pdfMedia.split(separator: "/").last.map(String.init) ?? "?"))
        #expect(site.files().filter { $0.hasPrefix("media/") }.allSatisfy { $0.hasSuffix(".bin") })
    }

    /// With `--cookies` and the other host name allowed by `--media-host`,
    /// the redirect to it is followed hop by hop, and the login cookie goes
    /// only to the forum's own host, never across.
    @Test func cookiesNeverCrossHostsOnRedirects() async throws {
        var faults = ReplicaFaults()
        faults.hostile = true
        let harness = try await ReplicaHarness.start(Self.config, faults: faults)
        let own = "127.0.0.1:\(harness.port)"
        let other = HostileBoard.otherHost(own)
        let report = try await harness.fetch(
            boards: [HostileBoard.name], options: Archiver.Options(maxThreadPages: 2), retry: .fast,
            cookies: "session=secret", mediaHosts: [other])
        await harness.stop()

        let visits = harness.server.visits()
        let there = visits.filter { $0.host == other }
        #expect(there.contains { $0.target == "/att/\(HostileBoard.name)/2/5" }, "the redirect was followed")
        #expect(there.allSatisfy { $0.cookie == nil }, "\(there)")
        #expect(
            visits.filter { $0.host == own && $0.target.hasPrefix("/article/") }.allSatisfy {
                $0.cookie == "session=secret"
            })
        // The redirect from one thread to another is refused all the same.
        #expect(
            report.failures.contains { $0.url.contains("/article/\(HostileBoard.name)/\(HostileBoard.redirectGid)?") })
        // The capture is kept under the address asked for, with the one that answered beside it.
        let store = try harness.store()
        let moved = try store.latestCapture(url: harness.source.baseURL + "/att/\(HostileBoard.name)/2/4")
        #expect(moved?.url == "http://\(other)/att/\(HostileBoard.name)/2/5")
        #expect(moved?.requestedURL == harness.source.baseURL + "/att/\(HostileBoard.name)/2/4")
    }

    /// Chromium loads every page of the site built from the hostile board,
    /// and clicks every link on its thread pages: no script from the forum
    /// runs (no dialog opens, no inline script or handler, no
    /// `javascript:` / `data:` address, no script from elsewhere), and the feeds are well-formed.
    @Test func noScriptRunsAnywhereOnTheHostileSite() async throws {
        let python = try #require(ExternalTool.find("python3"), "no python3 on PATH: run `make setup`")
        try #require(ExternalTool.find("chromium") != nil, "no chromium on PATH: run `make setup`")
        var faults = ReplicaFaults()
        faults.hostile = true
        let harness = try await ReplicaHarness.start(Self.config, faults: faults)
        _ = try await harness.fetch(
            boards: [HostileBoard.name], options: Archiver.Options(maxThreadPages: 3), retry: .fast)
        await harness.stop()
        let siteURL = "https://example.org/smth/"
        let out = harness.folder.appendingPathComponent("site")
        _ = try await BuildAction(
            storePath: harness.storePath, outputPath: out.path, templatesPath: Fixtures.templates.path,
            siteURL: siteURL
        ).run()
        let site = SiteInspector(root: out)
        let files = site.files()
        let feeds = files.filter { $0.hasSuffix(".xml") }
        #expect(feeds.contains { $0.contains(HostileBoard.name) })
        for feed in feeds { #expect(site.isWellFormed(feed), "\(feed) is not well-formed") }

        let pages = files.filter { $0.hasSuffix(".html") }
        let threads = [1, 2].map { "board/\(HostileBoard.name)/\($0).html" }
        var arguments = [
            Fixtures.projectRoot.appendingPathComponent("scripts/browser-check.py").path, "--site", out.path,
            "--widths", "1440", "--schemes", "light", "--timeout", "40",
        ]
        for page in pages { arguments += ["--page", page] }
        for page in threads { arguments += ["--sweep", page] }
        let output = try ExternalTool.run(python, arguments, timeout: 300)
        #expect(output.status == 0, "browser-check.py exited \(output.status): \(output.errorText.suffix(800))")
        let report = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
        let loads = report["loads"] as? [[String: Any]] ?? []
        let sweeps = report["sweeps"] as? [[String: Any]] ?? []
        #expect(loads.count == pages.count)
        #expect(sweeps.count == threads.count)
        for entry in loads + sweeps {
            let page = entry["page"] as? String ?? "?"
            let problems = entry["problems"] as? [String] ?? []
            #expect(
                !problems.contains { $0.contains("dialog") || $0.contains("after clicking") }, "\(page): \(problems)")
            #expect(entry["inlineScripts"] as? Int == 0, "\(page)")
            for key in ["handlers", "scriptLinks"] {
                #expect((entry[key] as? [Any])?.isEmpty == true, "\(page) \(key): \(entry[key] ?? "missing")")
            }
            // 404.html names the archive's own scripts by the site's address, as it may be served from any path.
            let foreign = (entry["foreignScripts"] as? [String])?.filter { !$0.hasPrefix(siteURL + "assets/") }
            #expect(foreign?.isEmpty == true, "\(page) loads \(foreign ?? [])")
        }
        for sweep in sweeps { #expect((sweep["clicked"] as? Int ?? 0) > 3, "\(sweep["page"] ?? "?")") }
    }

    /// Every href and src in HTML, and every link and image target in Markdown.
    static func linkTargets(_ text: String) -> [String] {
        var targets: [String] = []
        for pattern in [#"(?:href|src)\s*=\s*"([^"]*)""#, #"\]\(<?([^)>\s]*)"#, #"(?:href|src)\s*=\s*'([^']*)'"#] {
            guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { continue }
            let range = NSRange(text.startIndex..., in: text)
            for match in regex.matches(in: text, range: range) {
                guard let r = Range(match.range(at: 1), in: text) else { continue }
                targets.append(decodeEntities(String(text[r])))
            }
        }
        return targets.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    static func decodeEntities(_ text: String) -> String {
        var out = text
        for (entity, character) in [("&amp;", "&"), ("&#58;", ":"), ("&#x3a;", ":"), ("&#x3A;", ":"), ("&colon;", ":")]
        {
            out = out.replacingOccurrences(of: entity, with: character)
        }
        return out
    }
}

/// Collects what the run told its watcher, as the terminal would get it.
final class EventLog: @unchecked Sendable {
    // @unchecked: `lines` is only touched while holding `lock`.
    private let lock = NSLock()
    private var stored: [String] = []

    func add(_ event: ProgressEvent) {
        let line: String
        switch event.terminalSafe {
        case .note(let message): line = message
        case .failure(let url, let reason): line = "\(url): \(reason)"
        case .retry(let url, let reason, _, _, _): line = "\(url): \(reason)"
        case .stage(let name, _, _, _): line = name
        }
        lock.withLock { stored.append(line) }
    }

    var lines: [String] { lock.withLock { stored } }
}

/// Inputs `make fuzz` found, kept so they stay fixed.
@Suite struct FuzzFindingsTests {
    /// A robots.txt pattern with NUL bytes made Foundation's `range(of:)`
    /// return a range outside the path, and `RobotsTxt.matches` trapped.
    @Test func robotsPatternsWithNulBytes() throws {
        // The input as libFuzzer saved it.
        let crash = try #require(
            Data(
                base64Encoded:
                    "VXNlci1hZ2VudDogKgphZGVsCkFsbG93OiAvIC9CZWljbApBKmUvbGxvs0FsbG93OiovCmVpY2wKQQoAb3c6c1VB"
                    + "bAoKclZhCkFsbG8KQWxsb3c6Ki8Kcqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"
                    + "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmFYWFhYKmUvbGxvCkFsbG93OiovCmVpY2wKQQoAb3c6c1VBbAoK"
                    + "clZhCkFsbG8KQWxsb3c6Ki8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAKcmE="))
        let robots = RobotsTxt(String(decoding: crash, as: UTF8.self))
        _ = robots.allows("/article/Test/700?p=2")
        _ = robots.allows("/")
        #expect(RobotsTxt.matches("/a\u{0}*b", "/a\u{0}xxb"))
        #expect(!RobotsTxt.matches("/\u{0}\u{0}*/", "/article/Test/700"))
    }
}

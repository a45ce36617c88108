import Foundation
import GRDB
import Testing

@testable import BBSArchive

/// search.html in headless Chromium over the replica archive: seeded random
/// queries of every kind against a ground truth computed from the store,
/// every page of results followed through `a[rel=next]`; served over HTTP by
/// `SiteServer` and opened from `file://`; and in a text browser without
/// JavaScript.
@Suite(.serialized) struct SearchBrowserTests {
    static let queriesPerKind = 40

    /// One post as the ground truth sees it.
    struct Document {
        var href: String
        var board: String
        var author: String
        var day: Int
        var text: [Unicode.Scalar]
    }

    struct Query {
        var kind: String
        var text: String
    }

    struct Outcome: Decodable {
        var q: String
        var total: Int
        var hits: [String]
        var error: String?
        /// Positions files (`search/p/`) the query loaded.
        var positions: Int?
    }

    /// Every post of the store: link, filters and normalized searchable text.
    static func documents(storePath: String, postsPerPage: Int = 20) throws -> [Document] {
        let store = try ArchiveStore(path: storePath)
        var documents: [Document] = []
        for board in try store.boards() {
            for thread in try store.threads(board: board.name) {
                for (index, post) in try store.posts(board: board.name, gid: thread.gid).enumerated() {
                    let text = SearchText.searchable(
                        post: post, threadTitle: thread.title, conventions: Fixtures.smthForum.conventions)
                    let c = Fixtures.smthForum.time.components(of: post.postedAt)
                    documents.append(
                        Document(
                            href: SitePaths.thread(board.name, gid: thread.gid, page: index / postsPerPage + 1)
                                + "#a\(post.floor)",
                            board: SearchText.normalize(board.name), author: SearchText.normalize(post.author),
                            day: c.year * 10000 + c.month * 100 + c.day,
                            text: Array(SearchText.normalize(text).unicodeScalars)))
                }
            }
        }
        return documents
    }

    /// The posts a query must find: every term a substring (compared by
    /// Unicode scalar, as JavaScript compares by code unit) and every filter.
    static func truth(_ query: String, in documents: [Document]) -> Set<String> {
        let parsed = SearchText.parse(query)
        guard parsed.canMatch else { return [] }
        let terms = parsed.terms.map { Array($0.unicodeScalars) }
        let after = parsed.after.map { Int($0.replacingOccurrences(of: "-", with: "")) ?? 0 }
        let before = parsed.before.map { Int($0.replacingOccurrences(of: "-", with: "")) ?? 0 }
        return Set(
            documents.filter { document in
                if let board = parsed.board, document.board != board { return false }
                if let author = parsed.author, document.author != author { return false }
                if let after, document.day < after { return false }
                if let before, document.day > before { return false }
                return terms.allSatisfy { contains(document.text, $0) }
            }.map(\.href))
    }

    static func contains(_ text: [Unicode.Scalar], _ term: [Unicode.Scalar]) -> Bool {
        guard !term.isEmpty, term.count <= text.count else { return term.isEmpty }
        var start = 0
        while start + term.count <= text.count {
            if text[start] == term[0], text[start..<start + term.count].elementsEqual(term) { return true }
            start += 1
        }
        return false
    }

    /// SplitMix64: the same queries on every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
    }

    static func isHan(_ s: Unicode.Scalar) -> Bool { (0x4E00...0x9FFF).contains(s.value) }
    static func isLatin(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("0"..."9").contains(s) }

    /// A run of `length` scalars of one class from a random document.
    static func fragment(
        _ documents: [Document], _ random: inout Random, length: Int, where test: (Unicode.Scalar) -> Bool
    ) -> (String, Document)? {
        for _ in 0..<500 {
            let document = documents[random.below(documents.count)]
            guard document.text.count >= length else { continue }
            let start = random.below(document.text.count - length + 1)
            let slice = document.text[start..<start + length]
            if slice.allSatisfy(test) { return (String(String.UnicodeScalarView(slice)), document) }
        }
        return nil
    }

    static func fullWidth(_ text: String, _ random: inout Random) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    var value = scalar.value
                    if ("a"..."z").contains(scalar), random.below(2) == 0 { value -= 32 }
                    return Unicode.Scalar(value + 0xFEE0) ?? scalar
                }))
    }

    /// 40 queries of each kind: Chinese substrings of 1–4 characters, Latin
    /// and digit fragments (prefixes and infixes), their full-width upper-case
    /// forms, several terms and phrases, and filters.
    static func queries(_ documents: [Document], seed: UInt64) -> [Query] {
        var random = Random(state: seed)
        var queries: [Query] = []
        let days = documents.map(\.day).sorted()
        func dayText(_ day: Int) -> String { String(format: "%04d-%02d-%02d", day / 10000, day / 100 % 100, day % 100) }
        for index in 0..<queriesPerKind {
            if let (text, _) = fragment(documents, &random, length: index % 4 + 1, where: isHan) {
                queries.append(Query(kind: "chinese", text: text))
            }
            if let (text, _) = fragment(documents, &random, length: 2 + random.below(5), where: isLatin) {
                queries.append(Query(kind: "latin", text: text))
                queries.append(Query(kind: "full-width", text: fullWidth(text, &random)))
            }
            if let (first, document) = fragment(documents, &random, length: 2 + random.below(2), where: isHan) {
                var second = ""
                for _ in 0..<50 where second.isEmpty {
                    let length = 3 + random.below(4)
                    guard document.text.count > length else { break }
                    let start = random.below(document.text.count - length)
                    let slice = document.text[start..<start + length]
                    if slice.contains(where: { $0 == "\n" || $0 == "\"" }) { continue }
                    let text = String(String.UnicodeScalarView(slice))
                    if text.first?.isWhitespace == true || text.last?.isWhitespace == true { continue }
                    second = text.contains(" ") ? "\"\(text)\"" : text
                }
                let extra = index % 3 == 0 ? " " + (fragment(documents, &random, length: 1, where: isHan)?.0 ?? "") : ""
                queries.append(Query(kind: "multi", text: "\(first) \(second)\(extra)"))
            }
            if let (term, document) = fragment(documents, &random, length: 1 + random.below(2), where: isHan) {
                let day = days[random.below(days.count)]
                let filter =
                    switch index % 5 {
                    case 0: "board:\(document.board)"
                    case 1: "author:\(document.author)"
                    case 2: "after:\(dayText(day))"
                    case 3: "before:\(dayText(day))"
                    default: "board:\(documents[random.below(documents.count)].board) after:\(dayText(day))"
                    }
                queries.append(Query(kind: "filter", text: index % 2 == 0 ? "\(term) \(filter)" : "\(filter) \(term)"))
            }
        }
        return queries
    }

    /// Runs every query through the page's own form, following rel=next.
    static func driver(_ queries: [String]) throws -> String {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: queries), as: UTF8.self)
        return """
            (async (queries) => {
              const form = document.getElementById('search-form'), input = document.getElementById('search-q');
              const results = document.getElementById('results');
              const wait = (q, page) => new Promise((resolve, reject) => {
                const began = Date.now();
                const tick = () => {
                  if (results.getAttribute('aria-busy') === 'false' && results.dataset.query === q
                      && results.dataset.page === String(page)) resolve();
                  else if (Date.now() - began > 20000) reject(new Error('no page ' + page + ' for ' + q + ': busy '
                    + results.getAttribute('aria-busy') + ', showing ' + results.dataset.query + ' page '
                    + results.dataset.page + ', status ' + document.getElementById('search-status').textContent));
                  else setTimeout(tick, 5);
                };
                tick();
              });
              const out = [];
              const positions = () => document.querySelectorAll('script[src*="search/p/"]').length;
              for (const q of queries) {
                const before = positions();
                try {
                  input.value = q;
                  form.requestSubmit();
                  await wait(q, 1);
                  const total = Number(results.dataset.total), hits = [];
                  for (let page = 1; ; page++) {
                    results.querySelectorAll('a.hit').forEach(a => hits.push(a.getAttribute('href')));
                    const next = results.querySelector('a[rel=next]');
                    if (!next) break;
                    next.click();
                    await wait(q, page + 1);
                  }
                  out.push({q, total, hits, url: location.search, positions: positions() - before});
                } catch (error) {
                  out.push({q, total: -1, hits: [], error: String(error)});
                }
              }
              return JSON.stringify(out);
            })(\(json))
            """
    }

    /// Waits for the results of the query the address holds; `more`: other
    /// fields of the answer, as JavaScript (`, name: value`).
    static func pageResult(_ more: String = "") -> String {
        """
        new Promise(resolve => {
          const tick = () => {
            const results = document.getElementById('results');
            if (results && results.getAttribute('aria-busy') === 'false' && results.dataset.query !== undefined) {
              resolve(JSON.stringify({q: new URLSearchParams(location.search).get('q') || '',
                total: Number(results.dataset.total),
                hits: [...results.querySelectorAll('a.hit')].map(a => a.getAttribute('href'))\(more)}));
            } else setTimeout(tick, 5);
          };
          tick();
        })
        """
    }

    static func probe(site: SiteInspector, base: String?, probes: [(String, String)]) async throws
        -> BrowserTests.Report
    {
        let python = try #require(ExternalTool.find("python3"), "no python3 on PATH: run `make setup`")
        try #require(ExternalTool.find("chromium") != nil, "no chromium on PATH: run `make setup`")
        var arguments = [
            Fixtures.projectRoot.appendingPathComponent("scripts/browser-check.py").path, "--site", site.root.path,
            "--widths", "1024", "--schemes", "light", "--timeout", "120",
        ]
        if let base { arguments += ["--base", base] }
        for (page, expression) in probes { arguments += ["--probe", page, expression] }
        // On a Dispatch thread: the in-process server needs the cooperative pool.
        let command = arguments
        let output = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    continuation.resume(returning: try ExternalTool.run(python, command, timeout: 400))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        #expect(!output.timedOut, "the search harness did not finish")
        #expect(output.status == 0, "browser-check.py exited \(output.status): \(output.errorText.suffix(800))")
        return try JSONDecoder().decode(BrowserTests.Report.self, from: output.stdout)
    }

    @Test func seededQueriesFindExactlyTheMatchingPostsOverHTTPAndFromDisk() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let documents = try Self.documents(storePath: built.storePath)
        let queries = Self.queries(documents, seed: 9)
        for kind in ["chinese", "latin", "full-width", "multi", "filter"] {
            #expect(queries.filter { $0.kind == kind }.count >= Self.queriesPerKind, "too few \(kind) queries")
        }
        let server = SiteServer(root: built.plain.root)
        let base = try await server.start()
        defer { Task { await server.stop() } }

        // A few of the same queries opened from disk, as addresses.
        let fromDisk = stride(from: 0, to: queries.count, by: queries.count / 6).map { queries[$0].text }
        let pageProbes = fromDisk.map { q in
            (
                "search.html?q=" + (q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                Self.pageResult()
            )
        }
        let report = try await Self.probe(
            site: built.plain, base: base, probes: [("search.html", try Self.driver(queries.map(\.text)))])
        await server.stop()
        let onDisk = try await Self.probe(site: built.plain, base: nil, probes: pageProbes)

        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        let probe = try #require(report.probes.first)
        #expect(probe.problems.isEmpty, "console: \(probe.problems)")
        let outcomes = try JSONDecoder().decode([Outcome].self, from: Data((probe.value ?? "[]").utf8))
        #expect(outcomes.count == queries.count, "\(probe.error ?? "")")
        var matchedSomething = 0
        for (query, outcome) in zip(queries, outcomes) {
            let expected = Self.truth(query.text, in: documents)
            if !expected.isEmpty { matchedSomething += 1 }
            #expect(outcome.error == nil, "\(query.kind) \(query.text): \(outcome.error ?? "")")
            #expect(outcome.total == expected.count, "\(query.kind) «\(query.text)»: total")
            #expect(outcome.hits.count == Set(outcome.hits).count, "\(query.kind) «\(query.text)»: a post twice")
            let found = Set(outcome.hits)
            #expect(
                found == expected,
                "\(query.kind) «\(query.text)»: missing \(expected.subtracting(found).sorted().prefix(5)), extra \(found.subtracting(expected).sorted().prefix(5))"
            )
        }
        // Queries come from the posts, so nearly all must match something.
        #expect(matchedSomething >= queries.count * 9 / 10)
        // Positions load only for terms of three or more characters, and
        // only when the document lists leave a candidate.
        var loadedPositions = 0
        for (query, outcome) in zip(queries, outcomes) {
            let loaded = outcome.positions ?? 0
            loadedPositions += loaded
            let long = SearchText.parse(query.text).terms.contains { $0.unicodeScalars.count > 2 }
            if !long {
                #expect(loaded == 0, "\(query.kind) «\(query.text)»: positions loaded for short terms")
            }
        }
        #expect(loadedPositions > 0, "no query loaded positions; the check proves nothing")

        #expect(onDisk.fatal == nil, "browser: \(onDisk.fatal ?? "")")
        for (q, result) in zip(fromDisk, onDisk.probes) {
            #expect(result.problems.isEmpty, "console on file://: \(result.problems)")
            let outcome = try JSONDecoder().decode(Outcome.self, from: Data((result.value ?? "{}").utf8))
            let expected = Self.truth(q, in: documents)
            #expect(outcome.q == q)
            #expect(outcome.total == expected.count, "file:// «\(q)»: total")
            #expect(outcome.hits.count == min(20, expected.count), "file:// «\(q)»: first page")
            #expect(Set(outcome.hits).isSubset(of: expected), "file:// «\(q)»: hits that do not match")
        }
    }

    /// The rows of a page of results, its loads of `search/d/` files from
    /// the network (not the browser's cache, which answers a Range request
    /// for a file it holds whole itself): (path under search/, body bytes, status).
    static let rowLoads = pageResult(
        """
        ,
          loads: performance.getEntriesByType('resource')
            .filter(e => e.name.includes('/search/d/') && e.transferSize > 0)
            .map(e => [e.name.split('/search/')[1], e.encodedBodySize, e.responseStatus])
        """)

    struct RowLoads: Decodable {
        var q: String
        var total: Int
        var hits: [String]
        var loads: [[Loaded]]

        enum Loaded: Decodable {
            case path(String)
            case number(Int)
            init(from decoder: Decoder) throws {
                let value = try decoder.singleValueContainer()
                if let number = try? value.decode(Int.self) {
                    self = .number(number)
                } else {
                    self = .path(try value.decode(String.self))
                }
            }
            var number: Int? { if case .number(let n) = self { n } else { nil } }
            var path: String? { if case .path(let p) = self { p } else { nil } }
        }
    }

    /// Over HTTP the client reads only the rows it shows of each chunk
    /// (Range requests: 206, fewer bytes than the file); a static host that
    /// ignores Range (Python's `http.server` answers 200 with the whole
    /// file) gets the same results, each chunk read once, whole.
    @Test func rowsComeByRangeAndWholeFromAHostWithoutIt() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let documents = try Self.documents(storePath: built.storePath)
        let all = Self.queries(documents, seed: 9)
        // Queries with more than one page of hits, from every kind.
        let chosen = Array(
            ["chinese", "latin", "multi", "filter"].compactMap { kind in
                all.first { $0.kind == kind && Self.truth($0.text, in: documents).count > 20 }
            })
        try #require(chosen.count >= 3)
        let probes = chosen.map { query in
            (
                "search.html?q=" + (query.text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                Self.rowLoads
            )
        }
        let root = built.plain.root
        func size(_ path: String) -> Int {
            let file = root.appendingPathComponent("search").appendingPathComponent(path)
            return (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? -1
        }
        func check(_ report: BrowserTests.Report, ranged: Bool, host: String) throws {
            #expect(report.fatal == nil, "\(host): \(report.fatal ?? "")")
            #expect(report.probes.count == chosen.count)
            for (query, probe) in zip(chosen, report.probes) {
                #expect(probe.problems.isEmpty, "\(host) «\(query.text)»: \(probe.problems)")
                let outcome = try JSONDecoder().decode(RowLoads.self, from: Data((probe.value ?? "{}").utf8))
                let expected = Self.truth(query.text, in: documents)
                #expect(outcome.total == expected.count, "\(host) «\(query.text)»: total")
                #expect(outcome.hits.count == 20, "\(host) «\(query.text)»: first page")
                #expect(Set(outcome.hits).isSubset(of: expected), "\(host) «\(query.text)»: hits that do not match")
                if ranged { #expect(!outcome.loads.isEmpty, "\(host) «\(query.text)»: no rows loaded") }
                for load in outcome.loads {
                    let path = load.first?.path ?? "?"
                    let bytes = load.count > 1 ? load[1].number ?? -1 : -1
                    let status = load.count > 2 ? load[2].number ?? -1 : -1
                    let expected = ranged ? status == 206 && bytes < size(path) : status == 200 && bytes == size(path)
                    if !expected {
                        Issue.record(
                            "\(host) «\(query.text)»: \(path) answered \(status), \(bytes) of \(size(path)) bytes")
                    }
                }
                if !ranged {
                    let paths = outcome.loads.compactMap { $0.first?.path }
                    if paths.count != Set(paths).count {
                        Issue.record("\(host) «\(query.text)»: a chunk read twice: \(paths)")
                    }
                }
            }
        }

        let server = SiteServer(root: root)
        let base = try await server.start()
        // A browser each query: its cache answers a Range request for a
        // file it already holds whole by itself.
        func run(_ base: String) async throws -> BrowserTests.Report {
            var report = try await Self.probe(site: built.plain, base: base, probes: [probes[0]])
            for probe in probes.dropFirst() {
                report.probes += try await Self.probe(site: built.plain, base: base, probes: [probe]).probes
            }
            return report
        }
        let served = try await run(base)
        await server.stop()
        try check(served, ranged: true, host: "SiteServer")

        let python = try #require(ExternalTool.find("python3"), "no python3 on PATH: run `make setup`")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-u", "-c",
            """
            import http.server, os, sys
            os.chdir(sys.argv[1])
            class Handler(http.server.SimpleHTTPRequestHandler):
                def log_message(self, *args): pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """,
            root.path,
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // SIGKILL: the test process may pass SIGTERM on ignored.
        defer { kill(process.processIdentifier, SIGKILL) }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), "python said \(line)")
        let plain = try await run("http://127.0.0.1:\(port)/")
        try check(plain, ranged: false, host: "http.server")
    }

    @Test func typingThisBoardSortingAndTheAddressWork() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let documents = try Self.documents(storePath: built.storePath)
        let board = try #require(built.forum.boardNames.first)
        let term = "的"
        let typing = """
            new Promise(resolve => {
              const input = document.getElementById('search-q'), results = document.getElementById('results');
              input.value = '\(term)';
              input.dispatchEvent(new Event('input', {bubbles: true}));
              const tick = () => {
                if (results.dataset.query === '\(term)' && results.getAttribute('aria-busy') === 'false')
                  resolve(JSON.stringify({q: new URLSearchParams(location.search).get('q'), total: Number(results.dataset.total),
                    hits: [...results.querySelectorAll('a.hit')].map(a => a.getAttribute('href'))}));
                else setTimeout(tick, 10);
              };
              tick();
            })
            """
        let newest = """
            new Promise(resolve => {
              const tick = () => {
                const results = document.getElementById('results');
                if (results.getAttribute('aria-busy') === 'false' && results.dataset.query) {
                  resolve(JSON.stringify([...results.querySelectorAll('.hits .meta')].map(m => m.textContent.split(' · ')[2])));
                } else setTimeout(tick, 10);
              };
              tick();
            })
            """
        let report = try await Self.probe(
            site: built.plain, base: nil,
            probes: [
                ("search.html", typing),
                (
                    "search.html?q=\(term.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&board=\(board)",
                    Self.pageResult()
                ),
                (
                    "search.html?q=\(term.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&sort=newest",
                    newest
                ),
            ])
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        #expect(report.probes.count == 3)
        guard report.probes.count == 3 else { return }
        for probe in report.probes { #expect(probe.problems.isEmpty, "console: \(probe.problems)") }

        // Search as you type: results without submitting, the address kept.
        let typed = try JSONDecoder().decode(Outcome.self, from: Data((report.probes[0].value ?? "{}").utf8))
        #expect(typed.q == term)
        #expect(typed.total == Self.truth(term, in: documents).count)
        #expect(typed.total > 20)

        // 本版搜索: the same query with board:, in the address too.
        let here = try JSONDecoder().decode(Outcome.self, from: Data((report.probes[1].value ?? "{}").utf8))
        #expect(here.q == "\(term) board:\(board)")
        #expect(here.total == Self.truth("\(term) board:\(board)", in: documents).count)
        #expect(here.hits.allSatisfy { $0.hasPrefix("board/\(board)/") })

        // Newest first.
        let times = try JSONDecoder().decode([String].self, from: Data((report.probes[2].value ?? "[]").utf8))
        #expect(times.count == 20)
        #expect(times == times.sorted(by: >))
    }

    /// An index of another layout version (one left from an older release)
    /// is refused with a message that says to build again, not misread.
    @Test func anIndexOfAnotherVersionIsRefusedWithAMessage() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let root = try Fixtures.temporaryFolder("search-version").appendingPathComponent("site")
        try FileManager.default.copyItem(at: built.plain.root, to: root)
        let manifest = root.appendingPathComponent(SearchIndexWriter.manifestPath)
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let current = "\"version\":\(SearchIndexWriter.version),"
        #expect(text.contains(current))
        try Data(text.replacingOccurrences(of: current, with: "\"version\":4,").utf8).write(to: manifest)
        let status = """
            new Promise(resolve => {
              const tick = () => {
                const results = document.getElementById('results');
                if (results.getAttribute('aria-busy') === 'false' && results.dataset.query)
                  resolve(JSON.stringify({total: results.dataset.total,
                    status: document.getElementById('search-status').textContent}));
                else setTimeout(tick, 10);
              };
              tick();
            })
            """
        let report = try await Self.probe(
            site: SiteInspector(root: root), base: nil, probes: [("search.html?q=%E7%9A%84", status)])
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        let value = try #require(report.probes.first?.value)
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: String])
        #expect(shown["total"] == "0")
        #expect(shown["status"]?.contains("bbsarchive build --full") == true, "\(shown)")
    }

    /// An index whose shards mostly hold nothing (no file, the manifest
    /// lists the others), appended to with terms that fall in such shards:
    /// queries of present and absent terms answer exactly, over HTTP and
    /// from `file://`, and the client never asks for a shard without a file
    /// (no failed load, no script error).
    @Test func absentShardsAreAnsweredWithoutARequestOverHTTPAndFromDisk() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let (path, store) = try await SearchIndexTests.sparseCopy("search-absent-browser")
        let root = try Fixtures.temporaryFolder("search-absent-site").appendingPathComponent("site")
        try FileManager.default.copyItem(at: built.plain.root, to: root)
        // Only the files this index writes: a request for any other fails.
        try FileManager.default.removeItem(at: root.appendingPathComponent(SearchIndexWriter.folder))
        let publisher = try DiskPublisher(root: root)
        let writer = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
        let output = SearchIndexWriter.Output(publisher)
        _ = try writer.update(SearchChanges(threads: nil), output)
        let before = try #require(
            publisher.read(SearchIndexWriter.manifestPath).flatMap(SearchIndexWriter.parseManifest))
        let absent = SearchIndexTests.absentCharacters(before.shards, present: before.present)
        #expect(absent.count >= 6)
        // A reply whose character and pair fall in shards without a file.
        let added = absent[0] + absent[0]
        let changes = try await SearchIndexTests.insert(path, store, [(0, 1000, "甲" + added)])
        #expect(try !writer.update(changes, output).full)
        try publisher.flush()
        let manifest = try #require(
            publisher.read(SearchIndexWriter.manifestPath).flatMap(SearchIndexWriter.parseManifest))
        let files = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("search/s").path)
        #expect(files.count == manifest.present.count && manifest.present.count < manifest.shards / 2)
        // The reply is in the recent tail: its shards still have no file.
        #expect(
            manifest.recent > 0
                && !manifest.present.contains(Int(SearchIndexWriter.hash(absent[0]) % UInt32(manifest.shards))))
        let missing = SearchIndexTests.absentCharacters(manifest.shards, present: manifest.present).filter {
            $0 != absent[0]
        }
        let queries = [
            "甲", "甲甲", "甲甲甲", absent[0], added, "甲" + added, missing[0], missing[0] + missing[1],
            missing[0] + missing[1] + missing[2], "甲 " + missing[3], "\(missing[1]) board:\(missing[2])",
            "author:\(missing[4])",
        ]
        let documents = try Self.documents(storePath: path)
        let server = SiteServer(root: root)
        let base = try await server.start()
        defer { Task { await server.stop() } }
        // Every index script the page loaded names a file that is there.
        let loaded = "JSON.stringify([...document.querySelectorAll('script[src*=\"search/\"]')].map(s => s.src))"
        let report = try await Self.probe(
            site: SiteInspector(root: root), base: base,
            probes: [("search.html", try Self.driver(queries)), ("search.html?q=%E7%94%B2", loaded)])
        await server.stop()
        let onDisk = try await Self.probe(
            site: SiteInspector(root: root), base: nil,
            probes: queries.map { q in
                (
                    "search.html?q=" + (q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                    Self.pageResult()
                )
            })
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        #expect(report.probes.count == 2)
        guard report.probes.count == 2 else { return }
        #expect(report.probes[0].problems.isEmpty, "console: \(report.probes[0].problems)")
        let outcomes = try JSONDecoder().decode([Outcome].self, from: Data((report.probes[0].value ?? "[]").utf8))
        #expect(outcomes.count == queries.count)
        var found = 0
        for (query, outcome) in zip(queries, outcomes) {
            let expected = Self.truth(query, in: documents)
            found += expected.isEmpty ? 0 : 1
            #expect(outcome.error == nil, "«\(query)»: \(outcome.error ?? "")")
            #expect(outcome.total == expected.count, "«\(query)»: total")
            #expect(Set(outcome.hits) == expected, "«\(query)»")
        }
        #expect(found == 4, "甲, the added character, its pair and 甲 before it find posts")
        let scripts = try JSONDecoder().decode([String].self, from: Data((report.probes[1].value ?? "[]").utf8))
        #expect(!scripts.isEmpty)
        for src in scripts {
            let relative = try #require(src.range(of: "/search/").map { "search/" + src[$0.upperBound...] })
            #expect(publisher.read(relative) != nil, "the client asked for \(relative)")
        }
        #expect(onDisk.fatal == nil, "browser: \(onDisk.fatal ?? "")")
        #expect(onDisk.probes.count == queries.count)
        for (q, result) in zip(queries, onDisk.probes) {
            #expect(result.problems.isEmpty, "console on file:// «\(q)»: \(result.problems)")
            let outcome = try JSONDecoder().decode(Outcome.self, from: Data((result.value ?? "{}").utf8))
            let expected = Self.truth(q, in: documents)
            #expect(outcome.total == expected.count, "file:// «\(q)»: total")
            #expect(Set(outcome.hits).isSubset(of: expected) && outcome.hits.count == min(20, expected.count))
        }
    }

    /// The site's client is the source without its comment lines, blank
    /// lines and indentation: smaller, the same code (the queries above run on it).
    @Test func theSiteGetsTheClientWithoutItsComments() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let source = try Data(
            contentsOf: Fixtures.projectRoot.appendingPathComponent("templates").appendingPathComponent(
                SitePaths.searchScript))
        let served = try Data(contentsOf: built.plain.root.appendingPathComponent(SitePaths.searchScript))
        #expect(served == SearchClient.published(source))
        #expect(served.count + 5000 < source.count, "\(served.count) of \(source.count) bytes")
        let lines = String(decoding: served, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(!lines.dropLast().contains { $0.isEmpty || $0.hasPrefix(" ") || $0.hasPrefix("//") })
        // Code lines stay as they were, in order: only whole comment lines, blank lines and indentation go.
        let code = String(decoding: source, as: UTF8.self).split(separator: "\n").map {
            $0.drop { $0 == " " || $0 == "\t" }
        }.filter { !$0.isEmpty && !$0.hasPrefix("//") }
        #expect(lines.dropLast().map(Substring.init) == code)
        #expect(
            SearchClient.published(Data("  // a\n\n  var a = 1; // b\n\t//c\n'//'\n".utf8))
                == Data("var a = 1; // b\n'//'\n".utf8))
        // Only the leading blanks go (a CR at the end stays), one slash is code, the last line gets its newline.
        #expect(SearchClient.published(Data("a\r\n\r// c\n   \n/\nx".utf8)) == Data("a\r\n/\nx\n".utf8))
        #expect(SearchClient.published(Data()).isEmpty)
    }

    /// An index appended to (old posts placed among the others, new ones,
    /// tails merged into their shards, a reply in the recent tail) answers as exactly as one written
    /// whole: seeded filter queries and the added posts' own words, newest first.
    @Test func anAppendedIndexAnswersExactlyWithDatesAndNewestFirst() async throws {
        let (path, root) = try await Self.siteAndStoreCopy("search-appended")
        let store = try ArchiveStore(path: path)
        let publisher = try DiskPublisher(root: root)
        // Every append flushed into the shards' tails, as when the recent tail overflows;
        // 8 documents a shard, so that some shards are left without a tail.
        var writer = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
        writer.recentLimit = 0
        writer.documentsPerShard = 8
        let output = SearchIndexWriter.Output(publisher)
        _ = try writer.update(SearchChanges(threads: nil), output)
        let day: Int64 = 86_400
        var merged = false
        for round in 0..<8 {
            let filler = (0..<30).map { "甲乙丙丁戊己庚辛壬癸\($0 + round)" }.joined(separator: " ")
            let changes = try await SearchIndexTests.insert(
                path, store,
                [
                    (round, -Int64(10 + round % 3 * 20) * day, "旧帖重来 Qwertz \(filler)"),
                    (round + 3, -Int64(10 + round % 3 * 20) * day, "同秒旧帖 Qwertz"),
                    (round + 1, Int64(60 * (round + 1)), "新的回复 Qwertz \(filler)"),
                ])
            let shards = try FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent("search/s").path
            )
            .map { try SearchIndexWriter.unflagged(Data(contentsOf: root.appendingPathComponent("search/s/" + $0))) }
            let report = try writer.update(changes, output)
            #expect(!report.full)
            let after = try FileManager.default.contentsOfDirectory(
                atPath: root.appendingPathComponent("search/s").path
            )
            .map { try SearchIndexWriter.unflagged(Data(contentsOf: root.appendingPathComponent("search/s/" + $0))) }
            // A shard flagged for its first tail is not a merge; changed lists are.
            if Set(shards) != Set(after) { merged = true }
        }
        // Then a reply that stays in the recent tail, which the client loads too.
        let recent = try await SearchIndexTests.insert(path, store, [(9, 600, "最近的回复 Qwertz 鹦鹉螺")])
        var holding = writer
        holding.recentLimit = 1 << 20
        #expect(try !holding.update(recent, output).full)
        try publisher.flush()
        #expect(merged, "no tail was merged into its shard")
        // Some shards have tails (which the client loads), the others none (which it must not ask for).
        let tails = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("search/t").path)
        let manifest = try #require(
            publisher.read(SearchIndexWriter.manifestPath).flatMap(SearchIndexWriter.parseManifest))
        #expect(!tails.isEmpty && tails.count < manifest.shards, "\(tails.count) tails of \(manifest.shards) shards")
        #expect(manifest.recent > 0, "the recent tail holds the last reply")
        let late = try #require(publisher.read(SearchIndexWriter.latePath).flatMap(SearchIndexWriter.parseLate))
        #expect(late.count == 16)

        let documents = try Self.documents(storePath: path)
        var queries = Self.queries(documents, seed: 21).filter { $0.kind == "filter" || $0.kind == "multi" }.map(\.text)
        let oldDays = try await GRDBTestAccess.open(path).queue.read { db in
            try Int64.fetchAll(db, sql: "SELECT DISTINCT postedAt FROM post WHERE body LIKE '%Qwertz%'")
        }.map { Fixtures.smthForum.time.components(of: Date(timeIntervalSince1970: TimeInterval($0))) }
            .map { String(format: "%04d-%02d-%02d", $0.year, $0.month, $0.day) }
        for text in Set(oldDays) {
            queries += [
                "Qwertz after:\(text)", "Qwertz before:\(text)", "after:\(text) before:\(text)", "旧帖 before:\(text)",
            ]
        }
        // The recent tail's words: lists and pairs' positions from it alone, and with the shards'.
        queries += ["鹦鹉螺", "最近的回复", "\"的回复\"", "鹦鹉 Qwertz", "回复 旧帖"]
        let server = SiteServer(root: root)
        let base = try await server.start()
        defer { Task { await server.stop() } }
        let newest = """
            new Promise(resolve => {
              const tick = () => {
                const results = document.getElementById('results');
                if (results.getAttribute('aria-busy') === 'false' && results.dataset.query) {
                  resolve(JSON.stringify([...results.querySelectorAll('a.hit')].map(a => a.getAttribute('href'))));
                } else setTimeout(tick, 10);
              };
              tick();
            })
            """
        let report = try await Self.probe(
            site: SiteInspector(root: root), base: base,
            probes: [("search.html", try Self.driver(queries)), ("search.html?q=Qwertz&sort=newest", newest)])
        await server.stop()
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        #expect(report.probes.count == 2)
        guard report.probes.count == 2 else { return }
        #expect(report.probes[0].problems.isEmpty, "console: \(report.probes[0].problems)")
        try Self.expectExactHits(report.probes[0], queries, in: documents)
        // Newest first: the posts with the word, by time (then board, thread, floor), newest first.
        let order = try GRDBTestAccess.open(path).queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT board, gid, floor, (SELECT count(*) FROM post q WHERE q.board = p.board AND q.gid = p.gid AND q.floor < p.floor) AS position
                    FROM post p WHERE body LIKE '%Qwertz%' ORDER BY postedAt DESC, board DESC, gid DESC, floor DESC
                    """)
        }.map { row in
            SitePaths.thread(row["board"], gid: row["gid"], page: (row["position"] as Int) / 20 + 1)
                + "#a\(row["floor"] as Int)"
        }
        let shown = try JSONDecoder().decode([String].self, from: Data((report.probes[1].value ?? "[]").utf8))
        #expect(shown == Array(order.prefix(20)))
    }

    /// The page's lower case is the index's, in the scripts where the two
    /// languages could differ: a capital sigma that ends the query (`ΟΔΟΣ`
    /// is `οδος` in JavaScript, `οδοσ` in Swift) finds the word it ends
    /// and the word it begins, and a dotted capital I, ß and ligatures
    /// find what the store's text holds.
    @Test func theClientFoldsCaseAsTheIndexDoes() async throws {
        let (path, root) = try await Self.siteAndStoreCopy("search-case")
        let (store, publisher, writer, output) = try Self.indexed(path, root)
        let changes = try await SearchIndexTests.insert(
            path, store,
            [
                (1, 60, "希腊文 ΟΔΟΣΑ ΜΕΓΑΛΗ"), (2, 120, "小写的 οδος σοφος"), (3, 180, "İSTANBUL 之旅"),
                (4, 240, "Straße STRASSE ﬁle Ǆ"),
            ])
        _ = try writer.update(changes, output)
        try publisher.flush()
        let documents = try Self.documents(storePath: path)
        let queries = [
            "ΟΔΟΣ", "οδος", "οδοσ", "ΣΟΦΟΣ", "σοφος", "\"ΟΔΟΣ Α\"", "İstanbul", "istanbul", "STRAẞE", "straße",
            "strasse", "FILE", "ǆ", "Ǆ",
        ]
        // A capital sigma at the end finds the lower-case word and the word it begins.
        #expect(Self.truth("ΟΔΟΣ", in: documents).count == 2)
        #expect(Self.truth("ΣΟΦΟΣ", in: documents).count == 1)
        #expect(Self.truth("İstanbul", in: documents).count == 1)
        #expect(Self.truth("file", in: documents).count == 1)
        let report = try await Self.probe(
            site: SiteInspector(root: root), base: nil, probes: [("search.html", try Self.driver(queries))])
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        let probe = try #require(report.probes.first)
        #expect(probe.problems.isEmpty, "console: \(probe.problems)")
        try Self.expectExactHits(probe, queries, in: documents)
    }

    /// A result's snippet marks what the query found as the reader sees it:
    /// in text not in composed form (an accent typed as a combining mark,
    /// Hangul typed as jamo), which the index normalized whole and the
    /// snippet one code point at a time, so nothing was marked; and once
    /// for a term the query repeats, where a link that repeated a term
    /// marked every match of a long post once per copy (a 300 kB post and
    /// a term 2,000 times over froze the tab).
    @Test func theSnippetMarksWhatWasFoundInAnyFormAndEachTermOnce() async throws {
        let (path, root) = try await Self.siteAndStoreCopy("search-marks")
        let (store, publisher, writer, output) = try Self.indexed(path, root)
        let long = "长帖开头 " + String(repeating: "zq ", count: 100_000)
        let changes = try await SearchIndexTests.insert(
            path, store,
            [
                (1, 60, "咖啡馆的 Cafe\u{301} 和 \u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8} 菜单"),
                (2, 120, long),
            ])
        _ = try writer.update(changes, output)
        try publisher.flush()
        let repeated = Array(repeating: "zq", count: 2000).joined(separator: " ")
        let queries = ["café", "한국", repeated]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: queries), as: UTF8.self)
        let probe = """
            (async (queries) => {
              const form = document.getElementById('search-form'), input = document.getElementById('search-q');
              const results = document.getElementById('results');
              const out = [];
              for (const q of queries) {
                input.value = q;
                form.requestSubmit();
                const began = Date.now();
                while (!(results.getAttribute('aria-busy') === 'false' && results.dataset.query === q)) {
                  if (Date.now() - began > 60000) { out.push({q, error: 'no results'}); break; }
                  await new Promise(resolve => setTimeout(resolve, 5));
                }
                out.push({q, total: Number(results.dataset.total),
                  marks: [...results.querySelectorAll('mark')].map(m => m.textContent.normalize('NFC'))});
              }
              return JSON.stringify(out);
            })(\(json))
            """
        let answers = try await Self.answers(of: probe, root: root)
        try #require(answers.count == 3, "\(answers)")
        #expect(answers.allSatisfy { $0["error"] == nil }, "\(answers.map { $0["error"] ?? "" })")
        #expect(answers[0]["total"] as? Int == 1 && answers[0]["marks"] as? [String] == ["Café"])
        #expect(answers[1]["total"] as? Int == 1 && answers[1]["marks"] as? [String] == ["한국"])
        // The snippet's 140 characters hold about 37 matches, each marked once.
        let marks = answers[2]["marks"] as? [String] ?? []
        #expect(answers[2]["total"] as? Int == 1 && (30...50).contains(marks.count) && Set(marks) == ["zq"])
    }

    /// A term's occurrences in a post are looked up from its rarest pair and
    /// counted up to a cap: a long post of one letter and a query of 40
    /// lengths of it (QA: 300 kB and 80 terms kept the tab busy for 23 s),
    /// or a term whose common pairs match everywhere but whose rare one
    /// matches once, cost thousands of lookups, not tens of millions, and
    /// still find exactly the posts that hold every term.
    @Test func aLongPostOfOneLetterCostsWhatItsRarestPairCosts() async throws {
        let (path, root) = try await Self.siteAndStoreCopy("search-work")
        let (store, publisher, writer, output) = try Self.indexed(path, root)
        let changes = try await SearchIndexTests.insert(
            path, store,
            [
                (1, 60, String(repeating: "a", count: 60_000)),
                (2, 120, String(repeating: "a", count: 30_000) + String(repeating: "b", count: 30_000)),
                (3, 180, "aaab 其他"),
            ])
        _ = try writer.update(changes, output)
        try publisher.flush()
        let documents = try Self.documents(storePath: path)
        let lengths = (3...42).map { String(repeating: "a", count: $0) }.joined(separator: " ")
        let queries = [lengths, String(repeating: "a", count: 20) + "bb", "aab", "aaaa"]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: queries), as: UTF8.self)
        let probe = """
            (async (queries) => {
              const out = [];
              for (const q of queries) {
                window.BBSSearch.work = 0;
                const hits = await window.BBSSearch.all(q);
                out.push({q, hits: hits.length, work: window.BBSSearch.work});
              }
              return JSON.stringify(out);
            })(\(json))
            """
        let answers = try await Self.answers(of: probe, root: root)
        try #require(answers.count == queries.count, "\(answers)")
        for (query, answer) in zip(queries, answers) {
            #expect(
                answer["hits"] as? Int == Self.truth(query, in: documents).count, "«\(query.prefix(30))»: \(answer)")
            // Before: 40 lengths over the two long posts, about 20 million lookups.
            #expect((answer["work"] as? Int ?? .max) < 200_000, "«\(query.prefix(30))»: \(answer)")
        }
        #expect(Self.truth(lengths, in: documents).count == 2 && Self.truth("aab", in: documents).count == 2)
    }

    /// The client's own `normalize` (the published `search.js`'s), run in the
    /// browser on every character that Unicode 15.0 assigned in the BMP and
    /// in the planes' letters, symbols and CJK, alone and after a capital
    /// letter, gives what the index writer's gives: a character that the
    /// two spelled apart would be in the index and never in the query.
    /// (Characters assigned later may be unknown to one side's tables.)
    @Test func theClientNormalizesEveryCharacterAsTheIndexWriterDoes() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        // Every character of these ranges alone; those of the BMP also after
        // a capital letter (a mark joins it) and after a capital sigma
        // (which JavaScript spells by what follows it).
        let ranges: [ClosedRange<UInt32>] = [
            0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x1FAFF, 0x20000...0x2A6DF, 0x2F800...0x2FA1F,
        ]
        let cases: [(context: String, ranges: [ClosedRange<UInt32>])] = [
            ("", ranges), ("A", Array(ranges.prefix(2))), ("Σ", Array(ranges.prefix(2))),
        ]
        // Sent as ranges and answered as one string, U+0001 between the
        // answers (no answer holds one): a list of every character is too
        // long for a command line.
        let spans = cases.map { ($0.context, $0.ranges.map { [$0.lowerBound, $0.upperBound] }) }
        let json = String(
            decoding: try JSONSerialization.data(withJSONObject: spans.map { [$0.0, $0.1] as [Any] }), as: UTF8.self)
        let probe = """
            (() => {
              const normalize = window.BBSSearch.normalize;
              const out = [];
              for (const [context, ranges] of \(json))
                for (const [low, high] of ranges)
                  for (let point = low; point <= high; point++) out.push(normalize(context + String.fromCodePoint(point)));
              return out.join('\\u0001');
            })()
            """
        let report = try await Self.probe(site: built.plain, base: nil, probes: [("search.html", probe)])
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        let value = try #require(report.probes.first?.value, "no answer from the browser")
        let shown = value.split(separator: "\u{1}", omittingEmptySubsequences: false)
        let asked = cases.flatMap { item in item.ranges.joined().map { (item.context, $0) } }
        try #require(shown.count == asked.count, "\(shown.count) answers to \(asked.count) characters")
        var differing: [String] = []
        var compared = 0
        for ((context, value), text) in zip(asked, shown) {
            guard let scalar = Unicode.Scalar(value), let age = scalar.properties.age,
                (age.major, age.minor) <= (15, 0),
                scalar.properties.generalCategory != .privateUse
            else { continue }
            compared += 1
            let written = SearchText.normalize(context + String(scalar))
            if written != text {
                differing.append(
                    "U+\(String(value, radix: 16, uppercase: true)) after «\(context)»: page \(text.debugDescription), index \(written.debugDescription)"
                )
            }
        }
        #expect(compared > 200_000)
        #expect(differing.isEmpty, "\(differing.count) differ: \(differing.prefix(12))")
    }

    /// Pairs where normalization composes across two characters, compared
    /// scalar by scalar (QA F2: Foundation's NFKC left `ｶﾞ` and `ㅎㅏ`
    /// apart, put archaic vowels into syllables and left marks unordered
    /// after a compatibility character; 3,455 of the helper's pairs).
    /// Jamo (conjoining, compatibility, half-width), syllables and kana
    /// (full and half-width) with vowels, finals and marks, and every
    /// compatibility character of the BMP before five marks.
    @Test func theClientNormalizesPairsAsTheIndexWriterDoes() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let letters: [ClosedRange<UInt32>] = [
            0x1100...0x11FF, 0x3131...0x318E, 0xFFA0...0xFFDC, 0xAC00...0xAC1F, 0xD788...0xD788, 0xD7A3...0xD7A3,
            0x3041...0x30FF, 0xFF65...0xFF9F, 0x41...0x41, 0xFC...0xFC,
        ]
        let followers: [ClosedRange<UInt32>] = [
            0x1161...0x117A, 0x11A7...0x11C4, 0x3099...0x309C, 0xFF9E...0xFF9F, 0x300...0x310, 0x323...0x323,
            0x3131...0x3163, 0xFFA0...0xFFDC,
        ]
        let compatibility = (0x20...0xFFFD).filter { value in
            guard let scalar = Unicode.Scalar(UInt32(value)) else { return false }
            return String(scalar).decomposedStringWithCompatibilityMapping.unicodeScalars.elementsEqual(
                String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars) == false
        }.map { UInt32($0) }
        let marks: [UInt32] = [0x301, 0x308, 0x3099, 0xFF9E, 0x1161]
        // Sent as ranges (a list of every pair is too long for a command
        // line), walked in the same order on both sides.
        var compatibilityRanges: [ClosedRange<UInt32>] = []
        for value in compatibility {
            if let last = compatibilityRanges.last, last.upperBound + 1 == value {
                compatibilityRanges[compatibilityRanges.count - 1] = last.lowerBound...value
            } else {
                compatibilityRanges.append(value...value)
            }
        }
        let groups: [(first: [ClosedRange<UInt32>], second: [ClosedRange<UInt32>])] = [
            (letters, followers), (compatibilityRanges, marks.map { $0...$0 }),
        ]
        let pairs = groups.flatMap { group in
            group.first.joined().flatMap { first in group.second.joined().map { [first, $0] } }
        }
        let spans = groups.map { group in
            [group.first.map { [$0.lowerBound, $0.upperBound] }, group.second.map { [$0.lowerBound, $0.upperBound] }]
        }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: spans), as: UTF8.self)
        let probe = """
            (() => {
              const normalize = window.BBSSearch.normalize;
              const out = [];
              for (const [firsts, seconds] of \(json))
                for (const [low, high] of firsts)
                  for (let a = low; a <= high; a++)
                    for (const [from, to] of seconds)
                      for (let b = from; b <= to; b++) out.push(normalize(String.fromCodePoint(a) + String.fromCodePoint(b)));
              return out.join('\\u0001');
            })()
            """
        let report = try await Self.probe(site: built.plain, base: nil, probes: [("search.html", probe)])
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        let value = try #require(report.probes.first?.value, "no answer from the browser")
        let shown = value.split(separator: "\u{1}", omittingEmptySubsequences: false)
        try #require(shown.count == pairs.count, "\(shown.count) answers to \(pairs.count) pairs")
        var differing: [String] = []
        var compared = 0
        for (pair, text) in zip(pairs, shown) {
            let scalars = pair.compactMap(Unicode.Scalar.init)
            guard scalars.count == 2,
                scalars.allSatisfy({ scalar in scalar.properties.age.map { ($0.major, $0.minor) <= (15, 0) } ?? false })
            else { continue }
            compared += 1
            let written = SearchText.normalize(String(String.UnicodeScalarView(scalars)))
            if !written.unicodeScalars.elementsEqual(text.unicodeScalars) {
                func spelled(_ text: some StringProtocol) -> String {
                    text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
                }
                differing.append(
                    "\(spelled(String(String.UnicodeScalarView(scalars)))): page \(spelled(text)), index \(spelled(written))"
                )
            }
        }
        #expect(compared > 50_000)
        #expect(differing.isEmpty, "\(differing.count) differ: \(differing.prefix(12))")
    }

    /// The ground truth's reading of a query (`SearchText.parse`) is the
    /// page's (`BBSSearch.parse`), for seeded random queries of the pieces
    /// where the two could part: quotes, colons (full-width too), filter
    /// names in any case, dates, every kind of space and line break
    /// (JavaScript's `\s` is not Unicode's White_Space: U+FEFF is one,
    /// U+0085 is not), marks after a space or a quote, and sigma.
    @Test func theClientParsesQueriesAsTheGroundTruthDoes() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let pieces = [
            "清华", "iPhone", "ΟΔΟΣ", "a", "\"", "\"", ":", "：", "board:", "BOARD:", "ｂｏａｒｄ:", "author:", "after:",
            "before:", "2025-1-2", "2025-13-45", "2024-02-29", "Geography", " ", " ", "\t", "\u{3000}", "\u{A0}",
            "\u{85}", "\u{FEFF}", "\u{2028}", "\u{200B}", "\u{180E}", "\u{1680}", "\n", "\r\n", "\u{301}", "\u{20DD}",
            "-", "x:", "\u{1F44D}\u{1F3FB}",
        ]
        var random = Random(state: 31)
        let queries = (0..<600).map { _ in
            (0..<(1 + random.below(7))).map { _ in pieces[random.below(pieces.count)] }.joined()
        }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: queries), as: UTF8.self)
        let probe = """
            JSON.stringify(\(json).map(q => {
              const p = window.BBSSearch.parse(q);
              return {terms: p.terms, board: p.board ?? null, author: p.author ?? null, after: p.after || null,
                before: p.before || null, problems: p.problems, contradictory: p.contradictory};
            }))
            """
        let report = try await Self.probe(site: built.plain, base: nil, probes: [("search.html", probe)])
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        let value = try #require(report.probes.first?.value, "no answer from the browser")
        struct Parsed: Decodable, Equatable {
            var terms: [String]
            var board: String?
            var author: String?
            var after: String?
            var before: String?
            var problems: [String]
            var contradictory: Bool
        }
        let shown = try JSONDecoder().decode([Parsed].self, from: Data(value.utf8))
        try #require(shown.count == queries.count)
        var differing: [String] = []
        for (query, page) in zip(queries, shown) {
            let truth = SearchText.parse(query)
            let written = Parsed(
                terms: truth.terms, board: truth.board, author: truth.author, after: truth.after,
                before: truth.before, problems: truth.problems, contradictory: truth.contradictory)
            // Compared as scalars: `==` on `String` lets canonically equal texts pass.
            func scalars(_ parsed: Parsed) -> [[Unicode.Scalar]] {
                (parsed.terms + parsed.problems + [parsed.board ?? "-", parsed.author ?? "-"]).map {
                    Array($0.unicodeScalars)
                }
            }
            if written != page || scalars(written) != scalars(page) {
                // Spelled by scalar: the differences are often invisible.
                func spelled(_ text: String) -> String {
                    text.unicodeScalars.map {
                        $0.isASCII && $0.value >= 0x20 ? String($0) : "<\(String($0.value, radix: 16))>"
                    }
                    .joined()
                }
                differing.append(
                    "\(spelled(query)): page \(page.terms.map(spelled)) \(page.problems.map(spelled)), "
                        + "truth \(written.terms.map(spelled)) \(written.problems.map(spelled)); "
                        + "filters \([page.board, page.author, page.after, page.before]) "
                        + "\([written.board, written.author, written.after, written.before])")
            }
        }
        #expect(differing.isEmpty, "\(differing.count) of \(queries.count) differ: \(differing.prefix(6))")
    }

    /// A copy of the reading site and of its store, to change both.
    /// The store at `path` indexed whole into the site at `root`: the
    /// store, the site's publisher, and the writer and output that append.
    static func indexed(_ path: String, _ root: URL) throws -> (
        store: ArchiveStore, publisher: DiskPublisher, writer: SearchIndexWriter, output: SearchIndexWriter.Output
    ) {
        let store = try ArchiveStore(path: path)
        let publisher = try DiskPublisher(root: root)
        let writer = SearchIndexWriter(store: store, postsPerPage: 20, forum: Fixtures.smthForum)
        let output = SearchIndexWriter.Output(publisher)
        _ = try writer.update(SearchChanges(threads: nil), output)
        return (store, publisher, writer, output)
    }

    static func siteAndStoreCopy(_ name: String) async throws -> (path: String, root: URL) {
        let built = try await ReadingSiteFixture.shared.site()
        let (folder, path) = try await SearchIndexTests.storeCopy(name)
        let root = folder.appendingPathComponent("site")
        try FileManager.default.copyItem(at: built.plain.root, to: root)
        return (path, root)
    }

    /// What `probe` (a script that returns a JSON array of objects) answers
    /// on the search page of the site at `root`.
    static func answers(
        of probe: String, root: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [[String: Any]] {
        let report = try await Self.probe(site: SiteInspector(root: root), base: nil, probes: [("search.html", probe)])
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")", sourceLocation: sourceLocation)
        let value = try #require(
            report.probes.first?.value, "no answer from the browser", sourceLocation: sourceLocation)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(value.utf8)) as? [[String: Any]], sourceLocation: sourceLocation
        )
    }

    /// Each query the `driver` ran found exactly the posts it must find,
    /// through every page of its results.
    static func expectExactHits(
        _ probe: BrowserTests.Report.Probe, _ queries: [String], in documents: [Document],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let outcomes = try JSONDecoder().decode([Outcome].self, from: Data((probe.value ?? "[]").utf8))
        #expect(outcomes.count == queries.count, sourceLocation: sourceLocation)
        for (query, outcome) in zip(queries, outcomes) {
            let expected = Self.truth(query, in: documents)
            #expect(outcome.error == nil, "«\(query)»: \(outcome.error ?? "")", sourceLocation: sourceLocation)
            #expect(
                Set(outcome.hits) == expected,
                "«\(query)»: missing \(expected.subtracting(outcome.hits).sorted().prefix(5)), extra \(Set(outcome.hits).subtracting(expected).sorted().prefix(5))",
                sourceLocation: sourceLocation)
        }
    }

    /// What the results of the query the address holds show, once shown:
    /// the query, total, page, hits, pager, address and status (after 20 s,
    /// whatever they show, with `waited`).
    static let shownState = """
        new Promise(resolve => {
          const began = Date.now();
          const tick = () => {
            const results = document.getElementById('results');
            const waited = Date.now() - began > 20000;
            if (results && (waited || results.getAttribute('aria-busy') === 'false'
                && results.dataset.query !== undefined)) {
              resolve(JSON.stringify({query: results.dataset.query, total: Number(results.dataset.total),
                page: Number(results.dataset.page), hits: results.querySelectorAll('a.hit').length,
                next: !!results.querySelector('a[rel=next]'), prev: !!results.querySelector('a[rel=prev]'),
                search: decodeURIComponent(location.search.replace(/\\+/g, ' ')),
                status: document.getElementById('search-status').textContent, waited}));
            } else setTimeout(tick, 5);
          };
          tick();
        })
        """

    static func state(_ probe: BrowserTests.Report.Probe) throws -> [String: Any] {
        let value = try #require(probe.value, "probe \(probe.page): \(probe.error ?? "no value")")
        return try #require(try JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: Any])
    }

    static func encoded(_ query: String) -> String {
        query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// What the QA of the search page found, as a reader meets it: a page
    /// past the last shows the last (and the address says so); a query of
    /// nothing asks for words; filters are read as typed (a full-width
    /// colon, a value in quotes, a filter not finished); a date that is no
    /// day is said; two boards find nothing; an input method's composition
    /// is not searched for; a run of typing is one history entry.
    @Test func theAddressFiltersAndTypingBehaveAsAReaderExpects() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let documents = try Self.documents(storePath: built.storePath)
        let boards = built.forum.boardNames
        let board = try #require(boards.first)
        let other = boards.count > 1 ? boards[1] : board + "x"
        let term = "的"
        let total = Self.truth(term, in: documents).count
        #expect(total > 40)
        let composing = """
            new Promise(resolve => {
              const input = document.getElementById('search-q'), results = document.getElementById('results');
              const ready = () => results.getAttribute('aria-busy') === 'false' && results.dataset.query !== undefined;
              const begin = () => {
                if (!ready()) return setTimeout(begin, 10);
                input.dispatchEvent(new CompositionEvent('compositionstart', {bubbles: true}));
                input.value = 'jia';
                input.dispatchEvent(new InputEvent('input', {bubbles: true, isComposing: true}));
                setTimeout(() => {
                  const during = {query: results.dataset.query, search: location.search};
                  input.value = '\(term)';
                  input.dispatchEvent(new CompositionEvent('compositionend', {bubbles: true, data: '\(term)'}));
                  const tick = () => {
                    if (results.dataset.query === '\(term)' && results.getAttribute('aria-busy') === 'false')
                      resolve(JSON.stringify({during: during.query, duringSearch: during.search,
                        q: new URLSearchParams(location.search).get('q'), total: Number(results.dataset.total)}));
                    else setTimeout(tick, 10);
                  };
                  tick();
                }, 700);
              };
              begin();
            })
            """
        let typing = """
            new Promise(resolve => {
              const input = document.getElementById('search-q'), results = document.getElementById('results');
              const shown = q => new Promise(done => {
                const tick = () => results.dataset.query === q && results.getAttribute('aria-busy') === 'false'
                  ? done() : setTimeout(tick, 10);
                tick();
              });
              const type = text => {
                input.value = text;
                input.dispatchEvent(new InputEvent('input', {bubbles: true}));
              };
              (async () => {
                await shown('\(term)');
                const start = history.length;
                type('ab');
                await shown('ab');
                const first = history.length;
                await new Promise(done => setTimeout(done, 300));
                type('abc');
                await shown('abc');
                resolve(JSON.stringify({start, first, second: history.length,
                  q: new URLSearchParams(location.search).get('q')}));
              })();
            })
            """
        let probes: [(String, String)] = [
            ("search.html?q=\(Self.encoded(term))&page=99999", Self.shownState),
            ("search.html?q=\(Self.encoded(term))&page=0", Self.shownState),
            ("search.html?q=%22%22", Self.shownState),
            ("search.html?q=\(Self.encoded(term + " before:"))", Self.shownState),
            ("search.html?q=\(Self.encoded("board：" + board))", Self.shownState),
            ("search.html?q=\(Self.encoded(term + " board:\"" + board + "\""))", Self.shownState),
            ("search.html?q=\(Self.encoded(term + " after:2025-13-45"))", Self.shownState),
            ("search.html?q=\(Self.encoded("board:" + board + " board:" + other))", Self.shownState),
            ("search.html", composing),
            ("search.html?q=\(Self.encoded(term))", typing),
        ]
        let report = try await Self.probe(site: built.plain, base: nil, probes: probes)
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        try #require(report.probes.count == probes.count)
        for probe in report.probes { #expect(probe.problems.isEmpty, "console: \(probe.problems)") }

        // Past the last page: the last page, its hits, no next, the address saying so.
        let last = (total + 19) / 20
        let past = try Self.state(report.probes[0])
        #expect(past["page"] as? Int == last)
        #expect(past["hits"] as? Int == total - (last - 1) * 20)
        #expect(past["next"] as? Bool == false)
        #expect(past["prev"] as? Bool == true)
        #expect((past["search"] as? String)?.hasSuffix("page=\(last)") == true, "\(past)")
        // page=0: page 1, and the address without it.
        let zero = try Self.state(report.probes[1])
        #expect(zero["page"] as? Int == 1)
        #expect(zero["hits"] as? Int == 20)
        #expect((zero["search"] as? String)?.contains("page") == false, "\(zero)")
        // Nothing to look for: asked for words, not told nothing was found.
        let nothing = try Self.state(report.probes[2])
        #expect(nothing["status"] as? String == "输入要找的文字。")
        // Filters as typed.
        #expect(try Self.state(report.probes[3])["total"] as? Int == total)
        let fullWidth = try Self.state(report.probes[4])
        #expect(fullWidth["total"] as? Int == Self.truth("board:" + board, in: documents).count)
        #expect(fullWidth["total"] as? Int ?? 0 > 0)
        let quotedBoard = try Self.state(report.probes[5])
        #expect(quotedBoard["total"] as? Int == Self.truth(term + " board:" + board, in: documents).count)
        #expect(quotedBoard["total"] as? Int ?? 0 > 0)
        // A date that is no day: said, nothing searched.
        let wrongDay = try Self.state(report.probes[6])
        #expect(wrongDay["total"] as? Int == 0)
        #expect((wrongDay["status"] as? String)?.contains("after:2025-13-45 不是一个日期") == true, "\(wrongDay)")
        // Two boards: no post is on both.
        let twoBoards = try Self.state(report.probes[7])
        #expect(twoBoards["total"] as? Int == 0)
        #expect(twoBoards["status"] as? String == "没有找到含有这些文字的帖子。")
        // The composition is not searched for (nor put in the address); what it commits is.
        let ime = try Self.state(report.probes[8])
        #expect(ime["during"] as? String == "")
        #expect(ime["duringSearch"] as? String == "")
        #expect(ime["q"] as? String == term)
        #expect(ime["total"] as? Int == total)
        // One history entry for a run of typing: Back returns to the query before it.
        let history = try Self.state(report.probes[9])
        let start = try #require(history["start"] as? Int)
        #expect(history["first"] as? Int == start + 1)
        #expect(history["second"] as? Int == start + 1)
        #expect(history["q"] as? String == "abc")
    }

    /// A site whose `search/index.js` is missing (a partial upload) says
    /// so, and the results it shows are complete (not busy), with none.
    @Test func aMissingIndexIsSaidNotShownAsNoResults() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let root = try Fixtures.temporaryFolder("search-no-index").appendingPathComponent("site")
        try FileManager.default.copyItem(at: built.plain.root, to: root)
        try FileManager.default.removeItem(at: root.appendingPathComponent(SearchIndexWriter.manifestPath))
        let report = try await Self.probe(
            site: SiteInspector(root: root), base: nil, probes: [("search.html?q=%E7%9A%84", Self.shownState)])
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        let shown = try Self.state(try #require(report.probes.first))
        #expect(shown["query"] as? String == "的")
        #expect(shown["total"] as? Int == 0)
        #expect((shown["status"] as? String)?.contains("读不到搜索索引 search/index.js") == true, "\(shown)")
    }

    @Test func withoutJavaScriptTheFormAndTheReasonShow() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let w3m = try #require(ExternalTool.find("w3m"), "no w3m on PATH: run `make setup`")
        let page = built.plain.root.appendingPathComponent(SitePaths.search).path
        let output = try ExternalTool.run(
            w3m, ["-dump", "-cols", "2000", "-T", "text/html", "-I", "UTF-8", "-O", "UTF-8", page], timeout: 60)
        #expect(output.status == 0)
        let text = output.text
        #expect(text.contains("搜索需要 JavaScript"), "\(text.prefix(800))")
        // The label, then the text field and its button.
        #expect(text.contains("搜索词\n["), "no search field in \(text.prefix(1200))")
        // Every page has the box, a plain GET form to search.html.
        let board = try #require(built.forum.boardNames.first)
        let boardPage = built.plain.text(SitePaths.board(board))
        #expect(boardPage.contains(#"action="../../search.html" method="get""#))
        #expect(boardPage.contains(#"name="board" value="\#(board)""#))
        #expect(boardPage.contains("本版搜索"))
    }
}

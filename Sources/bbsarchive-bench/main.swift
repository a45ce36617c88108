import BBSArchive
import CLibXML2
import Foundation

// bbsarchive-bench: the in-process half of `make bench` (scripts/bench/bench.py
// runs everything else). It uses only the public API of BBSArchive.
//
//   bbsarchive-bench parse --pages DIR [--runs N] [--fetched-at ISO8601]
//       Parses every page listed in DIR/manifest.tsv (file<TAB>URL) with the
//       SMTH mobile parser, and with libxml2's bare htmlReadMemory (the same
//       options the parser uses), alternating, N timed passes each after one
//       warm-up pass. Prints JSON. `--source smth-nforum` reads the pages as
//       GBK nForum fragments. `--dump FILE` writes every page's model (its
//       full Swift description, or the error) to FILE, one page a line, for
//       checking that a change to the parser leaves every model as it was;
//       `--only parser` skips the libxml2 passes (for profiling the parser).
//
//   bbsarchive-bench hugo-export --store FILE --site DIR --dest DIR
//       Writes a minimal Hugo site into DEST from a store and the Markdown
//       copies a `bbsarchive build` wrote into SITE: one content page per
//       thread (front matter from the store), one section per board, the
//       media as static files. Prints JSON counts.
//
//   bbsarchive-bench search-index --store FILE --out DIR
//       Writes only the search index of a store into DIR/search/ (what
//       `build` writes there), for timing it apart from a build. Prints JSON
//       (with `through`, the store's last logged change). With `--after N`
//       it appends instead to the index already in DIR the posts of the
//       threads changed after change N, as `build` does, and prints the
//       seconds the append took.
//
//   bbsarchive-bench build --store FILE --out DIR --templates DIR --index yes|no
//       A full build, as `bbsarchive build` makes it, with the search index
//       or without it (`--index no`): what indexing adds to a build is the
//       difference between the two. Prints JSON counts.
//
//   bbsarchive-bench search-docs --store FILE
//       Prints every post as one JSON line (href, board, author, day and its
//       normalized searchable text): the bench's grep ground truth.

enum BenchError: Error, CustomStringConvertible {
    case usage(String)
    case failed(String)

    var description: String {
        switch self {
        case .usage(let text): "usage: \(text)"
        case .failed(let text): text
        }
    }
}

struct Arguments {
    var values: [String: String] = [:]

    init(_ list: ArraySlice<String>) throws {
        var iterator = list.makeIterator()
        while let name = iterator.next() {
            guard name.hasPrefix("--"), let value = iterator.next() else {
                throw BenchError.usage("options come as --name value pairs, not \(name)")
            }
            values[String(name.dropFirst(2))] = value
        }
    }

    func required(_ name: String) throws -> String {
        guard let value = values[name] else { throw BenchError.usage("--\(name) is required") }
        return value
    }
}

func seconds(_ duration: Duration) -> Double { duration.inSeconds }

func printJSON(_ object: Any) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
}

// MARK: Parse

struct SavedPage {
    var url: String
    var body: Data
}

func loadPages(_ directory: String) throws -> [SavedPage] {
    let folder = URL(fileURLWithPath: directory)
    let manifest = folder.appendingPathComponent("manifest.tsv")
    guard let text = try? String(contentsOf: manifest, encoding: .utf8) else {
        throw BenchError.failed("cannot read \(manifest.path)")
    }
    var pages: [SavedPage] = []
    for line in text.split(separator: "\n") {
        let fields = line.split(separator: "\t", maxSplits: 1)
        guard fields.count == 2 else { continue }
        let path = folder.appendingPathComponent(String(fields[0])).path
        guard let body = FileManager.default.contents(atPath: path) else {
            throw BenchError.failed("cannot read \(path)")
        }
        pages.append(SavedPage(url: String(fields[1]), body: body))
    }
    return pages
}

/// One pass of a parser over every page; returns (threads, boards, failures).
func parsePass(_ pages: [SavedPage], source: any ForumSource, contentType: String, fetchedAt: Date) -> (Int, Int, Int) {
    var threads = 0
    var boards = 0
    var failures = 0
    for page in pages {
        let fetched = FetchedPage(url: page.url, body: page.body, contentType: contentType, fetchedAt: fetchedAt)
        do {
            switch try source.parse(fetched) {
            case .thread: threads += 1
            case .board: boards += 1
            default: failures += 1
            }
        } catch {
            failures += 1
        }
    }
    return (threads, boards, failures)
}

/// Every page's model as its full description, one page a line (newlines
/// in the description escaped), or the error it gave.
func dumpModels(_ pages: [SavedPage], source: any ForumSource, contentType: String, fetchedAt: Date, to path: String)
    throws
{
    var out = ""
    for page in pages {
        let fetched = FetchedPage(url: page.url, body: page.body, contentType: contentType, fetchedAt: fetchedAt)
        let line: String
        do {
            line = String(reflecting: try source.parse(fetched))
        } catch {
            line = "error: \(error)"
        }
        out += page.url + "\t" + line.replacingOccurrences(of: "\n", with: "\\n") + "\n"
    }
    guard FileManager.default.createFile(atPath: path, contents: Data(out.utf8)) else {
        throw BenchError.failed("cannot write \(path)")
    }
}

/// One pass of libxml2's HTML parser alone: build the tree, free it.
func libxml2Pass(_ pages: [SavedPage], encoding: String) -> Int {
    let options = Int32(
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue)
    var failures = 0
    for page in pages {
        let document: htmlDocPtr? = page.body.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return nil }
            return htmlReadMemory(
                base.assumingMemoryBound(to: CChar.self), Int32(raw.count), page.url, encoding, options)
        }
        if let document { xmlFreeDoc(document) } else { failures += 1 }
    }
    return failures
}

func runParse(_ arguments: Arguments) throws {
    let pages = try loadPages(try arguments.required("pages"))
    guard let first = pages.first else { throw BenchError.failed("no pages in the manifest") }
    let runs = Int(arguments.values["runs"] ?? "5") ?? 5
    let fetchedAt = arguments.values["fetched-at"].flatMap(ForumTime.parseISO8601) ?? Date()
    // The pages' own URLs carry the replica's address; the source only needs a base.
    let base = URL(string: first.url).map { "\($0.scheme ?? "http")://\($0.host ?? "127.0.0.1"):\($0.port ?? 80)" }
    // The desktop pages come as GBK, the mobile ones as UTF-8.
    let nforum = arguments.values["source"] == "smth-nforum"
    let source: any ForumSource =
        nforum
        ? SMTHNForumSource(baseURL: base ?? "http://127.0.0.1") : SMTHMobileSource(baseURL: base ?? "http://127.0.0.1")
    let contentType = nforum ? "text/html; charset=GBK" : "text/html; charset=utf-8"
    let encoding = nforum ? "GB18030" : "UTF-8"
    xmlInitParser()

    if let dump = arguments.values["dump"] {
        try dumpModels(pages, source: source, contentType: contentType, fetchedAt: fetchedAt, to: dump)
    }
    let parserOnly = arguments.values["only"] == "parser"
    let (threads, boards, failures) = parsePass(pages, source: source, contentType: contentType, fetchedAt: fetchedAt)
    let rawFailures = parserOnly ? 0 : libxml2Pass(pages, encoding: encoding)
    var parserRuns: [Double] = []
    var libxml2Runs: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<max(1, runs) {
        parserRuns.append(
            seconds(
                clock.measure { _ = parsePass(pages, source: source, contentType: contentType, fetchedAt: fetchedAt) }))
        if !parserOnly { libxml2Runs.append(seconds(clock.measure { _ = libxml2Pass(pages, encoding: encoding) })) }
    }
    try printJSON([
        "pages": pages.count, "bytes": pages.reduce(0) { $0 + $1.body.count },
        "threadPages": threads, "boardPages": boards, "parserFailures": failures, "libxml2Failures": rawFailures,
        "runs": ["parser": parserRuns, "libxml2": libxml2Runs],
    ])
}

// MARK: Hugo export

func yamlString(_ text: String) -> String {
    // A JSON string is a valid YAML double-quoted scalar.
    let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data()
    let array = String(decoding: data, as: UTF8.self)
    return String(array.dropFirst().dropLast())
}

func iso8601(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(secondsFromGMT: 8 * 3600)
    return formatter.string(from: date)
}

func write(_ text: String, to url: URL) throws {
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
}

/// Copies (hard-links where it can) every file under `from` into `to`.
func linkTree(from: URL, to: URL) throws -> Int {
    let manager = FileManager.default
    guard let walker = manager.enumerator(at: from, includingPropertiesForKeys: [.isRegularFileKey]) else { return 0 }
    var count = 0
    for case let file as URL in walker {
        guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
        let relative = String(file.path.dropFirst(from.path.count).drop { $0 == "/" })
        let target = to.appendingPathComponent(relative)
        try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        if (try? manager.linkItem(at: file, to: target)) == nil {
            try manager.copyItem(at: file, to: target)
        }
        count += 1
    }
    return count
}

let hugoConfig = """
    baseURL = "/"
    title = "水木社区存档 (Hugo)"
    languageCode = "zh-cn"
    paginate = 30
    uglyURLs = true
    relativeURLs = true
    disableKinds = ["RSS", "sitemap", "robotsTXT", "404"]

    [taxonomies]
      author = "authors"

    [markup.goldmark.extensions]
      definitionList = false

    """

let hugoLayouts: [String: String] = [
    "_default/baseof.html": """
    <!DOCTYPE html>
    <html lang="zh-CN"><head><meta charset="utf-8"><title>{{ .Title }} · {{ .Site.Title }}</title>
    <link rel="stylesheet" href="{{ "assets/style.css" | relURL }}"></head>
    <body><nav><a href="{{ "/" | relURL }}">{{ .Site.Title }}</a></nav>
    <main>{{ block "main" . }}{{ end }}</main></body></html>

    """,
    "_default/list.html": """
    {{ define "main" }}<h1>{{ .Title }}</h1>
    {{ $pager := .Paginate .Pages }}<ul>
    {{ range $pager.Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a>
    ({{ .Params.replies }}) {{ .Params.starter }} · {{ .Date.Format "2006-01-02 15:04" }}</li>
    {{ end }}</ul>
    {{ template "_internal/pagination.html" . }}{{ end }}

    """,
    "_default/single.html": """
    {{ define "main" }}<article><h1>{{ .Title }}</h1>{{ .Content }}</article>{{ end }}

    """,
    "index.html": """
    {{ define "main" }}<h1>{{ .Site.Title }}</h1><ul>
    {{ range (.Site.GetPage "/board").Sections }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a>
    {{ len .Pages }} threads</li>{{ end }}</ul>{{ end }}

    """,
]

func runHugoExport(_ arguments: Arguments) throws {
    let store = try ArchiveStore(path: try arguments.required("store"))
    let site = URL(fileURLWithPath: try arguments.required("site"))
    let dest = URL(fileURLWithPath: try arguments.required("dest"))
    let manager = FileManager.default
    try? manager.removeItem(at: dest)
    try write(hugoConfig, to: dest.appendingPathComponent("hugo.toml"))
    for (path, text) in hugoLayouts {
        try write(text, to: dest.appendingPathComponent("layouts").appendingPathComponent(path))
    }
    let content = dest.appendingPathComponent("content")
    try write("---\ntitle: \"水木社区存档\"\n---\n", to: content.appendingPathComponent("_index.md"))
    try write("---\ntitle: \"版面\"\n---\n", to: content.appendingPathComponent("board/_index.md"))

    var threads = 0
    var posts = 0
    var markdownBytes = 0
    var missing = 0
    for board in try store.boards() {
        let folder = content.appendingPathComponent("board").appendingPathComponent(board.name)
        try write(
            "---\ntitle: \(yamlString("\(board.title ?? board.name) (\(board.name))"))\n---\n",
            to: folder.appendingPathComponent("_index.md"))
        for thread in try store.threads(board: board.name) {
            let source = site.appendingPathComponent("board/\(board.name)/\(thread.gid).md")
            guard let data = manager.contents(atPath: source.path) else {
                missing += 1
                continue
            }
            // The page template prints the title; drop the copy's `# title` line.
            var body = String(decoding: data, as: UTF8.self)
            if body.hasPrefix("# "), let newline = body.firstIndex(of: "\n") {
                body = String(body[body.index(after: newline)...])
            }
            let threadPosts = try store.posts(board: board.name, gid: thread.gid)
            var authors: [String] = []
            for post in threadPosts where !authors.contains(post.author) { authors.append(post.author) }
            var front = "---\ntitle: \(yamlString(thread.title))\n"
            front += "date: \(iso8601(thread.lastReplyAt))\n"
            front += "replies: \(thread.replies)\n"
            front += "starter: \(yamlString(thread.author ?? "原帖已删除"))\n"
            if thread.sticky { front += "weight: 1\n" }
            front += "authors: [\(authors.map(yamlString).joined(separator: ", "))]\n---\n"
            let page = front + body
            try write(page, to: folder.appendingPathComponent("\(thread.gid).md"))
            threads += 1
            posts += threadPosts.count
            markdownBytes += page.utf8.count
        }
    }
    let media = try linkTree(
        from: site.appendingPathComponent("media"), to: dest.appendingPathComponent("static/media"))
    _ = try linkTree(from: site.appendingPathComponent("assets"), to: dest.appendingPathComponent("static/assets"))
    try printJSON([
        "threads": threads, "posts": posts, "markdownBytes": markdownBytes, "media": media, "missingMarkdown": missing,
    ])
}

// MARK: Main

let commandLine = CommandLine.arguments
let usage = "bbsarchive-bench parse|hugo-export|render-lookup|search-index|search-docs|build --option value…"
do {
    guard commandLine.count >= 2 else { throw BenchError.usage(usage) }
    let arguments = try Arguments(commandLine.dropFirst(2))
    switch commandLine[1] {
    case "parse": try runParse(arguments)
    case "hugo-export": try runHugoExport(arguments)
    case "search-index":
        if let after = arguments.values["after"] {
            guard let seq = Int64(after) else { throw BenchError.usage("--after takes a change number") }
            try printJSON(
                try SearchBenchSupport.appendIndex(
                    storePath: try arguments.required("store"), outPath: try arguments.required("out"), after: seq))
        } else {
            try printJSON(
                try SearchBenchSupport.writeIndex(
                    storePath: try arguments.required("store"), outPath: try arguments.required("out")))
        }
    case "build":
        let index: Bool
        switch try arguments.required("index") {
        case "yes": index = true
        case "no": index = false
        default: throw BenchError.usage("--index takes yes or no")
        }
        let store = try arguments.required("store"), out = try arguments.required("out")
        let templates = try arguments.required("templates")
        nonisolated(unsafe) var outcome: Result<[String: Int], ArchiveError>?
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do throws(ArchiveError) {
                var action = BuildAction(storePath: store, outputPath: out, templatesPath: templates)
                action.searchIndex = index
                let report = try await action.run()
                outcome = .success(["pages": report.pages, "written": report.written, "unchanged": report.unchanged])
            } catch {
                outcome = .failure(error)
            }
            done.signal()
        }
        done.wait()
        guard let outcome else { throw BenchError.failed("the build did not end") }
        try printJSON(try outcome.get())
    case "search-docs":
        let output = FileHandle.standardOutput
        var buffer = Data()
        try SearchBenchSupport.documents(storePath: try arguments.required("store")) { line in
            buffer.append(line)
            buffer.append(0x0A)
            if buffer.count > 1 << 20 {
                output.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        output.write(buffer)
    case "render-lookup": try runRenderLookup(arguments)
    default: throw BenchError.usage(usage)
    }
} catch {
    FileHandle.standardError.write(Data("bbsarchive-bench: \(error)\n".utf8))
    exit(1)
}

// libFuzzer entry point for `make fuzz` (scripts/fuzz.sh). Built only with
// BBSARCHIVE_FUZZ=1 and `--sanitize=fuzzer --sanitize=address`, which link
// libFuzzer's own `main`; `BBS_FUZZ_TARGET` picks what the bytes are fed to.
import Foundation

@testable import BBSArchive

/// A fixed "fetched at", so that a crash replays the same on any day.
private let fetchedAt = Date(timeIntervalSince1970: 1_785_542_400)  // 2026-08-01 08:00 +08:00

private let target = ProcessInfo.processInfo.environment["BBS_FUZZ_TARGET"] ?? "mobile"

/// What each target does with one input. Errors are fine: only a crash,
/// a leak or a timeout is a finding.
private func run(_ data: Data) {
    switch target {
    case "mobile":
        // The same bytes as a board page and as a thread page: the URL decides some paths.
        for url in ["https://m.newsmth.net/board/Test?p=2", "https://m.newsmth.net/article/Test/700?p=2"] {
            let page = FetchedPage(url: url, body: data, contentType: "text/html; charset=utf-8", fetchedAt: fetchedAt)
            _ = try? SMTHMobileSource().parse(page)
        }
    case "nforum":
        for url in [
            "https://www.newsmth.net/nForum/board/Test?ajax&p=2",
            "https://www.newsmth.net/nForum/article/Test/700?ajax",
        ] {
            let page = FetchedPage(url: url, body: data, contentType: "text/html; charset=GBK", fetchedAt: fetchedAt)
            _ = try? SMTHNForumSource().parse(page)
        }
    case "splitter":
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        let text = PostText.split(lines)
        _ = PostNormalizer.normalize(
            text.body.joined(separator: "\n"), conventions: SMTHNForumSource().profile.conventions)
    case "inline":
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(line)
            _ = SiteBuilder.segments(line, conventions: SMTHNForumSource().profile.conventions)
            _ = InlineText.plain(line)
        }
        _ = PostNormalizer.normalize(text, conventions: SMTHNForumSource().profile.conventions)
    case "robots":
        let robots = RobotsTxt(String(decoding: data, as: UTF8.self))
        _ = robots.allows("/article/Test/700?p=2")
        _ = robots.allows("/")
        if let delay = robots.crawlDelay {
            _ = RetryPolicy.retryAfter(String(delay))
        }
    case "search":
        searchText(String(decoding: data, as: UTF8.self))
    case "serve":
        serve(data)
    case "pdf":
        // Prefixed as `InertMedia.sniffed` sees a PDF, whatever the input.
        _ = PDFActions.isActive(data.starts(with: "%PDF-".utf8) ? data : Data("%PDF-1.7\n".utf8) + data)
    case "image":
        // What an attachment's header says (`ImageHeader`): nil, or sizes libvips could hold.
        if let facts = ImageHeader.facts(data) {
            let sides = 1...ImageHeader.maximumSide
            guard sides.contains(facts.width), sides.contains(facts.height), facts.frames == 1 else {
                finding("ImageHeader said \(facts)")
            }
        }
    default:
        FileHandle.standardError.write(Data("bbsarchive-fuzz: unknown BBS_FUZZ_TARGET \(target)\n".utf8))
        exit(2)
    }
}

/// A finding: what was wrong, then an abort, which libFuzzer reports
/// with the input that did it.
private func finding(_ message: String) -> Never {
    FileHandle.standardError.write(Data("bbsarchive-fuzz: \(message)\n".utf8))
    abort()
}

/// Forum text as search reads it. The fast paths must give what their
/// plain readings give (a difference is a post the index holds under
/// other terms than a query asks for, so never found): `normalize` and
/// Foundation's NFKC and lower case, `termKeys` and `terms`, `searchable`
/// and the text of the blocks the page shows. A query of the same text parses.
private func searchText(_ text: String) {
    let normalized = SearchText.normalize(text)
    let plain = SearchText.slowNormalize(text)
    if Array(normalized.unicodeScalars) != Array(plain.unicodeScalars) {
        finding("normalize \(text.debugDescription): \(normalized.debugDescription) != \(plain.debugDescription)")
    }
    let terms = SearchText.terms(normalized)
    let keys = SearchText.termKeys(normalized)
    if Set(keys.unigrams.map { SearchText.termText(UInt64($0), pair: false) }) != terms.unigrams {
        finding("termKeys and terms differ in characters for \(normalized.debugDescription)")
    }
    var pairs: [String: [Int]] = [:]
    for (key, position) in keys.pairs { pairs[SearchText.termText(key, pair: true), default: []].append(position) }
    if pairs != terms.bigrams { finding("termKeys and terms differ in pairs for \(normalized.debugDescription)") }
    // The bytes as a body and signature (split at the first U+0001), on both front ends' conventions.
    let parts = text.split(separator: "\u{1}", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    for conventions in [SMTHMobileSource().profile.conventions, SMTHNForumSource().profile.conventions] {
        for floor in [0, 1] {
            let post = StoredPost(
                board: "Test", gid: 700, floor: floor, author: "a", postedAt: fetchedAt, body: parts[0], ip: nil,
                editedBy: nil, attachments: [], signature: parts.count > 1 ? parts[1] : nil)
            let bytes = SearchText.searchable(post: post, threadTitle: parts[0], conventions: conventions)
            let blocks = SearchText.searchableByBlocks(post: post, threadTitle: parts[0], conventions: conventions)
            if Array(bytes.unicodeScalars) != Array(blocks.unicodeScalars) {
                finding("searchable \(text.debugDescription): \(bytes.debugDescription) != \(blocks.debugDescription)")
            }
        }
    }
    // The index's strings are scripts loaded from disk: each must read
    // back as the text (without its control characters, when displayable)
    // and hold nothing that ends a script or a line in one.
    for displayable in [false, true] {
        var bytes: [UInt8] = []
        SearchIndexWriter.appendJSON(text, to: &bytes, displayable: displayable)
        let expected =
            displayable
            ? String(
                String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\t" || $0 == "\n" }))
            : text
        // JSONDecoder, not JSONSerialization, which drops a U+FEFF that opens a string.
        let back = try? JSONDecoder().decode(String.self, from: Data(bytes))
        if back.map({ Array($0.unicodeScalars) }) != Array(expected.unicodeScalars) {
            finding(
                "a JSON string of \(text.debugDescription) reads back as \(String(describing: back?.debugDescription))")
        }
        if bytes.contains(where: { $0 == UInt8(ascii: "<") || $0 < 0x20 })
            || String(decoding: bytes, as: UTF8.self).unicodeScalars.contains(where: {
                $0 == "\u{2028}" || $0 == "\u{2029}"
            })
        {
            finding("a JSON string of \(text.debugDescription) is not safe in a script")
        }
    }
    let query = SearchText.parse(text)
    if query.terms.contains(where: \.isEmpty) { finding("an empty term from \(text.debugDescription)") }
}

/// A site folder for the `serve` target, made once: pages, a folder, a
/// `404.html`, links inside and out (to the folder above, to `/etc`, to
/// itself, in a loop), and a file beside the site that must never be served.
/// Removed when the fuzzer exits (kept after a crash, for the replay).
private let serveBase = FileManager.default.temporaryDirectory.appendingPathComponent(
    "bbsarchive-fuzz-serve-\(getpid())")
private let serveRoot: String = {
    let base = serveBase
    atexit { try? FileManager.default.removeItem(at: serveBase) }
    let site = base.appendingPathComponent("site")
    let manager = FileManager.default
    try? manager.createDirectory(at: site.appendingPathComponent("board/B"), withIntermediateDirectories: true)
    for (path, text) in [
        ("index.html", "home"), ("404.html", "missing"), ("board/B/1.html", "thread"), ("board/B/index.html", "board"),
        ("a b.txt", "space"), ("%41.txt", "percent"),
    ] {
        manager.createFile(atPath: site.appendingPathComponent(path).path, contents: Data(text.utf8))
    }
    manager.createFile(atPath: base.appendingPathComponent("secret.txt").path, contents: Data("secret".utf8))
    for (name, target) in [
        ("up", ".."), ("etc", "/etc"), ("self", "."), ("loop", "loop"), ("inside", "board/B/1.html"),
        ("secret", "../secret.txt"),
    ] {
        try? manager.createSymbolicLink(atPath: site.appendingPathComponent(name).path, withDestinationPath: target)
    }
    return site.path
}()

/// The handler of the `serve` target's folder, made once.
private let serveHandler = SiteFileHandler(root: URL(fileURLWithPath: serveRoot))

/// A request as it arrives. Whatever the bytes, the answer is a file
/// inside the folder (every link resolved), a redirect to a path on this
/// host (one leading slash) or a status, and no header line of the answer
/// is broken by the request's bytes.
private func serve(_ data: Data) {
    let bytes = [UInt8](data)
    _ = HTTPHead.end(of: bytes)
    guard let head = HTTPHead(bytes[...]) else { return }
    let handler = serveHandler
    switch SiteFileHandler.resolve(target: head.target, root: handler.root) {
    case .file(let path):
        guard let real = SiteFileHandler.realPath(path), SiteFileHandler.inside(real, handler.root) else {
            finding("served \(path) for \(head.target.debugDescription), outside \(handler.root)")
        }
    case .redirect(let location):
        // A browser reads `//x` and `/\\x` as another host.
        guard location.hasPrefix("/"), !location.hasPrefix("//"), !location.hasPrefix("/\\"),
            location.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { finding("redirect to \(location.debugDescription) for \(head.target.debugDescription)") }
    case .bad, .missing:
        break
    }
    let answer = handler.respond(head, keepAlive: head.keepAlive).collected()
    guard let end = HTTPHead.end(of: answer) else { finding("an answer without a head's end") }
    let lines = answer[..<end].split(separator: 10, omittingEmptySubsequences: false).dropLast(2)
    // Printable ASCII, each line ended by CRLF.
    for line in lines where line.last != 13 || line.dropLast().contains(where: { $0 < 0x20 || $0 >= 0x7F }) {
        finding("a broken header line \(String(decoding: line, as: UTF8.self).debugDescription)")
    }
    if let range = head.range {
        let length = 1000
        if case .part(let part) = SiteFileHandler.byteRange(range, length: length),
            part.isEmpty || part.lowerBound < 0 || part.upperBound > length
        {
            finding("range \(range.debugDescription) gave \(part) of \(length) bytes")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    run(Data(bytes: bytes, count: count))
    return 0
}

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
    default:
        FileHandle.standardError.write(Data("bbsarchive-fuzz: unknown BBS_FUZZ_TARGET \(target)\n".utf8))
        exit(2)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    run(Data(bytes: bytes, count: count))
    return 0
}

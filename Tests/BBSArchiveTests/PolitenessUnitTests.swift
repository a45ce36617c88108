import Foundation
import Testing

@testable import BBSArchive

@Suite struct RobotsTxtTests {
    let text = """
        # comments are ignored
        User-agent: Googlebot
        Disallow: /

        User-agent: *
        Disallow: /att/
        Allow: /att/public/
        Disallow: /*?au=
        Disallow: /secret$
        Crawl-delay: 2.5
        """

    @Test func followsTheStarGroupWhenNoneNamesUs() {
        let robots = RobotsTxt(text)
        #expect(robots.crawlDelay == 2.5)
        #expect(robots.allows("/board/Geography?p=1"))
        #expect(!robots.allows("/att/Geography/1/2"))
        #expect(robots.allows("/att/public/x.png"))
        #expect(!robots.allows("/article/Geography/1?au=bob"))
        #expect(!robots.allows("/secret"))
        #expect(robots.allows("/secret/more"))
    }

    @Test func prefersAGroupNamingBBSArchive() {
        let robots = RobotsTxt(text + "\n\nUser-agent: bbsarchive\nDisallow: /board/\n")
        #expect(!robots.allows("/board/Geography"))
        #expect(robots.allows("/att/Geography/1/2"))
        #expect(robots.crawlDelay == nil)
    }

    @Test func emptyOrMissingRulesAllowEverything() {
        #expect(RobotsTxt("").allows("/anything"))
        #expect(RobotsTxt("User-agent: *\nDisallow:\n").allows("/anything"))
        #expect(!RobotsTxt.disallowAll.allows("/"))
    }
}

@Suite struct RetryPolicyTests {
    @Test func readsRetryAfterInBothForms() {
        #expect(RetryPolicy.retryAfter("120") == .seconds(120))
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let later = RetryPolicy.retryAfter("Tue, 14 Nov 2023 22:14:20 GMT", now: now)
        #expect(later == .seconds(60))
        #expect(RetryPolicy.retryAfter("soon") == nil)
        #expect(RetryPolicy.retryAfter(nil) == nil)
    }

    @Test func backsOffExponentiallyWithJitterAndHonoursRetryAfter() {
        let policy = RetryPolicy(attempts: 5, baseDelay: .seconds(2), maxDelay: .seconds(10))
        for _ in 0..<50 {
            let first = policy.delay(afterFailures: 1, retryAfter: nil)
            #expect(first >= .seconds(1) && first <= .seconds(2))
            let third = policy.delay(afterFailures: 3, retryAfter: nil)
            #expect(third >= .seconds(4) && third <= .seconds(8))
            let capped = policy.delay(afterFailures: 9, retryAfter: nil)
            #expect(capped >= .seconds(5) && capped <= .seconds(10))
            #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(30)) == .seconds(30))
        }
    }

    @Test func knowsWhichStatusesToRetry() {
        #expect([429, 500, 502, 503, 504].allSatisfy(RetryPolicy.isRetryable(status:)))
        #expect(![200, 301, 304, 400, 403, 404].contains(where: RetryPolicy.isRetryable(status:)))
    }
}

@Suite struct CookieJarTests {
    let file = """
        # Netscape HTTP Cookie File
        .newsmth.net\tTRUE\t/\tFALSE\t4102444800\tKBS_SESSION\tabc
        #HttpOnly_m.newsmth.net\tFALSE\t/\tTRUE\t0\tsecure_one\txyz
        .newsmth.net\tTRUE\t/\tFALSE\t1000\told\tgone
        .example.org\tTRUE\t/\tFALSE\t0\tother\tnope
        """

    @Test func picksCookiesByHostPathSecurityAndExpiry() throws {
        let jar = try CookieJar(netscape: file, origin: "cookies.txt")
        #expect(jar.cookies.count == 4)
        #expect(jar.header(for: "http://m.newsmth.net/board/A") == "KBS_SESSION=abc")
        #expect(jar.header(for: "https://m.newsmth.net/board/A") == "KBS_SESSION=abc; secure_one=xyz")
        #expect(jar.header(for: "https://att.newsmth.net/att/A/1/2") == "KBS_SESSION=abc")
        #expect(jar.header(for: "https://example.com/") == nil)
        #expect(!jar.allExpired(forHost: "m.newsmth.net"))
    }

    @Test func saysWhenEveryCookieHasExpired() throws {
        let jar = try CookieJar(netscape: ".newsmth.net\tTRUE\t/\tFALSE\t1000\tKBS\tx\n", origin: "old.txt")
        #expect(jar.allExpired(forHost: "m.newsmth.net"))
    }

    @Test func readsAHeaderValueForTheForumsSiblings() throws {
        let jar = try CookieJar(header: "a=1; b=2", forumHost: "m.newsmth.net")
        #expect(jar.header(for: "https://att.newsmth.net/x") == "a=1; b=2")
        #expect(jar.header(for: "https://evil.example/x") == nil)
        let local = try CookieJar(header: "a=1", forumHost: "127.0.0.1")
        #expect(local.header(for: "http://127.0.0.1:8080/board/A") == "a=1")
    }

    @Test func refusesWhatIsNeitherFormat() {
        #expect(throws: ArchiveError.self) { try CookieJar(header: "just words", forumHost: "h") }
        #expect(throws: ArchiveError.self) { try CookieJar(netscape: "not\ttabs enough\n", origin: "x") }
        #expect(throws: ArchiveError.self) { try CookieJar(netscape: "# only comments\n", origin: "x") }
    }
}

@Suite struct DeflateTests {
    @Test func roundTripsText() throws {
        let text = Data(String(repeating: "水木社区 SMTH <li class=\"hla\">", count: 200).utf8)
        let packed = try #require(Deflate.compress(text))
        #expect(packed.count < text.count / 4)
        #expect(Deflate.decompress(packed, size: text.count) == text)
        #expect(Deflate.decompress(packed.prefix(10), size: text.count) == nil)
    }

    @Test func leavesCompressedFormatsAlone() {
        #expect(!Deflate.isCompressible(Data([0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 0, count: 300))))
        #expect(Deflate.isCompressible(Data(String(repeating: "a", count: 300).utf8)))
    }
}

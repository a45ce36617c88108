import Foundation
import Testing

@testable import BBSArchive

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

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

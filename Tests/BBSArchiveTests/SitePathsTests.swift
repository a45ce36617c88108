import Foundation
import Testing

@testable import BBSArchive

@Suite struct SitePathsTests {
    @Test func linksAreRelative() {
        #expect(SitePaths.relative(from: "board/Geo/12.html", to: "user/bob.html") == "../../user/bob.html")
        #expect(SitePaths.relative(from: "index.html", to: "board/Geo/index.html") == "board/Geo/index.html")
        #expect(SitePaths.relative(from: "board/Geo/12.html", to: "board/Geo/12-2.html") == "12-2.html")
        #expect(SitePaths.relative(from: "board/Geo/12.html", to: "board/Other/index.html") == "../Other/index.html")
        #expect(SitePaths.relative(from: "board/Geo/12.html", to: "") == "../../")
        #expect(SitePaths.relative(from: "index.html", to: "") == "")
    }

    @Test func idsBecomeSafeDistinctFileNames() {
        #expect(SitePaths.component("Geography") == "Geography")
        #expect(SitePaths.component("../x") == "~2E~2E~2Fx")
        #expect(SitePaths.component("a.b") != SitePaths.component("a~b"))
        #expect(SitePaths.component("") == "~")
    }

    @Test func mediaNamesNeverBecomePages() {
        #expect(SitePaths.mediaExtension(mime: "image/png", name: "x.gif") == "png")
        #expect(SitePaths.mediaExtension(mime: nil, name: "evil.html") == "bin")
        #expect(SitePaths.mediaExtension(mime: "application/octet-stream", name: "资料.TXT") == "txt")
        #expect(SitePaths.mediaExtension(mime: "image/svg+xml", name: "a.svg") == "bin")
    }
}

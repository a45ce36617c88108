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

    /// The byte-wise `relative` gives what splitting into components gives.
    @Test func relativeAgreesWithSplittingIntoComponents() {
        let paths = [
            "", "index.html", "board/Geo/12.html", "board/Geo/12-2.html", "board/Geo/index.html", "board/Ge/1.html",
            "board/Geox/1.html", "board/Geo/", "user/bob.html", "/abs/x.html", "a//b.html", "board/Geo/a/b/c.html",
            "search/p/ab.json", "board/Geo", "board",
        ]
        for from in paths {
            for to in paths {
                #expect(
                    SitePaths.relative(from: from, to: to) == SitePaths.relativeBySplitting(from: from, to: to),
                    "\(from) → \(to)")
            }
        }
    }
}

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

    /// The byte-wise escaping gives what escaping character by character
    /// gives: letters, digits, `-` and `_` kept, every other UTF-8 byte `~XX`.
    @Test func componentsAreEscapedByteByByte() {
        func reference(_ id: String) -> String {
            var result = ""
            for byte in id.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    result.append(Character(UnicodeScalar(byte)))
                default:
                    result += "~" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
                }
            }
            return result.isEmpty ? "~" : result
        }
        let ids = [
            "", "~", "a", "Geo_2-x", "水木", "a b", "a.b", "a~b", "\u{0}", "\t\n", "é", "e\u{301}", "😀", "Z09az-_",
            NSString(string: "桥接 id") as String, String(repeating: "版", count: 49), String(repeating: "版", count: 51),
        ]
        for id in ids {
            let full = reference(id)
            let expected =
                full.utf8.count > SitePaths.componentLimit
                ? String(full.prefix(SitePaths.componentKeep)) + "~~" + SHA256.hex(Data(id.utf8)).prefix(24) : full
            #expect(SitePaths.component(id) == expected, "\(id)")
        }
        #expect(SitePaths.component("水") == "~E6~B0~B4")
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
            "search/p/ab.json", "board/Geo", "board", "a/b/c/d/e/f/g/h/i/j.html",
            // Answers long enough to need memory, and a media path.
            "board/\(String(repeating: "x", count: 40))/\(Int.max).au.\(String(repeating: "y", count: 30)).html",
            "media/ab/abcdef0123456789.png",
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

import Foundation
import Testing

@testable import BBSArchive

/// `isBlankLine` stands in for `trimmingCharacters(in: .whitespaces).isEmpty`
/// on the build's hot path: it must give the same answer for every line.
@Suite struct BlankLineTests {
    @Test(arguments: [
        "", " ", "\t", "  \t ", "\u{3000}", "\u{00A0}", " \u{2003}\u{3000}\t", "\n", " \r", "\u{200B}", "\u{FEFF}",
        " a ", "\u{3000}字", "【 在 alice 的大作中提到: 】", " \u{0301}", "\u{1B}[m", "\u{2028}",
    ])
    func agreesWithFoundation(_ line: String) {
        #expect(line.isBlankLine == line.trimmingCharacters(in: .whitespaces).isEmpty)
        #expect(line[...].isBlankLine == line.trimmingCharacters(in: .whitespaces).isEmpty)
    }

    /// `Unicode.Scalar.isBlank` asks Foundation only inside U+00A0…U+3000.
    @Test func everyBlankScalarOutsideASCIIIsInTheRangeAsked() {
        var outside: [UInt32] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), CharacterSet.whitespaces.contains(scalar) else { continue }
            if !(0xA0...0x3000).contains(value) { outside.append(value) }
        }
        #expect(outside.isEmpty)
        for value in UInt32(0)...0x3100 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(Unicode.Scalar.isBlank(scalar) == CharacterSet.whitespaces.contains(scalar))
        }
    }

    @Test(arguments: ["", "http://a", "见 www.x.cn", "w w w.", "：//", "a:/b", "www", "ｗｗｗ.", "字://字"])
    func theByteScanFindsWhatFoundationFinds(_ line: String) {
        #expect(line.mayContainASCII("://") == line.contains("://"))
        #expect(line.mayContainASCII("www.") == line.contains("www."))
    }

    /// `SiteBuilder.lastDotted`, read by byte, answers as `split(separator: ".").last`.
    @Test(arguments: [
        "media/ab/abcdef.png", "media/ab/abcdef.tar.gz", "a.", "a..", ".", "..", "", "png", ".png", "a.b.",
        "media/ab/x.\u{301}png", "media/字/x.jpg", "a.\r\n", "a\r\n.gif",
    ])
    func theLastDottedPartIsSplits(_ path: String) {
        #expect(SiteBuilder.lastDotted(path) == path.split(separator: ".").last.map(String.init))
    }

    @Test func aQuoteHeaderStillNamesItsAuthor() {
        let conventions = SMTHPostConventions()
        #expect(conventions.quoteHeaderAuthor("  【 在 alice (爱丽丝) 的大作中提到: 】") == "alice")
        #expect(conventions.quoteHeaderAuthor("在 alice 的大作中提到") == nil)
        #expect(conventions.quoteHeaderAuthor("普通的一行") == nil)
    }
}

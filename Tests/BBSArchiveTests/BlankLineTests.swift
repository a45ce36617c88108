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

    @Test(arguments: ["", "http://a", "见 www.x.cn", "w w w.", "：//", "a:/b", "www", "ｗｗｗ.", "字://字"])
    func theByteScanFindsWhatFoundationFinds(_ line: String) {
        #expect(line.mayContainASCII("://") == line.contains("://"))
        #expect(line.mayContainASCII("www.") == line.contains("www."))
    }

    @Test func aQuoteHeaderStillNamesItsAuthor() {
        let conventions = SMTHPostConventions()
        #expect(conventions.quoteHeaderAuthor("  【 在 alice (爱丽丝) 的大作中提到: 】") == "alice")
        #expect(conventions.quoteHeaderAuthor("在 alice 的大作中提到") == nil)
        #expect(conventions.quoteHeaderAuthor("普通的一行") == nil)
    }
}

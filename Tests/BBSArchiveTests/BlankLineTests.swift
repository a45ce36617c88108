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

    /// Every scalar is a blank, or a blank or newline, exactly when
    /// Foundation's sets say so.
    @Test func everyScalarIsClassedAsFoundationClassesIt() {
        var differ: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if scalar.isBlank != CharacterSet.whitespaces.contains(scalar) {
                differ.append("U+\(String(value, radix: 16)) blank")
            }
            if scalar.isBlankOrNewline != CharacterSet.whitespacesAndNewlines.contains(scalar) {
                differ.append("U+\(String(value, radix: 16)) blank or newline")
            }
        }
        #expect(differ.isEmpty, "\(differ.prefix(20))")
    }

    /// The trims give what Foundation's give.
    @Test(arguments: [
        "", " ", "\n", " a ", "\n\t文章已被删除\r\n", "\u{2028}x\u{2029}", "\u{85}a", "a\u{0B}", " \u{301}x",
        "\u{3000}\u{200B}", "e\u{301}\n",
    ])
    func trimsAgreeWithFoundation(_ text: String) {
        #expect(text.trimmingBlanks == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingBlanksAndNewlines == text.trimmingCharacters(in: .whitespacesAndNewlines))
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

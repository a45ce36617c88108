import Foundation
import Testing

@testable import BBSArchive

/// The byte-level shortcuts that a board list row goes through give what
/// the character-level code that they replaced gives, on plain rows and on
/// text built to tell the two apart (combining marks after a separator,
/// CR LF, full-width digits, U+00A0 beside other two-byte scalars).
@Suite struct ListRowFastPathTests {
    static let pieces = [
        "", " ", "|", "||", "a", "a b", "  a  b  ", "a|b", "|a|b|", "a||b", "2025-06-01 12:00:00 alice",
        "12:00 bob|12:30 carol", "a\r\nb", "a \r\n b", "a \u{301}b", "a|\u{301}b", "中 文", "原帖已删除|12:00 x",
        "١٢ x", "１２ x", "12３ x", "\u{A0}", "a\u{A0}b", "\u{A0}\u{A0} \u{A0}", "é\u{A0}ü", "x\u{C2}", "\u{80}\u{A0}",
    ]

    /// Every piece, and every pair of pieces joined by each separator.
    static var texts: [String] {
        var all = pieces
        for a in pieces { for b in pieces { all += [a + " " + b, a + "|" + b, a + b] } }
        return all
    }

    @Test func splitOnceIsTheStandardSplit() {
        var mismatches: [String] = []
        for text in Self.texts {
            for separator: Character in [" ", "|", "/"] {
                let expected = text.split(separator: separator, maxSplits: 1).map(String.init)
                if SMTHMobileParser.splitOnce(text, at: separator) != expected {
                    mismatches.append("\(text.unicodeScalars.map { String($0.value, radix: 16) }) at \(separator)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test func plainSpacesReplacesExactlyTheNoBreakSpaces() {
        for text in Self.texts {
            var scalars = String.UnicodeScalarView()
            for scalar in text.unicodeScalars { scalars.append(scalar == "\u{00A0}" ? " " : scalar) }
            #expect(HTMLWhitespace.plainSpaces(text) == String(scalars), "\(Array(text.utf8))")
        }
    }

    /// The character-level reading that `articlePath` keeps for text that
    /// is not ASCII, as it was for every address before.
    static func articlePathByCharacters(_ href: String) -> (String, Int)? {
        guard let range = href.range(of: "/article/") else { return nil }
        let parts = href[range.upperBound...].split(separator: "/")
        guard parts.count >= 2 else { return nil }
        guard let gid = Int(parts[1].prefix { $0.isNumber }) else { return nil }
        return (String(parts[0]).removingPercentEncoding ?? String(parts[0]), gid)
    }

    @Test func articlePathReadsEveryAddressAsBefore() {
        let hrefs = [
            "/article/Geography/123", "/article/Geography/123?p=2", "https://m.newsmth.net/article/Tea/9#a1",
            "/article//Geography//123", "/article/Geography", "/article/Geography/", "/article/Geography/x12",
            "/article/Geography/12x", "/article/Geography/99999999999999999999", "/article/Geo%20graphy/5",
            "/article/%E4%B8%AD/7", "/article/中文/8", "/article/Geography/１２", "/article/Geography/12３",
            "/board/Geography", "", "/article/", "/article/A/1/2/3", "/article/A/-1", "/article/A/+1",
        ]
        for href in hrefs {
            let fast = SMTHMobileParser.articlePath(href)
            let slow = Self.articlePathByCharacters(href)
            #expect(fast?.0 == slow?.0 && fast?.1 == slow?.1, "\(href): \(String(describing: fast))")
        }
        #expect(SMTHMobileParser.articlePath("/article/Geography/123")?.1 == 123)
    }
}

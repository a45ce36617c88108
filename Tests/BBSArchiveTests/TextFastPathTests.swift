import Foundation
import Testing

@testable import BBSArchive
@testable import SMTHReplica

/// The parser's byte-level shortcuts give what the slower ways they
/// replaced give: Foundation's trimming, per-character whitespace
/// collapsing, the standard library's UTF-8 decoder.
@Suite struct TextFastPathTests {
    /// Every BMP scalar and a few beyond, alone and around text.
    static let scalars: [Unicode.Scalar] =
        (0...0xFFFF).compactMap(Unicode.Scalar.init)
        + [0x1_0000, 0x1_F3FB, 0x1_F600, 0xE_0020, 0x10_FFFF]
        .compactMap(Unicode.Scalar.init)

    @Test func blankAndTrimmedAreFoundations() {
        var mismatches: [String] = []
        for scalar in Self.scalars {
            let alone = String(Character(scalar))
            let around = "\(scalar)a \(scalar)b\(scalar)"
            if HTMLWhitespace.isBlank(alone) != alone.trimmingCharacters(in: .whitespaces).isEmpty {
                mismatches.append("isBlank U+\(String(scalar.value, radix: 16))")
            }
            for newlines in [false, true] {
                let set: CharacterSet = newlines ? .whitespacesAndNewlines : .whitespaces
                if HTMLWhitespace.trimmed(around, newlines: newlines) != around.trimmingCharacters(in: set) {
                    mismatches.append("trimmed U+\(String(scalar.value, radix: 16)) newlines: \(newlines)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    /// Pieces where a space or U+00A0 joins its neighbour into one
    /// character, and plain ones.
    static let tricky = [
        "a b", "  a \t b  ", "a\u{301} b", "a \u{301}b", "\u{A0}\u{301}x", "x\u{A0}", "x\u{600} y", "\u{600} ",
        "中 文", "中\u{3000}文", "a\r\nb", "\r\n", "\t\n\u{0C}", "e\u{200D} x", "x \u{200D}y", " \u{1F3FB}",
        "ก ำ", "\u{0915}\u{094D} \u{0937}", "\u{A0}\u{A0} \u{A0}", "ｶ ﾞ", "か ゙", "〇 〪", "", " ",
        "a \u{200C}b", "\u{2002}x\u{2003} ", "※ 来源", "→ \u{20D7}", "◆ \u{FE0F}", "\u{2060} \u{2061}",
    ]

    func collapsed(_ pieces: [String], byCharacters: Bool) -> String {
        var line = CollapsingLine()
        for piece in pieces {
            if byCharacters { line.appendByCharacters(piece) } else { line.append(piece) }
        }
        return line.finish()
    }

    @Test func collapsingAsBytesIsCollapsingByCharacters() {
        for piece in Self.tricky {
            for before in [[], ["x"], [" "]] {
                let pieces = before + [piece, piece]
                #expect(
                    collapsed(pieces, byCharacters: false) == collapsed(pieces, byCharacters: true),
                    "\(pieces.map { $0.unicodeScalars.map { String($0.value, radix: 16) } })")
            }
        }
        // Random text from the same troublesome scalars.
        let alphabet = Array(Set(Self.tricky.joined().unicodeScalars)) + ["a", "字", " ", "\u{A0}"]
        var random = SeededRandom(seed: 10)
        for _ in 0..<2000 {
            let pieces = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                var text = String.UnicodeScalarView()
                for _ in 0..<Int.random(in: 0...8, using: &random) {
                    text.append(alphabet.randomElement(using: &random) ?? " ")
                }
                return String(text)
            }
            #expect(
                collapsed(pieces, byCharacters: false) == collapsed(pieces, byCharacters: true),
                "\(pieces.map { $0.unicodeScalars.map { String($0.value, radix: 16) } })")
        }
    }

    /// The check the fast one replaced: the standard library's decoder.
    static func decodes(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// `SMTHTimeParser.parse` as it was: `split` and `Int(_:)` on characters.
    static func timeBySplitting(_ text: String, fetchedAt: Date) -> Date? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\u{00A0}" || $0 == "T" })
        func numbers(_ field: Substring, _ separator: Character) -> [Int?] {
            field.split(separator: separator).map { Int($0) }
        }
        func clock(_ field: Substring) -> (Int, Int, Int)? {
            let parts = numbers(field, ":")
            guard parts.count == 2 || parts.count == 3, let h = parts[0], let m = parts[1] else { return nil }
            guard let s = parts.count == 3 ? parts[2] : 0 else { return nil }
            return (h, m, s)
        }
        func day(_ field: Substring) -> (Int, Int, Int)? {
            let parts = numbers(field, "-")
            guard parts.count == 3, let y = parts[0], let m = parts[1], let d = parts[2] else { return nil }
            return (y, m, d)
        }
        let time = SMTHSiteRules.time
        switch fields.count {
        case 1 where fields[0].contains(":"):
            guard let (h, m, s) = clock(fields[0]) else { return nil }
            var today = time.components(of: fetchedAt)
            (today.hour, today.minute, today.second) = (h, m, s)
            return time.date(today)
        case 1:
            guard let (y, mo, d) = day(fields[0]) else { return nil }
            return time.date(.init(year: y, month: mo, day: d))
        case 2:
            guard let (y, mo, d) = day(fields[0]), let (h, m, s) = clock(fields[1]) else { return nil }
            return time.date(.init(year: y, month: mo, day: d, hour: h, minute: m, second: s))
        default:
            return nil
        }
    }

    @Test func timesReadAsBytesAreTimesReadAsCharacters() {
        let fetchedAt = Fixtures.beijing(2025, 6, 1, 12)
        let texts = [
            "12:30", "12:30:45", "2025-06-01", "2025-06-01 12:00:00", "2025-06-01T12:00:00", " 12:30 ",
            "2025-06-01  12:00", "+12:-3", "-0:+5", "99999999999999999999:00", "9223372036854775807:0",
            "2025--06--01", ":::", "12:30:", "::12::30::", "1-2-3", "T", "", "12:30:45:1", "2025-02-30",
            "2025-13-01", "12", "1e3:00", "12 :30", "2025-06-01 12:00:00 extra", "TT12:30TT", "0x1:2",
        ]
        var random = SeededRandom(seed: 5)
        let alphabet = Array("0123456789:- T+")
        let randomTexts = (0..<2000).map { _ in
            String(
                (0..<Int.random(in: 0...14, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? " " })
        }
        for text in texts + randomTexts {
            // A time broken over two lines is read joined up, both ways.
            let joined = SMTHTimeParser.rejoined(text)
            let expected =
                Self.timeBySplitting(text, fetchedAt: fetchedAt)
                ?? (joined == text ? nil : Self.timeBySplitting(joined, fetchedAt: fetchedAt))
            #expect(SMTHTimeParser.parse(text, fetchedAt: fetchedAt) == expected, "\(text)")
        }
    }

    /// `isMostlyUTF8` as it was, without its shortcuts.
    static func mostlyDecodes(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var wide = 0
        var errors = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if !scalar.isASCII { wide += 1 }
            case .emptyInput: return errors == 0 || wide >= 8 * errors
            case .error: errors += 1
            }
        }
    }

    /// Pages of GBK, of UTF-8 and of both, long enough for the early no.
    @Test func mostlyUTF8KeepsItsAnswer() throws {
        let utf8 = Array(String(repeating: "水木社区 newsmth 中文字符，", count: 40).utf8)
        let gbk = [UInt8](try Iconv.convert(Data(utf8), to: "GB18030"))
        var random = SeededRandom(seed: 3)
        for _ in 0..<400 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                let source = Bool.random(using: &random) ? utf8 : gbk
                let start = Int.random(in: 0..<source.count, using: &random)
                bytes += source[start..<min(source.count, start + Int.random(in: 1...900, using: &random))]
            }
            #expect(TextEncodingDetector.isMostlyUTF8(Data(bytes)) == Self.mostlyDecodes(bytes), "\(bytes.count)")
        }
    }

    @Test func utf8CheckIsTheStandardLibrarys() {
        let pieces: [[UInt8]] = [
            Array("plain ASCII text, long enough for eight-byte steps".utf8), Array("中文字符".utf8),
            Array("😀".utf8), [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0x80, 0x80],
            [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF],
            [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0xFF], [0x80], [0xE4, 0xB8], [0xE4], [0xC2], [0xB8, 0xAD], [0xD6, 0xD0, 0xCE, 0xC4],
        ]
        for piece in pieces {
            #expect(TextEncodingDetector.isValidUTF8(Data(piece)) == Self.decodes(piece), "\(piece)")
        }
        var random = SeededRandom(seed: 7)
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                bytes += pieces.randomElement(using: &random) ?? []
            }
            #expect(TextEncodingDetector.isValidUTF8(Data(bytes)) == Self.decodes(bytes), "\(bytes)")
        }
    }

    /// The build's byte scans of post text answer what the walks by
    /// `Character` they stand in front of answer: lines split at `\n`,
    /// ESC and `[` found, SMTH's quote header bracket found.
    @Test func postTextScansAreTheCharacterWalks() {
        var mismatches: [String] = []
        for piece in Self.tricky + ["a\nb", "\n", "x\r\n\ny", "\r", "\n\u{301}x", "\u{1B}[1;31m红\u{1B}[m", "[b]x[/b]"] {
            for text in [piece, "\(piece)\n\(piece)", "【 在 someone 的大作中提到: 】\n\(piece)"] {
                let byCharacter = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if PostNormalizer.lines(text) != byCharacter { mismatches.append("lines \(text.debugDescription)") }
                if text.containsUTF8(0x1B) != text.unicodeScalars.contains("\u{1B}") {
                    mismatches.append("ESC \(text.debugDescription)")
                }
                if text.containsUTF8(UInt8(ascii: "[")) != text.unicodeScalars.contains("[") {
                    mismatches.append("[ \(text.debugDescription)")
                }
                if SMTHPostConventions.hasLenticularBracket(text) != text.unicodeScalars.contains("\u{3010}") {
                    mismatches.append("【 \(text.debugDescription)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(PostNormalizer.lines("a\r\nb\nc") == ["a\r\nb", "c"])
    }

    /// `equalsIgnoringCase` answers as `caseInsensitiveCompare` does, for
    /// every pair of 1- and 2-byte ASCII strings and for non-ASCII names
    /// (where it asks Foundation); `equalsIgnoringASCIICase` folds A–Z alone.
    @Test func caseInsensitiveEqualityIsFoundations() {
        let ascii = (0x20...0x7E).map { String(UnicodeScalar(UInt8($0))) }
        let pairs = ascii.flatMap { a in ["A", "z", "@", "`", "_"].map { a + $0 } }
        var mismatches: [String] = []
        for a in ascii + pairs {
            for b in ascii + pairs where a.utf8.count == b.utf8.count {
                if a.equalsIgnoringCase(b) != (a.caseInsensitiveCompare(b) == .orderedSame) {
                    mismatches.append("\(a) \(b)")
                }
            }
        }
        let others = [
            ("Geography", "geoGRAPHY"), ("版面", "版面"), ("Ärger", "äRGER"), ("Straße", "STRASSE"), ("a", "ab"),
        ]
        for (a, b) in others {
            if a.equalsIgnoringCase(b) != (a.caseInsensitiveCompare(b) == .orderedSame) {
                mismatches.append("\(a) \(b)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
        #expect("Content-Type".equalsIgnoringASCIICase("content-TYPE"))
        #expect(!"\u{212A}eep-Alive".equalsIgnoringASCIICase("Keep-Alive"))
        #expect(!"X-@".equalsIgnoringASCIICase("X-`"))
        #expect(!"ETag".equalsIgnoringASCIICase("ETags"))
    }
}

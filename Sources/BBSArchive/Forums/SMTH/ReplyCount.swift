import Foundation

/// A board list row's reply count, as the forum writes it: exact (`17`,
/// `1,017`, and the same in any script's digits: `１７`, `١٧`, `¹⁷`,
/// `①⑦`, `⑰`), or rounded or capped (`1.5k`, `17+`), which is no count
/// but the least the thread holds.
///
/// The count is a hint: what a fetch reads is the thread's pages, to
/// their end. It is never a reason to take a thread for archived as
/// listed unless it is exact (`ThreadSummary.repliesExact`): a `1.5k` that
/// stays `1.5k` hides the replies made since.
struct ReplyCount: Equatable {
    /// The count, or the least it can be.
    var least: Int
    var exact: Bool

    /// The count `text` writes, blanks and thousands separators aside;
    /// `nil` for anything else (`2万`, `1.5` without its `k`, a sign, more
    /// than nine digits).
    static func read(_ text: some StringProtocol) -> ReplyCount? {
        var characters = Substring(String(text).filter { !$0.isWhitespace && $0 != "," && $0 != "，" })
        var exact = true
        if let last = characters.last, last == "+" || last == "＋" {
            characters.removeLast()
            exact = false
        }
        var thousands = false
        if let last = characters.last, ["k", "K", "ｋ", "Ｋ"].contains(last) {
            characters.removeLast()
            thousands = true
            exact = false
        }
        let point = characters.firstIndex { $0 == "." || $0 == "．" }
        // A fraction is only ever of thousands (`1.5k`): `1.5` alone is no count.
        guard point == nil || thousands else { return nil }
        let whole = characters[..<(point ?? characters.endIndex)]
        let fraction = point.map { characters[characters.index(after: $0)...] } ?? ""
        guard let value = number(whole), point == nil || !fraction.isEmpty else { return nil }
        guard thousands else { return ReplyCount(least: value, exact: exact) }
        // The fraction's first three digits, rounded down: the least the
        // count can be, as written (`1.2345k` is at least 1234).
        var digits: [Int] = []
        for character in fraction {
            guard let digit = digit(character) else { return nil }
            digits.append(digit)
        }
        let thousandths = (digits + [0, 0, 0]).prefix(3).reduce(0) { $0 * 10 + $1 }
        return ReplyCount(least: value * 1000 + thousandths, exact: false)
    }

    /// Digits of one script or several, nine at most (no count from a page
    /// is past counting), or one enclosed number alone (`⑰`).
    private static func number(_ characters: Substring) -> Int? {
        if characters.count == 1, let first = characters.first, let value = enclosedNumber(first) { return value }
        guard !characters.isEmpty, characters.count <= 9 else { return nil }
        var value = 0
        for character in characters {
            guard let digit = digit(character) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// A count in brackets at the end of `text` (`标题(12)`, `(１２)`,
    /// `（1.2k）`, blanks around it aside), and what comes before it; `nil`
    /// when `text` ends in no such count.
    static func bracketed(_ text: some StringProtocol) -> (count: ReplyCount, before: Substring)? {
        let text = Substring(text).trimmingCharacters(in: .whitespaces)[...]
        guard let last = text.last, last == ")" || last == "）",
            let open = text.lastIndex(where: { $0 == "(" || $0 == "（" }),
            let count = read(text[text.index(after: open)..<text.index(before: text.endIndex)])
        else { return nil }
        return (count, text[..<open])
    }

    /// A digit of any script, by its Unicode value: decimal digits (ASCII,
    /// full-width, Arabic-Indic, Devanagari…) and the other digits
    /// (superscript, circled `①`); `nil` for anything else, a CJK numeral
    /// too (`万` has a numeric value, but is a word, not a digit).
    static func digit(_ character: Character) -> Int? {
        guard let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1 else { return nil }
        if scalar.isASCII {
            return (0x30...0x39).contains(scalar.value) ? Int(scalar.value - 0x30) : nil
        }
        let properties = scalar.properties
        guard properties.numericType == .decimal || properties.numericType == .digit,
            let value = properties.numericValue, value >= 0, value <= 9, value == value.rounded()
        else { return nil }
        return Int(value)
    }

    /// An enclosed number of its own (`⑰`, `⒄`, `⓱`, `㉑`, `❿`), by its
    /// Unicode value; `nil` for any other character.
    private static func enclosedNumber(_ character: Character) -> Int? {
        guard let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1 else { return nil }
        switch scalar.value {
        case 0x2460...0x24FF, 0x2776...0x2793, 0x3251...0x325F, 0x32B1...0x32BF: break
        default: return nil
        }
        guard let value = scalar.properties.numericValue, value >= 0, value <= 50, value == value.rounded() else {
            return nil
        }
        return Int(value)
    }
}

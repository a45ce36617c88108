import Foundation

extension String {
    /// Whether the two are the same bytes, ASCII letters in either case;
    /// every other byte as it is (no Unicode folding).
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return zip(utf8, other.utf8).allSatisfy { x, y in
            let lower = x | 0x20
            return x == y || (lower == y | 0x20 && lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
        }
    }

    /// `caseInsensitiveCompare(other) == .orderedSame`, without Foundation
    /// when both are ASCII (where it folds only A–Z): every board asked for
    /// against every board in the store made it 0.7 % of a fetch with
    /// nothing new at 100k (perf).
    func equalsIgnoringCase(_ other: String) -> Bool {
        if utf8.allSatisfy({ $0 < 0x80 }) && other.utf8.allSatisfy({ $0 < 0x80 }) {
            return equalsIgnoringASCIICase(other)
        }
        return caseInsensitiveCompare(other) == .orderedSame
    }
}

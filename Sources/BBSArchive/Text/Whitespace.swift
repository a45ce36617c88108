import Foundation

extension StringProtocol {
    /// Whether every scalar is in `CharacterSet.whitespaces` (tab and the
    /// space separators): the same answer as
    /// `trimmingCharacters(in: .whitespaces).isEmpty`, without bridging to
    /// `NSString` and copying the line (the build asks it of every line).
    var isBlankLine: Bool {
        unicodeScalars.allSatisfy { scalar in
            scalar.isASCII ? scalar == " " || scalar == "\t" : CharacterSet.whitespaces.contains(scalar)
        }
    }
}

import Foundation

/// SMTH's emoticons: `[em01]` is `/img/ubb/em/1.gif`, and the families
/// `ema`, `emb`, `emc` and `emd` are folders of their own beside it.
enum SMTHEmoticons {
    static let families: Set<String> = ["em", "ema", "emb", "emc", "emd"]

    /// The image of `code` (`em01`, `ema3`) on the forum at `baseURL`.
    static func url(_ code: String, baseURL: String) -> String? {
        let family = String(code.prefix { !$0.isNumber })
        guard families.contains(family), let number = Int(code.dropFirst(family.count)), number >= 0 else {
            return nil
        }
        return "\(baseURL)/img/ubb/\(family)/\(number).gif"
    }

    /// `…/img/ubb/em/1.gif` → `[em01]`, `…/img/ubb/ema/3.gif` → `[ema3]`:
    /// the code of an emoticon the forum sent as its image (nForum turns
    /// the codes into images itself when it parses UBB, its default), so
    /// that it is kept as the code the post holds, not as its `alt` text
    /// (`em1`, which no reader or renderer takes for an emoticon).
    static func code(ofImage source: String) -> String? {
        guard let marker = source.range(of: "/img/ubb/") else { return nil }
        let parts = source[marker.upperBound...].split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, families.contains(String(parts[0])), parts[1].hasSuffix(".gif") else { return nil }
        let digits = parts[1].dropLast(4)
        guard (1...3).contains(digits.count), digits.allSatisfy({ ("0"..."9").contains($0) }), let number = Int(digits)
        else { return nil }
        let family = String(parts[0])
        return family == "em" && number < 10 ? "[em0\(number)]" : "[\(family)\(number)]"
    }
}

extension SMTHFrontEnd {
    package func emoticonURL(_ code: String) -> String? { SMTHEmoticons.url(code, baseURL: baseURL) }
}

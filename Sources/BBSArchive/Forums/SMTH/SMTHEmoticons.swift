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
}

extension SMTHFrontEnd {
    package func emoticonURL(_ code: String) -> String? { SMTHEmoticons.url(code, baseURL: baseURL) }
}

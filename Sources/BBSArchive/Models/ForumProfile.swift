import Foundation

/// All the build half knows of one forum: the words its archive shows, the
/// zone its times are in, how its posts are written, and the forms of its
/// addresses the lookup page reads. The pipeline takes it from the stored
/// boards' source (`ForumSources.profile(sources:)`), so the render half
/// names no forum and never makes a `ForumSource`.
package struct ForumProfile: Sendable {
    package var wording: SiteWording
    package var time: ForumTime
    package var conventions: any PostConventions
    package var lookup: LookupRules

    package init(wording: SiteWording, time: ForumTime, conventions: any PostConventions, lookup: LookupRules) {
        self.wording = wording
        self.time = time
        self.conventions = conventions
        self.lookup = lookup
    }

    /// No forum in particular: plain words, UTC, text as text, no lookup.
    package static let plain = ForumProfile(
        wording: .plain, time: .utc, conventions: PlainPostConventions(), lookup: LookupRules(base: "", rules: []))
}

/// The forms of a forum's thread and board addresses, as data for the
/// site's forum-agnostic `lookup.js` (written into `lookup-rules.js`).
package struct LookupRules: Sendable, Equatable, Codable {
    /// What an address without a host is read against, e.g. `https://m.newsmth.net/`.
    package var base: String
    /// Tried in order; the first that matches wins.
    package var rules: [LookupRule]
    /// The forms the lookup page names, e.g. 手机版 `m.newsmth.net/article/版面/编号`.
    package var forms: [Form]

    package struct Form: Sendable, Equatable, Codable {
        package var label: String
        package var shape: String

        package init(label: String, shape: String) {
            self.label = label
            self.shape = shape
        }
    }

    package init(base: String, rules: [LookupRule], forms: [Form] = []) {
        self.base = base
        self.rules = rules
        self.forms = forms
    }
}

/// One form of address: a JavaScript regular expression (matched without
/// regard to case) over one part of the parsed URL, and the numbers of
/// its groups that hold the board's name and the thread's id.
package struct LookupRule: Sendable, Equatable, Codable {
    package enum Part: String, Sendable, Codable {
        /// The URL's path, `/article/Board/123`.
        case path
        /// The URL's fragment with its `#`, `#!article/Board/123`.
        case fragment
    }

    package var part: Part
    package var pattern: String
    package var board: Int
    /// The group of the thread's id; `nil`, or a group that did not take
    /// part or is not all digits, makes the address a board's.
    package var gid: Int?

    package init(part: Part, pattern: String, board: Int, gid: Int? = nil) {
        self.part = part
        self.pattern = pattern
        self.board = board
        self.gid = gid
    }
}

import Foundation

/// The words of no forum in particular: what a forum would say of itself
/// (`SiteWording`), for a forum that declares no words, so they live with
/// the forums and not among the site's own words (`strings.toml`).
extension SiteWording {
    /// A forum's words, with 论坛 ("the forum") for its name.
    package init(siteTitle: String, deletedAuthor: String, lookupExample: String) {
        self.init(siteTitle: siteTitle, deletedAuthor: deletedAuthor, lookupExample: lookupExample, forumName: "论坛")
    }

    /// The words of no forum in particular, for a build told nothing else.
    package static let plain = SiteWording(siteTitle: "论坛存档", deletedAuthor: "原帖已删除", lookupExample: "")
}

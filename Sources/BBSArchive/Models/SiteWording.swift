/// The words of one forum that the built site shows: the pipeline takes
/// them from the stored boards' `ForumSource` and hands them to the build,
/// so the render half knows no forum by name.
package struct SiteWording: Sendable, Equatable {
    /// The archive's title, on every page and feed.
    package var siteTitle: String
    /// What stands for the author of a thread whose first post was deleted.
    package var deletedAuthor: String
    /// The lookup page's example address when the store has no thread yet.
    package var lookupExample: String
    /// The forum's own name, as in 用{{forum.name}}的原帖链接查找 on the 404 page.
    package var forumName: String

    package init(siteTitle: String, deletedAuthor: String, lookupExample: String, forumName: String) {
        self.siteTitle = siteTitle
        self.deletedAuthor = deletedAuthor
        self.lookupExample = lookupExample
        self.forumName = forumName
    }
}

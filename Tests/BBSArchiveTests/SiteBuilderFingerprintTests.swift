import Foundation
import Testing

@testable import BBSArchive

/// The build's fingerprint reads the options as the standard library
/// prints them, written out by hand (`fingerprintText`): the same text,
/// so a site built before keeps its fingerprint, and a field added to the
/// options or the forum's profile without adding it there fails here.
@Suite struct SiteBuilderFingerprintTests {
    /// Options as the tests and the forums' profiles set them, and odd ones:
    /// quotes, backslashes, control characters and CJK in the strings, an
    /// address, a rule without a thread group.
    static var cases: [SiteBuilder.Options] {
        var cases: [SiteBuilder.Options] = [SiteBuilder.Options()]
        for name in ForumSources.names {
            var options = SiteBuilder.Options()
            options.forum = ForumSources.profile(sources: [name])
            cases.append(options)
        }
        var odd = SiteBuilder.Options()
        odd.forum = ForumSources.profile(sources: ["smth-nforum"])
        odd.wording = SiteWording(
            siteTitle: "水木\"存档\"\\ 'x'\n\t\r\u{0}\u{7F}\u{301}é", deletedAuthor: "",
            lookupExample: "https://x/?a=1&b=2", forumName: "🙂")
        odd.forum.time = ForumTime(zone: "Etc/GMT-8", offsetSeconds: -28_800)
        odd.forum.lookup.rules.append(LookupRule(part: .fragment, pattern: #"^#!(\w+)$"#, board: 1))
        odd.forum.lookup.forms.append(.init(label: "旧\"版\"", shape: "a\\b"))
        odd.siteURL = "https://example.org/smth/"
        odd.hotTopics = 0
        odd.incremental = false
        odd.workers = 1
        odd.searchIndex = false
        cases.append(odd)
        return cases
    }

    @Test(arguments: cases) func theHandWrittenTextIsWhatPrintingGives(options: SiteBuilder.Options) {
        #expect(options.fingerprintText == "\(options)")
    }
}

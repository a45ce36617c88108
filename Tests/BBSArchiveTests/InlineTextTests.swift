import Foundation
import Testing

@testable import BBSArchive

@Suite struct InlineTextTests {
    @Test func readsColoursUBBLinksAndEmoticons() {
        let segments = InlineText.segments(
            "a\u{1B}[1;31m红[b]粗[/b]\u{1B}[m [url=http://x.org/?a=1&b=2]链接[/url] [em01] see https://y.org/p?q=1, ok",
            conventions: Fixtures.smthForum.conventions)
        #expect(
            segments.map(\.text) == ["a", "红", "粗", " ", "链接", " ", "[em01]", " see ", "https://y.org/p?q=1", ", ok"])
        #expect(segments[1].style.foreground == 9 && !segments[1].bold)
        #expect(segments[2].bold && segments[2].style.foreground == 9)
        #expect(segments[4].link == "http://x.org/?a=1&b=2")
        #expect(segments[6].emoticon == "em01")
        #expect(segments[8].link == "https://y.org/p?q=1")
    }

    @Test func neverLinksScripts() {
        let segments = InlineText.segments(
            "[url=javascript:alert(1)]点我[/url] [img=data:text/html,x][/img]",
            conventions: Fixtures.smthForum.conventions)
        #expect(segments.allSatisfy { $0.link == nil })
        #expect(InlineText.plain("\u{1B}[31m红\u{1B}[m") == "红")
    }
}

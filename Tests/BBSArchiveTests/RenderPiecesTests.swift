import Foundation
import Testing

@testable import BBSArchive

@Suite struct PagerTests {
    func numbers(_ view: PagerView?) -> [Int] { view?.pages.map(\.number) ?? [] }

    @Test func noPagerForOnePage() {
        #expect(Pager.view(current: 1, total: 1) { "\($0)" } == nil)
    }

    @Test func windowAtTheFirstPage() throws {
        let view = try #require(Pager.view(current: 1, total: 40) { "p\($0)" })
        #expect(numbers(view) == [1, 2, 3, 4, 5])
        #expect(view.prevPage == nil)
        #expect(view.firstPage == nil)
        #expect(view.backJump == nil)
        #expect(view.nextPage?.href == "p2")
        #expect(view.lastPage?.number == 40)
        #expect(view.forwardJump?.href == "p11")
    }

    @Test func windowInTheMiddle() throws {
        let view = try #require(Pager.view(current: 20, total: 40) { "p\($0)" })
        #expect(numbers(view) == [18, 19, 20, 21, 22])
        #expect(view.firstPage?.href == "p1")
        #expect(view.prevPage?.href == "p19")
        #expect(view.backJump?.number == 10)
        #expect(view.forwardJump?.number == 30)
    }

    @Test func windowAtTheLastPage() throws {
        let view = try #require(Pager.view(current: 40, total: 40) { "p\($0)" })
        #expect(numbers(view) == [36, 37, 38, 39, 40])
        #expect(view.nextPage == nil)
        #expect(view.lastPage == nil)
        #expect(view.forwardJump == nil)
        #expect(view.backJump?.number == 30)
    }

    @Test func shortBoardsHaveNoJumps() throws {
        let view = try #require(Pager.view(current: 2, total: 3) { "p\($0)" })
        #expect(numbers(view) == [1, 2, 3])
        #expect(view.backJump == nil && view.forwardJump == nil)
    }
}

@Suite struct SitePathsTests {
    @Test func linksAreRelative() {
        #expect(SitePaths.relative(from: "board/Geo/12.html", to: "user/bob.html") == "../../user/bob.html")
        #expect(SitePaths.relative(from: "index.html", to: "board/Geo/index.html") == "board/Geo/index.html")
        #expect(SitePaths.relative(from: "board/Geo/12.html", to: "board/Geo/12-2.html") == "12-2.html")
        #expect(SitePaths.relative(from: "board/Geo/12.html", to: "board/Other/index.html") == "../Other/index.html")
        #expect(SitePaths.relative(from: "board/Geo/12.html", to: "") == "../../")
        #expect(SitePaths.relative(from: "index.html", to: "") == "")
    }

    @Test func idsBecomeSafeDistinctFileNames() {
        #expect(SitePaths.component("Geography") == "Geography")
        #expect(SitePaths.component("../x") == "~2E~2E~2Fx")
        #expect(SitePaths.component("a.b") != SitePaths.component("a~b"))
        #expect(SitePaths.component("") == "~")
    }

    @Test func mediaNamesNeverBecomePages() {
        #expect(SitePaths.mediaExtension(mime: "image/png", name: "x.gif") == "png")
        #expect(SitePaths.mediaExtension(mime: nil, name: "evil.html") == "bin")
        #expect(SitePaths.mediaExtension(mime: "application/octet-stream", name: "资料.TXT") == "txt")
        #expect(SitePaths.mediaExtension(mime: "image/svg+xml", name: "a.svg") == "bin")
    }
}

@Suite struct MarkdownDocumentTests {
    @Test func cmarkEscapesForumText() {
        let document = MarkdownDocument()
        document.heading(1, [.text("# 不是标题 *也不是强调* <script>")])
        document.paragraph([.text("1. 不是列表"), .lineBreak, .text("[不是链接](http://x)")])
        document.quote([[.text("> 引用里")]])
        let text = document.render()
        #expect(text.hasPrefix("# \\# 不是标题 \\*也不是强调\\* \\<script\\>"))
        #expect(text.contains("1\\. 不是列表"))
        #expect(text.contains("\\[不是链接\\](http://x)"))
        #expect(text.contains("> \\> 引用里"))
        #expect(!text.contains("<script>"))
    }

    @Test func writesImagesAndLinks() {
        let document = MarkdownDocument()
        document.paragraph([.image(url: "../../media/ab/abc.png", alt: "图"), .link(url: "a b.md", text: "t")])
        let text = document.render()
        #expect(text.contains("![图](../../media/ab/abc.png)"))
        #expect(text.contains("[t](a%20b.md)") || text.contains("[t](<a b.md>)"))
    }
}

import Foundation
import Testing

@testable import BBSArchive

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

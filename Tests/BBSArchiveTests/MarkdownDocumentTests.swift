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

    /// A document far larger than its arena's first block (its tree and its
    /// text grow it block by block), several at once on other threads, and
    /// one begun while another is: each renders its own text, whole.
    @Test func documentsInArenasOfTheirOwnRenderWhole() async {
        func expected(_ tag: String, _ count: Int) -> String {
            (0..<count).map { "第\($0)段 \(tag) 地理版" }.joined(separator: "\n\n") + "\n"
        }
        func write(_ tag: String, _ count: Int) -> String {
            let document = MarkdownDocument()
            for index in 0..<count { document.paragraph([.text("第\(index)段 \(tag) 地理版")]) }
            return document.render()
        }
        let big = write("大", 20_000)
        #expect(big.utf8.count > 300_000)
        #expect(big == expected("大", 20_000))
        let outer = MarkdownDocument()
        outer.paragraph([.text("外")])
        let inner = MarkdownDocument()
        inner.paragraph([.text("内")])
        outer.paragraph([.text("外二")])
        #expect(inner.render() == "内\n")
        #expect(outer.render() == "外\n\n外二\n")
        let texts = await withTaskGroup(of: (Int, String).self) { group in
            for task in 0..<8 { group.addTask { (task, write("t\(task)", 3_000 + task)) } }
            var texts: [Int: String] = [:]
            for await (task, text) in group { texts[task] = text }
            return texts
        }
        for task in 0..<8 { #expect(texts[task] == expected("t\(task)", 3_000 + task)) }
    }

    /// A paragraph or a quote given its lines writes what the same given as
    /// inlines (each line a `.text`, a `.lineBreak` between) writes.
    @Test func linesWriteWhatTheirInlinesWrite() {
        func inlines(_ lines: [String]) -> [MarkdownDocument.Inline] {
            lines.enumerated().flatMap { index, line -> [MarkdownDocument.Inline] in
                index == 0 ? [.text(line)] : [.lineBreak, .text(line)]
            }
        }
        let cases: [(header: String?, lines: [String])] = [
            (nil, ["# 不是标题", "1. 不是列表", "  缩进 *星* [链](x)", "末行\\"]),
            ("【 在 someone 的大作中提到: 】", [": 引一", ": : 引二"]),
            ("只有标题 <b>", []),
            (nil, ["单行"]),
            (nil, []),
        ]
        for (header, lines) in cases {
            let byLines = MarkdownDocument()
            let byInlines = MarkdownDocument()
            if !lines.isEmpty {
                byLines.paragraph(lines: lines)
                byInlines.paragraph(inlines(lines))
            }
            byLines.quote(header: header, lines: lines)
            var quoted: [[MarkdownDocument.Inline]] = header.map { [[.text($0)]] } ?? []
            if !lines.isEmpty { quoted.append(inlines(lines)) }
            if !quoted.isEmpty { byInlines.quote(quoted) }
            #expect(byLines.render() == byInlines.render())
            if header == nil && lines.isEmpty { #expect(byLines.render() == MarkdownDocument().render()) }
        }
    }

    @Test func writesImagesAndLinks() {
        let document = MarkdownDocument()
        document.paragraph([.image(url: "../../media/ab/abc.png", alt: "图"), .link(url: "a b.md", text: "t")])
        let text = document.render()
        #expect(text.contains("![图](../../media/ab/abc.png)"))
        #expect(text.contains("[t](a%20b.md)") || text.contains("[t](<a b.md>)"))
    }
}

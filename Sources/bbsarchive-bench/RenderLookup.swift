import Foundation
import Mustache

// `bbsarchive-bench render-lookup`: how swift-mustache finds a template's
// names in a 30-row board list, by the three kinds of context it accepts:
// `[String: Any]` dictionaries, plain structs (read through `Mirror`) and
// structs answering `MustacheParent.child(named:)` (what the site builder's
// views do). Prints milliseconds per rendered page for each.

private struct Author: Sendable { var id: String; var href: String }
private struct Row: Sendable {
    var title: String; var href: String; var key: String; var replies: Int; var sticky: Bool; var marked: Bool
    var hasFiles: Bool; var postedAt: String; var postedISO: String; var lastReplyAt: String; var lastReplyISO: String
    var author: Author?; var lastReplier: Author?
}
private struct Page: Sendable { var title: String; var threads: [Row] }

private struct PAuthor: MustacheParent, Sendable {
    var id: String; var href: String
    func child(named name: String) -> Any? {
        switch name {
        case "id": id;
        case "href": href;
        default: nil
        }
    }
}
private struct PRow: MustacheParent, Sendable {
    var title: String; var href: String; var key: String; var replies: Int; var sticky: Bool; var marked: Bool
    var hasFiles: Bool; var postedAt: String; var postedISO: String; var lastReplyAt: String; var lastReplyISO: String
    var author: PAuthor?; var lastReplier: PAuthor?
    func child(named name: String) -> Any? {
        switch name {
        case "title": title;
        case "href": href;
        case "key": key;
        case "replies": replies;
        case "sticky": sticky
        case "marked": marked;
        case "hasFiles": hasFiles;
        case "postedAt": postedAt;
        case "postedISO": postedISO
        case "lastReplyAt": lastReplyAt;
        case "lastReplyISO": lastReplyISO;
        case "author": author as Any?
        case "lastReplier": lastReplier as Any?
        default: nil
        }
    }
}
private struct PPage: MustacheParent, Sendable {
    var title: String; var threads: [PRow]
    func child(named name: String) -> Any? {
        switch name {
        case "title": title;
        case "threads": threads;
        default: nil
        }
    }
}

func runRenderLookup(_ arguments: Arguments) throws {
    let reps = 300
    let passes = 3
    let template = try MustacheTemplate(
        string: """
            <h1>{{title}}</h1>
            {{#threads}}
            <tr{{#sticky}} class="sticky"{{/sticky}} data-key="{{key}}">
            <td class="title">{{#sticky}}<span>置顶</span> {{/sticky}}{{#marked}}<span>m</span> {{/marked}}<a href="{{href}}">{{title}}</a>{{#hasFiles}} <span>附件</span>{{/hasFiles}}</td>
            <td class="author">{{#author}}<a href="{{href}}">{{id}}</a>{{/author}}{{^author}}<span class="deleted">原帖已删除</span>{{/author}} <time datetime="{{postedISO}}">{{postedAt}}</time></td>
            <td class="num">{{replies}}</td>
            <td class="last">{{#lastReplier}}<a href="{{href}}">{{id}}</a> {{/lastReplier}}<time datetime="{{lastReplyISO}}">{{lastReplyAt}}</time></td>
            </tr>
            {{/threads}}
            """)
    func rowDict(_ i: Int) -> [String: Any] {
        [
            "title": "主题 \(i)", "href": "\(i).html", "key": "board/G/\(i).html", "replies": i, "sticky": i % 7 == 0,
            "marked": false,
            "hasFiles": i % 3 == 0, "postedAt": "2026-01-01 10:00:00", "postedISO": "2026-01-01T10:00:00+08:00",
            "lastReplyAt": "2026-01-02 10:00:00", "lastReplyISO": "2026-01-02T10:00:00+08:00",
            "author": ["id": "user\(i)", "href": "../../user/user\(i).html"],
            "lastReplier": ["id": "u\(i)", "href": "x.html"],
        ]
    }
    let n = 30
    let dictPage: [String: Any] = ["title": "Geo", "threads": (0..<n).map(rowDict)]
    let mirrorPage = Page(
        title: "Geo",
        threads: (0..<n).map { i in
            Row(
                title: "主题 \(i)", href: "\(i).html", key: "board/G/\(i).html", replies: i, sticky: i % 7 == 0,
                marked: false,
                hasFiles: i % 3 == 0, postedAt: "2026-01-01 10:00:00", postedISO: "2026-01-01T10:00:00+08:00",
                lastReplyAt: "2026-01-02 10:00:00", lastReplyISO: "2026-01-02T10:00:00+08:00",
                author: Author(id: "user\(i)", href: "../../user/user\(i).html"),
                lastReplier: Author(id: "u\(i)", href: "x.html"))
        })
    let parentPage = PPage(
        title: "Geo",
        threads: (0..<n).map { i in
            PRow(
                title: "主题 \(i)", href: "\(i).html", key: "board/G/\(i).html", replies: i, sticky: i % 7 == 0,
                marked: false,
                hasFiles: i % 3 == 0, postedAt: "2026-01-01 10:00:00", postedISO: "2026-01-01T10:00:00+08:00",
                lastReplyAt: "2026-01-02 10:00:00", lastReplyISO: "2026-01-02T10:00:00+08:00",
                author: PAuthor(id: "user\(i)", href: "../../user/user\(i).html"),
                lastReplier: PAuthor(id: "u\(i)", href: "x.html"))
        })
    let a = template.render(dictPage), b = template.render(mirrorPage), c = template.render(parentPage)
    guard a == b, b == c else { throw BenchError.usage("the three lookups render differently") }
    func time(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<reps { body() }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(reps)
    }
    var results: [String: [Double]] = [:]
    for _ in 0..<passes {
        results["dictionary", default: []].append(time { _ = template.render(dictPage) })
        results["mirror", default: []].append(time { _ = template.render(mirrorPage) })
        results["mustacheParent", default: []].append(time { _ = template.render(parentPage) })
    }
    try printJSON(["msPerPage": results, "rowsPerPage": n, "pagesPerPass": reps])
}

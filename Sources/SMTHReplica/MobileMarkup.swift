import Foundation

/// Renders the pages of SMTH's mobile site (m.newsmth.net) for the replica.
/// The markup copies the real site's shape closely (XHTML Basic, the same
/// ids, classes and separators) because the archiver's parser is written
/// against real captures and this replica must exercise the same code paths.
enum MobileMarkup {
    static let threadsPerPage = 30
    static let postsPerPage = 10

    // MARK: - Page frame

    /// A whole page: the real site's prologue, head and frame around `main`,
    /// the content of `div#m_main`. Error notices leave out the board search box.
    static func page(menu: String, main: String, searchBox: Bool = true) -> String {
        var html = #"<?xml version="1.0" encoding="utf-8"?>"#
        html +=
            #"<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML Basic 1.1//EN" "http://www.w3.org/TR/xhtml-basic/xhtml-basic11.dtd">"#
        html += #"<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="cn"><head>"#
        html += #"<meta name="viewport" content="width=device-width,user-scalable=yes">"#
        html += #"<meta name="apple-mobile-web-app-capable" content="yes">"#
        html += "<title>水木社区手机版</title>"
        html +=
            #"<link rel="stylesheet" type="text/css" href="//static.mysmth.net/nForum/plugins/mobile/ccss/m.css" />"#
        html += #"</head><body><div id="wraper" style="width:100%"><div class="logo sp">水木社区手机版</div>"#
        html += #"<div class="menu sp"><a href="/index" accesskey="0">首页</a>|"# + menu + "</div>"
        html += #"<div id="m_main">"# + main
        if searchBox {
            html += #"<div class="sec sp"><form action="/go" method="get"><span class="f">选择讨论区</span><br />"#
            html +=
                #"<input type="text" name="name" />&nbsp;<input type="submit" value="GO" class="btn" /></form></div>"#
        }
        html += "</div>"
        html +=
            #"<div class="menu nav"><a href="/index" accesskey="0">首页</a>|<a href="/section" accesskey="2">分区</a>|<a href="/hot" accesskey="3">热推</a></div>"#
        html += #"<div class="logo sp">水木社区手机版&nbsp;本地复制站</div></div></body></html>"#
        return html
    }

    /// The page the site shows for an error such as an unknown board: the
    /// message alone fills `div#m_main`.
    static func notice(_ message: String) -> String {
        page(menu: "提示", main: #"<div class="sp hl f">"# + escape(message) + "</div>", searchBox: false)
    }

    static func boardMissing() -> String { notice("指定的版面不存在") }
    static func articleMissing() -> String { notice("指定的文章不存在") }
    /// What a guest sees on a board that needs a login.
    static func noPermission() -> String { notice("您无权阅读此版面") }

    // MARK: - Board listing

    /// `/board/{B}?p={page}`: sticky threads then the rest, 30 rows a page.
    /// `reference` is the moment the page is served, which decides whether a
    /// time prints as `HH:MM:SS` (today) or `YYYY-MM-DD`.
    static func boardPage(_ board: ReplicaBoard, page requested: Int, reference: Int64) -> String {
        let b = board.name
        let total = pageCount(board.threads.count, per: threadsPerPage)
        let current = clamp(requested, total)
        let pager = self.pager(action: "/board/\(b)", link: { "/board/\(b)?p=\($0)" }, current: current, total: total)

        var main =
            #"<div class="sec nav"><a href="/board/\#(b)/0">经典</a>|<a href="/board/\#(b)/1">文摘</a>|<a href="/board/\#(b)/3">保留</a></div>"#
        main += pager
        main += #"<ul class="list sec">"#
        let start = (current - 1) * threadsPerPage
        let rows = board.threads.dropFirst(start).prefix(threadsPerPage)
        if rows.isEmpty {
            main += "<li>不存在任何文章</li>"
        }
        for (i, thread) in rows.enumerated() {
            main += i % 2 == 0 ? "<li>" : #"<li class="hla">"#
            main += #"<div><a href="/article/\#(b)/\#(thread.gid)""#
            main += thread.sticky ? #" class="top">"# : ">"
            main += escape(thread.title) + "</a>(\(thread.listedReplies))</div><div>"
            if let deleted = thread.deletedFirstPost {
                main += BeijingClock.listingText(BeijingClock.seconds(deleted.postedAt), reference: reference)
                main += "&nbsp;原帖已删除"
            } else if let first = thread.posts.first {
                main += BeijingClock.listingText(BeijingClock.seconds(first.postedAt), reference: reference)
                main += "&nbsp;" + userLink(first.author)
            }
            main += "|"
            if let last = thread.posts.last ?? thread.posts.first {
                main += BeijingClock.listingText(BeijingClock.seconds(last.postedAt), reference: reference)
                main += "&nbsp;" + userLink(last.author)
            }
            main += "</div></li>"
        }
        main += "</ul>" + pager
        return page(
            menu: "版面-\(escape(board.title))(\(escape(b)))|"
                + #"<a href="/section" style="font-weight:600;color: red">&nbsp;分区导航</a>"#,
            main: main)
    }

    // MARK: - Thread

    /// `/article/{B}/{gid}?p={page}[&au={user}]`: 10 posts a page.
    static func threadPage(_ thread: ReplicaThread, board: ReplicaBoard, page requested: Int, author: String?) -> String
    {
        let b = board.name
        let base = "/article/\(b)/\(thread.gid)"
        let posts = author.map { id in thread.posts.filter { $0.author == id } } ?? thread.posts
        let total = pageCount(posts.count, per: postsPerPage)
        let current = clamp(requested, total)
        let authorQuery = author.map { "au=\(escape(urlQueryValue($0)))&amp;" } ?? ""
        let hidden = author.map { #"<input type="hidden" name="au" value="\#(escape($0))" />"# } ?? ""
        let pager = self.pager(
            action: base, link: { "\(base)?\(authorQuery)p=\($0)" },
            current: current, total: total, hidden: hidden)

        var main = pager
        main += #"<ul class="list sec"><li class="f">主题:"# + escape(thread.title) + "</li>"
        let slice = posts.dropFirst((current - 1) * postsPerPage).prefix(postsPerPage)
        if slice.isEmpty {
            main += "<li>不存在任何文章</li>"
        }
        for (i, post) in slice.enumerated() {
            main += i % 2 == 0 ? "<li>" : #"<li class="hla">"#
            main += #"<a name="a\#(post.floor)"></a><div class="nav hl"><div>"#
            main += #"<a class="plant">"# + (post.floor == 0 ? "楼主" : "\(post.floor)楼") + "</a>|"
            main += userLink(post.author) + "|"
            main += #"<a class="plant">"# + BeijingClock.dateTimeText(BeijingClock.seconds(post.postedAt)) + "</a>|"
            main += #"<a href="\#(base)?au=\#(escape(urlQueryValue(post.author)))">只看此ID</a>"#
            main += #"</div></div><div class="sp">"# + body(post) + "</div></li>"
        }
        main += "</ul>" + pager
        let menu = #"<a href="/board/\#(b)">"# + escape(board.title) + "</a>|主题"
        let html = page(menu: menu, main: main)
        return thread.reindented ? Reindent.wrap(html, seed: thread.gid) : html
    }

    /// A post's body as the mobile site prints it.
    static func body(_ post: ReplicaPost) -> String {
        // The mobile site shows no colours: ANSI codes are dropped.
        var html = post.plainLines.map(textLine).joined(separator: "<br />")
        var tail = ""
        for attachment in post.attachments {
            let path = escape(attachment.path)
            if attachment.isImage {
                tail += #"<br /><a href="\#(path)">单击此查看原图(\#(attachment.sizeText))</a>"#
                tail += #"<br /><img src="\#(path)/middle" alt="\#(escape(attachment.name))" />"#
            } else {
                tail +=
                    #"<br /><font color="blue">附件(\#(attachment.sizeText))</font>&nbsp;<a href="\#(path)">\#(escape(attachment.name))</a>"#
            }
        }
        if let editor = post.editedBy {
            tail += "<br />修改:\(escape(editor)) FROM \(escape(post.ip))"
        }
        tail += "<br />FROM \(escape(post.ip))"
        // A post without text starts straight with what follows it.
        if post.lines.isEmpty, tail.hasPrefix("<br />") {
            tail.removeFirst("<br />".count)
        }
        html += tail
        return html
    }

    /// One text line: escaped, with each space that starts the line or belongs
    /// to a run of two or more written as `&nbsp;` so the browser keeps it.
    static func textLine(_ line: String) -> String {
        let characters = Array(line)
        var out = ""
        out.reserveCapacity(line.utf8.count + 16)
        var leading = true
        for (i, c) in characters.enumerated() {
            if c == " " {
                let inRun =
                    (i > 0 && characters[i - 1] == " ")
                    || (i + 1 < characters.count && characters[i + 1] == " ")
                out += inRun || leading ? "&nbsp;" : " "
            } else {
                leading = false
                appendEscaped(c, to: &out)
            }
        }
        return out
    }

    // MARK: - Other pages

    static func homePage(_ forum: ReplicaForum) -> String {
        var main = #"<div class="sec nav">热门版面</div><ul class="slist sec">"#
        for (i, name) in forum.boardNames.prefix(20).enumerated() {
            let title = forum.title(ofBoard: name) ?? name
            main += (i % 2 == 0 ? "<li>" : #"<li class="hla">"#)
            main += #"<a href="/board/\#(escape(name))">\#(escape(title))(\#(escape(name)))</a></li>"#
        }
        main += "</ul>"
        return page(menu: #"<a href="/section">分区</a>"#, main: main)
    }

    /// `/section`: every section with its boards; `/section/{code}`: one section.
    static func sectionPage(_ forum: ReplicaForum, code: String?) -> String? {
        let sections = code.map { c in forum.sections.filter { $0.code == c } } ?? forum.sections
        if code != nil, sections.isEmpty { return nil }
        var main = #"<ul class="slist sec">"#
        var row = 0
        for section in sections {
            main +=
                #"<li class="f"><a href="/section/\#(escape(section.code))">\#(escape(section.code))&nbsp;\#(escape(section.name))</a></li>"#
            for child in forum.sections where child.parent == section.code {
                main += (row % 2 == 0 ? "<li>" : #"<li class="hla">"#)
                main += #"目录|<a href="/section/\#(escape(child.code))">\#(escape(child.name))</a></li>"#
                row += 1
            }
            for name in section.boardNames {
                let title = forum.title(ofBoard: name) ?? name
                main += (row % 2 == 0 ? "<li>" : #"<li class="hla">"#)
                main += #"版面|<a href="/board/\#(escape(name))">\#(escape(title))(\#(escape(name)))</a></li>"#
                row += 1
            }
        }
        main += "</ul>"
        return page(menu: "分区", main: main)
    }

    /// `/hot`: the forum's hot topics (十大), each with its reply count.
    static func hotPage(_ forum: ReplicaForum) -> String {
        var main = #"<div class="sec nav">十大热门话题</div><ul class="slist sec">"#
        for (i, topic) in forum.hotTopics().enumerated() {
            guard let thread = forum.generated(named: topic.board)?.thread(gid: topic.gid) else { continue }
            main += (i % 2 == 0 ? "<li>" : #"<li class="hla">"#)
            main += #"<a href="/article/\#(escape(topic.board))/\#(topic.gid)">"#
            main += escape(thread.title) + "(\(thread.listedReplies))</a></li>"
        }
        main += "</ul>"
        return page(menu: "十大", main: main)
    }

    static func userPage(_ id: String, nick: String?) -> String {
        var main = #"<ul class="list sec"><li class="f">"# + escape(id) + "</li>"
        main += "<li>昵称:" + escape(nick ?? id) + "</li>"
        main += #"<li class="hla">身份:用户</li></ul>"#
        return page(menu: "用户-" + escape(id), main: main)
    }

    // MARK: - Helpers

    /// The pager block: 首页 上页 下页 尾页 where they apply, `cur/total` in the
    /// first `a.plant`, and the 转到 form.
    static func pager(action: String, link: (Int) -> String, current: Int, total: Int, hidden: String = "") -> String {
        var parts = [String]()
        if current > 1 {
            parts.append(#"<a href="\#(link(1))">首页</a>"#)
            parts.append(#"<a href="\#(link(current - 1))">上页</a>"#)
        }
        if current < total {
            parts.append(#"<a href="\#(link(current + 1))">下页</a>"#)
            parts.append(#"<a href="\#(link(total))">尾页</a>"#)
        }
        parts.append(#"<a class="plant">\#(current)/\#(total)</a>"#)
        parts.append(
            #"<a class="plant">转到&nbsp;<input type="text" name="p" size="2" />&nbsp;<input type="submit" value="GO" class="btn" /></a>"#
        )
        return #"<div class="sec nav"><form action="\#(action)" method="get">"# + hidden + parts.joined(separator: "|")
            + "</form></div>"
    }

    static func userLink(_ id: String) -> String {
        let safe = escape(id)
        return #"<a href="/user/query/\#(safe)">\#(safe)</a>"#
    }

    /// At least one page, even for an empty list.
    static func pageCount(_ items: Int, per: Int) -> Int {
        max(1, (items + per - 1) / per)
    }

    /// Out-of-range pages clamp, as on the real site.
    static func clamp(_ page: Int, _ total: Int) -> Int {
        min(max(1, page), total)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text { appendEscaped(c, to: &out) }
        return out
    }

    private static func appendEscaped(_ c: Character, to out: inout String) {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(c)
        }
    }

    private static func urlQueryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

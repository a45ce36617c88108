import Foundation

/// Renders the desktop site's (nForum's) `?ajax` fragments for the replica.
/// The shapes follow captured pages (`board-FamilyLife-p2.html`,
/// `post-content.html`): the same classes, cells and separators, so a parser
/// written against the real site meets the same markup here.
enum NForumMarkup {
    static let threadsPerPage = 30
    static let postsPerPage = 10

    // MARK: - Frame

    /// What every fragment starts with: the redirect to the JavaScript shell
    /// for a browser that opened the fragment itself, and a style block.
    static let prologue = """
        <script type="text/javascript">
        if (!document.getElementById('body')) {
            var redir = window.location.href.replace('/nForum/', '/nForum/#!');
            window.location.href = redir;
        }
        </script>
        <style type="text/css">
            .board-list .top .title_9 a { color: #c00 }
            .board-list .tag-att { width: 7px; height: 16px; margin-left: 4px }
            .board-list .threads-tab { font-weight: bold; padding-left: 4px }
            .title_9 { width: auto }
            .title_10 { width: 64px }
            .title_11 { width: 35px }
            .title_12 { width: 97px }
            .middle { text-align: center }
            .a-content p { line-height: 1.6 }
        </style>

        """

    /// The page a browser gets for a route without `ajax`: only a script that
    /// sends it to the shell's `#!` address, which fetches the fragment.
    static func shell(route: String) -> String {
        let target = MobileMarkup.escape("/nForum/#!" + route)
        return """
            <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
            <html xmlns="http://www.w3.org/1999/xhtml"><head>
            <meta http-equiv="Content-Type" content="text/html; charset=GBK" />
            <title>水木社区</title>
            <script type="text/javascript">location.href='\(target)';</script>
            </head><body><div id="body"></div><noscript>请打开浏览器的JavaScript功能</noscript></body></html>

            """
    }

    /// nForum's error box for an unknown board or article.
    static func errorTable(_ message: String) -> String {
        prologue + """
            <table class="error">
            <tr><th>发生错误</th></tr>
            <tr><td>\(MobileMarkup.escape(message))</td></tr>
            </table>

            """
    }

    static func boardMissing() -> String { errorTable("错误的版名或者文章号!") }

    /// What a guest sees on a board that needs a login.
    static func noPermission() -> String {
        prologue + #"<div class="error">您无权阅读此版面</div>"# + "\n"
    }

    // MARK: - Board

    /// `/nForum/board/{B}?ajax&p={page}`: sticky threads then the rest, 30
    /// rows a page; `reference` (when the page is served) decides whether a
    /// time prints as `HH:MM:SS&emsp;` (today) or `YYYY-MM-DD`.
    static func boardPage(_ board: ReplicaBoard, page requested: Int, reference: Int64) -> String {
        let b = MobileMarkup.escape(board.name)
        let total = MobileMarkup.pageCount(board.threads.count, per: threadsPerPage)
        let current = MobileMarkup.clamp(requested, total)
        let pager = self.pager(
            label: "主题数", count: board.threads.count, current: current, total: total,
            link: { "/nForum/board/\(b)?p=\($0)" })

        var html = prologue
        html += #"<div class="t-pre">"# + "\n" + pager
        html += #"<div class="t-btn"><a href="/nForum/article/\#(b)/post" class="b-post button">发表文章</a>"#
        html += #"<a href="/nForum/board/\#(b)/notes" class="button">备忘录</a></div>"# + "\n</div>\n"

        let moderators = board.moderators.map { MobileMarkup.escape($0) }
            .map { #"<a href="/nForum/user/query/\#($0)">\#($0)</a>"# }
            .joined(separator: "&ensp;")
        let online = 20 + board.threads.count * 3 + board.todayPosts
        html += #"<div class="b-head corner"><span class="n-right">版主:&ensp;\#(moderators)</span>"#
        html += #"<span class="n-left">本版当前共有\#(online)人在线&emsp;今日帖数\#(board.todayPosts)</span>"#
        html += "\n</div>\n"

        html += #"<div class="b-content">"# + "\n"
        html += #"<table class="board-list tiz" cellpadding="0" cellspacing="0">"# + "\n<thead>\n<tr>"
        html += #"<th class="title_8">状态</th><th class="title_9 middle">主题</th><th class="title_10">发帖时间</th>"#
        html += #"<th class="title_12">|&ensp;作者</th><th class="title_11 middle">评分</th>"#
        html += #"<th class="title_11 middle">Like</th><th class="title_11 middle">回复</th>"#
        html += #"<th class="title_10">最新回复</th><th class="title_12">|&ensp;作者</th>"#
        html += "</tr>\n</thead>\n<tbody>\n"
        let rows = board.threads.dropFirst((current - 1) * threadsPerPage).prefix(threadsPerPage)
        if rows.isEmpty {
            html += #"<tr><td colspan="9" style="text-align:center">该版面没有任何主题</td></tr>"# + "\n"
        }
        for thread in rows {
            html += row(thread, board: board.name, reference: reference)
        }
        html += "</tbody>\n</table>\n</div>\n"
        html += #"<div class="t-pre-bottom">"# + "\n" + pager + "</div>\n"
        html += navigationScript(board: board, last: "文章列表")
        return html
    }

    private static func row(_ thread: ReplicaThread, board: String, reference: Int64) -> String {
        let b = MobileMarkup.escape(board)
        let link = "/nForum/article/\(b)/\(thread.gid)"
        let pages = MobileMarkup.pageCount(thread.posts.count, per: postsPerPage)
        let replies = thread.listedReplies
        let icon: String
        if thread.sticky {
            icon = "top"
        } else if replies >= 100 {
            icon = "fire"
        } else if replies >= 10 {
            icon = "light"
        } else {
            icon = "normal"
        }

        var html = thread.sticky ? #"<tr class="top">"# + "\n" : "<tr>\n"
        html += #"<td class="title_8"><a target="_blank" href="\#(link)" title="在新窗口打开此主题">"#
        html += #"<samp class="tag ico-pos-article-\#(icon)"></samp></a></td>"# + "\n"

        html += #"<td class="title_9"><a href="\#(link)">\#(MobileMarkup.escape(thread.title))</a>"#
        if thread.posts.contains(where: { !$0.attachments.isEmpty }) {
            html += "\n" + #"<samp class="tag-att ico-pos-article-attach"></samp>"#
        }
        if pages > 1 {
            // Pages 2–6, then `..` and the last page, as the real list does.
            var tab = #"<span class="threads-tab">["#
            for p in 2...min(pages, 6) {
                tab += #"<a href="\#(link)?p=\#(p)">\#(p)</a>"#
            }
            if pages > 6 {
                tab += #"..<a href="\#(link)?p=\#(pages)">\#(pages)</a>"#
            }
            html += tab + "]</span>"
        }
        html += "</td>\n"

        let first: (author: String?, postedAt: Date)?
        if let deleted = thread.deletedFirstPost {
            first = (nil, deleted.postedAt)
        } else {
            first = thread.posts.first.map { ($0.author, $0.postedAt) }
        }
        html += #"<td class="title_10">\#(first.map { listingTime($0.postedAt, reference) } ?? "")</td>"# + "\n"
        if let first, let author = first.author {
            html += #"<td class="title_12">|&ensp;\#(userLink(author, colour: "c63f"))</td>"# + "\n"
        } else {
            html += #"<td class="title_12">|&ensp;原帖已删除</td>"# + "\n"
        }

        // Score and likes belong to the first post; the real list leaves
        // them empty when there are none.
        let head = thread.firstPostDeleted ? nil : thread.posts.first
        let score = head?.likes.reduce(0) { $0 + $1.score } ?? 0
        let likes = head?.likes.count ?? 0
        var scoreText = ""
        if score < 0 {
            scoreText = #"<span style="color:green;">\#(score)</span>"#
        } else if score > 0 {
            scoreText = #"<span style="color:red;">+\#(score)</span>"#
        }
        html += #"<td class="title_11 middle">\#(scoreText)</td>"# + "\n"
        html += #"<td class="title_11 middle">\#(likes > 0 ? String(likes) : "")</td>"# + "\n"
        html += #"<td class="title_11 middle">\#(replies)</td>"# + "\n"

        if let last = thread.posts.last {
            html += #"<td class="title_10"><a href="\#(link)?p=\#(pages)#a\#(last.floor)" title="跳转至最后回复">"#
            html += listingTime(last.postedAt, reference) + "</a></td>\n"
            html += #"<td class="title_12">|&ensp;\#(userLink(last.author, colour: "c09f"))</td>"# + "\n"
        } else {
            html += #"<td class="title_10"></td>"# + "\n" + #"<td class="title_12">|&ensp;</td>"# + "\n"
        }
        return html + "</tr>\n"
    }

    // MARK: - Thread

    /// `/nForum/article/{B}/{gid}?ajax&p={page}[&au={user}]`: 10 posts a page.
    static func threadPage(
        _ thread: ReplicaThread, board: ReplicaBoard, users: UserPool, page requested: Int, author: String?
    ) -> String {
        let b = MobileMarkup.escape(board.name)
        let base = "/nForum/article/\(b)/\(thread.gid)"
        let posts = author.map { id in thread.posts.filter { $0.author == id } } ?? thread.posts
        let total = MobileMarkup.pageCount(posts.count, per: postsPerPage)
        let current = MobileMarkup.clamp(requested, total)
        let authorQuery = author.map { "&amp;au=" + MobileMarkup.escape(queryValue($0)) } ?? ""
        let pager = self.pager(
            label: "帖数", count: posts.count, current: current, total: total,
            link: { "\(base)?p=\($0)\(authorQuery)" })

        var html = prologue
        html += #"<div class="t-pre">"# + "\n" + pager
        html += #"<div class="t-btn"><a href="/nForum/article/\#(b)/post" class="a-post button">新话题</a></div>"#
        html += "\n</div>\n"
        html += #"<div class="b-head corner"><span class="n-right"></span>"#
        html += #"<span class="n-left">文章主题:&ensp;\#(MobileMarkup.escape(thread.title))</span></div>"# + "\n"
        html += #"<div class="b-content corner">"# + "\n"
        let slice = posts.dropFirst((current - 1) * postsPerPage).prefix(postsPerPage)
        for post in slice {
            html += self.post(post, board: board.name, users: users)
        }
        html += "</div>\n"
        html += #"<div class="t-pre-bottom">"# + "\n" + pager + "</div>\n"
        html += navigationScript(board: board, last: "阅读文章")
        return thread.reindented ? Reindent.wrap(html, seed: thread.gid) : html
    }

    private static func post(_ post: ReplicaPost, board: String, users: UserPool) -> String {
        let b = MobileMarkup.escape(board)
        let id = MobileMarkup.escape(post.author)
        let initial = MobileMarkup.escape(post.author.first.map { String($0).uppercased() } ?? "_")
        let profile = users.profiles[post.author]

        var html = #"<a name="a\#(post.floor)"></a>"# + "\n"
        html += #"<div class="a-wrap corner">"# + "\n" + #"<table class="article">"# + "\n"
        html += #"<tr class="a-head"><td class="a-left"><span class="a-u-name">"#
        html += #"<a href="/nForum/user/query/\#(id)">\#(id)</a></span></td>"#
        let position = post.floor == 0 ? "楼主" : "第\(post.floor)楼"
        html += #"<td class="a-right"><span class="a-pos">\#(position)</span> "#
        html += #"<a href="/nForum/article/\#(b)/post/\#(post.id)" class="a-post">回复</a></td></tr>"# + "\n"

        html += #"<tr class="a-body"><td class="a-left">"#
        html +=
            #"<div class="a-u-img"><img src="//images.newsmth.net/nForum/uploadFace/\#(initial)/\#(id).jpg" /></div>"#
        html += #"<div class="a-u-uid">\#(MobileMarkup.escape(post.nick))</div>"#
        html += #"<dl class="a-u-info"><dt>身份</dt><dd>用户</dd><dt>文章</dt><dd>\#(profile?.postCount ?? 0)</dd>"#
        html += #"<dt>积分</dt><dd>\#(profile?.score ?? 0)</dd></dl></td>"# + "\n"
        html += #"<td class="a-content"><p>"# + NForumPostText.html(post, board: board) + "</p>"
        html += likes(post.likes)
        html += "</td></tr>\n"
        // The foot row's 发信 link also has class a-post, as on the real page.
        html += #"<tr class="a-bottom"><td class="a-left">"#
        html += #"<a href="/nForum/mail/\#(b)/reply/\#(post.id)?id=\#(id)" class="a-post">发信</a></td>"#
        html += ##"<td><a href="#" class="c63f a-back">返回顶部</a></td></tr>"## + "\n"
        html += "</table>\n</div>\n"
        return html
    }

    /// The ratings under a post; nothing when there are none.
    static func likes(_ likes: [ReplicaLike]) -> String {
        guard !likes.isEmpty else { return "" }
        var html = #"<div class="likes"><div class="like_name">有\#(likes.count)位用户评价了这篇文章：</div>"#
        html += #"<div class="like_list"><ul>"#
        for like in likes {
            let kind = like.score == 0 ? 0 : (like.score > 0 ? 1 : 2)
            let score = like.score == 0 ? "&nbsp;&nbsp;" : (like.score > 0 ? "+\(like.score)" : "\(like.score)")
            html += #"<li><span class="like_score_\#(kind)">[\#(score)]</span>"#
            html += #"<span class="like_user">\#(MobileMarkup.escape(like.user)):</span>"#
            html += #"<span class="like_msg">\#(MobileMarkup.escape(like.message))</span>"#
            html += #"<span class="like_time">(\#(BeijingClock.minuteText(BeijingClock.seconds(like.at))))</span></li>"#
        }
        return html + "</ul></div></div>"
    }

    // MARK: - Sections and the front page

    /// `/nForum/section/{code}?ajax`: nested sections (目录) first, then the boards.
    static func sectionPage(_ forum: ReplicaForum, code: String) -> String? {
        guard let section = forum.sections.first(where: { $0.code == code }) else { return nil }
        var html = prologue
        html +=
            #"<div class="b-head corner"><span class="n-left">分区:&ensp;\#(MobileMarkup.escape(section.name))</span></div>"#
        html += "\n" + #"<div class="b-content corner">"# + "\n"
        html += #"<table class="board-list corner" cellpadding="0" cellspacing="0">"# + "\n<thead>\n<tr>"
        html += #"<th class="title_1">版面名称</th><th class="title_2">英文名称</th>"#
        html += "</tr>\n</thead>\n<tbody>\n"
        for child in forum.sections where child.parent == section.code {
            let c = MobileMarkup.escape(child.code)
            html +=
                #"<tr><td class="title_1"><a href="/nForum/section/\#(c)">\#(MobileMarkup.escape(child.name))</a></td>"#
            html += #"<td class="title_2">[目录]</td></tr>"# + "\n"
        }
        for name in section.boardNames {
            let n = MobileMarkup.escape(name)
            let title = MobileMarkup.escape(forum.title(ofBoard: name) ?? name)
            html += #"<tr><td class="title_1"><a href="/nForum/board/\#(n)">\#(title)</a></td>"#
            html += #"<td class="title_2">\#(n)</td></tr>"# + "\n"
        }
        html += "</tbody>\n</table>\n</div>\n"
        return html
    }

    /// `/nForum/mainpage?ajax`: the hot topics (十大) in `div#top10`.
    static func mainPage(_ forum: ReplicaForum) -> String {
        var html = prologue
        html += #"<div id="top10" class="b-content corner"><div class="b-head">十大热门话题</div><ul>"# + "\n"
        for topic in forum.hotTopics() {
            guard let thread = forum.generated(named: topic.board)?.thread(gid: topic.gid) else { continue }
            let title = MobileMarkup.escape(thread.title)
            html +=
                #"<li><a href="/nForum/article/\#(MobileMarkup.escape(topic.board))/\#(topic.gid)" title="\#(title)">"#
            html += title + "</a>&ensp;(\(thread.listedReplies))</li>\n"
        }
        html += "</ul></div>\n"
        return html
    }

    // MARK: - Helpers

    /// `ul.pagination`: the count, then `<<`, the first page, a window of
    /// pages around the current one, `...` where pages are left out, the
    /// last page and `>>`.
    static func pager(label: String, count: Int, current: Int, total: Int, link: (Int) -> String) -> String {
        func normal(_ page: Int, _ text: String, _ title: String) -> String {
            #"<li class="page-normal"><a href="\#(link(page))" title="\#(title)">\#(text)</a></li>"# + "\n"
        }
        var html = #"<div class="page">"# + "\n" + #"<ul class="pagination">"# + "\n"
        html += #"<li class="page-pre">\#(label):<i>\#(count)</i>&emsp;分页:</li>"# + "\n"
        html += #"<li>"# + "\n" + #"<ol title="分页列表" class="page-main">"# + "\n"
        if current > 1 { html += normal(current - 1, "&lt;&lt;", "上一页") }
        let low = max(1, current - 4)
        let high = min(total, current + 6)
        if low > 1 { html += normal(1, "1", "转到第1页") }
        if low > 2 { html += #"<li class="page-omit">...</li>"# + "\n" }
        for page in low...high {
            if page == current {
                html += #"<li class="page-select"><a title="当前页">\#(page)</a></li>"# + "\n"
            } else {
                html += normal(page, String(page), "转到第\(page)页")
            }
        }
        if high < total - 1 { html += #"<li class="page-omit">...</li>"# + "\n" }
        if high < total { html += normal(total, String(total), "转到第\(total)页") }
        if current < total { html += normal(current + 1, "&gt;&gt;", "下一页") }
        html += "</ol>\n</li>\n" + #"<li class="page-suf"></li>"# + "\n</ul>\n</div>\n"
        return html
    }

    static func listingTime(_ date: Date, _ reference: Int64) -> String {
        let seconds = BeijingClock.seconds(date)
        return BeijingClock.day(seconds) == BeijingClock.day(reference)
            ? BeijingClock.timeText(seconds) + "&emsp;" : BeijingClock.dateText(seconds)
    }

    private static func userLink(_ id: String, colour: String) -> String {
        let safe = MobileMarkup.escape(id)
        return #"<a href="/nForum/user/query/\#(safe)" class="\#(colour)">\#(safe)</a>"#
    }

    /// The closing script that sets the breadcrumb and the window title. The
    /// real page writes `</a>` inside the script string, which HTML parsers
    /// (libxml2 among them) read as a stray end tag; `<\/a>` is the same
    /// string to JavaScript and keeps the fragment clean.
    private static func navigationScript(board: ReplicaBoard, last: String) -> String {
        let name = javaScriptString(board.name)
        let title = javaScriptString(board.title)
        return """
            <script type="text/javascript">
            var bName = '\(name)';
            $('#notice_nav').html('<a href="/nForum/mainpage">水木社区<\\/a>&ensp;>>&ensp;<a href="/nForum/board/\(name)">\(title)<\\/a>&ensp;>>&ensp;\(last)');
            $.setTitle('水木社区-\(title)');
            </script>

            """
    }

    /// Safe inside a single-quoted script string in HTML.
    private static func javaScriptString(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "'", "\\", "<", ">", "&", "\"": out += String(format: "\\x%02x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

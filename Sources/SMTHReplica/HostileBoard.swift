import Foundation

/// A board of hostile content in the mobile site's markup, served with
/// `--hostile` (`ReplicaFaults.hostile`): what a forum controlled by an
/// attacker could send an archiver. Every page is fixed, so tests can name
/// what each one must do to the archive.
///
/// - thread 1: `javascript:` and `data:` links in UBB and as text, terminal
///   escapes in the title and text, thousands of unmatched UBB tags and of
///   bare addresses on one line, a 120-character user id;
/// - thread 2: an attachment whose link is `javascript:…//att/…`, an XHTML
///   file, an HTML page served as a PNG and a PDF that runs JavaScript as
///   it opens;
/// - thread 3: a pager that never ends (a billion pages, each one answered);
/// - thread 4: a post dated in the year 99999999999;
/// - thread 5: stray bytes and GBK text inside a UTF-8 page;
/// - thread 6: a forum error whose message carries terminal escapes;
/// - thread 2 also links an "attachment" on another host name for this
///   same server (`/att/` only in its query string), and one whose address
///   redirects to that other host name (`localhost` for `127.0.0.1` and the
///   other way round);
/// - thread 8: its address redirects to thread 1's;
/// - list page 2: a thread dated in the year 99999999999.
public enum HostileBoard {
    public static let name = "Hostile"
    public static let title = "恶意\u{1B}]0;pwned\u{07}版面"
    /// A user id of 120 CJK characters: about 1,080 bytes once escaped.
    public static let longUser = String(repeating: "长", count: 120)
    /// How many unmatched UBB tags, and how many bare addresses, thread 1 has on one line each.
    public static let repeats = 3000
    public static let endlessGid = 3
    public static let endlessPages = 1_000_000_000
    public static let timeTravelGid = 4
    public static let badBytesGid = 5
    public static let forumErrorGid = 6
    public static let redirectGid = 8
    /// The attachment names on another host, and redirected to it.
    public static let foreignName = "elsewhere.png"
    public static let movedName = "moved.png"
    /// A PDF attachment whose document runs a script as it opens.
    public static let pdfName = "paper.pdf"
    /// The threads the archive can keep (all but the forum error).
    public static let archivableGids = [1, 2, 3, 4, 5]

    static let day = "2026-08-01"

    /// The other loopback name for the server `host` (`Host` header) names.
    public static func otherHost(_ host: String) -> String {
        if host.hasPrefix("127.0.0.1") { return "localhost" + host.dropFirst("127.0.0.1".count) }
        if host.hasPrefix("localhost") { return "127.0.0.1" + host.dropFirst("localhost".count) }
        return host
    }

    static func respond(path: String, query: [(name: String, value: String)], host: String = "")
        -> ReplicaResponse?
    {
        let parts = path.split(separator: "/").map(String.init)
        let page = query.first { $0.name == "p" }.flatMap { Int($0.value) } ?? 1
        switch parts.first {
        case "board" where parts.count == 2 && parts[1] == name:
            return .html(boardPage(page))
        case "article" where parts.count == 3 && parts[1] == name:
            return Int(parts[2]).flatMap { thread($0, page: page, host: host) }
        case "att" where parts.count >= 4 && parts[1] == name:
            return attachment(parts.dropFirst(2).joined(separator: "/"), host: host)
        default:
            return nil
        }
    }

    // MARK: Board

    static func boardPage(_ requested: Int) -> String {
        let current = min(max(requested, 1), 2)
        let pager = MobileMarkup.pager(
            action: "/board/\(name)", link: { "/board/\(name)?p=\($0)" }, current: current, total: 2)
        var main = pager + #"<ul class="list sec">"#
        let rows: [(gid: Int, title: String, time: String)] =
            current == 1
            ? [
                (1, "标题\u{1B}]0;pwned\u{07}\r伪造的第二行 [url=javascript:alert(1)]x[/url]", day),
                (2, "附件", day), (endlessGid, "没有尽头的主题", day), (timeTravelGid, "穿越", day),
                (badBytesGid, "坏字节", day), (forumErrorGid, "论坛错误", day), (redirectGid, "跳到别的主题", day),
            ]
            : [(7, "列表里的穿越", "99999999999-01-01")]
        for row in rows {
            main += #"<li><div><a href="/article/\#(name)/\#(row.gid)">"# + MobileMarkup.escape(row.title)
            main += "</a>(1)</div><div>" + row.time + "&nbsp;" + MobileMarkup.userLink("alice") + "|"
            main += row.time + "&nbsp;" + MobileMarkup.userLink("alice") + "</div></li>"
        }
        main += "</ul>" + pager
        return MobileMarkup.page(menu: "版面-\(MobileMarkup.escape(title))(\(name))|", main: main)
    }

    // MARK: Threads

    static func thread(_ gid: Int, page requested: Int, host: String = "") -> ReplicaResponse? {
        switch gid {
        case 1:
            let lines = [
                "[url=javascript:alert(1)]点我[/url] [url=http://ok.example/]好链接[/url] [img=data:text/html,x][/img]",
                "JavaScript:alert(2) vbscript:msgbox(3) [email=x@example.org\"onmouseover=alert(4)]信[/email]",
                "终端\u{1B}[2J\u{1B}]0;pwned\u{07}\r伪造的一行\u{9B}31m",
                String(repeating: "[b]", count: repeats) + String(repeating: "[/i]", count: repeats),
                (0..<repeats).map { "http://a\($0).example/" }.joined(separator: " "),
            ]
            return .html(threadPage(gid, title: "主题\u{1B}[31m", current: 1, total: 1, posts: [(0, longUser, lines)]))
        case 2:
            let body =
                #"附件们<br /><font color="blue">附件(1KB)</font>&nbsp;<a href="javascript:alert(5)//att/Hostile/2/9">evil.txt</a>"#
                + #"<br /><font color="blue">附件(1KB)</font>&nbsp;<a href="/att/Hostile/2/1">page.xht</a>"#
                + #"<br /><font color="blue">附件(1KB)</font>&nbsp;<a href="/att/Hostile/2/2">fake.png</a>"#
                + #"<br /><font color="blue">附件(1KB)</font>&nbsp;<a href="http://\#(otherHost(host))/x?f=/att/Hostile/2/3">\#(foreignName)</a>"#
                + #"<br /><font color="blue">附件(1KB)</font>&nbsp;<a href="/att/Hostile/2/4">\#(movedName)</a>"#
                + #"<br /><font color="blue">附件(1KB)</font>&nbsp;<a href="/att/Hostile/2/6">\#(pdfName)</a>"#
            return .html(threadPage(gid, title: "附件", current: 1, total: 1, rawPosts: [(0, "alice", body)]))
        case endlessGid:
            let current = max(1, requested)
            let lines = ["第 \(current) 页，一共十亿页。"]
            return .html(
                threadPage(
                    gid, title: "没有尽头的主题", current: current, total: endlessPages,
                    posts: [((current - 1) * MobileMarkup.postsPerPage, "alice", lines)]))
        case timeTravelGid:
            return .html(
                threadPage(
                    gid, title: "穿越", current: 1, total: 1, posts: [(0, "alice", ["来自未来"])],
                    time: "99999999999-01-01 00:00:00"))
        case badBytesGid:
            let page = threadPage(gid, title: "坏字节", current: 1, total: 1, posts: [(0, "alice", ["BADBYTES"])])
            var bytes = Data()
            let pieces = page.components(separatedBy: "BADBYTES")
            bytes.append(Data(pieces[0].utf8))
            // A stray byte, a cut-off UTF-8 sequence, then 你好 in GBK.
            bytes.append(contentsOf: [0x41, 0xFF, 0x42, 0xE4, 0xBD, 0x43, 0xC4, 0xE3, 0xBA, 0xC3, 0x44])
            bytes.append(Data("之后的文字".utf8))
            bytes.append(Data(pieces.dropFirst().joined(separator: "BADBYTES").utf8))
            return ReplicaResponse(status: 200, contentType: "text/html; charset=utf-8", body: bytes)
        case redirectGid:
            return .redirect("/article/\(name)/1")
        case forumErrorGid:
            return .html(MobileMarkup.notice("出错了\u{1B}]0;pwned\u{07}\u{1B}[2K\r\nfailed: 伪造的一行"))
        default:
            return .html(MobileMarkup.articleMissing())
        }
    }

    static func threadPage(
        _ gid: Int, title: String, current: Int, total: Int, posts: [(floor: Int, author: String, lines: [String])],
        time: String = "\(day) 09:00:00"
    ) -> String {
        threadPage(
            gid, title: title, current: current, total: total,
            rawPosts: posts.map {
                ($0.floor, $0.author, $0.lines.map(MobileMarkup.escape).joined(separator: "<br />"))
            },
            time: time)
    }

    static func threadPage(
        _ gid: Int, title: String, current: Int, total: Int, rawPosts: [(floor: Int, author: String, body: String)],
        time: String = "\(day) 09:00:00"
    ) -> String {
        let base = "/article/\(name)/\(gid)"
        let pager = MobileMarkup.pager(action: base, link: { "\(base)?p=\($0)" }, current: current, total: total)
        var main = pager + #"<ul class="list sec"><li class="f">主题:"# + MobileMarkup.escape(title) + "</li>"
        for post in rawPosts {
            main += #"<li><a name="a\#(post.floor)"></a><div class="nav hl"><div>"#
            main += #"<a class="plant">"# + (post.floor == 0 ? "楼主" : "\(post.floor)楼") + "</a>|"
            main += MobileMarkup.userLink(post.author) + "|"
            main += #"<a class="plant">\#(time)</a>|<a href="\#(base)?au=x">只看此ID</a>"#
            main += #"</div></div><div class="sp">"# + post.body + "<br />FROM 10.0.0.*</div></li>"
        }
        main += "</ul>" + pager
        return MobileMarkup.page(menu: #"<a href="/board/\#(name)">恶意</a>|主题"#, main: main)
    }

    // MARK: Attachments

    /// One page, and a script its reader runs as it opens, the names written
    /// with `#` escapes as a PDF may (`/J#53` is `/JS`).
    static let scriptedPDF = """
        %PDF-1.7
        1 0 obj << /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >> endobj
        2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
        3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj
        4 0 obj << /S /J#61vaScript /J#53 (app.alert\\(7\\)) >> endobj
        trailer << /Root 1 0 R >>
        %%EOF

        """

    static func attachment(_ rest: String, host: String = "") -> ReplicaResponse? {
        let script = #"<html xmlns="http://www.w3.org/1999/xhtml"><body><script>alert(6)</script></body></html>"#
        switch rest {
        case "2/1": return ReplicaResponse(status: 200, contentType: "application/xhtml+xml", body: Data(script.utf8))
        case "2/2", "2/5": return ReplicaResponse(status: 200, contentType: "image/png", body: Data(script.utf8))
        case "2/4": return .redirect("http://\(otherHost(host))/att/\(name)/2/5")
        case "2/6": return ReplicaResponse(status: 200, contentType: "application/pdf", body: Data(scriptedPDF.utf8))
        default: return nil
        }
    }
}

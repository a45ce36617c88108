import Foundation
import SMTHReplica
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The replica's desktop site (nForum `?ajax` fragments in GBK) and the
/// richer posts behind it, checked over HTTP against the replica's own model.
/// No archiver code is involved: these tests pin down what the nForum parser
/// will be written against.
@Suite(.serialized) struct ReplicaNForumTests {
    /// 2026-03-05 10:00:00 in Beijing: a single-digit day, so space-padded
    /// dates (`Mar  5`) turn up in post headers.
    static let now = Date(timeIntervalSince1970: 1_772_676_000)
    static let config = ReplicaConfig(
        seed: 31, sections: 1, boardsPerSection: 2, threadsPerBoard: 40, maxPostsPerThread: 24, now: now)

    // MARK: - Serving

    /// A replica on a loopback port whose clock stands still at `now`.
    struct Served {
        let forum: ReplicaForum
        let server: ReplicaServer
        let base: String

        static func start(
            _ config: ReplicaConfig = ReplicaNForumTests.config, faults: ReplicaFaults = ReplicaFaults()
        ) async throws -> Served {
            let forum = ReplicaForum(config: config)
            let server = ReplicaServer(forum: forum, faults: faults, clock: { ReplicaNForumTests.now })
            let base = try await server.start().absoluteString
            return Served(forum: forum, server: server, base: base)
        }

        func get(_ path: String, headers: [String: String] = [:]) async throws -> Fetched {
            try await Fetched.get(base + path, headers: headers)
        }

        /// An nForum page, decoded from GB18030; fails the test when the
        /// answer is not a GBK-labelled 200.
        func page(_ path: String) async throws -> String {
            let fetched = try await get(path)
            #expect(fetched.status == 200, "\(path)")
            #expect(fetched.contentType == "text/html; charset=GBK", "\(path)")
            return try #require(GB18030.decode(fetched.body), "\(path) is not GB18030")
        }

        func stop() async { await server.stop() }
    }

    struct Fetched {
        var status: Int
        var headers: [String: String]
        var body: Data

        var contentType: String? { header("Content-Type") }

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }

        static func get(_ url: String, headers: [String: String] = [:]) async throws -> Fetched {
            var request = URLRequest(url: try #require(URL(string: url)))
            request.cachePolicy = .reloadIgnoringLocalCacheData
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            let session = URLSession(configuration: configuration)
            defer { session.finishTasksAndInvalidate() }
            let (data, response) = try await session.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            var fields = [String: String]()
            for case (let name as String, let value as String) in http.allHeaderFields { fields[name] = value }
            return Fetched(status: http.statusCode, headers: fields, body: data)
        }
    }

    // MARK: - Helpers

    /// GB18030 bytes to text with the C library's converter, independent of
    /// the replica's encoder; nil when the bytes are not valid GB18030.
    enum GB18030 {
        static func decode(_ data: Data) -> String? {
            guard let converter = iconv_open("UTF-8", "GB18030"), converter != iconv_t(bitPattern: Int(-1))
            else { return nil }
            defer { iconv_close(converter) }
            var input = [UInt8](data)
            var output = [UInt8](repeating: 0, count: input.count * 2 + 16)
            var ok = true
            var produced = 0
            input.withUnsafeMutableBufferPointer { inBuffer in
                output.withUnsafeMutableBufferPointer { outBuffer in
                    guard let inBase = inBuffer.baseAddress, let outBase = outBuffer.baseAddress else { return }
                    var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBase)
                        .assumingMemoryBound(to: CChar.self)
                    var inLeft = inBuffer.count
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBase)
                        .assumingMemoryBound(to: CChar.self)
                    var outLeft = outBuffer.count
                    ok = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != size_t.max && inLeft == 0
                    produced = outBuffer.count - outLeft
                }
            }
            return ok ? String(decoding: output.prefix(produced), as: UTF8.self) : nil
        }
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func strip(_ line: String) -> String {
        line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }

    /// Beijing wall-clock fields, worked out with Foundation rather than the
    /// replica's own arithmetic.
    static func beijing(_ date: Date) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 8 * 3600) ?? .current
        return calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
    }

    static func two(_ n: Int?) -> String { String(format: "%02d", n ?? 0) }

    /// `Thu Mar  5 09:30:00 2026`
    static func headerDate(_ date: Date) -> String {
        let c = beijing(date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = String(format: "%2d", c.day ?? 0)
        return "\(weekdays[(c.weekday ?? 1) - 1]) \(months[(c.month ?? 1) - 1]) \(day) "
            + "\(two(c.hour)):\(two(c.minute)):\(two(c.second)) \(c.year ?? 0)"
    }

    /// `2026-03-05 09:30`
    static func minute(_ date: Date) -> String {
        let c = beijing(date)
        return "\(c.year ?? 0)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute))"
    }

    /// The text of one post's `td.a-content > p`, line by line: the hidden id
    /// dropped, tags removed, entities decoded. Good enough for the replica's
    /// own markup; it is no parser of the real site.
    static func contentLines(_ html: String, postID: Int) throws -> [String] {
        let anchor = try #require(html.range(of: "/post/\(postID)\" class=\"a-post\""), "post \(postID) missing")
        let start = try #require(
            html.range(of: #"<td class="a-content"><p>"#, range: anchor.upperBound..<html.endIndex))
        let end = try #require(html.range(of: "</p>", range: start.upperBound..<html.endIndex))
        var inner = String(html[start.upperBound..<end.lowerBound])
        inner = inner.replacingOccurrences(
            of: #"<font style="display: none">[0-9]+</font>"#, with: "", options: .regularExpression)
        return inner.components(separatedBy: "<br />").map { line in
            line.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
                .replacingOccurrences(of: "&nbsp;", with: " ").replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    /// Where a post is: its board, thread and thread page (10 posts a page).
    struct Located {
        var board: String
        var thread: ReplicaThread
        var post: ReplicaPost
        var page: Int
        var path: String { "/nForum/article/\(board)/\(thread.gid)?ajax&p=\(page)" }
    }

    /// The first such post on a page served as generated (not re-indented),
    /// whose markup the tests below read with string matching.
    static func find(_ forum: ReplicaForum, where matches: (ReplicaPost) -> Bool) -> Located? {
        for name in forum.boardNames {
            for thread in forum.board(named: name)?.threads ?? [] where !thread.reindented {
                for (index, post) in thread.posts.enumerated() where matches(post) {
                    return Located(board: name, thread: thread, post: post, page: index / 10 + 1)
                }
            }
        }
        return nil
    }

    // MARK: - The model

    @Test func postsCarryNickTitleSignatureEditsAndLikes() throws {
        let forum = ReplicaForum(config: Self.config)
        var signatures = [String: [String]]()
        var coloured = 0
        var total = 0
        for name in forum.boardNames {
            let board = try #require(forum.board(named: name))
            var manyLikes = 0
            var emptyQuotes = 0
            for thread in board.threads {
                for post in thread.posts {
                    total += 1
                    // Replies add `Re: ` once; a title that has it already keeps it.
                    let reply = thread.title.hasPrefix("Re: ") ? thread.title : "Re: " + thread.title
                    #expect(post.title == (post.floor == 0 ? thread.title : reply))
                    #expect((post.editedBy == nil) == (post.editedAt == nil))
                    if let edited = post.editedAt { #expect(edited > post.postedAt) }
                    #expect(post.signature.count <= 3)
                    if let earlier = signatures[post.author] { #expect(earlier == post.signature) }
                    signatures[post.author] = post.signature
                    #expect(!post.nick.isEmpty)
                    for like in post.likes {
                        #expect(like.score >= -5 && like.score <= 5)
                        #expect(like.at.timeIntervalSince1970.truncatingRemainder(dividingBy: 60) == 0)
                        #expect(like.at >= post.postedAt)
                    }
                    #expect(post.likes.map(\.at) == post.likes.map(\.at).sorted())
                    if post.likes.count > 6 { manyLikes += 1 }
                    if post.lines.contains(where: { $0.contains("\u{1B}[") }) { coloured += 1 }
                    #expect(post.plainLines.allSatisfy { !$0.contains("\u{1B}") })
                    if let header = post.lines.firstIndex(where: { $0.hasPrefix("【 在 ") }),
                        header + 1 < post.lines.count, !post.lines[header + 1].hasPrefix(": ")
                    {
                        emptyQuotes += 1
                    }
                }
            }
            #expect(manyLikes == 1, "one post with many likes on \(name)")
            #expect(emptyQuotes >= 1, "a quote header without quoted lines on \(name)")
        }
        #expect(coloured * 16 > total && coloured * 5 < total, "about one post in eight has colours")
        let signed = signatures.values.filter { !$0.isEmpty }.count
        #expect(signed > 0 && signed < signatures.count)
        #expect(signatures.values.contains { $0.contains { $0.contains("\u{1B}[") } })
        #expect(forum.sections.contains { $0.parent == "0" && !$0.boardNames.isEmpty })
    }

    @Test func theWholeTextFollowsTheBBSFormat() throws {
        let forum = ReplicaForum(config: Self.config)
        let located = try #require(Self.find(forum) { $0.editedBy != nil && !$0.signature.isEmpty })
        let post = located.post
        let text = post.articleText(board: located.board)
        #expect(text[0] == "发信人: \(post.author) (\(post.nick)), 信区: \(located.board)")
        #expect(text[1] == "标  题: \(post.title)")
        #expect(text[2] == "发信站: 水木社区 (\(Self.headerDate(post.postedAt))), 站内")
        #expect(text[3] == "")
        #expect(Array(text[4..<(4 + post.lines.count)]) == post.lines)
        #expect(text[4 + post.lines.count] == "--")
        #expect(Array(text[(5 + post.lines.count)..<(5 + post.lines.count + post.signature.count)]) == post.signature)
        #expect(text[text.count - 2].hasPrefix("※ 修改:·\(post.author) 于 "))
        #expect(text[text.count - 2].hasSuffix(" 修改本文·[FROM: \(post.ip)]"))
        #expect(text[text.count - 1] == "※ 来源:·水木社区 http://www.newsmth.net·[FROM: \(post.ip)]")
    }

    // MARK: - nForum pages

    @Test func boardFragmentIsGBKWithTheListing() async throws {
        let served = try await Served.start()
        let name = try #require(served.forum.boardNames.first)
        let board = try #require(served.forum.board(named: name))
        let raw = try await served.get("/nForum/board/\(name)?ajax")
        await served.stop()

        #expect(raw.contentType == "text/html; charset=GBK")
        #expect(String(data: raw.body, encoding: .utf8) == nil, "GBK bytes are not UTF-8")
        let html = try #require(GB18030.decode(raw.body))
        #expect(html.hasPrefix("<script type=\"text/javascript\">"))
        #expect(html.contains("<style type=\"text/css\">"))
        #expect(html.contains("<li class=\"page-pre\">主题数:<i>\(board.threads.count)</i>&emsp;分页:</li>"))
        #expect(html.contains(#"<li class="page-select"><a title="当前页">1</a></li>"#))
        #expect(html.contains(#"<a href="/nForum/board/\#(name)?p=2" title="转到第2页">2</a>"#))

        let body = try #require(html.components(separatedBy: "<tbody>").last?.components(separatedBy: "</tbody>").first)
        let rows = body.components(separatedBy: "</tr>").filter { $0.contains("<td") }
        let shown = Array(board.threads.prefix(30))
        #expect(rows.count == shown.count)
        let reference = Self.beijing(Self.now)
        for (row, thread) in zip(rows, shown) {
            #expect(row.contains("<tr class=\"top\">") == thread.sticky)
            #expect(row.contains(#"<td class="title_9"><a href="/nForum/article/\#(name)/\#(thread.gid)">"#))
            #expect(row.contains(Self.escape(thread.title)))
            let replies = thread.posts.count - (thread.firstPostDeleted ? 0 : 1)
            let counts = row.components(separatedBy: #"<td class="title_11 middle">"#).dropFirst()
                .compactMap { $0.components(separatedBy: "</td>").first }
            #expect(counts.count == 3)
            #expect(counts.last == String(replies), "replies of \(thread.gid)")
            if thread.firstPostDeleted {
                #expect(row.contains(#"<td class="title_12">|&ensp;原帖已删除</td>"#))
            } else if let first = thread.posts.first {
                #expect(row.contains(#"|&ensp;<a href="/nForum/user/query/\#(first.author)" class="c63f">"#))
            }
            let last = try #require(thread.posts.last)
            let pages = (thread.posts.count + 9) / 10
            #expect(row.contains(#"href="/nForum/article/\#(name)/\#(thread.gid)?p=\#(pages)#a\#(last.floor)""#))
            let c = Self.beijing(last.postedAt)
            let today = c.year == reference.year && c.month == reference.month && c.day == reference.day
            let time =
                today
                ? "\(Self.two(c.hour)):\(Self.two(c.minute)):\(Self.two(c.second))&emsp;"
                : "\(c.year ?? 0)-\(Self.two(c.month))-\(Self.two(c.day))"
            #expect(row.contains(#"title="跳转至最后回复">\#(time)</a>"#))
            #expect(row.contains(#"class="c09f">\#(last.author)</a>"#))
            #expect(row.contains("threads-tab") == (pages > 1))
            #expect(row.contains("tag-att") == thread.posts.contains { !$0.attachments.isEmpty })
        }
        #expect(rows.contains { $0.contains("&emsp;</a>") }, "some last reply is today")
    }

    @Test func threadFragmentShowsTheWholePostText() async throws {
        let served = try await Served.start()
        let forum = served.forum
        let signed = try #require(Self.find(forum) { $0.editedBy != nil && !$0.signature.isEmpty })
        let files = try #require(Self.find(forum) { $0.attachments.contains { !$0.isImage } })
        let images = try #require(Self.find(forum) { $0.attachments.contains(where: \.isImage) })
        for located in [signed, files, images] {
            let html = try await served.page(located.path)
            let posts = located.thread.posts.count
            #expect(html.contains("<li class=\"page-pre\">帖数:<i>\(posts)</i>&emsp;分页:</li>"))
            #expect(html.contains("<span class=\"n-left\">文章主题:&ensp;\(Self.escape(located.thread.title))</span>"))
            let post = located.post
            let floor = post.floor == 0 ? "楼主" : "第\(post.floor)楼"
            #expect(html.contains("<a name=\"a\(post.floor)\"></a>"))
            #expect(html.contains(#"<span class="a-pos">\#(floor)</span>"#))
            #expect(html.contains(#"<div class="a-u-uid">\#(Self.escape(post.nick))</div>"#))
            let initial = String(post.author.prefix(1)).uppercased()
            #expect(html.contains("//images.newsmth.net/nForum/uploadFace/\(initial)/\(post.author).jpg"))
            #expect(html.contains("<font style=\"display: none\">\(post.id)</font>发信人: ") == (post.id % 2 == 1))

            var expected = post.articleText(board: located.board).map(Self.strip)
            let attachments = post.attachments.map { $0.isImage ? "" : "附件(\($0.sizeText)) \($0.name)" }
            expected.insert(contentsOf: attachments, at: 4 + post.lines.count)
            #expect(try Self.contentLines(html, postID: post.id) == expected)
            #expect(html.contains(#"标&nbsp;&nbsp;题: "#))
            #expect(
                html.contains(
                    #"<font class="\#(post.originColour)">※ 来源:·水木社区 <a target="_blank" href="http://www.newsmth.net">http://www.newsmth.net</a>·[FROM: \#(post.ip)]</font>"#
                ))
            for attachment in post.attachments {
                let path = "/nForum/att/\(located.board)/\(post.id)/\(attachment.path.split(separator: "/").last ?? "")"
                if attachment.isImage {
                    #expect(html.contains(#"<a target="_blank" href="\#(path)"><img "#))
                    #expect(html.contains(#"src="\#(path)/large""#))
                } else {
                    #expect(html.contains(#"附件(\#(attachment.sizeText))&nbsp;<a href="\#(path)">"#))
                }
            }
        }
        await served.stop()
    }

    @Test func coloursBecomeFontsAndQuotesAreCyan() async throws {
        let served = try await Served.start()
        let cases: [(line: String, html: String)] = [
            ("普通\u{1B}[1;31m红色的字\u{1B}[m普通", #"普通<font class="f009">红色的字</font>普通"#),
            ("\u{1B}[44m蓝底白字\u{1B}[m ", #"<font class="f407">蓝底白字</font> "#),
            ("\u{1B}[1;32;40m", #"<font class="f010">"#),
            ("前面是普通字，\u{1B}[33m", #"前面是普通字，<font class="f003">"#),
        ]
        for (line, html) in cases {
            let located = try #require(Self.find(served.forum) { $0.lines.contains { $0.contains(line) } }, "\(line)")
            let page = try await served.page(located.path)
            #expect(page.contains(html), "\(line)")
        }
        let quoted = try #require(Self.find(served.forum) { $0.lines.contains { $0.hasPrefix(": ") } })
        let page = try await served.page(quoted.path)
        #expect(page.contains(#"<font class="f006">【 在 "#))
        #expect(page.contains(#"<font class="f006">: "#))
        await served.stop()
    }

    @Test func likesAreListedUnderThePost() async throws {
        let served = try await Served.start()
        let located = try #require(Self.find(served.forum) { $0.likes.count > 6 })
        let html = try await served.page(located.path)
        await served.stop()
        let likes = located.post.likes
        #expect(html.contains(#"<div class="likes"><div class="like_name">有\#(likes.count)位用户评价了这篇文章：</div>"#))
        var expected = ""
        for like in likes {
            let kind = like.score == 0 ? 0 : (like.score > 0 ? 1 : 2)
            let score = like.score == 0 ? "&nbsp;&nbsp;" : (like.score > 0 ? "+\(like.score)" : "\(like.score)")
            expected += #"<li><span class="like_score_\#(kind)">[\#(score)]</span>"#
            expected += #"<span class="like_user">\#(like.user):</span>"#
            expected += #"<span class="like_msg">\#(Self.escape(like.message))</span>"#
            expected += #"<span class="like_time">(\#(Self.minute(like.at)))</span></li>"#
        }
        #expect(html.contains(#"<div class="like_list"><ul>"# + expected + "</ul></div></div>"))
    }

    @Test func pagesAndOneAuthorsPosts() async throws {
        let served = try await Served.start()
        let located = try #require(Self.find(served.forum) { $0.floor >= 10 && $0.floor < 20 })
        let thread = located.thread
        let second = try await served.page("/nForum/article/\(located.board)/\(thread.gid)?ajax&p=2")
        #expect(second.contains(#"<li class="page-select"><a title="当前页">2</a></li>"#))
        for post in thread.posts.dropFirst(10).prefix(10) {
            #expect(second.contains("/post/\(post.id)\" class=\"a-post\""))
        }
        #expect(!second.contains("/post/\(thread.gid)\" class=\"a-post\""))

        let author = try #require(thread.posts.first?.author)
        let own = thread.posts.filter { $0.author == author }
        let filtered = try await served.page("/nForum/article/\(located.board)/\(thread.gid)?ajax&au=\(author)")
        #expect(filtered.contains("<li class=\"page-pre\">帖数:<i>\(own.count)</i>&emsp;分页:</li>"))
        #expect(filtered.components(separatedBy: "class=\"a-post\">回复</a>").count - 1 == min(10, own.count))
        await served.stop()
    }

    @Test func withoutAjaxTheShellComesBack() async throws {
        let served = try await Served.start()
        let name = try #require(served.forum.boardNames.first)
        for headers in [[:], ["X-Requested-With": "XMLHttpRequest"]] {
            let shell = try await served.get("/nForum/board/\(name)?p=2", headers: headers)
            let html = try #require(GB18030.decode(shell.body))
            #expect(shell.status == 200)
            #expect(
                html.contains("<script type=\"text/javascript\">location.href='/nForum/#!board/\(name)?p=2';</script>"))
            #expect(!html.contains("board-list"))
        }
        let fragment = try await served.page("/nForum/board/\(name)?ajax")
        #expect(fragment.contains("<table class=\"board-list"))
        await served.stop()
    }

    @Test func errorsAndTheLoginWall() async throws {
        let served = try await Served.start(faults: ReplicaFaults(loginBoard: ReplicaNForumTests.loginBoard))
        let name = try #require(served.forum.boardNames.first)
        let table = "<table class=\"error\">\n<tr><th>发生错误</th></tr>\n<tr><td>错误的版名或者文章号!</td></tr>\n</table>"
        for path in ["/nForum/board/NoSuchBoard?ajax", "/nForum/article/\(name)/1?ajax", "/nForum/article/Nope/1?ajax"]
        {
            let html = try await served.page(path)
            #expect(html.contains(table), "\(path)")
            #expect(!html.contains("<div class=\"error\">"), "\(path)")
        }
        let walled = try await served.page("/nForum/board/\(Self.loginBoard)?ajax")
        #expect(walled.contains("<div class=\"error\">您无权阅读此版面</div>"))
        #expect(!walled.contains("<table class=\"board-list"))
        let opened = try await served.get(
            "/nForum/board/\(Self.loginBoard)?ajax", headers: ["Cookie": "KBS_SESSION=replica-session"])
        #expect(GB18030.decode(opened.body)?.contains("<table class=\"board-list") == true)
        let missing = try await served.get("/nForum/no/such/route")
        #expect(missing.status == 404)
        await served.stop()
    }

    static let loginBoard = "WorkLife"

    @Test func attachmentsAreTheMobileSitesBytes() async throws {
        let served = try await Served.start()
        let image = try #require(Self.find(served.forum) { $0.attachments.contains(where: \.isImage) })
        let file = try #require(Self.find(served.forum) { $0.attachments.contains { !$0.isImage } })
        for located in [image, file] {
            for attachment in located.post.attachments {
                let mobile = try await served.get(attachment.path)
                let desktop = try await served.get("/nForum" + attachment.path)
                #expect(desktop.status == 200)
                #expect(desktop.body == attachment.bytes)
                #expect(desktop.body == mobile.body)
                if attachment.isImage {
                    #expect(try await served.get("/nForum" + attachment.path + "/large").body == attachment.bytes)
                    let middle = try await served.get("/nForum" + attachment.path + "/middle")
                    #expect(middle.body == (try await served.get(attachment.path + "/middle")).body)
                }
            }
        }
        await served.stop()
    }

    @Test func userQueryAnswersJSON() async throws {
        let served = try await Served.start()
        let post = try #require(Self.find(served.forum) { _ in true }?.post)
        let known = try await served.get("/nForum/user/query/\(post.author).json")
        #expect(known.contentType == "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: known.body) as? [String: Any])
        #expect(object["id"] as? String == post.author)
        #expect(object["user_name"] as? String == post.nick)
        #expect((object["post_count"] as? Int ?? 0) > 0)
        #expect(object["ajax_code"] as? String == "0005")
        #expect((object["face_url"] as? String)?.hasSuffix("/\(post.author).jpg") == true)

        let unknown = try await served.get("/nForum/user/query/nobody000.json")
        #expect(unknown.status == 200)
        #expect(
            String(decoding: unknown.body, as: UTF8.self) == #"{"ajax_st":0,"ajax_code":"0104","ajax_msg":"用户不存在"}"#)
        await served.stop()
    }

    @Test func sectionsNestAndTheFrontPageListsTheHotTopics() async throws {
        let served = try await Served.start()
        let forum = served.forum
        let nested = try #require(forum.sections.first { $0.parent != nil })
        let parent = try #require(forum.sections.first { $0.code == nested.parent })
        let top = try await served.page("/nForum/section/\(parent.code)?ajax")
        #expect(
            top.contains(#"<td class="title_1"><a href="/nForum/section/\#(nested.code)">\#(nested.name)</a></td>"#))
        for name in parent.boardNames {
            #expect(top.contains(#"<a href="/nForum/board/\#(name)">"#))
            #expect(top.contains(#"<td class="title_2">\#(name)</td>"#))
        }
        let inner = try await served.page("/nForum/section/\(nested.code)?ajax")
        for name in nested.boardNames { #expect(inner.contains(#"<td class="title_2">\#(name)</td>"#)) }

        let hot = forum.hotTopics()
        #expect(!hot.isEmpty && hot.count <= 10)
        let threads = try hot.map { topic in
            try #require(forum.board(named: topic.board)?.threads.first { $0.gid == topic.gid })
        }
        let replies = threads.map { $0.posts.count - ($0.firstPostDeleted ? 0 : 1) }
        #expect(replies == replies.sorted(by: >))
        for thread in threads {
            #expect(!thread.sticky)
            #expect((thread.posts.last?.postedAt ?? .distantPast) >= Self.now.addingTimeInterval(-2 * 86_400))
        }

        let main = try await served.page("/nForum/mainpage?ajax")
        let mobile = String(decoding: try await served.get("/hot").body, as: UTF8.self)
        #expect(main.contains("<div id=\"top10\""))
        var cursor = main.startIndex
        var mobileCursor = mobile.startIndex
        for (topic, thread) in zip(hot, threads) {
            let title = Self.escape(thread.title)
            let count = thread.posts.count - (thread.firstPostDeleted ? 0 : 1)
            let desktop =
                #"<li><a href="/nForum/article/\#(topic.board)/\#(topic.gid)" title="\#(title)">\#(title)</a>&ensp;(\#(count))</li>"#
            let found = try #require(main.range(of: desktop, range: cursor..<main.endIndex), "\(desktop)")
            cursor = found.upperBound
            let link = #"<a href="/article/\#(topic.board)/\#(topic.gid)">\#(title)(\#(count))</a>"#
            let onMobile = try #require(mobile.range(of: link, range: mobileCursor..<mobile.endIndex), "\(link)")
            mobileCursor = onMobile.upperBound
        }
        #expect(mobile.contains(#"<ul class="slist sec">"#))
        await served.stop()
    }

    // MARK: - Mobile, charsets, faults, determinism

    @Test func mobilePagesShowNoColourCodes() async throws {
        let served = try await Served.start()
        // A coloured line without runs of spaces, so its mobile text is just escaped.
        func simple(_ line: String) -> Bool {
            line.contains("\u{1B}[") && !Self.strip(line).contains("  ") && !Self.strip(line).hasPrefix(" ")
        }
        let located = try #require(Self.find(served.forum) { $0.lines.contains(where: simple) })
        let page = try await served.get("/article/\(located.board)/\(located.thread.gid)?p=\(located.page)")
        #expect(!page.body.contains(0x1B))
        let coloured = try #require(located.post.lines.first(where: simple))
        #expect(String(decoding: page.body, as: UTF8.self).contains(Self.escape(Self.strip(coloured))))
        for name in served.forum.boardNames {
            let board = try await served.get("/board/\(name)")
            #expect(!board.body.contains(0x1B))
        }
        await served.stop()
    }

    @Test func charactersBeyondGBKSurvive() async throws {
        let served = try await Served.start()
        let name = try #require(served.forum.boardNames.last)
        let title = "表情😀与生僻字𠮷 & <标签>"
        let gid = try #require(served.forum.addThread(board: name, title: title, at: Self.now))
        let board = try await served.page("/nForum/board/\(name)?ajax")
        #expect(board.contains(#"<a href="/nForum/article/\#(name)/\#(gid)">\#(Self.escape(title))</a>"#))
        let thread = try await served.page("/nForum/article/\(name)/\(gid)?ajax")
        #expect(thread.contains("标&nbsp;&nbsp;题: \(Self.escape(title))<br />"))
        await served.stop()
    }

    @Test func faultsAndCharsetLabelsCoverNForum() async throws {
        let faults = ReplicaFaults(
            rules: [ReplicaFaults.Rule(.serverError, paths: .boards, times: 1)], wrongCharset: true)
        let served = try await Served.start(faults: faults)
        let name = try #require(served.forum.boardNames.first)
        let path = "/nForum/board/\(name)?ajax"
        #expect(try await served.get(path).status == 500)
        let second = try await served.get(path)
        #expect(second.status == 200)
        #expect(second.contentType == "text/html; charset=UTF-8")
        #expect(GB18030.decode(second.body)?.contains("主题数") == true)
        #expect(String(data: second.body, encoding: .utf8) == nil)
        let mobile = try await served.get("/index")
        #expect(mobile.contentType == "text/html; charset=GBK")
        await served.stop()
    }

    @Test func sameConfigSameBytesAndETags() async throws {
        let one = try await Served.start()
        let two = try await Served.start()
        let name = try #require(one.forum.boardNames.first)
        let located = try #require(Self.find(one.forum) { $0.likes.count > 6 })
        for path in [
            "/nForum/board/\(name)?ajax", "/nForum/board/\(name)?ajax&p=2", located.path,
            "/nForum/mainpage?ajax", "/nForum/section/0?ajax", "/hot",
        ] {
            let a = try await one.get(path)
            let b = try await two.get(path)
            #expect(a.body == b.body, "\(path)")
            let tag = try #require(a.header("ETag"))
            #expect(b.header("ETag") == tag)
            let again = try await one.get(path, headers: ["If-None-Match": tag])
            #expect(again.status == 304, "\(path)")
        }
        await one.stop()
        await two.stop()
    }
}

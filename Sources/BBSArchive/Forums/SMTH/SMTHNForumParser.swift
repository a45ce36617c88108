import Foundation

/// Reads nForum `?ajax` fragments: board lists, threads with the whole post
/// text, section lists, hot topics and error pages.
struct SMTHNForumParser {
    let page: FetchedPage

    func parse() throws(ArchiveError) -> ForumPage {
        if let profile = try UserProfileReader.json(page.body, url: page.url, contentType: page.contentType) {
            return .user(profile)
        }
        let document = try page.document(expected: "an SMTH nForum page")
        let articles = Walk.articles(document)
        if !articles.isEmpty {
            return .thread(parseThread(document, tables: articles))
        }
        if let table = Walk.boardList(document) {
            if Walk.firstTitleCell(table) != nil || isBoardPage(document) {
                return .board(try parseBoard(document, table: table))
            }
            if table.first(".//td[\(XPath.hasClass("title_1"))]") != nil {
                return .sections(parseSection(table))
            }
        }
        if let hot = parseHot(document) { return .hot(hot) }
        if let message = errorMessage(document) {
            if message.contains("版名") || message.contains("版面不存在") {
                throw .unknownBoard(SMTHMobileParser.boardName(inURL: page.url) ?? "?", message: message)
            }
            throw .forumError(url: page.url, message: message)
        }
        if document.first("//script[contains(., '#!')]") != nil, document.first("//div") == nil {
            throw .notAForumPage(
                url: page.url, expected: "an nForum fragment (the page is a JavaScript shell: ask with ?ajax)")
        }
        throw .notAForumPage(url: page.url, expected: "an SMTH nForum board or thread page")
    }

    // MARK: Board lists

    private func isBoardPage(_ document: HTMLDocument) -> Bool {
        Walk.pagePre(document)?.text.contains("主题数") == true
    }

    private func parseBoard(_ document: HTMLDocument, table: HTMLNode) throws(ArchiveError) -> BoardPage {
        // The rows' links spell the board as the forum does; the address
        // may spell it as the reader typed it.
        var name: String?
        var threads: [ThreadSummary] = []
        var unread: [UnreadRow] = []
        var partly: [UnreadRow] = []
        for row in Walk.rows(table) {
            guard let link = Walk.rowLink(row), let href = link.attribute("href"),
                let (board, gid) = SMTHMobileParser.articlePath(href)
            else { continue }
            if name == nil { name = board }
            let dates = Walk.dates(row)
            let people = Walk.people(row)
            let counts = Walk.counts(row)
            let postedText = Self.clean(dates.first?.text ?? "")
            let lastText = Self.clean(dates.dropFirst().first?.text ?? "")
            guard let postedAt = try SMTHTimeParser.checked(postedText, fetchedAt: page.fetchedAt, url: page.url)
            else {
                // Said, never skipped in silence: the thread would not be archived.
                unread.append(UnreadRow(gid: gid, problem: "its time \"\(postedText)\" could not be read"))
                continue
            }
            let author = people.first.map { Self.person($0) } ?? nil
            let lastReplier = people.dropFirst().first.map { Self.person($0) } ?? nil
            // Score, likes, replies: the reply count is the third, or the
            // last where a board shows fewer columns; `1,014` is 1014,
            // `1.5k` at least 1500 (`ReplyCount`).
            let repliesCell = counts.count >= 3 ? counts[2] : counts.last
            let repliesText = repliesCell.map { Self.clean($0.text) } ?? ""
            let replies = ReplyCount.read(repliesText)
            if replies?.exact != true {
                partly.append(SMTHMobileParser.countProblem(repliesText, replies, gid: gid))
            }
            let (lastReplyAt, problem) = try SMTHMobileParser.lastReply(
                lastText, replier: lastReplier, postedAt: postedAt, count: replies, gid: gid,
                fetchedAt: page.fetchedAt, url: page.url)
            if let problem { partly.append(problem) }
            threads.append(
                ThreadSummary(
                    gid: gid, title: HTMLWhitespace.field(link.text), replies: replies?.least ?? 0,
                    repliesExact: replies?.exact ?? false, sticky: row.hasClass("top"),
                    marked: Walk.markedIcon(row) != nil,
                    author: author == SMTHMobileParser.deletedAuthor ? nil : author, postedAt: postedAt,
                    lastReplier: lastReplier, lastReplyAt: lastReplyAt,
                    hasAttachment: Walk.attachmentIcon(row) != nil))
        }
        let count = Walk.threadCount(document).flatMap { Int(Self.clean($0.text)) }
        return BoardPage(
            board: name ?? SMTHMobileParser.boardName(inURL: page.url) ?? "", title: nil, page: pageInfo(document),
            threads: threads, threadCount: count, unreadRows: unread, partlyReadRows: partly)
    }

    /// `|&ensp;<a>id</a>` or plain text such as 原帖已删除.
    private static func person(_ cell: HTMLNode) -> String? {
        let text = cell.firstChild(where: { $0.isElement("a") })?.text ?? cell.text
        let name = clean(text).trimmingCharacters(in: CharacterSet(charactersIn: "| "))
        return name.isEmpty ? nil : name
    }

    // MARK: Threads

    private func parseThread(_ document: HTMLDocument, tables: [HTMLNode]) -> ThreadPage {
        let title = Self.headerTitle(Walk.title(document)?.text ?? "")
        var board = ""
        var gid = 0
        if let (b, g) = SMTHMobileParser.articlePath(page.url) ?? Self.ownAddress(document) { (board, gid) = (b, g) }
        let info = pageInfo(document)
        var posts: [Post] = []
        var timeKnown: [Bool] = []
        for table in tables {
            let (post, known) = parsePost(table, previous: posts.last, page: info)
            posts.append(post)
            timeKnown.append(known)
        }
        SMTHTimeParser.fillUnreadTimes(&posts, known: timeKnown, fallback: page.fetchedAt)
        // Counted apart from the tables read above: every post is a
        // `div.a-wrap` (or at least a 回复 link), so a post the reading above
        // missed shows as a difference.
        let wraps = Walk.wraps(document).count
        return ThreadPage(
            board: board, gid: gid, title: title, page: info, posts: posts, containers: max(wraps, tables.count))
    }

    /// A saved page without its address: its own links (reply, share,
    /// pager, 只看此ID) name the board and the gid.
    static func ownAddress(_ document: HTMLDocument) -> (String, Int)? {
        for link in document.select("//a[contains(@href, '/article/')]") {
            guard let href = link.attribute("href"), let (board, gid) = SMTHMobileParser.articlePath(href) else {
                continue
            }
            // `/article/B/post/123` (reply) names the post, not the thread.
            if href.contains("/post/") || href.contains("/single/") { continue }
            return (board, gid)
        }
        return nil
    }

    /// One post; what cannot be read is said in its warning, never a reason
    /// to drop it. Returns whether its time could be read.
    private func parsePost(_ table: HTMLNode, previous: Post?, page info: PageInfo) -> (Post, Bool) {
        var problems: [String] = []
        let author = Walk.userName(table).map { HTMLWhitespace.collapse($0.text) } ?? ""
        var floor: Int?
        if let position = Walk.position(table).map({ HTMLWhitespace.collapse($0.text) }) {
            floor = position.contains("楼主") ? 0 : SMTHMobileParser.floorDigits(position)
        } else if let anchor = Walk.anchor(table)?.attribute("name") {
            floor = SMTHMobileParser.floorDigits(anchor)
        }
        if floor == nil {
            problems.append("its floor could not be read")
        }
        let postID = Walk.postLink(table)?.attribute("href")
            .flatMap { Int($0.split(separator: "/").last.map(String.init) ?? "") }
        let nick = Walk.nick(table).map { Self.clean($0.text) }

        let content = Walk.content(table)
        let (text, lines, attachments, likes) =
            content.map { Self.readContent($0, baseURL: page.url, fetchedAt: page.fetchedAt) }
            ?? (PostText.split([]), [], [], [])
        if content == nil {
            problems.append("it has no text")
        } else if text.header == nil {
            problems.append("its header could not be read")
        } else if text.header?.postedAt == nil {
            problems.append("its time could not be read")
        }
        let name = text.header?.author.isEmpty == false ? text.header?.author ?? author : author
        if name.isEmpty { problems.append("its author could not be read") }
        // Two readings of one id that disagree: one of them is misread, and
        // the post would be filed under it without a word.
        if !author.isEmpty, name.lowercased() != author.lowercased() {
            problems.append("its header names \(name), its page \(author)")
        }
        let number = floor ?? previous.map { $0.floor + 1 } ?? (info.current - 1) * 10
        let post = Post(
            floor: number, author: name, postedAt: text.header?.postedAt ?? page.fetchedAt,
            body: text.body.joined(separator: "\n"), attachments: attachments, ip: text.ip, editedBy: text.editedBy,
            nick: text.header?.nick ?? nick, title: text.header?.title,
            signature: text.signature.map { $0.joined(separator: "\n") } ?? "", postID: postID,
            editedAt: text.editedAt, likes: likes,
            warning: problems.isEmpty ? nil : "floor \(number): " + problems.joined(separator: "; "),
            rawText: problems.isEmpty ? nil : lines.joined(separator: "\n"))
        return (post, text.header?.postedAt != nil)
    }

    /// The whole post text, attachments and likes of a `td.a-content`.
    static func readContent(_ content: HTMLNode, baseURL: String, fetchedAt: Date)
        -> (PostText, [String], [Attachment], [Like])
    {
        var reader = NForumTextReader(baseURL: baseURL)
        content.forEachChild { child in
            if !(child.isElement && child.hasClass("likes")) { reader.read(child) }
            return true
        }
        let (lines, attachments) = reader.finish()
        let likes = Walk.likes(content).compactMap { like($0, fetchedAt: fetchedAt) }
        return (PostText.split(lines), lines, attachments, likes)
    }

    /// `<span class="like_score_1">[+5]</span><span class="like_user">u:</span>
    /// <span class="like_msg">…</span><span class="like_time">(2016-03-28 01:47)</span>`.
    private static func like(_ item: HTMLNode, fetchedAt: Date) -> Like? {
        guard let user = Walk.likeUser(item)?.text else { return nil }
        let scoreText = clean(Walk.likeScore(item)?.text ?? "")
        let score =
            Int(scoreText.filter { $0.isNumber || $0 == "-" || $0 == "+" }.replacingOccurrences(of: "+", with: "")) ?? 0
        let message = HTMLWhitespace.unwrap(Walk.likeMessage(item)?.text ?? "")
        let timeText = clean(Walk.likeTime(item)?.text ?? "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "()（）"))
        return Like(
            score: score, user: clean(user).trimmingCharacters(in: CharacterSet(charactersIn: ":：")),
            message: message, at: SMTHTimeParser.parse(timeText, fetchedAt: fetchedAt))
    }

    // MARK: Sections and hot topics

    private func parseSection(_ table: HTMLNode) -> SectionPage {
        let code = sectionCode(page.url) ?? ""
        var entry = SectionPage.Entry(code: code, name: code, parent: nil, boards: [])
        var titles: [String: String] = [:]
        var nested: [SectionPage.Entry] = []
        for row in table.select(".//tr[td]") {
            guard let link = row.first("td[\(XPath.hasClass("title_1"))]//a"), let href = link.attribute("href") else {
                continue
            }
            if let sub = sectionCode(href) {
                nested.append(SectionPage.Entry(code: sub, name: Self.clean(link.text), parent: code, boards: []))
            } else if let board = SMTHMobileParser.boardName(inURL: href) {
                entry.boards.append(board)
                titles[board] = Self.clean(link.text)
            }
        }
        return SectionPage(sections: [entry] + nested, boardTitles: titles)
    }

    private func sectionCode(_ url: String) -> String? {
        guard let range = url.range(of: "/section/") else { return nil }
        let code = url[range.upperBound...].prefix { $0 != "?" && $0 != "/" && $0 != "#" }
        return code.isEmpty ? nil : String(code)
    }

    private func parseHot(_ document: HTMLDocument) -> HotTopicsPage? {
        guard let block = document.first("//*[@id='top10']") else { return nil }
        var topics: [HotTopicsPage.Topic] = []
        for link in block.select(".//a[contains(@href, '/article/')]") {
            guard let href = link.attribute("href"), let (board, gid) = SMTHMobileParser.articlePath(href) else {
                continue
            }
            let title = link.attribute("title") ?? link.text
            // `&ensp;(12)` after the link, read as a list row's count is (any digits, `1.2k`).
            let after = link.nextSibling.map(\.text) ?? ""
            let replies = ReplyCount.bracketed(after).map(\.count.least)
            topics.append(.init(board: board, gid: gid, title: Self.clean(title), replies: replies))
        }
        return HotTopicsPage(topics: topics)
    }

    // MARK: Shared

    /// `li.page-select` is the current page; the highest page link the total.
    private func pageInfo(_ document: HTMLDocument) -> PageInfo {
        let current = Walk.pageSelect(document).flatMap { Int(Self.clean($0.text)) } ?? 1
        var total = current
        for link in Walk.pagerLinks(document) {
            guard let href = link.attribute("href"), let range = href.range(of: "p=") else { continue }
            if let number = Int(href[range.upperBound...].prefix { $0.isNumber }) { total = max(total, number) }
        }
        return PageInfo(current: current, total: total)
    }

    private func errorMessage(_ document: HTMLDocument) -> String? {
        if let cell = document.first("//table[\(XPath.hasClass("error"))]//td") {
            return Self.clean(cell.text)
        }
        if let div = document.first("//div[\(XPath.hasClass("error"))]") {
            return Self.clean(div.text)
        }
        return nil
    }

    /// The thread's title as the page's header spells it: `文章主题:` and
    /// the blanks around it gone, the spaces inside kept, read as the
    /// list's row reads it (`HTMLWhitespace.field`): collapsed here, a
    /// title read `A B` from the thread and `A  B` from the list changed
    /// back and forth at every fetch of it, and logged a new title each
    /// time. A line break inside, from markup wrapped over lines, reads as
    /// one space.
    static func headerTitle(_ text: String) -> String {
        var title = HTMLWhitespace.field(text)
        for prefix in ["文章主题:", "文章主题："] where title.hasPrefix(prefix) {
            title = HTMLWhitespace.trimmed(String(title.dropFirst(prefix.count)), newlines: true)
        }
        return title
    }

    /// Text without the pretty-printing whitespace and with `&nbsp;`,
    /// `&ensp;` and `&emsp;` as plain spaces, trimmed.
    static func clean(_ text: String) -> String {
        let spaced = text.map { character -> Character in
            character.isWhitespace ? " " : character
        }
        return String(spaced).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}

extension SMTHNForumParser {
    /// The questions the parser asks of thread and board fragments, as
    /// walks of the tree: each gives the same nodes as the XPath expression
    /// beside it, which ParserWalkTests checks on real and replica pages.
    enum Walk {
        /// `//table[hasClass(article)]`: the posts.
        static func articles(_ document: HTMLDocument) -> [HTMLNode] {
            document.elements { $0.isElement("table") && $0.hasClass("article") }
        }

        /// `//table[hasClass(board-list)]`, the first.
        static func boardList(_ document: HTMLDocument) -> HTMLNode? {
            document.firstElement { $0.isElement("table") && $0.hasClass("board-list") }
        }

        /// `.//td[hasClass(title_9)]`, the first, from the list.
        static func firstTitleCell(_ table: HTMLNode) -> HTMLNode? {
            table.firstDescendant { $0.isElement("td") && $0.hasClass("title_9") }
        }

        /// `//li[hasClass(page-pre)]`, the first.
        static func pagePre(_ document: HTMLDocument) -> HTMLNode? {
            document.firstElement { $0.isElement("li") && $0.hasClass("page-pre") }
        }

        /// `.//tbody/tr | ./tr[td]`, from the list: the rows.
        static func rows(_ table: HTMLNode) -> [HTMLNode] {
            table.descendants { row in
                guard row.isElement("tr"), let parent = row.pointer.pointee.parent else { return false }
                if parent == table.pointer { return row.firstChild { $0.isElement("td") } != nil }
                return HTMLNode(pointer: parent, document: table.document).isElement("tbody")
            }
        }

        /// The row's link to its thread, from `td[hasClass(title_9)]//a[contains(@href,
        /// '/article/')]`: the first outside the thread's page links (`span.threads-tab`) whose
        /// address has neither query nor anchor, else the first outside them, else the first
        /// inside them whose address has neither, else the first. The link may sit in a colour's
        /// `<font>`, and the page links (`?p=2`) may come first; a title link inside the page
        /// links (real pages put only `?p=N` links there) is still the title, not the link to
        /// page 2 before it.
        static func rowLink(_ row: HTMLNode) -> HTMLNode? {
            var links: [(node: HTMLNode, rank: Int)] = []
            for cell in row.children(where: { $0.isElement("td") && $0.hasClass("title_9") }) {
                cell.forEachDescendant { node in
                    guard node.isElement("a"), node.attribute("href", contains: "/article/") else { return true }
                    let paging = hasAncestor(node, below: cell) { $0.isElement("span") && $0.hasClass("threads-tab") }
                    let plain = !node.attribute("href", contains: "?") && !node.attribute("href", contains: "#")
                    links.append((node, (paging ? 2 : 0) + (plain ? 0 : 1)))
                    return true
                }
            }
            return links.min { $0.rank < $1.rank }?.node
        }

        /// `td[hasClass(title_10)]`, from a row: posted, last reply.
        static func dates(_ row: HTMLNode) -> [HTMLNode] {
            row.children { $0.isElement("td") && $0.hasClass("title_10") }
        }

        /// `td[hasClass(title_12)]`, from a row: author, last replier.
        static func people(_ row: HTMLNode) -> [HTMLNode] {
            row.children { $0.isElement("td") && $0.hasClass("title_12") }
        }

        /// `td[hasClass(title_11)]`, from a row: score, likes, replies.
        static func counts(_ row: HTMLNode) -> [HTMLNode] {
            row.children { $0.isElement("td") && $0.hasClass("title_11") }
        }

        /// `.//samp[contains(@class, 'ico-pos-article-m')]`, the first, from a row.
        static func markedIcon(_ row: HTMLNode) -> HTMLNode? {
            row.firstDescendant { $0.isElement("samp") && $0.attribute("class", contains: "ico-pos-article-m") }
        }

        /// `.//samp[hasClass(tag-att)]`, the first, from a row.
        static func attachmentIcon(_ row: HTMLNode) -> HTMLNode? {
            row.firstDescendant { $0.isElement("samp") && $0.hasClass("tag-att") }
        }

        /// `//li[hasClass(page-pre)]/i`, the first.
        static func threadCount(_ document: HTMLDocument) -> HTMLNode? {
            for item in document.elements(where: { $0.isElement("li") && $0.hasClass("page-pre") }) {
                if let count = item.firstChild(where: { $0.isElement("i") }) { return count }
            }
            return nil
        }

        /// `//div[hasClass(b-head)]//span[hasClass(n-left)]`, the first.
        static func title(_ document: HTMLDocument) -> HTMLNode? {
            document.firstElement { span in
                span.isElement("span") && span.hasClass("n-left")
                    && hasAncestor(span) { $0.isElement("div") && $0.hasClass("b-head") }
            }
        }

        /// `//div[hasClass(a-wrap)]`: every post's box.
        static func wraps(_ document: HTMLDocument) -> [HTMLNode] {
            document.elements { $0.isElement("div") && $0.hasClass("a-wrap") }
        }

        /// `.//span[hasClass(a-u-name)]`, the first, from a post.
        static func userName(_ table: HTMLNode) -> HTMLNode? {
            table.firstDescendant { $0.isElement("span") && $0.hasClass("a-u-name") }
        }

        /// `.//span[hasClass(a-pos)]`, the first, from a post.
        static func position(_ table: HTMLNode) -> HTMLNode? {
            table.firstDescendant { $0.isElement("span") && $0.hasClass("a-pos") }
        }

        /// `preceding-sibling::a[@name][1]`: the nearest `a` with a name before the post.
        static func anchor(_ table: HTMLNode) -> HTMLNode? {
            var sibling = table.pointer.pointee.prev
            while let current = sibling {
                let element = HTMLNode(pointer: current, document: table.document)
                if element.isElement("a"), element.withAttribute("name", { $0 != nil }) { return element }
                sibling = current.pointee.prev
            }
            return nil
        }

        /// `.//a[hasClass(a-post)]`, the first, from a post.
        static func postLink(_ table: HTMLNode) -> HTMLNode? {
            table.firstDescendant { $0.isElement("a") && $0.hasClass("a-post") }
        }

        /// `.//div[hasClass(a-u-uid)]`, the first, from a post.
        static func nick(_ table: HTMLNode) -> HTMLNode? {
            table.firstDescendant { $0.isElement("div") && $0.hasClass("a-u-uid") }
        }

        /// `.//td[hasClass(a-content)]`, the first, from a post.
        static func content(_ table: HTMLNode) -> HTMLNode? {
            table.firstDescendant { $0.isElement("td") && $0.hasClass("a-content") }
        }

        /// `.//div[hasClass(likes)]//li`, from the content.
        static func likes(_ content: HTMLNode) -> [HTMLNode] {
            content.descendants { item in
                item.isElement("li")
                    && hasAncestor(item, below: content) { $0.isElement("div") && $0.hasClass("likes") }
            }
        }

        /// `.//span[hasClass(like_user)]`, the first, from a like (its spans may sit in a colour).
        static func likeUser(_ item: HTMLNode) -> HTMLNode? {
            item.firstDescendant { $0.isElement("span") && $0.hasClass("like_user") }
        }

        /// `.//span[starts-with(@class, 'like_score')]`, the first, from a like.
        static func likeScore(_ item: HTMLNode) -> HTMLNode? {
            item.firstDescendant { $0.isElement("span") && $0.attribute("class", hasPrefix: "like_score") }
        }

        /// `.//span[hasClass(like_msg)]`, the first, from a like.
        static func likeMessage(_ item: HTMLNode) -> HTMLNode? {
            item.firstDescendant { $0.isElement("span") && $0.hasClass("like_msg") }
        }

        /// `.//span[hasClass(like_time)]`, the first, from a like.
        static func likeTime(_ item: HTMLNode) -> HTMLNode? {
            item.firstDescendant { $0.isElement("span") && $0.hasClass("like_time") }
        }

        /// `//li[hasClass(page-select)]`, the first.
        static func pageSelect(_ document: HTMLDocument) -> HTMLNode? {
            document.firstElement { $0.isElement("li") && $0.hasClass("page-select") }
        }

        /// `//ul[hasClass(pagination)]//a[@href]`.
        static func pagerLinks(_ document: HTMLDocument) -> [HTMLNode] {
            document.elements { link in
                link.isElement("a") && link.withAttribute("href", { $0 != nil })
                    && hasAncestor(link) { $0.isElement("ul") && $0.hasClass("pagination") }
            }
        }

        /// Whether an element above `node`, below `limit` (or anywhere,
        /// without one), is accepted by `match`.
        static func hasAncestor(_ node: HTMLNode, below limit: HTMLNode? = nil, where match: (HTMLNode) -> Bool)
            -> Bool
        {
            var parent = node.pointer.pointee.parent
            while let current = parent, current != limit?.pointer {
                let element = HTMLNode(pointer: current, document: node.document)
                if element.isElement, match(element) { return true }
                parent = current.pointee.parent
            }
            return false
        }
    }
}

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
        // The questions below are walks of the tree, each the same as the
        // XPath in its comment (checked against it by ParserWalkTests).
        // //table[hasClass(article)]
        let articles = document.elements { $0.isElement("table") && $0.hasClass("article") }
        if !articles.isEmpty {
            return .thread(parseThread(document, tables: articles))
        }
        // //table[hasClass(board-list)]
        if let table = document.firstElement(where: { $0.isElement("table") && $0.hasClass("board-list") }) {
            // .//td[hasClass(title_9)]
            if table.firstDescendant(where: { $0.isElement("td") && $0.hasClass("title_9") }) != nil
                || isBoardPage(document)
            {
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
        Self.pagePre(document)?.text.contains("主题数") == true
    }

    /// //li[hasClass(page-pre)]
    private static func pagePre(_ document: HTMLDocument) -> HTMLNode? {
        document.firstElement { $0.isElement("li") && $0.hasClass("page-pre") }
    }

    /// Whether an element above `node`, below `limit` (or anywhere, without
    /// one), is accepted by `match`.
    private static func hasAncestor(_ node: HTMLNode, below limit: HTMLNode? = nil, where match: (HTMLNode) -> Bool)
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

    private func parseBoard(_ document: HTMLDocument, table: HTMLNode) throws(ArchiveError) -> BoardPage {
        // The rows' links spell the board as the forum does; the address
        // may spell it as the reader typed it.
        var name: String?
        var threads: [ThreadSummary] = []
        // .//tbody/tr | ./tr[td]
        let rows = table.descendants { row in
            guard row.isElement("tr"), let parent = row.pointer.pointee.parent else { return false }
            if parent == table.pointer { return row.firstChild { $0.isElement("td") } != nil }
            return HTMLNode(pointer: parent, document: document).isElement("tbody")
        }
        for row in rows {
            // td[hasClass(title_9)]/a[contains(@href, '/article/')]
            var found: HTMLNode?
            row.forEachChild { cell in
                if cell.isElement("td"), cell.hasClass("title_9") {
                    found = cell.firstChild { $0.isElement("a") && $0.attribute("href", contains: "/article/") }
                }
                return found == nil
            }
            guard let link = found, let href = link.attribute("href"),
                let (board, gid) = SMTHMobileParser.articlePath(href)
            else { continue }
            if name == nil { name = board }
            let dates = row.children { $0.isElement("td") && $0.hasClass("title_10") }
            let people = row.children { $0.isElement("td") && $0.hasClass("title_12") }
            let counts = row.children { $0.isElement("td") && $0.hasClass("title_11") }
            let postedText = Self.clean(dates.first?.text ?? "")
            let lastText = Self.clean(dates.dropFirst().first?.text ?? "")
            guard let postedAt = try SMTHTimeParser.checked(postedText, fetchedAt: page.fetchedAt, url: page.url)
            else { continue }
            let author = people.first.map { Self.person($0) } ?? nil
            let lastReplier = people.dropFirst().first.map { Self.person($0) } ?? nil
            // Score, likes, replies: the reply count is the third.
            let replies = counts.count >= 3 ? Int(Self.clean(counts[2].text)) ?? 0 : 0
            threads.append(
                ThreadSummary(
                    gid: gid, title: link.text, replies: replies, sticky: row.hasClass("top"),
                    marked: row.firstDescendant(where: {
                        $0.isElement("samp") && $0.attribute("class", contains: "ico-pos-article-m")
                    }) != nil,
                    author: author == SMTHMobileParser.deletedAuthor ? nil : author, postedAt: postedAt,
                    lastReplier: lastReplier,
                    lastReplyAt: try SMTHTimeParser.checked(lastText, fetchedAt: page.fetchedAt, url: page.url)
                        ?? postedAt,
                    hasAttachment: row.firstDescendant(where: { $0.isElement("samp") && $0.hasClass("tag-att") }) != nil
                ))
        }
        // //li[hasClass(page-pre)]/i: the first i in any such li.
        var countNode: HTMLNode?
        _ = document.firstElement { item in
            guard item.isElement("li"), item.hasClass("page-pre") else { return false }
            countNode = item.firstChild { $0.isElement("i") }
            return countNode != nil
        }
        let count = countNode.flatMap { Int(Self.clean($0.text)) }
        return BoardPage(
            board: name ?? SMTHMobileParser.boardName(inURL: page.url) ?? "", title: nil, page: pageInfo(document),
            threads: threads, threadCount: count)
    }

    /// `|&ensp;<a>id</a>` or plain text such as 原帖已删除.
    private static func person(_ cell: HTMLNode) -> String? {
        let text = cell.firstChild(where: { $0.isElement("a") })?.text ?? cell.text
        let name = clean(text).trimmingCharacters(in: CharacterSet(charactersIn: "| "))
        return name.isEmpty ? nil : name
    }

    // MARK: Threads

    private func parseThread(_ document: HTMLDocument, tables: [HTMLNode]) -> ThreadPage {
        // //div[hasClass(b-head)]//span[hasClass(n-left)]
        let heading = document.firstElement { span in
            span.isElement("span") && span.hasClass("n-left")
                && Self.hasAncestor(span) { $0.isElement("div") && $0.hasClass("b-head") }
        }
        var title = heading?.text ?? ""
        title = Self.clean(title)
        for prefix in ["文章主题:", "文章主题："] where title.hasPrefix(prefix) {
            title = Self.clean(String(title.dropFirst(prefix.count)))
        }
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
        let wraps = document.elements { $0.isElement("div") && $0.hasClass("a-wrap") }.count
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
        let author =
            table.firstDescendant { $0.isElement("span") && $0.hasClass("a-u-name") }
            .map { HTMLWhitespace.collapse($0.text) } ?? ""
        var floor: Int?
        if let position = table.firstDescendant(where: { $0.isElement("span") && $0.hasClass("a-pos") })
            .map({ HTMLWhitespace.collapse($0.text) })
        {
            floor = position.contains("楼主") ? 0 : Int(position.filter(\.isNumber))
        } else if let anchor = Self.precedingNamedAnchor(table)?.attribute("name") {
            floor = Int(anchor.filter(\.isNumber))
        }
        if floor == nil {
            problems.append("its floor could not be read")
        }
        let postID = table.firstDescendant { $0.isElement("a") && $0.hasClass("a-post") }?.attribute("href")
            .flatMap { Int($0.split(separator: "/").last.map(String.init) ?? "") }
        let nick = table.firstDescendant { $0.isElement("div") && $0.hasClass("a-u-uid") }.map { Self.clean($0.text) }

        let content = table.firstDescendant { $0.isElement("td") && $0.hasClass("a-content") }
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

    /// preceding-sibling::a[@name][1]: the nearest `a` with a name before `node`.
    private static func precedingNamedAnchor(_ node: HTMLNode) -> HTMLNode? {
        var sibling = node.pointer.pointee.prev
        while let current = sibling {
            let element = HTMLNode(pointer: current, document: node.document)
            if element.isElement("a"), element.withAttribute("name", { $0 != nil }) { return element }
            sibling = current.pointee.prev
        }
        return nil
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
        // .//div[hasClass(likes)]//li
        let likes = content.descendants { item in
            item.isElement("li") && hasAncestor(item, below: content) { $0.isElement("div") && $0.hasClass("likes") }
        }.compactMap { like($0, fetchedAt: fetchedAt) }
        return (PostText.split(lines), lines, attachments, likes)
    }

    /// `<span class="like_score_1">[+5]</span><span class="like_user">u:</span>
    /// <span class="like_msg">…</span><span class="like_time">(2016-03-28 01:47)</span>`.
    private static func like(_ item: HTMLNode, fetchedAt: Date) -> Like? {
        func span(_ match: (HTMLNode) -> Bool) -> HTMLNode? {
            item.firstChild { $0.isElement("span") && match($0) }
        }
        guard let user = span({ $0.hasClass("like_user") })?.text else { return nil }
        let scoreText = clean(span({ $0.attribute("class", hasPrefix: "like_score") })?.text ?? "")
        let score =
            Int(scoreText.filter { $0.isNumber || $0 == "-" || $0 == "+" }.replacingOccurrences(of: "+", with: "")) ?? 0
        let message = HTMLWhitespace.unwrap(span({ $0.hasClass("like_msg") })?.text ?? "")
        let timeText = clean(span({ $0.hasClass("like_time") })?.text ?? "")
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
            let after = link.nextSibling.map(\.text) ?? ""
            let replies = after.contains("(") ? Int(after.filter(\.isNumber)) : nil
            topics.append(.init(board: board, gid: gid, title: Self.clean(title), replies: replies))
        }
        return HotTopicsPage(topics: topics)
    }

    // MARK: Shared

    /// `li.page-select` is the current page; the highest page link the total.
    private func pageInfo(_ document: HTMLDocument) -> PageInfo {
        // //li[hasClass(page-select)]
        let current =
            document.firstElement { $0.isElement("li") && $0.hasClass("page-select") }
            .flatMap { Int(Self.clean($0.text)) } ?? 1
        var total = current
        // //ul[hasClass(pagination)]//a[@href]
        let links = document.elements { link in
            link.isElement("a") && link.withAttribute("href", { $0 != nil })
                && Self.hasAncestor(link) { $0.isElement("ul") && $0.hasClass("pagination") }
        }
        for link in links {
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

    /// Text without the pretty-printing whitespace and with `&nbsp;`,
    /// `&ensp;` and `&emsp;` as plain spaces, trimmed.
    static func clean(_ text: String) -> String {
        let spaced = text.map { character -> Character in
            character.isWhitespace ? " " : character
        }
        return String(spaced).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}

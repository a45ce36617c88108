import Foundation

/// Reads one page of SMTH's mobile site into a page model.
///
/// The markup is described in `shared/docs/smth-site.md`; the parser leans on
/// classes and link shapes, not on positions, so small template changes on
/// the forum do not silently lose data.
struct SMTHMobileParser {
    let page: FetchedPage

    func parse() throws(ArchiveError) -> ForumPage {
        if let profile = try UserProfileReader.json(page.body, url: page.url, contentType: page.contentType) {
            return .user(profile)
        }
        let document = try page.document(expected: "an SMTH mobile page")
        let list = Walk.list(document)
        if let list, let heading = Walk.heading(list) {
            let headingText = heading.text
            if headingText.hasPrefix("主题:") || headingText.hasPrefix("主题：") {
                return .thread(try parseThread(document, list: list, headingText: headingText))
            }
        }
        if let list, isBoardPage(document) {
            return .board(try parseBoard(document, list: list))
        }
        if let profile = parseUser(document) { return .user(profile) }
        if let sections = parseSections(document) { return .sections(sections) }
        if let hot = parseHot(document) { return .hot(hot) }
        if let message = forumMessage(in: document) {
            if message.contains("版面不存在") || message.contains("错误的版") {
                throw .unknownBoard(Self.boardName(inURL: page.url) ?? "?", message: message)
            }
            throw .forumError(url: page.url, message: message)
        }
        throw .notAForumPage(url: page.url, expected: "an SMTH mobile board or thread page")
    }

    // MARK: Board pages

    private func isBoardPage(_ document: HTMLDocument) -> Bool {
        if let menu = Walk.menu(document), menu.text.contains("版面-") {
            return true
        }
        return Walk.firstListedArticle(document) != nil
    }

    private func parseBoard(_ document: HTMLDocument, list: HTMLNode) throws(ArchiveError) -> BoardPage {
        var name: String?
        var title: String?
        if let menu = Walk.menu(document) {
            (title, name) = Self.breadcrumb(menu.text)
        }
        var threads: [ThreadSummary] = []
        var unread: [UnreadRow] = []
        var partly: [UnreadRow] = []
        for row in Walk.rows(list) {
            switch try parseRow(row) {
            case .thread(let board, let thread, let problem):
                if name == nil { name = board }
                threads.append(thread)
                if let problem { partly.append(problem) }
            case .unread(let problem):
                unread.append(problem)
            case nil:
                continue
            }
        }
        return BoardPage(
            board: name ?? Self.boardName(inURL: page.url) ?? "", title: title,
            page: pageInfo(document), threads: threads, unreadRows: unread, partlyReadRows: partly)
    }

    /// `首页|版面-地理(Geography)|...` → (`地理`, `Geography`).
    static func breadcrumb(_ text: String) -> (title: String?, name: String?) {
        guard let start = text.range(of: "版面-") else { return (nil, nil) }
        let rest = text[start.upperBound...]
        let segment = rest.prefix { $0 != "|" }
        guard let open = segment.lastIndex(of: "("), let close = segment.lastIndex(of: ")"), open < close else {
            return (String(segment), nil)
        }
        let title = String(segment[..<open])
        let name = String(segment[segment.index(after: open)..<close])
        return (title.isEmpty ? nil : title, name.isEmpty ? nil : name)
    }

    /// A list row: a thread, or one that links a thread but cannot be read
    /// (said, never skipped in silence); `nil` for a row that lists no
    /// thread (`不存在任何文章`).
    enum Row {
        /// A thread, and what of its row could not be read, if anything.
        case thread(board: String, ThreadSummary, partly: UnreadRow?)
        case unread(UnreadRow)
    }

    private func parseRow(_ row: HTMLNode) throws(ArchiveError) -> Row? {
        let cells = Walk.cells(row)
        guard let first = cells.first, let link = Walk.rowLink(first),
            let href = link.attribute("href"), let (board, gid) = Self.articlePath(href)
        else { return nil }
        // `(17)` after the title, wherever the link sits in the cell.
        let count = Self.replyCount(first.text, title: link.text)

        // `{postTime} {author}|{lastTime} {lastReplier}`; the author may be
        // the plain text 原帖已删除 when the first post was deleted.
        let halves = cells.count > 1 ? Self.timesAndNames(cells[1]) : []
        let (postedText, author) = halves.first ?? ("", nil)
        let (lastText, lastReplier) = halves.count > 1 ? halves[1] : ("", nil)
        let postedAt = try SMTHTimeParser.checked(postedText, fetchedAt: page.fetchedAt, url: page.url)
        guard let postedAt else {
            return .unread(UnreadRow(gid: gid, problem: "its time \"\(postedText)\" could not be read"))
        }
        var (lastReplyAt, problem) = try Self.lastReply(
            lastText, replier: lastReplier, postedAt: postedAt, count: count, gid: gid, fetchedAt: page.fetchedAt,
            url: page.url)
        if count?.exact != true {
            let after = HTMLWhitespace.field(String(Self.afterTitle(first.text, title: link.text)))
            let said = Self.countProblem(after, count, gid: gid)
            problem = problem.map { UnreadRow(gid: gid, problem: said.problem + "; " + $0.problem) } ?? said
        }
        let thread = ThreadSummary(
            gid: gid, title: HTMLWhitespace.field(link.text), replies: count?.least ?? 0,
            repliesExact: count?.exact ?? false, sticky: link.hasClass("top"), marked: link.hasClass("m"),
            author: author == Self.deletedAuthor ? nil : author,
            postedAt: postedAt, lastReplier: lastReplier, lastReplyAt: lastReplyAt)
        return .thread(board: board, thread, partly: problem)
    }

    /// A list row's last reply time, or its post time standing in for it.
    /// Only a row that shows no reply (its count exactly 0) and no last
    /// reply at all says nothing: the forum writes the post's time and
    /// author there, or nothing. Any other row without a time it can read
    /// (a time that cannot be read, a replier without one, replies without
    /// one, a count that is not exact or could not be read) says what stood
    /// in (`BoardPage.partlyReadRows`): the board list would show the
    /// post's time as the last reply's, in silence.
    static func lastReply(
        _ text: String, replier: String?, postedAt: Date, count: ReplyCount?, gid: Int, fetchedAt: Date,
        url: String
    ) throws(ArchiveError) -> (Date, UnreadRow?) {
        if let time = try SMTHTimeParser.checked(text, fetchedAt: fetchedAt, url: url) { return (time, nil) }
        guard !text.isEmpty || replier != nil || count != ReplyCount(least: 0, exact: true) else {
            return (postedAt, nil)
        }
        let what = text.isEmpty ? "its last reply has no time" : "its last reply's time \"\(text)\" could not be read"
        return (postedAt, UnreadRow(gid: gid, problem: what + "; its post time stands in"))
    }

    static let deletedAuthor = "原帖已删除"

    /// What a row's count that is not exact says: one that could not be
    /// read (`(2万)`, or none) has 0 standing in; one the forum rounds or
    /// caps (`(1.5k)`, `(17+)`) the least it can be. Kept, and said.
    static func countProblem(_ text: String, _ count: ReplyCount?, gid: Int) -> UnreadRow {
        let quoted = "\"\(text.prefix(40))\""
        guard let count else {
            let what = text.isEmpty ? "its reply count is missing" : "its reply count \(quoted) could not be read"
            return UnreadRow(gid: gid, problem: what + "; 0 stands in")
        }
        return UnreadRow(gid: gid, problem: "its reply count \(quoted) is not exact; at least \(count.least) stands in")
    }

    /// A row's reply count: the first bracketed count after its title
    /// (`(17)`, `（17）`, `(1,017)`, `(1.5k)`: `ReplyCount`), whatever comes
    /// between or after (an icon, `(图)`, a `[新]`).
    static func replyCount(_ cellText: String, title: String) -> ReplyCount? {
        var rest = afterTitle(cellText, title: title)
        while let open = rest.firstIndex(where: { $0 == "(" || $0 == "（" }) {
            let inside = rest[rest.index(after: open)...].prefix { $0 != ")" && $0 != "）" }
            if let count = ReplyCount.read(inside) { return count }
            rest = rest[inside.endIndex...]
        }
        return nil
    }

    /// What a row's first cell holds after its title, found as the row
    /// writes it: cut by bytes, without Foundation's search (every row of
    /// every list page asks).
    static func afterTitle(_ cellText: String, title: String) -> Substring {
        if !title.isEmpty, cellText.utf8.starts(with: title.utf8) {
            return cellText[cellText.utf8.index(cellText.utf8.startIndex, offsetBy: title.utf8.count)...]
        } else if !title.isEmpty, let range = cellText.range(of: title) {
            return cellText[range.upperBound...]
        }
        return Substring(cellText)
    }

    /// The halves of a row's second cell, `{time} {author}|{time} {replier}`,
    /// each as its time and name. A name is its user link's text where the
    /// half has one, so no space need stand between them (`2023-04-03` and
    /// a link to `Tom41` read as `2023-04-03Tom41`, a time with junk, when
    /// cut at the first space); the time is the first word before the link,
    /// so a word or badge around them (`by`, `[版主]`, `[北京]`) is no part
    /// of it. A half without a link (`原帖已删除`) is cut at its first space.
    /// Markup wrapped over lines reads as on one line.
    static func timesAndNames(_ cell: HTMLNode) -> [(time: String, name: String?)] {
        // The text before each half's link, as bytes (`|` is ASCII: it
        // never sits inside another character).
        var halves: [(before: [UInt8], name: String?)] = [([], nil)]
        func read(_ node: HTMLNode) {
            node.forEachChild { child in
                if child.isText {
                    child.withTextBytes { bytes in
                        for byte in bytes {
                            if byte == UInt8(ascii: "|") {
                                halves.append(([], nil))
                            } else if halves[halves.count - 1].name == nil {
                                // Text after the link is no part of the time;
                                // a line break in the markup is a space.
                                let space = byte == 0x0A || byte == 0x0D || byte == 0x09
                                halves[halves.count - 1].before.append(space ? 0x20 : byte)
                            }
                        }
                    }
                } else if child.isElement("a"), child.attribute("href", contains: "/user/query/") {
                    if halves[halves.count - 1].name == nil {
                        halves[halves.count - 1].name = HTMLWhitespace.field(child.text)
                    }
                } else if child.isElement {
                    read(child)
                }
                return true
            }
        }
        read(cell)
        return halves.map { half in
            let (time, rest) = timeAndName(normalizeSpaces(String(decoding: half.before, as: UTF8.self)))
            if let name = half.name, !name.isEmpty { return (time, name) }
            return (time, rest)
        }
    }

    private static func timeAndName(_ text: String) -> (String, String?) {
        var parts = splitOnce(SMTHTimeParser.rejoined(text), at: " ")
        var time = parts.first ?? ""
        // A date with its clock (`2023-04-14 15:31:48`) is one time.
        if parts.count > 1, time.contains("-") {
            let rest = splitOnce(parts[1], at: " ")
            if let clock = rest.first, clock.contains(":"),
                clock.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ":") })
            {
                time += " " + clock
                parts = [time] + rest.dropFirst()
            }
        }
        let name = parts.count > 1 ? HTMLWhitespace.trimmed(parts[1], newlines: true) : ""
        return (time, name.isEmpty ? nil : name)
    }

    // MARK: Thread pages

    private func parseThread(_ document: HTMLDocument, list: HTMLNode, headingText: String) throws(ArchiveError)
        -> ThreadPage
    {
        // Read as the list's row reads it (`HTMLWhitespace.field`), so the
        // two agree however either is wrapped.
        var title = HTMLWhitespace.field(headingText)
        for prefix in ["主题:", "主题："] where title.hasPrefix(prefix) {
            title = HTMLWhitespace.trimmed(String(title.dropFirst(prefix.count)), newlines: true)
        }
        var board = ""
        var gid = 0
        if let (b, g) = Self.articlePath(page.url) {
            (board, gid) = (b, g)
        } else if let href = Walk.authorFilterLink(document)?.attribute("href"), let (b, g) = Self.articlePath(href) {
            (board, gid) = (b, g)
        }
        var posts: [Post] = []
        var timeKnown: [Bool] = []
        let items = Walk.postItems(list)
        for item in items {
            let (post, known) = parsePost(item, previous: posts.last)
            posts.append(post)
            timeKnown.append(known)
        }
        SMTHTimeParser.fillUnreadTimes(&posts, known: timeKnown, fallback: page.fetchedAt)
        // Counted apart from the items read above: every post starts with
        // its `a[name=aN]` anchor.
        let anchors = Walk.postAnchors(list).count
        return ThreadPage(
            board: board, gid: gid, title: title, page: pageInfo(document), posts: posts,
            containers: max(anchors, items.count))
    }

    /// One post; what cannot be read is said in its warning, never a reason
    /// to drop it. Returns whether its time could be read.
    private func parsePost(_ item: HTMLNode, previous: Post?) -> (Post, Bool) {
        var problems: [String] = []
        let nav = Walk.nav(item)
        // The nav's labels, floor and time, each known by what it says, not
        // by its place: a label in a colour or in bold, or the time first,
        // once read the time as the floor (20260731152257).
        let labels = (nav.map(Walk.plants) ?? []).map { HTMLWhitespace.collapse($0.text) }
        let floors = labels.map(Self.floorNumber)
        var floor = floors.lazy.compactMap { $0 }.first
        if floor == nil, let anchor = Walk.anchor(item)?.attribute("name") {
            floor = Self.floorDigits(anchor)
        }
        if floor == nil { problems.append("its floor could not be read") }
        let author = nav.flatMap(Walk.author).map { HTMLWhitespace.collapse($0.text) } ?? ""
        if author.isEmpty { problems.append("its author could not be read") }
        let postedAt = zip(labels, floors).lazy.filter { $0.1 == nil }
            .compactMap { SMTHTimeParser.parse($0.0, fetchedAt: self.page.fetchedAt) }.first
        if postedAt == nil { problems.append("its time could not be read") }
        let number = floor ?? previous.map { $0.floor + 1 } ?? 0
        var body = PostBodyReader(baseURL: page.url)
        if let content = Walk.body(item) {
            body.read(content)
        }
        let result = body.finish()
        let post = Post(
            floor: number, author: author, postedAt: postedAt ?? page.fetchedAt, body: result.text,
            attachments: result.attachments, ip: result.ip, editedBy: result.editedBy, postID: Walk.postID(item),
            warning: problems.isEmpty ? nil : "floor \(number): " + problems.joined(separator: "; "),
            rawText: problems.isEmpty ? nil : HTMLWhitespace.collapse(item.text))
        return (post, postedAt != nil)
    }

    /// `/article/Test/post/700123` (or with a query) → 700123.
    static func postID(inReplyLink href: String) -> Int? {
        var href = href
        return href.withUTF8 { postID(inReplyLink: $0) }
    }

    /// The same, read from the address's bytes in place: asked of every
    /// link above every post.
    static func postID(inReplyLink bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let marker = postMarker
        guard bytes.count > marker.count else { return nil }
        var start = bytes.count - marker.count
        while start >= 0 {
            if bytes[start] == marker[0], (1..<marker.count).allSatisfy({ bytes[start + $0] == marker[$0] }) { break }
            start -= 1
        }
        guard start >= 0 else { return nil }
        var at = start + marker.count
        var value = 0
        while at < bytes.count, (0x30...0x39).contains(bytes[at]), at - start - marker.count < 18 {
            value = value * 10 + Int(bytes[at] - 0x30)
            at += 1
        }
        guard at > start + marker.count,
            at == bytes.count || bytes[at] == UInt8(ascii: "?") || bytes[at] == UInt8(ascii: "#")
        else { return nil }
        return value
    }

    private static let postMarker = Array("/post/".utf8)

    /// The ASCII digits of an anchor or a position (`a12`, `第12楼`) as a
    /// floor: nine digits at most, so no floor from a page is past counting.
    static func floorDigits(_ text: String) -> Int? {
        let digits = text.utf8.filter { (0x30...0x39).contains($0) }
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// A floor label's number: `楼主` is 0, `12楼` and `第12楼` are 12; `nil`
    /// for any other text (a time). The forum's own 楼主 (no character
    /// decomposes to either half) is found by its bytes, without Foundation.
    static func floorNumber(_ label: String) -> Int? {
        if ByteSearch.contains(label, "楼主") { return 0 }
        // By bytes (every post asks of two labels): 楼 is E6 A5 BC, 第 E7 AC AC.
        var bytes = label.utf8.filter { $0 != UInt8(ascii: " ") }[...]
        guard bytes.count > 3, bytes.suffix(3).elementsEqual([0xE6, 0xA5, 0xBC]) else { return nil }
        bytes = bytes.dropLast(3)
        if bytes.prefix(3).elementsEqual([0xE7, 0xAC, 0xAC]) { bytes = bytes.dropFirst(3) }
        guard !bytes.isEmpty, bytes.count <= 9, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    // MARK: Users

    /// `/user/query/{id}`: the breadcrumb says 用户-{id}; `昵称:` gives the nick.
    private func parseUser(_ document: HTMLDocument) -> UserProfile? {
        guard let menu = document.first("//div[\(XPath.hasClass("menu"))]"),
            let range = menu.text.range(of: "用户-")
        else { return nil }
        let id = String(menu.text[range.upperBound...].prefix { $0 != "|" && !$0.isWhitespace })
        guard !id.isEmpty else { return nil }
        var profile = UserProfile(id: id)
        for item in document.select("//ul[\(XPath.hasClass("list"))]/li") {
            let text = Self.normalizeSpaces(item.text)
            for (label, apply) in [
                ("昵称:", { (value: String) in profile.nick = value }),
                ("身份:", { (value: String) in profile.level = value }),
                ("文章:", { (value: String) in profile.posts = Int(value) }),
            ] where text.hasPrefix(label) {
                apply(String(text.dropFirst(label.count)))
            }
        }
        return profile
    }

    // MARK: Sections and hot topics

    /// `/section`: `li.f` section headings (`/section/{code}`), then the
    /// boards filed under each (`/board/{B}`, text `中文名(B)`).
    private func parseSections(_ document: HTMLDocument) -> SectionPage? {
        let items = document.select("//ul[\(XPath.hasClass("slist"))]/li")
        guard items.contains(where: { $0.first("a[contains(@href, '/section/')]") != nil }) else { return nil }
        var sections: [SectionPage.Entry] = []
        var titles: [String: String] = [:]
        // Boards belong to the last heading (`li.f`); a 目录 row inside a
        // section only names a nested section, listed under its own heading.
        var current: Int?
        for item in items {
            if let link = item.first("a[contains(@href, '/section/')]"), let href = link.attribute("href") {
                let code = String(href.split(separator: "/").last ?? "")
                var name = Self.normalizeSpaces(link.text)
                if name.hasPrefix(code + " ") { name = String(name.dropFirst(code.count + 1)) }
                let heading = item.hasClass("f")
                let parent = heading ? nil : current.map { sections[$0].code }
                if let known = sections.firstIndex(where: { $0.code == code }) {
                    if sections[known].parent == nil { sections[known].parent = parent }
                    if heading { current = known }
                } else {
                    sections.append(.init(code: code, name: name, parent: parent, boards: []))
                    if heading { current = sections.count - 1 }
                }
            } else if let link = item.first("a[contains(@href, '/board/')]"), let href = link.attribute("href"),
                let board = Self.boardName(inURL: href), let current
            {
                sections[current].boards.append(board)
                let text = Self.normalizeSpaces(link.text)
                titles[board] = text.hasSuffix("(\(board))") ? String(text.dropLast(board.count + 2)) : text
            }
        }
        return SectionPage(sections: sections, boardTitles: titles)
    }

    /// `/hot`: links to threads, each `title(replies)`.
    private func parseHot(_ document: HTMLDocument) -> HotTopicsPage? {
        guard document.first("//ul[\(XPath.hasClass("list"))]") == nil else { return nil }
        let links = document.select("//ul[\(XPath.hasClass("slist"))]/li//a[contains(@href, '/article/')]")
        guard !links.isEmpty else { return nil }
        let topics = links.compactMap { link -> HotTopicsPage.Topic? in
            guard let href = link.attribute("href"), let (board, gid) = Self.articlePath(href) else { return nil }
            var title = Self.normalizeSpaces(link.text)
            var replies: Int?
            // Read as a list row's count is (any digits, `1.2k`).
            if let (count, before) = ReplyCount.bracketed(title) {
                replies = count.least
                title = String(before)
            }
            return HotTopicsPage.Topic(board: board, gid: gid, title: title, replies: replies)
        }
        return HotTopicsPage(topics: topics)
    }

    // MARK: Shared

    /// The first `a.plant` reading `cur/total`; a page without one is page 1 of 1.
    private func pageInfo(_ document: HTMLDocument) -> PageInfo {
        var info = PageInfo(current: 1, total: 1)
        _ = document.firstElement { plant in
            guard Walk.isPager(plant) else { return false }
            let parts = plant.text.split(separator: "/")
            guard parts.count == 2, let current = Int(parts[0]), let total = Int(parts[1]) else { return false }
            info = PageInfo(current: current, total: max(total, current))
            return true
        }
        return info
    }

    /// The forum's own message on an error page (`div.sp.hl.f` and friends).
    private func forumMessage(in document: HTMLDocument) -> String? {
        let candidates = document.select("//div[@id='m_main']//div[\(XPath.hasClass("sp"))]")
        for node in candidates {
            let text = node.text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { return text }
        }
        return nil
    }

    /// `/article/Geography/535772?p=2` → (`Geography`, 535772).
    static func articlePath(_ href: String) -> (String, Int)? {
        guard let range = ByteSearch.range(of: "/article/", in: href) else { return nil }
        let rest = href[range.upperBound...]
        if rest.utf8.allSatisfy({ $0 < 0x80 }) {
            // The same parts by bytes: in ASCII a character is a byte, and
            // only 0-9 are numbers.
            let parts = rest.utf8.split(separator: UInt8(ascii: "/"), maxSplits: 2)
            guard parts.count >= 2 else { return nil }
            let digits = parts[1].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard let gid = Int(Substring(digits)) else { return nil }
            return (percentDecoded(Substring(parts[0])), gid)
        }
        let parts = rest.split(separator: "/")
        guard parts.count >= 2 else { return nil }
        let digits = parts[1].prefix { $0.isNumber }
        guard let gid = Int(digits) else { return nil }
        return (percentDecoded(parts[0]), gid)
    }

    /// `/board/Geography?p=2` → `Geography`.
    static func boardName(inURL url: String) -> String? {
        for marker in ["/board/", "/article/"] {
            guard let range = url.range(of: marker) else { continue }
            let name = url[range.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            if !name.isEmpty { return percentDecoded(name) }
        }
        return nil
    }

    /// `removingPercentEncoding`, asked only of text that has a `%`.
    private static func percentDecoded(_ text: Substring) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        return String(text).removingPercentEncoding ?? String(text)
    }

    /// `text.split(separator:maxSplits: 1)` as strings. By bytes when the
    /// text is ASCII, where a character is a byte (CR LF is one character,
    /// but neither is a separator here): a list row asks this three times,
    /// and by characters that was 12 % of a fetch that found one reply.
    static func splitOnce(_ text: String, at separator: Character) -> [String] {
        guard let byte = separator.asciiValue, text.utf8.allSatisfy({ $0 < 0x80 }) else {
            return text.split(separator: separator, maxSplits: 1).map(String.init)
        }
        return text.utf8.split(separator: byte, maxSplits: 1).map { String(Substring($0)) }
    }

    static func normalizeSpaces(_ text: String) -> String {
        HTMLWhitespace.trimmed(HTMLWhitespace.plainSpaces(text), newlines: true)
    }
}

extension SMTHMobileParser {
    /// The questions the parser asks of thread and board pages, as walks of
    /// the tree: each gives the same nodes as the XPath expression beside it
    /// (`xpath`), which ParserWalkTests checks on real and replica pages.
    enum Walk {
        /// `//ul[hasClass(list)]`, the first.
        static func list(_ document: HTMLDocument) -> HTMLNode? {
            document.firstElement { $0.isElement("ul") && $0.hasClass("list") }
        }

        /// `li[hasClass(f)]`, the first, from the list.
        static func heading(_ list: HTMLNode) -> HTMLNode? {
            list.firstChild { $0.isElement("li") && $0.hasClass("f") }
        }

        /// `//div[hasClass(menu)]`, the first.
        static func menu(_ document: HTMLDocument) -> HTMLNode? {
            document.firstElement { $0.isElement("div") && $0.hasClass("menu") }
        }

        /// `//ul[hasClass(list)]/li/div/a[starts-with(@href, '/article/')]`, the first.
        static func firstListedArticle(_ document: HTMLDocument) -> HTMLNode? {
            var found: HTMLNode?
            _ = document.firstElement { list in
                guard list.isElement("ul"), list.hasClass("list") else { return false }
                for item in list.children(where: { $0.isElement("li") }) {
                    for cell in item.children(where: { $0.isElement("div") }) {
                        found = cell.firstChild { $0.isElement("a") && $0.attribute("href", hasPrefix: "/article/") }
                        if found != nil { return true }
                    }
                }
                return false
            }
            return found
        }

        /// `li`, from the list.
        static func rows(_ list: HTMLNode) -> [HTMLNode] { list.children { $0.isElement("li") } }

        /// `div`, from a row.
        static func cells(_ row: HTMLNode) -> [HTMLNode] { row.children { $0.isElement("div") } }

        /// `.//a[starts-with(@href, '/article/') or contains(@href, '/article/')]`, the first, from
        /// a cell: the link may sit in a colour's `<font>`.
        static func rowLink(_ cell: HTMLNode) -> HTMLNode? {
            cell.firstDescendant { $0.isElement("a") && $0.attribute("href", contains: "/article/") }
        }

        /// `//a[contains(@href, '?au=')]`, the first.
        static func authorFilterLink(_ document: HTMLDocument) -> HTMLNode? {
            document.firstElement { $0.isElement("a") && $0.attribute("href", contains: "?au=") }
        }

        /// `li[div[hasClass(nav)]]`, from the list: the posts.
        static func postItems(_ list: HTMLNode) -> [HTMLNode] {
            list.children { item in
                item.isElement("li") && item.firstChild { $0.isElement("div") && $0.hasClass("nav") } != nil
            }
        }

        /// `li/a[starts-with(@name, 'a')]`, from the list: the posts' anchors.
        static func postAnchors(_ list: HTMLNode) -> [HTMLNode] {
            rows(list).flatMap { $0.children { $0.isElement("a") && $0.attribute("name", hasPrefix: "a") } }
        }

        /// The post's own id, from its reply link (`/article/B/post/ID`) in
        /// the nav above it: only a reader who is logged in is shown one,
        /// and it is the only place the id shows.
        static func postID(_ item: HTMLNode) -> Int? {
            for box in item.children(where: { $0.isElement("div") && $0.hasClass("nav") }) {
                var found: Int?
                _ = box.firstDescendant { link in
                    guard link.isElement("a") else { return false }
                    found = link.withAttribute("href") { $0.flatMap(SMTHMobileParser.postID(inReplyLink:)) }
                    return found != nil
                }
                if let found { return found }
            }
            return nil
        }

        /// `div[hasClass(nav)]/div`, the first, from a post.
        static func nav(_ item: HTMLNode) -> HTMLNode? {
            for box in item.children(where: { $0.isElement("div") && $0.hasClass("nav") }) {
                if let inner = box.firstChild(where: { $0.isElement("div") }) { return inner }
            }
            return nil
        }

        /// `.//*[hasClass(plant)]`, from the nav: the floor and the time, in
        /// whatever markup (`<b>`, a colour's `<font>`) or order.
        static func plants(_ nav: HTMLNode) -> [HTMLNode] {
            nav.descendants { $0.hasClass("plant") }
        }

        /// `a[starts-with(@name, 'a')]`, the first, from a post.
        static func anchor(_ item: HTMLNode) -> HTMLNode? {
            item.firstChild { $0.isElement("a") && $0.attribute("name", hasPrefix: "a") }
        }

        /// `.//a[contains(@href, '/user/query/')]`, the first, from the nav
        /// (it may sit in a colour's `<font>`).
        static func author(_ nav: HTMLNode) -> HTMLNode? {
            nav.firstDescendant { $0.isElement("a") && $0.attribute("href", contains: "/user/query/") }
        }

        /// `div[hasClass(sp)]`, the first, from a post.
        static func body(_ item: HTMLNode) -> HTMLNode? {
            item.firstChild { $0.isElement("div") && $0.hasClass("sp") }
        }

        /// Whether an element is one of `//a[hasClass(plant)]`.
        static func isPager(_ element: HTMLNode) -> Bool { element.isElement("a") && element.hasClass("plant") }
    }
}

/// XPath snippets.
enum XPath {
    /// A predicate true when the context node has `name` among its classes.
    static func hasClass(_ name: String) -> String {
        "contains(concat(' ', normalize-space(@class), ' '), ' \(name) ')"
    }
}

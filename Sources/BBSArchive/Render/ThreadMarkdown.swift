import Foundation

/// The Markdown copy of a thread: title, then each post with its floor,
/// author and time, its text, quotes as `>` blocks, and its attachments.
enum ThreadMarkdown {
    static func render(
        thread: StoredThread, boardTitle: String, posts: [StoredPost], bodies: [PostBody]? = nil, original: String?,
        forum: ForumProfile, strings: SiteStrings, mediaLink: (String) -> String?
    ) -> String {
        document(
            thread: thread, boardTitle: boardTitle, posts: posts, bodies: bodies, original: original, forum: forum,
            strings: strings, mediaLink: mediaLink
        ).render()
    }

    /// The copy as a cmark document, for a caller that writes its bytes
    /// where cmark renders them (`MarkdownDocument.withRendered`).
    static func document(
        thread: StoredThread, boardTitle: String, posts: [StoredPost], bodies: [PostBody]? = nil, original: String?,
        forum: ForumProfile, strings: SiteStrings, mediaLink: (String) -> String?
    ) -> MarkdownDocument {
        let document = MarkdownDocument()
        document.heading(1, [.text(thread.title)])
        let from = SitePaths.threadMarkdown(thread.board, gid: thread.gid)
        var about: [MarkdownDocument.Inline] = [
            .link(url: SitePaths.relative(from: from, to: SitePaths.boardMarkdown(thread.board)), text: boardTitle),
            .text(" (\(thread.board)) · " + strings.threadPosts(String(posts.count))),
        ]
        if let original {
            about += [.text(" · "), .link(url: original, text: strings.original)]
        }
        document.paragraph(about)
        for (index, post) in posts.enumerated() {
            document.rule()
            document.heading(
                2,
                [
                    .text(
                        "\(post.floor == 0 ? strings.firstFloor : strings.floor(String(post.floor))) · \(post.author)\(post.nick.map { " (\($0))" } ?? "") · \(forum.time.display(post.postedAt))"
                    )
                ])
            if let deleted = post.forumDeletedAt {
                document.paragraph([
                    .emphasis(strings.forumDeleted(String(forum.time.display(deleted).prefix(16))))
                ])
            }
            let body =
                bodies.flatMap { index < $0.count ? $0[index] : nil }
                ?? PostNormalizer.normalize(post.body, conventions: forum.conventions)
            for block in body.blocks {
                switch block {
                case .text(let lines):
                    paragraphs(lines, into: document)
                case .quote(let header, _, let lines):
                    document.quote(
                        header: header.map(InlineText.plain),
                        lines: lines.lazy.map {
                            InlineText.plain(
                                $0.depth > 1 ? String(repeating: ": ", count: $0.depth - 1) + $0.text : $0.text)
                        })
                }
            }
            for attachment in post.attachments {
                let size = attachment.size.map { " (\($0))" } ?? ""
                if let local = mediaLink(attachment.url) {
                    if attachment.kind == .image {
                        document.paragraph([.image(url: local, alt: attachment.name)])
                    } else {
                        document.paragraph([
                            .text(strings.attachment), .link(url: local, text: attachment.name), .text(size),
                        ])
                    }
                } else {
                    let original: MarkdownDocument.Inline =
                        SafeLink.external(attachment.url).map { .link(url: $0, text: attachment.name) }
                        ?? .text(attachment.name)
                    document.paragraph([.text(strings.attachmentUnarchived), original, .text(size)])
                }
            }
            if let signature = post.signature, !signature.isEmpty {
                document.paragraph([.text("--")])
                document.paragraph(
                    lines: signature.split(separator: "\n", omittingEmptySubsequences: false).lazy.map {
                        InlineText.plain(String($0))
                    })
            }
            if !post.likes.isEmpty {
                document.list(
                    post.likes.map { like in
                        [
                            .text(
                                "[\(like.score > 0 ? "+" : "")\(like.score == 0 ? "" : String(like.score))] \(like.user): \(like.message)"
                            )
                        ]
                    })
            }
            var origin: [String] = []
            if let editor = post.editedBy { origin.append(strings.editedBy(editor)) }
            if let ip = post.ip { origin.append("FROM \(ip)") }
            if !origin.isEmpty { document.paragraph([.emphasis(origin.joined(separator: " · "))]) }
        }
        return document
    }

    /// The paragraphs of `lines`, which blank lines separate, each kept as
    /// lines with hard breaks, into `document`.
    private static func paragraphs(_ lines: [String], into document: MarkdownDocument) {
        var start: Int?
        for (index, line) in lines.enumerated() {
            if line.isBlankLine {
                if let first = start { document.paragraph(lines: lines[first..<index].lazy.map(InlineText.plain)) }
                start = nil
            } else if start == nil {
                start = index
            }
        }
        if let first = start { document.paragraph(lines: lines[first...].lazy.map(InlineText.plain)) }
    }
}

/// The Markdown index of a board, paged like its HTML list, so that a
/// reply rewrites only the pages whose rows changed: `index.md`, the
/// latest activity (sticky first) with the board's figures and links to
/// the pages by start; `page-N.md`, the threads of `page-N.html`, newest
/// first, linking the pages either side (no count of pages, which would
/// change them all when a page is added).
enum BoardMarkdown {
    static func latest(
        board: StoredBoard, threads: [StoredThread], pages: Int, forum: ForumProfile, strings: SiteStrings
    ) -> String {
        let document = MarkdownDocument()
        document.heading(1, [.text("\(board.title ?? board.name) (\(board.name))")])
        let from = SitePaths.boardMarkdown(board.name)
        document.paragraph([
            .text(strings.boardFigures(String(board.threadCount), String(board.postCount)) + " · "),
            .link(url: SitePaths.relative(from: from, to: SitePaths.markdownHome), text: strings.allBoards),
        ])
        list(threads, board: board.name, from: from, forum: forum, strings: strings, into: document)
        // The first page and the newest ones, as the HTML pager offers them.
        var links: [MarkdownDocument.Inline] = [.text(strings.byStart)]
        var shown = 0
        for number in Set([1]).union(Pager.numbers(current: pages, total: pages)).sorted() {
            links.append(.text(number == 1 ? " " : number == shown + 1 ? " · " : " … "))
            links.append(
                .link(
                    url: SitePaths.relative(from: from, to: SitePaths.boardMarkdown(board.name, page: number)),
                    text: strings.page(String(number))))
            shown = number
        }
        document.paragraph(links)
        return document.render()
    }

    /// Page `number` by start: `threads` as `page-N.html` lists them.
    static func page(
        board: StoredBoard, number: Int, isLast: Bool, threads: [StoredThread], forum: ForumProfile,
        strings: SiteStrings
    ) -> String {
        let document = MarkdownDocument()
        document.heading(1, [.text("\(board.title ?? board.name) (\(board.name)) · " + strings.page(String(number)))])
        let from = SitePaths.boardMarkdown(board.name, page: number)
        func link(_ to: String, _ text: String) -> MarkdownDocument.Inline {
            .link(url: SitePaths.relative(from: from, to: to), text: text)
        }
        var links = [link(SitePaths.boardMarkdown(board.name), strings.latest)]
        if number > 1 {
            links += [.text(" · "), link(SitePaths.boardMarkdown(board.name, page: number - 1), strings.earlier)]
        }
        if !isLast {
            links += [.text(" · "), link(SitePaths.boardMarkdown(board.name, page: number + 1), strings.later)]
        }
        links += [.text(" · "), link(SitePaths.markdownHome, strings.allBoards)]
        document.paragraph(links)
        list(threads, board: board.name, from: from, forum: forum, strings: strings, into: document)
        return document.render()
    }

    private static func list(
        _ threads: [StoredThread], board: String, from: String, forum: ForumProfile, strings: SiteStrings,
        into document: MarkdownDocument
    ) {
        guard !threads.isEmpty else { return }
        document.list(
            threads.map { thread in
                [
                    .link(
                        url: SitePaths.relative(from: from, to: SitePaths.threadMarkdown(board, gid: thread.gid)),
                        text: thread.title),
                    .text(
                        " · \(thread.author ?? forum.wording.deletedAuthor) · \(SiteBuilder.threadStart(thread, time: forum.time))"
                            + " · " + strings.replies(String(thread.replies))
                    ),
                ]
            })
    }
}

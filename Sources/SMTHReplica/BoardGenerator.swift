import Foundation

/// A board after generation, with the look-ups the server needs.
final class GeneratedBoard: Sendable {
    let board: ReplicaBoard
    /// gid → index into `board.threads`.
    let threadIndexByGid: [Int: Int]
    /// "{postId}/{pos}" → attachment.
    let attachmentsByKey: [String: ReplicaAttachment]

    init(board: ReplicaBoard) {
        self.board = board
        var byGid = [Int: Int]()
        var attachments = [String: ReplicaAttachment]()
        for (index, thread) in board.threads.enumerated() {
            byGid[thread.gid] = index
            for post in thread.posts {
                for attachment in post.attachments {
                    attachments[Self.key(postID: post.id, pos: attachment.pos)] = attachment
                }
            }
        }
        threadIndexByGid = byGid
        attachmentsByKey = attachments
    }

    static func key(postID: Int, pos: Int) -> String {
        "\(postID)/\(pos)"
    }

    func thread(gid: Int) -> ReplicaThread? {
        threadIndexByGid[gid].map { board.threads[$0] }
    }
}

/// Builds one board from the forum config and the board's index. Every random
/// choice comes from a generator seeded with (seed, board index), so a board
/// can be generated alone, at any time, with the same result.
struct BoardGenerator {
    let config: ReplicaConfig
    let users: UserPool
    let boardIndex: Int
    let name: String
    let title: String

    /// The part each thread plays; the roles guarantee the cases an archiver
    /// must handle are on every board, whatever the seed.
    private enum Role {
        case sticky
        /// First post and last reply both today, so on page 1 with `HH:MM:SS` times.
        case todayOnly
        /// More than 10 posts (several thread pages), last reply today.
        case long
        /// Started earlier, last reply today.
        case activeToday
        /// Floor 0 deleted; listed with 原帖已删除.
        case deletedFirst
        case ordinary
    }

    /// A post before it has an id and a body.
    private struct Draft {
        var thread: Int
        /// Floor, counting the deleted first post.
        var floor: Int
        var time: Int64
        var author: String
        var id = 0
    }

    private struct PostRef: Hashable {
        var thread: Int
        var floor: Int
    }

    private static let day: Int64 = 86_400

    func generate() -> GeneratedBoard {
        var rng = SeededRandom(seed: config.seed, stream: 0x1_0000 + UInt64(max(0, boardIndex)))
        let threadCount = max(0, config.threadsPerBoard)
        let maxPosts = max(1, config.maxPostsPerThread)
        let now = BeijingClock.seconds(config.now)
        let todayStart = BeijingClock.startOfDay(now)
        let windowStart = now - 60 * Self.day

        let roles = Self.roles(threadCount: threadCount, maxPosts: maxPosts)
        let moderators = [users.random(using: &rng), users.random(using: &rng)]

        // 1. Shape and timing of every thread.
        var drafts = [[Draft]]()
        drafts.reserveCapacity(threadCount)
        for (t, role) in roles.enumerated() {
            var total: Int
            var first: Int64
            var last: Int64
            switch role {
            case .sticky:
                total = rng.int(1...min(maxPosts, 5))
                last = rng.int64(from: windowStart, to: max(windowStart, now - 20 * Self.day))
                first = max(windowStart, last - rng.int64(from: 0, to: 10 * Self.day))
            case .todayOnly:
                total = rng.int(from: min(2, maxPosts), to: min(maxPosts, 6))
                first = rng.int64(from: todayStart, to: now)
                last = rng.int64(from: first, to: now)
            case .long:
                total = maxPosts
                last = rng.int64(from: todayStart, to: now)
                first = max(windowStart, last - rng.int64(from: 3600, to: 10 * Self.day))
            case .activeToday:
                total = Self.skewedCount(maxPosts, &rng)
                last = rng.int64(from: todayStart, to: now)
                first = max(windowStart, last - rng.int64(from: 600, to: 10 * Self.day))
            case .deletedFirst:
                // One more than the visible posts: the deleted first post.
                total = rng.int(from: min(3, maxPosts), to: min(maxPosts, 8)) + 1
                last = rng.int64(from: windowStart, to: todayStart - 1)
                first = max(windowStart, last - rng.int64(from: 0, to: 15 * Self.day))
            case .ordinary:
                total = Self.skewedCount(maxPosts, &rng)
                last = rng.int64(from: windowStart, to: todayStart - 1)
                first = max(windowStart, last - rng.int64(from: 0, to: 15 * Self.day))
            }
            if total == 1 { first = last }

            var times = [first]
            if total > 2 {
                times += (0..<(total - 2)).map { _ in rng.int64(from: first, to: last) }.sorted()
            }
            if total > 1 { times.append(last) }

            let starter = role == .sticky ? rng.pick(moderators, or: "SYSOP") : users.random(using: &rng)
            var thread = [Draft]()
            thread.reserveCapacity(total)
            for floor in 0..<total {
                // The starter often answers in their own thread, which gives ?au= something to filter.
                let author = floor == 0 || rng.chance(0.2) ? starter : users.random(using: &rng)
                thread.append(Draft(thread: t, floor: floor, time: times[floor], author: author))
            }
            drafts.append(thread)
        }

        // 2. Ids follow posting time across the whole board, so threads interleave
        //    as on a real board; small gaps stand for posts deleted elsewhere.
        var order = drafts.flatMap { $0 }
        order.sort { ($0.time, $0.thread, $0.floor) < ($1.time, $1.thread, $1.floor) }
        var nextID = 100_000 + rng.below(900)
        for draft in order {
            nextID += rng.int(1...3)
            drafts[draft.thread][draft.floor].id = nextID
        }

        // 3. Which posts carry the special cases.
        var visible = [PostRef]()
        for (t, thread) in drafts.enumerated() {
            let skip = roles[t] == .deletedFirst ? 1 : 0
            for floor in skip..<thread.count { visible.append(PostRef(thread: t, floor: floor)) }
        }
        let longThread = roles.firstIndex(of: .long)
        let todayThread = roles.firstIndex(of: .todayOnly)
        let showcase = longThread ?? todayThread
        let scriptPost: PostRef? = showcase.map { PostRef(thread: $0, floor: 0) } ?? visible.first
        var attachmentOnlyPost: PostRef?
        if let t = showcase, drafts[t].count > 1 {
            attachmentOnlyPost = PostRef(thread: t, floor: 1)
        } else {
            attachmentOnlyPost = visible.first { $0 != scriptPost }
        }
        // The same for the cases added with nForum; each exists once per board
        // whatever the seed, on a post that has text.
        let textPosts = visible.filter { $0 != attachmentOnlyPost }
        let emptyQuotePost = textPosts.first { $0.floor > 0 }
        let colourPost = textPosts.isEmpty ? nil : textPosts[textPosts.count * 3 / 4]
        let ubbPost = textPosts.isEmpty ? nil : textPosts[textPosts.count / 5]
        let manyLikesPost = textPosts.isEmpty ? nil : textPosts[textPosts.count / 4]
        var sharedImagePosts = Set<PostRef>()
        if visible.count >= 3 {
            for ref in [visible[visible.count / 3], visible[visible.count * 2 / 3]] where ref != attachmentOnlyPost {
                sharedImagePosts.insert(ref)
            }
        }
        let filePost = visible.isEmpty ? nil : visible[visible.count / 2]
        // Text drawn for a terminal (box drawing, aligned columns, ANSI
        // art): once per board whatever the seed, now and then elsewhere.
        let artPost = textPosts.isEmpty ? nil : textPosts[textPosts.count * 2 / 5]

        // Two patterns that several posts share byte for byte, so an archive's
        // content-addressed store sees duplicates.
        let sharedPatterns = [ImagePattern.random(using: &rng), ImagePattern.random(using: &rng)]
        let sharedPNGs = sharedPatterns.map { $0.png() }

        // Decorations added with nForum (colours, UBB, likes, edit times) draw
        // from a stream of their own, so the posts, times and attachments a
        // seed gave before stay as they were.
        var deco = SeededRandom(seed: config.seed, stream: 0x2_0000 + UInt64(max(0, boardIndex)))
        // The variants real pages showed later (issue 15: colours on the
        // 来源 and 修改 lines, quotes without a space, re-indented pages)
        // draw from a third stream, for the same reason.
        var variant = SeededRandom(seed: config.seed, stream: 0x3_0000 + UInt64(max(0, boardIndex)))
        // Terminal art (issue 11) draws from a fourth.
        var art = SeededRandom(seed: config.seed, stream: 0x4_0000 + UInt64(max(0, boardIndex)))
        let todayPosts = order.filter { $0.time >= todayStart }.count

        // 4. Titles and bodies.
        var threads = [ReplicaThread]()
        threads.reserveCapacity(threadCount)
        var stickyNumber = 0
        for (t, thread) in drafts.enumerated() {
            let role = roles[t]
            guard let head = thread.first else { continue }
            let titleText: String
            if role == .sticky {
                let template = TextCorpus.stickyTitles[stickyNumber % TextCorpus.stickyTitles.count]
                titleText = template.replacingOccurrences(of: "{B}", with: name)
                stickyNumber += 1
            } else if role == .todayOnly || rng.chance(0.04) {
                titleText = rng.pick(TextCorpus.markupTitles, or: "&")
            } else {
                titleText = rng.pick(TextCorpus.titles, or: "无题")
            }

            let deleted = role == .deletedFirst
            var posts = [ReplicaPost]()
            posts.reserveCapacity(thread.count)
            for draft in thread where !(deleted && draft.floor == 0) {
                let ref = PostRef(thread: t, floor: draft.floor)
                var lines = [String]()
                var attachments = [ReplicaAttachment]()
                var pos = 400 + rng.below(1200)
                func attach(name: String, bytes: Data, image: ImagePattern?) {
                    attachments.append(
                        ReplicaAttachment(
                            name: name,
                            path: "/att/\(self.name)/\(draft.id)/\(pos)",
                            isImage: image != nil,
                            bytes: bytes,
                            sizeText: Self.sizeText(bytes.count),
                            image: image,
                            pos: pos))
                    // The next attachment starts after this one in the post file.
                    pos += bytes.count + 64 + rng.below(64)
                }
                func attachImage(_ pattern: ImagePattern, bytes: Data? = nil) {
                    let template = rng.pick(TextCorpus.imageNames, or: "IMG_{n}.png")
                    let fileName = template.replacingOccurrences(of: "{n}", with: String(rng.int(1000...9999)))
                    attach(name: fileName, bytes: bytes ?? pattern.png(), image: pattern)
                }

                if ref == attachmentOnlyPost {
                    attachImage(ImagePattern.random(using: &rng))
                } else {
                    if draft.floor > 0, rng.chance(1.0 / 3.0) {
                        lines += quoteBlock(thread: thread, before: draft.floor, posts: posts, rng: &rng)
                    }
                    lines += bodyLines(rng: &rng)
                    if ref == scriptPost {
                        lines.insert(TextCorpus.scriptLine, at: min(1, lines.count))
                    }
                    decorate(
                        &lines, colour: ref == colourPost, ubb: ref == ubbPost,
                        emptyQuote: ref == emptyQuotePost ? thread[max(0, draft.floor - 1)].author : nil,
                        rng: &deco)
                    if ref == artPost || art.chance(1.0 / 60.0) {
                        let piece = ref == artPost ? TextCorpus.artPieces[0] : art.pick(TextCorpus.artPieces, or: [])
                        lines += [""] + piece
                    }
                    if sharedImagePosts.contains(ref) {
                        attachImage(sharedPatterns[0], bytes: sharedPNGs[0])
                    } else if rng.chance(1.0 / 6.0) {
                        for _ in 0..<rng.int(1...2) {
                            if rng.chance(0.06) {
                                let k = rng.below(sharedPatterns.count)
                                attachImage(sharedPatterns[k], bytes: sharedPNGs[k])
                            } else {
                                attachImage(ImagePattern.random(using: &rng))
                            }
                        }
                    }
                    if ref == filePost || rng.chance(1.0 / 40.0) {
                        let file = rng.pick(TextCorpus.fileNames, or: ("file.bin", false))
                        attach(name: file.name, bytes: fileBytes(text: file.text, rng: &rng), image: nil)
                    }
                }

                let ip = "\(rng.int(1...223)).\(rng.int(0...255)).\(rng.int(0...255)).*"
                let editedBy = rng.chance(0.12) ? draft.author : nil
                // Edited a minute to two days later, never after "now".
                let editedAt = editedBy.map { _ in
                    Date(
                        timeIntervalSince1970: TimeInterval(
                            max(draft.time + 1, min(now, draft.time + deco.int64(from: 60, to: 2 * Self.day)))))
                }
                // Some quotes are written `:text`, without the space.
                if variant.chance(0.3) {
                    lines = lines.map { $0.hasPrefix(": ") ? ":" + $0.dropFirst(2) : $0 }
                }
                let originColour = Self.fontClass(variant.int(0...17))
                let editColour = Self.fontClass(variant.int(0...17))
                var likeCount = 0
                if ref == manyLikesPost {
                    likeCount = deco.int(20...40)
                } else if deco.chance(0.08) {
                    likeCount = deco.int(1...6)
                }
                posts.append(
                    ReplicaPost(
                        id: draft.id,
                        floor: draft.floor,
                        author: draft.author,
                        postedAt: Date(timeIntervalSince1970: TimeInterval(draft.time)),
                        lines: lines,
                        attachments: attachments,
                        ip: ip,
                        editedBy: editedBy,
                        nick: users.nick(of: draft.author),
                        title: draft.floor == 0 ? titleText : Self.replyTitle(titleText),
                        signature: users.signature(of: draft.author),
                        editedAt: editedAt,
                        likes: likes(count: likeCount, after: draft.time, now: now, rng: &deco),
                        originColour: originColour, editColour: editColour))
            }

            let reindented = variant.chance(0.3)
            threads.append(
                ReplicaThread(
                    gid: head.id,
                    title: titleText,
                    sticky: role == .sticky,
                    firstPostDeleted: deleted,
                    posts: posts,
                    reindented: reindented,
                    deletedFirstPost: deleted
                        ? (head.author, Date(timeIntervalSince1970: TimeInterval(head.time))) : nil))
        }

        // 5. Listing order: sticky first, then by last activity, newest first.
        threads.sort(by: ReplicaBoard.listingOrder)
        var board = ReplicaBoard(name: name, title: title, threads: threads)
        board.moderators = moderators
        board.todayPosts = todayPosts
        return GeneratedBoard(board: board)
    }

    /// `f000`…`f017`: no background, foreground `n`.
    static func fontClass(_ n: Int) -> String {
        "f0" + (n < 10 ? "0" : "") + String(n)
    }

    /// `Re: {title}` for a reply, without piling up `Re: Re: `.
    static func replyTitle(_ title: String) -> String {
        title.hasPrefix("Re: ") ? title : "Re: " + title
    }

    /// Adds the text features of real posts that nForum shows and the mobile
    /// site flattens: ANSI colours, UBB tags and bare URLs, characters beyond
    /// GBK, and (once a board) a quote header with nothing quoted under it.
    private func decorate(
        _ lines: inout [String], colour: Bool, ubb: Bool, emptyQuote quotedAuthor: String?,
        rng: inout SeededRandom
    ) {
        // New lines go after a leading quote block, among the post's own text.
        let quoteEnd = lines.firstIndex { !($0.hasPrefix("【 在 ") || $0.hasPrefix(": ")) } ?? lines.count
        func insert(_ line: String) {
            lines.insert(line, at: rng.int(from: quoteEnd, to: lines.count))
        }
        if colour || rng.chance(1.0 / 8.0) {
            for _ in 0..<rng.int(1...2) {
                let template = rng.pick(TextCorpus.colourLines, or: "")
                insert(template.replacingOccurrences(of: "{s}", with: rng.pick(TextCorpus.chineseSentences, or: "")))
            }
        }
        if ubb || rng.chance(0.06) {
            insert(rng.pick(TextCorpus.ubbLines, or: ""))
        }
        if rng.chance(0.02) {
            insert(rng.pick(TextCorpus.beyondGBKLines, or: ""))
        }
        if let quotedAuthor {
            if quoteEnd > 0 {
                // Keep the header, drop what it quoted.
                lines.removeSubrange(1..<quoteEnd)
            } else {
                lines.insert("【 在 \(quotedAuthor) (\(users.nick(of: quotedAuthor))) 的大作中提到: 】", at: 0)
            }
        }
    }

    /// `count` ratings after the post was written and before "now", in whole
    /// minutes, oldest first; most are plain likes (score 0).
    private func likes(count: Int, after posted: Int64, now: Int64, rng: inout SeededRandom) -> [ReplicaLike] {
        guard count > 0 else { return [] }
        let first = (posted / 60 + 1) * 60
        let last = max(first, now / 60 * 60)
        var times = (0..<count).map { _ in rng.int64(from: first / 60, to: last / 60) * 60 }
        times.sort()
        return times.map { time in
            var score = 0
            if rng.chance(0.3) {
                score = rng.int(1...5) * (rng.chance(0.5) ? 1 : -1)
            }
            return ReplicaLike(
                score: score, user: users.random(using: &rng),
                message: rng.pick(TextCorpus.likeMessages, or: "赞"),
                at: Date(timeIntervalSince1970: TimeInterval(time)))
        }
    }

    private static func roles(threadCount: Int, maxPosts: Int) -> [Role] {
        var roles = [Role](repeating: .ordinary, count: threadCount)
        var next = 0
        func assign(_ role: Role) {
            guard next < threadCount else { return }
            roles[next] = role
            next += 1
        }
        if threadCount >= 4 { assign(.sticky); assign(.sticky) }
        assign(.todayOnly)
        if threadCount >= 3 { assign(.deletedFirst) }
        if maxPosts > 10 { assign(.long) }
        for _ in 0..<4 { assign(.activeToday) }
        return roles
    }

    /// Mostly short threads, now and then a long one, as on a real board.
    private static func skewedCount(_ maxPosts: Int, _ rng: inout SeededRandom) -> Int {
        let u = rng.unit()
        return min(maxPosts, 1 + Int(Double(maxPosts - 1) * u * u * u + 0.5))
    }

    /// `{n}B` below 1 KiB, else KiB with one decimal, as the mobile page prints sizes.
    static func sizeText(_ count: Int) -> String {
        guard count >= 1024 else { return "\(count)B" }
        let tenths = (count * 10 + 512) / 1024
        return "\(tenths / 10).\(tenths % 10)KB"
    }

    /// `【 在 user (nick) 的大作中提到: 】` and 1–3 `: ` lines from an earlier post.
    private func quoteBlock(
        thread: [Draft], before floor: Int, posts: [ReplicaPost],
        rng: inout SeededRandom
    ) -> [String] {
        // Quote an earlier visible post when there is one, else just its author.
        let source = posts.isEmpty ? nil : posts[rng.below(posts.count)]
        let author = source?.author ?? thread[max(0, floor - 1)].author
        var lines = ["【 在 \(author) (\(users.nick(of: author))) 的大作中提到: 】"]
        // Quoting drops colours: a quote shows in the quote colour alone.
        let own = (source?.lines ?? []).map(ANSIText.strip).filter {
            !$0.isEmpty && !$0.hasPrefix(":") && !$0.hasPrefix("【")
        }
        let nested = (source?.lines ?? []).filter { $0.hasPrefix(": ") }
        for i in 0..<rng.int(1...3) {
            if i < own.count {
                lines.append(": " + own[i])
            } else if let deeper = nested.first, i == own.count {
                lines.append(": " + deeper)
            } else if rng.chance(0.3) {
                lines.append(": : " + rng.pick(TextCorpus.chineseSentences, or: "……"))
            } else {
                lines.append(": " + rng.pick(TextCorpus.chineseSentences, or: "……"))
            }
        }
        return lines
    }

    private func bodyLines(rng: inout SeededRandom) -> [String] {
        let count = rng.int(1...5)
        var lines = [String]()
        for i in 0..<count {
            let roll = rng.unit()
            if roll < 0.08 {
                lines.append(rng.pick(TextCorpus.spacedLines, or: "  "))
            } else if roll < 0.3 {
                lines.append(rng.pick(TextCorpus.latinSentences, or: "ok"))
            } else if roll < 0.4 {
                lines.append(
                    rng.pick(TextCorpus.chineseSentences, or: "")
                        + rng.pick(TextCorpus.latinSentences, or: ""))
            } else {
                lines.append(rng.pick(TextCorpus.chineseSentences, or: "嗯。"))
            }
            // A blank line between paragraphs, never at either end.
            if i < count - 1, rng.chance(0.1) {
                lines.append("")
            }
        }
        return lines
    }

    private func fileBytes(text: Bool, rng: inout SeededRandom) -> Data {
        if text {
            let lines = (0..<rng.int(3...60)).map { _ in rng.pick(TextCorpus.chineseSentences, or: "") }
            return Data((lines.joined(separator: "\n") + "\n").utf8)
        }
        // A zip's local-header magic, then noise.
        var bytes: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
        for _ in 0..<rng.int(300...5000) { bytes.append(rng.byte()) }
        return Data(bytes)
    }
}

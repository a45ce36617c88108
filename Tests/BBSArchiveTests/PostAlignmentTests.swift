import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// The forum numbers floors by place, so a deleted reply moves every later
/// one up: archived posts keep their floors, and the deleted one stays,
/// marked as deleted by the forum (QA 7's first finding: it was written
/// over, and the last post shown twice).
@Suite struct PostAlignmentTests {
    typealias Archived = PostAlignment.Archived
    typealias Listed = PostAlignment.Listed

    /// Posts named by a letter: the author, and a time that differs for each.
    static func archived(_ names: String, deleted: Set<Character> = []) -> [Archived] {
        names.enumerated().map { floor, name in
            Archived(
                floor: floor, author: String(name), postedAt: Int64(name.asciiValue ?? 0), postID: nil,
                deleted: deleted.contains(name))
        }
    }

    /// `?` is a post read only in part whose author could not be read; an
    /// upper-case letter one read in part whose author could (its time is
    /// not its own).
    static func listed(_ names: String) -> [Listed] {
        names.map { name in
            if name == "?" { return Listed(author: "", postedAt: 0, postID: nil, sure: false) }
            if name.isUppercase { return Listed(author: name.lowercased(), postedAt: 1, postID: nil, sure: false) }
            return Listed(author: String(name), postedAt: Int64(name.asciiValue ?? 0), postID: nil, sure: true)
        }
    }

    static func place(_ archived: String, _ listed: String, fromStart: Bool = true, toEnd: Bool = true)
        -> PostAlignment.Placement?
    {
        PostAlignment.place(
            archived: Self.archived(archived), listed: Self.listed(listed), fromStart: fromStart, toEnd: toEnd)
    }

    @Test func postsKeepTheirArchivedFloors() {
        // Nothing changed, or replies added: the forum's places.
        #expect(Self.place("abcd", "abcd") == .init(floors: [0, 1, 2, 3], gone: []))
        #expect(Self.place("abcd", "abcdef") == .init(floors: [0, 1, 2, 3, 4, 5], gone: []))
        // A reply deleted: the later ones keep their floors.
        #expect(Self.place("abcd", "acd") == .init(floors: [0, 2, 3], gone: [1]))
        #expect(Self.place("abcd", "acde") == .init(floors: [0, 2, 3, 4], gone: [1]))
        #expect(Self.place("abcd", "ad") == .init(floors: [0, 3], gone: [1, 2]))
        // The last one deleted, and a new one: the new one takes a new floor.
        #expect(Self.place("abcd", "abce") == .init(floors: [0, 1, 2, 4], gone: [3]))
        // Pages from the middle on: nothing before them is judged, nor after
        // them when they do not reach the thread's end.
        #expect(Self.place("abcd", "cde", fromStart: false) == .init(floors: [2, 3, 4], gone: []))
        #expect(Self.place("abcdef", "bd", fromStart: false, toEnd: false) == .init(floors: [1, 3], gone: [2]))
    }

    @Test func aPostReadInPartTakesTheNextPlace() {
        #expect(Self.place("abcd", "a?cd") == .init(floors: [0, 1, 2, 3], gone: []))
        #expect(Self.place("abcd", "?bcd", fromStart: false) == .init(floors: [0, 1, 2, 3], gone: []))
        #expect(Self.place("abcd", "abcd?") == .init(floors: [0, 1, 2, 3, 4], gone: []))
        // After a new post, it is new too.
        #expect(Self.place("ab", "abx?") == .init(floors: [0, 1, 2, 3], gone: []))
        // A deletion notice, read as unsure, stands where its post was.
        #expect(Self.place("abcd", "ab?d") == .init(floors: [0, 1, 2, 3], gone: []))
    }

    @Test func postsThatMatchNothingKeepTheForumsPlaces() {
        #expect(Self.place("", "ab") == nil)
        #expect(Self.place("ab", "xy") == nil)
    }

    /// A post never archived, between two that were (one skipped by an
    /// earlier fetch): a new floor, never one archived post's; the one it
    /// stands beside that is not listed is gone.
    @Test func aPostBetweenArchivedOnesTakesANewFloor() {
        #expect(Self.place("abc", "axc") == .init(floors: [0, 3, 2], gone: [1]))
        #expect(Self.place("ac", "axc") == .init(floors: [0, 2, 1], gone: []))
    }

    /// A post archived in part (its time filled in from a neighbour's) and
    /// read whole now is that post, at its floor: it matches by nothing,
    /// and takes the place left for it (QA 7's review: it was taken for a
    /// new post and the archived one for deleted, or nothing lined up).
    @Test func aPostArchivedInPartIsTheSamePostReadWhole() {
        for unsure in [2, 4] {
            var archived = Self.archived("abcde")
            archived[unsure].sure = false
            archived[unsure].postedAt = 1
            #expect(
                PostAlignment.place(archived: archived, listed: Self.listed("abcde"), fromStart: true, toEnd: true)
                    == .init(floors: [0, 1, 2, 3, 4], gone: []), "archived in part at \(unsure)")
        }
    }

    /// A post read in part takes the place its author left, never one the
    /// forum deleted; a new reply read in part after a deleted last one is new.
    @Test func aPostReadInPartTakesItsAuthorsPlace() {
        let archived = Self.archived("abcdefghij", deleted: ["f"])
        #expect(
            PostAlignment.place(archived: archived, listed: Self.listed("abcdeGhij"), fromStart: true, toEnd: true)
                == .init(floors: [0, 1, 2, 3, 4, 6, 7, 8, 9], gone: []))
        #expect(Self.place("abcd", "abcX") == .init(floors: [0, 1, 2, 4], gone: [3]))
    }

    /// The second review's cases: a post read whole never takes a place
    /// archived whole (a reply deleted and posted again is a new post); an
    /// incremental page counts only places the forum still shows; posts
    /// archived in part are places to fill when nothing else matched; a
    /// post listed twice is one post; an author not read fits any place.
    @Test func theSecondReviewsCases() {
        func archived(_ posts: [(String, Int64, Bool)], deleted: Set<Int> = []) -> [Archived] {
            posts.enumerated().map { floor, post in
                Archived(
                    floor: floor, author: post.0, postedAt: post.1, postID: nil, deleted: deleted.contains(floor),
                    sure: post.2)
            }
        }
        func listed(_ posts: [(String, Int64)]) -> [Listed] {
            posts.map { Listed(author: $0.0, postedAt: $0.1, postID: nil, sure: true) }
        }
        // Deleted and posted again, at the end.
        #expect(
            PostAlignment.place(
                archived: archived([("a", 0, true), ("b", 10, true)]), listed: listed([("a", 0), ("b", 20)]),
                fromStart: true, toEnd: true) == .init(floors: [0, 2], gone: [1]))
        // A new post after one archived in part is no part of it.
        #expect(
            PostAlignment.place(
                archived: archived([("a", 0, true), ("b", 1, true), ("c", 2, false)]),
                listed: listed([("a", 0), ("b", 1), ("d", 3)]), fromStart: true, toEnd: true)
                == .init(floors: [0, 1, 3], gone: []))
        // Pages from the middle, past a place marked deleted and one archived in part.
        let long = archived((0..<25).map { ("u\($0)", Int64($0), $0 != 20) }, deleted: [21])
        #expect(
            PostAlignment.place(
                archived: long, listed: listed([("u20", 20), ("u22", 22), ("u23", 23), ("u24", 24), ("n", 30)]),
                fromStart: false, toEnd: true) == .init(floors: [20, 22, 23, 24, 25], gone: []))
        // Everything archived in part; the forum deleted u3 since.
        let partial = archived((0..<10).map { ("u\($0)", 99, false) })
        let read = listed((0..<10).filter { $0 != 3 }.map { ("u\($0)", Int64($0)) })
        #expect(
            PostAlignment.place(archived: partial, listed: read, fromStart: true, toEnd: true)
                == .init(floors: [0, 1, 2, 4, 5, 6, 7, 8, 9], gone: []))
        // Pages that overlap list u10 twice.
        let twice = listed([("u9", 9), ("u10", 10), ("u10", 10), ("u11", 11)])
        #expect(
            PostAlignment.place(
                archived: archived((0..<12).map { ("u\($0)", Int64($0), true) }), listed: twice, fromStart: false,
                toEnd: true) == .init(floors: [9, 10, 10, 11], gone: []))
        // An author not read fits the first place.
        #expect(
            PostAlignment.place(
                archived: archived([("a", 0, true), ("", 1, false), ("b", 2, false), ("c", 3, true)]),
                listed: listed([("a", 0), ("b", 5), ("b", 6), ("c", 3)]), fromStart: true, toEnd: true)
                == .init(floors: [0, 1, 2, 3], gone: []))
    }

    /// A floor past counting from a hostile page is no trap.
    @Test func aFloorPastCountingIsNoTrap() {
        var archived = Self.archived("ab")
        archived[1].floor = Int.max
        #expect(
            PostAlignment.place(archived: archived, listed: Self.listed("abc"), fromStart: true, toEnd: true) == nil)
        #expect(SMTHMobileParser.floorDigits("a9223372036854775807") == nil)
        #expect(SMTHMobileParser.floorDigits("第12楼") == 12)
    }

    @Test func theForumsPostIdsDecideWhereBothHaveOne() {
        var archived = Self.archived("abc")
        for index in archived.indices { archived[index].postID = 100 + index }
        // The author read otherwise now, the id the same: the same post.
        let listed = [
            Listed(author: "A", postedAt: 97, postID: 100, sure: true),
            Listed(author: "c", postedAt: 99, postID: 102, sure: true),
        ]
        #expect(
            PostAlignment.place(archived: archived, listed: listed, fromStart: true, toEnd: true)
                == .init(floors: [0, 2], gone: [1]))
        // Same author and second, other ids: not the same post.
        let other = [Listed(author: "a", postedAt: 97, postID: 999, sure: true)]
        #expect(PostAlignment.place(archived: archived, listed: other, fromStart: true, toEnd: true) == nil)
    }

    @Test func theSameAuthorTwiceInOneSecondMatchesPostForPost() {
        let archived = (0..<3).map { Archived(floor: $0, author: "a", postedAt: 5, postID: nil, deleted: false) }
        let listed = (0..<3).map { _ in Listed(author: "a", postedAt: 5, postID: nil, sure: true) }
        #expect(
            PostAlignment.place(archived: archived, listed: listed, fromStart: true, toEnd: true)
                == .init(floors: [0, 1, 2], gone: []))
    }

    /// Posts marked deleted before are not marked again.
    @Test func postsAlreadyMarkedAreNotGoneAgain() {
        let placement = PostAlignment.place(
            archived: Self.archived("abcd", deleted: ["b"]), listed: Self.listed("acd"), fromStart: true, toEnd: true)
        #expect(placement == .init(floors: [0, 2, 3], gone: []))
    }

    /// A thread of many posts whose posts all changed is looked up, not
    /// searched post by post against every archived one.
    @Test func manyPostsThatAllChanged() {
        let archived = (0..<20_000).map {
            Archived(floor: $0, author: "u\($0)", postedAt: 1, postID: nil, deleted: false)
        }
        let listed = (0..<20_000).map { Listed(author: "v\($0)", postedAt: 1, postID: nil, sure: true) }
        #expect(PostAlignment.place(archived: archived, listed: listed, fromStart: true, toEnd: true) == nil)
    }

    // MARK: The store

    let pieces = ArchiveStoreTests()

    func openStore() throws -> ArchiveStore {
        let store = try pieces.openStore()
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [pieces.summary()]),
            source: pieces.source)
        return store
    }

    func thread(_ posts: [Post], total: Int = 1) -> [ThreadPage] {
        [ThreadPage(board: "T", gid: 700, title: "标题", page: PageInfo(current: 1, total: total), posts: posts)]
    }

    /// Four posts, the second with an attachment; `floor` as the forum numbers them.
    func post(_ name: String, minute: Int, floor: Int) -> Post {
        Post(
            floor: floor, author: name, postedAt: Fixtures.beijing(2026, 8, 1, 9, minute), body: "\(name) 的文字",
            attachments: name == "bob"
                ? [Attachment(name: "b.png", url: "http://127.0.0.1:9/att/T/700/2", kind: .image, size: "1KB")]
                : [],
            ip: "1.2.3.*")
    }

    /// A row whose count is not exact (`3+`) is no word on where the thread
    /// ends: pages that end at its least count mark no post deleted (a post
    /// deleted between two pages' fetches moves another across them
    /// unread), and the thread is not archived as listed.
    @Test func aCountThatIsNotExactMarksNoPostDeleted() throws {
        let store = try openStore()
        let names = ["alice", "bob", "carol", "dave"]
        try store.saveThread(
            board: "T", pages: thread(names.enumerated().map { post($1, minute: $0, floor: $0) }), summary: nil)
        var approximate = pieces.summary(replies: 3)
        approximate.repliesExact = false
        let now = ["alice", "carol", "dave", "erin"]
        let minutes = [0, 2, 3, 4]
        let notes = try store.saveThread(
            board: "T", pages: thread(now.enumerated().map { post($1, minute: minutes[$0], floor: $0) }),
            summary: approximate)
        let posts = try store.posts(board: "T", gid: 700)
        #expect(posts.map(\.author) == ["alice", "bob", "carol", "dave", "erin"])
        #expect(posts.allSatisfy { $0.forumDeletedAt == nil })
        #expect(notes.isEmpty)
        #expect(try store.isArchived(board: "T", summary: approximate, time: Fixtures.smthForum.time) == false)
        // The same pages, with the row's count exact: bob's reply is marked.
        try store.saveThread(
            board: "T", pages: thread(now.enumerated().map { post($1, minute: minutes[$0], floor: $0) }),
            summary: pieces.summary(replies: 3))
        #expect(
            try store.posts(board: "T", gid: 700).map { $0.forumDeletedAt != nil } == [
                false, true, false, false, false,
            ])
    }

    @Test func aDeletedReplyStaysWithItsAttachment() throws {
        let store = try openStore()
        let names = ["alice", "bob", "carol", "dave"]
        try store.saveThread(
            board: "T", pages: thread(names.enumerated().map { post($1, minute: $0, floor: $0) }), summary: nil)
        // bob's reply is deleted: carol and dave move up; erin replies.
        let now = ["alice", "carol", "dave", "erin"]
        let minutes = [0, 2, 3, 4]
        let notes = try store.saveThread(
            board: "T", pages: thread(now.enumerated().map { post($1, minute: minutes[$0], floor: $0) }),
            summary: pieces.summary(replies: 3))
        let posts = try store.posts(board: "T", gid: 700)
        #expect(posts.map(\.floor) == [0, 1, 2, 3, 4])
        #expect(posts.map(\.author) == ["alice", "bob", "carol", "dave", "erin"])
        #expect(posts.map(\.body) == ["alice 的文字", "bob 的文字", "carol 的文字", "dave 的文字", "erin 的文字"])
        #expect(posts.map { $0.forumDeletedAt != nil } == [false, true, false, false, false])
        #expect(posts[1].attachments.map(\.name) == ["b.png"])
        #expect(notes == ["floor 1: no longer on the forum; kept, marked as deleted by the forum"])
        // Read again, nothing more changes or is said.
        #expect(
            try store.saveThread(
                board: "T", pages: thread(now.enumerated().map { post($1, minute: minutes[$0], floor: $0) }),
                summary: pieces.summary(replies: 3)
            ).isEmpty)
        #expect(try store.postVersions(board: "T", gid: 700, floor: 2).isEmpty)
        // `reparse` (no row of the board's) marks nothing: its pages' newest
        // captures may come from different runs.
        let other = try openStore()
        try other.saveThread(
            board: "T", pages: thread(names.enumerated().map { post($1, minute: $0, floor: $0) }), summary: nil)
        #expect(
            try other.saveThread(
                board: "T", pages: thread(now.enumerated().map { post($1, minute: minutes[$0], floor: $0) }),
                summary: nil
            ).isEmpty)
        #expect(try other.posts(board: "T", gid: 700).map(\.author) == ["alice", "bob", "carol", "dave", "erin"])
        #expect(try other.forumDeletions(board: "T", gid: 700).isEmpty)
        // Nor does a page that stops short of the row's count (a pager not
        // read says "page 1 of 1"): what it does not reach is not gone.
        let short = try openStore()
        try short.saveThread(
            board: "T", pages: thread(names.enumerated().map { post($1, minute: $0, floor: $0) }), summary: nil)
        try short.saveThread(
            board: "T", pages: thread(Array(names.enumerated().map { post($1, minute: $0, floor: $0) }.prefix(2))),
            summary: pieces.summary(replies: 3))
        #expect(try short.forumDeletions(board: "T", gid: 700).isEmpty)
    }

    /// A reply deleted between the fetches of a thread's two pages moves the
    /// first post of the second page onto the first, unread: the pages then
    /// end a place short of the board's row, and no post is marked deleted.
    @Test func aDeletionBetweenTwoPagesMarksNothing() throws {
        let store = try openStore()
        let names = (0..<20).map { "u\($0)" }
        func page(_ number: Int, _ floors: [Int], positions: Int) -> ThreadPage {
            ThreadPage(
                board: "T", gid: 700, title: "标题", page: PageInfo(current: number, total: 2),
                posts: floors.enumerated().map { post(names[$1], minute: $1, floor: positions + $0) })
        }
        try store.saveThread(
            board: "T", pages: [page(1, Array(0..<10), positions: 0), page(2, Array(10..<20), positions: 10)],
            summary: nil)
        // Page 1 before u2 was deleted, page 2 after: u10 is on neither.
        let pages = [page(1, Array(0..<10), positions: 0), page(2, Array(11..<20), positions: 10)]
        #expect(try store.saveThread(board: "T", pages: pages, summary: pieces.summary(replies: 19)).isEmpty)
        let posts = try store.posts(board: "T", gid: 700)
        #expect(posts.map(\.author) == names)
        #expect(try store.forumDeletions(board: "T", gid: 700).isEmpty)
    }

    /// A copy read only in part, or with empty bodies, is not stored over
    /// posts archived whole, and a blanked post keeps its attachments (QA
    /// 7's second finding).
    @Test func aPoorerCopyIsNotStoredOverTheArchivedPosts() throws {
        let store = try openStore()
        let names = ["alice", "bob", "carol"]
        try store.saveThread(
            board: "T", pages: thread(names.enumerated().map { post($1, minute: $0, floor: $0) }), summary: nil)
        var poorer = names.enumerated().map { post($1, minute: $0, floor: $0) }
        poorer[1].body = "\n \n"
        poorer[1].attachments = []
        poorer[2].author = ""
        poorer[2].body = ""
        poorer[2].warning = "its author could not be read"
        let notes = try store.saveThread(board: "T", pages: thread(poorer), summary: nil)
        let posts = try store.posts(board: "T", gid: 700)
        #expect(posts.map(\.author) == ["alice", "bob", "carol"])
        #expect(posts.map(\.body) == ["alice 的文字", "bob 的文字", "carol 的文字"])
        #expect(posts.map(\.warning) == [nil, nil, nil])
        #expect(posts[1].attachments.map(\.name) == ["b.png"])
        #expect(
            notes == [
                "floor 1: the forum shows it empty now; the archived text is kept",
                "floor 2: read only in part; the post archived whole is kept",
            ])
    }

    /// A deletion notice read in part (a notice has no header) is still
    /// the forum deleting the post: marked, its text and attachments kept.
    @Test func aNoticeReadInPartIsADeletion() throws {
        let store = try openStore()
        let names = ["alice", "bob"]
        try store.saveThread(
            board: "T", pages: thread(names.enumerated().map { post($1, minute: $0, floor: $0) }), summary: nil)
        var notice = names.enumerated().map { post($1, minute: $0, floor: $0) }
        notice[1].body = "此文章已被删除"
        notice[1].author = ""
        notice[1].attachments = []
        notice[1].warning = "its header could not be read"
        notice[1].deletedByForum = true
        try store.saveThread(board: "T", pages: thread(notice), summary: nil)
        let posts = try store.posts(board: "T", gid: 700)
        #expect(posts.map(\.body) == ["alice 的文字", "bob 的文字"])
        #expect(posts.map { $0.forumDeletedAt != nil } == [false, true])
        #expect(posts[1].attachments.map(\.name) == ["b.png"])
    }

    /// A blank title never replaces an archived one, from a list row or a
    /// thread page, and a title the starter edits keeps the one it replaces
    /// (QA 7's fourth finding: the first title survived only in a capture).
    @Test func titlesAreKept() throws {
        let store = try openStore()
        let names = ["alice", "bob"]
        var pages = thread(names.enumerated().map { post($1, minute: $0, floor: $0) })
        try store.saveThread(board: "T", pages: pages, summary: nil)
        for blank in ["  ", "\u{3000}\t"] {
            pages[0].title = blank
            try store.saveThread(board: "T", pages: pages, summary: nil)
        }
        var row = pieces.summary()
        row.title = ""
        try store.saveBoardPage(
            BoardPage(board: "T", title: nil, page: .init(current: 1, total: 1), threads: [row]), source: pieces.source)
        #expect(try store.threads(board: "T").first { $0.gid == 700 }?.title == "标题")
        pages[0].title = "改过的标题"
        try store.saveThread(board: "T", pages: pages, summary: nil)
        #expect(try store.threads(board: "T").first { $0.gid == 700 }?.title == "改过的标题")
        let kept = try store.read { db in
            try String.fetchAll(db, sql: "SELECT title FROM thread_title_version WHERE board = 'T' AND gid = 700")
        }
        #expect(kept == ["标题"])
    }

    // MARK: A run against the replica

    /// The replica deletes two replies of a thread of two pages, and it gets
    /// a reply: the next run keeps every archived post at its floor. It
    /// reads the thread from its last archived page, so it marks the reply
    /// deleted there, and the site shows it with the forum's note; the one
    /// deleted on the first page is not seen gone, and stays as it was.
    @Test func aRunKeepsAReplyTheForumDeleted() async throws {
        var config = ResumeAndIncrementalTests.config
        config.now = Fixtures.beijing(2026, 8, 1, 12)
        let forum = ReplicaForum(config: config)
        let clock = TestClock(config.now)
        let harness = try await ReplicaHarness.start(
            forum: forum, faults: ReplicaFaults(), folder: try Fixtures.temporaryFolder("deleted"), clock: clock)
        let board = harness.board
        #expect(try await harness.fetch().failures.isEmpty)
        let thread = try #require(
            forum.board(named: board)?.threads.first { !$0.sticky && (15...19).contains($0.posts.count) })
        let before = try harness.store().posts(board: board, gid: thread.gid)
        #expect(before.count == thread.posts.count)
        let late = before.count - 2

        clock.advance(by: 60)
        #expect(forum.deleteReply(board: board, gid: thread.gid, floor: late))
        #expect(forum.deleteReply(board: board, gid: thread.gid, floor: 2))
        #expect(forum.addReplies(board: board, gid: thread.gid, count: 1, at: clock.now()))
        let second = try await harness.fetch()
        await harness.stop()
        #expect(second.failures.isEmpty)

        let after = try harness.store().posts(board: board, gid: thread.gid)
        #expect(after.count == before.count + 1)
        for (old, new) in zip(before, after) {
            #expect(
                (new.floor, new.author, new.postedAt, new.body) == (old.floor, old.author, old.postedAt, old.body),
                "floor \(old.floor)")
        }
        #expect(after.map { $0.forumDeletedAt != nil } == after.indices.map { $0 == late })
        let newest = try #require(forum.board(named: board)?.threads.first { $0.gid == thread.gid }?.posts.last)
        #expect(after.last?.author == newest.author && after.last?.postedAt == newest.postedAt)

        let out = harness.folder.appendingPathComponent("site")
        var build = BuildAction(
            storePath: harness.storePath, outputPath: out.path, templatesPath: Fixtures.templates.path)
        build.clock = { clock.now() }
        _ = try await build.run()
        let page = try String(
            contentsOf: out.appendingPathComponent("board/\(board)/\(thread.gid).html"), encoding: .utf8)
        #expect(page.components(separatedBy: "class=\"forum-deleted\"").count == 2)
    }
}

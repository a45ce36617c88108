import Foundation

/// Where the posts of a thread, as its pages list them now, go among the
/// posts the store archived of it.
///
/// The forum numbers a thread's posts by their place: when a reply is
/// deleted, every later reply moves up a floor. Stored by that place, the
/// next fetch would write each later post over the one before it, and the
/// deleted post, its attachments and its likes would be gone from the
/// archive. So the listed posts are matched with the archived ones by who
/// wrote them and when (or by the forum's post id, where both have one):
/// a post keeps the floor it was archived at, a new one takes the next
/// free floor, and an archived post that the listing passes over is no
/// longer on the forum (`gone`): it stays, marked as deleted by the forum.
/// A listed post that is no archived one by those marks (read in part then
/// or now, or read otherwise by a better parser) takes an archived place
/// left between two matched ones, the same author's first; a post that
/// finds none is new.
enum PostAlignment {
    /// A post as the store holds it.
    struct Archived: Equatable, Sendable {
        var floor: Int
        var author: String
        var postedAt: Int64
        var postID: Int?
        /// Marked as deleted by the forum (a deletion notice, or gone).
        var deleted: Bool
        /// Archived whole (no parse warning): its author and time say
        /// which post it is. One read in part may hold a time filled in
        /// from its neighbours.
        var sure = true
    }

    /// A post as a page lists it; `sure` when it was read whole, so its
    /// author and time say which post it is (a post read in part, or a
    /// deletion notice, does not say).
    struct Listed: Equatable, Sendable {
        var author: String
        var postedAt: Int64
        var postID: Int?
        var sure: Bool
        /// The forum's deletion notice in a post's place.
        var notice = false

        init(author: String, postedAt: Int64, postID: Int?, sure: Bool, notice: Bool = false) {
            self.author = author
            self.postedAt = postedAt
            self.postID = postID
            self.sure = sure
            self.notice = notice
        }

        /// A deletion notice's author is the notice's, not the post's: it
        /// says nothing of which post it stands for.
        init(_ post: Post) {
            self.init(
                author: post.deletedByForum ? "" : post.author, postedAt: ArchiveStore.seconds(post.postedAt),
                postID: post.postID, sure: post.warning == nil && !post.deletedByForum, notice: post.deletedByForum)
        }
    }

    /// Whether `posts` (a page's) hold one of `archived`, known by who
    /// wrote it and when.
    static func overlaps(_ archived: [Archived], _ posts: [Post]) -> Bool {
        let listed = posts.map(Listed.init).filter(\.sure)
        return listed.contains { post in archived.contains { $0.sure && same($0, post) } }
    }

    struct Placement: Equatable, Sendable {
        /// The floor of each listed post, in order.
        var floors: [Int]
        /// Archived floors that the listing passed over and that were not
        /// marked deleted yet: the forum no longer shows them.
        var gone: [Int]
    }

    static func same(_ archived: Archived, _ listed: Listed) -> Bool {
        if let a = archived.postID, let b = listed.postID { return a == b }
        return archived.author == listed.author && archived.postedAt == listed.postedAt
    }

    /// Where `listed` goes among `archived` (in floor order); `fromStart`:
    /// the listing begins with the thread's first post; `toEnd`: it ends
    /// with its last, so what it passes over at the end is gone too. `nil`
    /// when none of the listed posts is an archived one and every archived
    /// post was read whole (a parser that reads them all otherwise now):
    /// the caller keeps the forum's places then (`ArchiveStore.placePosts`).
    static func place(archived: [Archived], listed: [Listed], fromStart: Bool, toEnd: Bool) -> Placement? {
        guard !archived.isEmpty, !listed.isEmpty else { return nil }
        // New floors follow the last archived one: none may be past
        // counting (a hostile page's floor).
        guard let last = archived.last?.floor, last < Int.max - listed.count - 1 else { return nil }
        // Looked up, not searched: a thread of many thousands of posts
        // whose posts all changed would cost their product.
        struct Key: Hashable {
            var author: String
            var postedAt: Int64
        }
        var byID: [Int: [Int]] = [:]
        var byKey: [Key: [Int]] = [:]
        for (index, post) in archived.enumerated() {
            // An id says which post it is, even of one archived in part;
            // its author and time only of one archived whole.
            if let id = post.postID { byID[id, default: []].append(index) }
            if post.sure { byKey[Key(author: post.author, postedAt: post.postedAt), default: []].append(index) }
        }
        func find(_ post: Listed, from next: Int) -> Int? {
            var best: Int?
            // The forum's post id says which post it is, even of one read in part.
            if let id = post.postID, let indices = byID[id] {
                let at = indices.lowerBound(next)
                if at < indices.count { best = indices[at] }
            }
            guard post.sure else { return best }
            // By author and time: an archived post that has no id to compare
            // (a few looked at, however many share the second).
            let indices = byKey[Key(author: post.author, postedAt: post.postedAt)] ?? []
            for index in indices[indices.lowerBound(next)...].prefix(64) where same(archived[index], post) {
                if best.map({ index < $0 }) ?? true { best = index }
                break
            }
            return best
        }
        // Each listed post matched with the first archived post at or after
        // the last match that it is: in order, so the same author posting
        // twice in one second still matches post for post. A post listed
        // twice (pages that overlap: captures of two runs, a post moved
        // between two pages' fetches) is the post matched the first time.
        var match: [Int?] = Array(repeating: nil, count: listed.count)
        var again: [Int?] = Array(repeating: nil, count: listed.count)
        var matched: Set<Int> = []
        var next = 0
        var first: Int?
        for (index, post) in listed.enumerated() {
            if let found = find(post, from: next) {
                match[index] = found
                matched.insert(found)
                next = found + 1
                if first == nil { first = found }
            } else if post.sure, let earlier = find(post, from: 0), matched.contains(earlier) {
                again[index] = earlier
            }
        }
        // Nothing matched: posts archived in part are still places to fill
        // (from the start); archived whole, they were all read otherwise.
        if first == nil, !fromStart || archived.allSatisfy(\.sure) { return nil }
        // The archived place of the next match after each listed post.
        var nextMatch: [Int] = Array(repeating: archived.count, count: listed.count)
        var upcoming = archived.count
        for index in listed.indices.reversed() {
            nextMatch[index] = upcoming
            if let found = match[index] { upcoming = found }
        }
        /// The archived place left before the next match that a listed post
        /// not matched takes, or `nil`: it is new.
        /// - A deletion notice stands where its post was, marked or not.
        /// - A post read whole is no post archived whole (it would have
        ///   matched): it takes a place archived in part, by the same author
        ///   or one whose author could not be read.
        /// - A post read in part takes a place not marked deleted, by the
        ///   same author (or any, when its own or the place's author is not
        ///   known); never one archived whole after the last match, where
        ///   posts are only ever added.
        func slot(_ post: Listed, in places: Range<Int>, last: Bool) -> Int? {
            if post.notice { return places.first }
            return places.first { place in
                let archivedPost = archived[place]
                guard !archivedPost.deleted else { return false }
                let author = post.author.isEmpty || archivedPost.author.isEmpty || archivedPost.author == post.author
                if post.sure { return !archivedPost.sure && author }
                return author && !(last && archivedPost.sure && !post.author.isEmpty)
            }
        }
        var floors: [Int] = []
        var passed: [Int] = []
        // Listed posts before the first match are the archived ones just
        // before it (those not marked deleted, which the pages no longer
        // show); from the thread's start, the archived ones from the first.
        var cursor = 0
        if !fromStart, let first {
            let leading = match.firstIndex { $0 != nil } ?? 0
            cursor = first
            var left = leading
            while left > 0, cursor > 0 {
                cursor -= 1
                if !archived[cursor].deleted { left -= 1 }
            }
        }
        var newFloor = last + 1
        var added = false
        for (index, post) in listed.enumerated() {
            if let found = match[index] {
                if cursor < found { passed.append(contentsOf: cursor..<found) }
                floors.append(archived[found].floor)
                cursor = max(cursor, found + 1)
            } else if let earlier = again[index] {
                floors.append(archived[earlier].floor)
            } else if !added, cursor < nextMatch[index],
                let place = slot(post, in: cursor..<nextMatch[index], last: nextMatch[index] == archived.count)
            {
                if cursor < place { passed.append(contentsOf: cursor..<place) }
                floors.append(archived[place].floor)
                cursor = place + 1
            } else {
                floors.append(newFloor)
                newFloor += 1
                // Past the last match a post is added: so is every later one.
                if nextMatch[index] == archived.count { added = true }
            }
        }
        if toEnd, cursor < archived.count { passed.append(contentsOf: cursor..<archived.count) }
        // Gone: posts archived whole that are not marked yet (one archived in
        // part may be the listed post that could not say so).
        return Placement(
            floors: floors,
            gone: passed.filter { !archived[$0].deleted && archived[$0].sure }.map { archived[$0].floor })
    }
}

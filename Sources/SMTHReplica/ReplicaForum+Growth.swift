import Foundation

/// A forum that moves on between two runs: new replies to old threads and
/// new threads, as a live board has. Changes are kept beside the generated
/// boards and applied on top of them, so generation stays deterministic.
extension ReplicaForum {
    /// Appends `count` replies to a thread, posted at `time`, which also
    /// moves the thread to the top of its board. Returns `false` if there is
    /// no such board or thread.
    @discardableResult
    public func addReplies(board: String, gid: Int, count: Int = 1, at time: Date = Date()) -> Bool {
        guard count > 0, let current = generated(named: board), current.thread(gid: gid) != nil else { return false }
        growth.append(.replies(gid: gid, count: count, at: Self.wholeSeconds(time)), to: board)
        return true
    }

    /// Deletes the reply at `floor` (not the first post) as its author or a
    /// moderator does: it leaves the thread, and every later reply moves up
    /// a floor, since the forum numbers floors by place. Returns `false` if
    /// there is no such board, thread or reply.
    @discardableResult
    public func deleteReply(board: String, gid: Int, floor: Int) -> Bool {
        guard floor > 0, let current = generated(named: board), let thread = current.thread(gid: gid),
            thread.posts.contains(where: { $0.floor == floor })
        else { return false }
        growth.append(.deletion(gid: gid, floor: floor), to: board)
        return true
    }

    /// Starts a new thread with one post at `time`; returns its gid.
    @discardableResult
    public func addThread(board: String, title: String, at time: Date = Date()) -> Int? {
        guard let current = generated(named: board) else { return nil }
        let gid = Self.nextPostID(in: current.board)
        growth.append(.thread(gid: gid, title: title, at: Self.wholeSeconds(time)), to: board)
        return gid
    }

    /// The board with every change so far applied on top of `base`.
    func grown(_ base: GeneratedBoard) -> GeneratedBoard {
        growth.board(named: base.board.name) { changes in
            var board = base.board
            for change in changes {
                apply(change, to: &board)
            }
            board.threads.sort(by: ReplicaBoard.listingOrder)
            return GeneratedBoard(board: board)
        } ?? base
    }

    private func apply(_ change: GrowthLog.Change, to board: inout ReplicaBoard) {
        switch change {
        case .replies(let gid, let count, let time):
            guard let index = board.threads.firstIndex(where: { $0.gid == gid }) else { return }
            let title = BoardGenerator.replyTitle(board.threads[index].title)
            for _ in 0..<count {
                let id = Self.nextPostID(in: board)
                let floor = (board.threads[index].posts.last?.floor ?? 0) + 1
                board.threads[index].posts.append(newPost(id: id, floor: floor, title: title, at: time))
            }
        case .deletion(let gid, let floor):
            guard let index = board.threads.firstIndex(where: { $0.gid == gid }) else { return }
            board.threads[index].posts.removeAll { $0.floor == floor }
            for post in board.threads[index].posts.indices where board.threads[index].posts[post].floor > floor {
                board.threads[index].posts[post].floor -= 1
            }
        case .thread(let gid, let title, let time):
            let post = newPost(id: gid, floor: 0, title: title, at: time)
            board.threads.append(
                ReplicaThread(gid: gid, title: title, sticky: false, firstPostDeleted: false, posts: [post]))
        }
    }

    private func newPost(id: Int, floor: Int, title: String, at time: Date) -> ReplicaPost {
        let author = users.ids.isEmpty ? "guest" : users.ids[(id &+ floor) % users.ids.count]
        return ReplicaPost(
            id: id, floor: floor, author: author, postedAt: time,
            lines: ["新的回复，第\(floor)楼。", "A new reply, number \(floor)."], attachments: [],
            ip: "10.0.\(floor % 256).*", editedBy: nil, nick: users.nick(of: author), title: title,
            signature: users.signature(of: author), editedAt: nil, likes: [])
    }

    private static func nextPostID(in board: ReplicaBoard) -> Int {
        let highest = board.threads.lazy.flatMap { $0.posts.map(\.id) + [$0.gid] }.max() ?? 100_000
        return highest + 1
    }

    private static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}

extension ReplicaBoard {
    /// Sticky threads first (newest gid first), then by last activity, newest first.
    static func listingOrder(_ a: ReplicaThread, _ b: ReplicaThread) -> Bool {
        if a.sticky != b.sticky { return a.sticky }
        if a.sticky { return a.gid > b.gid }
        let lastA = a.posts.last?.postedAt ?? .distantPast
        let lastB = b.posts.last?.postedAt ?? .distantPast
        return lastA != lastB ? lastA > lastB : a.gid > b.gid
    }
}

/// The changes made to each board, and the boards rebuilt with them.
final class GrowthLog: @unchecked Sendable {
    // @unchecked: all state is only touched while holding `lock`.
    enum Change: Sendable {
        case replies(gid: Int, count: Int, at: Date)
        case thread(gid: Int, title: String, at: Date)
        case deletion(gid: Int, floor: Int)
    }

    private let lock = NSLock()
    private var changes: [String: [Change]] = [:]
    private var total = 0

    /// How many changes were made to the whole forum: a cheap way to tell
    /// whether something derived from every board must be worked out again.
    var version: Int { lock.withLock { total } }
    private var rebuilt: [String: (version: Int, board: GeneratedBoard)] = [:]

    func append(_ change: Change, to board: String) {
        lock.withLock {
            changes[board, default: []].append(change)
            total += 1
        }
    }

    /// The board rebuilt with its changes, reusing the last rebuild while no
    /// new change came in; `nil` when the board never changed.
    func board(named name: String, rebuild: ([Change]) -> GeneratedBoard) -> GeneratedBoard? {
        let list: [Change]? = lock.withLock {
            guard let list = changes[name] else { return nil }
            if let cached = rebuilt[name], cached.version == list.count { return nil }
            return list
        }
        if list == nil {
            return lock.withLock { rebuilt[name]?.board }
        }
        guard let list else { return nil }
        let board = rebuild(list)
        lock.withLock { rebuilt[name] = (list.count, board) }
        return board
    }
}

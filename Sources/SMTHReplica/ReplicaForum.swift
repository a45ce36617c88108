import Foundation

/// The generated forum. Boards are generated on first use and kept in a small
/// cache, so even a forum of millions of posts never has to sit in memory at
/// once; since generation is deterministic, an evicted board comes back identical.
public final class ReplicaForum: Sendable {
    public let config: ReplicaConfig
    /// Board ids in creation order (section by section), unique.
    public let boardNames: [String]
    public let sections: [ReplicaSection]

    let users: UserPool
    private let boardInfo: [String: (index: Int, title: String)]
    private let cache: BoardCache
    private let hot = HotTopicsCache()

    /// The code of the nested section; not a number, like the real site's.
    static let nestedSectionCode = "Club"
    /// New replies and threads added since generation (`addReplies`, `addThread`).
    let growth = GrowthLog()

    public init(config: ReplicaConfig) {
        self.config = config
        let sectionCount = max(0, config.sections)
        let perSection = max(0, config.boardsPerSection)
        let (count, overflow) = sectionCount.multipliedReportingOverflow(by: perSection)
        let total = overflow ? 0 : count

        var names = [String]()
        var info = [String: (index: Int, title: String)]()
        names.reserveCapacity(total)
        let catalogue = TextCorpus.boards
        for index in 0..<total {
            let base = catalogue[index % catalogue.count]
            // After the catalogue runs out, ids repeat with a number: Geography2, ...
            let round = index / catalogue.count
            let name = round == 0 ? base.id : "\(base.id)\(round + 1)"
            let title = round == 0 ? base.title : "\(base.title)\(round + 1)"
            names.append(name)
            info[name] = (index, title)
        }
        boardNames = names
        boardInfo = info
        cache = BoardCache(capacity: Self.cachedBoards(config: config, boards: total))

        var sections = [ReplicaSection]()
        for s in 0..<(total == 0 ? 0 : sectionCount) {
            let catalogueName = TextCorpus.sections[s % TextCorpus.sections.count]
            let round = s / TextCorpus.sections.count
            var boards = Array(names[(s * perSection)..<((s + 1) * perSection)])
            // Sections nest on the real site (目录). The first section files
            // its last board one level down, so every forum with two boards
            // to a section has one nested section.
            var nested: ReplicaSection?
            if s == 0, boards.count >= 2, let last = boards.popLast() {
                nested = ReplicaSection(
                    code: Self.nestedSectionCode, name: "社团俱乐部", boardNames: [last], parent: String(s))
            }
            sections.append(
                ReplicaSection(
                    code: String(s),
                    name: round == 0 ? catalogueName : "\(catalogueName)\(round + 1)",
                    boardNames: boards))
            if let nested { sections.append(nested) }
        }
        self.sections = sections
        users = UserPool(seed: config.seed)
    }

    /// The board with this id (in any case), generating it if needed.
    public func board(named name: String) -> ReplicaBoard? {
        generated(named: name)?.board
    }

    /// The Chinese title of a board, without generating it.
    func title(ofBoard name: String) -> String? {
        boardInfo[name]?.title
    }

    /// Any spelling of a board's id finds it, as on the real site, whose
    /// pages then spell it the forum's way.
    func generated(named asked: String) -> GeneratedBoard? {
        let name =
            boardInfo[asked] == nil
            ? boardInfo.keys.first { $0.caseInsensitiveCompare(asked) == .orderedSame } ?? asked : asked
        guard let info = boardInfo[name] else { return nil }
        if let hit = cache.value(for: name) { return grown(hit) }
        // Generated outside the lock: two requests racing for the same board
        // both generate it, which is wasted work but gives equal results.
        let board = makeGenerator(name: name, index: info.index, title: info.title).generate()
        return grown(cache.insert(board, for: name))
    }

    /// Boards kept generated at once: every board of a forum of up to
    /// about 100k posts (`cachedThreads` threads), so a crawler walking all
    /// boards again finds them generated, as on a real forum; 8 of a bigger
    /// one, so a forum of millions of posts never sits in memory whole.
    /// `config.cachedBoards` overrides this: a board not kept is generated
    /// again for each page of it asked for (at 1,432 threads a board, about
    /// 60 ms of two cores, its images encoded too), which a real forum's
    /// list pages never cost.
    static func cachedBoards(config: ReplicaConfig, boards: Int) -> Int {
        if let chosen = config.cachedBoards { return max(1, min(max(1, boards), chosen)) }
        let threads = max(1, config.threadsPerBoard)
        return max(8, min(boards, cachedThreads / threads))
    }

    /// About 115k posts at the default 25 posts a thread at most.
    static let cachedThreads = 16_000

    private func makeGenerator(name: String, index: Int, title: String) -> BoardGenerator {
        BoardGenerator(config: config, users: users, boardIndex: index, name: name, title: title)
    }
}

extension ReplicaForum {
    /// The forum's hot topics (十大): the ten non-sticky threads with the
    /// most replies among those with a post in the two days before the
    /// config's `now`, most replies first, then the smaller gid, then board
    /// order. Replies count as on the board listings. New replies and threads
    /// (`addReplies`, `addThread`) count too.
    public func hotTopics() -> [(board: String, gid: Int)] {
        let version = growth.version
        if let cached = hot.value(version: version) { return cached }
        let since = config.now.addingTimeInterval(-2 * 86_400)
        var candidates = [(replies: Int, gid: Int, order: Int, board: String)]()
        for (order, name) in boardNames.enumerated() {
            guard let board = generatedWithoutCaching(name)?.board else { continue }
            for thread in board.threads where !thread.sticky {
                guard let last = thread.posts.last, last.postedAt >= since else { continue }
                candidates.append((thread.listedReplies, thread.gid, order, name))
            }
        }
        candidates.sort { ($1.replies, $0.gid, $0.order) < ($0.replies, $1.gid, $1.order) }
        let topics = candidates.prefix(10).map { (board: $0.board, gid: $0.gid) }
        hot.store(topics, version: version)
        return topics
    }

    /// A board with its changes, from the cache when it is there; boards not
    /// in the cache are generated without entering it, so walking a big
    /// forum does not evict the boards being served.
    func generatedWithoutCaching(_ name: String) -> GeneratedBoard? {
        guard let info = boardInfo[name] else { return nil }
        return grown(
            cache.value(for: name) ?? makeGenerator(name: name, index: info.index, title: info.title).generate())
    }

    /// What a complete archive of the forum holds, board by board.
    public func groundTruth() -> GroundTruth {
        GroundTruth(
            boards: boardNames.compactMap { name in
                guard let board = generatedWithoutCaching(name)?.board else { return nil }
                var posts = 0, images = 0, files = 0
                for thread in board.threads {
                    posts += thread.posts.count
                    for post in thread.posts {
                        for attachment in post.attachments {
                            if attachment.isImage { images += 1 } else { files += 1 }
                        }
                    }
                }
                return BoardTruth(
                    name: board.name, title: board.title, threads: board.threads.count,
                    posts: posts, images: images, files: files)
            })
    }
}

/// The last hot-topic list and the growth version it was worked out for.
private final class HotTopicsCache: @unchecked Sendable {
    // @unchecked: `entry` is only touched while holding `lock`.
    private let lock = NSLock()
    private var entry: (version: Int, topics: [(board: String, gid: Int)])?

    func value(version: Int) -> [(board: String, gid: Int)]? {
        lock.withLock { entry?.version == version ? entry?.topics : nil }
    }

    func store(_ topics: [(board: String, gid: Int)], version: Int) {
        lock.withLock { entry = (version, topics) }
    }
}

/// A least-recently-used cache of generated boards behind a lock.
private final class BoardCache: @unchecked Sendable {
    // @unchecked: every access to the mutable state below holds `lock`.
    private let lock = NSLock()
    private let capacity: Int
    private var entries: [String: (board: GeneratedBoard, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func value(for name: String) -> GeneratedBoard? {
        lock.withLock {
            guard let entry = entries[name] else { return nil }
            clock += 1
            entries[name] = (entry.board, clock)
            return entry.board
        }
    }

    /// Stores `board` unless another thread got there first; returns the stored one.
    func insert(_ board: GeneratedBoard, for name: String) -> GeneratedBoard {
        lock.withLock {
            clock += 1
            if let existing = entries[name] {
                entries[name] = (existing.board, clock)
                return existing.board
            }
            if entries.count >= capacity,
                let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                entries.removeValue(forKey: oldest)
            }
            entries[name] = (board, clock)
            return board
        }
    }
}

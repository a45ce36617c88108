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
    private let cache = BoardCache(capacity: 8)
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

        var sections = [ReplicaSection]()
        for s in 0..<(total == 0 ? 0 : sectionCount) {
            let catalogueName = TextCorpus.sections[s % TextCorpus.sections.count]
            let round = s / TextCorpus.sections.count
            sections.append(
                ReplicaSection(
                    code: String(s),
                    name: round == 0 ? catalogueName : "\(catalogueName)\(round + 1)",
                    boardNames: Array(names[(s * perSection)..<((s + 1) * perSection)])))
        }
        self.sections = sections
        users = UserPool(seed: config.seed)
    }

    /// The board with exactly this id (case-sensitive), generating it if needed.
    public func board(named name: String) -> ReplicaBoard? {
        generated(named: name)?.board
    }

    /// The Chinese title of a board, without generating it.
    func title(ofBoard name: String) -> String? {
        boardInfo[name]?.title
    }

    func generated(named name: String) -> GeneratedBoard? {
        guard let info = boardInfo[name] else { return nil }
        if let hit = cache.value(for: name) { return grown(hit) }
        // Generated outside the lock: two requests racing for the same board
        // both generate it, which is wasted work but gives equal results.
        let board = makeGenerator(name: name, index: info.index, title: info.title).generate()
        return grown(cache.insert(board, for: name))
    }

    private func makeGenerator(name: String, index: Int, title: String) -> BoardGenerator {
        BoardGenerator(config: config, users: users, boardIndex: index, name: name, title: title)
    }
}

extension ReplicaForum {
    /// What a complete archive of the forum holds, board by board.
    public func groundTruth() -> GroundTruth {
        GroundTruth(
            boards: boardNames.compactMap { name in
                guard let info = boardInfo[name] else { return nil }
                // Boards not in the cache are generated without entering it, so
                // walking a big forum does not evict the boards being served.
                let generated = grown(
                    cache.value(for: name)
                        ?? makeGenerator(name: name, index: info.index, title: info.title).generate())
                let board = generated.board
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

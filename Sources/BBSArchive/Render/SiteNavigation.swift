import Foundation

/// How boards are grouped on the home page, the sidebar and section pages:
/// by the forum's sections when the store knows them, otherwise (or for
/// boards filed nowhere) in one group, so every board is always listed.
struct SiteNavigation {
    struct Group {
        /// The section's code, or `nil` for the group of unfiled boards.
        var code: String?
        /// The section's name; empty for the group of unfiled boards,
        /// which the templates and `SiteStrings` name (全部版面 or 其他版面).
        var name: String
        var boards: [StoredBoard]
        /// Codes of the sections nested directly inside this one.
        var children: [String]
    }

    let boards: [StoredBoard]
    let groups: [Group]
    /// Whether the store knows any sections (then section pages are written).
    let hasSections: Bool

    init(boards: [StoredBoard], filing: StoredSectionFiling) {
        self.boards = boards
        var bySection: [String: [StoredBoard]] = [:]
        var unfiled: [StoredBoard] = []
        let known = Set(filing.sections.map(\.code))
        for board in boards {
            if let code = filing.boardSection[board.name], known.contains(code) {
                bySection[code, default: []].append(board)
            } else {
                unfiled.append(board)
            }
        }
        var groups = filing.sections.map { section in
            Group(
                code: section.code, name: section.name, boards: bySection[section.code] ?? [],
                children: filing.sections.filter { $0.parent == section.code }.map(\.code))
        }
        if !unfiled.isEmpty {
            groups.append(
                Group(code: nil, name: "", boards: unfiled, children: []))
        }
        hasSections = !filing.sections.isEmpty
        // A section with neither boards nor subsections is noise on every page.
        self.groups = groups.filter { !$0.boards.isEmpty || !$0.children.isEmpty }
    }

    func group(code: String) -> Group? { groups.first { $0.code == code } }

    /// The sections around `code`, outermost first, `code`'s own last: a
    /// sub-section's breadcrumbs name its parent too. A filing that loops
    /// stops at the first section seen again.
    func trail(section code: String) -> [Group] {
        var parent: [String: String] = [:]
        for group in groups {
            guard let outer = group.code else { continue }
            for child in group.children where parent[child] == nil { parent[child] = outer }
        }
        var trail: [Group] = []
        var seen: Set<String> = []
        var next: String? = code
        while let current = next, seen.insert(current).inserted, let group = group(code: current) {
            trail.insert(group, at: 0)
            next = parent[current]
        }
        return trail
    }

    /// The breadcrumbs (label, site path) of the sections a board is filed
    /// under, outermost first; none for an unfiled board.
    func sectionCrumbs(board: String) -> [(String, String)] {
        guard let code = groups.first(where: { $0.code != nil && $0.boards.contains { $0.name == board } })?.code
        else { return [] }
        return trail(section: code).compactMap { group in group.code.map { (group.name, SitePaths.section($0)) } }
    }
}

/// A thread chosen for a list of the whole archive, with what a card or a
/// feed entry shows of it.
struct ThreadDigest {
    var thread: StoredThread
    var boardTitle: String
    /// The first lines of the first archived post, shortened.
    var excerpt: String
    /// The first image of the thread's first post, as a site path.
    var image: String? = nil
    var imageAlt: String? = nil
    /// The thread's address on the forum.
    var original: String? = nil
}

/// Keeps the best `limit` digests by `ordered`, seen one at a time, so
/// choosing hot topics among a million threads holds only `limit` of them.
struct TopThreads {
    let limit: Int
    let ordered: (ThreadDigest, ThreadDigest) -> Bool
    private(set) var items: [ThreadDigest] = []

    init(limit: Int, ordered: @escaping (ThreadDigest, ThreadDigest) -> Bool) {
        self.limit = limit
        self.ordered = ordered
    }

    /// The same selection, with nothing chosen yet.
    func emptied() -> TopThreads { TopThreads(limit: limit, ordered: ordered) }

    /// Whether a digest would make the list, checked before building one.
    func wants(_ thread: StoredThread, boardTitle: String) -> Bool {
        guard limit > 0 else { return false }
        guard items.count >= limit, let worst = items.last else { return true }
        let probe = ThreadDigest(thread: thread, boardTitle: boardTitle, excerpt: "")
        return ordered(probe, worst)
    }

    mutating func offer(_ digest: ThreadDigest) {
        guard limit > 0 else { return }
        let index = items.firstIndex { ordered(digest, $0) } ?? items.count
        guard index < limit else { return }
        items.insert(digest, at: index)
        if items.count > limit { items.removeLast() }
    }
}

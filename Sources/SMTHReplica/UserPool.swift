/// The forum's users: ids in SMTH's style (ASCII letters and digits, 2–12
/// characters, starting with a letter) with Chinese nicknames. One pool serves
/// every board, so the same people turn up across boards as on a real forum.
struct UserPool: Sendable {
    let ids: [String]
    let nicks: [String: String]

    init(seed: UInt64, count: Int = 160) {
        var rng = SeededRandom(seed: seed, stream: 0x05E7)
        var ids = [String]()
        var seen = Set<String>()
        func add(_ id: String) {
            guard (2...12).contains(id.count), !seen.contains(id) else { return }
            seen.insert(id)
            ids.append(id)
        }
        for id in TextCorpus.capitalIds { add(id) }
        // Bounded loop: stems times digits give far more ids than needed.
        var attempts = 0
        while ids.count < count, attempts < count * 20 {
            attempts += 1
            var id = rng.pick(TextCorpus.userStems, or: "user")
            switch rng.below(4) {
            case 0: break
            case 1: id += String(rng.int(1...99))
            case 2: id += String(rng.int(1960...2023))
            default: id += rng.pick(TextCorpus.userStems, or: "x").lowercased()
            }
            add(id)
        }
        var nicks = [String: String]()
        for id in ids {
            nicks[id] = rng.pick(TextCorpus.nickParts, or: "小") + rng.pick(TextCorpus.nickParts, or: "鱼")
        }
        self.ids = ids
        self.nicks = nicks
    }

    func random(using rng: inout SeededRandom) -> String {
        rng.pick(ids, or: "guest")
    }

    func nick(of id: String) -> String {
        nicks[id] ?? id
    }
}

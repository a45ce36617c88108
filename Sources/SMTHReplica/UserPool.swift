/// The forum's users: ids in SMTH's style (ASCII letters and digits, 2–12
/// characters, starting with a letter) with Chinese nicknames. One pool serves
/// every board, so the same people turn up across boards as on a real forum.
struct UserPool: Sendable {
    let ids: [String]
    let nicks: [String: String]
    /// About a third of the users sign their posts; the others are absent.
    let signatures: [String: [String]]
    /// What the user query shows besides the nick.
    let profiles: [String: Profile]

    struct Profile: Sendable {
        var gender: String
        var postCount: Int
        var loginCount: Int
        var score: Int
    }

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

        // Everything added since the first version draws from a stream of its
        // own, so the ids and most nicks stay what they were for a seed.
        var extra = SeededRandom(seed: seed, stream: 0x05E8)
        var signatures = [String: [String]]()
        var profiles = [String: Profile]()
        for id in ids {
            if extra.chance(1.0 / 8.0) {
                nicks[id] = extra.pick(TextCorpus.awkwardNicks, or: "无名")
            }
            if extra.chance(1.0 / 3.0) {
                // Distinct lines, in catalogue order from a random start.
                let catalogue = TextCorpus.signatureLines
                let start = extra.below(catalogue.count)
                signatures[id] = (0..<min(catalogue.count, extra.int(1...3))).map {
                    catalogue[(start + $0 * 2) % catalogue.count]
                }
            }
            profiles[id] = Profile(
                gender: extra.chance(0.6) ? "m" : "f",
                postCount: extra.int(1...20_000),
                loginCount: extra.int(10...30_000),
                score: extra.int(0...80_000))
        }
        self.ids = ids
        self.nicks = nicks
        self.signatures = signatures
        self.profiles = profiles
    }

    func random(using rng: inout SeededRandom) -> String {
        rng.pick(ids, or: "guest")
    }

    func nick(of id: String) -> String {
        nicks[id] ?? id
    }

    func signature(of id: String) -> [String] {
        signatures[id] ?? []
    }
}

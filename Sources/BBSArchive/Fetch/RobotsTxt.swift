import Foundation

/// The rules a site's `/robots.txt` sets for bbsarchive (RFC 9309), plus the
/// widely used `Crawl-delay` extension.
package struct RobotsTxt: Sendable, Equatable {
    struct Rule: Sendable, Equatable {
        var allow: Bool
        var pattern: String
    }

    var rules: [Rule]
    /// Seconds to leave between requests, when the site asks for it.
    package var crawlDelay: Double?

    package static let allowAll = RobotsTxt(rules: [], crawlDelay: nil)
    package static let disallowAll = RobotsTxt(rules: [Rule(allow: false, pattern: "/")], crawlDelay: nil)

    init(rules: [Rule], crawlDelay: Double?) {
        self.rules = rules
        self.crawlDelay = crawlDelay
    }

    /// Reads the groups that apply to `agent` (bbsarchive's product token),
    /// or else the `*` groups.
    package init(_ text: String, agent: String = "bbsarchive") {
        struct Group {
            var agents: [String] = []
            var rules: [Rule] = []
            var crawlDelay: Double?
        }
        var groups: [Group] = []
        var current = Group()
        var lastWasAgent = false
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let pair = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            let key = pair[0].lowercased()
            let value = pair[1]
            switch key {
            case "user-agent":
                if !lastWasAgent, !current.agents.isEmpty {
                    groups.append(current)
                    current = Group()
                }
                current.agents.append(value.lowercased())
                lastWasAgent = true
            case "allow", "disallow":
                lastWasAgent = false
                // An empty Disallow allows everything: it adds no rule.
                if !value.isEmpty { current.rules.append(Rule(allow: key == "allow", pattern: value)) }
            case "crawl-delay":
                lastWasAgent = false
                if let seconds = Double(value), seconds.isFinite, seconds >= 0 { current.crawlDelay = seconds }
            default:
                continue
            }
        }
        if !current.agents.isEmpty { groups.append(current) }

        let token = agent.lowercased()
        var chosen = groups.filter { group in group.agents.contains { $0 != "*" && token.contains($0) } }
        if chosen.isEmpty { chosen = groups.filter { $0.agents.contains("*") } }
        rules = chosen.flatMap(\.rules)
        crawlDelay = chosen.compactMap(\.crawlDelay).max()
    }

    /// Whether `path` (with its query) may be fetched: the longest matching
    /// rule wins, and `Allow` wins a tie.
    package func allows(_ path: String) -> Bool {
        var best: Rule?
        for rule in rules where Self.matches(rule.pattern, path) {
            if let current = best {
                if rule.pattern.count > current.pattern.count
                    || (rule.pattern.count == current.pattern.count && rule.allow)
                {
                    best = rule
                }
            } else {
                best = rule
            }
        }
        return best?.allow ?? true
    }

    /// `*` matches any run of characters; a final `$` anchors the end.
    static func matches(_ pattern: String, _ path: String) -> Bool {
        var pattern = Substring(pattern)
        let anchored = pattern.hasSuffix("$")
        if anchored { pattern = pattern.dropLast() }
        let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false)
        var rest = Substring(path)
        for (index, piece) in pieces.enumerated() {
            if index == 0 {
                guard rest.hasPrefix(piece) else { return false }
                rest = rest.dropFirst(piece.count)
            } else if piece.isEmpty {
                continue
            } else if index == pieces.count - 1 && anchored {
                return rest.hasSuffix(piece)
            } else {
                // The standard library's search, not Foundation's `range(of:)`,
                // which returned a range outside `rest` for a pattern with a
                // NUL byte in it (found by `make fuzz`) and trapped.
                guard let range = rest.firstRange(of: piece) else { return false }
                rest = rest[range.upperBound...]
            }
        }
        return !anchored || rest.isEmpty || pieces.last?.isEmpty == true
    }
}

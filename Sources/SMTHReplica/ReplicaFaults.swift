import Foundation

/// The ways the replica can misbehave on purpose, so the archiver's answers
/// to a real forum's bad days (overload, rate limits, broken connections,
/// wrong headers, login walls, robots.txt) can be tested.
public struct ReplicaFaults: Sendable {
    /// One kind of failure, applied to a set of request targets.
    public struct Rule: Sendable, Equatable {
        public enum Kind: String, Sendable, CaseIterable {
            /// 503 Service Unavailable with `Retry-After`.
            case unavailable = "503"
            /// 429 Too Many Requests with `Retry-After`.
            case tooManyRequests = "429"
            /// 500 Internal Server Error, no hint.
            case serverError = "500"
            /// The response starts only after `delay`.
            case slow
            /// Headers promise the whole body; half of it arrives, then the connection closes.
            case truncated
            /// Headers arrive, then the connection closes before any body byte.
            case reset
            /// A thread page whose post headers cannot be read: nForum's
            /// `发信人` header lines and the mobile site's post times are
            /// garbled, every time the page is asked for.
            case garbledHeaders = "garbled-headers"
            /// A list page whose rows' post times cannot be read (those
            /// older than today, which the list shows as a date), every
            /// time the page is asked for.
            case garbledRows = "garbled-rows"
        }

        /// Which requests a rule may hit.
        public enum Paths: String, Sendable, CaseIterable {
            case all, boards, threads, media
        }

        public var kind: Kind
        public var paths: Paths
        /// A request target fails its first `times` requests, then succeeds;
        /// a large number makes the failure permanent.
        public var times: Int
        /// Only every n-th target (chosen by a hash of the target, so the
        /// same ones every run) is hit; 1 hits all.
        public var every: Int
        /// Seconds sent in `Retry-After` (503 and 429).
        public var retryAfter: Int
        /// How long `slow` waits.
        public var delay: Duration

        public init(
            _ kind: Kind, paths: Paths = .all, times: Int = 1, every: Int = 1, retryAfter: Int = 1,
            delay: Duration = .milliseconds(300)
        ) {
            self.kind = kind
            self.paths = paths
            self.times = times
            self.every = every
            self.retryAfter = retryAfter
            self.delay = delay
        }

        func applies(to target: String) -> Bool {
            let path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
            switch paths {
            case .all: break
            // Each kind covers the mobile route and its nForum twin.
            case .boards: guard path.hasPrefix("/board/") || path.hasPrefix("/nForum/board/") else { return false }
            case .threads: guard path.hasPrefix("/article/") || path.hasPrefix("/nForum/article/") else { return false }
            case .media: guard path.hasPrefix("/att/") || path.hasPrefix("/nForum/att/") else { return false }
            }
            return every <= 1 || ReplicaFaults.hash(target) % UInt64(every) == 0
        }
    }

    public var rules: [Rule]
    /// The body of `/robots.txt`; `nil` answers 404 (everything allowed).
    public var robots: String?
    /// A board that answers 您无权阅读此版面 unless the request carries `sessionCookie`.
    public var loginBoard: String?
    /// The cookie (`name=value`) that opens `loginBoard`.
    public var sessionCookie: String
    /// The login board's first `loginAfter` requests pass without the
    /// cookie: a wall that goes up in the middle of a run.
    public var loginAfter = 0
    /// Label pages with the wrong charset: `charset=GBK` on the mobile
    /// site's UTF-8 pages, `charset=UTF-8` on nForum's GBK pages.
    public var wrongCharset: Bool
    /// Answer `If-None-Match` with 304 when the page has not changed.
    public var conditionalRequests: Bool
    /// Serve `HostileBoard` beside the generated boards.
    public var hostile = false
    /// Serve `PhotoBoard` (large and tall images) beside the generated boards.
    public var photos = false

    public init(
        rules: [Rule] = [], robots: String? = nil, loginBoard: String? = nil,
        sessionCookie: String = "KBS_SESSION=replica-session", wrongCharset: Bool = false,
        conditionalRequests: Bool = true
    ) {
        self.rules = rules
        self.robots = robots
        self.loginBoard = loginBoard
        self.sessionCookie = sessionCookie
        self.wrongCharset = wrongCharset
        self.conditionalRequests = conditionalRequests
    }

    /// The rule that hits this request, given how often its target was asked for.
    func rule(for target: String, hit: Int) -> Rule? {
        rules.first { $0.applies(to: target) && hit <= $0.times }
    }

    /// Reads a command-line fault: `KIND[,paths=P][,times=N][,every=N][,retry-after=S][,delay-ms=MS]`.
    public static func parseRule(_ text: String) -> Rule? {
        let fields = text.split(separator: ",").map(String.init)
        guard let first = fields.first, let kind = Rule.Kind(rawValue: first) else { return nil }
        var rule = Rule(kind)
        for field in fields.dropFirst() {
            let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return nil }
            switch pair[0] {
            case "paths":
                guard let paths = Rule.Paths(rawValue: pair[1]) else { return nil }
                rule.paths = paths
            case "times":
                guard let n = Int(pair[1]), n >= 0 else { return nil }
                rule.times = n
            case "every":
                guard let n = Int(pair[1]), n >= 1 else { return nil }
                rule.every = n
            case "retry-after":
                guard let n = Int(pair[1]), n >= 0 else { return nil }
                rule.retryAfter = n
            case "delay-ms":
                guard let n = Int(pair[1]), n >= 0 else { return nil }
                rule.delay = .milliseconds(n)
            default:
                return nil
            }
        }
        return rule
    }

    /// FNV-1a, 64 bits: a stable choice of targets across runs and machines.
    static func hash(_ text: String) -> UInt64 {
        hash(bytes: text.utf8)
    }

    /// The same over raw bytes, for bodies that are not UTF-8 (nForum's GBK).
    static func hash<Bytes: Sequence>(bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
        return value
    }
}

import FlyingFox
import FlyingSocks
import Foundation

/// Serves a `ReplicaForum` on 127.0.0.1 as SMTH's mobile site and, under
/// `/nForum/`, as the desktop site's `?ajax` fragments.
public actor ReplicaServer {
    public enum ServerError: Error, CustomStringConvertible {
        case alreadyStarted
        case listenFailed(port: UInt16, reason: String)

        public var description: String {
            switch self {
            case .alreadyStarted: "the replica server is already running"
            case .listenFailed(let port, let reason): "cannot listen on 127.0.0.1:\(port): \(reason)"
            }
        }
    }

    private let responder: ReplicaResponder
    private let faults: ReplicaFaults
    private let clock: @Sendable () -> Date
    private let recorder = RequestRecorder()
    private var server: HTTPServer?
    private var runTask: Task<Void, Never>?

    /// Seconds a response may take before FlyingFox answers 500 instead:
    /// its default, 15, turned the ground truth of the 1M-post forum
    /// (`/_replica/truth.json`, every board generated, 18 s on a slow
    /// moment of a 2-core machine) into a 500, and `make bench
    /// BENCH_SCALE=large` stopped there. A 500 nobody asked for (the
    /// `serverError` fault) would measure FlyingFox, not bbsarchive; the
    /// `slow` fault's delays stay as asked.
    static let handlerTimeout: TimeInterval = 600

    /// - Parameters:
    ///   - faults: how the server misbehaves on purpose (none by default).
    ///   - clock: the time a request is served at, which decides what counts
    ///     as "today" on board listings. Tests can pin it; it defaults to now.
    public init(
        forum: ReplicaForum, faults: ReplicaFaults = ReplicaFaults(),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        responder = ReplicaResponder(forum: forum)
        self.faults = faults
        self.clock = clock
    }

    /// Binds 127.0.0.1 (port 0 picks a free one) and returns the base URL,
    /// e.g. `http://127.0.0.1:41234`, once the server accepts connections.
    public func start(port: UInt16 = 0) async throws -> URL {
        guard server == nil else { throw ServerError.alreadyStarted }
        let handler = ReplicaHTTPHandler(responder: responder, faults: faults, clock: clock, recorder: recorder)
        let http = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: port),
            timeout: Self.handlerTimeout, pool: NoDelaySocketPool(base: HTTPServer.defaultPool()), logger: .disabled,
            handler: handler)
        let failure = FailureBox()
        let task = Task {
            do { try await http.run() } catch { failure.set(error) }
        }

        // `run()` only returns when the server stops, and a bind failure
        // (port in use) would leave `waitUntilListening()` waiting until its
        // timeout, so poll for either outcome.
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            if let error = failure.get() {
                throw ServerError.listenFailed(port: port, reason: Self.describe(error))
            }
            if await http.isListening, let address = await http.listeningAddress {
                guard case .ip4(_, let boundPort) = address,
                    let url = URL(string: "http://127.0.0.1:\(boundPort)")
                else {
                    await http.stop()
                    task.cancel()
                    throw ServerError.listenFailed(port: port, reason: "unexpected address \(address)")
                }
                server = http
                runTask = task
                return url
            }
            if ContinuousClock.now > deadline {
                await http.stop()
                task.cancel()
                throw ServerError.listenFailed(port: port, reason: "timed out waiting for the socket")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Closes the socket and waits for the server task to end. Safe to call twice.
    public func stop() async {
        guard let http = server else { return }
        server = nil
        await http.stop(timeout: 1)
        runTask?.cancel()
        await runTask?.value
        runTask = nil
    }

    /// Requests received so far.
    public func requestCount() -> Int {
        recorder.count
    }

    /// Request targets (path and query, as sent) in the order received.
    public func requestLog() -> [String] {
        recorder.entries.map(\.target)
    }

    /// Every request's `Host` header, target and `Cookie` header, in order:
    /// which host name each request was sent to, with which cookies.
    public nonisolated func visits() -> [(host: String, target: String, cookie: String?)] {
        recorder.visits
    }

    /// Request targets with the time each arrived, in order.
    public func timedRequestLog() -> [(at: Date, target: String)] {
        recorder.entries
    }

    private static func describe(_ error: any Error) -> String {
        if let socketError = error as? SocketError, case .failed(_, _, let message) = socketError {
            return message
        }
        return String(describing: error)
    }
}

/// The request log, written from connection tasks without hopping onto the actor,
/// so the log order is the order requests arrived.
final class RequestRecorder: @unchecked Sendable {
    // @unchecked: `log`, `hits` and `kinds` are only touched while holding `lock`.
    private let lock = NSLock()
    private var log = [(at: Date, target: String)]()
    private var hits = [String: Int]()
    private var kinds = [String: Int]()
    private var visitLog = [(host: String, target: String, cookie: String?)]()

    /// Logs the host name and cookies a request was sent with.
    func visit(host: String, target: String, cookie: String?) {
        lock.withLock { visitLog.append((host, target, cookie)) }
    }

    var visits: [(host: String, target: String, cookie: String?)] { lock.withLock { visitLog } }

    /// Logs a request; returns how many times this target was asked for so far.
    func record(_ target: String, at time: Date) -> Int {
        lock.withLock {
            log.append((time, target))
            hits[target, default: 0] += 1
            return hits[target, default: 1]
        }
    }

    /// Counts one more of `kind`; returns how many there were so far.
    func count(of kind: String) -> Int {
        lock.withLock {
            kinds[kind, default: 0] += 1
            return kinds[kind, default: 1]
        }
    }

    var count: Int { lock.withLock { log.count } }
    var entries: [(at: Date, target: String)] { lock.withLock { log } }
}

/// Holds the error the server task ended with, if any.
private final class FailureBox: @unchecked Sendable {
    // @unchecked: `error` is only touched while holding `lock`.
    private let lock = NSLock()
    private var error: (any Error)?

    func set(_ error: any Error) { lock.withLock { self.error = error } }
    func get() -> (any Error)? { lock.withLock { error } }
}

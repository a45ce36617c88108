import FlyingFox
import FlyingSocks
import Foundation

/// Serves a `ReplicaForum` as SMTH's mobile site on 127.0.0.1.
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
    private let clock: @Sendable () -> Date
    private let recorder = RequestRecorder()
    private var server: HTTPServer?
    private var runTask: Task<Void, Never>?

    /// - Parameter clock: the time a request is served at, which decides what
    ///   counts as "today" on board listings. Tests can pin it; it defaults to now.
    public init(forum: ReplicaForum, clock: @escaping @Sendable () -> Date = { Date() }) {
        responder = ReplicaResponder(forum: forum)
        self.clock = clock
    }

    /// Binds 127.0.0.1 (port 0 picks a free one) and returns the base URL,
    /// e.g. `http://127.0.0.1:41234`, once the server accepts connections.
    public func start(port: UInt16 = 0) async throws -> URL {
        guard server == nil else { throw ServerError.alreadyStarted }
        let responder = self.responder
        let clock = self.clock
        let recorder = self.recorder
        let handler = ClosureHTTPHandler { request in
            recorder.record(request.target.rawValue)
            let query = request.query.map { (name: $0.name, value: $0.value) }
            let response = responder.respond(path: request.path, query: query, now: clock())
            return HTTPResponse(
                statusCode: HTTPStatusCode(response.status, phrase: response.status == 200 ? "OK" : "Not Found"),
                headers: [.contentType: response.contentType],
                body: response.body)
        }
        let http = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: port),
            timeout: 15, logger: .disabled, handler: handler)
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
private final class RequestRecorder: @unchecked Sendable {
    // @unchecked: `log` is only touched while holding `lock`.
    private let lock = NSLock()
    private var log = [String]()

    func record(_ target: String) {
        lock.withLock { log.append(target) }
    }

    var count: Int { lock.withLock { log.count } }
    var entries: [String] { lock.withLock { log } }
}

/// Holds the error the server task ended with, if any.
private final class FailureBox: @unchecked Sendable {
    // @unchecked: `error` is only touched while holding `lock`.
    private let lock = NSLock()
    private var error: (any Error)?

    func set(_ error: any Error) { lock.withLock { self.error = error } }
    func get() -> (any Error)? { lock.withLock { error } }
}

import FlyingFox
import FlyingSocks
import Foundation

/// `bbsarchive serve`: previews a built site over HTTP.
///
/// Serves only regular files inside the folder: a path with `..` (plain or
/// percent-encoded) is refused with 400, and a file reached through a
/// symbolic link that leads out of the folder is a 404, as is anything
/// missing (with the site's `404.html` as the body when there is one).
package actor SiteServer {
    package let root: URL
    private var server: HTTPServer?
    private var runTask: Task<Void, Never>?

    package init(root: URL) { self.root = root }

    /// Binds `host:port` (port 0 picks a free one) and returns the address
    /// to open, `http://HOST:PORT/`, once the server accepts connections.
    package func start(host: String = "127.0.0.1", port: UInt16 = 0) async throws(ArchiveError) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .unreadableFile(path: root.path, reason: "there is no such folder; build the site first")
        }
        let address: SocketAddress
        do {
            address = host.contains(":") ? try .inet6(ip6: host, port: port) : try .inet(ip4: host, port: port)
        } catch {
            throw .invalidOption("--host \"\(host)\" is not an IP address, e.g. 127.0.0.1 or ::1")
        }
        let handler = SiteFileHandler(root: root.resolvingSymlinksInPath())
        let http = HTTPServer(
            config: HTTPServer.Configuration(
                address: address, timeout: 15, pool: NoDelayPool(HTTPServer.defaultPool()), logger: .disabled),
            handler: handler)
        let failure = ServeFailure()
        let task = Task {
            do { try await http.run() } catch { failure.set(error) }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            if let error = failure.get() {
                throw .invalidOption("cannot listen on \(host):\(port): \(Self.describe(error))")
            }
            if await http.isListening, let bound = await http.listeningAddress {
                let shown = host.contains(":") ? "[\(host)]" : host
                let boundPort: UInt16
                switch bound {
                case .ip4(_, let port): boundPort = port
                case .ip6(_, let port): boundPort = port
                default:
                    await http.stop()
                    task.cancel()
                    throw .invalidOption("cannot listen on \(host):\(port): unexpected address \(bound)")
                }
                server = http
                runTask = task
                return "http://\(shown):\(boundPort)/"
            }
            if ContinuousClock.now > deadline {
                await http.stop()
                task.cancel()
                throw .invalidOption("cannot listen on \(host):\(port): timed out waiting for the socket")
            }
            // Stopped while waiting (Ctrl-C at start-up): close the socket
            // and say so, instead of polling until the deadline.
            do {
                try await Task.sleep(for: .milliseconds(2))
            } catch {
                await http.stop()
                task.cancel()
                throw .invalidOption("cannot listen on \(host):\(port): stopped before the socket was open")
            }
        }
    }

    /// Closes the socket and waits for the server to end. Safe to call twice.
    package func stop() async {
        guard let http = server else { return }
        server = nil
        await http.stop(timeout: 1)
        runTask?.cancel()
        await runTask?.value
        runTask = nil
    }

    private static func describe(_ error: any Error) -> String {
        if let socketError = error as? SocketError, case .failed(_, _, let message) = socketError { return message }
        return String(describing: error)
    }
}

/// Maps request paths to files under the root.
struct SiteFileHandler: HTTPHandler {
    let root: URL

    func handleRequest(_ request: FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse {
        guard request.method == .GET || request.method == .HEAD else {
            return Self.plain(405, "Method Not Allowed")
        }
        switch Self.resolve(target: request.target.rawValue, root: root) {
        case .bad:
            return Self.plain(400, "Bad Request")
        case .missing:
            return notFound()
        case .file(let url):
            guard let data = FileManager.default.contents(atPath: url.path) else { return notFound() }
            return FlyingFox.HTTPResponse(
                statusCode: .ok,
                headers: [
                    .contentType: Self.contentType(url), HTTPHeader("X-Content-Type-Options"): "nosniff",
                ],
                body: request.method == .HEAD ? Data() : data)
        }
    }

    private func notFound() -> FlyingFox.HTTPResponse {
        let page = FileManager.default.contents(atPath: root.appendingPathComponent("404.html").path)
        return FlyingFox.HTTPResponse(
            statusCode: .notFound,
            headers: [.contentType: page == nil ? "text/plain; charset=utf-8" : "text/html; charset=utf-8"],
            body: page ?? Data("Not Found\n".utf8))
    }

    private static func plain(_ status: Int, _ phrase: String) -> FlyingFox.HTTPResponse {
        FlyingFox.HTTPResponse(
            statusCode: HTTPStatusCode(status, phrase: phrase), headers: [.contentType: "text/plain; charset=utf-8"],
            body: Data("\(phrase)\n".utf8))
    }

    enum Resolution: Equatable {
        case bad
        case missing
        case file(URL)
    }

    /// The file a request target names, if it is a regular file inside `root`
    /// (which must have its symbolic links resolved).
    static func resolve(target: String, root: URL) -> Resolution {
        let path = String(target.prefix { $0 != "?" && $0 != "#" })
        guard let decoded = path.removingPercentEncoding, !decoded.contains("\0") else { return .bad }
        let parts = decoded.split(separator: "/", omittingEmptySubsequences: true)
        guard !parts.contains(where: { $0 == ".." || $0.contains("\\") }) else { return .bad }
        var url = root
        for part in parts where part != "." { url.appendPathComponent(String(part)) }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return .missing }
        if isFolder.boolValue {
            url.appendPathComponent("index.html")
        }
        let real = url.resolvingSymlinksInPath()
        guard real.path.hasPrefix(root.path.hasSuffix("/") ? root.path : root.path + "/"),
            FileManager.default.fileExists(atPath: real.path, isDirectory: &isFolder), !isFolder.boolValue
        else { return .missing }
        return .file(real)
    }

    static func contentType(_ url: URL) -> String {
        if url.lastPathComponent == "feed.xml" { return "application/atom+xml; charset=utf-8" }
        return switch url.pathExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "xml": "application/xml"
        case "md": "text/markdown; charset=utf-8"
        case "txt": "text/plain; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "ico": "image/x-icon"
        case "bmp": "image/bmp"
        case "pdf": "application/pdf"
        case "zip": "application/zip"
        case "mp3": "audio/mpeg"
        case "mp4": "video/mp4"
        default: "application/octet-stream"
        }
    }
}

private final class ServeFailure: @unchecked Sendable {
    // @unchecked: `error` is only touched while holding `lock`.
    private let lock = NSLock()
    private var error: (any Error)?

    func set(_ error: any Error) { lock.withLock { self.error = error } }
    func get() -> (any Error)? { lock.withLock { error } }
}

/// The server's socket pool, with Nagle's algorithm off on every socket it
/// waits on (the listening socket, whose connections inherit it, and each
/// connection). FlyingFox writes a response's header and body apart; with
/// Nagle on, the body of every response after the first on a kept-alive
/// connection waits for the client's delayed ACK, about 40 ms, which made a
/// search page that loads a dozen index files take 150 ms longer.
struct NoDelayPool: AsyncSocketPool {
    let inner: any AsyncSocketPool

    init(_ inner: any AsyncSocketPool) { self.inner = inner }

    func prepare() async throws { try await inner.prepare() }
    func run() async throws { try await inner.run() }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        try? socket.setValue(true, for: BoolSocketOption(level: Int32(IPPROTO_TCP), name: Int32(TCP_NODELAY)))
        try await inner.suspendSocket(socket, untilReadyFor: events)
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `bbsarchive serve`: previews a built site over HTTP.
///
/// Serves only regular files inside the folder: a path with `..` (plain or
/// percent-encoded) is refused with 400, and a file reached through a
/// symbolic link that leads out of the folder is a 404, as is anything
/// missing (with the site's `404.html` as the body when there is one).
///
/// A small HTTP/1.1 server on plain sockets, a thread a connection (a
/// preview has a handful of clients): GET and HEAD, kept-alive connections,
/// each answer written whole in one go. It used FlyingFox, whose module links
/// FoundationNetworking and so libcurl, which every run of every command
/// then loaded (~7 ms of the dynamic loader's work) though only `fetch`
/// needs it.
package actor SiteServer {
    package let root: URL
    /// Connections served at once; one more is answered 503 and closed.
    /// Each has a thread, so a client that opens thousands (the preview
    /// can listen beyond loopback with `--host`) cannot exhaust the process.
    package let maxConnections: Int
    private var listener: SiteListener?

    package init(root: URL, maxConnections: Int = 64) {
        self.root = root
        self.maxConnections = max(1, maxConnections)
    }

    /// Binds `host:port` (port 0 picks a free one) and returns the address
    /// to open, `http://HOST:PORT/`, once the server accepts connections.
    package func start(host: String = "127.0.0.1", port: UInt16 = 0) async throws(ArchiveError) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .unreadableFile(path: root.path, reason: "there is no such folder; build the site first")
        }
        let handler = SiteFileHandler(root: root.resolvingSymlinksInPath())
        let listener = try SiteListener.open(
            host: host, port: port, handler: handler, maxConnections: maxConnections)
        self.listener = listener
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(listener.port)/"
    }

    /// Closes the socket and every open connection, and waits for the
    /// server's thread to end. Safe to call twice.
    package func stop() async {
        guard let listener else { return }
        self.listener = nil
        await listener.stop()
    }
}

/// The listening socket and its thread, which accepts connections and hands
/// each to a thread of its own.
private final class SiteListener: @unchecked Sendable {
    // @unchecked: `stopping`, `connections` and `ended` are only touched
    // while holding `lock`; the descriptor never changes once open.
    private let listening: Int32
    let port: UInt16
    private let handler: SiteFileHandler
    private let maxConnections: Int
    private let lock = NSLock()
    private var stopping = false
    private var connections: Set<Int32> = []
    private var ended = false
    private var waiting: CheckedContinuation<Void, Never>?

    private init(socket: Int32, port: UInt16, handler: SiteFileHandler, maxConnections: Int) {
        self.listening = socket
        self.port = port
        self.handler = handler
        self.maxConnections = maxConnections
    }

    static func open(host: String, port: UInt16, handler: SiteFileHandler, maxConnections: Int)
        throws(ArchiveError) -> SiteListener
    {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw .invalidOption("--host \"\(host)\" is not an IP address, e.g. 127.0.0.1 or ::1")
        }
        defer { freeaddrinfo(found) }
        func failure(_ what: String) -> ArchiveError {
            .invalidOption("cannot listen on \(host):\(port): \(what): \(String(cString: strerror(errno)))")
        }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("socket") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let error = failure("bind")
            close(fd)
            throw error
        }
        guard listen(fd, 64) == 0 else {
            let error = failure("listen")
            close(fd)
            throw error
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = failure("getsockname")
            close(fd)
            throw error
        }
        let family = Int32(bound.ss_family)
        let boundPort: UInt16 = withUnsafePointer(to: bound) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt16(bigEndian: $0.pointee.sin_port)
            }
        }
        let listener = SiteListener(socket: fd, port: boundPort, handler: handler, maxConnections: maxConnections)
        let thread = Thread { listener.acceptLoop() }
        thread.name = "bbsarchive.serve"
        thread.start()
        return listener
    }

    func stop() async {
        let open = lock.withLock {
            stopping = true
            return connections
        }
        // Wakes the threads blocked in recv on kept-alive connections.
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        await withCheckedContinuation { continuation in
            let done = lock.withLock {
                if ended { return true }
                waiting = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func acceptLoop() {
        while !isStopping {
            var ready = pollfd(fd: listening, events: Int16(POLLIN), revents: 0)
            // A short wait, so that `stop` is seen soon without a wake-up pipe.
            guard poll(&ready, 1, 50) > 0 else { continue }
            let connection = accept(listening, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            enum Admission { case served, busy, stopping }
            let admission = lock.withLock { () -> Admission in
                guard !stopping else { return .stopping }
                guard connections.count < maxConnections else { return .busy }
                connections.insert(connection)
                return .served
            }
            if admission == .stopping {
                close(connection)
                break
            }
            if admission == .busy {
                // Said at once, without reading the request: nothing waits on a full server.
                refuse(connection)
                continue
            }
            let thread = Thread { [self] in
                serve(connection)
                lock.withLock { _ = connections.remove(connection) }
                close(connection)
            }
            thread.name = "bbsarchive.serve.connection"
            thread.start()
        }
        close(listening)
        let continuation = lock.withLock {
            ended = true
            defer { waiting = nil }
            return waiting
        }
        continuation?.resume()
    }

    /// Answers requests on one connection until the client closes it, asks
    /// to, sends something that is not a request, or is idle for 15 seconds.
    private func serve(_ fd: Int32) {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var idle = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while !isStopping {
            // The head of the next request: up to the blank line.
            var end = HTTPHead.end(of: buffer)
            while end == nil {
                guard buffer.count < HTTPHead.maxBytes else {
                    sendAll(fd, SiteFileHandler.answer(431, "Request Header Fields Too Large", keepAlive: false))
                    return
                }
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                buffer += chunk[..<count]
                end = HTTPHead.end(of: buffer)
            }
            guard let headEnd = end, let head = HTTPHead(buffer[..<headEnd]) else {
                sendAll(fd, SiteFileHandler.answer(400, "Bad Request", keepAlive: false))
                return
            }
            buffer.removeSubrange(..<headEnd)
            // A body (no GET or HEAD has one) is not read: answer, then close.
            let keepAlive = head.keepAlive && head.contentLength == 0
            sendAll(fd, handler.answer(head, keepAlive: keepAlive))
            if !keepAlive { return }
        }
    }

    /// Answers 503 and closes. The request is read (64 kB and 0.2 s at
    /// most) before closing, or the kernel would reset the connection over
    /// the unread bytes and the client might never see the answer.
    private func refuse(_ fd: Int32) {
        var wait = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        sendAll(fd, SiteFileHandler.answer(503, "Service Unavailable", keepAlive: false))
        shutdown(fd, Int32(SHUT_WR))
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        for _ in 0..<4 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
        }
        close(fd)
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                buffer.baseAddress.map { send(fd, $0 + sent, buffer.count - sent, Int32(MSG_NOSIGNAL)) } ?? -1
            }
            guard count > 0 else { return }
            sent += count
        }
    }
}

/// The request line and the headers that matter of one HTTP request.
struct HTTPHead: Equatable {
    static let maxBytes = 64 << 10

    var method: String
    var target: String
    var keepAlive: Bool
    var contentLength: Int
    /// The `Range` header's value, as sent (`bytes=0-99`), if any.
    var range: String? = nil

    /// The index just past the blank line that ends a request's head, if
    /// `bytes` holds one.
    static func end(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }
}

extension HTTPHead {
    /// `nil` for anything that is not an HTTP/1.x request head.
    init?(_ bytes: ArraySlice<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: true).makeIterator()
        guard let requestLine = lines.next() else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[2].hasPrefix("HTTP/1.") else {
            return nil
        }
        method = String(parts[0])
        target = String(parts[1])
        // HTTP/1.1 keeps the connection unless asked not to; 1.0 only if asked to.
        var keepAlive = parts[2] == "HTTP/1.1"
        var contentLength = 0
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces).lowercased()
            if name == "connection" {
                if value.contains("close") { keepAlive = false }
                if value.contains("keep-alive") { keepAlive = true }
            } else if name == "content-length" {
                guard let length = Int(value), length >= 0 else { return nil }
                contentLength = length
            } else if name == "transfer-encoding" {
                contentLength = Int.max
            } else if name == "range" {
                range = value
            }
        }
        self.keepAlive = keepAlive
        self.contentLength = contentLength
    }
}

/// Maps request paths to files under the root.
struct SiteFileHandler: Sendable {
    let root: URL

    /// The whole answer to one request, head and body.
    func answer(_ request: HTTPHead, keepAlive: Bool) -> [UInt8] {
        guard request.method == "GET" || request.method == "HEAD" else {
            return Self.answer(405, "Method Not Allowed", keepAlive: keepAlive)
        }
        let head = request.method == "HEAD"
        switch Self.resolve(target: request.target, root: root) {
        case .bad:
            return Self.answer(400, "Bad Request", keepAlive: keepAlive)
        case .missing:
            return notFound(keepAlive: keepAlive, head: head)
        case .file(let url):
            guard let data = FileManager.default.contents(atPath: url.path) else {
                return notFound(keepAlive: keepAlive, head: head)
            }
            let type = Self.contentType(url)
            let extra = "X-Content-Type-Options: nosniff\r\nAccept-Ranges: bytes\r\n"
            switch request.range.map({ Self.byteRange($0, length: data.count) }) {
            case .none, .some(.ignored):
                return Self.answer(200, "OK", type: type, extra: extra, body: data, keepAlive: keepAlive, head: head)
            case .some(.unsatisfiable):
                return Self.answer(
                    416, "Range Not Satisfiable", type: "text/plain; charset=utf-8",
                    extra: "Content-Range: bytes */\(data.count)\r\n", body: Data("Range Not Satisfiable\n".utf8),
                    keepAlive: keepAlive, head: head)
            case .some(.part(let part)):
                return Self.answer(
                    206, "Partial Content", type: type,
                    extra: extra + "Content-Range: bytes \(part.lowerBound)-\(part.upperBound - 1)/\(data.count)\r\n",
                    body: data.subdata(in: part), keepAlive: keepAlive, head: head)
            }
        }
    }

    enum ByteRange: Equatable {
        /// Not a single range of bytes (several ranges, another unit, a
        /// malformed value): answered with the whole file, as RFC 9110 allows.
        case ignored
        case unsatisfiable
        case part(Range<Int>)
    }

    /// The part of a file of `length` bytes that a `Range` value asks for:
    /// `bytes=A-B`, `bytes=A-` or `bytes=-N` (the last N bytes).
    static func byteRange(_ value: String, length: Int) -> ByteRange {
        let spec = value.trimmingCharacters(in: .whitespaces)
        guard spec.hasPrefix("bytes="), !spec.contains(",") else { return .ignored }
        let parts = spec.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .ignored }
        let first = parts[0].trimmingCharacters(in: .whitespaces)
        let last = parts[1].trimmingCharacters(in: .whitespaces)
        func number(_ text: String) -> Int? {
            guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return nil
            }
            return Int(text)
        }
        if first.isEmpty {
            guard let count = number(last) else { return .ignored }
            guard count > 0, length > 0 else { return .unsatisfiable }
            return .part(max(0, length - count)..<length)
        }
        guard let start = number(first) else { return .ignored }
        let end: Int
        if last.isEmpty {
            end = length - 1
        } else {
            guard let given = number(last), given >= start else { return .ignored }
            end = min(given, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .part(start..<(end + 1))
    }

    private func notFound(keepAlive: Bool, head: Bool) -> [UInt8] {
        guard let page = FileManager.default.contents(atPath: root.appendingPathComponent("404.html").path) else {
            return Self.answer(404, "Not Found", keepAlive: keepAlive)
        }
        return Self.answer(
            404, "Not Found", type: "text/html; charset=utf-8", body: page, keepAlive: keepAlive, head: head)
    }

    /// A plain-text answer that says its status.
    static func answer(_ status: Int, _ phrase: String, keepAlive: Bool) -> [UInt8] {
        answer(
            status, phrase, type: "text/plain; charset=utf-8", body: Data("\(phrase)\n".utf8), keepAlive: keepAlive,
            head: false)
    }

    static func answer(
        _ status: Int, _ phrase: String, type: String, extra: String = "", body: Data, keepAlive: Bool, head: Bool
    ) -> [UInt8] {
        let lines =
            "HTTP/1.1 \(status) \(phrase)\r\nContent-Type: \(type)\r\n\(extra)Content-Length: \(body.count)\r\n"
            + "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        var bytes = Array(lines.utf8)
        if !head { bytes += body }
        return bytes
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

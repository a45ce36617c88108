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
/// missing (with the site's `404.html` as the body when there is one). A
/// path is checked once every link in it is resolved (`realpath`), and the
/// file opened is the one checked. A folder asked for without its slash
/// is redirected to it, so that the page's relative links resolve.
///
/// A small HTTP/1.1 server on plain sockets, a thread a connection (a
/// preview has a handful of clients): GET and HEAD, kept-alive connections,
/// a file's bytes sent from the file a piece at a time (a large attachment
/// is never held in memory). It used FlyingFox, whose module links
/// FoundationNetworking and so libcurl, which every run of every command
/// then loaded (~7 ms of the dynamic loader's work) though only `fetch`
/// needs it.
package actor SiteServer {
    package let root: URL
    /// Connections served at once; one more is answered 503 and closed.
    /// Each has a thread, so a client that opens thousands (the preview
    /// can listen beyond loopback with `--host`) cannot exhaust the process.
    package let maxConnections: Int
    /// Seconds a request's head may take to arrive whole (and a kept-alive
    /// connection may wait for the next), and a send may wait for the client.
    package let headSeconds: Int
    private var listener: SiteListener?

    package init(root: URL, maxConnections: Int = 64, headSeconds: Int = 15) {
        self.root = root
        self.maxConnections = max(1, maxConnections)
        self.headSeconds = max(1, headSeconds)
    }

    /// Binds `host:port` (port 0 picks a free one) and returns the address
    /// to open, `http://HOST:PORT/`, once the server accepts connections.
    package func start(host: String = "127.0.0.1", port: UInt16 = 0) async throws(ArchiveError) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .unreadableFile(path: root.path, reason: "there is no such folder; build the site first")
        }
        let handler = SiteFileHandler(root: root)
        let listener = try SiteListener.open(
            host: host, port: port, handler: handler, maxConnections: maxConnections, headSeconds: headSeconds)
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
    /// Threads answering 503 to connections past `maxConnections`.
    private var refusals = 0
    static let maxRefusing = 16
    private var ended = false
    private var waiting: CheckedContinuation<Void, Never>?

    private let headSeconds: Int

    private init(socket: Int32, port: UInt16, handler: SiteFileHandler, maxConnections: Int, headSeconds: Int) {
        self.listening = socket
        self.port = port
        self.handler = handler
        self.maxConnections = maxConnections
        self.headSeconds = headSeconds
    }

    static func open(host: String, port: UInt16, handler: SiteFileHandler, maxConnections: Int, headSeconds: Int)
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
        let listener = SiteListener(
            socket: fd, port: boundPort, handler: handler, maxConnections: maxConnections, headSeconds: headSeconds)
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
                // Said at once, on a thread of its own (the refusal waits a
                // little for the request), so that accepting goes on; past
                // `maxRefusing` such threads, closed without a word.
                let refusing = lock.withLock { () -> Bool in
                    guard refusals < Self.maxRefusing else { return false }
                    refusals += 1
                    return true
                }
                guard refusing else {
                    close(connection)
                    continue
                }
                let thread = Thread { [self] in
                    refuse(connection)
                    lock.withLock { refusals -= 1 }
                }
                thread.name = "bbsarchive.serve.refusal"
                thread.start()
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
        var idle = timeval(tv_sec: headSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while !isStopping {
            // The head of the next request: up to the blank line, whole
            // within `headSeconds` (a client that sends a byte now and then
            // does not hold a connection for hours).
            let deadline = Date().addingTimeInterval(TimeInterval(headSeconds))
            var end = HTTPHead.end(of: buffer)
            while end == nil {
                guard buffer.count < HTTPHead.maxBytes else {
                    sendAll(fd, SiteFileHandler.answer(431, "Request Header Fields Too Large", keepAlive: false))
                    return
                }
                let left = deadline.timeIntervalSinceNow
                guard left > 0 else { return }
                // Never 0 (which SO_RCVTIMEO reads as no limit at all).
                let micro = max(1000, Int(left * 1_000_000))
                var wait = timeval(tv_sec: micro / 1_000_000, tv_usec: micro % 1_000_000)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
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
            guard send(handler.respond(head, keepAlive: keepAlive), on: fd), keepAlive else { return }
        }
    }

    /// Sends an answer, its file's part a piece at a time, and closes the
    /// file; false when the client went away.
    private func send(_ answer: SiteAnswer, on fd: Int32) -> Bool {
        defer { answer.close() }
        guard sendAll(fd, answer.head), sendAll(fd, answer.bytes) else { return false }
        guard let (file, part) = answer.file else { return true }
        var piece = [UInt8](repeating: 0, count: 64 << 10)
        var at = part.lowerBound
        while at < part.upperBound {
            let count = piece.withUnsafeMutableBytes {
                pread(file, $0.baseAddress, min($0.count, part.upperBound - at), off_t(at))
            }
            // A file cut short meanwhile: the length is already said, so the connection ends.
            guard count > 0, sendAll(fd, piece[..<count]) else { return false }
            at += count
        }
        return true
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

    @discardableResult
    private func sendAll(_ fd: Int32, _ bytes: some Collection<UInt8>) -> Bool {
        bytes.withContiguousStorageIfAvailable { buffer in
            var sent = 0
            while sent < buffer.count {
                let count = Glibc.send(
                    fd, buffer.baseAddress.map { $0 + sent }, buffer.count - sent, Int32(MSG_NOSIGNAL))
                guard count > 0 else { return false }
                sent += count
            }
            return true
        } ?? sendAll(fd, Array(bytes))
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
    /// `bytes` holds one (lines end in CRLF, or LF alone, which RFC 9112
    /// lets a server accept).
    static func end(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 1..<bytes.count where bytes[index] == 10 {
            if bytes[index - 1] == 10 || (index >= 2 && bytes[index - 1] == 13 && bytes[index - 2] == 10) {
                return index + 1
            }
        }
        return nil
    }
}

extension HTTPHead {
    /// `nil` for anything that is not an HTTP/1.x request head.
    init?(_ bytes: ArraySlice<UInt8>) {
        // Split at each LF, a CR before it dropped: as bytes, since a String
        // holds CRLF as one Character.
        let raw = bytes.split(separator: 10, omittingEmptySubsequences: true)
            .map { $0.last == 13 ? $0.dropLast() : $0 }.filter { !$0.isEmpty }
        // The request line must be UTF-8 (a target is ASCII, or a client's
        // raw UTF-8): decoded with replacement characters, it would name
        // another path, and a redirect would send other bytes back.
        guard let first = raw.first, let requestLine = String(validating: first, as: UTF8.self) else { return nil }
        var lines = raw.dropFirst().map { String(decoding: $0, as: UTF8.self) }.makeIterator()
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[2].hasPrefix("HTTP/1.") else {
            return nil
        }
        method = String(parts[0])
        target = String(parts[1])
        // HTTP/1.1 keeps the connection unless asked not to; 1.0 only if asked to.
        var keepAlive = parts[2] == "HTTP/1.1"
        var closing = false
        var contentLength = 0
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces).lowercased()
            if name == "connection" {
                // Tokens: `close` among them ends the connection, whatever else is there.
                let tokens = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                if tokens.contains("close") {
                    closing = true
                } else if tokens.contains("keep-alive") {
                    keepAlive = true
                }
            } else if name == "content-length" {
                guard let length = Int(value), length >= 0 else { return nil }
                contentLength = length
            } else if name == "transfer-encoding" {
                contentLength = Int.max
            } else if name == "range" {
                range = value
            }
        }
        self.keepAlive = keepAlive && !closing
        self.contentLength = contentLength
    }
}

/// One answer: its head, then bytes, then (for a file) a part of an open
/// file, which the sender reads a piece at a time and then closes.
struct SiteAnswer {
    var head: [UInt8]
    var bytes: [UInt8] = []
    var file: (descriptor: Int32, part: Range<Int>)?

    /// Closes the file, if there is one.
    func close() {
        if let file { _ = Glibc.close(file.descriptor) }
    }

    /// The whole answer in memory (the file closed).
    func collected() -> [UInt8] {
        defer { close() }
        var out = head + bytes
        guard let (descriptor, part) = file, !part.isEmpty else { return out }
        var piece = [UInt8](repeating: 0, count: part.count)
        let count = piece.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(part.lowerBound)) }
        out += piece.prefix(max(0, count))
        return out
    }
}

/// Maps request paths to files under the root.
struct SiteFileHandler: Sendable {
    /// The folder, every symbolic link in its path resolved.
    let root: String

    init(root: URL) {
        self.root = Self.realPath(root.path) ?? root.standardizedFileURL.path
    }

    /// The answer to one request: its head, and the file (open) whose part is its body.
    func respond(_ request: HTTPHead, keepAlive: Bool) -> SiteAnswer {
        let head = request.method == "HEAD"
        guard request.method == "GET" || head else {
            return Self.plain(
                405, "Method Not Allowed", extra: "Allow: GET, HEAD\r\n", keepAlive: keepAlive, head: false)
        }
        switch Self.resolve(target: request.target, root: root) {
        case .bad:
            return Self.plain(400, "Bad Request", keepAlive: keepAlive, head: head)
        case .missing:
            return notFound(keepAlive: keepAlive, head: head)
        case .redirect(let location):
            return Self.plain(
                301, "Moved Permanently", extra: "Location: \(location)\r\n", keepAlive: keepAlive, head: head)
        case .file(let path):
            guard let (descriptor, length) = Self.openFile(path) else {
                return notFound(keepAlive: keepAlive, head: head)
            }
            let type = Self.contentType(URL(fileURLWithPath: path))
            let extra = "X-Content-Type-Options: nosniff\r\nAccept-Ranges: bytes\r\n"
            var answer: SiteAnswer
            switch request.range.map({ Self.byteRange($0, length: length) }) {
            case .none, .some(.ignored):
                answer = SiteAnswer(
                    head: Self.head(200, "OK", type: type, extra: extra, length: length, keepAlive: keepAlive),
                    file: (descriptor, 0..<length))
            case .some(.unsatisfiable):
                _ = Glibc.close(descriptor)
                return Self.plain(
                    416, "Range Not Satisfiable", extra: "Content-Range: bytes */\(length)\r\n", keepAlive: keepAlive,
                    head: head)
            case .some(.part(let part)):
                answer = SiteAnswer(
                    head: Self.head(
                        206, "Partial Content", type: type,
                        extra: extra + "Content-Range: bytes \(part.lowerBound)-\(part.upperBound - 1)/\(length)\r\n",
                        length: part.count, keepAlive: keepAlive),
                    file: (descriptor, part))
            }
            if head {
                answer.close()
                answer.file = nil
            }
            return answer
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

    /// 404, with the site's `404.html` (found as any file is) as the body when there is one.
    private func notFound(keepAlive: Bool, head: Bool) -> SiteAnswer {
        guard case .file(let path) = Self.resolve(target: "/404.html", root: root),
            let (descriptor, length) = Self.openFile(path)
        else { return Self.plain(404, "Not Found", keepAlive: keepAlive, head: head) }
        if head { _ = Glibc.close(descriptor) }
        return SiteAnswer(
            head: Self.head(404, "Not Found", type: "text/html; charset=utf-8", length: length, keepAlive: keepAlive),
            file: head ? nil : (descriptor, 0..<length))
    }

    /// A plain-text answer that says its status (only its head for HEAD).
    static func plain(_ status: Int, _ phrase: String, extra: String = "", keepAlive: Bool, head: Bool) -> SiteAnswer {
        let body = Array("\(phrase)\n".utf8)
        return SiteAnswer(
            head: Self.head(
                status, phrase, type: "text/plain; charset=utf-8", extra: extra, length: body.count,
                keepAlive: keepAlive),
            bytes: head ? [] : body)
    }

    /// A plain-text answer that says its status, whole.
    static func answer(_ status: Int, _ phrase: String, keepAlive: Bool) -> [UInt8] {
        plain(status, phrase, keepAlive: keepAlive, head: false).collected()
    }

    static func head(
        _ status: Int, _ phrase: String, type: String, extra: String = "", length: Int, keepAlive: Bool
    ) -> [UInt8] {
        Array(
            ("HTTP/1.1 \(status) \(phrase)\r\nContent-Type: \(type)\r\n\(extra)Content-Length: \(length)\r\n"
                + "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n").utf8)
    }

    /// The regular file at `path`, opened (never a FIFO or device, which
    /// could block), and its length.
    static func openFile(_ path: String) -> (Int32, Int)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            _ = Glibc.close(descriptor)
            return nil
        }
        return (descriptor, Int(info.st_size))
    }

    /// `path` with every symbolic link resolved (`realpath`); nil when it
    /// does not exist, or its links loop or are too many to follow.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    enum Resolution: Equatable {
        case bad
        case missing
        /// A folder asked for without its slash: where it is.
        case redirect(String)
        case file(String)
    }

    /// The file a request target names, if it is a regular file inside `root`
    /// (a path with every link resolved) once every link on the way is resolved.
    static func resolve(target: String, root: String) -> Resolution {
        var raw = String(target.prefix { $0 != "?" && $0 != "#" })
        let query = target.dropFirst(raw.count).prefix { $0 != "#" }
        // The absolute form (`GET http://host/path`), which a server must accept.
        if let scheme = raw.range(of: "://"), ["http", "https"].contains(raw[..<scheme.lowerBound].lowercased()) {
            let rest = raw[scheme.upperBound...]
            raw = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        }
        // Control characters and spaces are no part of a target (and one
        // echoed in a redirect's Location would end its header line).
        guard raw.hasPrefix("/"), target.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }),
            let decoded = raw.removingPercentEncoding, !decoded.contains("\0")
        else { return .bad }
        let parts = decoded.split(separator: "/", omittingEmptySubsequences: true)
        guard !parts.contains(where: { $0 == ".." || $0.contains("\\") }) else { return .bad }
        // Joined once (a URL a component at a time took quadratic time).
        let relative = parts.filter { $0 != "." }.joined(separator: "/")
        guard let real = realPath(relative.isEmpty ? root : root + "/" + relative), Self.inside(real, root) else {
            return .missing
        }
        var info = stat()
        guard stat(real, &info) == 0 else { return .missing }
        // Slashes as the address spells them (`%2F` is no folder's end for a browser).
        let slashed = raw.hasSuffix("/")
        if (info.st_mode & S_IFMT) == S_IFDIR {
            // To the folder with its slash, from one leading slash: `//board`
            // would be `//board/`, which a browser reads as another host.
            if !relative.isEmpty && !slashed {
                return .redirect(asciiLocation("/" + raw.drop { $0 == "/" } + "/" + query))
            }
            guard let index = realPath(real + "/index.html"), Self.inside(index, root) else { return .missing }
            return .file(index)
        }
        // A file asked for as a folder (`a.txt/`) is not there: its links would resolve wrongly.
        return (info.st_mode & S_IFMT) == S_IFREG && !slashed ? .file(real) : .missing
    }

    /// A redirect's location as a header may carry it: every byte past
    /// ASCII percent-encoded (a target sent as raw UTF-8), the rest as sent.
    static func asciiLocation(_ location: String) -> String {
        var out = ""
        out.reserveCapacity(location.utf8.count)
        for byte in location.utf8 {
            if byte < 0x80 {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }

    static func inside(_ path: String, _ root: String) -> Bool {
        path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
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

import FlyingFox
import FlyingSocks
import Foundation

/// Turns HTTP requests into replica pages, with the faults, the login wall,
/// robots.txt and conditional requests wrapped around the responder.
struct ReplicaHTTPHandler: HTTPHandler {
    let responder: ReplicaResponder
    let faults: ReplicaFaults
    let clock: @Sendable () -> Date
    let recorder: RequestRecorder

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let target = request.target.rawValue
        // The log keeps the real arrival time: rate-limit tests read it.
        let hit = recorder.record(target, at: Date())
        let host = request.headers[.host] ?? ""
        let cookies = request.headers.values(for: .cookie)
        recorder.visit(host: host, target: target, cookie: cookies.isEmpty ? nil : cookies.joined(separator: "; "))
        let rule = faults.rule(for: target, hit: hit)
        switch rule?.kind {
        case .unavailable?:
            return Self.plain(503, "Service Unavailable", retryAfter: rule?.retryAfter)
        case .tooManyRequests?:
            return Self.plain(429, "Too Many Requests", retryAfter: rule?.retryAfter)
        case .serverError?:
            return Self.plain(500, "Internal Server Error", retryAfter: nil)
        case .slow?:
            try await Task.sleep(for: rule?.delay ?? .zero)
        case .truncated?, .reset?, .garbledHeaders?, .garbledRows?, nil:
            break
        }

        if request.path == "/robots.txt" {
            guard let robots = faults.robots else { return Self.plain(404, "Not Found", retryAfter: nil) }
            return HTTPResponse(
                statusCode: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: Data(robots.utf8))
        }

        var page: ReplicaResponse
        if let wall = loginWall(request) {
            page = wall
        } else {
            let query = request.query.map { (name: $0.name, value: $0.value) }
            if faults.hostile, let hostile = HostileBoard.respond(path: request.path, query: query, host: host) {
                page = hostile
            } else if faults.photos, let photos = PhotoBoard.respond(path: request.path, query: query) {
                page = photos
            } else {
                page = responder.respond(path: request.path, query: query, now: clock())
            }
        }

        if rule?.kind == .garbledHeaders {
            page.body = Self.garbleHeaders(page.body)
        }
        if rule?.kind == .garbledRows {
            page.body = Self.garbleRows(page.body)
        }
        var headers: HTTPHeaders = [.contentType: page.contentType]
        if faults.wrongCharset, page.contentType.hasPrefix("text/html") {
            // The other label than the bytes': GBK for the mobile site's
            // UTF-8, UTF-8 for nForum's GBK.
            headers[.contentType] =
                page.contentType.hasSuffix("charset=GBK") ? "text/html; charset=UTF-8" : "text/html; charset=GBK"
        }
        if faults.conditionalRequests, page.status == 200 {
            let tag = "\"\(String(ReplicaFaults.hash(bytes: page.body), radix: 16))\""
            headers[HTTPHeader("ETag")] = tag
            if request.headers[HTTPHeader("If-None-Match")]?.contains(tag) == true {
                return HTTPResponse(statusCode: HTTPStatusCode(304, phrase: "Not Modified"), headers: headers)
            }
        }
        if let location = page.location {
            headers[.location] = location
        }
        let phrase = page.status == 200 ? "OK" : page.location != nil ? "Found" : "Not Found"
        let status = HTTPStatusCode(page.status, phrase: phrase)

        switch rule?.kind {
        case .truncated?, .reset?:
            // Promise the whole body, send part of it, then drop the connection.
            let sent = rule?.kind == .truncated ? page.body.prefix(page.body.count / 2) : Data()
            return HTTPResponse(
                statusCode: status, headers: headers,
                body: HTTPBodySequence(from: BrokenBody(bytes: sent), count: page.body.count))
        default:
            return HTTPResponse(statusCode: status, headers: headers, body: page.body)
        }
    }

    /// Post headers no reader can make sense of: nForum's `发信人:` line
    /// loses its colon; the mobile site's post times get a word in front.
    static func garbleHeaders(_ body: Data) -> Data {
        swapped(body, [("发信人:", "发信人"), (#"<a class="plant">20"#, #"<a class="plant">某日 20"#)])
    }

    /// A list page with its rows' post dates garbled: the mobile row's
    /// second cell and nForum's 发帖时间 cell start with 某日.
    static func garbleRows(_ body: Data) -> Data {
        swapped(
            body,
            [(")</div><div>20", ")</div><div>某日 20"), (#"<td class="title_10">20"#, #"<td class="title_10">某日 20"#)])
    }

    /// Every occurrence of each pair's first text, in UTF-8 and in GBK, made its second.
    private static func swapped(_ body: Data, _ swaps: [(String, String)]) -> Data {
        var body = body
        for (from, to) in swaps {
            for (old, new) in [(Data(from.utf8), Data(to.utf8)), (GBKEncoding.encode(from), GBKEncoding.encode(to))] {
                var searchStart = body.startIndex
                while let range = body.range(of: old, in: searchStart..<body.endIndex) {
                    body.replaceSubrange(range, with: new)
                    searchStart = range.lowerBound + new.count
                }
            }
        }
        return body
    }

    /// The no-permission page when the request is for the login board's list
    /// or threads (on either front end) and lacks the session cookie.
    private func loginWall(_ request: HTTPRequest) -> ReplicaResponse? {
        guard let board = faults.loginBoard else { return nil }
        var parts = request.path.split(separator: "/")
        let desktop = parts.first == "nForum"
        if desktop { parts.removeFirst() }
        guard parts.count >= 2, parts[0] == "board" || parts[0] == "article", parts[1] == board else { return nil }
        let cookies = request.headers.values(for: .cookie).joined(separator: "; ")
        let hasSession = cookies.split(separator: ";").contains {
            $0.trimmingCharacters(in: .whitespaces) == faults.sessionCookie
        }
        guard !hasSession, recorder.count(of: "login board") > faults.loginAfter else { return nil }
        return desktop ? .gbk(NForumMarkup.noPermission()) : .html(MobileMarkup.noPermission())
    }

    private static func plain(_ code: Int, _ phrase: String, retryAfter: Int?) -> HTTPResponse {
        var headers: HTTPHeaders = [.contentType: "text/html; charset=utf-8"]
        if let retryAfter { headers[HTTPHeader("Retry-After")] = String(retryAfter) }
        return HTTPResponse(
            statusCode: HTTPStatusCode(code, phrase: phrase), headers: headers,
            body: Data("<html><body><p>\(code) \(phrase)</p></body></html>".utf8))
    }
}

/// A body that yields its bytes and then fails, which makes the server close
/// the connection before the promised length has arrived.
struct BrokenBody: AsyncBufferedSequence, Sendable {
    typealias Element = UInt8
    let bytes: Data

    struct Dropped: Error {}

    struct AsyncIterator: AsyncBufferedIteratorProtocol {
        var remaining: Data?

        mutating func next() async throws -> UInt8? {
            guard let buffer = try await nextBuffer(suggested: 1) else { return nil }
            return buffer.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> Data? {
            guard let data = remaining, !data.isEmpty else { throw Dropped() }
            remaining = nil
            return data
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: bytes) }
}

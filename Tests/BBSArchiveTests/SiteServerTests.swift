import Foundation
import Testing

@testable import BBSArchive

/// `bbsarchive serve` and its server: content types, 404.html, no file
/// outside the folder, loopback by default, a clean stop on SIGINT and SIGTERM.
@Suite(.serialized) struct SiteServerTests {
    /// A site folder beside a secret, with symbolic links that lead out.
    static func makeSite() throws -> (root: URL, parent: URL) {
        let parent = try Fixtures.temporaryFolder("serve")
        let root = parent.appendingPathComponent("site")
        let files: [String: String] = [
            "index.html": "<!DOCTYPE html><title>home</title>",
            "404.html": "<!DOCTYPE html><title>missing page</title>",
            "assets/style.css": "body{}", "assets/search.js": "1", "search/s/1a.js": "BBSSearch.shard(26,{})",
            "assets/icon.svg": "<svg/>", "feed.xml": "<feed/>", "sitemap.xml": "<urlset/>", "board/B/1.md": "# md",
            "board/B/index.html": "<!DOCTYPE html><title>board</title>", "media/ab/ab.png": "png",
        ]
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try Data("secret".utf8).write(to: parent.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("out.txt").path, withDestinationPath: "../secret.txt")
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("up").path, withDestinationPath: parent.path)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("inside.css").path, withDestinationPath: "assets/style.css")
        return (root, parent)
    }

    struct Answer {
        var status: Int
        var type: String
        var body: String
    }

    /// curl with `--path-as-is`, so `..` reaches the server as written.
    static func get(_ base: String, _ path: String) throws -> Answer {
        let curl = try #require(ExternalTool.find("curl"), "no curl on PATH")
        let folder = try Fixtures.temporaryFolder("curl")
        defer { try? FileManager.default.removeItem(at: folder) }
        let body = folder.appendingPathComponent("body")
        let output = try ExternalTool.run(
            curl, ["-s", "--path-as-is", "-o", body.path, "-w", "%{http_code} %{content_type}", base + path],
            timeout: 30)
        let parts = output.text.split(separator: " ", maxSplits: 1)
        return Answer(
            status: Int(parts.first ?? "") ?? 0, type: parts.count > 1 ? String(parts[1]) : "",
            body: (try? String(contentsOf: body, encoding: .utf8)) ?? "")
    }

    /// Runs curl on a Dispatch thread: the in-process server needs the cooperative pool.
    static func fetch(_ base: String, _ paths: [String]) async throws -> [String: Answer] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    var answers: [String: Answer] = [:]
                    for path in paths { answers[path] = try get(base, path) }
                    continuation.resume(returning: answers)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    @Test func servesFilesWithTheirTypesAndNothingOutsideTheFolder() async throws {
        let (root, _) = try Self.makeSite()
        let server = SiteServer(root: root)
        let address = try await server.start()
        #expect(address.hasPrefix("http://127.0.0.1:") && address.hasSuffix("/"))
        let base = String(address.dropLast())
        let traversal = [
            "/../secret.txt", "/board/../../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt",
            "/assets/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt",
        ]
        let outside = ["//etc/passwd", "/etc/passwd", "/out.txt", "/up/secret.txt", "/nope.html", "/board/C/"]
        let answers = try await Self.fetch(
            base,
            [
                "/", "/index.html", "/board/B/", "/assets/style.css", "/assets/search.js", "/search/s/1a.js",
                "/assets/icon.svg", "/feed.xml", "/sitemap.xml", "/board/B/1.md", "/media/ab/ab.png", "/inside.css",
                "/index.html?q=%E6%B8%85", "/./index.html",
            ] + traversal + outside)
        await server.stop()

        #expect(answers["/"]?.status == 200)
        #expect(answers["/"]?.body.contains("home") == true)
        #expect(answers["/board/B/"]?.body.contains("board") == true)
        #expect(answers["/index.html?q=%E6%B8%85"]?.status == 200)
        #expect(answers["/./index.html"]?.status == 200)
        let types = [
            "/index.html": "text/html; charset=utf-8", "/assets/style.css": "text/css; charset=utf-8",
            "/assets/search.js": "text/javascript; charset=utf-8", "/search/s/1a.js": "text/javascript; charset=utf-8",
            "/assets/icon.svg": "image/svg+xml", "/feed.xml": "application/atom+xml; charset=utf-8",
            "/sitemap.xml": "application/xml", "/board/B/1.md": "text/markdown; charset=utf-8",
            "/media/ab/ab.png": "image/png", "/inside.css": "text/css; charset=utf-8",
        ]
        for (path, type) in types {
            #expect(answers[path]?.status == 200, "\(path)")
            #expect(answers[path]?.type == type, "\(path)")
        }
        for path in traversal {
            let status = answers[path]?.status ?? 0
            #expect(status == 400 || status == 404, "\(path) answered \(status)")
            #expect(answers[path]?.body.contains("secret") == false, "\(path) leaked the file outside")
        }
        for path in outside {
            #expect(answers[path]?.status == 404, "\(path)")
            #expect(answers[path]?.body.contains("missing page") == true, "\(path) without 404.html")
            #expect(answers[path]?.type == "text/html; charset=utf-8")
        }
    }

    /// The server's own HTTP: two requests on one kept-alive connection,
    /// HEAD with the length but no body, 405 for other methods, 400 for
    /// something that is not a request.
    @Test func keepsConnectionsAndAnswersHeadAndRefusesOtherMethods() async throws {
        let (root, _) = try Self.makeSite()
        let server = SiteServer(root: root)
        let base = String(try await server.start().dropLast())
        let curl = try #require(ExternalTool.find("curl"), "no curl on PATH")
        let (twice, head, post) = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    // %{num_connects}: 1 for the first transfer, 0 when the second reused its connection.
                    let twice = try ExternalTool.run(
                        curl,
                        [
                            "-s", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{http_code} %{num_connects}\n",
                            base + "/index.html", base + "/assets/style.css",
                        ], timeout: 30)
                    let head = try ExternalTool.run(curl, ["-s", "-I", base + "/assets/style.css"], timeout: 30)
                    let post = try ExternalTool.run(
                        curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-d", "x=1", base + "/index.html"],
                        timeout: 30)
                    continuation.resume(returning: (twice.text, head.text, post.text))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        await server.stop()
        #expect(twice == "200 1\n200 0\n", "\(twice)")
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(head)")
        #expect(head.contains("Content-Length: 6\r\n"), "\(head)")
        #expect(head.contains("Content-Type: text/css; charset=utf-8\r\n"), "\(head)")
        #expect(head.hasSuffix("\r\n\r\n"), "a body after HEAD: \(head)")
        #expect(post == "405")
    }

    /// A server that holds its limit of connections answers one more with
    /// 503 at once, and serves again when a connection ends.
    @Test func aFullServerRefusesAConnectionAndServesWhenOneEnds() async throws {
        let (root, _) = try Self.makeSite()
        let server = SiteServer(root: root, maxConnections: 1)
        let base = String(try await server.start().dropLast())
        let port = try Self.port(base + "/")
        // One kept-alive connection, answered once, so the server holds it.
        let held = try Self.connection(port)
        let request = Array("GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(held, $0.baseAddress, $0.count, 0) }
        var reply = [UInt8](repeating: 0, count: 4096)
        let count = reply.withUnsafeMutableBytes { recv(held, $0.baseAddress, $0.count, 0) }
        #expect(String(decoding: reply.prefix(max(count, 0)), as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
        let curl = try #require(ExternalTool.find("curl"), "no curl on PATH")
        let arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", base + "/index.html"]
        let busy = try await Task.detached { try ExternalTool.run(curl, arguments, timeout: 30).text }.value
        close(held)
        // The server sees the close when its thread's read returns.
        var again = ""
        for _ in 0..<100 {
            again = try await Task.detached { try ExternalTool.run(curl, arguments, timeout: 30).text }.value
            if again == "200" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await server.stop()
        #expect(busy == "503")
        #expect(again == "200")
    }

    @Test func readsRequestHeads() throws {
        let get = try #require(HTTPHead(ArraySlice("GET /a%20b?q=1 HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
        #expect(get == HTTPHead(method: "GET", target: "/a%20b?q=1", keepAlive: true, contentLength: 0))
        let closing = try #require(HTTPHead(ArraySlice("GET / HTTP/1.1\r\nConnection: close\r\n\r\n".utf8)))
        #expect(!closing.keepAlive)
        let old = try #require(HTTPHead(ArraySlice("HEAD / HTTP/1.0\r\n\r\n".utf8)))
        #expect(!old.keepAlive && old.method == "HEAD")
        let body = try #require(HTTPHead(ArraySlice("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\n".utf8)))
        #expect(body.contentLength == 3)
        for bad in ["GET /\r\n\r\n", "GET / SPDY/3\r\n\r\n", "GET / HTTP/1.1\r\nno colon\r\n\r\n", "\r\n\r\n"] {
            #expect(HTTPHead(ArraySlice(bad.utf8)) == nil, "\(bad)")
        }
        #expect(HTTPHead.end(of: Array("GET / HTTP/1.1\r\n\r\nGET".utf8)) == 18)
        #expect(HTTPHead.end(of: Array("GET / HTTP/1.1\r\n".utf8)) == nil)
        // Lines ended by LF alone, which a server may accept.
        #expect(HTTPHead.end(of: Array("GET / HTTP/1.1\nHost: x\n\nGET".utf8)) == 24)
        let bare = try #require(HTTPHead(ArraySlice("GET /a HTTP/1.1\nHost: x\nRange: bytes=0-1\n\n".utf8)))
        #expect(bare.target == "/a" && bare.range == "bytes=0-1")
        // `close` among the tokens ends the connection, whatever else is there.
        let both = try #require(HTTPHead(ArraySlice("GET / HTTP/1.1\r\nConnection: keep-alive, close\r\n\r\n".utf8)))
        #expect(!both.keepAlive)
        let kept = try #require(HTTPHead(ArraySlice("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n".utf8)))
        #expect(kept.keepAlive)
    }

    /// One range of bytes is answered 206 with its part (the search
    /// client reads rows of `search/d/` files so); a range past the end is
    /// 416; several ranges, another unit or a malformed value get the
    /// whole file, as a host that ignores Range gives it.
    @Test func answersOneRangeOfBytes() throws {
        let length = 100
        #expect(SiteFileHandler.byteRange("bytes=0-9", length: length) == .part(0..<10))
        #expect(SiteFileHandler.byteRange("bytes=90-", length: length) == .part(90..<100))
        #expect(SiteFileHandler.byteRange("bytes=95-200", length: length) == .part(95..<100))
        #expect(SiteFileHandler.byteRange("bytes=-10", length: length) == .part(90..<100))
        #expect(SiteFileHandler.byteRange("bytes=-500", length: length) == .part(0..<100))
        #expect(SiteFileHandler.byteRange("bytes=100-", length: length) == .unsatisfiable)
        #expect(SiteFileHandler.byteRange("bytes=-0", length: length) == .unsatisfiable)
        for ignored in [
            "bytes=0-1,5-6", "items=0-1", "bytes=5-1", "bytes=a-b", "bytes=-", "bytes=0x1-2", "bytes= 1 2",
            "bytes=99999999999999999999-",
        ] {
            #expect(SiteFileHandler.byteRange(ignored, length: length) == .ignored, "\(ignored)")
        }

        let root = try Fixtures.temporaryFolder("range")
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("0123456789".utf8).write(to: root.appendingPathComponent("a.js"))
        let handler = SiteFileHandler(root: root.resolvingSymlinksInPath())
        func answer(_ range: String?, method: String = "GET") -> String {
            var head = HTTPHead(method: method, target: "/a.js", keepAlive: true, contentLength: 0)
            head.range = range
            return String(decoding: handler.respond(head, keepAlive: true).collected(), as: UTF8.self)
        }
        let part = answer("bytes=2-4")
        #expect(part.hasPrefix("HTTP/1.1 206 Partial Content\r\n"))
        #expect(part.contains("\r\nContent-Range: bytes 2-4/10\r\n") && part.contains("\r\nContent-Length: 3\r\n"))
        #expect(part.hasSuffix("\r\n\r\n234"))
        let whole = answer(nil)
        #expect(whole.hasPrefix("HTTP/1.1 200 OK\r\n") && whole.contains("\r\nAccept-Ranges: bytes\r\n"))
        #expect(whole.hasSuffix("\r\n\r\n0123456789"))
        #expect(answer("bytes=0-1,4-5").hasSuffix("\r\n\r\n0123456789"))
        let past = answer("bytes=10-")
        #expect(past.hasPrefix("HTTP/1.1 416 ") && past.contains("\r\nContent-Range: bytes */10\r\n"))
        #expect(answer("bytes=2-4", method: "HEAD").hasSuffix("Content-Length: 3\r\nConnection: keep-alive\r\n\r\n"))
    }

    /// Sends `request` on a new connection to the server at `port` and
    /// reads until the server closes it (or `seconds` pass).
    static func exchange(_ port: UInt16, _ request: [UInt8], seconds: Int = 10) throws -> [UInt8] {
        let fd = try connection(port)
        defer { close(fd) }
        var wait = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            out += chunk[..<count]
        }
        return out
    }

    /// A socket connected to the server at `port` on loopback.
    static func connection(_ port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected != 0 { close(fd) }
        try #require(connected == 0)
        return fd
    }

    static func port(_ address: String) throws -> UInt16 {
        try #require(address.dropLast().split(separator: ":").last.flatMap { UInt16($0) })
    }

    /// Symbolic links that lead out of the folder through more links than
    /// Foundation follows (it gave up after 20 and left the path as it was,
    /// which looked inside, and the kernel then followed it out), and a
    /// `404.html` that is a link out: none of them serves the file outside.
    @Test func noChainOfLinksLeadsOutOfTheFolder() async throws {
        let (root, parent) = try Self.makeSite()
        let links = root.appendingPathComponent("links")
        try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: links.appendingPathComponent("self").path, withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(
            atPath: links.appendingPathComponent("secret").path,
            withDestinationPath: parent.appendingPathComponent("secret.txt").path)
        // A folder out of the folder, reached through the links (the file itself is no link).
        try FileManager.default.createSymbolicLink(
            atPath: links.appendingPathComponent("outside").path, withDestinationPath: parent.path)
        // A chain of 25 links, the last out of the folder.
        try FileManager.default.createSymbolicLink(
            atPath: links.appendingPathComponent("c25").path,
            withDestinationPath: parent.appendingPathComponent("secret.txt").path)
        for step in stride(from: 24, through: 0, by: -1) {
            try FileManager.default.createSymbolicLink(
                atPath: links.appendingPathComponent("c\(step)").path, withDestinationPath: "c\(step + 1)")
        }
        // A second site whose 404.html is a link out.
        let other = parent.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("<!DOCTYPE html><title>home</title>".utf8).write(to: other.appendingPathComponent("index.html"))
        try FileManager.default.createSymbolicLink(
            atPath: other.appendingPathComponent("404.html").path,
            withDestinationPath: parent.appendingPathComponent("secret.txt").path)

        let server = SiteServer(root: root)
        let base = String(try await server.start().dropLast())
        let selves = String(repeating: "self/", count: 21)
        let paths = [
            "/links/\(selves)secret", "/links/\(selves)outside/secret.txt", "/links/outside/secret.txt",
            "/links/c0", "/links/c10", "/links/\(String(repeating: "self/", count: 30))c0",
            "/links/\(selves)", "/links/\(selves)../secret.txt",
        ]
        let answers = try await Self.fetch(base, paths + ["/links/self/self/index.html"])
        await server.stop()
        for path in paths {
            let status = answers[path]?.status ?? 0
            #expect(status == 404 || status == 400, "\(path) answered \(status)")
            #expect(answers[path]?.body.contains("secret") == false, "\(path) leaked the file outside")
        }

        let otherServer = SiteServer(root: other)
        let otherBase = String(try await otherServer.start().dropLast())
        let missing = try await Self.fetch(otherBase, ["/nope.html", "/"])
        await otherServer.stop()
        #expect(missing["/nope.html"]?.status == 404)
        #expect(missing["/nope.html"]?.body.contains("secret") == false, "the 404 page led out of the folder")
        #expect(missing["/"]?.status == 200)
    }

    /// A folder without its slash is redirected to it (its page's relative
    /// links resolve against the folder); the absolute form of a target is
    /// served; HEAD never gets a body, not even with 400 or a plain 404;
    /// 405 says what is allowed; a file is served whole in pieces.
    @Test func redirectsFoldersAndAnswersHTTPAsItSays() async throws {
        let (root, _) = try Self.makeSite()
        let bare = root.appendingPathComponent("bare")
        try FileManager.default.createDirectory(at: bare, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("board/中文"), withIntermediateDirectories: true)
        // Bytes that do not repeat at the piece size, 5 MB.
        var bytes = [UInt8](repeating: 0, count: 5 << 20)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 13) }
        let large = Data(bytes)
        try large.write(to: root.appendingPathComponent("media/ab/large.bin"))
        let server = SiteServer(root: root)
        let address = try await server.start()
        let port = try Self.port(address)
        let ask: @Sendable (String) throws -> String = { text in
            String(decoding: try Self.exchange(port, Array(text.utf8)), as: UTF8.self)
        }
        let (answers, largeAnswer) = try await Task.detached {
            let answers = [
                try ask("GET /board/B?x=1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
                try ask(
                    "GET http://127.0.0.1:\(port)/assets/style.css HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
                try ask("HEAD /../x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
                try ask("DELETE /index.html HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
                try ask("GET /assets/style.css HTTP/1.1\nHost: a\nConnection: close\n\n"),
                try ask(
                    "GET /media/ab/large.bin HTTP/1.1\r\nHost: a\r\nRange: bytes=1000000-1000009\r\nConnection: close\r\n\r\n"
                ),
                try ask("GET //board/B HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
                try ask("GET /index.html/ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
                try ask("GET ftp://a/index.html HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
                // A target in raw UTF-8, and one that is not UTF-8.
                try ask("GET /board/中文?q=é HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"),
                String(
                    decoding: try Self.exchange(
                        port,
                        Array("GET /board/".utf8) + [0xFF, 0xFE] + Array("?q=\\ HTTP/1.1\r\nHost: a\r\n\r\n".utf8)),
                    as: UTF8.self),
            ]
            let large = try Self.exchange(
                port, Array("GET /media/ab/large.bin HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".utf8))
            return (answers, large)
        }.value
        let empty = SiteServer(root: bare)
        let emptyPort = try Self.port(try await empty.start())
        let headOf404 = try await Task.detached {
            String(
                decoding: try Self.exchange(
                    emptyPort, Array("HEAD /nope HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".utf8)), as: UTF8.self
            )
        }.value
        await empty.stop()
        await server.stop()

        #expect(answers[0].hasPrefix("HTTP/1.1 301 "), "\(answers[0].prefix(200))")
        #expect(answers[0].contains("\r\nLocation: /board/B/?x=1\r\n"), "\(answers[0].prefix(300))")
        #expect(answers[1].hasPrefix("HTTP/1.1 200 OK\r\n") && answers[1].hasSuffix("\r\n\r\nbody{}"), "\(answers[1])")
        #expect(
            answers[2].hasPrefix("HTTP/1.1 400 ") && answers[2].hasSuffix("\r\n\r\n"),
            "a body after HEAD: \(answers[2])")
        #expect(
            answers[3].hasPrefix("HTTP/1.1 405 ") && answers[3].contains("\r\nAllow: GET, HEAD\r\n"), "\(answers[3])")
        #expect(answers[4].hasPrefix("HTTP/1.1 200 OK\r\n") && answers[4].hasSuffix("body{}"), "\(answers[4])")
        #expect(
            headOf404.hasPrefix("HTTP/1.1 404 ") && headOf404.hasSuffix("\r\n\r\n"), "a body after HEAD: \(headOf404)")
        // The large file: its head, then exactly its bytes.
        let headEnd = try #require(HTTPHead.end(of: Array(largeAnswer.prefix(4096))))
        let largeHead = String(decoding: largeAnswer[..<headEnd], as: UTF8.self)
        #expect(largeHead.hasPrefix("HTTP/1.1 200 OK\r\n") && largeHead.contains("Content-Length: \(large.count)\r\n"))
        #expect(largeAnswer.count - headEnd == large.count)
        #expect(Data(largeAnswer[headEnd...]) == large)
        #expect(answers[5].contains("Content-Range: bytes 1000000-1000009/\(large.count)"))
        // `//board/B`: redirected from one slash (`//board/B/` is another host to a browser).
        #expect(
            answers[6].hasPrefix("HTTP/1.1 301 ") && answers[6].contains("\r\nLocation: /board/B/\r\n"), "\(answers[6])"
        )
        // A file asked for as a folder is not there (its links would resolve wrongly).
        #expect(answers[7].hasPrefix("HTTP/1.1 404 "), "\(answers[7].prefix(100))")
        // Only http(s) in the absolute form.
        #expect(answers[8].hasPrefix("HTTP/1.1 400 "), "\(answers[8].prefix(100))")
        // A header carries ASCII: a raw UTF-8 target is redirected percent-encoded.
        #expect(
            answers[9].hasPrefix("HTTP/1.1 301 ")
                && answers[9].contains("\r\nLocation: /board/%E4%B8%AD%E6%96%87/?q=%C3%A9\r\n"), "\(answers[9])")
        // Bytes that are not UTF-8 name no path (decoded, they would name another).
        #expect(answers[10].hasPrefix("HTTP/1.1 400 "), "\(answers[10].prefix(100))")
    }

    /// A client that sends its request's head a byte now and then is cut
    /// off when the head has not come whole in `headSeconds`, so it cannot
    /// hold one of the server's few connections for hours.
    @Test func aHeadThatDripsInIsCutOff() async throws {
        let (root, _) = try Self.makeSite()
        let server = SiteServer(root: root, headSeconds: 1)
        let port = try Self.port(try await server.start())
        let outcome = try await Task.detached { () throws -> (closed: Bool, sent: Int) in
            let fd = try Self.connection(port)
            defer { close(fd) }
            // A byte every 0.2 s: each read is quick, the head never ends.
            var sent = 0
            for byte in Array("GET / HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8) {
                let count = withUnsafePointer(to: byte) { send(fd, $0, 1, Int32(MSG_NOSIGNAL)) }
                guard count == 1 else { break }
                sent += 1
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&ready, 1, 200) > 0 {
                    var one: UInt8 = 0
                    if recv(fd, &one, 1, 0) <= 0 { return (true, sent) }
                }
            }
            return (false, sent)
        }.value
        await server.stop()
        #expect(outcome.closed, "the server held the connection for \(outcome.sent) bytes")
        // About 5 bytes a second for the 1 s allowed: cut off long before the 65 bytes end.
        #expect(outcome.sent < 40)
    }

    /// A signal sent as soon as the address is read stops the server
    /// cleanly: it was lost (the server ran on) or killed the process when
    /// it came before the signals were watched.
    @Test func aSignalRightAfterTheAddressStopsTheServer() async throws {
        let (root, _) = try Self.makeSite()
        for signal in [SIGTERM, SIGINT, SIGTERM, SIGINT, SIGTERM] {
            let (process, _, _) = try Self.serveCommand(root)
            defer { if process.isRunning { process.terminate() } }
            try await Self.signal(process, signal, waiting: 10)
            #expect(!process.isRunning, "still running after signal \(signal)")
            if process.isRunning { continue }
            #expect(process.terminationReason == .exit, "killed by signal \(signal)")
            #expect(process.terminationStatus == 0)
        }
    }

    @Test func aMissingFolderIsOneClearError() async throws {
        let server = SiteServer(root: URL(fileURLWithPath: "/nonexistent/site"))
        await #expect(throws: ArchiveError.self) { _ = try await server.start() }
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func theCommandPrintsItsAddressFirstAndStopsCleanlyOn(_ signal: Int32) async throws {
        let (root, _) = try Self.makeSite()
        let (process, address, err) = try Self.serveCommand(root)
        defer { if process.isRunning { process.terminate() } }
        #expect(address.hasPrefix("http://127.0.0.1:") && address.hasSuffix("/"), "first line: \(address)")
        let answer = try await Self.fetch(String(address.dropLast()), ["/assets/style.css"])["/assets/style.css"]
        #expect(answer?.status == 200)
        #expect(answer?.type == "text/css; charset=utf-8")

        try await Self.signal(process, signal, waiting: 20)
        #expect(!process.isRunning, "still running after the signal")
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.contains("stopped"), "stderr: \(said)")
    }

    /// `bbsarchive serve` over `root` on a free port, and the first line
    /// it printed (its address), read as soon as it is there.
    static func serveCommand(_ root: URL) throws -> (process: Process, firstLine: String, errors: Pipe) {
        let process = Process()
        process.executableURL = CommandLineTests.executable
        process.arguments = ["serve", "--out", root.path, "--port", "0"]
        let out = Pipe()
        let errors = Pipe()
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        return (
            process, String(decoding: line, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "", errors
        )
    }

    /// Sends `signal` and waits up to `seconds` for the process to end.
    static func signal(_ process: Process, _ signal: Int32, waiting seconds: Double) async throws {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }
}

import FlyingFox
import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive
@testable import BBSArchiveCLI

/// The libcurl client against small servers of the test's own.
@Suite struct HTTPClientTests {
    /// Starts a server whose every answer is `respond(request)`.
    static func serve(_ respond: @escaping @Sendable (FlyingFox.HTTPRequest) -> FlyingFox.HTTPResponse) async throws
        -> (HTTPServer, Task<Void, any Error>, String)
    {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), logger: .disabled)
        await server.appendRoute("GET *") { request in respond(request) }
        let task = Task { try await server.run() }
        try await server.waitUntilListening()
        guard case .ip4(_, let port) = await server.listeningAddress else {
            throw ArchiveError.invalidOption("no port")
        }
        return (server, task, "http://127.0.0.1:\(port)")
    }

    static func gzip(_ data: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c", "-n"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(data)
        try input.fileHandleForWriting.close()
        let packed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return packed
    }

    @Test func asksForAndDecodesCompressedBodies() async throws {
        let page = Data(String(repeating: "<li>水木社区 compressed transfer</li>", count: 500).utf8)
        let packed = try Self.gzip(page)
        #expect(packed.count < page.count / 5)
        let (server, task, base) = try await Self.serve { request in
            let accepts = request.headers[HTTPHeader("Accept-Encoding")] ?? ""
            guard accepts.contains("gzip") else { return FlyingFox.HTTPResponse(statusCode: .badRequest) }
            return FlyingFox.HTTPResponse(
                statusCode: .ok, headers: [.contentType: "text/html; charset=utf-8", .contentEncoding: "gzip"],
                body: packed)
        }
        let response = try await CurlHTTPClient().get(base + "/board/A")
        await server.stop()
        task.cancel()
        #expect(response.status == 200)
        #expect(response.body == page)
    }

    @Test func sendsItsNameAndRefusesEndlessRedirects() async throws {
        let (server, task, base) = try await Self.serve { request in
            if request.path == "/agent" {
                return FlyingFox.HTTPResponse(
                    statusCode: .ok, body: Data((request.headers[HTTPHeader("User-Agent")] ?? "").utf8))
            }
            var headers = HTTPHeaders()
            headers[.location] = "/loop"
            return FlyingFox.HTTPResponse(statusCode: .found, headers: headers)
        }
        let client = CurlHTTPClient()
        let agent = try await client.get(base + "/agent")
        #expect(String(decoding: agent.body, as: UTF8.self) == BBSArchiveVersion.userAgent)
        // The client follows no redirect; the fetcher follows at most 5 hops.
        let hop = try await client.get(base + "/loop")
        #expect(hop.status == 302 && hop.header("Location") == "/loop")
        let store = try ArchiveStore(path: try Fixtures.temporaryFolder().appendingPathComponent("a.sqlite").path)
        let fetcher = Fetcher(
            client: client, limiter: RateLimiter(requestsPerSecond: 0), captures: store, respectRobots: false)
        do {
            _ = try await fetcher.fetch(base + "/loop")
            Issue.record("an endless redirect was followed to the end")
        } catch {
            #expect(error == .refused(url: base + "/loop", reason: "it redirects more than 5 times"))
        }
        await server.stop()
        task.cancel()
    }

    @Test func refusesBodiesLargerThanTheLimit() async throws {
        let (server, task, base) = try await Self.serve { _ in
            FlyingFox.HTTPResponse(statusCode: .ok, body: Data(count: 300_000))
        }
        var options = CurlHTTPClient.Options()
        options.maxBodyBytes = 100_000
        do {
            _ = try await CurlHTTPClient(options: options).get(base + "/big")
            Issue.record("a body over the limit was accepted")
        } catch {
            #expect("\(error)".contains("larger than"))
        }
        await server.stop()
        task.cancel()
    }
}

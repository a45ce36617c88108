import ArgumentParser
import BBSArchive
import Foundation

/// `bbsarchive serve`: the built site over HTTP, on loopback by default.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Preview the built site over HTTP (prints its address first; Ctrl-C stops it).")

    @Option(help: "The site folder to serve.")
    var out = "site"

    @Option(help: "The port to listen on (0: any free port).")
    var port: UInt16 = 8000

    @Option(help: "The address to listen on; other machines can reach it only if it is not a loopback address.")
    var host = "127.0.0.1"

    func run() async throws {
        try await Runner.run {
            let server = SiteServer(root: URL(fileURLWithPath: out))
            let address = try await server.start(host: host, port: port)
            // Written straight to the descriptor: a script reading our
            // output needs the address now, not when a buffer fills.
            FileHandle.standardOutput.write(Data((address + "\n").utf8))
            let signal = await ServeSignals.next()
            await server.stop()
            FileHandle.standardError.write(Data("serve: stopped on \(signal)\n".utf8))
        }
    }
}

/// Waits for SIGINT or SIGTERM (instead of letting either kill the process).
enum ServeSignals {
    static func next() async -> String {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        return await withCheckedContinuation { continuation in
            let box = SourceBox()
            let queue = DispatchQueue(label: "bbsarchive.serve.signals")
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    if box.finish() {
                        box.cancelAll()
                        continuation.resume(returning: name)
                    }
                }
                box.add(source)
                source.resume()
            }
        }
    }

    private final class SourceBox: @unchecked Sendable {
        // @unchecked: every property is touched only under `lock`.
        private let lock = NSLock()
        private var sources: [any DispatchSourceSignal] = []
        private var done = false

        func add(_ source: any DispatchSourceSignal) { lock.withLock { sources.append(source) } }
        func finish() -> Bool {
            lock.withLock {
                defer { done = true }
                return !done
            }
        }
        func cancelAll() { lock.withLock { sources.forEach { $0.cancel() } } }
    }
}

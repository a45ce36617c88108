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
            // Watched before the address is printed: a signal sent as soon
            // as a script reads it stops the server (it was lost, or killed
            // the process, when it came before the watch began).
            let signals = ServeSignals()
            let server = SiteServer(root: URL(fileURLWithPath: out))
            let address = try await server.start(host: host, port: port)
            // Written straight to the descriptor: a script reading our
            // output needs the address now, not when a buffer fills.
            FileHandle.standardOutput.write(Data((address + "\n").utf8))
            let signal = await signals.next()
            await server.stop()
            FileHandle.standardError.write(Data("serve: stopped on \(signal)\n".utf8))
        }
    }
}

/// SIGINT and SIGTERM, watched from its creation (instead of letting either
/// kill the process); `next()` gives the first, even one that came before it
/// was called.
final class ServeSignals: @unchecked Sendable {
    // @unchecked: every property is touched only under `lock`.
    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []
    private var received: String?
    private var waiting: CheckedContinuation<String, Never>?

    init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let queue = DispatchQueue(label: "bbsarchive.serve.signals")
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.receive(name) }
            lock.withLock { sources.append(source) }
            source.resume()
        }
    }

    private func receive(_ name: String) {
        let continuation = lock.withLock { () -> CheckedContinuation<String, Never>? in
            guard received == nil else { return nil }
            received = name
            sources.forEach { $0.cancel() }
            defer { waiting = nil }
            return waiting
        }
        continuation?.resume(returning: name)
    }

    /// The first signal: at once if it came already.
    func next() async -> String {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> String? in
                if let received { return received }
                waiting = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}

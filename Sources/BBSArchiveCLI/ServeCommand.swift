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
            Console.output(address + "\n")
            let signal = await signals.next()
            await server.stop()
            Console.error("serve: stopped on \(signal)\n")
        }
    }
}

/// The pipe the signal handler writes to (a plain global, so the handler
/// reads it without any lazy initialization); -1 until `ServeSignals` makes it.
nonisolated(unsafe) private var serveSignalPipe: Int32 = -1

/// SIGINT and SIGTERM, caught from its creation (instead of letting either
/// kill the process); `next()` gives the first, even one that came before it
/// was called. A plain handler that writes the signal's number to a pipe:
/// installed at once, where a Dispatch signal source was set up a moment
/// later, and a signal in between (the disposition already "ignore") was
/// lost, in half of 150 tries under load.
final class ServeSignals: Sendable {
    private let readEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        // Without a pipe (no descriptors left), the signals keep their
        // default: they end the process, not cleanly, but they end it.
        guard pipe(&ends) == 0 else {
            readEnd = -1
            return
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        readEnd = ends[0]
        serveSignalPipe = ends[1]
        let handler: @convention(c) (Int32) -> Void = { number in
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(serveSignalPipe, &byte, 1)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }

    /// The first signal, waited for on a thread of its own.
    func next() async -> String {
        let readEnd = readEnd
        return await withCheckedContinuation { continuation in
            // No pipe: the signal's default action ends the process.
            guard readEnd >= 0 else { return }
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
                continuation.resume(returning: Int32(byte) == SIGINT ? "SIGINT" : "SIGTERM")
            }
        }
    }
}

import FlyingFox
import FlyingSocks
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// FlyingFox's socket pool, plus `TCP_NODELAY` on every socket it waits on.
///
/// FlyingFox writes a response's head and body in two writes; with Nagle's
/// algorithm on, the body then waits for the client's delayed ACK (40 ms on
/// Linux), which would make the replica, not the archiver, the bottleneck of
/// every fetch benchmark. FlyingFox has no option for it, but every accepted
/// socket passes through the pool before its first read.
struct NoDelaySocketPool<Base: AsyncSocketPool>: AsyncSocketPool {
    let base: Base

    func prepare() async throws { try await base.prepare() }

    func run() async throws { try await base.run() }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        var on: Int32 = 1
        // Fails harmlessly on the listening socket; nothing to do about it.
        _ = setsockopt(socket.file.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        try await base.suspendSocket(socket, untilReadyFor: events)
    }
}

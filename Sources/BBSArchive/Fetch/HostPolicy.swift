import Foundation

/// Which hosts the fetcher may ask for anything, and which redirects it
/// refuses: every request, and every redirect hop, is checked here first.
///
/// A host is its lower-cased name, with `:port` when the URL names one
/// (`127.0.0.1:8080`), so another port is another host.
package struct HostPolicy: Sendable {
    /// Hosts that may be asked: the forum's own, the source's attachment
    /// hosts and `--media-host`.
    package var hosts: Set<String>
    /// Says why a redirect from the first URL to the second is refused,
    /// or `nil` to follow it (e.g. one thread redirecting to another).
    package var refuseRedirect: @Sendable (_ from: String, _ to: String) -> String?

    package init(
        hosts: some Sequence<String>,
        refuseRedirect: @escaping @Sendable (_ from: String, _ to: String) -> String? = { _, _ in nil }
    ) {
        self.hosts = Set(hosts.map { $0.lowercased() })
        self.refuseRedirect = refuseRedirect
    }

    /// `host[:port]` of an http(s) URL, or `nil` for anything else.
    package static func authority(of url: String) -> String? {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        return components.port.map { "\(host):\($0)" } ?? host
    }

    /// Why `url` may not be fetched, or `nil` when it may.
    package func refusal(_ url: String) -> String? {
        guard let authority = Self.authority(of: url) else { return "it is not an http(s) address" }
        guard hosts.contains(authority) else {
            return
                "\(authority) is neither the forum's own host nor a known attachment host (add it with --media-host if you trust it)"
        }
        return nil
    }

    /// The policy of a forum source: its base URL's host, its attachment
    /// hosts and the user's `--media-host`s; a redirect from one of its
    /// threads to another thread's address is refused.
    package static func forum(_ source: any ForumSource, mediaHosts: [String] = []) -> HostPolicy {
        let own = authority(of: source.baseURL).map { [$0] } ?? []
        return HostPolicy(hosts: own + source.mediaHosts + mediaHosts) { from, to in
            guard case .thread(let board, let gid, _)? = source.address(of: from),
                case .thread(let otherBoard, let otherGid, _)? = source.address(of: to),
                board != otherBoard || gid != otherGid
            else { return nil }
            return "it redirects to another thread's address (\(to))"
        }
    }
}

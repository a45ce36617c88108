import Foundation

/// Fetches forum pages politely and keeps every response as a raw capture.
///
/// Politeness lives here, shared by every worker: the per-host rate limit,
/// robots.txt (with `Crawl-delay`), retries with back-off that honour
/// `Retry-After` and hold the whole host while it asks for a pause, and
/// conditional requests that let an unchanged page answer 304.
///
/// With `connections`, at most that many requests are in flight at once,
/// however many walks and threads ask (see `RequestGate`).
///
/// Redirects are followed here, at most `maxRedirects` hops, each one
/// checked against the host policy (hosts, and no thread redirecting to
/// another thread) and robots.txt before it is asked, so nothing reaches a
/// host the policy does not name; the client picks each hop's cookies.
package struct Fetcher: Sendable {
    package static let maxRedirects = 5
    package let captures: any CaptureRecorder
    package let events: ProgressSink
    private let sender: PoliteSender
    private let robots: RobotsGate?
    private let hosts: HostPolicy?

    package init(
        client: any HTTPClient, limiter: RateLimiter, captures: any CaptureRecorder,
        policy: RetryPolicy = RetryPolicy(),
        respectRobots: Bool = true, hosts: HostPolicy? = nil, events: @escaping ProgressSink = { _ in },
        clock: @escaping ArchiveClock = SystemClock.now, connections: Int? = nil
    ) {
        self.hosts = hosts
        self.captures = captures
        self.events = events
        sender = PoliteSender(
            client: client, limiter: limiter, policy: policy, events: events, clock: clock, connections: connections,
            captures: captures)
        robots = respectRobots ? RobotsGate(sender: sender, captures: captures, events: events, clock: clock) : nil
    }

    /// GETs `url` and stores the capture, keyed by `url` with the URL that
    /// answered beside it. A 2xx comes back; other statuses throw after the
    /// capture is kept; a host or redirect the policy refuses throws
    /// `refused` before anything is sent there. With `conditional`, the
    /// newest capture's `ETag` / `Last-Modified` are sent, and a 304 answers
    /// with that capture (its body and its fetch time). `known` is that
    /// newest capture as the caller read it, when it did: the store is
    /// not asked again.
    package func fetch(
        _ url: String, conditional: Bool = false, headers extra: [(name: String, value: String)] = [],
        known: KnownCapture? = nil
    ) async throws(ArchiveError) -> HTTPResponse {
        var headers = extra
        let cached: HTTPResponse?
        if !conditional {
            cached = nil
        } else if let known {
            cached = known.latest
        } else {
            cached = try captures.latestCaptureHeaders(url: url)
        }
        if let cached, (200..<300).contains(cached.status) {
            if let tag = cached.header("ETag") { headers.append(("If-None-Match", tag)) }
            if let modified = cached.header("Last-Modified") { headers.append(("If-Modified-Since", modified)) }
        }
        var current = url
        var hops = 0
        var response: HTTPResponse
        while true {
            try await check(current, requested: url)
            response = try await sender.send(current, headers: hops == 0 ? headers : extra)
            guard (300..<400).contains(response.status), response.status != 304,
                let location = response.header("Location"),
                let next = URL(string: location, relativeTo: URL(string: current))?.absoluteString
            else { break }
            if let reason = hosts?.refuseRedirect(url, next) {
                response.requestedURL = url
                try captures.saveCapture(response)
                throw .refused(url: url, reason: reason)
            }
            hops += 1
            guard hops <= Self.maxRedirects else {
                throw .refused(url: url, reason: "it redirects more than \(Self.maxRedirects) times")
            }
            current = next
        }
        response.requestedURL = url
        if response.status == 304, cached != nil, var stored = try captures.latestCapture(url: url) {
            stored.repeatsLatestCapture = true
            return stored
        }
        let hash = try captures.saveCapture(response, latest: cached)
        response.repeatsLatestCapture = cached?.captureHash == hash && cached?.status == response.status
        guard (200..<300).contains(response.status) else {
            throw .httpStatus(url: url, status: response.status)
        }
        return response
    }

    /// Throws when the policy or robots.txt keeps `url` (asked for as `requested`) from being fetched.
    private func check(_ url: String, requested: String) async throws(ArchiveError) {
        if let reason = hosts?.refusal(url) {
            throw .refused(url: requested, reason: url == requested ? reason : "it redirects to \(url): \(reason)")
        }
        if let robots {
            let rules: RobotsTxt
            do {
                rules = try await robots.rules(forHostOf: url)
            } catch {
                // Say which page could not be reached, not which robots.txt.
                if case .unreachable(_, let reason) = error { throw .unreachable(url: url, reason: reason) }
                throw error
            }
            let target = Self.pathAndQuery(url)
            guard rules.allows(target) else { throw .robotsDisallowed(url: url) }
        }
    }

    /// Fetches a page and hands it over ready to parse.
    package func fetchPage(
        _ url: String, conditional: Bool = true, headers: [(name: String, value: String)] = [],
        known: KnownCapture? = nil
    ) async throws(ArchiveError) -> FetchedPage {
        let response = try await fetch(url, conditional: conditional, headers: headers, known: known)
        var page = FetchedPage(
            url: response.url, body: response.body, contentType: response.header("Content-Type"),
            fetchedAt: response.fetchedAt)
        page.repeatsLatestCapture = response.repeatsLatestCapture
        return page
    }

    static func pathAndQuery(_ url: String) -> String {
        guard let components = URLComponents(string: url) else { return "/" }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }
}

/// The newest capture of an address (`latestCaptureHeaders`), or that
/// there is none, as a caller read it in a read transaction of its own, for
/// `Fetcher.fetch`: the walk of a board reads it with the rest of the
/// board's state, one transaction instead of two.
package struct KnownCapture: Sendable {
    package var latest: HTTPResponse?

    package init(_ latest: HTTPResponse?) { self.latest = latest }
}

import Foundation

/// Where the fetcher keeps every response exactly as it arrived, and finds
/// the newest one of a URL for conditional requests. The store is one;
/// the fetcher needs nothing else of it.
package protocol CaptureRecorder: Sendable {
    /// Keeps a response; returns its body's hash.
    @discardableResult
    func saveCapture(_ response: HTTPResponse) throws(ArchiveError) -> String
    /// Keeps a response that answered the address `latest` is the newest
    /// capture of (`latestCaptureHeaders`); returns its body's hash. The
    /// same body as `latest`'s needs nothing written.
    func saveCapture(_ response: HTTPResponse, latest: HTTPResponse?) throws(ArchiveError) -> String
    /// The newest capture of `url`, if any.
    func latestCapture(url: String) throws(ArchiveError) -> HTTPResponse?
    /// The newest capture of `url` with or without its body: enough to ask
    /// a conditional request, which needs the body only when it answers 304.
    func latestCaptureHeaders(url: String) throws(ArchiveError) -> HTTPResponse?
    /// The robots.txt of `origin` (`scheme://host[:port]`) as last fetched
    /// (its status, body and fetch time), if it was kept.
    func cachedRobots(origin: String) throws(ArchiveError) -> HTTPResponse?
    /// Keeps `response` as the robots.txt of `origin`, replacing the last.
    func cacheRobots(origin: String, _ response: HTTPResponse) throws(ArchiveError)
    /// `host`'s pace as the last run left it, if one kept it.
    func hostPace(host: String) throws(ArchiveError) -> HostPace?
    /// Keeps `host`'s pace for the next run; a pace without a hold keeps
    /// the hold already kept.
    func recordHostPace(host: String, _ pace: HostPace) throws(ArchiveError)
}

/// When a host was last asked, and until when it asked everyone to wait:
/// what a run started again keeps of the last one's pace.
package struct HostPace: Sendable, Equatable {
    package var askedAt: Date
    package var holdUntil: Date?

    package init(askedAt: Date, holdUntil: Date? = nil) {
        self.askedAt = askedAt
        self.holdUntil = holdUntil
    }
}

extension CaptureRecorder {
    package func saveCapture(_ response: HTTPResponse, latest: HTTPResponse?) throws(ArchiveError) -> String {
        try saveCapture(response)
    }

    package func latestCaptureHeaders(url: String) throws(ArchiveError) -> HTTPResponse? {
        try latestCapture(url: url)
    }

    /// Without a cache, robots.txt is asked for by every run.
    package func cachedRobots(origin: String) throws(ArchiveError) -> HTTPResponse? { nil }
    package func cacheRobots(origin: String, _ response: HTTPResponse) throws(ArchiveError) {}
    /// Without a store, every run starts at its own pace.
    package func hostPace(host: String) throws(ArchiveError) -> HostPace? { nil }
    package func recordHostPace(host: String, _ pace: HostPace) throws(ArchiveError) {}
}

extension ArchiveStore: CaptureRecorder {}

import Foundation

/// Where the fetcher keeps every response exactly as it arrived, and finds
/// the newest one of a URL for conditional requests. The store is one;
/// the fetcher needs nothing else of it.
package protocol CaptureRecorder: Sendable {
    /// Keeps a response; returns its body's hash.
    @discardableResult
    func saveCapture(_ response: HTTPResponse) throws(ArchiveError) -> String
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
}

extension CaptureRecorder {
    package func latestCaptureHeaders(url: String) throws(ArchiveError) -> HTTPResponse? {
        try latestCapture(url: url)
    }

    /// Without a cache, robots.txt is asked for by every run.
    package func cachedRobots(origin: String) throws(ArchiveError) -> HTTPResponse? { nil }
    package func cacheRobots(origin: String, _ response: HTTPResponse) throws(ArchiveError) {}
}

extension ArchiveStore: CaptureRecorder {}

import Foundation

/// Fetches forum pages politely and keeps every response as a raw capture.
public struct Fetcher: Sendable {
    public let client: any HTTPClient
    public let limiter: RateLimiter
    public let store: ArchiveStore

    public init(client: any HTTPClient, limiter: RateLimiter, store: ArchiveStore) {
        self.client = client
        self.limiter = limiter
        self.store = store
    }

    /// GETs `url` within the rate limit, stores the capture, and returns the
    /// response; an HTTP error status throws after the capture is kept.
    public func fetch(_ url: String) async throws(ArchiveError) -> HTTPResponse {
        await limiter.acquire()
        let response = try await client.get(url)
        try store.saveCapture(response)
        guard (200..<300).contains(response.status) else {
            throw .httpStatus(url: url, status: response.status)
        }
        return response
    }

    /// Fetches a page and hands it over ready to parse.
    public func fetchPage(_ url: String) async throws(ArchiveError) -> FetchedPage {
        let response = try await fetch(url)
        return FetchedPage(
            url: response.url, body: response.body, contentType: response.header("Content-Type"),
            fetchedAt: response.fetchedAt)
    }
}

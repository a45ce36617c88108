import CBuildInfo
import Foundation

/// One HTTP response, whole.
package struct HTTPResponse: Sendable {
    /// The URL that answered, after redirects.
    package var url: String
    /// The URL that was asked for: what captures are keyed by.
    package var requestedURL: String
    package var status: Int
    /// Header fields of the final response, in the order received.
    package var headers: [(name: String, value: String)]
    package var body: Data
    package var fetchedAt: Date
    /// The hash its body is kept under, when it was read from a capture.
    package var captureHash: String?
    /// Whether its body is, byte for byte, the newest capture of its URL
    /// before it was fetched (or the server said 304 Not Modified).
    package var repeatsLatestCapture = false

    package init(
        url: String, status: Int, headers: [(name: String, value: String)], body: Data, fetchedAt: Date,
        requestedURL: String? = nil
    ) {
        self.url = url
        self.requestedURL = requestedURL ?? url
        self.status = status
        self.headers = headers
        self.body = body
        self.fetchedAt = fetchedAt
    }

    /// The first header with this name, compared case-insensitively:
    /// ASCII letters only, as a field name is an ASCII token (RFC 9110,
    /// 5.1), so a stored name with U+212A KELVIN SIGN is not `Keep-Alive`.
    /// Foundation's `caseInsensitiveCompare`, asked of the headers of every
    /// capture looked up, was 0.5 % of a fetch with nothing new at 100k (perf).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}

/// Fetches URLs. The seam between the pipeline and the network.
package protocol HTTPClient: Sendable {
    /// GETs `url` with extra request headers. A transport failure throws
    /// (`unreachable` when no connection was made, `transfer` when one
    /// broke); any HTTP status is a response. Redirects are not followed:
    /// a 3xx comes back with its `Location`, for the fetcher to check.
    func get(_ url: String, headers: [(name: String, value: String)]) async throws(ArchiveError) -> HTTPResponse
}

extension HTTPClient {
    package func get(_ url: String) async throws(ArchiveError) -> HTTPResponse {
        try await get(url, headers: [])
    }
}

/// What bbsarchive calls itself on the wire.
package enum BBSArchiveVersion {
    package static let version = "0.1.0"
    /// The version and the commit built from, as `--version` prints them
    /// and a store records its last writer: releases share a version.
    package static let build = "\(version) (commit \(String(cString: bbsarchive_build_commit())))"
    package static let userAgent = "bbsarchive/\(version) (static forum archiver)"
}

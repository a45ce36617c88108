import Foundation

/// One HTTP response, whole.
public struct HTTPResponse: Sendable {
    /// The URL that answered, after redirects.
    public var url: String
    public var status: Int
    /// Header fields of the final response, in the order received.
    public var headers: [(name: String, value: String)]
    public var body: Data
    public var fetchedAt: Date

    public init(url: String, status: Int, headers: [(name: String, value: String)], body: Data, fetchedAt: Date) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
        self.fetchedAt = fetchedAt
    }

    /// The first header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Fetches URLs. The seam between the pipeline and the network.
public protocol HTTPClient: Sendable {
    /// GETs `url` with extra request headers. A transport failure throws
    /// (`unreachable` when no connection was made, `transfer` when one
    /// broke); any HTTP status is a response.
    func get(_ url: String, headers: [(name: String, value: String)]) async throws(ArchiveError) -> HTTPResponse
}

extension HTTPClient {
    public func get(_ url: String) async throws(ArchiveError) -> HTTPResponse {
        try await get(url, headers: [])
    }
}

/// What bbsarchive calls itself on the wire.
public enum BBSArchiveVersion {
    public static let version = "0.1.0"
    public static let userAgent = "bbsarchive/\(version) (static forum archiver)"
}

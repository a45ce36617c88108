import Foundation
import GRDB

/// Raw captures and media, each body kept once in `blob` under its SHA-256:
/// what the fetcher records (`CaptureRecorder`) and `reparse` reads back.
extension ArchiveStore {
    /// Keeps a response exactly as it arrived, under the URL asked for with
    /// the URL that answered beside it; returns its body's hash.
    @discardableResult
    package func saveCapture(_ response: HTTPResponse) throws(ArchiveError) -> String {
        try saveCapture(response, hash: SHA256.hex(response.body))
    }

    /// `saveCapture`, except that a body the same as `latest`'s (the newest
    /// capture of the same address, as `latestCaptureHeaders` gave it) opens
    /// no write transaction: its row and its blob are there, and the insert
    /// would change nothing (`ON CONFLICT (url, hash) DO NOTHING`). An
    /// update's unchanged list pages are most of what it fetches: at 100k,
    /// in a running `archive --every` after one reply, 3 alternating rig
    /// runs of 7 updates gave fetch medians 23.6-26.4 ms against
    /// 27.0-30.0, and 64-68 ms of CPU an update against 71-75.
    package func saveCapture(_ response: HTTPResponse, latest: HTTPResponse?) throws(ArchiveError) -> String {
        let hash = SHA256.hex(response.body)
        if let latest, latest.requestedURL == response.requestedURL, latest.captureHash == hash { return hash }
        return try saveCapture(response, hash: hash)
    }

    private func saveCapture(_ response: HTTPResponse, hash: String) throws(ArchiveError) -> String {
        let headers = response.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        try write { db in
            try Self.insertBlob(db, hash: hash, bytes: response.body)
            // Statements asked for with every page fetched: prepared once per connection.
            try db.cachedStatement(
                sql: """
                    INSERT INTO capture (url, effectiveURL, fetchedAt, status, headers, hash) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (url, hash) DO NOTHING
                    """
            ).execute(
                arguments: [
                    response.requestedURL, response.url == response.requestedURL ? nil : response.url,
                    Self.seconds(response.fetchedAt), response.status, headers, hash,
                ])
        }
        return hash
    }

    package func cachedRobots(origin: String) throws(ArchiveError) -> HTTPResponse? {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT fetchedAt, status, body FROM robots_cache WHERE origin = ?", arguments: [origin])
            else { return nil }
            return HTTPResponse(
                url: origin + "/robots.txt", status: row["status"], headers: [], body: row["body"],
                fetchedAt: Self.date(row["fetchedAt"]))
        }
    }

    package func cacheRobots(origin: String, _ response: HTTPResponse) throws(ArchiveError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO robots_cache (origin, fetchedAt, status, body) VALUES (?, ?, ?, ?)
                    ON CONFLICT (origin) DO UPDATE SET fetchedAt = excluded.fetchedAt, status = excluded.status,
                      body = excluded.body
                    """,
                arguments: [origin, Self.seconds(response.fetchedAt), response.status, response.body])
        }
    }

    package func hostPace(host: String) throws(ArchiveError) -> HostPace? {
        try read { db in
            try Row.fetchOne(
                db, sql: "SELECT askedAt, holdUntil FROM host_pace WHERE host = ?", arguments: [host]
            ).map { row in
                HostPace(
                    askedAt: Date(timeIntervalSince1970: row["askedAt"]),
                    holdUntil: (row["holdUntil"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    package func recordHostPace(host: String, _ pace: HostPace) throws(ArchiveError) {
        try write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO host_pace (host, askedAt, holdUntil) VALUES (?, ?, ?)
                    ON CONFLICT (host) DO UPDATE SET askedAt = max(askedAt, excluded.askedAt),
                      holdUntil = coalesce(excluded.holdUntil, holdUntil)
                    """
            ).execute(
                arguments: [host, pace.askedAt.timeIntervalSince1970, pace.holdUntil?.timeIntervalSince1970])
        }
    }

    /// The newest capture of `url`, for conditional requests and re-parsing.
    package func latestCapture(url: String) throws(ArchiveError) -> HTTPResponse? {
        try read { db in
            guard let row = try Self.latestCaptureRow(db, url: url),
                let body = try Self.blobBytes(db, hash: row["hash"])
            else { return nil }
            return Self.response(url: url, row: row, body: body)
        }
    }

    /// The newest capture of `url` without its body: what a conditional
    /// request needs to ask, without reading and inflating the page.
    package func latestCaptureHeaders(url: String) throws(ArchiveError) -> HTTPResponse? {
        try read { db in
            try Self.latestCaptureRow(db, url: url).map { Self.response(url: url, row: $0, body: Data()) }
        }
    }

    private static func latestCaptureRow(_ db: Database, url: String) throws -> Row? {
        try Row.fetchOne(
            db.cachedStatement(
                sql:
                    "SELECT effectiveURL, fetchedAt, status, headers, hash FROM capture WHERE url = ? ORDER BY id DESC LIMIT 1"
            ),
            arguments: [url])
    }

    /// Calls `body` with the newest successful capture of every URL whose
    /// path contains `marker`, in URL order or the order `ordered` gives
    /// the URLs, one at a time (the store is not read into memory whole).
    package func forEachLatestCapture(
        containing marker: String, ordered: ([String]) -> [String] = { $0 },
        _ body: (HTTPResponse) throws(ArchiveError) -> Void
    ) throws(ArchiveError) {
        let urls: [String] = try read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT DISTINCT url FROM capture WHERE instr(url, ?) > 0 AND status BETWEEN 200 AND 299 ORDER BY url",
                arguments: [marker])
        }
        for url in ordered(urls) {
            let response: HTTPResponse? = try read { db in
                guard
                    let row = try Row.fetchOne(
                        db,
                        sql: """
                            SELECT effectiveURL, fetchedAt, status, headers, hash FROM capture
                            WHERE url = ? AND status BETWEEN 200 AND 299 ORDER BY id DESC LIMIT 1
                            """,
                        arguments: [url]),
                    let bytes = try Self.blobBytes(db, hash: row["hash"])
                else { return nil }
                return Self.response(url: url, row: row, body: bytes)
            }
            if let response { try body(response) }
        }
    }

    /// When each address holding one of `markers` last answered with a
    /// page (2xx): the time of the capture `forEachLatestCapture` would read
    /// of it (the last stored, whatever the clock said), without its bytes.
    /// One pass over the captures, whatever the number of markers.
    package func newestCaptureTimes(containing markers: [String]) throws(ArchiveError) -> [String: Date] {
        guard !markers.isEmpty else { return [:] }
        let holds = Array(repeating: "instr(url, ?) > 0", count: markers.count).joined(separator: " OR ")
        return try read { db in
            var times: [String: Date] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT url, fetchedAt, MAX(id) FROM capture
                    WHERE (\(holds)) AND status BETWEEN 200 AND 299 GROUP BY url
                    """,
                arguments: StatementArguments(markers))
            while let row = try rows.next() { times[row["url"]] = Self.date(row["fetchedAt"]) }
            return times
        }
    }

    /// The bytes stored under a content hash.
    package func blob(hash: String) throws(ArchiveError) -> Data? {
        try read { db in try Self.blobBytes(db, hash: hash) }
    }

    static func response(url: String, row: Row, body: Data) -> HTTPResponse {
        let text: String = row["headers"]
        // Trimmed as `CharacterSet.whitespaces` says (`trimmingBlanks`),
        // without bridging to Foundation: its trimming of every header of
        // every capture looked up was 0.7 % of a fetch with nothing new at
        // 100k (perf).
        let headers = text.split(separator: "\n").compactMap { line -> (name: String, value: String)? in
            let parts = line.split(separator: ":", maxSplits: 1).map { String($0).trimmingBlanks }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        let effective: String? = row.hasColumn("effectiveURL") ? row["effectiveURL"] : nil
        var response = HTTPResponse(
            url: effective ?? url, status: row["status"], headers: headers, body: body,
            fetchedAt: date(row["fetchedAt"]), requestedURL: url)
        response.captureHash = row.hasColumn("hash") ? row["hash"] : nil
        return response
    }

    /// Attachment URLs whose bytes are not stored yet.
    package func missingMedia() throws(ArchiveError) -> [String] {
        try read { db in
            try String.fetchAll(
                db,
                // Kept by triggers (v7-media-pending): no scan of every attachment.
                sql: "SELECT url FROM media_pending ORDER BY url")
        }
    }

    /// Stores an attachment's bytes under their hash and links the URL to
    /// them. `variant` is `original`, or the thumbnail size kept when the
    /// original could not be had.
    package func saveMedia(url: String, response: HTTPResponse, variant: String = "original") throws(ArchiveError) {
        let hash = SHA256.hex(response.body)
        let mime = response.header("Content-Type")?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        try write { db in
            try Self.insertBlob(db, hash: hash, bytes: response.body)
            try db.execute(
                sql: """
                    INSERT INTO media (url, hash, mime, variant, fetchedAt) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (url) DO UPDATE SET hash = excluded.hash, mime = excluded.mime,
                      variant = excluded.variant, fetchedAt = excluded.fetchedAt
                    """,
                arguments: [url, hash, mime, variant, Self.seconds(response.fetchedAt)])
        }
    }

    /// Stores bytes once under their hash; text is deflated when that saves space.
    static func insertBlob(_ db: Database, hash: String, bytes: Data) throws {
        guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM blob WHERE hash = ?"), arguments: [hash]) == nil
        else { return }
        var stored = bytes
        var encoding = "identity"
        if Deflate.isCompressible(bytes), let packed = Deflate.compress(bytes), packed.count < bytes.count {
            stored = packed
            encoding = "deflate"
        }
        try db.execute(
            sql: "INSERT INTO blob (hash, size, encoding, bytes) VALUES (?, ?, ?, ?)",
            arguments: [hash, bytes.count, encoding, stored])
    }

    /// The bytes stored under a content hash, inflated; `nil` if absent.
    static func blobBytes(_ db: Database, hash: String) throws -> Data? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT size, encoding, bytes FROM blob WHERE hash = ?"), arguments: [hash])
        else { return nil }
        let bytes: Data = row["bytes"]
        switch row["encoding"] as String {
        case "deflate": return Deflate.decompress(bytes, size: row["size"])
        default: return bytes
        }
    }
}

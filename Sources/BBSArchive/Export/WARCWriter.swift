import Foundation

/// Writes WARC/1.1 files: a `warcinfo` record, then one `response` record
/// per raw capture, each record its own gzip member (`.warc.gz`), the way
/// wget, grab-site and ArchiveTeam write them, so pywb and the Wayback
/// Machine replay them.
struct WARCWriter {
    private let output: FileHandle
    let warcinfoID: String
    private(set) var records = 0

    init(output: FileHandle) {
        self.output = output
        warcinfoID = Self.recordID()
    }

    mutating func writeWarcinfo(filename: String, fields: [(String, String)]) throws(ArchiveError) {
        let body = fields.map { "\($0.0): \($0.1)\r\n" }.joined()
        try write(
            type: "warcinfo", id: warcinfoID,
            headers: [("WARC-Date", Self.warcDate(Date())), ("WARC-Filename", filename)],
            contentType: "application/warc-fields", block: Data(body.utf8))
    }

    /// A capture as an HTTP response record: status line, headers, body.
    ///
    /// The body is stored decoded (libcurl undid any `Content-Encoding`),
    /// so the transfer headers that no longer describe it are kept under
    /// an `X-Archive-Orig-` prefix and `Content-Length` tells the truth.
    mutating func writeResponse(_ capture: StoredCapture) throws(ArchiveError) {
        var head = "HTTP/1.1 \(capture.status) \(Self.reason(capture.status))\r\n"
        var lengthKept = false
        for line in capture.headerLines {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch parts.first?.lowercased() {
            case "content-length" where parts.count == 2 && Int(parts[1]) == capture.body.count && !lengthKept:
                head += "\(line)\r\n"
                lengthKept = true
            case "content-encoding", "transfer-encoding", "content-length":
                head += "X-Archive-Orig-\(line)\r\n"
            default:
                head += "\(line)\r\n"
            }
        }
        if !lengthKept { head += "Content-Length: \(capture.body.count)\r\n" }
        head += "\r\n"
        var block = Data(head.utf8)
        block.append(capture.body)
        try write(
            type: "response", id: Self.recordID(),
            headers: [
                ("WARC-Date", Self.warcDate(capture.fetchedAt)), ("WARC-Target-URI", capture.url),
                ("WARC-Warcinfo-ID", warcinfoID), ("WARC-Payload-Digest", Self.digest(capture.body)),
                ("WARC-Block-Digest", Self.digest(block)),
            ],
            contentType: "application/http;msgtype=response", block: block)
    }

    private mutating func write(
        type: String, id: String, headers: [(String, String)], contentType: String, block: Data
    ) throws(ArchiveError) {
        var text = "WARC/1.1\r\nWARC-Type: \(type)\r\nWARC-Record-ID: \(id)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Type: \(contentType)\r\nContent-Length: \(block.count)\r\n\r\n"
        var record = Data(text.utf8)
        record.append(block)
        record.append(Data("\r\n\r\n".utf8))
        let member = try GzipMember.compress(record)
        do {
            try output.write(contentsOf: member)
        } catch {
            throw .outputUnwritable(path: "the WARC file", reason: "\(error)")
        }
        records += 1
    }

    static func recordID() -> String { "<urn:uuid:\(UUID().uuidString.lowercased())>" }

    static func warcDate(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// `sha256:` and the digest in base32 (RFC 4648), as WARC digests are written.
    static func digest(_ data: Data) -> String {
        "sha256:" + base32(SHA256.digest(data))
    }

    static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var result = ""
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                result.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { result.append(alphabet[(buffer << (5 - bits)) & 31]) }
        while result.count % 8 != 0 { result.append("=") }
        return result
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

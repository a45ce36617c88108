import CCurl
import Foundation

/// An `HTTPClient` on libcurl's easy interface.
///
/// Each request runs `curl_easy_perform` on a Dispatch worker so the Swift
/// concurrency pool never blocks on the network. Only http and https are
/// allowed, redirects are limited, and bodies past `maxBodyBytes` are
/// refused, so a misbehaving server cannot fill the disk or the memory.
public struct CurlHTTPClient: HTTPClient {
    public struct Options: Sendable {
        public var userAgent = BBSArchiveVersion.userAgent
        public var connectTimeout = 15
        public var timeout = 120
        public var maxRedirects = 5
        public var maxBodyBytes = 64 << 20

        public init() {}
    }

    public let options: Options

    public init(options: Options = Options()) {
        Curl.initialize()
        self.options = options
    }

    public func get(_ url: String) async throws(ArchiveError) -> HTTPResponse {
        let options = self.options
        let result: Result<HTTPResponse, ArchiveError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.perform(url, options: options))
            }
        }
        return try result.get()
    }

    private static func perform(_ url: String, options: Options) -> Result<HTTPResponse, ArchiveError> {
        guard let handle = curl_easy_init() else {
            return .failure(.unreachable(url: url, reason: "libcurl could not start a transfer"))
        }
        defer { curl_easy_cleanup(handle) }

        let buffer = ResponseBuffer(limit: options.maxBodyBytes)
        let opaque = Unmanaged.passUnretained(buffer).toOpaque()
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let fetchedAt = Date()

        let code: CURLcode = errorText.withUnsafeMutableBufferPointer { errorBuffer in
            bbs_curl_setopt_string(handle, CURLOPT_URL, url)
            bbs_curl_setopt_string(handle, CURLOPT_USERAGENT, options.userAgent)
            bbs_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            bbs_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            bbs_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            bbs_curl_setopt_long(handle, CURLOPT_MAXREDIRS, options.maxRedirects)
            bbs_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, options.connectTimeout)
            bbs_curl_setopt_long(handle, CURLOPT_TIMEOUT, options.timeout)
            bbs_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            // An empty string asks for every encoding this libcurl can decode.
            bbs_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
            bbs_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer.baseAddress)
            bbs_curl_setopt_write(handle, CURLOPT_WRITEFUNCTION, curlWriteBody)
            bbs_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, opaque)
            bbs_curl_setopt_write(handle, CURLOPT_HEADERFUNCTION, curlWriteHeader)
            bbs_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, opaque)
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let summary = String(cString: curl_easy_strerror(code))
            var reason = detail.isEmpty ? summary : "\(summary) (\(detail))"
            if buffer.overflowed { reason = "the response is larger than \(options.maxBodyBytes >> 20) MB" }
            return .failure(.unreachable(url: url, reason: reason))
        }
        var status = 0
        bbs_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var effective: UnsafeMutablePointer<CChar>?
        bbs_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effective)
        let finalURL = effective.map { String(cString: $0) } ?? url
        return .success(
            HTTPResponse(
                url: finalURL, status: status, headers: buffer.headers, body: buffer.body, fetchedAt: fetchedAt))
    }
}

/// Collects one transfer's bytes; owned by the `perform` call that uses it.
private final class ResponseBuffer {
    let limit: Int
    var body = Data()
    var headers: [(name: String, value: String)] = []
    var overflowed = false

    init(limit: Int) { self.limit = limit }
}

private let curlWriteBody: bbs_curl_write_callback = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let buffer = Unmanaged<ResponseBuffer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    guard buffer.body.count + length <= buffer.limit else {
        buffer.overflowed = true
        return 0  // makes libcurl abort the transfer
    }
    data.withMemoryRebound(to: UInt8.self, capacity: length) { buffer.body.append($0, count: length) }
    return length
}

private let curlWriteHeader: bbs_curl_write_callback = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let buffer = Unmanaged<ResponseBuffer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }
    if line.hasPrefix("HTTP/") {
        buffer.headers = []  // a new response after a redirect: keep only the last one's
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        buffer.headers.append((name, value))
    }
    return length
}

/// libcurl's one-time global set-up.
enum Curl {
    private static let once: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    static func initialize() { _ = once }
}

import CCurl
import Foundation

/// An `HTTPClient` on libcurl's multi interface.
///
/// One background thread drives every transfer through a single multi
/// handle, so connections are kept alive and reused across requests (and
/// HTTP/2 streams share one connection where the server offers it). Only
/// http and https are allowed, redirects are not followed (the fetcher
/// checks each hop and asks again, with that hop's cookies), stalled transfers are
/// cut off, and bodies past `maxBodyBytes` are refused, so a misbehaving
/// server can neither hang the archive nor fill the disk.
package final class CurlHTTPClient: HTTPClient {
    package struct Options: Sendable {
        package var userAgent = BBSArchiveVersion.userAgent
        /// Seconds to wait for a connection.
        package var connectTimeout = 15
        /// Seconds a whole transfer may take.
        package var timeout = 120
        /// A transfer slower than 1 byte a second for this many seconds is cut off.
        package var stallTimeout = 30
        package var maxBodyBytes = 64 << 20
        /// Connections kept open at most, in total and per host.
        package var maxConnections = 8
        /// Cookies to send, chosen per URL by the jar's rules (a browser's
        /// export or a header value); every redirect hop is its own request.
        package var cookies: CookieJar?

        package init() {}
    }

    package let options: Options
    private let engine: CurlMultiEngine?

    package init(options: Options = Options()) {
        self.options = options
        engine = Curl.load() == nil ? CurlMultiEngine(maxConnections: options.maxConnections) : nil
    }

    deinit {
        engine?.stop()
    }

    package func get(_ url: String, headers: [(name: String, value: String)]) async throws(ArchiveError)
        -> HTTPResponse
    {
        // A cancelled task sends nothing more: the run is stopping.
        guard !Task.isCancelled else { throw .cancelled(url: url) }
        let options = self.options
        guard let engine = self.engine else {
            if let missing = Curl.load() { throw .missingLibrary(missing) }
            throw .unreachable(url: url, reason: "libcurl could not start (out of memory?)")
        }
        let result: Result<HTTPResponse, ArchiveError> = await withCheckedContinuation { continuation in
            guard let transfer = Transfer(url: url, headers: headers, options: options, continuation: continuation)
            else {
                continuation.resume(
                    returning: .failure(.unreachable(url: url, reason: "libcurl could not start a transfer")))
                return
            }
            engine.submit(transfer)
        }
        return try result.get()
    }
}

/// Runs the multi handle on its own thread until stopped.
private final class CurlMultiEngine: @unchecked Sendable {
    // @unchecked: `incoming` and `stopping` are only touched while holding
    // `lock`; `active` and the multi handle only on the engine's thread.
    private let multi: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var incoming: [Transfer] = []
    private var stopping = false
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]

    init?(maxConnections: Int) {
        guard let multi = bbs_curl_multi_init() else { return nil }
        self.multi = multi
        bbs_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, maxConnections))
        bbs_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maxConnections))
        let thread = Thread { [self] in run() }
        thread.name = "bbsarchive.curl"
        thread.start()
    }

    func submit(_ transfer: Transfer) {
        let accepted = lock.withLock {
            guard !stopping else { return false }
            incoming.append(transfer)
            return true
        }
        if accepted {
            bbs_curl_multi_wakeup(multi)
        } else {
            transfer.fail(.unreachable(url: transfer.url, reason: "the HTTP client was shut down"))
        }
    }

    func stop() {
        lock.withLock { stopping = true }
        bbs_curl_multi_wakeup(multi)
    }

    private func run() {
        while true {
            let (batch, stop) = lock.withLock {
                defer { incoming = [] }
                return (incoming, stopping)
            }
            if stop {
                for transfer in batch + Array(active.values) {
                    bbs_curl_multi_remove_handle(multi, transfer.easy)
                    transfer.fail(.unreachable(url: transfer.url, reason: "the HTTP client was shut down"))
                }
                active = [:]
                break
            }
            for transfer in batch {
                bbs_curl_multi_add_handle(multi, transfer.easy)
                active[transfer.easy] = transfer
            }
            var running: Int32 = 0
            bbs_curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = bbs_curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active.removeValue(forKey: easy)
                else { continue }
                let code = message.pointee.data.result
                bbs_curl_multi_remove_handle(multi, easy)
                transfer.finish(code)
            }
            bbs_curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        bbs_curl_multi_cleanup(multi)
    }
}

/// One request in flight: its easy handle and everything libcurl writes to.
/// Lives until `finish` or `fail`, which resume the waiting task exactly once.
private final class Transfer: @unchecked Sendable {
    // @unchecked: after `init` only the engine's thread touches a transfer.
    let url: String
    let easy: UnsafeMutableRawPointer
    private let options: CurlHTTPClient.Options
    private var continuation: CheckedContinuation<Result<HTTPResponse, ArchiveError>, Never>?
    private let errorText: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let fetchedAt = Date()
    fileprivate var body = Data()
    fileprivate var headers: [(name: String, value: String)] = []
    fileprivate var overflowed = false

    init?(
        url: String, headers extra: [(name: String, value: String)], options: CurlHTTPClient.Options,
        continuation: CheckedContinuation<Result<HTTPResponse, ArchiveError>, Never>
    ) {
        guard let easy = bbs_curl_easy_init() else { return nil }
        self.url = url
        self.easy = easy
        self.options = options
        self.continuation = continuation
        errorText = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let opaque = Unmanaged.passUnretained(self).toOpaque()
        bbs_curl_setopt_string(easy, CURLOPT_URL, url)
        bbs_curl_setopt_string(easy, CURLOPT_USERAGENT, options.userAgent)
        bbs_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        bbs_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        bbs_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT, options.connectTimeout)
        bbs_curl_setopt_long(easy, CURLOPT_TIMEOUT, options.timeout)
        bbs_curl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        bbs_curl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, options.stallTimeout)
        bbs_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // An empty string asks for every encoding this libcurl can decode (gzip, br, ...).
        bbs_curl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        bbs_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorText)
        bbs_curl_setopt_write(easy, CURLOPT_WRITEFUNCTION, curlWriteBody)
        bbs_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, opaque)
        bbs_curl_setopt_write(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader)
        bbs_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, opaque)
        if let cookie = options.cookies?.header(for: url) {
            bbs_curl_setopt_string(easy, CURLOPT_COOKIE, cookie)
        }
        for (name, value) in extra {
            headerList = bbs_curl_slist_append(headerList, "\(name): \(value)")
        }
        if let headerList {
            bbs_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList)
        }
    }

    deinit {
        bbs_curl_easy_cleanup(easy)
        bbs_curl_slist_free_all(headerList)
        errorText.deallocate()
    }

    func finish(_ code: CURLcode) {
        guard code == CURLE_OK else {
            let detail = String(cString: errorText)
            let summary = String(cString: bbs_curl_easy_strerror(code))
            var reason = detail.isEmpty ? summary : "\(summary) (\(detail))"
            if overflowed { reason = "the response is larger than \(options.maxBodyBytes >> 20) MB" }
            let error: ArchiveError =
                Self.neverConnected.contains(code.rawValue)
                ? .unreachable(url: url, reason: reason) : .transfer(url: url, reason: reason)
            fail(error)
            return
        }
        var status = 0
        bbs_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var effective: UnsafeMutablePointer<CChar>?
        bbs_curl_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
        let finalURL = effective.map { String(cString: $0) } ?? url
        resume(
            .success(HTTPResponse(url: finalURL, status: status, headers: headers, body: body, fetchedAt: fetchedAt)))
    }

    func fail(_ error: ArchiveError) {
        resume(.failure(error))
    }

    private func resume(_ result: Result<HTTPResponse, ArchiveError>) {
        continuation?.resume(returning: result)
        continuation = nil
    }

    /// Errors where no connection to the server was ever made.
    private static let neverConnected: Set<UInt32> = [
        CURLE_COULDNT_RESOLVE_HOST.rawValue, CURLE_COULDNT_RESOLVE_PROXY.rawValue,
        CURLE_COULDNT_CONNECT.rawValue, CURLE_UNSUPPORTED_PROTOCOL.rawValue, CURLE_URL_MALFORMAT.rawValue,
    ]
}

private let curlWriteBody: bbs_curl_write_callback = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    let (length, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow, length <= transfer.maxBodyBytes - transfer.body.count else {
        transfer.overflowed = true
        return 0  // makes libcurl abort the transfer
    }
    data.withMemoryRebound(to: UInt8.self, capacity: length) { transfer.body.append($0, count: length) }
    return length
}

private let curlWriteHeader: bbs_curl_write_callback = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    let (length, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow else { return 0 }
    let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }
    if line.hasPrefix("HTTP/") {
        transfer.headers = []  // a new response after a redirect: keep only the last one's
    } else if let colon = line.firstIndex(of: ":") {
        // Trimmed without Foundation (about 20,000 instructions a call).
        let name = String(line[..<colon]).trimmingBlanks
        let value = String(line[line.index(after: colon)...]).trimmingBlanksAndNewlines
        transfer.headers.append((name, value))
    }
    return length
}

extension Transfer {
    fileprivate var maxBodyBytes: Int { options.maxBodyBytes }
}

/// libcurl, loaded and set up (`curl_global_init`) by the first client, not
/// at start-up: only a fetch needs it and the libraries it brings.
enum Curl {
    /// `nil` once libcurl is ready; otherwise why it is not (one sentence).
    static func load() -> String? {
        bbs_curl_load() == 0 ? nil : String(cString: bbs_curl_load_error())
    }

    /// Loads libcurl, or throws why it cannot be: called before a run that
    /// fetches opens anything, so a missing library is one clear error, not
    /// a failure of every page.
    static func require() throws(ArchiveError) {
        if let missing = load() { throw .missingLibrary(missing) }
    }
}

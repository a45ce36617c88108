import Foundation

/// The reader's own login cookies, for boards a guest may not read.
///
/// bbsarchive never logs in by itself (SMTH's login sits behind a captcha);
/// it sends the cookies of a browser session: a Netscape `cookies.txt` as
/// browsers' export extensions write it, or a `Cookie:` header value.
package struct CookieJar: Sendable, Equatable {
    package struct Cookie: Sendable, Equatable {
        package var domain: String
        package var includeSubdomains: Bool
        package var path: String
        package var secure: Bool
        /// `nil` for a session cookie.
        package var expires: Date?
        package var name: String
        package var value: String
    }

    package var cookies: [Cookie]
    /// Where they came from, for messages: a file path or "the --cookies value".
    package var origin: String

    /// Reads `--cookies`: a path to a cookies.txt file, or else a header
    /// value such as `a=1; b=2`, which is sent to `forumHost` and its sibling
    /// hosts (`att.`, `static.` under the same domain).
    package init(argument: String, forumHost: String) throws(ArchiveError) {
        if FileManager.default.fileExists(atPath: argument) {
            guard let data = FileManager.default.contents(atPath: argument) else {
                throw .unreadableFile(path: argument, reason: "it cannot be read")
            }
            try self.init(netscape: String(decoding: data, as: UTF8.self), origin: argument)
        } else {
            try self.init(header: argument, forumHost: forumHost)
        }
    }

    /// Parses the Netscape format: seven tab-separated fields a line,
    /// `#HttpOnly_` prefixes allowed, other `#` lines are comments.
    package init(netscape text: String, origin: String) throws(ArchiveError) {
        var cookies: [Cookie] = []
        for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated()
        {
            var line = rawLine.trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            if line.hasPrefix("#HttpOnly_") {
                line.removeFirst("#HttpOnly_".count)
            } else if line.hasPrefix("#") || line.trimmingCharacters(in: .whitespaces).isEmpty {
                continue
            }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 7, let expiry = Int64(fields[4]) else {
                throw .invalidOption(
                    "\(origin) line \(number + 1) is not a cookies.txt line (7 tab-separated fields); export the cookies again in Netscape format"
                )
            }
            cookies.append(
                Cookie(
                    domain: fields[0].lowercased(), includeSubdomains: fields[1].uppercased() == "TRUE",
                    path: fields[2].isEmpty ? "/" : fields[2], secure: fields[3].uppercased() == "TRUE",
                    expires: expiry == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(expiry)),
                    name: fields[5], value: fields[6...].joined(separator: "\t")))
        }
        guard !cookies.isEmpty else {
            throw .invalidOption("\(origin) holds no cookies; export them from a browser where you are logged in")
        }
        self.cookies = cookies
        self.origin = origin
    }

    /// Parses a header value `name=value; name2=value2`.
    package init(header: String, forumHost: String) throws(ArchiveError) {
        var cookies: [Cookie] = []
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty else {
                throw .invalidOption(
                    "--cookies \"\(header)\" is neither a cookies.txt file nor a Cookie header value like name=value; name2=value2"
                )
            }
            cookies.append(
                Cookie(
                    domain: Self.siteDomain(of: forumHost), includeSubdomains: true, path: "/", secure: false,
                    expires: nil, name: parts[0], value: parts[1]))
        }
        guard !cookies.isEmpty else { throw .invalidOption("--cookies is empty") }
        self.cookies = cookies
        self.origin = "the --cookies value"
    }

    /// The `Cookie` header for a request to `url`, or `nil` if none applies.
    package func header(for url: String, now: Date = Date()) -> String? {
        guard let components = URLComponents(string: url), let host = components.host?.lowercased() else { return nil }
        let path = components.path.isEmpty ? "/" : components.path
        let https = components.scheme?.lowercased() == "https"
        let matching = cookies.filter { cookie in
            let domain = cookie.domain.hasPrefix(".") ? String(cookie.domain.dropFirst()) : cookie.domain
            let hostMatches =
                host == domain
                || ((cookie.includeSubdomains || cookie.domain.hasPrefix(".")) && host.hasSuffix("." + domain))
            return hostMatches && path.hasPrefix(cookie.path) && (!cookie.secure || https)
                && (cookie.expires.map { $0 > now } ?? true)
        }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Whether every cookie for `host` has expired: then a login wall means
    /// "export them again", not "you gave none".
    package func allExpired(forHost host: String, now: Date = Date()) -> Bool {
        let relevant = cookies.filter {
            let domain = $0.domain.hasPrefix(".") ? String($0.domain.dropFirst()) : $0.domain
            return host == domain || host.hasSuffix("." + domain)
        }
        return !relevant.isEmpty && relevant.allSatisfy { ($0.expires.map { $0 <= now }) ?? false }
    }

    /// `m.newsmth.net` → `newsmth.net`; an IP address or a one-label host stays as it is.
    static func siteDomain(of host: String) -> String {
        let labels = host.lowercased().split(separator: ".")
        if labels.count <= 2 || labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) { return host.lowercased() }
        return labels.suffix(2).joined(separator: ".")
    }
}

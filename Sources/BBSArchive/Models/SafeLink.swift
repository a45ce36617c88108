import Foundation

/// The one place that decides what may become an `href`, in HTML and in
/// Markdown alike.
///
/// A forum's addresses are written by whoever posts there: only web, FTP
/// and mail addresses are ever links. `javascript:`, `data:`, `vbscript:`,
/// `file:` and every other scheme stay text, however they are spelled
/// (case, leading blanks, controls or entities inside the scheme).
package enum SafeLink {
    static let schemes = ["http", "https", "ftp", "mailto"]

    /// `address` as an href if it is an absolute http(s), ftp or mailto
    /// address (trimmed of blanks), else `nil`.
    package static func external(_ address: String) -> String? {
        let trimmed = address.trimmingBlanks
        guard let scheme = scheme(of: trimmed), schemes.contains(scheme),
            !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
            URL(string: trimmed) != nil
        else { return nil }
        if scheme != "mailto" {
            // `http:foo` or `http:/x` is no address; `http://` must name a host.
            let rest = trimmed.dropFirst(scheme.count + 1)
            guard rest.hasPrefix("//"), rest.count > 2 else { return nil }
        }
        return trimmed
    }

    /// Whether `href` may go into a page or a Markdown file: an allowed
    /// external address, or a relative path of the archive's own (no
    /// scheme at all).
    package static func allows(_ href: String) -> Bool {
        if external(href) != nil { return true }
        let trimmed = href.trimmingBlanks
        guard !trimmed.isEmpty, !trimmed.hasPrefix("//"),
            !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return false }
        // A colon before the first `/`, `?` or `#` would make it a scheme.
        if isASCII(trimmed) {
            // Byte by byte: the same answer for ASCII, without Foundation's search.
            for byte in trimmed.utf8 {
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                if byte == UInt8(ascii: ":") { return false }
            }
            return true
        }
        let head = trimmed.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return !head.contains(":")
    }

    /// Whether every byte of `text` is ASCII: then each byte is a character
    /// of its own, and a byte-by-byte look answers as a look at characters.
    private static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// The lowercased scheme of `text`, if it starts with one.
    private static func scheme(of text: String) -> String? {
        if isASCII(text) {
            // Byte by byte (the same answer for ASCII text): the site's own
            // relative links, most of those asked about, have no colon.
            var name: [UInt8] = []
            for byte in text.utf8 {
                if byte == UInt8(ascii: ":") {
                    guard let first = name.first, isASCIILetter(first) else { return nil }
                    return String(decoding: name, as: UTF8.self)
                }
                guard
                    isASCIILetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                        || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                else { return nil }
                // Lowercased as `lowercased()` does for ASCII.
                name.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
            }
            return nil
        }
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon]
        guard let first = name.first, first.isASCII, first.isLetter,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return name.lowercased()
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}

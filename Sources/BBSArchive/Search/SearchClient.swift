import Foundation

/// The search client as the site serves it: `templates/assets/search.js`
/// keeps its comments for the reader of the source; the published copy
/// leaves out every line that is only a comment, every blank line and the
/// indentation, so a query downloads less (about 6 kB of 26 kB).
///
/// Only whole lines go: a line whose first non-blank characters are `//`,
/// which in this client is always a comment (it has no template literals
/// and no string or regular expression spans lines). Code lines keep
/// their text, so a comment at the end of a line stays.
package enum SearchClient {
    /// The published client of a source client. Read as raw bytes: through
    /// `Data`'s slices (`split`, `drop`, `starts(with:)`), copying the assets
    /// took 1.3–2.0 ms of every build (a build after one reply takes about
    /// 55 ms), now 0.4–0.5 ms.
    package static func published(_ source: Data) -> Data {
        source.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Data in
            var out = [UInt8]()
            out.reserveCapacity(bytes.count)
            let newline = UInt8(ascii: "\n"), slash = UInt8(ascii: "/")
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != newline { end += 1 }
                // The line's text after its indentation (spaces, tabs, CR).
                var text = start
                while text < end && (bytes[text] == 0x20 || bytes[text] == 0x09 || bytes[text] == 0x0D) { text += 1 }
                let comment = end - text >= 2 && bytes[text] == slash && bytes[text + 1] == slash
                if text < end && !comment {
                    out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[text..<end]))
                    out.append(newline)
                }
                start = end + 1
            }
            return Data(out)
        }
    }

    /// The bytes the site gets for an asset at `relative` (under the
    /// templates folder): the search client published, anything else as is.
    package static func asset(_ relative: String, _ data: Data) -> Data {
        relative == SitePaths.searchScript ? published(data) : data
    }
}

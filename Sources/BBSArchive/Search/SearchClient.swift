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
    /// The published client of a source client.
    package static func published(_ source: Data) -> Data {
        var out = Data()
        out.reserveCapacity(source.count)
        for line in source.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let text = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
            if text.isEmpty || text.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) { continue }
            out.append(contentsOf: text)
            out.append(UInt8(ascii: "\n"))
        }
        return out
    }

    /// The bytes the site gets for an asset at `relative` (under the
    /// templates folder): the search client published, anything else as is.
    package static func asset(_ relative: String, _ data: Data) -> Data {
        relative == SitePaths.searchScript ? published(data) : data
    }
}

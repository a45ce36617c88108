import BBSArchiveTestSupport
import Foundation

@testable import BBSArchive

/// Reads a built site from disk the way a browser would: every page, its
/// links and images, resolved relative to the page.
struct SiteInspector {
    let root: URL

    /// Every file under the root, as `/`-separated relative paths.
    func files() -> [String] {
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        var paths: [String] = []
        for case let url as URL in walker
        where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            paths.append(String(url.path.dropFirst(root.path.count + 1)))
        }
        return paths.sorted()
    }

    func pages() -> [String] { files().filter { $0.hasSuffix(".html") } }

    func text(_ path: String) -> String {
        String(
            decoding: FileManager.default.contents(atPath: root.appendingPathComponent(path).path) ?? Data(),
            as: UTF8.self)
    }

    /// `href` and `src` values of links, images and stylesheets on a page.
    func references(in path: String) throws -> [String] {
        let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) ?? Data()
        let document = try HTMLDocument(data: data, url: path, encoding: "UTF-8")
        return
            (document.select("//a[@href] | //link[@href]").compactMap { $0.attribute("href") }
            + document.select("//img[@src] | //script[@src]").compactMap { $0.attribute("src") })
    }

    func images(in path: String) throws -> [String] {
        let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) ?? Data()
        return try HTMLDocument(data: data, url: path, encoding: "UTF-8").select("//img").compactMap {
            $0.attribute("src")
        }
    }

    /// Whether a link is to the outside world (kept as is, not checked).
    static func isExternal(_ reference: String) -> Bool {
        reference.hasPrefix("http://") || reference.hasPrefix("https://") || reference.hasPrefix("//")
            || reference.hasPrefix("mailto:")
    }

    /// The file a relative link from `page` points at, or `nil` for a
    /// same-page anchor.
    func resolve(_ reference: String, from page: String) -> String? {
        let target =
            reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if target.isEmpty { return nil }
        let decoded = target.removingPercentEncoding ?? target
        var parts = page.split(separator: "/").dropLast().map(String.init)
        for component in decoded.split(separator: "/") {
            if component == ".." { _ = parts.popLast() } else if component != "." { parts.append(String(component)) }
        }
        return parts.joined(separator: "/")
    }

    func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    /// Whether libxml2's XML parser reads the page as well-formed: every
    /// element closed, every attribute quoted, every `&` escaped.
    func isWellFormed(_ path: String) -> Bool {
        let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) ?? Data()
        return WellFormedXML.check(data)
    }
}

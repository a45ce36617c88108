import Foundation

/// Where every page of the site lives. Paths come from forum ids only
/// (board name, thread gid, user id, content hash), never from crawl order,
/// so a rebuild or an update never breaks a link.
enum SitePaths {
    static let home = "index.html"
    static let stylesheet = "assets/style.css"
    /// Applies the reader's stored theme and text settings before the first paint.
    static let bootScript = "assets/boot.js"
    /// Everything else the pages do with JavaScript: toggles, history, image viewer.
    static let siteScript = "assets/site.js"
    /// Inlined into 404.html built without a site address.
    static let findRootScript = "assets/find-root.js"
    static let lookupScript = "assets/lookup.js"
    static let icon = "assets/icon.svg"
    static let hot = "hot.html"

    /// Page `page` of the hot topics of a window (`today`, `week`; nil: all).
    static func hot(window: String?, page: Int) -> String {
        "hot" + (window.map { "-" + $0 } ?? "") + (page > 1 ? "-\(page)" : "") + ".html"
    }
    static let lookup = "lookup.html"
    /// The lookup page's map of archived threads, a script so it loads from `file://` too.
    static let lookupMap = "lookup-map.js"
    /// The forum's forms of address, as data for the forum-agnostic `lookup.js`.
    static let lookupRules = "lookup-rules.js"
    /// Every board and section, which `site.js` lists in each page's
    /// sidebar: one file, so a page's size does not grow with the number
    /// of boards and a new board rewrites this file, not every page.
    static let boardsScript = "boards.js"
    static let search = "search.html"
    static let searchScript = "assets/search.js"
    static let notFound = "404.html"
    static let feed = "feed.xml"
    static let sitemap = "sitemap.xml"
    static let markdownHome = "index.md"

    static func section(_ code: String) -> String { "section/\(component(code)).html" }

    static func boardFeed(_ board: String) -> String { "board/\(component(board))/feed.xml" }

    static func board(_ board: String, page: Int = 1) -> String {
        let board = component(board)
        return page <= 1
            ? joined(capacity: board.utf8.count + 17) {
                $0.literal("board/"); $0.text(board); $0.literal("/index.html")
            }
            : joined(capacity: board.utf8.count + 37) {
                $0.literal("board/"); $0.text(board); $0.literal("/page-"); $0.number(page); $0.literal(".html")
            }
    }

    /// Page `page` of a board's threads by start, numbered from the oldest.
    static func boardArchive(_ board: String, page: Int) -> String {
        "board/\(component(board))/page-\(max(1, page)).html"
    }

    static func boardMarkdown(_ board: String) -> String { "board/\(component(board))/index.md" }

    /// The Markdown copy of `page-N.html`: page `page` of a board's threads by start.
    static func boardMarkdown(_ board: String, page: Int) -> String {
        "board/\(component(board))/page-\(max(1, page)).md"
    }

    /// Window `page` of a board's threads by start (the threads of
    /// `page-N.html`), shown in a frame beside each of those threads.
    static func boardList(_ board: String, page: Int) -> String {
        "board/\(component(board))/list-\(max(1, page)).html"
    }

    /// The anchor of a thread's row in its list window.
    static func listAnchor(gid: Int) -> String { "t\(gid)" }

    static func thread(_ board: String, gid: Int, page: Int = 1) -> String {
        // Built into one buffer: interpolation took about 2,800
        // instructions a path, and the build asks for many per post.
        let board = component(board)
        return page <= 1
            ? joined(capacity: board.utf8.count + 32) {
                $0.literal("board/"); $0.text(board); $0.literal("/"); $0.number(gid); $0.literal(".html")
            }
            : joined(capacity: board.utf8.count + 53) {
                $0.literal("board/"); $0.text(board); $0.literal("/"); $0.number(gid); $0.literal("-")
                $0.number(page); $0.literal(".html")
            }
    }

    /// 只看此ID: one author's posts of a thread. Dots separate the parts
    /// because `component` never lets a dot through from an id.
    static func authorView(_ board: String, gid: Int, author: String, page: Int = 1) -> String {
        let base = "board/\(component(board))/\(gid).au.\(component(author))"
        return page <= 1 ? base + ".html" : base + ".\(page).html"
    }

    static func threadMarkdown(_ board: String, gid: Int) -> String { "board/\(component(board))/\(gid).md" }

    /// A user's landing page: their newest posts.
    static func user(_ id: String) -> String {
        let id = component(id)
        return joined(capacity: id.utf8.count + 10) {
            $0.literal("user/"); $0.text(id); $0.literal(".html")
        }
    }

    /// Page `page` of a user's posts by time, numbered from the oldest.
    static func userArchive(_ id: String, page: Int) -> String { "user/\(component(id))-\(max(1, page)).html" }

    /// `media/ab/abcdef….png`: one file per content hash and extension.
    static func media(hash: String, extension ext: String) -> String {
        "media/\(hash.prefix(2))/\(hash).\(ext)"
    }

    /// The relative link from the page at `from` to the file at `to`
    /// (both relative to the site's root): up to the shared folder, then down.
    static func relative(from: String, to: String) -> String {
        // The site's own paths (no empty component) are compared as bytes;
        // anything else goes the long way, with the same result.
        var from = from
        var to = to
        let fast = from.withUTF8 { f in
            to.withUTF8 { t -> String? in
                let slash = UInt8(ascii: "/")
                guard let first = f.first, let last = f.last, first != slash, last != slash else { return nil }
                var folders = 0
                var previous: UInt8 = 0
                for byte in f {
                    if byte == slash {
                        if previous == slash { return nil }
                        folders += 1
                    }
                    previous = byte
                }
                var shared = 0
                var sharedEnd = 0
                var index = 0
                while index < f.count, index < t.count, f[index] == t[index] {
                    if f[index] == slash {
                        shared += 1
                        sharedEnd = index + 1
                    }
                    index += 1
                }
                // One buffer of the exact size: `../` per folder left, then the rest of `to`.
                let ups = folders - shared
                let tail = t.count - sharedEnd
                return String(unsafeUninitializedCapacity: ups * 3 + tail) { buffer in
                    guard let out = buffer.baseAddress else { return 0 }
                    var at = 0
                    for _ in 0..<ups {
                        out[at] = UInt8(ascii: ".")
                        out[at + 1] = UInt8(ascii: ".")
                        out[at + 2] = slash
                        at += 3
                    }
                    if tail > 0, let source = t.baseAddress { (out + at).update(from: source + sharedEnd, count: tail) }
                    return at + tail
                }
            }
        }
        return fast ?? relativeBySplitting(from: from, to: to)
    }

    static func relativeBySplitting(from: String, to: String) -> String {
        let fromFolders = from.split(separator: "/").dropLast()
        let toParts = to.split(separator: "/", omittingEmptySubsequences: false)
        var shared = 0
        while shared < fromFolders.count, shared < toParts.count - 1,
            fromFolders[fromFolders.startIndex + shared] == toParts[shared]
        {
            shared += 1
        }
        let up = String(repeating: "../", count: fromFolders.count - shared)
        let down = toParts.dropFirst(shared).joined(separator: "/")
        return up + down
    }

    /// A forum id made safe as one path component on any file system and in
    /// any URL: ASCII letters, digits, `-` and `_` pass; anything else
    /// becomes `~XX` hex, so distinct ids stay distinct.
    ///
    /// A long id (120 CJK characters escape to over 1,000 bytes) is cut to
    /// its first `componentKeep` bytes plus `~~` and a hash of the whole id,
    /// so every file name stays well under 255 bytes. `~~` never occurs in
    /// an uncut component (a `~` is always followed by two hex digits), so a
    /// cut one never equals an uncut one.
    static func component(_ id: String) -> String {
        let escaped = escapedComponent(id)
        guard escaped.utf8.count > componentLimit else { return escaped }
        return String(escaped.prefix(componentKeep)) + "~~" + SHA256.hex(Data(id.utf8)).prefix(24)
    }

    /// The longest component left whole; a cut one is 150 bytes.
    static let componentLimit = 150
    static let componentKeep = 124

    private static func escapedComponent(_ id: String) -> String {
        // Most ids (board names, user ids) pass whole: the string itself, no copy.
        // A loop over the contiguous bytes: `utf8.allSatisfy` took about
        // 20 instructions a byte.
        var probe = id
        if probe.withUTF8({ bytes in !bytes.isEmpty && bytes.allSatisfy(passes) }) { return id }
        // Otherwise byte by byte into one buffer, not a `Character` appended per byte.
        let hex: StaticString = "0123456789ABCDEF"
        var result: [UInt8] = []
        result.reserveCapacity(id.utf8.count * 3)
        for byte in id.utf8 {
            if passes(byte) {
                result.append(byte)
            } else {
                result.append(UInt8(ascii: "~"))
                result.append(hex.utf8Start[Int(byte >> 4)])
                result.append(hex.utf8Start[Int(byte & 0x0F)])
            }
        }
        return result.isEmpty ? "~" : String(decoding: result, as: UTF8.self)
    }

    /// A path put together in one buffer of at most `capacity` bytes
    /// (pieces that overflow it are left out: callers give room to spare).
    private static func joined(capacity: Int, _ build: (inout PathWriter) -> Void) -> String {
        String(unsafeUninitializedCapacity: capacity) { buffer in
            var writer = PathWriter(buffer: buffer)
            build(&writer)
            return writer.count
        }
    }

    /// Appends texts and decimal numbers (as `\(number)` writes them) to a buffer.
    private struct PathWriter {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func literal(_ text: StaticString) {
            append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        mutating func text(_ text: String) {
            var text = text
            text.withUTF8 { append($0) }
        }

        mutating func number(_ number: Int) {
            // Its digits counted first, then written right to left in place.
            var digits = 1
            var rest = number.magnitude / 10
            while rest > 0 {
                digits += 1
                rest /= 10
            }
            let length = digits + (number < 0 ? 1 : 0)
            guard let out = buffer.baseAddress, count + length <= buffer.count else { return }
            var magnitude = number.magnitude
            var at = count + length
            repeat {
                at -= 1
                out[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if number < 0 { out[count] = UInt8(ascii: "-") }
            count += length
        }

        private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress, let out = buffer.baseAddress, count + bytes.count <= buffer.count
            else { return }
            (out + count).update(from: source, count: bytes.count)
            count += bytes.count
        }
    }

    /// ASCII letters, digits, `-` and `_`: the bytes a component keeps as they are.
    @inline(__always)
    private static func passes(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// The file extension an attachment's mime type and name suggest,
    /// from `InertMedia`'s allowlist (else `bin`); the bytes have the last
    /// word when the file is written.
    static func mediaExtension(mime: String?, name: String) -> String {
        InertMedia.declared(mime: mime, name: name)
    }
}

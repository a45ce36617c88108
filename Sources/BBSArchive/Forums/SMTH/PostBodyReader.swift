import Foundation

/// Turns the body `div.sp` of a mobile post into text lines, attachments and
/// the trailing `FROM` / `修改` lines.
///
/// Lines are joined by `<br />` in the markup, and text nodes follow HTML's
/// whitespace rules (`HTMLWhitespace`: a newline inside text is a space);
/// attachment links and their thumbnails become `Attachment`s (always the
/// full-size URL), and the `&nbsp;` runs the forum writes for spaces become
/// spaces again.
struct PostBodyReader: PostTextLines {
    let baseURL: String

    private var lines: [String] = []
    var current = CollapsingLine()
    private var currentHoldsAttachment = false
    private var attachments: [Attachment] = []
    /// Where each image's address is in `attachments`, last: asked of every
    /// image link, so a page of a million of them stays linear.
    private var imageIndex: [String: Int] = [:]
    private var pendingImage: (url: String, size: String?)?
    private var pendingFileSize: String?

    init(baseURL: String) {
        self.baseURL = baseURL
    }

    struct Result {
        var text: String
        var attachments: [Attachment]
        var ip: String?
        var editedBy: String?
    }

    mutating func read(_ node: HTMLNode) { readChildren(node) }

    mutating func readChildren(_ node: HTMLNode) {
        node.forEachChild { child in
            read(child: child)
            return true
        }
    }

    private mutating func read(child: HTMLNode) {
        if child.isText {
            child.withTextBytes { current.append(utf8: $0) }
            return
        }
        guard child.isElement else { return }
        if child.isElement("br") {
            endLine()
        } else if child.isElement("a") {
            let href = child.attribute("href") ?? ""
            guard Self.isAttachmentPath(href) else {
                readLink(child, href: href)
                return
            }
            let text = HTMLWhitespace.field(child.text)
            let url = PostMarkup.absolute(baseURL, Self.fullSizePath(href))
            // An image inside its own link (nForum's form of an image shown
            // without a thumbnail, the desktop's too) is that image, named by
            // its `alt`; before, it was a file without a name.
            if let image = child.firstDescendant(where: { $0.isElement("img") }) {
                flushPendingImage()
                if imageIndex[url] == nil {
                    addImage(Attachment(name: PostMarkup.imageName(image, url: url), url: url, kind: .image, size: nil))
                }
                currentHoldsAttachment = true
                return
            }
            // The "view the original" link, however worded (单击此查看原图,
            // 单击查看原图, 点击查看原图): its image's size. An image listed
            // already (its thumbnail came first) only takes the size.
            if ByteSearch.contains(text, "查看原图") {
                flushPendingImage()
                if let listed = imageIndex[url] {
                    attachments[listed].size = attachments[listed].size ?? Self.parenthesized(text)
                } else {
                    pendingImage = (url, Self.parenthesized(text))
                }
            } else {
                attachments.append(
                    Attachment(name: PostMarkup.attachmentName(text), url: url, kind: .file, size: pendingFileSize))
                pendingFileSize = nil
            }
            currentHoldsAttachment = true
        } else if child.isElement("img") {
            let src = child.attribute("src") ?? ""
            guard Self.isAttachmentPath(src) else {
                current.appendVisible(SMTHEmoticons.code(ofImage: src) ?? child.attribute("alt") ?? "")
                return
            }
            let url = pendingImage?.url ?? PostMarkup.absolute(baseURL, Self.fullSizePath(src))
            let name = PostMarkup.imageName(child, url: url)
            addImage(Attachment(name: name, url: url, kind: .image, size: pendingImage?.size))
            pendingImage = nil
            currentHoldsAttachment = true
        } else if child.isElement("font"), case let text = HTMLWhitespace.collapse(child.text),
            text.hasPrefix("附件(")
        {
            pendingFileSize = Self.parenthesized(text)
            currentHoldsAttachment = true
        } else if child.isElement("script") || child.isElement("style") {
            return
        } else if child.isBlock {
            readBlock(child)
        } else {
            read(child)
        }
    }

    mutating func finish() -> Result {
        endLine()
        flushPendingImage()
        var lines = self.lines.map(HTMLWhitespace.plainSpaces)
        var ip: String?
        var editedBy: String?
        trimTrailingBlankLines(&lines)
        // The `FROM` line and the edit note, in either order: the page puts
        // the note first, but the post's own text has the BBS's `※ 修改`
        // after its `※ 来源`, and a page that keeps that order lost its
        // `FROM` into the body.
        while let last = lines.last {
            if ip == nil, let match = Self.fromLine(last) {
                ip = match
            } else if editedBy == nil, let (user, _) = Self.editLine(last) {
                editedBy = user
            } else {
                break
            }
            lines.removeLast()
            trimTrailingBlankLines(&lines)
        }
        // A body that keeps the BBS's own tail lines: `※ 修改` and `※ 来源`,
        // known by their text, and found past a line after them, as on the
        // desktop site (`PostText.takeTailLines`).
        // The address is the 来源 line's, whichever comes last (the 修改
        // line's only without one), as on the desktop.
        var origin: String?
        var editAddress: String?
        for line in PostText.takeTailLines(&lines) {
            if line.hasPrefix("※ 修改") {
                if editedBy == nil { editedBy = PostText.editNote(line).0 }
                if editAddress == nil { editAddress = PostText.fromAddress(line) }
            } else if origin == nil {
                origin = PostText.fromAddress(line)
            }
        }
        if ip == nil { ip = origin ?? editAddress }
        // The page cuts the signature off after its `--` line but keeps
        // that line (nForum's mobile view writes the text up to `<br>--`,
        // then the tail lines): the separator of a signature the page does
        // not show, not a line of the post.
        if let last = lines.last, last.utf8.count <= 16, HTMLWhitespace.collapse(last) == "--" {
            lines.removeLast()
            trimTrailingBlankLines(&lines)
        }
        return Result(text: lines.joined(separator: "\n"), attachments: attachments, ip: ip, editedBy: editedBy)
    }

    mutating func endLine() {
        let line = current.finish()
        let blank = line.allSatisfy { $0 == " " }
        if !(currentHoldsAttachment && blank) {
            lines.append(line)
        }
        currentHoldsAttachment = false
    }

    /// A "view the original" link without its thumbnail still names an image.
    private mutating func flushPendingImage() {
        guard let pending = pendingImage else { return }
        addImage(
            Attachment(name: PostMarkup.lastComponent(pending.url), url: pending.url, kind: .image, size: pending.size))
        pendingImage = nil
    }

    private mutating func addImage(_ image: Attachment) {
        imageIndex[image.url] = attachments.count
        attachments.append(image)
    }

    private func trimTrailingBlankLines(_ lines: inout [String]) {
        while let last = lines.last, HTMLWhitespace.isBlank(last) { lines.removeLast() }
    }

    /// Whether the link's bytes hold `/att/` (ASCII: the same answer as
    /// `contains`, without Foundation).
    static func isAttachmentPath(_ href: String) -> Bool { ByteSearch.contains(href, "/att/") }

    /// `/att/B/1/2/middle` → `/att/B/1/2`: the archive keeps originals, not thumbnails.
    static func fullSizePath(_ href: String) -> String {
        for suffix in ["/middle", "/small", "/large"] where href.hasSuffix(suffix) {
            return String(href.dropLast(suffix.count))
        }
        return href
    }

    /// `单击此查看原图(12.3KB)` → `12.3KB`.
    static func parenthesized(_ text: String) -> String? {
        guard let open = text.firstIndex(where: { $0 == "(" || $0 == "（" }),
            let close = text.lastIndex(where: { $0 == ")" || $0 == "）" }), open < close
        else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// `FROM 101.90.125.*` → `101.90.125.*`. Read by what the line says:
    /// `FROM` as the forum writes it, or `FROM:`, then an address (IPv4 with
    /// `*` for its hidden parts, or IPv6), then at most a bracketed note
    /// (a place, `[北京]`), kept with the address rather than left in the
    /// body. Anything else is a line of the post's own (`From 2019 to 2020`,
    /// `from 9:00`), which stays in the body.
    static func fromLine(_ line: String) -> String? {
        // Most lines are not: a quick no before splitting.
        guard line.utf8.contains(UInt8(ascii: "F")) else { return nil }
        // Every post ends with one: an ASCII line of two fields, the first
        // `FROM`, is read by its bytes.
        if line.utf8.allSatisfy({ $0 < 0x80 }), let address = asciiFromLine(line) { return address }
        // An invisible mark before `FROM` (a zero-width space, a byte-order
        // mark) is no part of what the line says.
        let shown = line.unicodeScalars.drop { $0.properties.generalCategory == .format }
        var fields = Substring(shown).split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard let first = fields.first else { return nil }
        // `FROM:28.127.20.*` is `FROM:` and the address.
        for label in ["FROM:", "FROM："] where first.hasPrefix(label) && first.count > label.count {
            fields[0] = label
            fields.insert(String(first.dropFirst(label.count)), at: 1)
        }
        guard fields.count >= 2, ["FROM", "FROM:", "FROM："].contains(fields[0]), isAddress(fields[1]) else {
            return nil
        }
        let note = fields.dropFirst(2).joined(separator: " ")
        guard note.isEmpty || isBracketed(note) else { return nil }
        return fields.dropFirst().joined(separator: " ")
    }

    /// An IP address as the forum shows one: IPv4 with `*` for its hidden
    /// parts (`101.90.125.*`), IPv6 (`240e:3b0::*`), or IPv6 that ends in
    /// IPv4 (`::ffff:101.90.125.*`). Not a time (`10:20:30`) or a year.
    static func isAddress(_ text: String) -> Bool {
        let bytes = text.utf8
        guard let lastColon = bytes.lastIndex(of: UInt8(ascii: ":")) else { return isIPv4(bytes[...]) }
        let last = bytes[bytes.index(after: lastColon)...]
        guard last.contains(UInt8(ascii: ".")) else { return isIPv6(bytes) }
        // The IPv4 ending stands for the last two groups.
        return isIPv4(last) && isIPv6(Array(bytes[...lastColon]) + Array("0:0".utf8))
    }

    /// Four dot-separated parts, each one to three digits or `*`.
    private static func isIPv4(_ bytes: Substring.UTF8View) -> Bool {
        var parts = 0
        var length = 0
        var star = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "."):
                guard length > 0 else { return false }
                parts += 1
                length = 0
                star = false
            case UInt8(ascii: "*"):
                guard length == 0 else { return false }
                star = true
                length = 1
            case 0x30...0x39:
                guard !star, length < 3 else { return false }
                length += 1
            default:
                return false
            }
        }
        return parts == 3 && length > 0
    }

    /// IPv6 as RFC 4291 writes it: groups of one to four hex digits (or
    /// `*`, the forum's mask) between single colons, `::` once at most and
    /// standing for one group or more, eight groups in all, fewer only with
    /// `::` or where a last group ending in `*` hides the rest (the forum's
    /// `240e:3b3:*`, `2409:8a00:1234:5678:*`), and one hex digit at least.
    /// A masked address without `::` needs a group of three digits or more,
    /// so a time (`10:20:*`) is none. Before, any number of groups passed,
    /// and a colon alone at either end (`1234:5678:`).
    private static func isIPv6(_ bytes: some BidirectionalCollection<UInt8>) -> Bool {
        let colon = UInt8(ascii: ":")
        let pieces = bytes.split(separator: colon, omittingEmptySubsequences: false)
        guard pieces.count >= 3 else { return false }
        // `::` at either end leaves two empty pieces there; one alone is a
        // colon alone.
        var groups = pieces[...]
        if groups.first?.isEmpty == true {
            guard groups.dropFirst().first?.isEmpty == true else { return false }
            groups = groups.dropFirst()
        }
        if groups.last?.isEmpty == true {
            guard groups.dropLast().last?.isEmpty == true else { return false }
            groups = groups.dropLast()
        }
        var elided = false
        var count = 0
        var longest = 0
        var digits = false
        for group in groups {
            guard !group.isEmpty else {
                // A second `::`, or `:::`, is no address.
                guard !elided else { return false }
                elided = true
                continue
            }
            guard group.count <= 4 else { return false }
            for byte in group {
                switch byte {
                case 0x30...0x39, 0x41...0x46, 0x61...0x66: digits = true
                case UInt8(ascii: "*"): break
                default: return false
                }
            }
            count += 1
            longest = max(longest, group.count)
        }
        guard digits else { return false }
        if elided { return count <= 7 }
        if count == 8 { return true }
        let masked = groups.last?.last == UInt8(ascii: "*")
        return masked && count < 8 && longest >= 3
    }

    /// `[北京]`, `(北京)`, `【北京】`: one bracketed note.
    private static func isBracketed(_ text: String) -> Bool {
        guard let first = text.first, let last = text.last, text.count >= 2 else { return false }
        return ["[]", "()", "（）", "【】"].contains { $0.first == first && $0.last == last }
    }

    /// `fromLine` of an ASCII line: two fields between spaces, the first `FROM`.
    private static func asciiFromLine(_ line: String) -> String? {
        let bytes = line.utf8
        let space = UInt8(ascii: " ")
        var index = bytes.startIndex
        func field() -> Range<String.Index>? {
            while index < bytes.endIndex, bytes[index] == space { index = bytes.index(after: index) }
            guard index < bytes.endIndex else { return nil }
            let start = index
            while index < bytes.endIndex, bytes[index] != space { index = bytes.index(after: index) }
            return start..<index
        }
        guard let first = field(), line.utf8[first].elementsEqual("FROM".utf8), let second = field(),
            field() == nil, isAddress(String(line[second]))
        else { return nil }
        return String(line[second])
    }

    /// `修改:user FROM 1.2.3.*` → (`user`, `1.2.3.*`): the forum's edit note,
    /// its `FROM` read as `fromLine` reads one (a line of the post's own,
    /// `修改:我 FROM 你`, is none).
    static func editLine(_ line: String) -> (String, String)? {
        guard line.hasPrefix("修改:") || line.hasPrefix("修改：") else { return nil }
        let rest = line.dropFirst(3).drop { $0 == " " }
        guard let space = rest.firstIndex(where: \.isWhitespace) else { return nil }
        let user = String(rest[..<space])
        guard !user.isEmpty, let address = fromLine(String(rest[space...])) else { return nil }
        return (user, address)
    }
}

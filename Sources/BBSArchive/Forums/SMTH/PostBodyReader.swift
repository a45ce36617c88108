import Foundation

/// Turns the body `div.sp` of a mobile post into text lines, attachments and
/// the trailing `FROM` / `修改` lines.
///
/// Lines are joined by `<br />` in the markup, and text nodes follow HTML's
/// whitespace rules (`HTMLWhitespace`: a newline inside text is a space);
/// attachment links and their thumbnails become `Attachment`s (always the
/// full-size URL), and the `&nbsp;` runs the forum writes for spaces become
/// spaces again.
struct PostBodyReader {
    let baseURL: String

    private var lines: [String] = []
    private var current = CollapsingLine()
    private var currentHoldsAttachment = false
    private var attachments: [Attachment] = []
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

    mutating func read(_ node: HTMLNode) {
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
                read(child)
                return
            }
            let text = HTMLWhitespace.field(child.text)
            let url = absolute(Self.fullSizePath(href))
            if text.hasPrefix("单击此查看原图") {
                flushPendingImage()
                pendingImage = (url, Self.parenthesized(text))
            } else {
                attachments.append(Attachment(name: text, url: url, kind: .file, size: pendingFileSize))
                pendingFileSize = nil
            }
            currentHoldsAttachment = true
        } else if child.isElement("img") {
            let src = child.attribute("src") ?? ""
            guard Self.isAttachmentPath(src) else {
                current.appendVisible(child.attribute("alt") ?? "")
                return
            }
            let url = pendingImage?.url ?? absolute(Self.fullSizePath(src))
            let name = child.attribute("alt").flatMap { $0.isEmpty ? nil : $0 } ?? Self.lastComponent(url)
            attachments.append(Attachment(name: name, url: url, kind: .image, size: pendingImage?.size))
            pendingImage = nil
            currentHoldsAttachment = true
        } else if child.isElement("font"), case let text = HTMLWhitespace.collapse(child.text),
            text.hasPrefix("附件(")
        {
            pendingFileSize = Self.parenthesized(text)
            currentHoldsAttachment = true
        } else if child.isElement("script") || child.isElement("style") {
            return
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
        if let last = lines.last, let match = Self.fromLine(last) {
            ip = match
            lines.removeLast()
            trimTrailingBlankLines(&lines)
        }
        if let last = lines.last, let (user, _) = Self.editLine(last) {
            editedBy = user
            lines.removeLast()
            trimTrailingBlankLines(&lines)
        }
        // A body that keeps the BBS's own tail lines: `※ 修改` and `※ 来源`,
        // known by their text as on the desktop site.
        while let last = lines.last, PostText.isOriginOrEditLine(last) {
            let line = last.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("※ 修改"), editedBy == nil { editedBy = PostText.editNote(line).0 }
            if ip == nil { ip = PostText.fromAddress(line) }
            lines.removeLast()
            trimTrailingBlankLines(&lines)
        }
        return Result(text: lines.joined(separator: "\n"), attachments: attachments, ip: ip, editedBy: editedBy)
    }

    private mutating func endLine() {
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
        attachments.append(
            Attachment(name: Self.lastComponent(pending.url), url: pending.url, kind: .image, size: pending.size))
        pendingImage = nil
    }

    private func trimTrailingBlankLines(_ lines: inout [String]) {
        while let last = lines.last, HTMLWhitespace.isBlank(last) { lines.removeLast() }
    }

    private func absolute(_ href: String) -> String {
        guard let base = URL(string: baseURL), let url = URL(string: href, relativeTo: base) else { return href }
        return url.absoluteString
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

    /// `FROM 101.90.125.*` → `101.90.125.*`.
    static func fromLine(_ line: String) -> String? {
        // Most lines are not: a quick no before splitting.
        guard line.utf8.contains(UInt8(ascii: "F")) else { return nil }
        // Every post ends with one: an ASCII line (where characters are
        // bytes) is read by its bytes, without an array of fields.
        if line.utf8.allSatisfy({ $0 < 0x80 }) { return asciiFromLine(line) }
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 2, fields[0] == "FROM" else { return nil }
        return String(fields[1])
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
            field() == nil
        else { return nil }
        return String(line[second])
    }

    /// `修改:user FROM 1.2.3.*` → (`user`, `1.2.3.*`).
    static func editLine(_ line: String) -> (String, String)? {
        guard line.hasPrefix("修改:") || line.hasPrefix("修改：") else { return nil }
        let fields = line.dropFirst(3).split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 3, fields[1] == "FROM" else { return nil }
        return (String(fields[0]), String(fields[2]))
    }

    private static func lastComponent(_ url: String) -> String {
        url.split(separator: "/").last.map(String.init) ?? url
    }
}

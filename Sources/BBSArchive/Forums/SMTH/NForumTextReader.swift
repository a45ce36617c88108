import Foundation

/// Turns the `td.a-content` of an nForum post into the lines of the whole
/// post text, with colours back as ANSI codes, and its attachments.
///
/// Lines are joined by `<br />`; text nodes follow HTML's whitespace rules
/// (`HTMLWhitespace`): a newline inside text is a space, `&nbsp;` is a space
/// that counts, and collapsible whitespace at either end of a line is the
/// markup's indentation. The classes nForum puts on every quote line
/// (`f006`) and on the `※ 来源` and `※ 修改` lines (any colour, picked per
/// post) are presentation, not colours the author chose, and are dropped.
struct NForumTextReader: PostTextLines {
    let baseURL: String

    private var lines: [String] = []
    var current = CollapsingLine()
    /// The colours of the fonts the reader is inside, innermost last: a
    /// font that spans `<br />` colours every line it holds, and a font
    /// inside another gives the outer one's colour back when it ends.
    private var colours: [ANSIText.Style] = []
    private var attachments: [Attachment] = []

    init(baseURL: String) {
        self.baseURL = baseURL
    }

    mutating func read(_ node: HTMLNode) {
        if node.isText {
            node.withTextBytes { current.append(utf8: $0) }
            return
        }
        guard node.isElement, !node.hasClass("likes") else { return }
        // What the page hides (the post's id before 发信人, in a `<font>` or
        // a `<span>`, however the style is spelled) is not part of its text.
        if Self.isHidden(node) { return }
        if node.isElement("br") {
            endLine()
        } else if node.isElement("script") || node.isElement("style") {
            return
        } else if node.isElement("font") {
            let colour = node.classes.lazy.compactMap { ANSIText.style(forFontClass: String($0)) }.first
            let presentational = colour.map { style in isPresentational(style, node) } ?? true
            if let colour, !presentational {
                current.appendHidden(ANSIText.codes(for: colour))
                colours.append(colour)
                readChildren(node)
                colours.removeLast()
                current.appendHidden(ANSIText.codes(for: colours.last ?? .plain))
            } else {
                readChildren(node)
            }
        } else if node.isElement("a") {
            let href = node.attribute("href") ?? ""
            if PostBodyReader.isAttachmentPath(href) {
                let url = PostMarkup.absolute(baseURL, PostBodyReader.fullSizePath(href))
                // .//img
                if let image = node.firstDescendant(where: { $0.isElement("img") }) {
                    let name = PostMarkup.imageName(image, url: url)
                    attachments.append(Attachment(name: name, url: url, kind: .image, size: nil))
                } else {
                    attachments.append(
                        Attachment(
                            name: PostMarkup.attachmentName(HTMLWhitespace.field(node.text)),
                            url: url, kind: .file, size: takeFileSize()))
                }
            } else {
                readLink(node, href: href)
            }
        } else if node.isElement("img") {
            if let src = node.attribute("src"), PostBodyReader.isAttachmentPath(src) {
                let url = PostMarkup.absolute(baseURL, PostBodyReader.fullSizePath(src))
                attachments.append(Attachment(name: PostMarkup.lastComponent(url), url: url, kind: .image, size: nil))
            } else {
                let source = node.attribute("src") ?? ""
                current.appendVisible(SMTHEmoticons.code(ofImage: source) ?? node.attribute("alt") ?? "")
            }
        } else if node.isBlock {
            // The post's own `<p>` too: it holds every line, and adds none.
            readBlock(node)
        } else {
            readChildren(node)
        }
    }

    /// Whether the element's style hides it (`display: none`, in any case
    /// and spacing), read from the attribute's bytes in place: asked of
    /// every element of every post.
    static func isHidden(_ node: HTMLNode) -> Bool {
        node.withAttribute("style") { value in
            guard let value else { return false }
            var compact: [UInt8] = []
            compact.reserveCapacity(value.count)
            for byte in value where byte != UInt8(ascii: " ") {
                compact.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte)
            }
            return compact.withUnsafeBufferPointer { ByteSearch.firstOffset($0, "display:none") != nil }
        }
    }

    mutating func readChildren(_ node: HTMLNode) {
        node.forEachChild { child in
            read(child)
            return true
        }
    }

    mutating func finish() -> (lines: [String], attachments: [Attachment]) {
        let last = current.finish()
        if !last.isEmpty { lines.append(Self.tidyCodes(last)) }
        return (lines, attachments)
    }

    mutating func endLine() {
        lines.append(Self.tidyCodes(current.finish()))
        // The next line starts in the colour of the fonts still open.
        if let colour = colours.last { current.appendHidden(ANSIText.codes(for: colour)) }
    }

    /// `附件(812B)` written just before a file link is its size.
    private mutating func takeFileSize() -> String? {
        var text = current.text
        guard let range = text.range(of: "附件(", options: .backwards),
            let close = text[range.upperBound...].firstIndex(of: ")")
        else { return nil }
        let size = String(text[range.upperBound..<close])
        text.removeSubrange(range.lowerBound...)
        current.replace(with: String(text.reversed().drop { $0 == " " }.reversed()))
        return size
    }

    private func isPresentational(_ style: ANSIText.Style, _ node: HTMLNode) -> Bool {
        let normalized = style.normalized
        if normalized == .plain || (normalized.foreground == 0 && normalized.background == nil) { return true }
        let text = HTMLWhitespace.collapse(node.text)
        // The origin and edit lines, whatever colour the forum gave them.
        if PostText.isOriginOrEditLine(text) { return true }
        if normalized == ANSIText.Style(foreground: 6, background: nil) {
            return text.hasPrefix(":") || text.hasPrefix("【 在") || text.hasPrefix("【在")
        }
        return false
    }

    /// Drops codes that colour nothing (a start right before a reset, or a
    /// reset at the very start of a line).
    private static func tidyCodes(_ line: String) -> String {
        guard line.utf8.contains(0x1B) else { return line }
        let runs = ANSIText.runs(line)
        var out = ""
        var open = ANSIText.Style.plain
        for run in runs {
            if run.style != open {
                out += ANSIText.codes(for: run.style)
                open = run.style
            }
            out += run.text
        }
        if open != .plain { out += ANSIText.codes(for: .plain) }
        return out
    }

}

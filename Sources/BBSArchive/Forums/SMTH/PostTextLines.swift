import Foundation

/// What the mobile and the desktop post readers (`PostBodyReader`,
/// `NForumTextReader`) read alike: a link's text with the UBB of its
/// address, the lines of a `<pre>`, and a block's lines of its own.
protocol PostTextLines {
    /// The line being read.
    var current: CollapsingLine { get set }
    /// Ends the line being read.
    mutating func endLine()
    /// Reads what the element holds, as the reader reads it.
    mutating func readChildren(_ node: HTMLNode)
}

extension PostTextLines {
    /// A link that is no attachment: its text, between the UBB tags of its
    /// address when the page showed other text (`PostMarkup.linkText`).
    mutating func readLink(_ link: HTMLNode, href: String) {
        switch PostMarkup.linkText(link, href: href) {
        case .plain: readChildren(link)
        case .tags(let open, let close):
            current.appendVisible(open)
            readChildren(link)
            current.appendVisible(close)
        case .replaced(let text): current.appendVisible(text)
        }
    }

    /// A `<pre>` (its lines as they are) or another block: lines of their
    /// own, as a browser shows them (lines a page wrote as `<p>` ran into
    /// one, on the desktop the first into the header's last line, which
    /// lost it).
    mutating func readBlock(_ node: HTMLNode) {
        if current.started { endLine() }
        if node.isElement("pre") {
            for (index, line) in PostMarkup.preformattedLines(node).enumerated() {
                if index > 0 { endLine() }
                current.appendVisible(line)
            }
        } else {
            readChildren(node)
        }
        if current.started { endLine() }
    }
}

/// How both readers read a post's markup, piece by piece.
enum PostMarkup {
    /// `href` resolved against the page's address `base`; as written when
    /// either cannot be read as an address.
    static func absolute(_ base: String, _ href: String) -> String {
        guard let base = URL(string: base), let url = URL(string: href, relativeTo: base) else { return href }
        return url.absoluteString
    }

    /// The last part of an address: an attachment's name when it has no other.
    static func lastComponent(_ url: String) -> String {
        url.split(separator: "/").last.map(String.init) ?? url
    }

    /// The lines of a `<pre>` (nForum's code blocks) as a browser shows
    /// them: its newlines end lines, its spaces stay, and a newline right
    /// after `<pre>` goes; `<br />` ends a line too. Read with HTML's
    /// whitespace rules, a block of code was one line.
    static func preformattedLines(_ pre: HTMLNode) -> [String] {
        var lines = [""]
        // Only a newline that is the first thing inside the `<pre>` goes.
        var atStart = true
        func read(_ node: HTMLNode) {
            node.forEachChild { child in
                let first = atStart
                atStart = false
                if child.isText {
                    var text = child.text.replacingOccurrences(of: "\r\n", with: "\n")
                        .replacingOccurrences(of: "\u{00A0}", with: " ")
                    if first, text.hasPrefix("\n") { text.removeFirst() }
                    for (index, piece) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                        if index > 0 { lines.append("") }
                        lines[lines.count - 1] += piece
                    }
                } else if child.isElement("br") {
                    lines.append("")
                } else if child.isElement, !child.isElement("script"), !child.isElement("style") {
                    read(child)
                }
                return true
            }
        }
        read(pre)
        if lines.count > 1, lines.last == "" { lines.removeLast() }
        return lines
    }

    /// What a link's text becomes (`linkText`).
    enum LinkText: Equatable {
        /// Its text, as it is.
        case plain
        /// Its text between these UBB tags.
        case tags(String, String)
        /// This instead of what the link holds.
        case replaced(String)
    }

    /// A link as the UBB the post holds, when the page shows other text
    /// than the address (nForum writes `[url=X]这里[/url]` as
    /// `<a href="X">这里</a>`, `[email=…]` with `mailto:`, and an image from
    /// elsewhere, `[img=X]`, as a link around it): the text alone lost the
    /// address. `.plain` for a link whose text is its address (the renderer
    /// links those again), a link within the forum, or any other scheme.
    /// The renderer reads the tags (`InlineText`) and links only what
    /// `SafeLink` allows.
    static func linkText(_ link: HTMLNode, href: String) -> LinkText {
        // Most links are their address spelled out (every desktop post's
        // 来源 line has one): known without more strings made.
        let raw = link.text
        if raw == href { return .plain }
        let address = HTMLWhitespace.field(href)
        let lower = address.lowercased()
        let text = HTMLWhitespace.field(raw)
        if lower.hasPrefix("mailto:") {
            let mail = String(address.dropFirst("mailto:".count))
            let value = tagValue(mail)
            guard !mail.isEmpty, text != mail, text != address, !text.isEmpty,
                link.firstDescendant(where: { $0.isElement("br") }) == nil,
                "[email=".count + value.count < InlineText.longestTag
            else { return .plain }
            return .tags("[email=\(value)]", "[/email]")
        }
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), !sameAddress(text, address),
            link.firstDescendant(where: { $0.isElement("br") }) == nil
        else { return .plain }
        if text.isEmpty {
            // `[img=X]`: the image is the link's own address. It is not
            // fetched (the archive reaches no other host): its address,
            // linked. Anything else inside (an emoticon, an attachment) is
            // read as it is.
            let image = link.firstDescendant(where: { $0.isElement("img") })
            guard let source = image?.attribute("src"), HTMLWhitespace.field(source) == address else { return .plain }
            return .replaced("[img]\(tagValue(address))[/img]")
        }
        // A tag longer than the renderer reads would show as text.
        let value = tagValue(address)
        guard "[url=".count + value.count < InlineText.longestTag else { return .plain }
        return .tags("[url=\(value)]", "[/url]")
    }

    /// Whether a link's text spells its address (`www.newsmth.net` for
    /// `http://www.newsmth.net/`): case, scheme and a last `/` aside.
    private static func sameAddress(_ text: String, _ address: String) -> Bool {
        func bare(_ value: String) -> Substring {
            var value = Substring(value.lowercased())
            for scheme in ["http://", "https://"] where value.hasPrefix(scheme) {
                value = value.dropFirst(scheme.count)
            }
            while value.hasSuffix("/") { value = value.dropLast() }
            return value
        }
        return bare(text) == bare(address)
    }

    /// An address as a tag's value: the brackets that would end the tag
    /// percent-encoded.
    private static func tagValue(_ address: String) -> String {
        guard address.contains(where: { $0 == "[" || $0 == "]" }) else { return address }
        return address.replacingOccurrences(of: "[", with: "%5B").replacingOccurrences(of: "]", with: "%5D")
    }

    /// An attachment image's name: its `alt`, else the last part of its
    /// address (its `title` is nForum's tooltip, 单击此在新窗口浏览图片).
    static func imageName(_ image: HTMLNode, url: String) -> String {
        if let name = image.attribute("alt").map(HTMLWhitespace.field), !name.isEmpty { return name }
        return lastComponent(url)
    }

    /// A file link's text as the file's name: nForum writes audio and
    /// flash attachments as `歌.mp3(在新窗口打开)` ("opens in a new window").
    static func attachmentName(_ text: String) -> String {
        let note = "(在新窗口打开)"
        guard text.hasSuffix(note), text.count > note.count else { return text }
        return HTMLWhitespace.field(String(text.dropLast(note.count)))
    }
}

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
    /// address when the page showed other text (`PostBodyReader.linkText`).
    mutating func readLink(_ link: HTMLNode, href: String) {
        switch PostBodyReader.linkText(link, href: href) {
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
            for (index, line) in PostBodyReader.preformattedLines(node).enumerated() {
                if index > 0 { endLine() }
                current.appendVisible(line)
            }
        } else {
            readChildren(node)
        }
        if current.started { endLine() }
    }
}

/// The whole post text as nForum's desktop pages show it in `td.a-content > p`:
/// the plain-text post (header, body, `--`, signature, 修改 and 来源 lines)
/// turned into HTML line by line, with attachments between body and `--`.
enum NForumPostText {
    static func html(_ post: ReplicaPost, board: String) -> String {
        let text = post.articleText(board: board)
        // articleText: four header lines, the body, then `--`.
        let bodyRange = 4..<(4 + post.lines.count)
        var items = [String]()
        items.reserveCapacity(text.count + post.attachments.count)
        for (index, line) in text.enumerated() {
            if index == bodyRange.upperBound {
                items += post.attachments.map { attachment($0, board: board, postID: post.id) }
            }
            if index == text.count - 1 {
                items.append(sourceLine(ip: post.ip, colour: post.originColour))
            } else if index > bodyRange.upperBound, line.hasPrefix("※ 修改:") {
                items.append(#"<font class="\#(post.editColour)">"# + lineHTML(line) + "</font>")
            } else if index < bodyRange.lowerBound {
                items.append(lineHTML(line))
            } else {
                items.append(isQuote(line) ? #"<font class="f006">"# + lineHTML(line) + "</font>" : lineHTML(line))
            }
        }
        var html = items.joined(separator: "<br />")
        // Newer posts carry their id, hidden, in front of the text; the
        // replica gives it to posts with odd ids.
        if post.id % 2 == 1 {
            html = #"<font style="display: none">\#(post.id)</font>"# + html
        }
        return html
    }

    /// `※ 来源` with the site's address as a link, in the post's colour.
    static func sourceLine(ip: String, colour: String = "f007") -> String {
        #"<font class="\#(colour)">※ 来源:·水木社区 <a target="_blank" href="http://www.newsmth.net">http://www.newsmth.net</a>·[FROM: "#
            + MobileMarkup.escape(ip) + "]</font>"
    }

    static func attachment(_ attachment: ReplicaAttachment, board: String, postID: Int) -> String {
        let path = MobileMarkup.escape("/nForum/att/\(board)/\(postID)/\(attachment.pos)")
        let name = MobileMarkup.escape(attachment.name)
        if attachment.isImage {
            return
                #"<a target="_blank" href="\#(path)"><img border="0" title="单击此在新窗口浏览图片" src="\#(path)/large" alt="\#(name)" class="resizeable" /></a>"#
        }
        return #"附件(\#(attachment.sizeText))&nbsp;<a href="\#(path)">\#(name)</a>"#
    }

    /// A quoted line (`: …`) or a quote header (`【 在 … 的大作中提到: 】`).
    static func isQuote(_ line: String) -> Bool {
        let plain = ANSIText.strip(line)
        return plain.hasPrefix(":")
            || (plain.hasPrefix("【 在 ") && (plain.contains("的大作中提到") || plain.contains("的邮件中提到")))
    }

    /// One line: escaped; a space that starts the line or belongs to a run
    /// of two or more becomes `&nbsp;` (counted on the visible text, colour
    /// codes aside); ANSI colours become `<font class="fXYZ">` runs. Colours
    /// end with the line, so a font never spans a `<br />`.
    static func lineHTML(_ line: String) -> String {
        let pieces = ANSIText.pieces(line)
        var visible = [Character]()
        for case .text(let c) in pieces { visible.append(c) }

        var out = ""
        var colour = ANSIText.Colour()
        var open: String?
        var index = 0
        var leading = true
        for piece in pieces {
            switch piece {
            case .sgr(let parameters):
                colour.apply(parameters)
            case .text(let c):
                // Fonts open only in front of text, so no empty font is written.
                let wanted = colour.isDefault ? nil : colour.fontClass
                if wanted != open {
                    if open != nil { out += "</font>" }
                    if let wanted { out += #"<font class="\#(wanted)">"# }
                    open = wanted
                }
                if c == " " {
                    let inRun =
                        (index > 0 && visible[index - 1] == " ")
                        || (index + 1 < visible.count && visible[index + 1] == " ")
                    out += inRun || leading ? "&nbsp;" : " "
                } else {
                    leading = false
                    out += MobileMarkup.escape(String(c))
                }
                index += 1
            }
        }
        if open != nil { out += "</font>" }
        return out
    }
}

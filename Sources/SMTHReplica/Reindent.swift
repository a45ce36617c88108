/// Serves a page the way saved or re-indented copies of the real pages look:
/// every `<br />` on a line of its own, indented, and text nodes wrapped at
/// some of their spaces (the date in a post header included). Only single
/// spaces between words are wrapped, and `&nbsp;` is left alone, so a reader
/// that follows HTML's whitespace rules sees the same text as before.
enum Reindent {
    static func wrap(_ html: String, seed: Int) -> String {
        var out = ""
        out.reserveCapacity(html.utf8.count + html.utf8.count / 8)
        let characters = Array(html)
        var inTag = false
        var skipping = false  // inside <script> or <style>
        var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        func coin() -> Bool {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state % 2 == 0
        }
        var i = 0
        while i < characters.count {
            let c = characters[i]
            if c == "<" {
                let rest = String(characters[i..<min(characters.count, i + 8)]).lowercased()
                if rest.hasPrefix("<script") || rest.hasPrefix("<style") { skipping = true }
                if rest.hasPrefix("</script") || rest.hasPrefix("</style") { skipping = false }
                if rest.hasPrefix("<br") {
                    out += "\n            "
                }
                inTag = true
                out.append(c)
            } else if c == ">" && inTag {
                inTag = false
                out.append(c)
                let tag = String(out.suffix(8)).lowercased()
                if tag.hasSuffix("<br />") || tag.hasSuffix("<br/>") || tag.hasSuffix("<br>") {
                    out += "\n            "
                }
            } else if c == " ", !inTag, !skipping, i > 0, i + 1 < characters.count,
                characters[i - 1] != " ", characters[i + 1] != " ", characters[i - 1] != ">",
                characters[i + 1] != "<", coin()
            {
                out += "\n                "
            } else {
                out.append(c)
            }
            i += 1
        }
        return out
    }
}

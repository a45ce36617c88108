import Foundation

/// The pager's small form to type a page number, or a floor on a thread:
/// `site.js` shows it and goes to the page (and the floor's anchor), so it
/// works from `file://` too; without JavaScript it stays hidden and the
/// pager's links remain.
struct PageJumpView: TypedTemplateView {
    /// Page 1's address when it is not the pattern's (a thread's `GID.html`).
    var first: String?
    /// Any page's address, `{n}` standing for its number.
    var pattern: String
    var pages: Int
    /// The first floor of each page, comma-separated, when floors can be typed.
    var floors: String?

    /// The jump for `pages` pages whose addresses `href` gives; `floors`
    /// the first floor on each page, for a thread.
    init(pages: Int, floors: [Int]? = nil, href: (Int) -> String) {
        let marker = String(Int.max)
        pattern = href(Int.max).replacingOccurrences(of: marker, with: "{n}")
        let one = href(1)
        first = one == pattern.replacingOccurrences(of: "{n}", with: "1") ? nil : one
        self.pages = pages
        self.floors = floors.map { $0.map(String.init).joined(separator: ",") }
    }

    func templateValue(named name: TemplateName) -> TemplateValue? {
        switch name.key {
        case .first: first.map(TemplateValue.text)
        case .pattern: .text(pattern)
        case .pages: .number(pages)
        case .floors: floors.map(TemplateValue.text)
        default: nil
        }
    }
}

import Foundation

/// A windowed pager: previous, the first page, a window of numbers around
/// the current page, the last page, next. Rendered by `pager.mustache`.
enum Pager {
    /// Page numbers shown on each side of the current one.
    static let radius = 2

    /// The template context for page `current` of `total`, or `nil` when
    /// there is only one page (no pager at all).
    static func context(current: Int, total: Int, href: (Int) -> String) -> [String: Any]? {
        guard total > 1 else { return nil }
        let low = max(1, current - radius)
        let high = min(total, current + radius)
        var context: [String: Any] = [
            "current": current,
            "total": total,
            "pages": (low...high).map { number -> [String: Any] in
                ["number": number, "href": href(number), "isCurrent": number == current]
            },
        ]
        if current > 1 { context["prevPage"] = ["href": href(current - 1)] }
        if current < total { context["nextPage"] = ["href": href(current + 1)] }
        if low > 1 { context["firstPage"] = ["href": href(1), "number": 1, "gap": low > 2] }
        if high < total { context["lastPage"] = ["href": href(total), "number": total, "gap": high < total - 1] }
        return context
    }
}

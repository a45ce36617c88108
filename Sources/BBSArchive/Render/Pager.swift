import Foundation

/// A windowed pager: first, previous, a jump of −10, a window of numbers
/// around the current page, a jump of +10, next, last. Rendered by
/// `pager.mustache`.
enum Pager {
    /// Page numbers shown in the window (when there are that many pages).
    static let window = 5
    /// The size of the long jumps, offered only when the target exists.
    static let jump = 10

    /// The page numbers of the window around `current`: always `window`
    /// numbers when there are that many pages, so the pager does not shrink
    /// at the ends of a long board.
    static func numbers(current: Int, total: Int) -> ClosedRange<Int> {
        let low = max(1, min(current - window / 2, total - window + 1))
        return low...min(total, low + window - 1)
    }

    /// The template context for page `current` of `total`, or `nil` when
    /// there is only one page (no pager at all).
    static func context(current: Int, total: Int, href: (Int) -> String) -> [String: Any]? {
        guard total > 1 else { return nil }
        let range = numbers(current: current, total: total)
        var context: [String: Any] = [
            "current": current,
            "total": total,
            "pages": range.map { number -> [String: Any] in
                ["number": number, "href": href(number), "isCurrent": number == current]
            },
        ]
        if current > 1 {
            context["firstPage"] = ["href": href(1), "number": 1]
            context["prevPage"] = ["href": href(current - 1), "number": current - 1]
        }
        if current < total {
            context["nextPage"] = ["href": href(current + 1), "number": current + 1]
            context["lastPage"] = ["href": href(total), "number": total]
        }
        if current - jump >= 1 { context["backJump"] = ["href": href(current - jump), "number": current - jump] }
        if current + jump <= total {
            context["forwardJump"] = ["href": href(current + jump), "number": current + jump]
        }
        return context
    }
}

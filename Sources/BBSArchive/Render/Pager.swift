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

    /// The view for page `current` of `total`, or `nil` when there is only
    /// one page (no pager at all).
    static func view(current: Int, total: Int, href: (Int) -> String) -> PagerView? {
        guard total > 1 else { return nil }
        func page(_ number: Int) -> PagerView.Page {
            PagerView.Page(number: number, href: href(number), isCurrent: number == current)
        }
        return PagerView(
            current: current, total: total, pages: numbers(current: current, total: total).map(page),
            firstPage: current > 1 ? page(1) : nil, prevPage: current > 1 ? page(current - 1) : nil,
            nextPage: current < total ? page(current + 1) : nil, lastPage: current < total ? page(total) : nil,
            backJump: current - jump >= 1 ? page(current - jump) : nil,
            forwardJump: current + jump <= total ? page(current + jump) : nil)
    }
}

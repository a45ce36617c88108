import Foundation
import Testing

@testable import BBSArchive

@Suite struct PagerTests {
    func numbers(_ view: PagerView?) -> [Int] { view?.pages.map(\.number) ?? [] }

    @Test func noPagerForOnePage() {
        #expect(Pager.view(current: 1, total: 1) { "\($0)" } == nil)
    }

    @Test func windowAtTheFirstPage() throws {
        let view = try #require(Pager.view(current: 1, total: 40) { "p\($0)" })
        #expect(numbers(view) == [1, 2, 3, 4, 5])
        #expect(view.prevPage == nil)
        #expect(view.firstPage == nil)
        #expect(view.backJump == nil)
        #expect(view.nextPage?.href == "p2")
        #expect(view.lastPage?.number == 40)
        #expect(view.forwardJump?.href == "p11")
    }

    @Test func windowInTheMiddle() throws {
        let view = try #require(Pager.view(current: 20, total: 40) { "p\($0)" })
        #expect(numbers(view) == [18, 19, 20, 21, 22])
        #expect(view.firstPage?.href == "p1")
        #expect(view.prevPage?.href == "p19")
        #expect(view.backJump?.number == 10)
        #expect(view.forwardJump?.number == 30)
    }

    @Test func windowAtTheLastPage() throws {
        let view = try #require(Pager.view(current: 40, total: 40) { "p\($0)" })
        #expect(numbers(view) == [36, 37, 38, 39, 40])
        #expect(view.nextPage == nil)
        #expect(view.lastPage == nil)
        #expect(view.forwardJump == nil)
        #expect(view.backJump?.number == 30)
    }

    @Test func shortBoardsHaveNoJumps() throws {
        let view = try #require(Pager.view(current: 2, total: 3) { "p\($0)" })
        #expect(numbers(view) == [1, 2, 3])
        #expect(view.backJump == nil && view.forwardJump == nil)
    }
}

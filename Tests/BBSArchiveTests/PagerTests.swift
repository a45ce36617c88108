import Foundation
import Testing

@testable import BBSArchive

@Suite struct PagerTests {
    func numbers(_ context: [String: Any]?) -> [Int] {
        (context?["pages"] as? [[String: Any]])?.compactMap { $0["number"] as? Int } ?? []
    }

    @Test func noPagerForOnePage() {
        #expect(Pager.context(current: 1, total: 1) { "\($0)" } == nil)
    }

    @Test func windowAtTheFirstPage() throws {
        let context = try #require(Pager.context(current: 1, total: 40) { "p\($0)" })
        #expect(numbers(context) == [1, 2, 3, 4, 5])
        #expect(context["prevPage"] == nil)
        #expect(context["firstPage"] == nil)
        #expect(context["backJump"] == nil)
        #expect((context["nextPage"] as? [String: Any])?["href"] as? String == "p2")
        #expect((context["lastPage"] as? [String: Any])?["number"] as? Int == 40)
        #expect((context["forwardJump"] as? [String: Any])?["href"] as? String == "p11")
    }

    @Test func windowInTheMiddle() throws {
        let context = try #require(Pager.context(current: 20, total: 40) { "p\($0)" })
        #expect(numbers(context) == [18, 19, 20, 21, 22])
        #expect((context["firstPage"] as? [String: Any])?["href"] as? String == "p1")
        #expect((context["prevPage"] as? [String: Any])?["href"] as? String == "p19")
        #expect((context["backJump"] as? [String: Any])?["number"] as? Int == 10)
        #expect((context["forwardJump"] as? [String: Any])?["number"] as? Int == 30)
    }

    @Test func windowAtTheLastPage() throws {
        let context = try #require(Pager.context(current: 40, total: 40) { "p\($0)" })
        #expect(numbers(context) == [36, 37, 38, 39, 40])
        #expect(context["nextPage"] == nil)
        #expect(context["lastPage"] == nil)
        #expect(context["forwardJump"] == nil)
        #expect((context["backJump"] as? [String: Any])?["number"] as? Int == 30)
    }

    @Test func shortBoardsHaveNoJumps() throws {
        let context = try #require(Pager.context(current: 2, total: 3) { "p\($0)" })
        #expect(numbers(context) == [1, 2, 3])
        #expect(context["backJump"] == nil && context["forwardJump"] == nil)
    }
}

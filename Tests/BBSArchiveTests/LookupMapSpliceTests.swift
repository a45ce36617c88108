import Foundation
import Testing

@testable import BBSArchive

/// An incremental build puts only the changed boards into the lookup map
/// of the last build; the bytes equal those of the whole map encoded anew.
@Suite struct LookupMapSpliceTests {
    static let boards: [String: LookupMap.Board] = [
        "Alpha": .init(dir: "Alpha", title: "引号 \" 和 {括号} [方] \\ 反斜杠", threads: [1, 5, 9]),
        "Beta": .init(dir: "Beta", title: "Beta/版", threads: []),
        "Gamma": .init(dir: "Gamma", title: "}\"{", threads: [42]),
    ]

    @Test func aChangedBoardIsSplicedInByteForByte() throws {
        let old = LookupMap(boards: Self.boards).script()
        let changed = LookupMap.Board(dir: "Alpha", title: "新的 \"标题\" }", threads: [1, 5, 9, 10])
        var expected = Self.boards
        expected["Alpha"] = changed
        let spliced = try #require(
            LookupMap.splice(old, replacing: ["Alpha": changed], present: Set(Self.boards.keys)))
        #expect(spliced == LookupMap(boards: expected).script())
        #expect(LookupMap.decode(script: spliced) == expected)
        // Nothing changed: the same bytes.
        #expect(LookupMap.splice(old, replacing: [:], present: Set(Self.boards.keys)) == old)
    }

    @Test func aBoardAddedOrGoneIsEncodedWhole() throws {
        let old = LookupMap(boards: Self.boards).script()
        let delta = LookupMap.Board(dir: "Delta", title: "D", threads: [3])
        #expect(
            LookupMap.splice(old, replacing: ["Delta": delta], present: ["Alpha", "Beta", "Gamma", "Delta"]) == nil)
        var fresh = LookupMap()
        fresh.add(
            board: StoredBoard(name: "Delta", title: "D", source: nil, baseURL: nil, threadCount: 0, postCount: 0),
            threads: [])
        var expected = Self.boards
        expected["Delta"] = LookupMap.Board(dir: "Delta", title: "D", threads: [])
        expected["Beta"] = nil
        let updated = try #require(LookupMap.updated(old, with: fresh, present: ["Alpha", "Gamma", "Delta"]))
        #expect(LookupMap.decode(script: updated) == expected)
        #expect(updated == LookupMap(boards: expected).script())
        #expect(LookupMap.splice(Data("garbage".utf8), replacing: [:], present: []) == nil)
    }

    /// An incremental build knows a changed board only by its new threads:
    /// they are merged into the board's old entry, whose other bytes stay.
    @Test func newThreadsAreMergedIntoTheOldEntry() throws {
        let old = LookupMap(boards: Self.boards).script()
        let alpha = StoredBoard(
            name: "Alpha", title: Self.boards["Alpha"]?.title, source: nil, baseURL: nil, threadCount: 5, postCount: 9)
        var fresh = LookupMap()
        // A new thread at the end, one in the middle, one already there.
        fresh.add(board: alpha, newThreads: [12, 7, 5])
        var expected = Self.boards
        expected["Alpha"]?.threads = [1, 5, 7, 9, 12]
        let updated = try #require(LookupMap.updated(old, with: fresh, present: Set(Self.boards.keys)))
        #expect(updated == LookupMap(boards: expected).script())
        // A map that cannot take them (no entry for the board) asks for the whole entry.
        let without = LookupMap(boards: Self.boards.filter { $0.key != "Alpha" }).script()
        #expect(LookupMap.updated(without, with: fresh, present: Set(Self.boards.keys)) == nil)
        #expect(LookupMap.updated(nil, with: fresh, present: Set(Self.boards.keys)) == nil)
        try fresh.complete { _ in [1, 5, 7, 9, 12] }
        #expect(LookupMap.updated(without, with: fresh, present: Set(Self.boards.keys)) == updated)
    }
}

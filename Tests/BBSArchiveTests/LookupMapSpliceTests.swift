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
        let updated = LookupMap.updated(old, with: fresh, present: ["Alpha", "Gamma", "Delta"])
        #expect(LookupMap.decode(script: updated) == expected)
        #expect(updated == LookupMap(boards: expected).script())
        #expect(LookupMap.splice(Data("garbage".utf8), replacing: [:], present: []) == nil)
    }
}

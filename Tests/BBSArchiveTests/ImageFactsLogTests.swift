import Foundation
import Testing

@testable import BBSArchive

/// The build's log of image facts keeps a bounded number in memory and
/// spills the rest to a temporary file; all of them reach the store.
struct ImageFactsLogTests {
    /// Facts of `count` made-up images: every fifth unreadable, the others
    /// of sizes that need all eight bytes, some animated or with alpha.
    static func facts(_ count: Int) -> [String: ImageFacts?] {
        var all: [String: ImageFacts?] = [:]
        for index in 0..<count {
            let hash = index == 3 ? "图片-\(index)" : String(repeating: "ab", count: 32) + "\(index)"
            all[hash] =
                index % 5 == 0
                ? .some(nil)
                : ImageFacts(
                    width: index + 1, height: Int(Int32.max) + index, frames: index % 3 + 1, alpha: index % 2 == 0)
        }
        return all
    }

    @Test(arguments: [1, 3, 7, 50])
    func everyFactIsDrainedOnceWhateverWasSpilled(limit: Int) throws {
        let log = ImageFactsLog(limit: limit)
        let all = Self.facts(23)
        for (hash, facts) in all.sorted(by: { $0.key < $1.key }) { log.add(hash, facts) }
        var drained: [String: ImageFacts?] = [:]
        var chunks = 0
        try log.drain { chunk throws(ArchiveError) in
            #expect(chunk.count <= max(limit, 1))
            chunks += 1
            for (hash, entry) in chunk {
                #expect(drained[hash] == nil, "\(hash) drained twice")
                #expect(!entry.thumbnailsToKeep)
                drained[hash] = entry.facts
            }
        }
        #expect(drained == all)
        #expect(chunks >= (all.count + limit - 1) / limit)
        // What is still in memory answers; a spilled one is simply not known.
        let answered = all.keys.filter { log.facts($0) != nil }
        #expect(answered.count == all.count % limit)
        for hash in answered { #expect(log.facts(hash) == all[hash]) }
    }

    @Test func aBuildRecordsSpilledFactsInTheStore() throws {
        let folder = try Fixtures.temporaryFolder()
        let store = try ArchiveStore(path: folder.appendingPathComponent("s.sqlite").path)
        let log = ImageFactsLog(limit: 4)
        let all = Self.facts(10)
        for (hash, facts) in all { log.add(hash, facts) }
        try log.drain { entries throws(ArchiveError) in try store.recordImageFacts(entries.mapValues(\.facts)) }
        for (hash, facts) in all { #expect(try store.imageFacts(hash: hash) == .some(facts)) }
    }

    @Test func aDamagedRecordEndsTheReadingWithoutInventingFacts() throws {
        let good = ImageFactsLog.encoded(["a": .init(facts: ImageFacts(width: 1, height: 2))])
        var unknownFlag = good
        unknownFlag[5] = 7  // after the hash's length (4 bytes) and "a"
        // Whole, it reads back; cut short anywhere, or with a flag no record
        // has, it reads nothing.
        let cases = [(good, true), (unknownFlag, false)] + (0..<good.count).map { (Array(good[..<$0]), false) }
        for (bytes, readable) in cases {
            var path = Array(try Fixtures.temporaryFolder().appendingPathComponent("facts-XXXXXX").path.utf8CString)
            let descriptor = path.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            #expect(descriptor >= 0)
            defer {
                close(descriptor)
                path.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            }
            _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            var reader = ImageFactsLog.Reader(descriptor: descriptor, length: bytes.count)
            let record = reader.next()
            #expect((record != nil) == readable, "\(bytes.count) bytes")
            if readable { #expect(record?.0 == "a" && record?.1 == .init(facts: ImageFacts(width: 1, height: 2))) }
            #expect(reader.next() == nil)
        }
    }

    /// Whether a build made an image's thumbnails survives the spill file
    /// and a later `add` of the same image without the flag.
    @Test(arguments: [1, 2, 50])
    func theThumbnailsToKeepFlagIsKept(limit: Int) throws {
        let log = ImageFactsLog(limit: limit)
        let facts = ImageFacts(width: 1200, height: 900)
        log.add("made", facts, thumbnailsToKeep: true)
        log.add("made", facts)
        log.add("probed", facts)
        log.add("unreadable", nil)
        var drained: [String: Bool] = [:]
        try log.drain { chunk throws(ArchiveError) in
            for (hash, entry) in chunk { drained[hash] = (drained[hash] ?? false) || entry.thumbnailsToKeep }
        }
        #expect(drained == ["made": true, "probed": false, "unreadable": false])
    }
}

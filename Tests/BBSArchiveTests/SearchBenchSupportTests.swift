import Foundation
import Testing

@testable import BBSArchive

/// What `make bench` measures search with: the index written alone is the
/// one `build` writes, and the ground truth's documents are every post, each
/// linked where the site shows it. (`plain` is built with the default
/// options, as the bench's sites are.)
@Suite struct SearchBenchSupportTests {
    static func files(under root: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        let search = root.appendingPathComponent("search")
        guard let walker = FileManager.default.enumerator(at: search, includingPropertiesForKeys: nil) else {
            return files
        }
        for case let url as URL in walker {
            guard let data = FileManager.default.contents(atPath: url.path), !url.hasDirectoryPath else { continue }
            var bytes = data
            if url.lastPathComponent == "index.js" {
                bytes = Data(
                    String(decoding: data, as: UTF8.self)
                        .replacingOccurrences(of: #""id":"[^"]*","#, with: "", options: .regularExpression).utf8)
            }
            files[String(url.path.dropFirst(search.path.count + 1))] = bytes
        }
        return files
    }

    @Test func theIndexAloneIsTheOneBuildWritesAndEveryPostIsADocument() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let folder = try Fixtures.temporaryFolder("search-bench")
        let counts = try SearchBenchSupport.writeIndex(
            storePath: built.storePath, outPath: folder.path)
        let posts = try ArchiveStore(path: built.storePath).counts().posts
        #expect(counts["documents"] == posts)
        let alone = Self.files(under: folder)
        let fromBuild = Self.files(under: built.plain.root)
        #expect(!alone.isEmpty)
        #expect(alone.keys.sorted() == fromBuild.keys.sorted())
        #expect(alone.filter { fromBuild[$0.key] != $0.value }.keys.sorted() == [])

        var lines: [[String: Any]] = []
        try SearchBenchSupport.documents(storePath: built.storePath) {
            if let object = try? JSONSerialization.jsonObject(with: $0) as? [String: Any] { lines.append(object) }
        }
        #expect(lines.count == posts)
        let pages = Set(built.plain.files())
        let missing = lines.compactMap { $0["href"] as? String }.filter {
            !pages.contains(String($0.split(separator: "#")[0]))
        }
        #expect(missing.isEmpty, "links to no page: \(missing.prefix(3))")
        #expect(lines.allSatisfy { ($0["text"] as? String).map { $0 == SearchText.normalize($0) } ?? false })
    }

    /// Every file under `root` (but the build's state, which holds its time), by path.
    static func site(_ root: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return files
        }
        for case let url as URL in walker {
            let path = String(url.path.dropFirst(root.path.count + 1))
            guard path != BuildState.path, let data = FileManager.default.contents(atPath: url.path),
                !url.hasDirectoryPath
            else { continue }
            files[path] = data
        }
        return files
    }

    /// What the bench times to know what indexing adds to a build: the
    /// build `bbsarchive build` makes, and the same build without the
    /// index: every other file the same bytes, `search/` left out.
    @Test func theBenchBuildsTheSiteWithAndWithoutItsIndex() async throws {
        let built = try await ReadingSiteFixture.shared.site()
        let plain = Self.site(built.plain.root)
        let folder = try Fixtures.temporaryFolder("search-bench-build")
        var sites: [Bool: [String: Data]] = [:]
        for index in [true, false] {
            let out = folder.appendingPathComponent(index ? "with" : "without")
            var action = BuildAction(
                storePath: built.storePath, outputPath: out.path, templatesPath: Fixtures.templates.path)
            action.searchIndex = index
            _ = try await action.run()
            sites[index] = Self.site(out)
        }
        let with = sites[true] ?? [:], without = sites[false] ?? [:]
        #expect(with.keys.filter { $0.hasPrefix("search/") }.count > 10)
        #expect(with.keys.sorted() == plain.keys.sorted())
        #expect(with.filter { plain[$0.key] != $0.value }.keys.sorted() == [])
        let indexLeftOut = plain.filter { !$0.key.hasPrefix("search/") }
        #expect(without.keys.sorted() == indexLeftOut.keys.sorted())
        #expect(without.filter { indexLeftOut[$0.key] != $0.value }.keys.sorted() == [])
        #expect(without["search.html"] != nil)
    }
}

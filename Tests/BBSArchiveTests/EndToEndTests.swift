import BBSArchiveTestSupport
import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// The whole pipeline for real: the replica on a loopback port, libcurl,
/// libxml2, SQLite and the templates, checked against the replica's truth.
@Suite(.serialized) struct EndToEndTests {
    static let config = ReplicaConfig(
        seed: 7, sections: 1, boardsPerSection: 2, threadsPerBoard: 40, maxPostsPerThread: 24)

    @Test func archivesTheReplicaIntoABrowsableSite() async throws {
        // Midday, held still: today's HH:MM:SS times cannot turn into dates between the runs.
        var config = Self.config
        config.now = Fixtures.beijing(2026, 8, 1, 12)
        let forum = ReplicaForum(config: config)
        let now = config.now
        let server = ReplicaServer(forum: forum, clock: { now })
        let base = try await server.start()
        let folder = try Fixtures.temporaryFolder("e2e")
        let storePath = folder.appendingPathComponent("archive.sqlite").path
        let out = folder.appendingPathComponent("site")
        let source = SMTHMobileSource(baseURL: base.absoluteString)
        var fetch = FetchAction(boards: forum.boardNames, source: source, storePath: storePath, rate: 0)
        fetch.clock = { now }
        let build = BuildAction(storePath: storePath, outputPath: out.path, templatesPath: Fixtures.templates.path)

        let first = try await fetch.run { _ in }
        let firstBuild = try await build.run()
        let store = try ArchiveStore(path: storePath)
        let countsAfterFirst = try store.counts()

        #expect(first.failures.isEmpty, "failures: \(first.failures)")
        try ReplicaTruth.expectStore(store, matches: forum, base: base.absoluteString)
        try checkSite(SiteInspector(root: out), forum: forum)
        // The forum's sections are archived and each has its page.
        let filing = try store.sectionFiling()
        for section in forum.sections {
            #expect(
                filing.sections.contains {
                    $0.code == section.code && $0.name == section.name && $0.parent == section.parent
                })
            for board in section.boardNames { #expect(filing.boardSection[board] == section.code) }
            #expect(SiteInspector(root: out).exists("section/\(section.code).html"))
        }
        #expect(firstBuild.mediaFiles > 0)

        // A second run adds nothing: no new rows, and no file is rewritten.
        let second = try await fetch.run { _ in }
        let secondBuild = try await build.run()
        let countsAfterSecond = try store.counts()
        #expect(second.failures.isEmpty)
        #expect(countsAfterSecond.threads == countsAfterFirst.threads)
        #expect(countsAfterSecond.posts == countsAfterFirst.posts)
        #expect(countsAfterSecond.attachments == countsAfterFirst.attachments)
        #expect(countsAfterSecond.media == countsAfterFirst.media)
        #expect(countsAfterSecond.users == countsAfterFirst.users)
        #expect(second.threadsFetched == 0)
        #expect(second.media == 0)
        #expect(secondBuild.written == 0)
        #expect(countsAfterSecond.captures == countsAfterFirst.captures)
        await server.stop()
    }

    /// The site reads from disk: every link resolves, no remote images,
    /// well-formed pages in Chinese, every post on its thread's pages.
    func checkSite(_ site: SiteInspector, forum: ReplicaForum) throws {
        let pages = site.pages()
        #expect(pages.contains("index.html"))
        var broken: [String] = []
        var remoteImages: [String] = []
        for page in pages {
            #expect(site.isWellFormed(page), "\(page) is not well-formed")
            let text = site.text(page)
            #expect(text.hasPrefix("<!DOCTYPE html>"))
            #expect(text.contains("<html lang=\"zh-CN\""), "\(page) lacks lang")
            // Scripts only enhance, and only from the site's own files.
            // (404.html built without a site address carries the root finder,
            // allowed by its hash alone.)
            if page == SitePaths.notFound, let start = text.range(of: "<script>") {
                let end = try #require(text.range(of: "</script>", range: start.upperBound..<text.endIndex))
                let script = String(text[start.upperBound..<end.lowerBound])
                let hash = Data(SHA256.digest(Data(script.utf8))).base64EncodedString()
                #expect(text.contains("script-src 'self' 'sha256-\(hash)';"))
                #expect(text.components(separatedBy: "<script>").count == 2)
            } else {
                #expect(!text.contains("<script>"), "\(page) has an inline script")
            }
            for reference in try site.references(in: page) where !SiteInspector.isExternal(reference) {
                if let target = site.resolve(reference, from: page), !site.exists(target) {
                    broken.append("\(page) → \(reference)")
                }
                #expect(!reference.hasPrefix("/"), "\(page) has an absolute link \(reference)")
            }
            remoteImages += try site.images(in: page).filter(SiteInspector.isExternal)
        }
        #expect(broken.isEmpty, "broken links: \(broken.prefix(5))")
        #expect(remoteImages.isEmpty, "remote images: \(remoteImages.prefix(5))")

        for name in forum.boardNames {
            let board = try #require(forum.board(named: name))
            #expect(site.exists("board/\(name)/index.html"))
            #expect(site.exists("board/\(name)/index.md"))
            for thread in board.threads {
                #expect(site.exists("board/\(name)/\(thread.gid).md"))
                var shown = 0
                var number = 1
                while site.exists(
                    number == 1 ? "board/\(name)/\(thread.gid).html" : "board/\(name)/\(thread.gid)-\(number).html")
                {
                    let html = site.text(
                        number == 1 ? "board/\(name)/\(thread.gid).html" : "board/\(name)/\(thread.gid)-\(number).html")
                    shown += html.components(separatedBy: "<article class=\"post").count - 1
                    number += 1
                }
                #expect(shown == thread.posts.count, "posts shown for \(thread.gid)")
                let images = thread.posts.flatMap(\.attachments).filter(\.isImage).count
                if images > 0 {
                    let html = (1..<number).map {
                        site.text(
                            $0 == 1 ? "board/\(name)/\(thread.gid).html" : "board/\(name)/\(thread.gid)-\($0).html")
                    }.joined()
                    // Emoticons are images too, in the text: not the post's pictures.
                    let emoticons = html.components(separatedBy: "<img class=\"em\"").count - 1
                    #expect(
                        html.components(separatedBy: "<img ").count - 1 - emoticons == images,
                        "images shown for \(thread.gid)")
                }
            }
        }
        // Markup in a post is shown, never run.
        let allText = pages.map(site.text).joined()
        #expect(allText.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        // Each image is saved once under its content hash.
        let media = site.files().filter { $0.hasPrefix("media/") }
        #expect(
            Set(media.map { $0.split(separator: "/").last.map { $0.split(separator: ".")[0] } }).count == media.count)
    }
}

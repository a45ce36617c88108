import Foundation
import Testing

@testable import BBSArchive

/// Into a folder that was empty, files are created in place (no compare,
/// no temporary file); otherwise compared and replaced. Either way the
/// site is the same, and unchanged bytes are not written again.
@Suite struct DiskPublisherTests {
    /// A full disk is said as one, with what to do: make room and run the
    /// same command again (what was written is kept), not "pass --out with
    /// a writable folder", which is what any other refusal still says.
    @Test func aFullDiskSaysToMakeRoomNotToChangeTheFolder() {
        for code in [ENOSPC, EDQUOT] {
            let said = ArchiveError.outputUnwritable(
                path: "site/board/B/1.html", reason: String(cString: strerror(code))
            ).description
            #expect(said.contains("free some space on that disk"), "\(said)")
            #expect(said.hasSuffix("run the same command again: what was written is kept"), "\(said)")
            #expect(!said.contains("pass --out with a writable folder"), "\(said)")
        }
        let denied = ArchiveError.outputUnwritable(path: "site", reason: String(cString: strerror(EACCES))).description
        #expect(denied.hasSuffix("; pass --out with a writable folder"), "\(denied)")
        // The store's disk, the same (a fetch carries on where it stopped).
        let store = ArchiveError.storeUnavailable(path: "a.sqlite", reason: ArchiveError.storeDiskFull).description
        #expect(store.hasPrefix("the store a.sqlite cannot take more: the disk is full; free some space"), "\(store)")
        #expect(!store.contains("pass --store"), "\(store)")
    }

    @Test func aFirstBuildInPlaceMatchesTheMemoryBuildAndARebuildWritesNothing() async throws {
        let store = try ParallelBuildTests.makeStore()
        let expected = try await ParallelBuildTests.build(store, workers: 1)
        let folder = try Fixtures.temporaryFolder("disk-publisher")
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = try await TemplateSet(directory: Fixtures.templates)
        func build(incremental: Bool) throws -> SiteBuilder.Report {
            var options = ParallelBuildTests.options()
            options.workers = 2
            options.incremental = incremental
            return try SiteBuilder(
                store: store, templates: templates, publisher: try DiskPublisher(root: folder), options: options
            ).build()
        }
        let first = try build(incremental: true)
        let files = try Self.files(in: folder)
        // Every file but the build's own note, which the report leaves out.
        #expect(first.written == files.count - 1)
        #expect(Set(files.keys) == Set(expected.keys).union([BuildState.path]))
        let differing = expected.keys.filter { files[$0] != expected[$0] }.sorted()
        #expect(differing.isEmpty, "differ: \(differing.prefix(10))")

        // The folder is not empty now: every page is rendered again and
        // compared, and none is written again.
        let again = try build(incremental: false)
        #expect(again.pages == first.pages)
        #expect(again.written == 0)
        #expect(again.unchanged == first.written - first.mediaFiles)  // media: found by name, not compared
        #expect(try Self.files(in: folder).keys.sorted() == files.keys.sorted())
    }

    @Test func aFileWrittenTwiceIntoAnEmptyFolderIsComparedTheSecondTime() throws {
        let folder = try Fixtures.temporaryFolder("disk-publisher")
        defer { try? FileManager.default.removeItem(at: folder) }
        let publisher = try DiskPublisher(root: folder)
        #expect(try publisher.write(Data("one".utf8), to: "a/b/page.html"))
        #expect(try publisher.write(Data("one".utf8), to: "a/b/page.html") == false)
        #expect(try publisher.write(Data("two".utf8), to: "a/b/page.html"))
        #expect(publisher.exists("a/b/page.html"))
        // Media are known by what this build wrote, in a folder that was empty.
        #expect(publisher.exists("media/ab/abc.png") == false)
        #expect(try publisher.write(Data("blob".utf8), to: "media/ab/abc.png"))
        #expect(publisher.exists("media/ab/abc.png"))
        #expect(
            try Self.files(in: folder) == ["a/b/page.html": Data("two".utf8), "media/ab/abc.png": Data("blob".utf8)])
    }

    /// In a folder that held no site, a media file there already was
    /// written by this build, under the hash of the same bytes: a second
    /// write of it returns false without reading or replacing it, so that
    /// the build need not ask first (`writesMediaOnce`). Elsewhere it is
    /// compared, and replaced when it differs.
    @Test func aMediaFileWrittenTwiceIntoAnEmptyFolderIsLeftAsTheFirstWriteMadeIt() throws {
        let folder = try Fixtures.temporaryFolder("disk-publisher-once")
        defer { try? FileManager.default.removeItem(at: folder) }
        let publisher = try DiskPublisher(root: folder)
        #expect(publisher.writesMediaOnce)
        #expect(try publisher.write(Data("blob".utf8), to: "media/ab/abc.png"))
        // Other bytes under the same name stand for a write that is not
        // read: never so in a build, where the name is the bytes' hash.
        #expect(try publisher.write(Data("other".utf8), to: "media/ab/abc.png") == false)
        #expect(try Self.files(in: folder) == ["media/ab/abc.png": Data("blob".utf8)])
        // Pages are still compared, and replaced.
        #expect(try publisher.write(Data("one".utf8), to: "page.html"))
        #expect(try publisher.write(Data("two".utf8), to: "page.html"))
        #expect(try Data(contentsOf: folder.appendingPathComponent("page.html")) == Data("two".utf8))

        // The same folder again: it holds a site now.
        let again = try DiskPublisher(root: folder)
        #expect(!again.writesMediaOnce)
        #expect(try again.write(Data("other".utf8), to: "media/ab/abc.png"))
        #expect(try Data(contentsOf: folder.appendingPathComponent("media/ab/abc.png")) == Data("other".utf8))
        #expect(!MemoryPublisher().writesMediaOnce)
    }

    /// Two posts that show the same bytes under two addresses: a first
    /// build on two workers writes the file once, counts it once, and
    /// makes the site a memory build makes.
    @Test func bytesTwoPostsShowAreWrittenOnceByAFirstBuild() async throws {
        let store = try GoldenPagesTests.makeStore()
        let day = Fixtures.beijing(2026, 3, 2, 9, 30, 0)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52])
        for gid in [200, 201] {
            let url = "https://att.newsmth.net/nForum/att/Golden/\(gid)/1"
            let post = Post(
                floor: 0, author: "dave", postedAt: day.addingTimeInterval(Double(gid)), body: "同一张图 \(gid)",
                attachments: [Attachment(name: "同图.png", url: url, kind: .image, size: "1KB")], postID: gid)
            let summary = ThreadSummary(
                gid: gid, title: "同图 \(gid)", replies: 0, sticky: false, author: "dave", postedAt: post.postedAt,
                lastReplier: "dave", lastReplyAt: post.postedAt, hasAttachment: true)
            try store.saveThread(
                board: "Golden",
                pages: [
                    ThreadPage(
                        board: "Golden", gid: gid, title: summary.title, page: PageInfo(current: 1, total: 1),
                        posts: [post])
                ], summary: summary)
            try store.saveMedia(
                url: url,
                response: HTTPResponse(
                    url: url, status: 200, headers: [("Content-Type", "image/png")], body: png, fetchedAt: day))
        }
        let expected = try await GoldenPagesTests.build(store)
        let folder = try Fixtures.temporaryFolder("disk-publisher-shared")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = SiteBuilder.Options()
        options.forum = Fixtures.smthForum
        options.siteURL = "https://archive.example.org/smth/"
        options.workers = 2
        let report = try SiteBuilder(
            store: store, templates: try await TemplateSet(directory: Fixtures.templates),
            publisher: try DiskPublisher(root: folder), options: options
        ).build()
        let files = try Self.files(in: folder)
        let media = files.keys.filter { $0.hasPrefix("media/") }
        // The golden thread's image and text file; the two posts' image is its image.
        #expect(media.count == 2, "\(media.sorted())")
        #expect(report.mediaFiles == 2)
        #expect(report.unchanged == 0)
        #expect(report.written == files.count - 1)
        // The build's own note says when it was built.
        let differing = expected.keys.filter { $0 != BuildState.path && files[$0] != expected[$0] }.sorted()
        #expect(differing.isEmpty, "differ: \(differing.prefix(10))")
        let pages = ["board/Golden/200.html", "board/Golden/201.html"].compactMap { files[$0] }
        #expect(pages.count == 2)
        for page in pages {
            let text = String(decoding: page, as: UTF8.self)
            #expect(media.contains { text.contains($0) }, "the page links the one file")
        }
    }

    /// A folder's files are listed as site paths, and one is deleted (an
    /// earlier index's leftovers, an active PDF an older release kept).
    @Test func aFolderIsListedAndAFileDeleted() throws {
        let folder = try Fixtures.temporaryFolder("disk-publisher-list")
        defer { try? FileManager.default.removeItem(at: folder) }
        let publisher = try DiskPublisher(root: folder)
        for path in ["search/d/0.js", "search/d/1.js", "search/s/a.js"] {
            try publisher.write(Data(path.utf8), to: path)
        }
        #expect(publisher.files(in: "search/d").sorted() == ["search/d/0.js", "search/d/1.js"])
        #expect(publisher.files(in: "search/none").isEmpty)
        try publisher.remove("search/d/1.js")
        try publisher.remove("search/d/never.js")
        #expect(publisher.files(in: "search/d") == ["search/d/0.js"])
        #expect(try Self.files(in: folder).keys.sorted() == ["search/d/0.js", "search/s/a.js"])
    }

    /// A build that writes many files has the disk start on them while it
    /// goes on (an early `syncfs` each `earlyFlushBytes`), so its last flush
    /// does not wait for the whole site; a build of a few files (fsynced one
    /// by one at the end) starts none. Every file is there either way.
    @Test func manyFilesStartTheDiskEarlyAFewDoNot() throws {
        let folder = try Fixtures.temporaryFolder("disk-publisher")
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = Data(repeating: 0x61, count: 1024)
        let few = try DiskPublisher(root: folder.appendingPathComponent("few"), earlyFlushBytes: 4096)
        for index in 0..<200 { try few.write(page, to: "board/B/\(index).html") }
        try few.flush()
        #expect(few.earlyFlushes == 0)
        let many = try DiskPublisher(root: folder.appendingPathComponent("many"), earlyFlushBytes: 64 * 1024)
        for index in 0..<600 { try many.write(page, to: "board/B/\(index).html") }
        try many.flush()
        // 344 files past the first 256 (one by one) make 344 kB: an early flush
        // is due every 64 kB, and one is started unless one is still running.
        #expect(many.earlyFlushes >= 1)
        #expect(many.earlyFlushes <= 5)
        #expect(try Self.files(in: folder.appendingPathComponent("many")).count == 600)
    }

    /// Pages and Markdown are written from their own bytes (no `Data`
    /// copy): the same files, compared the same way, as through `Data`,
    /// empty ones and a string's non-ASCII UTF-8 included, into an empty
    /// folder and into one that is not.
    @Test func bytesAndTextAreWrittenAsDataIs() throws {
        for fresh in [true, false] {
            let folder = try Fixtures.temporaryFolder("disk-publisher")
            defer { try? FileManager.default.removeItem(at: folder) }
            if !fresh { try Data("x".utf8).write(to: folder.appendingPathComponent("old.html")) }
            let publisher = try DiskPublisher(root: folder)
            let page: [UInt8] = Array("<p>水木 · ok</p>\n".utf8)
            #expect(try publisher.write(bytes: page, to: "board/a/1.html"))
            #expect(try publisher.write(Data(page), to: "board/a/1.html") == false)
            #expect(try publisher.write(bytes: page, to: "board/a/1.html") == false)
            #expect(try publisher.write(bytes: page + [0x21], to: "board/a/1.html"))
            #expect(try publisher.write(text: "# 标题\n", to: "board/a/1.md"))
            #expect(try publisher.write(Data("# 标题\n".utf8), to: "board/a/1.md") == false)
            #expect(try publisher.write(text: "# 标题 2\n", to: "board/a/1.md"))
            #expect(try publisher.write(bytes: [], to: "board/a/empty.html"))
            #expect(try publisher.write(text: "", to: "board/a/empty.html") == false)
            // A string not stored as native UTF-8 (bridged) is written as its UTF-8 too.
            let bridged = NSString(string: "桥接的字符串") as String
            #expect(try publisher.write(text: bridged, to: "board/a/2.md"))
            var expected = [
                "board/a/1.html": Data(page + [0x21]), "board/a/1.md": Data("# 标题 2\n".utf8),
                "board/a/empty.html": Data(), "board/a/2.md": Data("桥接的字符串".utf8),
            ]
            if !fresh { expected["old.html"] = Data("x".utf8) }
            #expect(try Self.files(in: folder) == expected, "fresh: \(fresh)")
        }
    }

    /// In a first build, media are written in place, without a temporary
    /// file. A later build trusts a media file by its name only beside the
    /// state of a finished build; after a first build that stopped part
    /// way (no state), a half media file is compared and rewritten.
    @Test func mediaOfAStoppedFirstBuildAreNotTrustedByName() throws {
        let folder = try Fixtures.temporaryFolder("disk-publisher")
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try DiskPublisher(root: folder)
        #expect(try first.write(Data("bl".utf8), to: "media/ab/abc.png"))  // as if it stopped half way
        #expect(try Self.files(in: folder) == ["media/ab/abc.png": Data("bl".utf8)])

        let next = try DiskPublisher(root: folder)
        #expect(next.exists("media/ab/abc.png") == false)
        #expect(try next.write(Data("blob".utf8), to: "media/ab/abc.png"))
        #expect(try next.write(Data("blob".utf8), to: "media/ab/abc.png") == false)
        #expect(try Self.files(in: folder) == ["media/ab/abc.png": Data("blob".utf8)])

        // Beside a finished build's state, media are known by their names.
        _ = try next.write(Data("{}".utf8), to: BuildState.path)
        #expect(try DiskPublisher(root: folder).exists("media/ab/abc.png"))
        #expect(try DiskPublisher(root: folder).exists("media/ab/other.png") == false)
    }

    /// Written files are flushed several at a time; one removed since is
    /// skipped, and flushing again with nothing new written does nothing.
    @Test func flushingManyFilesSkipsOneRemovedSince() throws {
        let folder = try Fixtures.temporaryFolder("disk-publisher")
        defer { try? FileManager.default.removeItem(at: folder) }
        let publisher = try DiskPublisher(root: folder)
        for index in 0..<40 { #expect(try publisher.write(Data("page \(index)".utf8), to: "p/\(index).html")) }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("p/3.html"))
        try publisher.flush()
        try publisher.flush()
        let files = try Self.files(in: folder)
        #expect(files.count == 39)
        #expect(files["p/39.html"] == Data("page 39".utf8))
    }

    @Test func aHalfPageLeftByAStoppedFirstBuildIsRewritten() throws {
        let folder = try Fixtures.temporaryFolder("disk-publisher")
        defer { try? FileManager.default.removeItem(at: folder) }
        // As a first build that stopped part way leaves it: half a page, no build state.
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("board"), withIntermediateDirectories: true)
        try Data("<html><bo".utf8).write(to: folder.appendingPathComponent("board/x.html"))
        let publisher = try DiskPublisher(root: folder)
        #expect(try publisher.write(Data("<html><body></body></html>".utf8), to: "board/x.html"))
        #expect(try Self.files(in: folder) == ["board/x.html": Data("<html><body></body></html>".utf8)])
    }

    /// What a build stopped between writing a file and renaming it over
    /// its place leaves is in one folder, which the next build empties and
    /// removes, and a build that flushed leaves no such folder (QA 7: the
    /// `page.html.tmp-PID-N` files beside the pages were never removed).
    @Test func whatAStoppedBuildLeftHalfWrittenIsRemoved() throws {
        let folder = try Fixtures.temporaryFolder("disk-publisher")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("board"), withIntermediateDirectories: true)
        try Data("<html>old</html>".utf8).write(to: folder.appendingPathComponent("board/x.html"))
        let leftovers = folder.appendingPathComponent(DiskPublisher.temporaryFolder)
        try FileManager.default.createDirectory(at: leftovers, withIntermediateDirectories: true)
        try Data("<html>ha".utf8).write(to: leftovers.appendingPathComponent("99-1"))
        let publisher = try DiskPublisher(root: folder)
        #expect(!FileManager.default.fileExists(atPath: leftovers.path))
        #expect(try publisher.write(Data("<html>new</html>".utf8), to: "board/x.html"))
        try publisher.flush()
        #expect(!FileManager.default.fileExists(atPath: leftovers.path))
        // The build state, written after the flush, leaves none either.
        try publisher.write(Data("{}".utf8), to: BuildState.path)
        let all = try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted()
        #expect(all == [BuildState.path, "board", "board/x.html"])
    }

    /// A folder of the site that is a link to another file system (where
    /// no file can be renamed to from the site's temporary folder) still
    /// gets its files replaced whole.
    @Test func aFolderOnAnotherFileSystemIsWrittenToo() throws {
        let elsewhere = URL(fileURLWithPath: "/dev/shm/bbsarchive-test-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)) != nil
        else { return }  // no tmpfs here to be another file system
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let folder = try Fixtures.temporaryFolder("disk-publisher")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("<html>old</html>".utf8).write(to: folder.appendingPathComponent("index.html"))
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("board"), withDestinationURL: elsewhere)
        try Data("<html>old</html>".utf8).write(to: elsewhere.appendingPathComponent("x.html"))
        let publisher = try DiskPublisher(root: folder)
        #expect(try publisher.write(Data("<html>new</html>".utf8), to: "board/x.html"))
        #expect(try Data(contentsOf: elsewhere.appendingPathComponent("x.html")) == Data("<html>new</html>".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == ["x.html"])
    }

    /// A folder that holds only hidden files (`.nojekyll`, as GitHub Pages
    /// asks, or `.git`) holds no site: a first build takes its media by
    /// name, as in an empty one. One that holds a site's files and no
    /// build state (a first build stopped) takes a media file for there
    /// once this build wrote it or found it whole, and not before. (QA: the
    /// hot topics' cards, which show a picture only if its file is there,
    /// had none in either folder, and kept none.)
    @Test func mediaAreThereOnceWrittenWhereverTheFirstBuildGoes() throws {
        let media = "media/ab/abcd.png"
        let bytes = Data("png".utf8)
        // Only hidden files: a first build.
        let hidden = try Fixtures.temporaryFolder("disk-publisher-hidden")
        defer { try? FileManager.default.removeItem(at: hidden) }
        try Data().write(to: hidden.appendingPathComponent(".nojekyll"))
        try FileManager.default.createDirectory(
            at: hidden.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let first = try DiskPublisher(root: hidden)
        #expect(!first.exists(media))
        #expect(try first.write(bytes, to: media))
        #expect(first.exists(media))
        // A build state among the hidden files: not a first build.
        let built = try Fixtures.temporaryFolder("disk-publisher-state")
        defer { try? FileManager.default.removeItem(at: built) }
        try Data("{}".utf8).write(to: built.appendingPathComponent(BuildState.path))
        try FileManager.default.createDirectory(
            at: built.appendingPathComponent("media/ab"), withIntermediateDirectories: true)
        try bytes.write(to: built.appendingPathComponent(media))
        #expect(try DiskPublisher(root: built).exists(media), "a finished build's media are trusted by name")
        // A stopped first build: its media file is there, but not taken for
        // whole until this build compares it; a half one is rewritten.
        let stopped = try Fixtures.temporaryFolder("disk-publisher-stopped")
        defer { try? FileManager.default.removeItem(at: stopped) }
        try FileManager.default.createDirectory(
            at: stopped.appendingPathComponent("media/ab"), withIntermediateDirectories: true)
        try bytes.write(to: stopped.appendingPathComponent(media))
        try Data("pn".utf8).write(to: stopped.appendingPathComponent("media/ab/half.png"))
        let again = try DiskPublisher(root: stopped)
        #expect(!again.exists(media))
        #expect(try !again.write(bytes, to: media), "found whole, not written")
        #expect(again.exists(media))
        #expect(!again.exists("media/ab/half.png"))
        #expect(try again.write(bytes, to: "media/ab/half.png"))
        #expect(again.exists("media/ab/half.png"))
        #expect(try Data(contentsOf: stopped.appendingPathComponent("media/ab/half.png")) == bytes)
    }

    /// A build that writes many files leaves them to the kernel where its
    /// publisher names the boot: no flush of the file system, none started
    /// early, and a state that carries the boot. In the same boot the state
    /// is trusted: nothing changed, nothing is rendered; since that build's
    /// files may not be on the disk yet, this one flushes the file system
    /// and its state carries no boot, unless the kernel has more to write
    /// back than it waits for: then the state keeps the boot. In another
    /// boot (the kernel may have lost files with the last one) neither the
    /// state nor the media are trusted: everything is rendered and compared,
    /// and what was lost (here a page and a picture cut to nothing) is
    /// written again.
    @Test func manyFilesAreLeftToTheKernelForTheBootTheStateNames() async throws {
        let store = try ParallelBuildTests.makeStore()
        let folder = try Fixtures.temporaryFolder("disk-publisher-boot")
        defer { try? FileManager.default.removeItem(at: folder) }
        let templates = try await TemplateSet(directory: Fixtures.templates)
        func build(boot: String?, settlesBelow: Int = .max) throws -> (SiteBuilder.Report, DiskPublisher, String?) {
            var options = ParallelBuildTests.options()
            options.workers = 2
            let publisher = try DiskPublisher(
                root: folder, earlyFlushBytes: 4096, boot: boot, settlesBelow: settlesBelow)
            let report = try SiteBuilder(store: store, templates: templates, publisher: publisher, options: options)
                .build()
            let state = try #require(BuildState.decoded(publisher.read(BuildState.path)))
            return (report, publisher, state.unflushedBoot)
        }
        let (first, firstPublisher, firstMark) = try build(boot: "boot-1")
        try #require(first.written > 256, "enough files to be many: \(first.written)")
        #expect(first.changes == nil)
        #expect(firstMark == "boot-1")
        #expect(firstPublisher.earlyFlushes == 0)
        let site = try Self.files(in: folder).filter { $0.key != BuildState.path }

        let (busy, _, busyMark) = try build(boot: "boot-1", settlesBelow: -1)
        #expect(busy.changes != nil, "the state of this boot is trusted")
        #expect(busy.written == 0 && busy.pages == 0)
        #expect(busyMark == "boot-1", "the kernel has more to write back: the boot stays named")
        let (same, _, sameMark) = try build(boot: "boot-1")
        #expect(same.changes != nil && same.written == 0 && same.pages == 0)
        #expect(sameMark == nil, "flushed with the file system: no boot named")

        // The state of a build of boot 1 (as the first left it), read in
        // boot 2, with two files cut short as a power cut may leave them.
        var state = try #require(BuildState.decoded(try DiskPublisher(root: folder).read(BuildState.path)))
        state.unflushedBoot = "boot-1"
        try state.save(to: try DiskPublisher(root: folder))
        let page = try #require(site.keys.first { $0.hasPrefix("board/") && $0.hasSuffix(".html") })
        let media = try #require(site.keys.first { $0.hasPrefix("media/") })
        for path in [page, media] { try Data().write(to: folder.appendingPathComponent(path)) }
        #expect(!(try DiskPublisher(root: folder, boot: "boot-2").exists(media)), "media not trusted by name")
        #expect(try DiskPublisher(root: folder, boot: "boot-1").exists(media))
        let (other, _, otherMark) = try build(boot: "boot-2")
        #expect(other.changes == nil, "another boot's state is not trusted: everything is rendered")
        #expect(other.pages == first.pages)
        #expect(other.written == 2, "the two files cut short, nothing else")
        #expect(otherMark == nil)
        #expect(try Self.files(in: folder).filter { $0.key != BuildState.path } == site)

        // With no boot named, the file system is flushed, as before.
        let (none, _, noneMark) = try build(boot: nil)
        #expect(none.changes != nil && noneMark == nil)
    }

    /// A few files are flushed one by one, unless the kernel has more to
    /// write back than the publisher waits for (here always, with a bound
    /// below nothing): then they too are left to it, with the boot named.
    /// Nothing written since the last settle is nothing to leave; with no
    /// boot named, or little to write back, the files are flushed.
    @Test func aFewFilesAreLeftToTheKernelWhileItHasMuchToWriteBack() throws {
        let folder = try Fixtures.temporaryFolder("disk-publisher-busy")
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = Data("<p>a</p>".utf8)
        let busy = try DiskPublisher(root: folder, boot: "boot-1", settlesBelow: -1)
        #expect(try busy.write(page, to: "a.html"))
        #expect(try busy.settle(earlier: false) == "boot-1")
        #expect(try busy.settle(earlier: false) == nil, "nothing written since, nothing earlier")
        #expect(try busy.settle(earlier: true) == "boot-1", "earlier files left too")
        let quiet = try DiskPublisher(root: folder, boot: "boot-1", settlesBelow: .max)
        #expect(try quiet.write(page, to: "b.html"))
        #expect(try quiet.settle(earlier: false) == nil)
        let unnamed = try DiskPublisher(root: folder, settlesBelow: -1)
        #expect(try unnamed.write(page, to: "c.html"))
        #expect(try unnamed.settle(earlier: false) == nil)
        #expect(try Self.files(in: folder).keys.sorted() == ["a.html", "b.html", "c.html"])
    }

    /// Which states are trusted: those of builds that flushed their files
    /// (no boot; states of earlier releases have none), and those of this
    /// boot; not another boot's, nor one that cannot be read.
    @Test func aStateIsTrustedInItsOwnBootOrWhenItFlushed() {
        let flushed = Data(#"{"fingerprint":"f","builtAt":0}"#.utf8)
        let marked = Data(#"{"fingerprint":"f","builtAt":0,"unflushedBoot":"b1"}"#.utf8)
        #expect(BuildState.trusted(flushed, in: nil))
        #expect(BuildState.trusted(flushed, in: "b2"))
        #expect(BuildState.trusted(marked, in: "b1"))
        #expect(!BuildState.trusted(marked, in: "b2"))
        #expect(!BuildState.trusted(marked, in: nil))
        #expect(!BuildState.trusted(Data(#"{"fingerprint":"#.utf8), in: "b1"))
        #expect(!BuildState.trusted(nil, in: "b1"))
        #expect(DiskPublisher.currentBoot?.count == 36, "the kernel's boot id: \(DiskPublisher.currentBoot ?? "none")")
        #expect(DiskPublisher.pendingWriteback().map { $0 >= 0 } == true)
    }

    /// Every file under `folder`, by its path relative to it.
    static func files(in folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let root = folder.resolvingSymlinksInPath().path + "/"
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walker?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let path = url.resolvingSymlinksInPath().path
            files[path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path] = try Data(contentsOf: url)
        }
        return files
    }
}

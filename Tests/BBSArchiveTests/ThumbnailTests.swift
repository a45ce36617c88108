import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// The replica's Photos board (ten 1200×900 photos, a 600×3600 screenshot,
/// a small and a broken image), fetched once and built into one folder.
actor PhotoSiteFixture {
    static let shared = PhotoSiteFixture()

    struct Built: Sendable {
        let site: SiteInspector
        let storePath: String
        let first: SiteBuilder.Report
        /// A full rebuild right after (`--full`: every page rendered again).
        let again: SiteBuilder.Report
    }

    private var building: Task<Built, any Error>?

    func site() async throws -> Built {
        if let building { return try await building.value }
        let task = Task { try await Self.make() }
        building = task
        return try await task.value
    }

    private static func make() async throws -> Built {
        let harness = try await ReplicaHarness.fetchedPhotos()
        let root = harness.folder.appendingPathComponent("site")
        let build = BuildAction(
            storePath: harness.storePath, outputPath: root.path, templatesPath: Fixtures.templates.path)
        let first = try await build.run()
        var full = build
        full.full = true
        let again = try await full.run()
        return Built(site: SiteInspector(root: root), storePath: harness.storePath, first: first, again: again)
    }

    /// The site path of the original of a Photos attachment, from its bytes.
    static func original(_ image: PhotoBoard.Image) -> String {
        SitePaths.media(hash: SHA256.hex(image.bytes), extension: "png")
    }
}

@Suite struct ThumbnailTests {
    static var photos: [PhotoBoard.Image] { PhotoBoard.images.filter { $0.gid == PhotoBoard.photosGid } }
    static func image(_ name: String) throws -> PhotoBoard.Image {
        try #require(PhotoBoard.images.first { $0.name == name })
    }

    @Test func thumbnailsAreMadeOnceAtTheirWidthsNeverLargerThanTheOriginal() async throws {
        let built = try await PhotoSiteFixture.shared.site()
        let root = built.site.root
        func facts(_ path: String) throws -> ImageFacts? {
            Thumbnailer.probe(try Data(contentsOf: root.appendingPathComponent(path)))
        }
        let fileManager = FileManager.default
        for photo in Self.photos {
            let hash = SHA256.hex(photo.bytes)
            for width in [480, 960] {
                let path = SitePaths.thumbnail(hash: hash, width: width, extension: "jpg")
                let made = try #require(try facts(path), "\(photo.name): no \(path)")
                #expect(made.width == width && made.height == width * 3 / 4, "\(path): \(made)")
            }
        }
        // The screenshot is 600 wide: only the 480 one. The small image
        // (320) gets none: never enlarged.
        let screenshot = SHA256.hex(try Self.image("screenshot.png").bytes)
        #expect(try facts(SitePaths.thumbnail(hash: screenshot, width: 480, extension: "jpg"))?.height == 2880)
        #expect(
            !fileManager.fileExists(
                atPath: root.appendingPathComponent(SitePaths.thumbnail(hash: screenshot, width: 960, extension: "jpg"))
                    .path))
        let small = SHA256.hex(try Self.image("small.png").bytes)
        let smallFolder = root.appendingPathComponent("media/\(small.prefix(2))")
        #expect(
            try fileManager.contentsOfDirectory(atPath: smallFolder.path).filter { $0.hasPrefix(small) } == [
                "\(small).png"
            ])
        // The broken image is kept as it is, and counted; the build goes on.
        let broken = SHA256.hex(try Self.image(PhotoBoard.brokenName).bytes)
        let brokenFolder = root.appendingPathComponent("media/\(broken.prefix(2))")
        #expect(
            try fileManager.contentsOfDirectory(atPath: brokenFolder.path).filter { $0.hasPrefix(broken) } == [
                "\(broken).png"
            ])
        #expect(built.first.unreadableImages == 1)

        // Made once: 10 photos × 2 widths + the screenshot's one; a full
        // rebuild renders every page again and makes none.
        #expect(built.first.thumbnails == Self.photos.count * 2 + 1)
        #expect(built.again.thumbnails == 0)
        #expect(built.again.changes == nil && built.again.pages > 0)
        // What was read of each image is in the store, the broken one as unreadable.
        let store = try ArchiveStore(path: built.storePath)
        #expect(try store.imageFacts(hash: screenshot) == .some(ImageFacts(width: 600, height: 3600)))
        #expect(try store.imageFacts(hash: broken) == .some(nil))
    }

    /// A build into a new folder copies the thumbnails an earlier build made
    /// and the store keeps, instead of making them again; one that is gone
    /// from the store, or is not what its name says (a store changed by
    /// hand), is made again and kept again.
    @Test func aNewFolderGetsTheThumbnailsTheStoreKeeps() async throws {
        let harness = try await ReplicaHarness.fetchedPhotos()
        func build(_ name: String) async throws -> (report: SiteBuilder.Report, root: URL) {
            let root = harness.folder.appendingPathComponent(name)
            let action = BuildAction(
                storePath: harness.storePath, outputPath: root.path, templatesPath: Fixtures.templates.path)
            return (try await action.run(), root)
        }
        func bytes(_ root: URL, _ hash: String, _ width: Int) throws -> Data {
            try Data(
                contentsOf: root.appendingPathComponent(SitePaths.thumbnail(hash: hash, width: width, extension: "jpg"))
            )
        }
        let expected = Self.photos.count * 2 + 1
        let hashes = Self.photos.map { SHA256.hex($0.bytes) }
        let first = try await build("first")
        #expect(first.report.thumbnails == expected && first.report.thumbnailsCopied == 0)
        let second = try await build("second")
        #expect(second.report.thumbnails == 0 && second.report.thumbnailsCopied == expected)
        for hash in hashes {
            for width in [480, 960] { #expect(try bytes(second.root, hash, width) == bytes(first.root, hash, width)) }
        }

        let store = try ArchiveStore(path: harness.storePath)
        let (tampered, removed) = (hashes[0], hashes[1])
        try store.write { db in
            try db.execute(
                sql: "UPDATE thumbnail SET bytes = ? WHERE hash = ? AND width = 480",
                arguments: [Data("<script>alert(1)</script>".utf8), tampered])
            try db.execute(sql: "DELETE FROM thumbnail WHERE hash = ? AND width = 960", arguments: [removed])
        }
        let third = try await build("third")
        #expect(third.report.thumbnails == 2 && third.report.thumbnailsCopied == expected - 2)
        let remade = try bytes(third.root, tampered, 480)
        #expect(InertMedia.sniffed(remade, declared: "jpg") == "jpg")
        #expect(remade == (try bytes(first.root, tampered, 480)))
        #expect(try store.thumbnail(hash: tampered, width: 480, format: "jpg") == remade)
        #expect(try store.thumbnail(hash: removed, width: 960, format: "jpg") == (try bytes(first.root, removed, 960)))
        // `status` says what the store keeps for builds.
        let (status, time) = try StatusAction(storePath: harness.storePath).run()
        #expect(status.thumbnails == expected && status.thumbnailBytes > 0)
        #expect(StatusAction.text(status, time: time).contains("\(expected) thumbnail(s) kept for builds"))
    }

    /// A site an earlier release built holds thumbnails its store does not
    /// keep: a build that renders the images again keeps them in the store
    /// (read from the folder, none made), and a new folder then copies them.
    @Test func thumbnailsOfASiteFromAnEarlierReleaseGoIntoTheStore() async throws {
        let harness = try await ReplicaHarness.fetchedPhotos()
        func build(_ name: String, full: Bool = false) async throws -> SiteBuilder.Report {
            var action = BuildAction(
                storePath: harness.storePath, outputPath: harness.folder.appendingPathComponent(name).path,
                templatesPath: Fixtures.templates.path)
            action.full = full
            return try await action.run()
        }
        let expected = Self.photos.count * 2 + 1
        #expect(try await build("old").thumbnails == expected)
        // As an earlier release left it: thumbnails in the folder only.
        let store = try ArchiveStore(path: harness.storePath)
        try store.write { db in try db.execute(sql: "DELETE FROM thumbnail") }
        let again = try await build("old", full: true)
        #expect(again.thumbnails == 0 && again.thumbnailsCopied == 0)
        #expect(try store.status().thumbnails == expected)
        let hash = SHA256.hex(try #require(Self.photos.first).bytes)
        let path = SitePaths.thumbnail(hash: hash, width: 480, extension: "jpg")
        let file = try Data(contentsOf: harness.folder.appendingPathComponent("old").appendingPathComponent(path))
        #expect(try store.thumbnail(hash: hash, width: 480, format: "jpg") == file)
        let fresh = try await build("new")
        #expect(fresh.thumbnails == 0 && fresh.thumbnailsCopied == expected)
    }

    @Test func thePostMarkupOffersThumbnailsAndTheLinkOpensTheOriginal() async throws {
        let built = try await PhotoSiteFixture.shared.site()
        let html = built.site.text(SitePaths.thread(PhotoBoard.name, gid: PhotoBoard.photosGid))
        for photo in Self.photos {
            let original = PhotoSiteFixture.original(photo)
            let hash = SHA256.hex(photo.bytes)
            let thumb480 = "../../" + SitePaths.thumbnail(hash: hash, width: 480, extension: "jpg")
            let thumb960 = "../../" + SitePaths.thumbnail(hash: hash, width: 960, extension: "jpg")
            #expect(html.contains(#"<a class="view" href="../../\#(original)" data-viewer="image">"#), "\(photo.name)")
            #expect(
                html.contains(#"srcset="\#(thumb480) 480w, \#(thumb960) 960w, ../../\#(original) 1200w""#),
                "\(photo.name)")
            #expect(html.contains(#"width="1200" height="900""#))
        }
        let tall = built.site.text(SitePaths.thread(PhotoBoard.name, gid: PhotoBoard.screenshotGid))
        #expect(tall.components(separatedBy: #"<figure class="tall">"#).count == 2)
        #expect(tall.contains(#"<details class="unfold"><summary>"#))
    }

    /// Frames and sizes decide: an animated image keeps its original, an image
    /// no wider than a width gets no thumbnail of it.
    @Test func animatedAndSmallImagesKeepTheirOriginal() throws {
        // Two frames of one pixel, a GIF as a forum's smiley would be.
        let frame: [UInt8] = [
            0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
            0x02, 0x02, 0x44, 0x01, 0x00,
        ]
        var gif: [UInt8] = Array("GIF89a".utf8) + [0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00]
        gif += [0, 0, 0, 255, 255, 255]
        gif += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01, 0x00, 0x00, 0x00]
        gif += frame + frame + [0x3B]
        let animated = try #require(Thumbnailer.probe(Data(gif)))
        #expect(animated.frames == 2 && animated.width == 1)
        #expect(Thumbnailer.widths(for: ImageFacts(width: 2000, height: 1500, frames: 2)).isEmpty)
        #expect(Thumbnailer.widths(for: ImageFacts(width: 2000, height: 1500)) == [480, 960])
        #expect(Thumbnailer.widths(for: ImageFacts(width: 960, height: 700)) == [480])
        #expect(Thumbnailer.widths(for: ImageFacts(width: 480, height: 300)).isEmpty)
        #expect(Thumbnailer.format(for: ImageFacts(width: 900, height: 900, alpha: true)) == "png")
        #expect(Thumbnailer.probe(Data("<svg onload=alert(1)>".utf8)) == nil)
        #expect(Thumbnailer.thumbnail(Data([0x89, 0x50, 0x4E, 0x47]), width: 480, format: "jpg") == nil)
    }

    @Test func textBrowserShowsTheTallImageAndItsLink() async throws {
        let built = try await PhotoSiteFixture.shared.site()
        let w3m = try #require(ExternalTool.find("w3m"), "no w3m on PATH: run `make setup`")
        let page = built.site.root.appendingPathComponent(
            SitePaths.thread(PhotoBoard.name, gid: PhotoBoard.screenshotGid)
        ).path
        let output = try ExternalTool.run(
            w3m, ["-dump", "-o", "display_link_number=1", "-T", "text/html", "-I", "UTF-8", "-O", "UTF-8", page],
            timeout: 60)
        #expect(output.status == 0 && !output.timedOut)
        let original = PhotoSiteFixture.original(try Self.image("screenshot.png"))
        #expect(output.text.contains("lens 的图片：screenshot.png"), "\(output.text.prefix(1500))")
        #expect(output.text.contains(original), "the link to the original is missing")
    }

    // MARK: In Chromium

    struct Report: Decodable {
        struct Probe: Decodable {
            var page: String
            var value: String?
            var error: String?
            var problems: [String]
            var width: Int?
            var scheme: String?
            var expression: String?
        }
        var probes: [Probe]
        var fatal: String?
    }

    static func check(
        site: SiteInspector, base: String? = nil, widths: [Int], probes: [(String, String)] = [],
        everywhere: [(String, String)] = []
    ) throws -> Report {
        let python = try #require(ExternalTool.find("python3"), "no python3 on PATH: run `make setup`")
        try #require(ExternalTool.find("chromium") != nil, "no chromium on PATH: run `make setup`")
        var arguments = [
            Fixtures.projectRoot.appendingPathComponent("scripts/browser-check.py").path, "--site", site.root.path,
            "--widths", widths.map(String.init).joined(separator: ","), "--schemes", "light,dark", "--timeout", "60",
        ]
        if let base { arguments += ["--base", base] }
        for (page, expression) in probes { arguments += ["--probe", page, expression] }
        for (page, expression) in everywhere { arguments += ["--probe-every", page, expression] }
        let output = try ExternalTool.run(python, arguments, timeout: 300)
        #expect(!output.timedOut, "the browser check did not finish in 5 minutes")
        #expect(output.status == 0, "browser-check.py exited \(output.status): \(output.errorText.suffix(800))")
        let report = try JSONDecoder().decode(Report.self, from: output.stdout)
        #expect(report.fatal == nil, "browser: \(report.fatal ?? "")")
        for probe in report.probes {
            #expect(probe.error == nil, "\(probe.page): \(probe.error ?? "")")
            #expect(probe.problems.isEmpty, "\(probe.page): \(probe.problems)")
        }
        return report
    }

    static let downloaded = """
        (async () => {
          const images = [...document.querySelectorAll('.images img')];
          images.forEach(i => { i.loading = 'eager'; });
          await Promise.all(images.map(i => i.complete ? true : new Promise(r => { i.onload = i.onerror = r; })));
          const media = performance.getEntriesByType('resource').filter(e => e.name.includes('/media/'));
          return JSON.stringify({images: images.length, loaded: images.filter(i => i.naturalWidth > 0).length,
            bytes: media.reduce((s, e) => s + e.encodedBodySize, 0),
            chosen: images.map(i => i.currentSrc.replace(/^.*\\//, ''))});
        })()
        """

    static let crop = """
        (async () => {
          const figure = document.querySelector('figure.tall');
          const box = figure.querySelector('a.view'), image = box.querySelector('img');
          image.loading = 'eager';
          await (image.complete ? true : new Promise(r => { image.onload = image.onerror = r; }));
          const summary = figure.querySelector('summary');
          const shut = {box: box.getBoundingClientRect(), image: image.getBoundingClientRect(),
            column: figure.closest('.images').getBoundingClientRect(), summary: summary.getBoundingClientRect()};
          const label = summary.innerText.trim(), colour = getComputedStyle(summary).backgroundColor;
          summary.click();
          const open = {box: box.getBoundingClientRect(), image: image.getBoundingClientRect()};
          return JSON.stringify({boxHeight: shut.box.height, boxWidth: shut.box.width, imageWidth: shut.image.width,
            imageHeight: shut.image.height, topGap: shut.image.top - shut.box.top, columnWidth: shut.column.width,
            summaryBelow: shut.summary.top >= shut.box.bottom - 2 && shut.summary.height > 10, label, colour,
            openBox: open.box.height, openImage: open.image.height, viewport: innerHeight});
        })()
        """

    static let taps = """
        (async () => {
          document.querySelector('a[data-viewer]').click();
          const dialog = document.querySelector('dialog.viewer');
          const stage = dialog.querySelector('.stage'), image = stage.querySelector('img');
          const scale = () => (image.style.transform.match(/scale\\(([^)]+)\\)/) || [0, '?'])[1];
          const at = {clientX: 200, clientY: 300, bubbles: true, cancelable: true};
          // Synthetic pointers have no capture to take.
          stage.setPointerCapture = () => {};
          stage.dispatchEvent(new MouseEvent('dblclick', at));
          const mouseIn = scale();
          stage.dispatchEvent(new MouseEvent('dblclick', at));
          const mouseOut = scale();
          const pointer = (type) => image.dispatchEvent(new PointerEvent(type, {...at, pointerId: 9, pointerType: 'touch', isPrimary: true}));
          for (let tap = 0; tap < 2; tap++) {
            pointer('pointerdown'); pointer('pointerup');
            image.dispatchEvent(new MouseEvent('click', at));
            await new Promise(r => setTimeout(r, 60));
          }
          const tapped = scale();
          image.dispatchEvent(new MouseEvent('dblclick', at));
          await new Promise(r => setTimeout(r, 400));
          return JSON.stringify({mouseIn, mouseOut, tapped, after: scale(), open: dialog.open});
        })()
        """

    /// One Chromium for the three tests below, over HTTP from `bbsarchive
    /// serve`'s server (so the browser counts the bytes it downloads): the
    /// thread of photos at 390 px, the screenshot's thread at 390, 820 and 1440 px
    /// in light and dark.
    actor BrowserRun {
        static let shared = BrowserRun()
        private var running: Task<Report, any Error>?

        func report() async throws -> Report {
            if let running { return try await running.value }
            let task = Task { try await Self.make() }
            running = task
            return try await task.value
        }

        private static func make() async throws -> Report {
            let built = try await PhotoSiteFixture.shared.site()
            let server = SiteServer(root: built.site.root)
            let address = try await server.start()
            let photos = SitePaths.thread(PhotoBoard.name, gid: PhotoBoard.photosGid)
            let tall = SitePaths.thread(PhotoBoard.name, gid: PhotoBoard.screenshotGid)
            // Checked off the cooperative pool: the in-process server needs it.
            let report = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(
                        returning: Result {
                            try ThumbnailTests.check(
                                site: built.site, base: address, widths: [390, 820, 1440],
                                probes: [(photos, ThumbnailTests.downloaded), (photos, ThumbnailTests.taps)],
                                everywhere: [(tall, ThumbnailTests.crop)])
                        })
                }
            }
            await server.stop()
            return try report.get()
        }
    }

    /// A 390-px phone reading the ten-photo thread to its end (every image
    /// loaded) downloads at most a quarter of the originals' bytes, as the
    /// browser counted them.
    @Test func aPhoneDownloadsAQuarterOfTheOriginalsAtMost() async throws {
        let built = try await PhotoSiteFixture.shared.site()
        let originals = try Self.photos.reduce(0) { total, photo in
            total
                + (try Data(contentsOf: built.site.root.appendingPathComponent(PhotoSiteFixture.original(photo))).count)
        }
        let report = try await BrowserRun.shared.report()
        struct Downloaded: Decodable {
            var images: Int
            var loaded: Int
            var bytes: Int
            var chosen: [String]
        }
        let probe = try #require(report.probes.first { $0.expression == Self.downloaded })
        let result = try JSONDecoder().decode(Downloaded.self, from: Data((probe.value ?? "").utf8))
        #expect(result.images == Self.photos.count && result.loaded == result.images, "\(result)")
        #expect(result.bytes > 0, "the browser counted nothing")
        #expect(
            result.bytes * 4 <= originals, "a phone downloads \(result.bytes) bytes of \(originals): \(result.chosen)")
    }

    /// The long screenshot at 390, 820 and 1440 px, light and dark: a crop at the
    /// column's width, its top showing, then whole after 展开.
    @Test func aTallScreenshotShowsAsACropThatUnfolds() async throws {
        let report = try await BrowserRun.shared.report()
        struct Crop: Decodable {
            var boxHeight: Double
            var boxWidth: Double
            var imageWidth: Double
            var imageHeight: Double
            var topGap: Double
            var columnWidth: Double
            var summaryBelow: Bool
            var label: String
            var colour: String
            var openBox: Double
            var openImage: Double
            var viewport: Double
        }
        let probes = report.probes.filter { $0.expression == Self.crop }
        #expect(probes.count == 6)
        var colours: [String: Set<String>] = [:]
        for probe in probes {
            let label = "\(probe.width ?? 0)px \(probe.scheme ?? "")"
            let crop = try JSONDecoder().decode(Crop.self, from: Data((probe.value ?? "").utf8))
            // Readable: as wide as the column allows (40rem at most), not a strip.
            #expect(crop.imageWidth >= min(crop.columnWidth, 640) - 4, "\(label): \(crop)")
            #expect(abs(crop.imageWidth - crop.boxWidth) <= 2, "\(label): \(crop)")
            #expect(abs(crop.imageHeight - crop.imageWidth * 6) <= 6, "\(label): \(crop)")
            // Cropped, top first, with 展开 under it.
            #expect(crop.boxHeight < crop.imageHeight / 2 && crop.boxHeight <= crop.viewport, "\(label): \(crop)")
            #expect(crop.boxHeight >= 200, "\(label): \(crop)")
            #expect(abs(crop.topGap) <= 1, "\(label): \(crop)")
            #expect(crop.summaryBelow && crop.label == "展开全图", "\(label): \(crop)")
            // Whole once unfolded.
            #expect(crop.openBox >= crop.openImage, "\(label): \(crop)")
            colours[probe.scheme ?? "", default: []].insert(crop.colour)
        }
        #expect(colours["light"] != colours["dark"], "the 展开 bar has one colour in both themes: \(colours)")
    }

    /// Double-tap in the viewer zooms in and stays: the dblclick a touch
    /// browser sends after the second tap does not zoom back out. A mouse's
    /// double-click still zooms in and out.
    @Test func doubleTapInTheViewerStaysZoomed() async throws {
        let report = try await BrowserRun.shared.report()
        let value = try #require(report.probes.first { $0.expression == Self.taps }?.value)
        #expect(value == #"{"mouseIn":"2.5","mouseOut":"1","tapped":"2.5","after":"2.5","open":true}"#)
    }
}

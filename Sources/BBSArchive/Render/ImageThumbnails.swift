import CVips
import Foundation

/// Smaller copies of archived images, made with libvips at build time, so a
/// phone downloads an image about as wide as its screen; the viewer and the
/// image's link still open the original.
///
/// A thumbnail is named by the original's hash and its width
/// (`media/ab/HASH-480w.jpg`), made once and found again by every later build.
/// Never larger than the original; an animated image keeps only its original
/// (a still of it would hide that it moves); an image libvips cannot read is
/// shown as it is and counted in the build's report.
enum Thumbnailer {
    /// The widths made, in pixels: a phone's column, then a tablet's or a
    /// phone's at twice the density.
    static let widths = [480, 960]
    static let jpegQuality = 80
    /// An image at least this many times taller than wide (a long
    /// screenshot) shows as a crop with 展开.
    static let tallRatio = 2.5
    /// …and at least this tall: a small tall icon needs no crop.
    static let tallMinimumHeight = 1200

    /// Whether libvips is loaded. Without it no image is probed or
    /// thumbnailed, and nothing is recorded about images, so a later build
    /// with libvips makes their thumbnails.
    static let started: Bool = {
        guard bbs_vips_init() == 0 else { return false }
        bbs_vips_quiet_cache()
        return true
    }()

    /// The image's size and frames from its header; `nil` when libvips
    /// cannot read it.
    static func probe(_ bytes: Data) -> ImageFacts? {
        guard started, !bytes.isEmpty else { return nil }
        var width: Int32 = 0
        var height: Int32 = 0
        var pages: Int32 = 0
        var alpha: Int32 = 0
        let status = bytes.withUnsafeBytes { raw in
            bbs_vips_probe(raw.baseAddress, raw.count, &width, &height, &pages, &alpha)
        }
        guard status == 0, width > 0, height > 0 else { return nil }
        return ImageFacts(width: Int(width), height: Int(height), frames: max(1, Int(pages)), alpha: alpha != 0)
    }

    /// The image `width` pixels wide, as `format` (`jpg` or `png`); `nil`
    /// when libvips cannot make it.
    static func thumbnail(_ bytes: Data, width: Int, format: String) -> Data? {
        guard started, !bytes.isEmpty, width > 0 else { return nil }
        var out: UnsafeMutableRawPointer?
        var length = 0
        let status = bytes.withUnsafeBytes { raw in
            bbs_vips_thumbnail(
                raw.baseAddress, raw.count, Int32(width), "." + format, Int32(jpegQuality), &out, &length)
        }
        guard status == 0, let out else { return nil }
        defer { bbs_vips_free(out) }
        return Data(bytes: out, count: length)
    }

    /// The widths to make for an image: those it is wider than, none for an animated one.
    static func widths(for facts: ImageFacts) -> [Int] {
        facts.frames > 1 ? [] : widths.filter { facts.width > $0 }
    }

    /// The format of an image's thumbnails: PNG keeps transparency, JPEG otherwise.
    static func format(for facts: ImageFacts) -> String { facts.alpha ? "png" : "jpg" }

    static func isTall(_ facts: ImageFacts) -> Bool {
        facts.height >= tallMinimumHeight && Double(facts.height) >= tallRatio * Double(facts.width)
    }
}

extension SitePaths {
    /// A thumbnail of the image stored under `hash`, beside it in `media/`.
    static func thumbnail(hash: String, width: Int, extension ext: String) -> String {
        "media/\(hash.prefix(2))/\(hash)-\(width)w.\(ext)"
    }
}

/// What a post's image shows besides its original: its thumbnails (widest
/// last) and the facts they were made from.
struct ImageVariants: Sendable {
    var facts: ImageFacts
    var thumbnails: [(width: Int, path: String)]
}

extension SiteBuilder {
    /// `path.split(separator: ".").last`, as a `String`. The site's media
    /// paths are ASCII, where a byte is a character: read from the end by
    /// byte, not split by `Character` (about 32,000 instructions a path).
    static func lastDotted(_ path: String) -> String? {
        let bytes = path.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            return path.split(separator: ".").last.map(String.init)
        }
        // The last run of bytes between dots that is not empty.
        guard var end = bytes.lastIndex(where: { $0 != UInt8(ascii: ".") }) else { return nil }
        end = bytes.index(after: end)
        let start = bytes[..<end].lastIndex(of: UInt8(ascii: ".")).map { bytes.index(after: $0) } ?? bytes.startIndex
        return String(path[start..<end])
    }

    /// The thumbnails of an archived image, made now when missing. `original`
    /// is the image's path in the site (from `saveMedia`); `nil` when it is no
    /// image libvips reads (counted in the report) or is not an image format.
    func imageVariants(_ attachment: StoredAttachment, original: String, run: BuildRun) throws(ArchiveError)
        -> ImageVariants?
    {
        guard attachment.kind == .image, let hash = attachment.hash,
            let ext = Self.lastDotted(original), InertMedia.images.contains(ext)
        else { return nil }
        var loaded: Data?
        func bytes() throws(ArchiveError) -> Data? {
            if loaded == nil { loaded = try store.blob(hash: hash) }
            return loaded
        }
        let facts: ImageFacts?
        if let known = run.imageFacts.facts(hash) {
            facts = known
        } else if let known = try store.imageFacts(hash: hash) {
            facts = known
        } else {
            guard Thumbnailer.started else {
                run.report.imagesWithoutLibvips += 1
                return nil
            }
            guard let data = try bytes() else { return nil }
            facts = ImageHeader.facts(data) ?? Thumbnailer.probe(data)
            // Recorded in the store once, at the end of the build: no task
            // waits for the store's writer (which the search index holds
            // while it is built beside the pages).
            run.imageFacts.add(hash, facts)
        }
        guard let facts else {
            run.report.unreadableImages += 1
            return nil
        }
        let format = Thumbnailer.format(for: facts)
        var thumbnails: [(width: Int, path: String)] = []
        var keep = false
        for width in Thumbnailer.widths(for: facts) {
            let path = SitePaths.thumbnail(hash: hash, width: width, extension: format)
            if publisher.exists(path) {
                // Made into this folder before the store kept thumbnails (a
                // site from an earlier release): kept in the store too.
                if !store.readOnly, (try? store.hasThumbnail(hash: hash, width: width, format: format)) == false {
                    keep = true
                }
            } else {
                // Made by an earlier build (into this folder or another):
                // copied from the store. Only what is on the allowlist, and
                // is what its name says, goes out, from the store too.
                if let kept = try? store.thumbnail(hash: hash, width: width, format: format),
                    InertMedia.sniffed(kept, declared: format) == format
                {
                    try publisher.write(kept, to: path)
                    run.report.thumbnailsCopied += 1
                    run.report.written += 1
                    thumbnails.append((width, path))
                    continue
                }
                guard Thumbnailer.started else {
                    run.report.imagesWithoutLibvips += 1
                    break
                }
                guard let data = try bytes(), let thumbnail = Thumbnailer.thumbnail(data, width: width, format: format),
                    InertMedia.sniffed(thumbnail, declared: format) == format
                else {
                    run.report.unreadableImages += 1
                    break
                }
                try publisher.write(thumbnail, to: path)
                run.report.thumbnails += 1
                run.report.written += 1
                keep = true
            }
            thumbnails.append((width, path))
        }
        // Kept in the store at the end of the build (read back from the
        // folder's files), for builds into other folders.
        if keep { run.imageFacts.add(hash, facts, thumbnailsToKeep: true) }
        return ImageVariants(facts: facts, thumbnails: thumbnails)
    }
}

extension SiteBuilder {
    /// Records in the store what the build learnt of images: their facts,
    /// and the thumbnails it made or found in the folder and not in the
    /// store, read back from the folder's files (a file that is gone, or
    /// is not what its name says, is left out).
    func recordImages(_ log: ImageFactsLog) throws(ArchiveError) {
        try log.drain { entries throws(ArchiveError) in
            try store.recordImageFacts(entries.mapValues(\.facts))
            var made: [(hash: String, width: Int, format: String)] = []
            for (hash, entry) in entries.sorted(by: { $0.key < $1.key }) where entry.thumbnailsToKeep {
                guard let facts = entry.facts else { continue }
                let format = Thumbnailer.format(for: facts)
                for width in Thumbnailer.widths(for: facts) { made.append((hash, width, format)) }
            }
            try store.recordThumbnails(made) { hash, width, format in
                guard let data = publisher.read(SitePaths.thumbnail(hash: hash, width: width, extension: format)),
                    InertMedia.sniffed(data, declared: format) == format
                else { return nil }
                return data
            }
        }
    }
}

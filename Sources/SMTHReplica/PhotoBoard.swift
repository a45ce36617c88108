import CZlib
import Foundation

/// A board of large and tall images in the mobile site's markup, served
/// with `--photos` (`ReplicaFaults.photos`): what thumbnails and the tall
/// crop are tested against. Every byte is fixed, so tests can compare an
/// archive's files with `PhotoBoard.images`.
///
/// - thread 1: one post with ten photos of 1200×900 (each its own colours
///   and grain, so no two share bytes);
/// - thread 2: a long phone screenshot of 600×3600, a small image of 320×240
///   (no thumbnail: never enlarged), and `broken.png`, a PNG signature with
///   no image behind it.
public enum PhotoBoard {
    public static let name = "Photos"
    public static let title = "贴图"
    public static let photosGid = 1
    public static let screenshotGid = 2
    public static let photoCount = 10
    public static let photoSize = (width: 1200, height: 900)
    public static let screenshotSize = (width: 600, height: 3600)
    public static let smallSize = (width: 320, height: 240)
    public static let brokenName = "broken.png"

    static let day = "2026-08-02"

    /// One attachment of the board: its name, where it is served, its bytes.
    public struct Image: Sendable {
        public let gid: Int
        public let position: Int
        public let name: String
        public let bytes: Data
        var path: String { "/att/\(PhotoBoard.name)/\(gid)/\(position)" }
    }

    /// Every attachment of the board, drawn once.
    public static let images: [Image] = {
        var list = (1...photoCount).map { index in
            Image(
                gid: photosGid, position: index, name: String(format: "photo-%02d.png", index),
                bytes: draw(width: photoSize.width, height: photoSize.height, seed: UInt64(index)))
        }
        list.append(
            Image(
                gid: screenshotGid, position: 1, name: "screenshot.png",
                bytes: draw(width: screenshotSize.width, height: screenshotSize.height, seed: 100, bands: true)))
        list.append(
            Image(
                gid: screenshotGid, position: 2, name: "small.png",
                bytes: draw(width: smallSize.width, height: smallSize.height, seed: 101)))
        list.append(
            Image(
                gid: screenshotGid, position: 3, name: brokenName,
                bytes: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data("not an image at all".utf8)))
        return list
    }()

    static func respond(path: String, query: [(name: String, value: String)]) -> ReplicaResponse? {
        let parts = path.split(separator: "/").map(String.init)
        switch parts.first {
        case "board" where parts.count == 2 && parts[1] == name:
            return .html(boardPage())
        case "article" where parts.count == 3 && parts[1] == name:
            return Int(parts[2]).flatMap(thread)
        case "att" where parts.count >= 4 && parts[1] == name:
            guard let gid = Int(parts[2]), let position = Int(parts[3]),
                let image = images.first(where: { $0.gid == gid && $0.position == position })
            else { return nil }
            return ReplicaResponse(status: 200, contentType: "image/png", body: image.bytes)
        default:
            return nil
        }
    }

    static func boardPage() -> String {
        let pager = MobileMarkup.pager(
            action: "/board/\(name)", link: { "/board/\(name)?p=\($0)" }, current: 1, total: 1)
        var main = pager + #"<ul class="list sec">"#
        for (gid, title) in [(screenshotGid, "长截图"), (photosGid, "十张大图")] {
            main += #"<li><div><a href="/article/\#(name)/\#(gid)">\#(title)</a>(0)</div><div>"#
            main += "\(day)&nbsp;" + MobileMarkup.userLink("lens") + "|\(day)&nbsp;" + MobileMarkup.userLink("lens")
            main += "</div></li>"
        }
        main += "</ul>" + pager
        return MobileMarkup.page(menu: "版面-\(title)(\(name))|", main: main)
    }

    static func thread(_ gid: Int) -> ReplicaResponse? {
        let title: String
        switch gid {
        case photosGid: title = "十张大图"
        case screenshotGid: title = "长截图"
        default: return .html(MobileMarkup.articleMissing())
        }
        var body = "看图。"
        for image in images where image.gid == gid {
            let size = "\(max(1, image.bytes.count / 1024))KB"
            body += #"<br /><a href="\#(image.path)">单击此查看原图(\#(size))</a>"#
            body += #"<br /><img src="\#(image.path)/middle" alt="\#(image.name)" />"#
        }
        body += "<br />FROM 10.0.0.*"
        let base = "/article/\(name)/\(gid)"
        let pager = MobileMarkup.pager(action: base, link: { "\(base)?p=\($0)" }, current: 1, total: 1)
        var main = pager + #"<ul class="list sec"><li class="f">主题:\#(title)</li>"#
        main += #"<li><a name="a0"></a><div class="nav hl"><div><a class="plant">楼主</a>|"#
        main += MobileMarkup.userLink("lens") + "|"
        main += #"<a class="plant">\#(day) 09:00:00</a>|<a href="\#(base)?au=lens">只看此ID</a>"#
        main += #"</div></div><div class="sp">"# + body + "</div></li></ul>" + pager
        return .html(MobileMarkup.page(menu: #"<a href="/board/\#(name)">\#(title)</a>|主题"#, main: main))
    }

    /// A photo-like picture: a diagonal two-colour field with grain in every
    /// byte, so it compresses like a photo rather than a flat drawing;
    /// `bands` draws a screenshot's rows of text-like bars over it. Each row
    /// is a slice of one gradient strip, shifted from the row above, and the
    /// grain is added eight bytes at a time, which keeps the drawing cheap.
    static func draw(width: Int, height: Int, seed: UInt64, bands: Bool = false) -> Data {
        var rng = SeededRandom(seed: 0x5048_4F54, stream: seed)
        // At most 239 a channel, so that grain of up to 15 never carries.
        let a = (Int(rng.byte() % 224), Int(rng.byte() % 224), Int(rng.byte() % 224))
        let b = (Int(rng.byte() % 224), Int(rng.byte() % 224), Int(rng.byte() % 224))
        let shift = 7
        let stripLength = width + shift * height
        var strip = [UInt8](repeating: 0, count: stripLength * 3)
        for x in 0..<stripLength {
            let t = x * 1024 / stripLength
            strip[x * 3] = UInt8((a.0 * (1024 - t) + b.0 * t) / 1024)
            strip[x * 3 + 1] = UInt8((a.1 * (1024 - t) + b.1 * t) / 1024)
            strip[x * 3 + 2] = UInt8((a.2 * (1024 - t) + b.2 * t) / 1024)
        }
        let rowBytes = width * 3
        var rgb = [UInt8]()
        rgb.reserveCapacity(rowBytes * height)
        for y in 0..<height {
            let offset = (stripLength - width - y * shift) * 3
            if bands, (y % 48) >= 12, (y % 48) < 30 {
                let end = width - 24 - (y / 48 % 5) * 60
                rgb.append(contentsOf: strip[offset..<offset + 24 * 3])
                rgb.append(contentsOf: repeatElement(40, count: (end - 24) * 3))
                rgb.append(contentsOf: strip[offset + end * 3..<offset + rowBytes])
            } else {
                rgb.append(contentsOf: strip[offset..<offset + rowBytes])
            }
        }
        var noise = rng.next() | 1
        rgb.withUnsafeMutableBytes { bytes in
            let words = bytes.count / 8
            guard let base = bytes.baseAddress, words > 0 else { return }
            let pointer = base.assumingMemoryBound(to: UInt64.self)
            for index in 0..<words {
                noise ^= noise << 13
                noise ^= noise >> 7
                noise ^= noise << 17
                pointer[index] &+= noise & 0x0F0F_0F0F_0F0F_0F0F
            }
        }
        // Rows as PNG wants them: a filter byte (0, none), then the pixels.
        var raw = [UInt8]()
        raw.reserveCapacity(height * (rowBytes + 1))
        for y in 0..<height {
            raw.append(0)
            raw.append(contentsOf: rgb[y * rowBytes..<(y + 1) * rowBytes])
        }
        return png(width: width, height: height, rows: raw)
    }

    /// A truecolour PNG of filtered rows, deflated by zlib.
    static func png(width: Int, height: Int, rows: [UInt8]) -> Data {
        var bound = compressBound(uLong(rows.count))
        var deflated = [UInt8](repeating: 0, count: Int(bound))
        guard compress2(&deflated, &bound, rows, uLong(rows.count), Z_BEST_SPEED) == Z_OK else { return Data() }
        deflated.removeSubrange(Int(bound)...)
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let named = Array(type.utf8) + body
            let crc = UInt32(named.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
            return bigEndian(UInt32(body.count)) + named + bigEndian(crc)
        }
        func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", header)
        png += chunk("IDAT", deflated)
        png += chunk("IEND", [])
        return Data(png)
    }
}

import Foundation

/// The forum's emoticon images, `/img/ubb/{em,ema,emb,emc,emd}/{n}.gif`:
/// a one-pixel GIF whose colour says which one it is. Numbers above 199
/// are not there (404), as an unknown code on the real site.
enum EmoticonImages {
    static let families = ["em", "ema", "emb", "emc", "emd"]

    /// The GIF at `/img/ubb/{family}/{file}`, or nil.
    static func image(family: String, file: String) -> Data? {
        guard let familyIndex = families.firstIndex(of: family), file.hasSuffix(".gif"),
            let number = Int(file.dropLast(4)), (0...199).contains(number), String(number) == file.dropLast(4)
        else { return nil }
        let red = UInt8(truncatingIfNeeded: number &* 37)
        let green = UInt8(truncatingIfNeeded: familyIndex &* 51)
        let blue = UInt8(truncatingIfNeeded: 255 &- number)
        var bytes = Array("GIF89a".utf8)
        bytes += [1, 0, 1, 0, 0x80, 0, 0]  // 1×1, a two-colour palette
        bytes += [red, green, blue, 0, 0, 0]
        bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]  // the image, at 0,0, 1×1
        bytes += [2, 2, 0x44, 0x01, 0]  // LZW: one pixel of colour 0
        bytes += [0x3B]
        return Data(bytes)
    }
}

import Foundation

/// A small picture described by a few random numbers rather than by pixels,
/// so the server can redraw it at thumbnail sizes (`/middle`, `/small`) and
/// two posts can share byte-identical images by sharing a pattern.
struct ImagePattern: Sendable {
    enum Kind: Int, Sendable, CaseIterable {
        case gradient, checker, stripes, disc
    }

    var width: Int
    var height: Int
    var kind: Kind
    var colors: [(UInt8, UInt8, UInt8)]
    /// Cell or stripe size, in 1/16 of the image width.
    var cell: Int

    static func random(using rng: inout SeededRandom) -> ImagePattern {
        let colors = (0..<3).map { _ in (rng.byte(), rng.byte(), rng.byte()) }
        return ImagePattern(
            width: rng.int(16...48),
            height: rng.int(16...48),
            kind: Kind(rawValue: rng.below(Kind.allCases.count)) ?? .gradient,
            colors: colors,
            cell: rng.int(2...6))
    }

    /// The full-size PNG.
    func png() -> Data {
        render(width: width, height: height)
    }

    /// A thumbnail: `divisor` 2 for `/middle`, 4 for `/small`. Always smaller
    /// than the original, hence always different bytes.
    func thumbnail(divisor: Int) -> Data {
        render(width: max(4, width / divisor), height: max(4, height / divisor))
    }

    /// Draws the pattern in coordinates relative to the image size, so a
    /// thumbnail looks like a shrunk original.
    private func render(width w: Int, height h: Int) -> Data {
        let c0 = colors.first ?? (0, 0, 0)
        let c1 = colors.count > 1 ? colors[1] : (255, 255, 255)
        let c2 = colors.count > 2 ? colors[2] : (128, 128, 128)
        var rgb = [UInt8]()
        rgb.reserveCapacity(w * h * 3)
        // Work in 1/1024 units of the image size.
        for y in 0..<h {
            let v = y * 1024 / h
            for x in 0..<w {
                let u = x * 1024 / w
                let color: (UInt8, UInt8, UInt8)
                switch kind {
                case .gradient:
                    color = Self.mix(c0, c1, u)
                case .checker:
                    let size = cell * 64
                    color = ((u / size) + (v / size)) % 2 == 0 ? c0 : c1
                case .stripes:
                    let size = cell * 64
                    color = ((u + v) / size) % 2 == 0 ? c0 : c2
                case .disc:
                    let du = u - 512, dv = v - 512
                    color = du * du + dv * dv < 300 * 300 ? c2 : Self.mix(c0, c1, v)
                }
                rgb.append(color.0)
                rgb.append(color.1)
                rgb.append(color.2)
            }
        }
        return PNGEncoder.encodeRGB(width: w, height: h, rgb: rgb) ?? Data()
    }

    private static func mix(
        _ a: (UInt8, UInt8, UInt8), _ b: (UInt8, UInt8, UInt8), _ t: Int
    ) -> (UInt8, UInt8, UInt8) {
        func lerp(_ p: UInt8, _ q: UInt8) -> UInt8 {
            UInt8(clamping: (Int(p) * (1024 - t) + Int(q) * t) / 1024)
        }
        return (lerp(a.0, b.0), lerp(a.1, b.1), lerp(a.2, b.2))
    }
}

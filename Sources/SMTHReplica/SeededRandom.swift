/// SplitMix64: tiny, fast, and fully specified, so a seed produces the same
/// stream on every platform and Swift version (the standard library's
/// generator is neither seedable nor stable).
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// A generator for one part of the forum (a board, the user pool), so that
    /// each part can be generated alone, in any order, with the same result.
    init(seed: UInt64, stream: UInt64) {
        var mixer = SeededRandom(seed: seed ^ (stream &* 0xD6E8_FEB8_6659_FD93))
        state = mixer.next() ^ stream
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<bound`; 0 when the bound is not positive.
    mutating func below(_ bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        // Multiply-high maps 64 random bits onto the range without a division;
        // the bias is far below anything a test could notice.
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// Uniform in `range`; the lower bound when the range is inverted.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// Uniform in `low...high`, tolerating `high < low` (gives `low`).
    mutating func int(from low: Int, to high: Int) -> Int {
        high <= low ? low : low + below(high - low + 1)
    }

    mutating func int64(from low: Int64, to high: Int64) -> Int64 {
        guard high > low else { return low }
        let span = UInt64(high - low) &+ 1
        if span == 0 { return low &+ Int64(bitPattern: next()) }
        return low + Int64(next().multipliedFullWidth(by: span).high)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    /// A random element; `fallback` only for an empty array.
    mutating func pick<T>(_ items: [T], or fallback: T) -> T {
        items.isEmpty ? fallback : items[below(items.count)]
    }

    mutating func byte() -> UInt8 {
        UInt8(truncatingIfNeeded: next() >> 56)
    }
}

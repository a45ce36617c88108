import Foundation

extension StringProtocol {
    /// Whether every scalar is in `CharacterSet.whitespaces` (tab and the
    /// space separators): the same answer as
    /// `trimmingCharacters(in: .whitespaces).isEmpty`, without bridging to
    /// `NSString` and copying the line (the build asks it of every line).
    var isBlankLine: Bool {
        unicodeScalars.allSatisfy(Unicode.Scalar.isBlank)
    }
}

extension Unicode.Scalar {
    /// Whether `scalar` is in `CharacterSet.whitespaces`. Its members
    /// outside ASCII all lie in U+00A0…U+3000 (`BlankLineTests` asks every
    /// scalar), so CJK text (U+3001 on) is answered by one comparison: the
    /// set's `contains` took about 700 instructions a scalar, and Markdown
    /// asks it of the first character of every line of every post.
    @inline(__always)
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20, 0x09: true
        case 0xA0...0x3000: CharacterSet.whitespaces.contains(scalar)
        default: false
        }
    }
}

extension String {
    /// The string with zeros before it up to `width` characters (numbers
    /// in dates, hashes and file names).
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    /// Whether `byte` is one of the string's UTF-8 code units: `memchr`
    /// over its bytes (a native string's are contiguous), for the cheap
    /// first looks the build takes at every line.
    func containsUTF8(_ byte: UInt8) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, Int32(byte), bytes.count) != nil
        }) {
            return found
        }
        return utf8.contains(byte)
    }

    /// Whether the UTF-8 bytes of `needle` (ASCII) occur in the string: a
    /// cheap first look, without bridging to `NSString`. It finds every
    /// place `contains(_:)` finds, and may find more (before a combining
    /// mark), so it only decides whether to look closer.
    func mayContainASCII(_ needle: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let first = pattern.first else { return true }
        var string = self
        return string.withUTF8 { bytes in
            guard bytes.count >= pattern.count, let base = bytes.baseAddress else { return false }
            // `memchr` to each place the first byte is (the needles' first
            // bytes, `:` and `w`, are rare in post text), then the rest.
            var index = 0
            let last = bytes.count - pattern.count
            while index <= last, let found = memchr(base + index, Int32(first), last - index + 1) {
                index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                var offset = 1
                while offset < pattern.count, bytes[index + offset] == pattern[offset] { offset += 1 }
                if offset == pattern.count { return true }
                index += 1
            }
            return false
        }
    }
}

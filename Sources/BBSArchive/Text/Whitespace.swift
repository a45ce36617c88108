import Foundation

extension StringProtocol {
    /// Whether every scalar is in `CharacterSet.whitespaces` (tab and the
    /// space separators): the same answer as
    /// `trimmingCharacters(in: .whitespaces).isEmpty`, without bridging to
    /// `NSString` and copying the line (the build asks it of every line).
    var isBlankLine: Bool {
        unicodeScalars.allSatisfy(\.isBlank)
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is in `CharacterSet.whitespaces`: tab, the space
    /// separators and U+200B (BlankLineTests checks every scalar).
    var isBlank: Bool {
        switch value {
        case 0x20, 0x09, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// Whether the scalar is in `CharacterSet.whitespacesAndNewlines`: the
    /// blanks, LF, VT, FF, CR, U+0085, U+2028 and U+2029.
    var isBlankOrNewline: Bool {
        switch value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: isBlank
        }
    }
}

extension String {
    /// `trimmingCharacters(in: .whitespaces)`: the same string, without
    /// bridging to `NSString`, and not copied when neither end is a blank.
    /// Foundation's took about 20,000 instructions a call (a build after
    /// one reply asked it 803 times for the hot cards' excerpts: 16 M of
    /// the build's 258 M).
    var trimmingBlanks: String { trimmingScalars(where: \.isBlank) }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)`, the same way.
    var trimmingBlanksAndNewlines: String { trimmingScalars(where: \.isBlankOrNewline) }

    /// The string without the scalars at either end that `trimmed` says go.
    func trimmingScalars(where trimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !trimmed($0) }),
            let last = scalars.lastIndex(where: { !trimmed($0) })
        else { return "" }
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return self }
        return String(scalars[first...last])
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

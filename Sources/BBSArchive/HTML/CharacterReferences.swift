import Foundation

/// Numeric character references read as a browser reads them, where
/// libxml2 reads them otherwise, and a surrogate pair as the character it
/// spells.
///
/// A page is the forum's view of a post: what a reader saw there is what
/// the archive must keep. libxml2 2.9 drops a reference to a code point
/// that XML cannot hold and keeps a C1 control where a browser shows a
/// character (measured with `xmllint --html`):
///
/// - a lone surrogate, `&#0;` and a number past U+10FFFF vanished; a
///   browser shows U+FFFD (HTML's numeric character reference end state);
/// - `&#128;` to `&#159;` became C1 controls (nothing to see); a browser
///   reads them as windows-1252 (`&#150;` is –, `&#128;` is €);
/// - a UTF-16 surrogate pair written as two references
///   (`&#55357;&#56832;`, as a script that escapes by UTF-16 code units
///   writes 😀) vanished. A browser shows two U+FFFD for it; the archive
///   keeps the one character the pair spells, which is what the author
///   wrote (the one place it reads a page better than a browser).
///
/// Named references too: libxml2 knows HTML 4's names, each with its `;`,
/// where a browser also reads
///
/// - `&AMP;`, `&LT;`, `&GT;`, `&QUOT;`, `&COPY;` and `&REG;` (libxml2 kept
///   them as written);
/// - the names it reads without a `;` (`&lt`, `&amp`, `&nbsp`, `&copy`, the
///   Latin-1 letters), where the next character is neither a letter, a
///   digit nor `=`. That is the rule for an attribute's value; in text a
///   browser reads `&notit` as `¬it` too, which is left as written here.
///
/// HTML 5's other names (`&Tab;`, `&check;`) stay as written: the forum
/// writes none of them, and a reader's own `&` reaches the page as `&amp;`.
///
/// These are written again as the references that reading comes to,
/// before libxml2 parses the page; every other byte stays.
enum CharacterReferences {
    /// `utf8` with the references above rewritten; the same bytes, not a
    /// copy, when it holds none.
    static func asBrowsersRead(_ utf8: Data) -> Data {
        let rewritten: [UInt8]? = utf8.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, !raw.isEmpty else { return nil }
            return rewrite(UnsafeRawBufferPointer(start: base, count: raw.count).bindMemory(to: UInt8.self))
        }
        return rewritten.map { Data($0) } ?? utf8
    }

    /// The rewritten bytes, or `nil` when nothing needs rewriting.
    static func rewrite(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let base = bytes.baseAddress else { return nil }
        var output: [UInt8]?
        var copied = 0
        var at = 0
        while at < bytes.count {
            guard let found = memchr(base + at, 0x26, bytes.count - at) else { break }
            let ampersand = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            guard let reference = reference(in: bytes, at: ampersand) ?? named(in: bytes, at: ampersand) else {
                at = ampersand + 1
                continue
            }
            var end = reference.end
            let replacement: UInt32?
            switch reference.value {
            case 0xD800...0xDBFF:
                if let low = Self.reference(in: bytes, at: end), (0xDC00...0xDFFF).contains(low.value) {
                    replacement = 0x10000 + ((reference.value - 0xD800) << 10) + (low.value - 0xDC00)
                    end = low.end
                } else {
                    replacement = 0xFFFD
                }
            case 0, 0xDC00...0xDFFF, 0x110000...:
                replacement = 0xFFFD
            case 0x80...0x9F where reference.numeric:
                let mapped = windows1252[Int(reference.value - 0x80)]
                replacement = mapped == 0 ? nil : UInt32(mapped)
            case _ where !reference.numeric:
                replacement = reference.value
            default:
                replacement = nil
            }
            if let replacement {
                if output == nil {
                    output = []
                    output?.reserveCapacity(bytes.count + 16)
                }
                output?.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<ampersand]))
                output?.append(contentsOf: Array("&#x\(String(replacement, radix: 16, uppercase: true));".utf8))
                copied = end
            }
            at = end
        }
        guard var output else { return nil }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
        return output
    }

    /// The numeric reference that starts at `ampersand` (`&#N`, `&#xH`,
    /// with or without its `;`): its value (0x110000 for any number past
    /// U+10FFFF) and where it ends.
    static func reference(in bytes: UnsafeBufferPointer<UInt8>, at ampersand: Int) -> (
        value: UInt32, end: Int, numeric: Bool
    )? {
        guard ampersand < bytes.count, bytes[ampersand] == UInt8(ascii: "&") else { return nil }
        var at = ampersand + 1
        guard at < bytes.count, bytes[at] == UInt8(ascii: "#") else { return nil }
        at += 1
        let hex = at < bytes.count && (bytes[at] | 0x20) == UInt8(ascii: "x")
        if hex { at += 1 }
        let start = at
        var value: UInt32 = 0
        while at < bytes.count {
            let byte = bytes[at]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: digit = 16
            }
            if digit == 16 { break }
            value = min(0x110000, value * (hex ? 16 : 10) + digit)
            at += 1
        }
        guard at > start else { return nil }
        if at < bytes.count, bytes[at] == UInt8(ascii: ";") { at += 1 }
        return (value, at, true)
    }

    /// The named reference that starts at `ampersand`, when it is one that
    /// a browser reads and libxml2 does not (see the type's notes): its
    /// value and where it ends.
    static func named(in bytes: UnsafeBufferPointer<UInt8>, at ampersand: Int) -> (
        value: UInt32, end: Int, numeric: Bool
    )? {
        func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) }
        var at = ampersand + 1
        var key: UInt64 = 0
        while at < bytes.count, at - ampersand <= 7 {
            let byte = bytes[at]
            guard isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { break }
            key = key << 8 | UInt64(byte)
            at += 1
        }
        guard at > ampersand + 1, at - ampersand <= 7 else { return nil }
        let next = at < bytes.count ? bytes[at] : 0
        if next == UInt8(ascii: ";") {
            guard let value = upperCaseNames[key] else { return nil }
            return (value, at + 1, false)
        }
        guard next != UInt8(ascii: "="), !isLetter(next), let value = namesWithoutSemicolon[key] else { return nil }
        return (value, at, false)
    }

    /// A name's bytes, packed as `named(in:at:)` reads them.
    private static func key(_ name: String) -> UInt64 { name.utf8.reduce(0) { $0 << 8 | UInt64($1) } }

    /// The names in upper case that HTML 5 adds to HTML 4's (`&AMP;`).
    private static let upperCaseNames: [UInt64: UInt32] = [
        key("AMP"): 0x26, key("LT"): 0x3C, key("GT"): 0x3E, key("QUOT"): 0x22, key("COPY"): 0xA9, key("REG"): 0xAE,
    ]

    /// The names a browser reads without their `;`: those above and their
    /// lower-case forms, and Latin-1's, U+00A0 to U+00FF in order.
    private static let namesWithoutSemicolon: [UInt64: UInt32] = {
        var names = upperCaseNames
        for (name, value) in [("amp", 0x26), ("lt", 0x3C), ("gt", 0x3E), ("quot", 0x22)] {
            names[key(name)] = UInt32(value)
        }
        let latin1 = """
            nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr \
            deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest \
            Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml \
            ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig \
            agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml \
            eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml
            """
        for (offset, name) in latin1.split(separator: " ").enumerated() {
            names[key(String(name))] = 0xA0 + UInt32(offset)
        }
        return names
    }()

    /// What a browser reads `&#128;` to `&#159;` as (HTML's table of
    /// windows-1252); 0 where it keeps the number as it is.
    static let windows1252: [UInt16] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]
}

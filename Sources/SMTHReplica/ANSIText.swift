/// The ANSI colour codes (SGR, `ESC [ … m`) that BBS posts carry in their raw
/// text, and the two ways the front ends show them: the mobile site drops
/// them, nForum turns them into `<font class="fXYZ">`.
enum ANSIText {
    static let escape: Character = "\u{1B}"

    /// One piece of a line: visible text or a control sequence.
    enum Piece: Equatable {
        case text(Character)
        /// The numeric parameters of an SGR sequence; `[]` for `ESC[m`.
        case sgr([Int])
    }

    /// Splits a line into characters and SGR sequences. Other control
    /// sequences (cursor movement, which old posts sometimes hold) and a
    /// lone ESC are dropped, as both front ends drop them.
    static func pieces(_ line: String) -> [Piece] {
        guard line.contains(escape) else { return line.map(Piece.text) }
        var pieces = [Piece]()
        let characters = Array(line)
        var i = 0
        while i < characters.count {
            let c = characters[i]
            guard c == escape else {
                pieces.append(.text(c))
                i += 1
                continue
            }
            guard i + 1 < characters.count, characters[i + 1] == "[" else {
                i += 1
                continue
            }
            // Parameters and intermediates run until a final byte in @…~.
            var j = i + 2
            var parameters = ""
            var final: Character?
            while j < characters.count {
                let d = characters[j]
                if let ascii = d.asciiValue, (0x40...0x7E).contains(ascii) {
                    final = d
                    break
                }
                parameters.append(d)
                j += 1
            }
            guard let final else { break }  // an unfinished sequence ends the line
            if final == "m" {
                let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                pieces.append(.sgr(parameters.isEmpty ? [] : numbers))
            }
            i = j + 1
        }
        return pieces
    }

    /// The line without any control sequence: what the mobile site shows.
    static func strip(_ line: String) -> String {
        guard line.contains(escape) else { return line }
        var out = ""
        for case .text(let c) in pieces(line) { out.append(c) }
        return out
    }

    /// The colour state a terminal keeps while it reads SGR sequences.
    struct Colour: Equatable {
        var bold = false
        var foreground: Int?
        var background: Int?

        var isDefault: Bool { self == Colour() }

        mutating func apply(_ parameters: [Int]) {
            for p in parameters.isEmpty ? [0] : parameters {
                switch p {
                case 0: self = Colour()
                case 1: bold = true
                case 22: bold = false
                case 30...37: foreground = p - 30
                case 39: foreground = nil
                case 40...47: background = p - 40
                case 49: background = nil
                default: break  // underline, blink, ...: no class of their own
                }
            }
        }

        /// nForum's class: `f` + background (0–7, 0 when none) + foreground
        /// as two digits (00–15; bold makes a colour bright, +8; no
        /// foreground reads as the default 7).
        var fontClass: String {
            let fg = (foreground ?? 7) + (bold ? 8 : 0)
            return "f\(background ?? 0)\(fg < 10 ? "0" : "")\(fg)"
        }
    }
}

import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// Colours of both themes pass WCAG AA (4.5:1 for text, 3:1 for the focus ring).
@Suite struct ContrastTests {
    static func palette(_ css: String, after marker: String) -> [String: String] {
        guard let start = css.range(of: marker), let end = css.range(of: "}", range: start.upperBound..<css.endIndex)
        else { return [:] }
        var colours: [String: String] = [:]
        for line in css[start.upperBound..<end.lowerBound].split(separator: "\n") {
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].hasPrefix("--") else { continue }
            colours[String(parts[0])] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " ;"))
        }
        return colours
    }

    static func luminance(_ hex: String) -> Double? {
        let digits = hex.dropFirst()
        guard hex.hasPrefix("#"), digits.count == 6, let value = Int(digits, radix: 16) else { return nil }
        func channel(_ shift: Int) -> Double {
            let c = Double((value >> shift) & 0xFF) / 255
            return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
    }

    static func ratio(_ a: String, _ b: String) -> Double {
        guard let x = luminance(a), let y = luminance(b) else { return 0 }
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test func bothThemesPassAA() throws {
        let css = try String(
            contentsOf: Fixtures.templates.appendingPathComponent("assets/style.css"), encoding: .utf8)
        let light = Self.palette(css, after: ":root[data-theme=\"light\"] {")
        let dark = Self.palette(css, after: ":root[data-theme=\"dark\"] {")
        let systemDark = Self.palette(css, after: ":root:not([data-theme=\"light\"]) {")
        #expect(!light.isEmpty && !dark.isEmpty)
        #expect(dark == systemDark, "the two copies of the dark palette differ")
        for (name, palette) in [("light", light), ("dark", dark)] {
            for text in ["--fg", "--muted", "--link", "--visited", "--accent", "--quote"] {
                for background in ["--bg", "--panel"] {
                    let value = Self.ratio(palette[text] ?? "", palette[background] ?? "")
                    #expect(value >= 4.5, "\(name): \(text) on \(background) is \(value):1")
                }
            }
            let focus = Self.ratio(palette["--focus"] ?? "", palette["--bg"] ?? "")
            #expect(focus >= 3, "\(name): the focus ring is \(focus):1")
        }
    }
}

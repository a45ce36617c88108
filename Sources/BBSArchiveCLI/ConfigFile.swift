import BBSArchive
import Foundation
import TOMLKit

/// `bbsarchive.toml`: the options of a daily run, so the command line can
/// be just `bbsarchive archive`.
///
/// Its keys are the long option names (`store`, `forum-url`, `stop-after`,
/// …) plus `boards`; an option given on the command line wins over the
/// file. Parsed by TOMLKit; every key and type is checked up front, and a
/// mistake is one line naming the file and line.
struct ConfigFile {
    static let defaultName = "bbsarchive.toml"

    enum Kind: String {
        case string = "a string in quotes"
        case integer = "a whole number"
        case number = "a number"
        case boolean = "true or false"
        case strings = "a list of strings, e.g. [\"Geography\", \"WorkLife\"]"
    }

    /// Every key a config file may have, with the type of its value.
    static let keys: [String: Kind] = [
        "boards": .strings, "source": .string, "forum-url": .string, "store": .string, "out": .string,
        "templates": .string, "site-url": .string, "cookies": .string, "pages": .integer, "rate": .number,
        "connections": .integer, "stop-after": .integer, "tries": .integer, "timeout": .integer,
        "max-thread-pages": .integer, "media-host": .strings,
        "ignore-robots": .boolean, "log-format": .string, "quiet": .boolean, "full": .boolean, "wait": .boolean,
    ]

    /// Keys whose values are paths: relative ones are relative to the file's folder.
    static let pathKeys: Set<String> = ["store", "out", "templates", "cookies"]

    /// The file read, or `nil` when there is none.
    let path: String?
    private var text = ""
    private var values: [String: any TOMLValueConvertible] = [:]

    static var none: ConfigFile { ConfigFile(path: nil) }

    private init(path: String?) {
        self.path = path
    }

    /// Reads `--config FILE`, or `./bbsarchive.toml` when it exists.
    static func load(explicit: String?) throws(ArchiveError) -> ConfigFile {
        let path: String
        if let explicit {
            path = explicit
        } else if FileManager.default.fileExists(atPath: defaultName) {
            path = defaultName
        } else {
            return .none
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "it cannot be read" : "there is no such file"
            throw .unreadableFile(path: path, reason: reason + (explicit != nil ? " (--config)" : ""))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .invalidOption("\(path): the config file is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    static func parse(_ text: String, path: String) throws(ArchiveError) -> ConfigFile {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw .invalidOption("\(path):\(error.source.begin.line): \(error.description)")
        } catch {
            throw .invalidOption("\(path): \(error)")
        }
        var config = ConfigFile(path: path)
        config.text = text
        for key in table.keys.sorted(by: { line(of: $0, in: text) < line(of: $1, in: text) }) {
            guard let value = table[key] else { continue }
            let line = line(of: key, in: text)
            let place = "\(path):\(line)"
            guard let kind = keys[key] else {
                if value.table != nil {
                    throw .invalidOption(
                        "\(place): [\(key)] sections are not used; put each key = value at the top of the file")
                }
                let near = keys.keys.filter { $0.replacingOccurrences(of: "-", with: "_") == key }.first
                let hint = near.map { " (did you mean \"\($0)\"?)" } ?? ""
                throw .invalidOption(
                    "\(place): unknown key \"\(key)\"\(hint); the keys are \(keys.keys.sorted().joined(separator: ", "))"
                )
            }
            guard Self.value(value, is: kind) else {
                throw .invalidOption("\(place): \"\(key)\" must be \(kind.rawValue), not \(describe(value))")
            }
            config.values[key] = value
        }
        return config
    }

    private static func value(_ value: any TOMLValueConvertible, is kind: Kind) -> Bool {
        switch kind {
        case .string: return value.string != nil
        case .integer: return value.int != nil
        case .number: return value.int != nil || value.double != nil
        case .boolean: return value.bool != nil
        case .strings: return value.array.map { $0.allSatisfy { $0.string != nil } } ?? false
        }
    }

    private static func describe(_ value: any TOMLValueConvertible) -> String {
        switch value.type {
        case .string: return "a string"
        case .int: return "a whole number"
        case .double: return "a number"
        case .bool: return "true or false"
        case .array: return "a list" + (value.array?.isEmpty == false ? " of other things" : "")
        case .table: return "a table"
        default: return "a date or time"
        }
    }

    /// The line a top-level key is set on (TOMLKit does not tell where a
    /// value was, only where a syntax error is).
    static func line(of key: String, in text: String) -> Int {
        let forms = [key, "\"\(key)\"", "'\(key)'"]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            for form in forms where trimmed.hasPrefix(form) {
                let rest = trimmed.dropFirst(form.count).drop { $0 == " " || $0 == "\t" }
                if rest.hasPrefix("=") || rest.hasPrefix(".") { return index + 1 }
            }
            if trimmed.hasPrefix("[\(key)]") { return index + 1 }
        }
        return 1
    }

    /// `file:line` of a key, for errors about its value.
    func place(of key: String) -> String {
        "\(path ?? Self.defaultName):\(Self.line(of: key, in: text))"
    }

    // MARK: Values

    func string(_ key: String) -> String? {
        guard let value = values[key]?.string else { return nil }
        if Self.pathKeys.contains(key) { return resolve(value) }
        return value
    }

    func int(_ key: String) -> Int? { values[key]?.int }

    func double(_ key: String) -> Double? {
        guard let value = values[key] else { return nil }
        return value.double ?? value.int.map(Double.init)
    }

    func bool(_ key: String) -> Bool? { values[key]?.bool }

    func strings(_ key: String) -> [String]? {
        values[key]?.array?.compactMap { $0.string }
    }

    /// A relative path of the file is relative to the file's own folder.
    private func resolve(_ value: String) -> String {
        guard let path, !value.hasPrefix("/"), !value.isEmpty else { return value }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        if folder.path == FileManager.default.currentDirectoryPath { return value }
        let resolved = folder.appendingPathComponent(value).path
        // `cookies` may be a Cookie header value rather than a file.
        if value.contains("=") && !FileManager.default.fileExists(atPath: resolved) { return value }
        return resolved
    }
}

import Foundation
import Mustache

/// The Mustache templates (and static assets) a site is rendered with.
///
/// Loaded from a folder (the project's `templates/` or the user's
/// `--templates DIR`) with every page template and the strings table
/// (`strings.toml`) checked up front, so a broken template or table
/// fails the build before anything is written.
package struct TemplateSet: Sendable {
    /// The page templates every template folder must provide.
    package static let required = [
        "home", "section", "board", "thread", "user", "hot", "lookup", "search", "404", "sidebar", "threadlist",
        "threadlist-row",
        "post-body",
        "feed",
        "sitemap", "sitemap-index",
    ]

    /// Which renderer pages go through: the project's own (`compiled`,
    /// the default) or swift-mustache (`reference`), which tests compare
    /// it with byte for byte.
    package enum Engine: Sendable {
        case compiled
        case reference
    }

    package let directory: URL
    package let engine: Engine
    /// swift-mustache's parse of the templates, for the `reference` engine only.
    let library: MustacheLibrary?
    let compiled: CompiledTemplates
    /// Every file of the folder, in order: its path relative to the folder
    /// and its bytes (`nil` when it cannot be read). Walked and read once,
    /// when the set is loaded, for the templates, the build's fingerprint
    /// and the assets (`assets/…`) alike: three walks and two reads of the
    /// folder were 4 % of the CPU of a build after one reply (issue 10).
    let files: [(path: String, data: Data?)]
    /// The words the program writes itself, from the folder's
    /// `strings.toml` (`SiteStrings`).
    package let strings: SiteStrings

    package init(directory: URL, engine: Engine = .compiled) async throws(ArchiveError) {
        self.directory = directory
        self.engine = engine
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .templates(path: directory.path, reason: "the folder does not exist")
        }
        files = Self.read(directory)
        (library, compiled) = try Self.load(directory, files: files, reference: engine == .reference)
        strings = try Self.strings(directory, files: files)
        for name in Self.required where !compiled.has(name) {
            throw .templates(path: directory.path, reason: "\(name).mustache is missing")
        }
    }

    /// Parses every `.mustache` file of the folder, each under the
    /// project's own escaper (`MarkupEscaper`), which a template cannot
    /// switch off: the pragma is put in front of its text. Each is parsed
    /// by the project's own renderer, which refuses what it does not
    /// support with the file and line (and by swift-mustache too for the
    /// `reference` engine).
    private static func load(
        _ directory: URL, files: [(path: String, data: Data?)], reference: Bool
    ) throws(ArchiveError) -> (MustacheLibrary?, CompiledTemplates) {
        MarkupEscaper.registered
        let pragma = "{{% CONTENT_TYPE: \(MarkupEscaper.contentTypeName)}}"
        var library: MustacheLibrary? = reference ? MustacheLibrary() : nil
        var compiled = CompiledTemplates()
        for (relative, data) in files where relative.hasSuffix(".mustache") {
            guard let data, let text = String(data: data, encoding: .utf8) else {
                throw .templates(path: directory.path, reason: "\(relative) cannot be read as UTF-8")
            }
            let name = String(relative.dropLast(".mustache".count))
            do {
                try compiled.register(pragma + text, named: name)
            } catch {
                throw .templates(path: directory.path, reason: "\(relative), line \(error.line): \(error.reason)")
            }
            do {
                try library?.register(pragma + text, named: name)
            } catch {
                throw .templates(path: directory.path, reason: "\(relative) does not parse (\(error))")
            }
        }
        return (library, compiled)
    }

    /// Reads `strings.toml` from the folder's files.
    private static func strings(_ directory: URL, files: [(path: String, data: Data?)]) throws(ArchiveError)
        -> SiteStrings
    {
        let name = SiteStrings.fileName
        guard let file = files.first(where: { $0.path == name }) else {
            throw .templates(path: directory.path, reason: "\(name) is missing")
        }
        guard let data = file.data else { throw .templates(path: directory.path, reason: "\(name) cannot be read") }
        do {
            return try SiteStrings(data: data)
        } catch {
            throw .templates(path: directory.path, reason: "\(name) \(error.text)")
        }
    }

    /// Renders a template with its view.
    func render(_ name: String, _ context: some TemplateView) throws(ArchiveError) -> String {
        switch engine {
        case .compiled: String(decoding: try bytes(name, context), as: UTF8.self)
        case .reference: try referenceText(name, context)
        }
    }

    /// Renders a template with its view, as UTF-8 bytes; `capacity` is
    /// what the output reserves up front (a page's worth by default).
    func bytes(_ name: String, _ context: some TemplateView, capacity: Int = 16 * 1024) throws(ArchiveError)
        -> [UInt8]
    {
        switch engine {
        case .compiled:
            guard let bytes = compiled.render(name, context, capacity: capacity) else {
                throw .templates(path: directory.path, reason: "\(name).mustache is missing")
            }
            return bytes
        case .reference: return Array(try referenceText(name, context).utf8)
        }
    }

    /// Renders a template with its view and hands the UTF-8 bytes to
    /// `write` where they were rendered (no copy of them is made); returns
    /// what `write` returns.
    func write(
        _ name: String, _ context: some TemplateView, capacity: Int = 16 * 1024,
        _ write: (UnsafeBufferPointer<UInt8>) -> Result<Bool, ArchiveError>
    ) throws(ArchiveError) -> Bool {
        let written: Result<Bool, ArchiveError>?
        switch engine {
        case .compiled: written = compiled.withRendered(name, context, capacity: capacity, write)
        case .reference: written = Array(try referenceText(name, context).utf8).withUnsafeBufferPointer(write)
        }
        guard let written else { throw .templates(path: directory.path, reason: "\(name).mustache is missing") }
        return try written.get()
    }

    private func referenceText(_ name: String, _ context: some TemplateView) throws(ArchiveError) -> String {
        guard let text = library?.render(context, withTemplate: name) else {
            throw .templates(path: directory.path, reason: "\(name).mustache is missing")
        }
        return text
    }

    /// Every file of the folder with its bytes, in order.
    private static func read(_ directory: URL) -> [(path: String, data: Data?)] {
        files(under: directory).map { relative in
            (relative, FileManager.default.contents(atPath: directory.appendingPathComponent(relative).path))
        }
    }

    /// The regular files under `directory` (links in it are not
    /// followed), relative to it, in order: a walk with `readdir`, each
    /// entry's type from the walk itself. FileManager's enumerator and its
    /// attribute dictionaries were 1.1 ms of a 45 ms no-change build's CPU.
    private static func files(under directory: URL) -> [String] {
        var paths: [String] = []
        func walk(_ folder: String, prefix: String) {
            guard let stream = opendir(folder) else { return }
            defer { closedir(stream) }
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                var type = Int(entry.pointee.d_type)
                let path = folder + "/" + name
                if type == Int(DT_UNKNOWN) {
                    // Some file systems leave the type to a stat (not following links).
                    var status = stat()
                    guard lstat(path, &status) == 0 else { continue }
                    switch Int(status.st_mode) & Int(S_IFMT) {
                    case Int(S_IFREG): type = Int(DT_REG)
                    case Int(S_IFDIR): type = Int(DT_DIR)
                    default: continue
                    }
                }
                if type == Int(DT_REG) {
                    paths.append(prefix + name)
                } else if type == Int(DT_DIR) {
                    walk(path, prefix: prefix + name + "/")
                }
            }
        }
        walk(directory.path, prefix: "")
        return paths.sorted()
    }

    /// Finds the templates folder when neither `--templates` nor the
    /// config file names one: beside the program (`templates/`), then an
    /// installed copy's `../share/bbsarchive/templates`, then the source
    /// checkout's `templates/` (the program is in `.build/…/debug`).
    package static func defaultDirectory(executable: String? = nil) -> URL? {
        candidates(executable: executable ?? runningExecutable()).first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("home.mustache").path)
        }
    }

    /// The folders looked in, in order.
    static func candidates(executable: String) -> [URL] {
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [
            binary.appendingPathComponent("templates"),
            binary.deletingLastPathComponent().appendingPathComponent("share/bbsarchive/templates"),
        ]
        var folder = binary.deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(folder.appendingPathComponent("templates"))
            folder.deleteLastPathComponent()
        }
        return candidates
    }

    /// The running program's own file, however it was started (by a
    /// relative path, through `PATH` or a symlink).
    static func runningExecutable() -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        if let path = Bundle.main.executablePath { return path }
        return URL(fileURLWithPath: CommandLine.arguments.first ?? "").path
    }
}

import ArgumentParser
import BBSArchive
import Foundation

/// `bbsarchive export`: the archive in formats other archives load.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the store's posts as JSON Lines, or its raw captures as a WARC file.")

    @Argument(help: "Only these boards (default: every board in the store).")
    var boards: [String] = []

    @Option(help: "jsonl (one post a line) or warc (every raw capture, WARC/1.1, gzipped per record).")
    var format: ExportAction.Format

    @Option(help: "The file to write, e.g. smth.jsonl or smth.warc.gz.")
    var out: String

    @OptionGroup var storage: StoreOptions
    @OptionGroup var configFile: ConfigOptions

    @Flag(help: "Print only errors.")
    var quiet = false

    func run() async throws {
        try await Runner.run {
            var storage = self.storage
            storage.merge(try configFile.load())
            let report = try ExportAction(storePath: storage.path, format: format, outputPath: out, boards: boards)
                .run()
            if !quiet {
                let what = format == .jsonl ? "post(s)" : "response record(s)"
                Runner.printError("exported \(report.records) \(what) to \(out) (\(report.bytes) bytes)")
            }
        }
    }
}

extension ExportAction.Format: ExpressibleByArgument {}

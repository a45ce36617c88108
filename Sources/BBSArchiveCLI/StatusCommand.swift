import ArgumentParser
import BBSArchive
import Foundation

/// `bbsarchive status`: what the store holds, without SQL.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the store holds per board, the pages still failing, and the store's size and schema.")

    @OptionGroup var storage: StoreOptions
    @OptionGroup var configFile: ConfigOptions

    @Flag(help: "Print JSON, for scripts.")
    var json = false

    func run() async throws {
        try await Runner.run {
            var storage = self.storage
            storage.merge(try configFile.load())
            let (status, time) = try StatusAction(storePath: storage.path).run()
            print(json ? StatusAction.json(status, time: time) : StatusAction.text(status, time: time))
        }
    }
}

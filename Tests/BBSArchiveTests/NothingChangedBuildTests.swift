import Foundation
import Testing

@testable import BBSArchive

/// A build after which nothing was logged renders nothing, unless a board's
/// page or the home page is missing from the folder.
@Suite struct NothingChangedBuildTests {
    @Test func nothingChangedRendersNothingButAMissingBoardPageComesBack() async throws {
        let store = try GoldenPagesTests.makeStore()
        let templates = try await TemplateSet(directory: Fixtures.templates)
        let publisher = IncrementalBuildTests.Recorder()
        let builder = SiteBuilder(
            store: store, templates: templates, publisher: publisher, options: IncrementalBuildTests.options())
        let first = try builder.build()
        #expect(first.pages > 0)

        publisher.reset()
        let idle = try builder.build()
        #expect(idle.pages == 0)
        #expect(idle.changes?.isEmpty == true)
        #expect(publisher.written == [BuildState.path])

        // The same store into a folder that has lost its board page: it is rendered again.
        let folder = try Fixtures.temporaryFolder("nothing-changed")
        let disk = try DiskPublisher(root: folder)
        let onDisk = SiteBuilder(
            store: store, templates: templates, publisher: disk, options: IncrementalBuildTests.options())
        _ = try onDisk.build()
        let board = folder.appendingPathComponent(SitePaths.board("Golden"))
        let bytes = try Data(contentsOf: board)
        try FileManager.default.removeItem(at: board)
        let again = try onDisk.build()
        #expect(again.pages > 0)
        #expect(try Data(contentsOf: board) == bytes)
    }
}

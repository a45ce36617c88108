import Foundation
import SMTHReplica
import Testing

@testable import BBSArchive

/// `--site-url` takes an http(s) folder address and nothing else.
@Suite struct SiteURLTests {
    @Test func normalizesAFolderAddress() {
        #expect(SiteBuilder.normalizedSiteURL("https://example.org/smth") == "https://example.org/smth/")
        #expect(SiteBuilder.normalizedSiteURL("http://example.org/") == "http://example.org/")
        #expect(SiteBuilder.normalizedSiteURL("example.org/smth") == nil)
        #expect(SiteBuilder.normalizedSiteURL("ftp://example.org/") == nil)
        #expect(SiteBuilder.normalizedSiteURL("https://example.org/?a=1") == nil)
    }

    @Test func buildRefusesAnAddressThatIsNotOne() async throws {
        let folder = try Fixtures.temporaryFolder("site-url")
        let storePath = folder.appendingPathComponent("archive.sqlite").path
        _ = try ArchiveStore(path: storePath)
        let action = BuildAction(
            storePath: storePath, outputPath: folder.appendingPathComponent("site").path,
            templatesPath: Fixtures.templates.path, siteURL: "example.org")
        await #expect(throws: ArchiveError.self) { try await action.run() }
    }
}

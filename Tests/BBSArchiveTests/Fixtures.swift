import BBSArchive
import Foundation

/// Paths the tests read: real pages in `../shared/fixtures` (never copied
/// into the project) and the project's own files.
enum Fixtures {
    /// The project's root folder.
    static let projectRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/fixtures/smth`, beside the project.
    static let smth = projectRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/smth")

    static let templates = projectRoot.appendingPathComponent("templates")

    static func data(_ relative: String) throws -> Data {
        try Data(contentsOf: smth.appendingPathComponent(relative))
    }

    /// A new empty folder under the system's temporary folder.
    static func temporaryFolder(_ name: String = "bbsarchive-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// What the build knows of SMTH: its words, Beijing time, its post conventions.
    static let smthForum = ForumSources.profile(sources: ["smth-mobile"])

    /// A Beijing wall-clock time as an instant.
    static func beijing(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Date {
        Fixtures.smthForum.time.date(.init(year: y, month: mo, day: d, hour: h, minute: mi, second: s)) ?? .distantPast
    }
}

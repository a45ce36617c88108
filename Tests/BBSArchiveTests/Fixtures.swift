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

    /// A new empty folder in this test process's own folder (`runFolder`).
    static func temporaryFolder(_ name: String = "bbsarchive-test") throws -> URL {
        let url = runFolder.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `bbsarchive-tests/run-PID` under the system's temporary folder: every
    /// folder a test makes goes in it. Tests leave their stores and sites
    /// behind (a failure is easier to read that way), so the first test of
    /// a run removes the folders of runs that have ended. Before, each
    /// `make test` left about a hundred folders in /tmp, some of 60 MB,
    /// for good.
    static let runFolder: URL = {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("bbsarchive-tests")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        for name in names where name.hasPrefix("run-") {
            guard let pid = Int32(name.dropFirst(4)), pid != getpid() else { continue }
            // No such process: that run has ended (a live one's folder is kept).
            if kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
            }
        }
        return base.appendingPathComponent("run-\(getpid())")
    }()

    /// What the build knows of SMTH: its words, Beijing time, its post conventions.
    static let smthForum = ForumSources.profile(sources: ["smth-mobile"])

    /// A Beijing wall-clock time as an instant.
    static func beijing(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Date {
        Fixtures.smthForum.time.date(.init(year: y, month: mo, day: d, hour: h, minute: mi, second: s)) ?? .distantPast
    }
}

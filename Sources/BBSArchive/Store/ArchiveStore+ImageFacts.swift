import Foundation
import GRDB

/// What an archived image is, as far as thumbnails care: read once from its
/// header by the build, kept under the image's hash.
package struct ImageFacts: Sendable, Equatable {
    package var width: Int
    package var height: Int
    /// More than one: an animated GIF or WebP.
    package var frames: Int
    package var alpha: Bool

    package init(width: Int, height: Int, frames: Int = 1, alpha: Bool = false) {
        self.width = width
        self.height = height
        self.frames = frames
        self.alpha = alpha
    }
}

extension ArchiveStore {
    /// The facts recorded for an image: `nil` when it was never looked at,
    /// `.some(nil)` when it was and no image could be read from its bytes.
    package func imageFacts(hash: String) throws(ArchiveError) -> ImageFacts?? {
        try read { db -> ImageFacts?? in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT width, height, frames, alpha FROM image_facts WHERE hash = ?"),
                    arguments: [hash])
            else { return .none }
            // By position: a column asked by name is a lowercased key and a dictionary search.
            guard let width: Int = row[0], let height: Int = row[1] else { return .some(nil) }
            return .some(ImageFacts(width: width, height: height, frames: row[2], alpha: row[3]))
        }
    }

    /// Records what was read of an image (`nil`: nothing could be).
    package func recordImageFacts(hash: String, _ facts: ImageFacts?) throws(ArchiveError) {
        try recordImageFacts([hash: facts])
    }

    /// Records what was read of many images, in one transaction (in the
    /// order of their hashes).
    package func recordImageFacts(_ all: [String: ImageFacts?]) throws(ArchiveError) {
        guard !all.isEmpty else { return }
        try write { db in
            let statement = try db.makeStatement(
                sql: """
                    INSERT INTO image_facts (hash, width, height, frames, alpha) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (hash) DO UPDATE SET width = excluded.width, height = excluded.height,
                      frames = excluded.frames, alpha = excluded.alpha
                    """)
            for (hash, facts) in all.sorted(by: { $0.key < $1.key }) {
                try statement.execute(arguments: [
                    hash, facts?.width, facts?.height, facts?.frames ?? 1, facts?.alpha ?? false,
                ])
            }
        }
    }

    /// The bytes of a thumbnail a build made and recorded
    /// (`recordThumbnails`), or nil.
    package func thumbnail(hash: String, width: Int, format: String) throws(ArchiveError) -> Data? {
        try read { db in
            try Data.fetchOne(
                db.cachedStatement(sql: "SELECT bytes FROM thumbnail WHERE hash = ? AND width = ? AND format = ?"),
                arguments: [hash, width, format])
        }
    }

    /// Whether the store keeps that thumbnail.
    package func hasThumbnail(hash: String, width: Int, format: String) throws(ArchiveError) -> Bool {
        try read { db in
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM thumbnail WHERE hash = ? AND width = ? AND format = ?"),
                arguments: [hash, width, format]) ?? false
        }
    }

    /// Records thumbnails a build made, in one transaction: for each
    /// (hash, width, format) of `made`, the bytes `bytes` gives (read one
    /// at a time, so that only one is in memory); one it gives none of is
    /// left out.
    package func recordThumbnails(
        _ made: [(hash: String, width: Int, format: String)], bytes: (String, Int, String) -> Data?
    ) throws(ArchiveError) {
        guard !made.isEmpty else { return }
        try write { db in
            let statement = try db.makeStatement(
                sql: """
                    INSERT INTO thumbnail (hash, width, format, bytes) VALUES (?, ?, ?, ?)
                    ON CONFLICT (hash, width, format) DO UPDATE SET bytes = excluded.bytes
                    """)
            for (hash, width, format) in made {
                guard let data = bytes(hash, width, format) else { continue }
                try statement.execute(arguments: [hash, width, format, data])
            }
        }
    }
}

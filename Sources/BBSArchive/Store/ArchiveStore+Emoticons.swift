import Foundation
import GRDB

/// Emoticons: the codes posts use, the forum's image of each, kept once.
extension ArchiveStore {
    /// Records codes with their image's address; a code already known keeps its row.
    package func noteEmoticons(_ emoticons: [(code: String, url: String)]) throws(ArchiveError) {
        try write { db in
            // Asked for with every thread that uses one: prepared once per connection.
            let insert = try db.cachedStatement(
                sql: "INSERT INTO emoticon (code, url) VALUES (?, ?) ON CONFLICT (code) DO NOTHING")
            for emoticon in emoticons { try insert.execute(arguments: [emoticon.code, emoticon.url]) }
        }
    }

    /// Emoticon images not fetched yet, nor known to be missing from the forum.
    package func missingEmoticons() throws(ArchiveError) -> [String] {
        try read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT e.url FROM emoticon e LEFT JOIN media m ON m.url = e.url
                    WHERE m.url IS NULL AND e.gone = 0 ORDER BY e.url
                    """)
        }
    }

    /// The forum has no image at `url` (it answered 404 or 410): its codes
    /// stay text and it is not asked again.
    package func markEmoticonGone(url: String) throws(ArchiveError) {
        try write { db in try db.execute(sql: "UPDATE emoticon SET gone = 1 WHERE url = ?", arguments: [url]) }
    }

    /// The emoticons whose images are stored: code, content hash, type.
    package func emoticonImages() throws(ArchiveError) -> [(code: String, hash: String, mime: String?)] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT e.code, m.hash, m.mime FROM emoticon e JOIN media m ON m.url = e.url ORDER BY e.code"
            ).map { ($0["code"], $0["hash"], $0["mime"]) }
        }
    }
}

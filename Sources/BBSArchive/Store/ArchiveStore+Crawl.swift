import Foundation
import GRDB

/// The crawl ledger: how far each board's walk got, which threads are
/// archived as listed, and the pages that failed.
extension ArchiveStore {
    /// Whether the thread's posts were archived when it last looked like
    /// `summary` on its board: then there is nothing new to fetch. `time`:
    /// the forum's zone, whose midnight a listed day-only time stands for.
    package func isArchived(board: String, summary: ThreadSummary, time: ForumTime) throws(ArchiveError) -> Bool {
        try areArchived(board: board, [summary], time: time)[0]
    }

    /// `isArchived` for every row of a list page, in one read.
    package func areArchived(board: String, _ summaries: [ThreadSummary], time: ForumTime) throws(ArchiveError)
        -> [Bool]
    {
        // Asked for every row of every list page walked: all the page's rows in one read.
        let archived = try read { db in
            var archived = ArchivedListings()
            try Self.forEachThreadRow(
                db, board: board, gids: summaries.map(\.gid), columns: "archivedReplies, archivedLastReplyAt"
            ) { gid, row in
                archived.record(gid: gid, replies: row[1], lastReplyAt: row[2])
            }
            return archived
        }
        return archived.areArchived(summaries, time: time)
    }

    /// Board lists print today's times to the second and older ones as a
    /// date; the same post read on two days must still count as unchanged.
    static func sameListedTime(_ a: Int64, _ b: Int64, time: ForumTime) -> Bool {
        if a == b { return true }
        let day: Int64 = 86_400
        let localA = a + Int64(time.offsetSeconds)
        let localB = b + Int64(time.offsetSeconds)
        let eitherIsMidnight = localA % day == 0 || localB % day == 0
        return eitherIsMidnight && localA / day == localB / day
    }

    /// The newest activity any row of the board's list showed, when the
    /// board's last walk finished (`nil` when it did not, or the board has
    /// no threads): a time the forum's clock had passed by then, so that
    /// every reply made since is newer. Read before a walk begins.
    package func newestListedActivity(board: String) throws(ArchiveError) -> Int64? {
        try read { db in
            let finished = try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT finishedAt IS NOT NULL FROM crawl WHERE board = ?"), arguments: [board])
            guard finished == true else { return nil }
            // thread_by_board_last answers it without reading a row.
            return try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT max(lastReplyAt) FROM thread WHERE board = ?"), arguments: [board])
        }
    }

    /// The latest moment a listed time may stand for: a day-only time
    /// (the forum's midnight) stands for any moment of that day.
    static func latestListedTime(_ seconds: Int64, time: ForumTime) -> Int64 {
        let day: Int64 = 86_400
        return (seconds + Int64(time.offsetSeconds)) % day == 0 ? seconds + day - 1 : seconds
    }

    /// How many list pages the board had when last walked.
    package func boardPageCount(board: String) throws(ArchiveError) -> Int? {
        try read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT pages FROM board WHERE name = ?"), arguments: [board])
        }
    }

    /// Threads the store knows on a board, archived or not.
    package func threadCount(board: String) throws(ArchiveError) -> Int {
        try read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT threads FROM board_summary WHERE board = ?"), arguments: [board]) ?? 0
        }
    }

    /// Whether a finished walk ever read the board's list to its end: only
    /// then may a later walk stop early at threads it has seen before.
    package func listCovered(board: String) throws(ArchiveError) -> Bool {
        try read { db in
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT coveredAll FROM crawl WHERE board = ?"), arguments: [board])
                ?? false
        }
    }

    /// Threads whose listing differs from what was archived (new, grown,
    /// or failed before), newest activity first, with how many posts the
    /// store already has of each. Read from a partial index that holds
    /// only such threads (`v8-thread-needing-fetch`), not from every
    /// thread of the board.
    package func threadsNeedingFetch(board: String, time: ForumTime) throws(ArchiveError) -> [(
        summary: ThreadSummary, archivedPosts: Int
    )] {
        try read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT t.gid, t.title, t.replies, t.sticky, t.marked, t.author, t.postedAt, t.lastReplier,
                          t.lastReplyAt, t.archivedReplies, t.archivedLastReplyAt,
                          coalesce(s.posts, 0) AS archivedPosts
                        FROM thread t INDEXED BY thread_needing_fetch
                        LEFT JOIN thread_summary s ON s.board = t.board AND s.gid = t.gid
                        WHERE t.board = ?
                          -- archived as listed: never fetched again (the rest is judged below)
                          AND NOT (t.archivedReplies IS t.replies AND t.archivedLastReplyAt IS t.lastReplyAt)
                        ORDER BY t.lastReplyAt DESC, t.gid DESC
                        """),
                arguments: [board]
            ).compactMap { row in
                let replies: Int = row["replies"]
                let last: Int64 = row["lastReplyAt"]
                let archived: Int? = row["archivedReplies"]
                let archivedLast: Int64? = row["archivedLastReplyAt"]
                if let archived, let archivedLast, archived == replies,
                    Self.sameListedTime(archivedLast, last, time: time)
                {
                    return nil
                }
                // An archived time without its count: the list's count is not
                // exact (`saveBoardPage` took the count away).
                let summary = ThreadSummary(
                    gid: row["gid"], title: row["title"], replies: replies,
                    repliesExact: archived != nil || archivedLast == nil, sticky: row["sticky"],
                    marked: row["marked"],
                    author: row["author"], postedAt: Self.date(row["postedAt"]), lastReplier: row["lastReplier"],
                    lastReplyAt: Self.date(last))
                return (summary, row["archivedPosts"])
            }
        }
    }

    /// The posts of a thread the store holds, in floor order, as `PostAlignment` knows them.
    func archivedPosts(board: String, gid: Int) throws(ArchiveError) -> [PostAlignment.Archived] {
        try read { db in try Self.archivedPosts(db, board: board, gid: gid) }
    }

    static func archivedPosts(_ db: Database, board: String, gid: Int) throws -> [PostAlignment.Archived] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT floor, author, postedAt, postID, forumDeletedAt IS NOT NULL, parseWarning IS NULL FROM post
                    WHERE board = ? AND gid = ? ORDER BY floor
                    """),
            arguments: [board, gid]
        ).map { row in
            PostAlignment.Archived(
                floor: row[0], author: row[1], postedAt: row[2], postID: row[3], deleted: row[4], sure: row[5])
        }
    }

    /// Starts (or resumes) walking a board's list. Returns how many list
    /// pages an unfinished walk begun within `resumeWindow` had already
    /// stored; 0 starts afresh.
    ///
    /// Only reads: a walk begun afresh is written with its first list page
    /// stored (`markWalked`), or, when it finishes having stored none, with
    /// the run's other such walks in one commit (`finishWalk`,
    /// `writeFinishedWalks`). In an update most boards' list page 1 is as
    /// the last walk read it: at 100k posts, in a running `archive --every`
    /// after one reply, the 38 commits the 19 unchanged boards' walks made
    /// (begun, then finished) were 1-4 ms of the fetch (4 alternating runs
    /// of 7 updates: fetch medians 20.9-28.4 ms, then 16.8-27.5). A walk
    /// stopped before it stored a list page leaves the row of the walk
    /// before it, which the next walk starts afresh from either way.
    package func beginWalk(board: String, resumeWindow: TimeInterval) throws(ArchiveError) -> Int {
        let now = Self.seconds(clock())
        let resumed = try read { db -> Int? in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT startedAt, walkedPages, finishedAt FROM crawl WHERE board = ?"),
                    arguments: [board]),
                (row["finishedAt"] as Int64?) == nil,
                Double(now - (row["startedAt"] as Int64)) < resumeWindow
            else { return nil }
            return row["walkedPages"]
        }
        // Replaces an earlier walk's end never written (its run failed
        // first): written later, it would stand for this walk.
        unwrittenWalks.withLock { $0[board] = resumed == nil ? UnwrittenWalk(startedAt: now) : nil }
        return resumed ?? 0
    }

    /// Records that list page `page` (at `url`) of the walk is stored and
    /// clears its failure, in the transaction that stores the page
    /// (`saveBoardPage(_:source:walked:)`). `startedAt`: the walk began
    /// afresh at that moment and its row is not written yet, so it is
    /// written here (no page walked, not finished) before the page counts.
    static func markWalked(_ db: Database, board: String, page: Int, url: String, startedAt: Int64?) throws {
        if let startedAt { try writeWalkStart(db, board: board, at: startedAt) }
        try db.cachedStatement(sql: "UPDATE crawl SET walkedPages = max(walkedPages, ?) WHERE board = ?")
            .execute(arguments: [page, board])
        try deleteFailures(db, url: url)
    }

    /// A walk begun afresh at `at`: no page walked yet, not finished.
    private static func writeWalkStart(_ db: Database, board: String, at: Int64) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO crawl (board, startedAt, walkedPages, finishedAt) VALUES (?, ?, 0, NULL)
                ON CONFLICT (board) DO UPDATE SET startedAt = excluded.startedAt, walkedPages = 0, finishedAt = NULL
                """
        ).execute(arguments: [board, at])
    }

    /// A walk begun afresh whose row is not written yet; `finishedAt` once
    /// it finished having stored no list page.
    struct UnwrittenWalk: Sendable {
        var startedAt: Int64
        var finishedAt: Int64?
        var reachedEnd = false
    }

    /// The moment the walk of `board` began afresh, while it is under way
    /// and its row is not written yet (`beginWalk`).
    func pendingWalkStart(_ board: String) -> Int64? {
        unwrittenWalks.withLock { walks in walks[board].flatMap { $0.finishedAt == nil ? $0.startedAt : nil } }
    }

    /// Forgets the walk of `board` begun at `start` once its row is written
    /// (not one a later `beginWalk` put there meanwhile).
    func walkStartWritten(_ board: String, _ start: Int64?) {
        guard let start else { return }
        unwrittenWalks.withLock { walks in
            if let walk = walks[board], walk.startedAt == start, walk.finishedAt == nil { walks[board] = nil }
        }
    }

    /// Ends the walk; `reachedEnd` says the list was read to its last page
    /// (or to threads a complete earlier walk had read). A walk that stored
    /// no list page is kept to be written, begun and finished, with the
    /// run's others (`writeFinishedWalks`).
    package func finishWalk(board: String, reachedEnd: Bool) throws(ArchiveError) {
        let now = Self.seconds(clock())
        let kept = unwrittenWalks.withLock { walks in
            guard var walk = walks[board], walk.finishedAt == nil else { return false }
            walk.finishedAt = now
            walk.reachedEnd = reachedEnd
            walks[board] = walk
            return true
        }
        if kept { return }
        try write { db in try Self.writeWalkEnd(db, board: board, at: now, reachedEnd: reachedEnd) }
    }

    /// Writes the walks that finished having stored no list page
    /// (`finishWalk`), all in one commit; the fetch calls it at its end. A
    /// run stopped before leaves their boards' rows as the walks before
    /// them left them: only the times of walks that found nothing are lost.
    package func writeFinishedWalks() throws(ArchiveError) {
        let ended = unwrittenWalks.withLock { walks in
            let ended = walks.filter { $0.value.finishedAt != nil }
            walks = walks.filter { $0.value.finishedAt == nil }
            return ended
        }
        guard !ended.isEmpty else { return }
        try write { db in
            for (board, walk) in ended.sorted(by: { $0.key < $1.key }) {
                guard let finishedAt = walk.finishedAt else { continue }
                try Self.writeWalkStart(db, board: board, at: walk.startedAt)
                try Self.writeWalkEnd(db, board: board, at: finishedAt, reachedEnd: walk.reachedEnd)
            }
        }
    }

    /// A walk finished at `at`.
    private static func writeWalkEnd(_ db: Database, board: String, at: Int64, reachedEnd: Bool) throws {
        try db.cachedStatement(sql: "UPDATE crawl SET finishedAt = ?, coveredAll = max(coveredAll, ?) WHERE board = ?")
            .execute(arguments: [at, reachedEnd, board])
    }

    /// Remembers a page that failed, for the next run's report.
    /// `kind` is `failed` for a page that could not be had, `partial` for a
    /// page stored with posts the parser could only partly read.
    package func recordFailure(url: String, board: String?, reason: String, kind: String = "failed")
        throws(ArchiveError)
    {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO failure (url, board, reason, attempts, lastTriedAt, kind) VALUES (?, ?, ?, 1, ?, ?)
                    ON CONFLICT (url) DO UPDATE SET reason = excluded.reason, attempts = attempts + 1,
                      lastTriedAt = excluded.lastTriedAt, kind = excluded.kind
                    """,
                arguments: [url, board, reason, Self.seconds(clock()), kind])
        }
    }

    /// Forgets the failures of board `board`'s thread `gid` under any
    /// address: each failure's address read by `address` (every front end's
    /// reading of it), so a thread that failed on one front end or forum
    /// address and was archived through another is not listed as pending
    /// for good.
    package func clearThreadFailures(board: String, gid: Int, address: (String) -> PageAddress?)
        throws(ArchiveError)
    {
        try write { db in
            let urls = try String.fetchAll(
                db.cachedStatement(sql: "SELECT url FROM failure WHERE board = ? COLLATE NOCASE AND instr(url, ?) > 0"),
                arguments: [board, "/\(gid)"])
            for url in urls {
                guard case .thread(let named, let failed, _)? = address(url), failed == gid,
                    named.caseInsensitiveCompare(board) == .orderedSame
                else { continue }
                try db.cachedStatement(sql: "DELETE FROM failure WHERE url = ?").execute(arguments: [url])
            }
        }
    }

    /// Forgets the failures of `url` and of every page of it (`url?p=N`).
    package func clearFailure(url: String) throws(ArchiveError) {
        try write { db in try Self.deleteFailures(db, url: url) }
    }

    private static func deleteFailures(_ db: Database, url: String) throws {
        let base = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        try db.cachedStatement(sql: "DELETE FROM failure WHERE url = ? OR url = ? OR substr(url, 1, ?) = ?")
            .execute(arguments: [url, base, base.count + 1, base + "?"])
    }

    /// Pages that failed and have not succeeded since: `(url, reason, attempts)`.
    package func failures() throws(ArchiveError) -> [(url: String, reason: String, attempts: Int)] {
        try failureList().map { ($0.url, $0.reason, $0.attempts) }
    }

    /// The same, with each failure's kind: `failed` or `partial`.
    package func failureList() throws(ArchiveError) -> [(url: String, reason: String, attempts: Int, kind: String)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT url, reason, attempts, kind FROM failure ORDER BY url").map {
                ($0["url"], $0["reason"], $0["attempts"], $0["kind"])
            }
        }
    }
}

/// What the store holds of listed threads' archived posts: the reply count
/// and last reply time the list showed when each thread's posts were
/// stored, by gid (threads never archived are absent).
package struct ArchivedListings: Sendable {
    private var byGid: [Int: (replies: Int, lastReplyAt: Int64)] = [:]

    package init() {}

    mutating func record(gid: Int, replies: Int?, lastReplyAt: Int64?) {
        if let replies, let lastReplyAt { byGid[gid] = (replies, lastReplyAt) }
    }

    /// `ArchiveStore.isArchived` for each row: archived as it is listed now.
    package func areArchived(_ summaries: [ThreadSummary], time: ForumTime) -> [Bool] {
        summaries.map { summary in
            // A count that is not exact (`1.5k`) may stay as it is while
            // replies come: never a reason to skip the thread.
            guard summary.repliesExact, let stored = byGid[summary.gid] else { return false }
            return stored.replies == summary.replies
                && ArchiveStore.sameListedTime(
                    stored.lastReplyAt, ArchiveStore.seconds(summary.lastReplyAt), time: time)
        }
    }
}

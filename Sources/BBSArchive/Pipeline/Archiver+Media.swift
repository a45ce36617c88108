import Foundation

/// Attachments: every file not stored yet, each kept once.
extension Archiver {
    /// Fetches every attachment not stored yet; each file is kept once. An
    /// image whose original cannot be had is kept at the largest thumbnail
    /// size the forum still serves, and says so.
    func fetchMedia(into report: inout Report) async throws(ArchiveError) {
        let missing = try store.missingMedia()
        guard !missing.isEmpty else { return }
        events(.note("attachments: \(missing.count) to fetch"))
        var done = 0
        var failed = 0
        var fatal: ArchiveError?
        await Self.forEach(missing, width: options.connections) { url -> (String, ArchiveError?) in
            do throws(ArchiveError) {
                try await self.fetchAttachment(url)
                try self.store.clearFailure(url: url)
                return (url, nil)
            } catch {
                return (url, error)
            }
        } collect: { (url, error) in
            done += 1
            if let error {
                if case .storeUnavailable = error {
                    fatal = error
                    return false
                }
                failed += 1
                fail(url, error, board: nil, into: &report)
            } else {
                report.media += 1
            }
            events(.stage(name: "attachments", done: done, total: missing.count, failed: failed))
            return true
        }
        if let fatal { throw fatal }
    }

    /// Runs `work` on `items` with at most `width` running at once, handing
    /// each result to `collect` on the calling task; `collect` returning
    /// `false` stops the rest.
    static func forEach<Item: Sendable, Result: Sendable>(
        _ items: [Item], width: Int, work: @escaping @Sendable (Item) async -> Result,
        collect: (Result) -> Bool
    ) async {
        await withTaskGroup(of: Result.self) { group in
            var iterator = items.makeIterator()
            for _ in 0..<max(1, width) {
                guard let next = iterator.next() else { break }
                group.addTask { await work(next) }
            }
            while let result = await group.next() {
                guard collect(result) else {
                    group.cancelAll()
                    return
                }
                if let next = iterator.next() {
                    group.addTask { await work(next) }
                }
            }
        }
    }

    func fetchAttachment(_ url: String) async throws(ArchiveError) {
        do {
            try store.saveMedia(url: url, response: try await fetcher.fetch(url))
        } catch {
            guard case .httpStatus(_, let status) = error, status == 404 || status == 410 else { throw error }
            for (fallback, variant) in source.mediaFallbacks(for: url) {
                if let response = try? await fetcher.fetch(fallback) {
                    try store.saveMedia(url: url, response: response, variant: variant)
                    events(.note("\(url): the original is gone; kept the \(variant) thumbnail"))
                    return
                }
            }
            throw error
        }
    }
}

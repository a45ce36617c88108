import Foundation

/// Emoticons: each image the posts' codes name, fetched once.
extension Archiver {
    /// Fetches every emoticon image not stored yet, through the same
    /// fetcher (hosts, robots.txt, rate) as attachments, into the same
    /// content-addressed store. An image the forum does not have (404,
    /// 410) is noted as gone, not as a failure: its code stays text.
    func fetchEmoticons(into report: inout Report) async throws(ArchiveError) {
        let missing = try store.missingEmoticons()
        guard !missing.isEmpty else { return }
        events(.note("emoticons: \(missing.count) to fetch"))
        var done = 0
        var failed = 0
        var fatal: ArchiveError?
        await Self.forEach(missing, width: options.connections) { url -> (String, ArchiveError?) in
            do throws(ArchiveError) {
                do throws(ArchiveError) {
                    try self.store.saveMedia(url: url, response: try await self.fetcher.fetch(url))
                } catch {
                    guard case .httpStatus(_, let status) = error, status == 404 || status == 410 else { throw error }
                    try self.store.markEmoticonGone(url: url)
                }
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
            }
            events(.stage(name: "emoticons", done: done, total: missing.count, failed: failed))
            return true
        }
        if let fatal { throw fatal }
    }
}

import Foundation

/// Emoticons: each archived image written once into `media/`.
extension SiteBuilder {
    /// Writes the archived emoticon images (content-addressed, like every
    /// file in `media/`) and answers their site paths by code. Bytes that
    /// are no image are left out: their codes stay text.
    func writeEmoticons(run: BuildRun) throws(ArchiveError) -> [String: String] {
        var paths: [String: String] = [:]
        var written: [String: String] = [:]
        for emoticon in try store.emoticonImages() {
            if let path = written[emoticon.hash] {
                paths[emoticon.code] = path
                continue
            }
            let declared = SitePaths.mediaExtension(mime: emoticon.mime, name: emoticon.code + ".gif")
            let expected = SitePaths.media(hash: emoticon.hash, extension: declared)
            var path: String?
            if InertMedia.images.contains(declared), publisher.exists(expected) {
                path = expected
            } else if let bytes = try store.blob(hash: emoticon.hash) {
                let sniffed = InertMedia.sniffed(bytes, declared: declared)
                if InertMedia.images.contains(sniffed) {
                    let target = SitePaths.media(hash: emoticon.hash, extension: sniffed)
                    if !publisher.exists(target) {
                        try publisher.write(bytes, to: target)
                        run.report.mediaFiles += 1
                        run.report.written += 1
                    }
                    path = target
                }
            }
            if let path {
                paths[emoticon.code] = path
                written[emoticon.hash] = path
            }
        }
        return paths
    }
}

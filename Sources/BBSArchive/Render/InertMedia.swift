import Foundation

/// The extensions an archived file may have: only formats a browser shows
/// or downloads but never runs, decided from the bytes themselves.
///
/// From `file://` a browser picks a file's type by its extension alone, so
/// a forum's `.html`, `.xht`, `.svg`, `.xml` or `.shtml` attachment would run
/// script in the archive's origin. Images, audio, video, plain text,
/// archives, office documents and PDFs that cannot act by themselves
/// (`PDFActions`) are inert; everything else is `.bin`.
enum InertMedia {
    static let images: Set = ["png", "jpg", "gif", "webp", "bmp"]
    static let audio: Set = ["mp3", "ogg", "wav", "flac", "m4a"]
    static let video: Set = ["mp4", "webm", "mkv"]
    static let archives: Set = ["zip", "rar", "7z", "gz", "bz2", "xz", "tar"]
    /// Office documents in a ZIP container (and EPUB).
    static let zipDocuments: Set = ["docx", "xlsx", "pptx", "odt", "ods", "odp", "epub"]
    /// Office documents in an OLE2 compound file.
    static let oleDocuments: Set = ["doc", "xls", "ppt"]

    static let allowed: Set<String> = images.union(audio).union(video).union(archives).union(zipDocuments)
        .union(oleDocuments).union(["pdf", "txt"])

    /// The extension a forum's mime type or file name suggest, if it is an
    /// allowed one; `bin` otherwise.
    static func declared(mime: String?, name: String) -> String {
        switch mime?.lowercased() {
        case "image/png": return "png"
        case "image/jpeg", "image/jpg", "image/pjpeg": return "jpg"
        case "image/gif": return "gif"
        case "image/webp": return "webp"
        case "image/bmp": return "bmp"
        default:
            let parts = name.split(separator: ".")
            guard parts.count > 1, let last = parts.last else { return "bin" }
            var ext = last.lowercased()
            if ext == "jpeg" { ext = "jpg" }
            return allowed.contains(ext) ? ext : "bin"
        }
    }

    /// The extension to save `bytes` under: what their content is, when it
    /// is a known inert format (the declared one where the container is
    /// shared, e.g. a ZIP that says it is a `.docx`); `txt` only for text
    /// that cannot be mistaken for markup; else `bin`.
    static func sniffed(_ bytes: Data, declared: String) -> String {
        let head = [UInt8](bytes.prefix(16))
        // Compared in place: an array made of each magic and of each slice
        // of the head took most of the ~14,000 instructions a file.
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && head[offset..<offset + magic.count].elementsEqual(magic)
        }
        func ascii(_ text: StaticString, at offset: Int = 0) -> Bool {
            let magic = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            return head.count >= offset + magic.count && head[offset..<offset + magic.count].elementsEqual(magic)
        }

        if starts([0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "jpg" }
        if ascii("GIF87a") || ascii("GIF89a") { return "gif" }
        if ascii("RIFF"), ascii("WEBP", at: 8) { return "webp" }
        if ascii("RIFF"), ascii("WAVE", at: 8) { return "wav" }
        if ascii("BM"), declared == "bmp" { return "bmp" }
        if ascii("%PDF-") { return PDFActions.isActive(bytes) ? "bin" : "pdf" }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) {
            return zipDocuments.contains(declared) ? declared : "zip"
        }
        if starts([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
            return oleDocuments.contains(declared) ? declared : "bin"
        }
        if ascii("Rar!") { return "rar" }
        if starts([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) { return "7z" }
        if starts([0x1F, 0x8B]) { return "gz" }
        if ascii("BZh") { return "bz2" }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return "xz" }
        if ascii("ID3") || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0) {
            return audio.contains(declared) ? declared : "mp3"
        }
        if ascii("OggS") { return "ogg" }
        if ascii("fLaC") { return "flac" }
        if ascii("ftyp", at: 4) { return declared == "m4a" ? "m4a" : "mp4" }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return declared == "mkv" ? "mkv" : "webm" }
        if bytes.count > 262, ascii("ustar", at: 0) == false,
            bytes.dropFirst(257).prefix(5).elementsEqual("ustar".utf8)
        {
            return "tar"
        }
        if declared == "txt", isPlainText(bytes) { return "txt" }
        return "bin"
    }

    /// Whether the bytes are a PDF, as `sniffed` tells it.
    static func isPDF(_ bytes: Data) -> Bool { bytes.starts(with: "%PDF-".utf8) }

    /// Text with no `<` at all in its first 64 KB: nothing a browser could
    /// take for HTML or XML, whatever it sniffs.
    static func isPlainText(_ bytes: Data) -> Bool {
        // Searched in place by `memchr`: `Data.contains` stepped its iterator byte by byte.
        bytes.prefix(65_536).withUnsafeBytes { sample in
            guard let base = sample.baseAddress else { return true }
            return memchr(base, Int32(UInt8(ascii: "<")), sample.count) == nil && memchr(base, 0, sample.count) == nil
        }
    }
}

import CZlib
import Foundation

/// Compresses one piece of data into a complete gzip member. Members
/// written one after another make a valid gzip file, and a WARC reader
/// can seek to any record that is its own member.
enum GzipMember {
    static func compress(_ data: Data) throws(ArchiveError) -> Data {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
        let initialized = deflateInit2_(
            &stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard initialized == Z_OK else {
            throw .outputUnwritable(path: "the WARC file", reason: "zlib could not start (\(initialized))")
        }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        let capacity = output.count
        let status = output.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input -> Int32 in
                stream.next_in = UnsafeMutablePointer(
                    mutating: input.bindMemory(to: Bytef.self).baseAddress ?? UnsafePointer(bitPattern: 1))
                stream.avail_in = uInt(data.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(capacity)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else {
            throw .outputUnwritable(path: "the WARC file", reason: "zlib could not compress a record (\(status))")
        }
        output.count = Int(stream.total_out)
        return output
    }
}

import FoundationEssentials
import MotionFiles

extension ManifestError {
    /// Reads a JSON document the host did not write (a manifest, the host configuration) as MotionFiles
    /// reads any such file: without blocking, a regular file only, up to `limit` bytes. The one place
    /// `PluginManifest.load(contentsOf:)`, `HostConfiguration.load(contentsOf:)` and discovery read one.
    /// - Parameters:
    ///   - url: The file.
    ///   - limit: The largest size accepted, bytes (a `FileSizeLimit`).
    ///   - what: The document, for messages ("the manifest").
    /// - Returns: Its bytes.
    /// - Throws: ``ManifestError`` code `unreadable` naming the file, with MotionFiles' message (missing, not a
    ///   regular file, too large, unreadable).
    static func readDocument(at url: URL, limit: Int, what: String) throws(ManifestError) -> [UInt8] {
        try readDocument(atPath: url.path, url: url, limit: limit, what: what)
    }

    /// ``readDocument(at:limit:what:)`` of the file at `path`, which `url` names in an error (discovery has
    /// the path of each file it listed already; a `URL`'s `path` costs a few microseconds to make).
    static func readDocument(atPath path: String, url: URL, limit: Int, what: String) throws(ManifestError) -> [UInt8] {
        do {
            return try RegularFile.read(atPath: path, limit: limit, what: what)
        } catch {
            throw ManifestError(code: .unreadable, file: url, jsonPath: nil, message: error.message)
        }
    }
}

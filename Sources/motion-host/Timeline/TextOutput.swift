import Foundation

/// A buffered text destination: standard output or a file. Keeps the first write error instead of
/// throwing, so a timeline sink can stay non-throwing; the command reports it at the end.
final class TextOutput {
    /// The file's path as given, or `nil` for standard output.
    let path: String?
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private static let flushThreshold = 1 << 16
    /// The first error met while writing, if any.
    private(set) var firstError: MotionHostError?

    /// Standard output.
    init() {
        path = nil
        handle = FileHandle.standardOutput
    }

    /// A file, created or truncated now.
    /// - Parameter path: The file's path.
    /// - Throws: ``MotionHostError`` `.unwritableOutput` naming the file.
    init(path: String) throws(MotionHostError) {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            let reason = String(cString: strerror(errno))
            throw MotionHostError(.unwritableOutput, file: path, "cannot create the output file: \(reason)")
        }
        self.handle = handle
    }

    /// Appends text.
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { flush() }
    }

    /// Writes out what is buffered; a file is also synchronised to disk by ``close()``.
    func flush() {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        guard firstError == nil else { return }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            firstError = MotionHostError(
                .unwritableOutput, file: path ?? "standard output", "cannot write: \(error.localizedDescription)",
                underlying: error)
        }
    }

    /// Flushes and closes a file (standard output is only flushed).
    /// - Throws: The first write error, if any.
    func close() throws(MotionHostError) {
        flush()
        if path != nil { try? handle.close() }
        if let firstError { throw firstError }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Standard output or standard error (or another descriptor) as a raw descriptor: messages written without Foundation's
/// `FileHandle` (which only full Foundation has; the host and the CLI use FoundationEssentials alone, so a
/// process does not load Foundation's ICU libraries at start).
public struct StandardStream: Sendable {
    /// The descriptor written to: 1 or 2.
    public let fileDescriptor: Int32

    /// Writes to an open descriptor of the caller's (the caller keeps it open while writing).
    /// - Parameter fileDescriptor: The descriptor, e.g. 1, 2 or a pipe's writing end.
    public init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// Standard output (descriptor 1).
    public static let output = StandardStream(fileDescriptor: STDOUT_FILENO)
    /// Standard error (descriptor 2).
    public static let error = StandardStream(fileDescriptor: STDERR_FILENO)

    /// Writes all of `text`'s UTF-8 bytes, however many `write(2)` calls it takes, retrying `EINTR`.
    /// A failure (the stream closed, `EPIPE`, a full disk) drops the rest of the text: a message that
    /// cannot be written is not worth stopping the process for.
    /// - Parameter text: The text, with its own newline if it ends a line.
    public func write(_ text: String) {
        var text = text
        text.withUTF8 { unsafe write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes all of `bytes`, as ``write(_:)-(String)`` does with text. Wraps `write(2)`.
    /// - Parameter bytes: The bytes to write.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = unsafe Glibc.write(fileDescriptor, base + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}

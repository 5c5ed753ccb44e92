import CMotionHostSupport
import FoundationEssentials
import Glibc

/// A buffered text destination written in place: standard output or a file. Keeps the first write error
/// instead of throwing, so a timeline sink can stay non-throwing; the command reports it at the end.
///
/// A file is opened where it is (`open(2)` with `O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC`), never
/// replaced: a device such as `/dev/null` or a FIFO stays what it is, and the lines of a run that crashes
/// are in the file the user named. Bytes wait in a fixed 64 KiB buffer until ``flush()`` (the run command
/// flushes after every frame) or until it is full; a line longer than the buffer is written directly.
/// ``attachLastWords(takesErrorLine:)`` lets a fatal signal or the plugin watchdog write what is buffered
/// (CMotionHostSupport): the buffer never moves, and its length is published after every write.
///
/// Thread rule: one thread writes (the scheduler's); the last words may read the buffer from any thread.
final class TextOutput {
    /// The file's path as given, or `nil` for standard output.
    let path: String?
    private let fd: Int32
    private static let capacity = 1 << 16
    private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: TextOutput.capacity)
    private var length = 0
    private var isAttached = false
    private var isClosed = false
    /// The first error met while writing, if any.
    private(set) var firstError: MotionHostError?

    /// Standard output.
    init() {
        path = nil
        fd = STDOUT_FILENO
    }

    /// A file, opened in place now (created if missing, truncated if a regular file).
    ///
    /// The open does not block on a device or FIFO (`O_NONBLOCK`, cleared afterwards), except for a FIFO
    /// that has no reader yet: like a shell's `>`, that waits for a reader.
    /// - Parameter path: The file's path.
    /// - Throws: ``MotionHostError`` `.unwritableOutput` naming the file.
    init(path: String) throws(MotionHostError) {
        self.path = path
        fd = try openInPlace(path)
    }

    deinit {
        if isAttached { cmotionhost_timeline_detach() }
        if path != nil, !isClosed { system_close(fd) }
        buffer.deallocate()
    }

    /// Lets a fatal signal or the plugin watchdog write what is buffered (and, when `takesErrorLine`, a
    /// JSON Lines `error` line) before the process ends. One output at a time may be attached.
    func attachLastWords(takesErrorLine: Bool) {
        cmotionhost_timeline_attach(fd, buffer, takesErrorLine)
        cmotionhost_timeline_set_length(length)
        isAttached = true
    }

    /// Appends text; ignored once closed.
    func write(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Appends UTF-8 bytes; ignored once closed.
    func write(utf8 bytes: UnsafeBufferPointer<UInt8>) { append(bytes) }

    private func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !isClosed, let base = bytes.baseAddress else { return }
        if length + bytes.count > Self.capacity { flush() }
        if bytes.count > Self.capacity {
            writeOut(base, bytes.count)
            return
        }
        (buffer + length).update(from: base, count: bytes.count)
        length += bytes.count
        if isAttached { cmotionhost_timeline_set_length(length) }
    }

    /// Writes out what is buffered.
    func flush() {
        guard length > 0 else { return }
        let count = length
        length = 0
        // Published before the write: from here the bytes belong to the write, not to the last words.
        if isAttached { cmotionhost_timeline_set_length(0) }
        writeOut(buffer, count)
    }

    private func writeOut(_ bytes: UnsafePointer<UInt8>, _ count: Int) {
        guard firstError == nil else { return }
        if let failure = system_writeAll(fd, bytes, count) {
            firstError = MotionHostError(
                .unwritableOutput, file: path ?? "standard output", "cannot write: \(failure)")
        }
    }

    /// Flushes and closes a file (standard output is only flushed); later writes are ignored.
    /// - Throws: The first write error, if any.
    func close() throws(MotionHostError) {
        guard !isClosed else {
            if let firstError { throw firstError }
            return
        }
        flush()
        isClosed = true
        if isAttached {
            cmotionhost_timeline_detach()
            isAttached = false
        }
        if path != nil, system_close(fd) != 0, firstError == nil {
            firstError = MotionHostError(
                .unwritableOutput, file: path!, "cannot write: \(String(cString: strerror(errno)))")
        }
        if let firstError { throw firstError }
    }
}

/// A file written whole at the end of a run (the SVG plot): a regular file (or a missing one) is replaced
/// atomically, written to a temporary file in the same folder and renamed over it, so a reader never sees
/// half a picture; anything else (a device, a FIFO) is written in place and stays what it is.
struct WholeFileOutput {
    /// The file's path as given.
    let path: String

    /// Checks now that the file can be written, so an unwritable path fails before the run, not after.
    /// - Throws: ``MotionHostError`` `.unwritableOutput` naming the file.
    init(path: String) throws(MotionHostError) {
        self.path = path
        if let status = try? system_stat(path), !status.isRegularFile { return }
        // The file is replaced through a temporary file beside it: what matters is that its folder is writable.
        if access(folder, W_OK) != 0 {
            throw MotionHostError(.unwritableOutput, file: path, "cannot create the output file: \(String(cString: strerror(errno)))")
        }
    }

    private var folder: String {
        let url = URL(fileURLWithPath: destination)
        return url.deletingLastPathComponent().path
    }

    /// The file that is replaced: `path`, or where it leads when it is a symbolic link (so the link stays a
    /// link, as a shell's `>` leaves it).
    private var destination: String {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(path, nil) else {
            return path
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Writes `text` as the file's whole contents.
    /// - Throws: ``MotionHostError`` `.unwritableOutput` naming the file.
    func write(_ text: String) throws(MotionHostError) {
        if let status = try? system_stat(path), !status.isRegularFile {
            let output = try TextOutput(path: path)
            output.write(text)
            try output.close()
            return
        }
        let destination = destination
        let name = URL(fileURLWithPath: destination).lastPathComponent
        var template = Array((folder + "/." + name + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw MotionHostError(.unwritableOutput, file: path, "cannot create the output file: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var failure: String?
        var text = text
        text.withUTF8 { bytes in
            if let base = bytes.baseAddress { failure = system_writeAll(fd, base, bytes.count) }
        }
        // mkstemp creates the file 0600; give it the mode a new file gets (0666 less the umask).
        let mask = umask(0)
        umask(mask)
        if failure == nil, fchmod(fd, 0o666 & ~mask) != 0 { failure = String(cString: strerror(errno)) }
        if system_close(fd) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if failure == nil, rename(temporary, destination) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw MotionHostError(.unwritableOutput, file: path, "cannot write: \(failure)")
        }
    }
}

// MARK: The raw calls (open, write, close, stat)

/// Opens `path` for writing in place: `open(2)` with `O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
/// O_NONBLOCK`, again without `O_NONBLOCK` for a FIFO with no reader (`ENXIO`), then clears `O_NONBLOCK`.
private func openInPlace(_ path: String) throws(MotionHostError) -> Int32 {
    var fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0o666)
    if fd < 0, errno == ENXIO { fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666) }
    guard fd >= 0 else {
        throw MotionHostError(.unwritableOutput, file: path, "cannot create the output file: \(String(cString: strerror(errno)))")
    }
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
    return fd
}

/// Writes every byte (`write(2)`, again after `EINTR`; waits with `poll(2)` on `EAGAIN`).
/// - Returns: `nil`, or the `strerror` text of the failure.
private func system_writeAll(_ fd: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> String? {
    var done = 0
    while done < count {
        let n = Glibc.write(fd, bytes + done, count - done)
        if n > 0 {
            done += n
        } else if n < 0, errno == EINTR {
            continue
        } else if n < 0, errno == EAGAIN {
            var wait = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&wait, 1, -1)
        } else {
            return n == 0 ? "write(2) wrote nothing" : String(cString: strerror(errno))
        }
    }
    return nil
}

@discardableResult
private func system_close(_ fd: Int32) -> Int32 { Glibc.close(fd) }

/// What `stat(2)` says of a path that matters here.
private struct OutputFileStatus {
    var isRegularFile: Bool
}

private func system_stat(_ path: String) throws -> OutputFileStatus {
    var status = stat()
    guard stat(path, &status) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return OutputFileStatus(isRegularFile: status.st_mode & S_IFMT == S_IFREG)
}

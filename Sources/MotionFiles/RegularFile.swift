#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The largest files the host reads, in bytes, by kind. A larger file is refused with
/// ``FileReadError/Code/tooLarge`` before more than the limit is read, so a file that never ends
/// (`/dev/zero` behind a link) or a huge one cannot exhaust memory.
public enum FileSizeLimit {
    /// A host configuration (`host.json`): 4 MiB.
    public static let configuration = 4 << 20
    /// A plugin manifest: 4 MiB.
    public static let manifest = 4 << 20
    /// A scene: 256 MiB.
    public static let scene = 256 << 20
    /// A device-motion recording file (one CSV or log): 1 GiB.
    public static let recording = 1 << 30
    /// A plugin library: 512 MiB.
    public static let library = 512 << 20

    /// A limit as text for messages: "4 MiB", "1 GiB", or bytes.
    public static func describe(_ bytes: Int) -> String {
        if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        return "\(bytes) bytes"
    }
}

/// Why a file could not be read. One line, naming the file, what was wrong and how to fix it.
public struct FileReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure (a struct over raw values, so codes can be added).
    public struct Code: Hashable, Sendable {
        private let rawValue: Int
        /// No file at the path (`ENOENT`).
        public static let notFound = Code(rawValue: 1)
        /// The path names a folder, a FIFO, a device or a socket.
        public static let notARegularFile = Code(rawValue: 2)
        /// The file is larger than the limit for its kind (``FileSizeLimit``).
        public static let tooLarge = Code(rawValue: 3)
        /// `open(2)`, `fstat(2)` or `read(2)` failed otherwise (permissions, I/O error).
        public static let unreadable = Code(rawValue: 4)
    }

    /// The kind of failure.
    public let code: Code
    /// The path as given.
    public let path: String
    /// What happened and how to fix it, without the path.
    public let message: String
    /// The `errno` value behind an `.unreadable` or `.notFound` failure, else 0.
    public let errno: Int32

    /// The path, then the message.
    public var description: String { "\(path): \(message)" }
}

/// A regular file opened for reading by ``RegularFile/open(atPath:what:)``: its descriptor (close-on-exec,
/// blocking again) and its `fstat(2)` facts.
public struct OpenRegularFile: Sendable {
    /// The open descriptor; the caller closes it (``RegularFile/close(_:)``).
    public let descriptor: Int32
    /// `st_size`, bytes.
    public let size: Int64
    /// `st_uid`.
    public let owner: UInt32
    /// `st_mode` (type and permission bits).
    public let mode: UInt32
    /// `st_dev` and `st_ino`.
    public let device: UInt64
    public let inode: UInt64
}

/// Reads files the host did not write (configurations, manifests, scenes, recordings, libraries) without
/// trusting what the path names: each is opened with `O_NONBLOCK` (so a FIFO cannot block the open), checked
/// with `fstat(2)` on the open descriptor to be a regular file (a folder, FIFO, device or socket is refused),
/// and read up to a size limit (``FileSizeLimit``), so `/dev/zero` or a file that grows while it is read
/// cannot exhaust memory.
///
/// Thread rule: stateless; safe from any thread.
public enum RegularFile {
    /// Opens a regular file for reading. Wraps `open(2)` with `O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY`,
    /// `fstat(2)`, and `fcntl(2)` to clear `O_NONBLOCK` again.
    /// - Parameters:
    ///   - path: The file.
    ///   - what: What the file is, for messages ("the scene", "the manifest").
    /// - Returns: The open file; close it with ``close(_:)``.
    /// - Throws: ``FileReadError`` `.notFound`, `.notARegularFile` (naming what the path is) or `.unreadable`.
    public static func open(atPath path: String, what: String) throws(FileReadError) -> OpenRegularFile {
        try open(atPath: path, what: what, clearsNonBlocking: true)
    }

    /// ``open(atPath:what:)``, leaving `O_NONBLOCK` set when `clearsNonBlocking` is false: for a file that is
    /// only read here and closed, since `read(2)` of a regular file does not heed it (two `fcntl(2)` calls
    /// fewer per file; discovery reads one file per plugin).
    private static func open(atPath path: String, what: String, clearsNonBlocking: Bool) throws(FileReadError)
        -> OpenRegularFile
    {
        var fd: Int32
        repeat { fd = unsafe Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) } while fd < 0 && Glibc.errno == EINTR
        if fd < 0 {
            let e = Glibc.errno
            if e == ENOENT || e == ENOTDIR {
                throw FileReadError(
                    code: .notFound, path: path,
                    message: "no such file. To fix, check the path of \(what)", errno: e)
            }
            throw FileReadError(
                code: .unreadable, path: path, message: "cannot open \(what): \(describeErrno(e))", errno: e)
        }
        var status = stat()
        if unsafe fstat(fd, &status) != 0 {
            let e = Glibc.errno
            Glibc.close(fd)
            throw FileReadError(
                code: .unreadable, path: path, message: "cannot examine \(what): \(describeErrno(e))", errno: e)
        }
        let type = UInt32(status.st_mode) & UInt32(S_IFMT)
        guard type == UInt32(S_IFREG) else {
            Glibc.close(fd)
            throw FileReadError(
                code: .notARegularFile, path: path,
                message:
                    "\(what) is \(kindName(type)), not a regular file; the host reads only regular files. To fix, name the file itself",
                errno: 0)
        }
        if clearsNonBlocking {
            let flags = fcntl(fd, F_GETFL)
            if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        }
        return OpenRegularFile(
            descriptor: fd, size: Int64(status.st_size), owner: UInt32(status.st_uid), mode: UInt32(status.st_mode),
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Reads a whole regular file, refusing one larger than `limit` bytes.
    /// - Parameters:
    ///   - path: The file.
    ///   - limit: The largest size accepted, bytes (``FileSizeLimit``).
    ///   - what: What the file is, for messages ("the scene").
    /// - Returns: The file's bytes.
    /// - Throws: ``FileReadError``: as ``open(atPath:what:)``, `.tooLarge` naming the limit, or `.unreadable`
    ///   for a failed `read(2)`.
    public static func read(atPath path: String, limit: Int, what: String) throws(FileReadError) -> [UInt8] {
        let file = try open(atPath: path, what: what, clearsNonBlocking: false)
        defer { close(file) }
        return try read(file, path: path, limit: limit, what: what)
    }

    /// Reads an open regular file from its current offset to its end, refusing more than `limit` bytes.
    /// - Parameters:
    ///   - file: The file, from ``open(atPath:what:)``.
    ///   - path: Its path, for messages.
    ///   - limit: The largest size accepted, bytes.
    ///   - what: What the file is, for messages.
    /// - Returns: The bytes read.
    /// - Throws: ``FileReadError`` `.tooLarge` or `.unreadable`.
    public static func read(_ file: OpenRegularFile, path: String, limit: Int, what: String) throws(FileReadError)
        -> [UInt8]
    {
        // Made only when it is thrown: its message costs more than reading a small manifest.
        var tooLarge: FileReadError {
            FileReadError(
                code: .tooLarge, path: path,
                message:
                    "\(what) is larger than the \(FileSizeLimit.describe(limit)) the host reads for it; it was not read. To fix, check that this is the right file",
                errno: 0)
        }
        if file.size > Int64(limit) { throw tooLarge }
        // One byte more than the limit is asked for, so a file that grew past it is noticed.
        var bytes = [UInt8](repeating: 0, count: min(Int(max(file.size, 0)), limit) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                if count > limit { throw tooLarge }
                bytes.append(contentsOf: repeatElement(0, count: min(max(4096, bytes.count), limit + 1 - count)))
            }
            let n = unsafe bytes.withUnsafeMutableBytes { buffer in
                unsafe Glibc.read(file.descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if n < 0 {
                let e = Glibc.errno
                if e == EINTR { continue }
                throw FileReadError(
                    code: .unreadable, path: path, message: "cannot read \(what): \(describeErrno(e))", errno: e)
            }
            if n == 0 { break }
            count += n
            if count > limit { throw tooLarge }
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Closes a file from ``open(atPath:what:)``. Wraps `close(2)`.
    public static func close(_ file: OpenRegularFile) {
        _ = Glibc.close(file.descriptor)
    }

    /// What a non-regular file is, for messages.
    static func kindName(_ type: UInt32) -> String {
        switch type {
        case UInt32(S_IFDIR): "a folder"
        case UInt32(S_IFIFO): "a FIFO (named pipe)"
        case UInt32(S_IFCHR): "a character device"
        case UInt32(S_IFBLK): "a block device"
        case UInt32(S_IFSOCK): "a socket"
        default: "a special file"
        }
    }

    private static func describeErrno(_ value: Int32) -> String { unsafe String(cString: strerror(value)) }
}

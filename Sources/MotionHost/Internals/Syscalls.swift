// Every raw C call MotionHost makes on files, directories and the dynamic linker lives in this folder,
// as thin typed wrappers in the manner of swift-system's `Internals/Syscalls.swift`: each names the C
// function it wraps, retries `EINTR` where the call can be interrupted, and reports failure as an
// `Errno` instead of a sentinel.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A C `errno` value with its `strerror` text.
struct Errno: Error, Equatable, CustomStringConvertible {
    /// The raw `errno` value.
    var rawValue: Int32

    /// The calling thread's current `errno`.
    static var current: Errno { Errno(rawValue: errno) }

    static let noSuchFile = Errno(rawValue: ENOENT)
    static let interrupted = Errno(rawValue: EINTR)

    /// `strerror(3)` text, e.g. "No such file or directory".
    var description: String { String(cString: strerror(rawValue)) }
}

/// Calls `body` until it does not fail with `EINTR`.
@inline(__always)
private func retryingInterrupts<T: BinaryInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

/// Closes a file descriptor. Wraps `close(2)`; errors are ignored (the descriptor is gone either way).
func system_close(_ fd: Int32) {
    _ = close(fd)
}

/// Reads up to `count` bytes at `offset` into `buffer` without moving the file offset. Wraps `pread(2)`.
/// - Returns: The number of bytes read; 0 at end of file.
func system_pread(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, offset: Int64) throws(Errno) -> Int {
    let n = retryingInterrupts { pread(fd, buffer, count, off_t(offset)) }
    if n < 0 { throw Errno.current }
    return n
}

/// The status of an open file. Wraps `fstat(2)`.
func system_fstat(_ fd: Int32) throws(Errno) -> FileStatus {
    var raw = stat()
    if fstat(fd, &raw) != 0 { throw Errno.current }
    return FileStatus(raw)
}

/// The status of a path, following symbolic links. Wraps `stat(2)`.
func system_stat(_ path: String) throws(Errno) -> FileStatus {
    var raw = stat()
    if stat(path, &raw) != 0 { throw Errno.current }
    return FileStatus(raw)
}

/// The status of a path itself, not following a final symbolic link. Wraps `lstat(2)`.
func system_lstat(_ path: String) throws(Errno) -> FileStatus {
    var raw = stat()
    if lstat(path, &raw) != 0 { throw Errno.current }
    return FileStatus(raw)
}

/// The canonical absolute path: every symbolic link, `.` and `..` resolved. Wraps `realpath(3)`.
func system_realpath(_ path: String) throws(Errno) -> String {
    guard let resolved = realpath(path, nil) else { throw Errno.current }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// The effective user id of this process. Wraps `geteuid(2)`.
func system_geteuid() -> UInt32 {
    UInt32(geteuid())
}

/// Renames a file, replacing the destination atomically. Wraps `rename(2)`.
func system_rename(_ from: String, _ to: String) throws(Errno) {
    if rename(from, to) != 0 { throw Errno.current }
}

/// Removes a file. Wraps `unlink(2)`; a missing file is not an error.
func system_unlink(_ path: String) {
    _ = unlink(path)
}

/// Creates a directory and its missing parents with mode 0700. Wraps `mkdir(2)`.
func system_makeDirectories(_ path: String) throws(Errno) {
    if path.isEmpty || path == "/" { return }
    if let status = try? system_stat(path), status.isDirectory { return }
    let parent = directoryName(of: path)
    if parent != path { try system_makeDirectories(parent) }
    if mkdir(path, 0o700) != 0 && errno != EEXIST { throw Errno.current }
}

/// Writes all of `bytes` to a file created at `path` (mode 0600). Nothing there is followed or replaced: a
/// file or symbolic link already at `path` is `EEXIST`. Wraps `open(2)` with
/// `O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC` and `write(2)`.
func system_createFile(_ path: String, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
    let fd = retryingInterrupts { open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
    if fd < 0 { throw Errno.current }
    defer { system_close(fd) }
    try system_writeAll(fd, bytes)
}

/// Copies up to `count` bytes from the current offset of `input` to `output`, in the kernel. Wraps
/// `sendfile(2)`.
/// - Returns: The number of bytes copied; 0 at the end of `input`.
func system_sendfile(to output: Int32, from input: Int32, count: Int) throws(Errno) -> Int {
    let n = retryingInterrupts { sendfile(output, input, nil, count) }
    if n < 0 { throw Errno.current }
    return n
}

/// Runs `body` over the whole of an open file mapped read-only; `nil` when the file is empty or cannot be
/// mapped. Wraps `fstat(2)`, `mmap(2)` (`PROT_READ`, `MAP_PRIVATE`) and `munmap(2)`.
func system_withMappedFile<R>(_ fd: Int32, _ body: (UnsafeRawBufferPointer) -> R?) -> R? {
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_size > 0, let mapping = mmap(nil, Int(status.st_size), PROT_READ, MAP_PRIVATE, fd, 0),
        mapping != MAP_FAILED
    else { return nil }
    defer { munmap(mapping, Int(status.st_size)) }
    return body(UnsafeRawBufferPointer(start: mapping, count: Int(status.st_size)))
}

/// Writes all of `bytes` to an open descriptor, however many `write(2)` calls it takes.
func system_writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
        let n = retryingInterrupts { write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
        if n < 0 { throw Errno.current }
        offset += n
    }
}

/// The names in a directory, without `.` and `..`, in directory order. Wraps `opendir(3)`,
/// `readdir(3)` and `closedir(3)`.
func system_listDirectory(_ path: String) throws(Errno) -> [String] {
    guard let dir = opendir(path) else { throw Errno.current }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        if name == "." || name == ".." { continue }
        names.append(name)
    }
    return names
}

/// The names in a directory that end in `suffix` (hidden names skipped), each with its status
/// (following symbolic links; `nil` when it cannot be examined) and whether the entry itself is a symbolic
/// link (from `d_type`, or `fstatat(AT_SYMLINK_NOFOLLOW)` where the file system does not say). Wraps
/// `opendir(3)`, `readdir(3)`, `dirfd(3)`, `fstatat(2)` (relative to the open directory, so each path is not
/// walked again) and `closedir(3)`.
func system_listDirectory(_ path: String, suffix: String) throws(Errno)
    -> [(name: String, status: FileStatus?, isSymbolicLink: Bool)]
{
    guard let dir = opendir(path) else { throw Errno.current }
    defer { closedir(dir) }
    let fd = dirfd(dir)
    var entries: [(name: String, status: FileStatus?, isSymbolicLink: Bool)] = []
    while let entry = readdir(dir) {
        let type = entry.pointee.d_type
        let found: (String, FileStatus?, Bool)? = withUnsafePointer(to: &entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: 256) { cName in
                if cName[0] == CChar(UInt8(ascii: ".")) { return nil }
                let name = String(cString: cName)
                guard name.hasSuffix(suffix) else { return nil }
                var isLink = type == UInt8(DT_LNK)
                if type == UInt8(DT_UNKNOWN) {
                    var own = stat()
                    isLink = fstatat(fd, cName, &own, AT_SYMLINK_NOFOLLOW) == 0 && own.st_mode & S_IFMT == S_IFLNK
                }
                var raw = stat()
                return (name, fstatat(fd, cName, &raw, 0) == 0 ? FileStatus(raw) : nil, isLink)
            }
        }
        if let found { entries.append(found) }
    }
    return entries
}

/// The folder part of a path (`dirname(3)` semantics, without modifying its argument).
func directoryName(of path: String) -> String {
    // An ASCII path, the usual one, by its bytes (each Character of it is one byte, so the rules below read
    // the same); discovery asks once per manifest.
    var bytes = path
    if let folder = bytes.withUTF8(asciiDirectoryName) { return folder }
    var trimmed = Substring(path)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "." }
    if slash == trimmed.startIndex { return "/" }
    return String(trimmed[..<slash])
}

/// ``directoryName(of:)`` of an ASCII path; `nil` when the path is not ASCII.
private func asciiDirectoryName(_ path: UnsafeBufferPointer<UInt8>) -> String? {
    guard path.allSatisfy({ $0 < 0x80 }) else { return nil }
    var end = path.count
    while end > 1 && path[end - 1] == UInt8(ascii: "/") { end -= 1 }
    guard let slash = path[..<end].lastIndex(of: UInt8(ascii: "/")) else { return "." }
    if slash == 0 { return "/" }
    return String(decoding: UnsafeBufferPointer(rebasing: path[..<slash]), as: UTF8.self)
}

/// A new inotify instance, non-blocking and closed on `exec`. Wraps `inotify_init1(2)` with
/// `IN_NONBLOCK | IN_CLOEXEC`.
/// - Returns: Its descriptor.
func system_inotify_init() throws(Errno) -> Int32 {
    let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    if fd < 0 { throw Errno.current }
    return fd
}

/// Watches a path for the events in `mask` (the same path again replaces its mask). Wraps
/// `inotify_add_watch(2)`.
/// - Returns: The watch descriptor, the same for one path on one instance.
func system_inotify_add_watch(_ fd: Int32, _ path: String, mask: UInt32) throws(Errno) -> Int32 {
    let wd = inotify_add_watch(fd, path, mask)
    if wd < 0 { throw Errno.current }
    return wd
}

/// Stops a watch (`inotify_rm_watch(2)`); an error (the watch is gone already) is ignored.
func system_inotify_rm_watch(_ fd: Int32, _ wd: Int32) {
    _ = inotify_rm_watch(fd, wd)
}

/// Reads what is there without waiting. Wraps `read(2)` on a non-blocking descriptor.
/// - Returns: The number of bytes read, or 0 when nothing is waiting (`EAGAIN`).
func system_readNonBlocking(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    let n = retryingInterrupts { read(fd, buffer.baseAddress, buffer.count) }
    if n < 0 {
        if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
        throw Errno.current
    }
    return n
}

// The raw C calls of plugin isolation (sockets, shared memory, processes, limits), as thin typed wrappers in
// the manner of swift-system's `Internals/Syscalls.swift`: each names the C function it wraps, retries `EINTR`
// where the call can be interrupted, and reports failure as an `Errno` instead of a sentinel.

import CMotionHostSupport
import MotionFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A connected pair of stream sockets, close-on-exec. Wraps `socketpair(2)` (`AF_UNIX`, `SOCK_STREAM`).
func system_socketpair() throws(Errno) -> (Int32, Int32) {
    var fds: [Int32] = [-1, -1]
    if socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) != 0 { throw Errno.current }
    return (fds[0], fds[1])
}

/// Sends all of `count` bytes on a socket, without SIGPIPE when the peer is gone. Wraps `send(2)` with
/// `MSG_NOSIGNAL`.
func system_sendAll(_ fd: Int32, _ bytes: UnsafeRawPointer, count: Int) throws(Errno) {
    var sent = 0
    while sent < count {
        let n = send(fd, bytes + sent, count - sent, Int32(MSG_NOSIGNAL))
        if n < 0 {
            if errno == EINTR { continue }
            throw Errno.current
        }
        sent += n
    }
}

/// Reads up to `count` bytes. Wraps `read(2)`. - Returns: the bytes read; 0 at end of file (the peer closed).
func system_read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) throws(Errno) -> Int {
    while true {
        let n = read(fd, buffer, count)
        if n < 0 {
            if errno == EINTR { continue }
            throw Errno.current
        }
        return n
    }
}

/// Waits until `fd` is readable or `milliseconds` pass (-1: no limit). Wraps `poll(2)`.
/// - Returns: whether it is readable (or closed, or in error: a read then says which).
func system_pollReadable(_ fd: Int32, milliseconds: Int32) throws(Errno) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
        let n = poll(&entry, 1, milliseconds)
        if n < 0 {
            if errno == EINTR { continue }
            throw Errno.current
        }
        return n > 0
    }
}

/// Waits until the peer of socket `fd` has closed its end, without reading anything. Wraps `poll(2)` with
/// `POLLRDHUP`. - Returns: `true` once it has (or the socket is in error), `false` if the wait was interrupted.
func system_waitForHangUp(_ fd: Int32) -> Bool {
    // POLLRDHUP (0x2000) is a GNU extension Swift's Glibc module does not import.
    let readHangUp: Int16 = 0x2000
    var entry = pollfd(fd: fd, events: readHangUp, revents: 0)
    let n = poll(&entry, 1, -1)
    return n > 0 && entry.revents & (readHangUp | Int16(POLLHUP | POLLERR | POLLNVAL)) != 0
}

/// An anonymous shared-memory file of `size` bytes, close-on-exec. Wraps `memfd_create(2)` and `ftruncate(2)`.
func system_sharedMemory(named name: String, size: Int) throws(Errno) -> Int32 {
    let fd = cmotionhost_memfd_create(name)
    if fd < 0 { throw Errno.current }
    if ftruncate(fd, off_t(size)) != 0 {
        let error = Errno.current
        close(fd)
        throw error
    }
    return fd
}

/// Maps `size` bytes of `fd` shared, readable and writable. Wraps `mmap(2)`; ``system_unmap(_:size:)`` ends the
/// mapping.
func system_mapShared(_ fd: Int32, size: Int) throws(Errno) -> UnsafeMutableRawPointer {
    let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
    guard let address, address != MAP_FAILED else { throw Errno.current }
    return address
}

/// Ends a mapping made by ``system_mapShared(_:size:)``; nothing may touch it afterwards. Wraps `munmap(2)`.
func system_unmap(_ address: UnsafeMutableRawPointer, size: Int) {
    munmap(address, size)
}

/// Starts `path` with `environment` (`NAME=value` strings) and descriptors `given[i]` as descriptor `3 + i`, standard input from `/dev/null` and standard
/// output and error to this process's standard error; every signal unblocked and at its default action. Wraps
/// `posix_spawn(3)`.
/// - Returns: The child's process id.
func system_spawn(_ path: String, arguments: [String], environment: [String], given: [Int32]) throws(Errno) -> pid_t {
    let actions: [Spawn.FileAction] =
        [.open(fd: 0, path: "/dev/null", flags: O_RDONLY), .duplicate(source: 2, as: 1)]
        + given.enumerated().map { .duplicate(source: $0.element, as: Int32(3 + $0.offset)) }
    do {
        return try Spawn.start(path, arguments: arguments, environment: environment, actions: actions)
    } catch {
        throw Errno(rawValue: error.errno)
    }
}

/// Waits for a child to end and returns its raw wait status. Wraps `waitpid(2)`.
func system_waitForExit(_ pid: pid_t) -> Int32? {
    var status: Int32 = 0
    while true {
        let result = waitpid(pid, &status, 0)
        if result == pid { return status }
        if result < 0, errno == EINTR { continue }
        return nil
    }
}

/// Sends SIGKILL. Wraps `kill(2)`.
func system_kill(_ pid: pid_t) { _ = kill(pid, SIGKILL) }

/// A wait status in words: "exited with status 3", "was killed by signal 11 (SIGSEGV)".
func describeWaitStatus(_ status: Int32) -> String {
    let signal = status & 0x7f
    if signal == 0 { return "exited with status \((status >> 8) & 0xff)" }
    let names: [Int32: String] = [
        SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE", SIGABRT: "SIGABRT", SIGTRAP: "SIGTRAP",
        SIGKILL: "SIGKILL", SIGSYS: "SIGSYS", SIGTERM: "SIGTERM", SIGXCPU: "SIGXCPU",
    ]
    return "was killed by signal \(signal)" + (names[signal].map { " (\($0))" } ?? "")
}

/// Whether a wait status is a death by signal, and which.
func signalOfWaitStatus(_ status: Int32) -> Int32? {
    let signal = status & 0x7f
    return signal == 0 || signal == 0x7f ? nil : signal
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A detached POSIX thread running one closure, for modules that import FoundationEssentials only (it has no
/// `Thread`). Wraps `pthread_create(3)` (default attributes: the process's default stack size, as Foundation's
/// `Thread` uses); the name is written to `/proc/thread-self/comm`, as `pthread_setname_np(3)` does (a GNU
/// extension that Swift's Glibc module does not import).
public enum DetachedThread {
    /// Starts `body` on a new detached thread.
    /// - Parameters:
    ///   - name: The thread's name as `ps -L`, `top -H` and debuggers show it; the kernel keeps its first 15
    ///     bytes.
    ///   - body: The thread's work; the thread ends when it returns.
    /// - Note: A thread that cannot be made (`EAGAIN`: the process's or system's thread limit) is a broken
    ///   invariant of the process and traps with the reason, as Foundation's `Thread.start()` does.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let argument = unsafe Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = unsafe pthread_create(&thread, nil, runStart, argument)
        if status != 0 {
            unsafe Unmanaged<Start>.fromOpaque(argument).release()
            fatalError("cannot start the thread \(name): \(unsafe String(cString: strerror(status)))")
        }
        pthread_detach(thread)
    }

    /// The new thread's entry: takes back the retained ``Start``, names the thread, runs the body.
    private static let runStart: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
        let start = unsafe Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
        nameThisThread(start.name)
        start.body()
        return nil
    }

    private static func nameThisThread(_ name: String) {
        let fd = unsafe open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = unsafe bytes.withUnsafeBytes { unsafe write(fd, $0.baseAddress, $0.count) }
    }

    private final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

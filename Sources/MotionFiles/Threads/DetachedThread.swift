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
    /// - Throws: ``ThreadStartFailure`` when `pthread_create(3)` cannot make the thread (`EAGAIN`: the process's
    ///   or the user's thread limit, `RLIMIT_NPROC`, or no memory for its stack). `body` is not run then. A
    ///   plugin's own threads count against the same limits, so the host reports this as it reports any other
    ///   failure to start something, instead of ending.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(ThreadStartFailure) {
        try start(name: name, stackBytes: nil, body)
    }

    /// ``start(name:_:)`` with a stack of `stackBytes` instead of the default size (for tests: a stack larger than
    /// the address space makes `pthread_create` fail as a thread limit does).
    static func start(name: String, stackBytes: Int?, _ body: @escaping @Sendable () -> Void) throws(ThreadStartFailure) {
        let argument = unsafe Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        unsafe pthread_attr_init(&attributes)
        defer { unsafe pthread_attr_destroy(&attributes) }
        if let stackBytes { unsafe pthread_attr_setstacksize(&attributes, stackBytes) }
        var thread = pthread_t()
        let status = unsafe pthread_create(&thread, &attributes, runStart, argument)
        if status != 0 {
            unsafe Unmanaged<Start>.fromOpaque(argument).release()
            throw ThreadStartFailure(name: name, errorNumber: status)
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

/// A thread that `pthread_create(3)` could not make (``DetachedThread/start(name:_:)``).
public struct ThreadStartFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name the thread was to have.
    public let name: String
    /// `pthread_create`'s error number (`EAGAIN`, `EINVAL`, `EPERM`).
    public let errorNumber: Int32

    /// "cannot start the thread NAME: REASON" (the reason is `strerror(3)`'s).
    public var description: String { "cannot start the thread \(name): \(unsafe String(cString: strerror(errorNumber)))" }
}

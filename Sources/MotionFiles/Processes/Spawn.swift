#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Starting a child process without Foundation's `Process` (which FoundationEssentials lacks).
public enum Spawn {
    /// What to do with a descriptor of the child before it runs.
    public enum FileAction: Sendable {
        /// Open `path` with `flags` as descriptor `fd` (`posix_spawn_file_actions_addopen`).
        case open(fd: Int32, path: String, flags: Int32)
        /// Make descriptor `source` of this process descriptor `fd` of the child
        /// (`posix_spawn_file_actions_adddup2`; the child's copy is not close-on-exec).
        case duplicate(source: Int32, as: Int32)
    }

    /// Starts `path` with its `arguments`, `environment` (`NAME=value` strings) and descriptors set up by
    /// `actions` in order; every signal unblocked and at its default action, whatever the starting thread
    /// blocked (a blocked SIGTERM would stay pending in the child: Documentation/PITFALLS.md). Wraps
    /// `posix_spawn(3)` with `POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF`.
    /// - Parameters:
    ///   - path: The executable's path (no `PATH` search).
    ///   - arguments: The arguments after `argv[0]`, which is `path`.
    ///   - environment: The child's whole environment.
    ///   - actions: Descriptor set-up, in order.
    /// - Returns: The child's process id.
    /// - Throws: The `errno` value `posix_spawn` returned (`ENOENT`, `EACCES`, `EAGAIN` …).
    public static func start(_ path: String, arguments: [String], environment: [String], actions: [FileAction]) throws(SpawnError)
        -> pid_t
    {
        var fileActions = unsafe posix_spawn_file_actions_t()
        unsafe posix_spawn_file_actions_init(&fileActions)
        defer { unsafe posix_spawn_file_actions_destroy(&fileActions) }
        for action in actions {
            switch action {
            case .open(let fd, let path, let flags): unsafe posix_spawn_file_actions_addopen(&fileActions, fd, path, flags, 0)
            case .duplicate(let source, let fd): unsafe posix_spawn_file_actions_adddup2(&fileActions, source, fd)
            }
        }
        var attributes = posix_spawnattr_t()
        unsafe posix_spawnattr_init(&attributes)
        defer { unsafe posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        unsafe sigemptyset(&none)
        unsafe posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        unsafe sigfillset(&all)
        unsafe posix_spawnattr_setsigdefault(&attributes, &all)
        unsafe posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = unsafe ([path] + arguments).map { unsafe strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = unsafe environment.map { unsafe strdup($0) } + [nil]
        defer { unsafe (argv + envp).forEach { unsafe free($0) } }
        var pid = pid_t()
        let result = unsafe posix_spawn(&pid, path, &fileActions, &attributes, argv, envp)
        if result != 0 { throw SpawnError(errno: result) }
        return pid
    }
}

/// Why a child process could not be started: the `errno` value `posix_spawn(3)` returned, with its `strerror` text.
public struct SpawnError: Error, Sendable, CustomStringConvertible {
    /// The `errno` value.
    public let errno: Int32
    /// A failure with this `errno` value (`pipe(2)` before the spawn fails alike).
    public init(errno: Int32) { self.errno = errno }
    /// `strerror(errno)`, e.g. "No such file or directory".
    public var description: String { unsafe String(cString: strerror(errno)) }
}

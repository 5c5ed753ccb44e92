#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A pthread mutex for the SDK's state shared by a plugin's threads: what `MotionFiles.ThreadLock` is to the host,
/// inside the SDK, which a plugin links without the host's modules.
///
/// The Thread Sanitizer sees a pthread mutex order the accesses it guards; `Synchronization.Mutex` is a futex in the
/// toolchain's uninstrumented library, which it does not see (Documentation/PITFALLS.md). Not re-entrant.
///
/// Thread rule: any thread; the thread that locked it unlocks it. Made once and kept for the library's life.
final class PluginLock: @unchecked Sendable {
    // @unchecked: the mutex is allocated once and never moves (a pthread mutex must not be copied).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A new, unlocked mutex (`pthread_mutex_init(3)`, default attributes).
    /// - Parameter what: What it guards, for the message if the mutex cannot be made.
    init(guarding what: String) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed for \(what)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    /// - Returns: What `body` returns.
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

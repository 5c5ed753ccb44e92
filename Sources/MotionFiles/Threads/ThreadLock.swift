#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A pthread mutex, as Foundation's `NSLock` is, for modules that import FoundationEssentials only.
///
/// Where Thread Sanitizer runs over the code (`.ci/tsan`) it sees a pthread mutex order the accesses it guards;
/// Synchronization's `Mutex` is a futex in the toolchain's uninstrumented library, which it does not see
/// (Documentation/PITFALLS.md). Not re-entrant: `lock()` twice on one thread deadlocks.
///
/// Thread rule: safe from any thread; the thread that locked it unlocks it.
@safe public final class ThreadLock: @unchecked Sendable {
    // @unchecked: the mutex is allocated once and never moves (a pthread mutex must not be copied).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A new, unlocked mutex (`pthread_mutex_init(3)` with default attributes).
    public init() {
        unsafe mutex = .allocate(capacity: 1)
        unsafe mutex.initialize(to: pthread_mutex_t())
        unsafe pthread_mutex_init(mutex, nil)
    }

    deinit {
        unsafe pthread_mutex_destroy(mutex)
        unsafe mutex.deallocate()
    }

    /// Waits for and takes the lock. Wraps `pthread_mutex_lock(3)`.
    public func lock() { unsafe pthread_mutex_lock(mutex) }

    /// Releases the lock. Wraps `pthread_mutex_unlock(3)`.
    public func unlock() { unsafe pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the lock.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (the lock is released first).
    public func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

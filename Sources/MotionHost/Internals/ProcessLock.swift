import Glibc

/// A value shared by every thread of the process, guarded by a pthread mutex (as `NSLock` is, which only full
/// Foundation has).
///
/// For process-wide registries that Thread Sanitizer runs over (`.ci/tsan`): Synchronization's `Mutex` is a
/// futex in the toolchain's uninstrumented library, so TSan cannot see it order the accesses it guards and
/// reports them as races; a pthread mutex it sees (Documentation/PITFALLS.md). These are not per-frame paths.
///
/// Thread rule: safe from any thread; `withLock` must not be re-entered on one thread.
final class ProcessLock<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `withLock`, under `lock`.
    // `mutex` is allocated once and never moves (a pthread mutex must not be copied).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, under the lock. Wraps `pthread_mutex_lock(3)` and `pthread_mutex_unlock(3)`.
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

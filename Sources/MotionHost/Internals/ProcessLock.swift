import MotionFiles

/// A value shared by every thread of the process, guarded by a pthread mutex (``MotionFiles/ThreadLock``).
///
/// For process-wide registries that Thread Sanitizer runs over (`.ci/tsan`): Synchronization's `Mutex` is a
/// futex in the toolchain's uninstrumented library, so TSan cannot see it order the accesses it guards and
/// reports them as races; a pthread mutex it sees (Documentation/PITFALLS.md). These are not per-frame paths.
///
/// Thread rule: safe from any thread; `withLock` must not be re-entered on one thread.
final class ProcessLock<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `withLock`, under `lock`.
    private let lock = ThreadLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock.
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

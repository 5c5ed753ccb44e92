import FoundationEssentials
import Glibc
import Synchronization

/// The thread-safe door into a scheduler: work from other threads waits here for the scheduler's
/// next turn (Documentation/RUNTIME.md R36), and emitters and tokens learn here whether their scheduler still exists
/// (R26, R34).
///
/// Thread rule: every member is safe to call from any thread.
final class SchedulerInbox: Sendable {
    enum Work: Sendable {
        case emit(Transaction, source: PerformerKey)
        case tokenGenerated(IsActiveToken, owner: PerformerKey)
        case tokenTerminated(UInt64, owner: PerformerKey)
        /// A token ended by its id (``IsActiveTokenGenerator/terminateOnAnyThread(tokenID:)``): its holder took
        /// it on the scheduler's thread, so no generation of it is still on the way.
        case tokenTerminatedByID(UInt64, owner: PerformerKey)
    }

    private struct State {
        var isAlive = true
        var pending: [Work] = []
        var nextToken: UInt64 = 1
    }

    private let state = Mutex(State())
    private let ownerThread: pthread_t
    private let hasWork = Atomic<Bool>(false)
    // Written once by the scheduler's init and read only on the scheduler's thread (see
    // `schedulerOnItsThread`), so the unchecked access is safe.
    nonisolated(unsafe) private weak var scheduler: Scheduler?

    init() { ownerThread = pthread_self() }

    func attach(_ scheduler: Scheduler) { self.scheduler = scheduler }

    /// The scheduler, when the caller is on its thread and it still exists; otherwise `nil`.
    var schedulerOnItsThread: Scheduler? {
        isOnSchedulerThread ? scheduler : nil
    }

    /// Whether the caller is on the scheduler's thread.
    // pthread_t is an integer on Linux: comparing directly saves a call on every token and emission.
    var isOnSchedulerThread: Bool { pthread_self() == ownerThread }

    /// Whether the scheduler still exists.
    var isAlive: Bool { state.withLock { $0.isAlive } }

    /// A fresh token id (never 0), or `nil` once the scheduler is gone.
    func makeTokenID() -> UInt64? {
        state.withLock { state in
            guard state.isAlive else { return nil }
            defer { state.nextToken += 1 }
            return state.nextToken
        }
    }

    /// Queues work for the scheduler's next turn.
    /// - Returns: `false` when the scheduler is gone and the work was dropped.
    @discardableResult
    func enqueue(_ work: Work) -> Bool {
        let queued = state.withLock { state in
            guard state.isAlive else { return false }
            state.pending.append(work)
            return true
        }
        if queued { hasWork.store(true, ordering: .releasing) }
        return queued
    }

    /// Takes every queued item, in order. Cheap when nothing is queued.
    func drain() -> [Work] {
        guard hasWork.load(ordering: .acquiring) else { return [] }
        return state.withLock { state in
            hasWork.store(false, ordering: .releasing)
            defer { state.pending.removeAll() }
            return state.pending
        }
    }

    /// Marks the scheduler gone: later work is refused, later tokens are not generated.
    func close() { state.withLock { $0.isAlive = false } }
}

/// Identifies one performer of one scheduler: its place in the scheduler's dense performer records and
/// the attempt that made it (8 bytes, so an emitter or token generator carrying it allocates nothing).
///
/// ``incarnation`` is unique per creation attempt within a scheduler: a performer that replaced another in
/// its place (``Scheduler/recreatePerformers(of:)``, R43), or whose creation failed, carries another one, so
/// an emitter, token generator or token of a replaced or never-made performer matches no record and the
/// scheduler ignores it.
struct PerformerKey: Hashable, Sendable {
    /// The performer's index in the scheduler's records (creation order).
    let index: Int32
    /// Which creation attempt of the scheduler made it (never reused).
    let incarnation: UInt32
}

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
        case tokenTerminated(UInt64)
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

/// Identifies one performer of one scheduler: its target and its class.
///
/// Keys compare and hash by target and class only. ``incarnation`` tells the performers that held one
/// (target, class) apart when ``Scheduler/recreatePerformers(of:)`` replaced one (R43): an emitter or token
/// generator of a replaced performer carries the old incarnation, and the scheduler ignores its tokens and
/// its emissions.
struct PerformerKey: Hashable, Sendable {
    let target: TargetID
    let classID: ObjectIdentifier
    /// 0 for the first performer of a (target, class), one more for each that replaced it.
    var incarnation: UInt32 = 0

    static func == (lhs: PerformerKey, rhs: PerformerKey) -> Bool { lhs.target == rhs.target && lhs.classID == rhs.classID }

    func hash(into hasher: inout Hasher) {
        hasher.combine(target)
        hasher.combine(classID)
    }

    /// Whether both keys name the same performer, incarnation included.
    func isSamePerformer(as other: PerformerKey) -> Bool { self == other && incarnation == other.incarnation }
}

/// Lets a performer emit transactions of its own (composition, Documentation/RUNTIME.md R22–R26).
///
/// Thread rule: ``emit(_:)`` may be called from any thread. On the scheduler's thread the transaction
/// is performed at once, depth-first, before `emit` returns (R22); from any other thread it is queued
/// and applied, in order, at the scheduler's next turn.
///
/// A value (16 bytes: the scheduler's inbox and the performer's key), so that a performer that never emits
/// costs no object; copies emit for the same performer.
public struct TransactionEmitter: Sendable {
    private let inbox: SchedulerInbox
    let source: PerformerKey

    init(inbox: SchedulerInbox, source: PerformerKey) {
        self.inbox = inbox
        self.source = source
    }

    /// Emits a transaction on behalf of the performer.
    /// - Returns: `true` if the transaction was performed (or queued, off the scheduler's thread);
    ///   `false` if the scheduler is gone and nothing was done (R26).
    /// - Throws: ``CommitError`` when performing the transaction fails (an unknown plan type, an emission
    ///   cycle, R25 ...); operations before the failing one stay applied. The performer decides what that
    ///   means: if it handles the error and returns normally, the operation that emitted succeeds; if it
    ///   fails, the operation fails with this error (which names the cause and the chain).
    @discardableResult
    public func emit(_ transaction: Transaction) throws(CommitError) -> Bool {
        if let scheduler = inbox.schedulerOnItsThread {
            try scheduler.commitEmitted(transaction, from: source)
            return true
        }
        return inbox.enqueue(.emit(transaction, source: source))
    }
}

import Synchronization

/// Why a token operation did nothing.
public struct TokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable {
        private enum Value: Hashable, Sendable { case alreadyTerminated, schedulerGone, wrongThread }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        /// The token was terminated before (R33); the activity count did not change again.
        public static let alreadyTerminated = Code(.alreadyTerminated)
        /// The scheduler is gone (R34).
        public static let schedulerGone = Code(.schedulerGone)
        /// A token taken by id was ended off the scheduler's thread (``IsActiveTokenGenerator/terminate(tokenID:)``);
        /// nothing changed.
        public static let wrongThread = Code(.wrongThread)
    }

    /// What kind of failure this is.
    public let code: Code
    /// The token concerned, if any.
    public let tokenID: UInt64?

    public var description: String {
        switch code {
        case .alreadyTerminated: "is-active token \(tokenID ?? 0) was already terminated; a token terminates once"
        case .wrongThread:
            "is-active token \(tokenID ?? 0) was taken by id and ended off the scheduler's thread. To fix, end it on that thread, or take a token object (generate()), which any thread may end"
        default: "the scheduler is gone; no is-active token is generated after it"
        }
    }
}

/// A token a continuous performer holds while it works; the scheduler is active while any token is
/// outstanding (Documentation/RUNTIME.md R29–R32).
///
/// Thread rule: ``terminate()`` may be called from any thread (R36); the activity change is delivered on
/// the scheduler's thread, at once when called there, else at the scheduler's next turn.
public final class IsActiveToken: Sendable, Hashable, CustomStringConvertible {
    /// The token's id, unique within its scheduler and never 0 (the C ABI's `motion_token`), below 2^63.
    public var id: UInt64 { state.load(ordering: .relaxed) & ~Self.terminatedBit }
    /// The id, and (the top bit) whether the token was terminated: one word, so that a token is 40 bytes
    /// (a 48-byte heap block; with a separate flag it took 64).
    private let state: Atomic<UInt64>
    private static let terminatedBit: UInt64 = 1 << 63
    private let inbox: SchedulerInbox
    /// The performer that took the token: the scheduler finds its record by it, with no table of tokens.
    let owner: PerformerKey

    init(id: UInt64, inbox: SchedulerInbox, owner: PerformerKey) {
        precondition(id < Self.terminatedBit, "is-active token ids are below 2^63")
        self.state = Atomic(id)
        self.inbox = inbox
        self.owner = owner
    }

    /// Whether the token has been terminated.
    public var isTerminated: Bool { state.load(ordering: .acquiring) & Self.terminatedBit != 0 }

    /// Ends the token. Terminating twice is an error and changes nothing the second time (R33).
    /// - Throws: ``TokenError`` with code `.alreadyTerminated` on a second call.
    public func terminate() throws(TokenError) {
        let id = self.id
        guard state.bitwiseOr(Self.terminatedBit, ordering: .acquiringAndReleasing).oldValue & Self.terminatedBit == 0 else {
            throw TokenError(code: .alreadyTerminated, tokenID: id)
        }
        if let scheduler = inbox.schedulerOnItsThread {
            scheduler.tokenTerminated(id, owner: owner)
        } else {
            inbox.enqueue(.tokenTerminated(id, owner: owner))
        }
    }

    /// Marks the token terminated without telling the scheduler (the scheduler is tearing it down).
    func invalidate() { state.bitwiseOr(Self.terminatedBit, ordering: .releasing) }

    public static func == (lhs: IsActiveToken, rhs: IsActiveToken) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String { "token \(id)" }
}

/// Generates is-active tokens for one performer (Documentation/RUNTIME.md R11, R29–R34).
///
/// Thread rule: ``generate()`` may be called from any thread; the activity change is delivered on the
/// scheduler's thread.
///
/// A value (16 bytes: the scheduler's inbox and the performer's key), so that a performer that never takes a
/// token costs no object; copies generate tokens for the same performer.
public struct IsActiveTokenGenerator: Sendable {
    private let inbox: SchedulerInbox
    let owner: PerformerKey

    init(inbox: SchedulerInbox, owner: PerformerKey) {
        self.inbox = inbox
        self.owner = owner
    }

    /// A new outstanding token, or `nil` when the scheduler is gone (R34).
    ///
    /// A 48-byte object per token (with a performer's first, the scheduler keeps no other); a performer that
    /// takes and ends its tokens on the scheduler's thread may take them by id instead (``generateID()``).
    public func generate() -> IsActiveToken? {
        guard let id = inbox.makeTokenID() else { return nil }
        let token = IsActiveToken(id: id, inbox: inbox, owner: owner)
        if let scheduler = inbox.schedulerOnItsThread {
            scheduler.tokenGenerated(token, owner: owner)
        } else if !inbox.enqueue(.tokenGenerated(token, owner: owner)) {
            token.invalidate()
            return nil
        }
        return token
    }

    /// A new outstanding token that is only its id, with no object: the same token as ``generate()`` gives
    /// (it keeps the scheduler active, is traced and is ended when the performer goes, R29–R32, R37), for a
    /// performer that takes and ends its tokens on the scheduler's thread, such as a frame-updated one
    /// (issue 12: a 48-byte object per running Tween was a tenth of its memory). End it with
    /// ``terminate(tokenID:)`` of a generator of the same performer.
    /// - Returns: The token's id (never 0, unique within the scheduler, as ``IsActiveToken/id``), or `nil`
    ///   when the scheduler is gone (R34), the performer was replaced (R43), or the call is off the
    ///   scheduler's thread (which takes no token).
    public func generateID() -> UInt64? {
        guard let scheduler = inbox.schedulerOnItsThread else { return nil }
        return scheduler.generateTokenID(owner: owner)
    }

    /// Ends one of this performer's outstanding tokens by id: one from ``generateID()``, or a token object's
    /// ``IsActiveToken/id`` (the object is then terminated too). On the scheduler's thread only; the activity
    /// change is delivered at once (R29, R35).
    /// - Parameter tokenID: The token's id.
    /// - Throws: ``TokenError`` with code `.alreadyTerminated` when the performer holds no token of that id
    ///   (it was ended already, R33, by the performer or by the scheduler when the performer was replaced,
    ///   R43; or it is not this performer's), `.schedulerGone` when the scheduler is gone (which ended its
    ///   tokens, R37), `.wrongThread` off the scheduler's thread. Each changes nothing.
    public func terminate(tokenID: UInt64) throws(TokenError) {
        guard inbox.isOnSchedulerThread else { throw TokenError(code: .wrongThread, tokenID: tokenID) }
        guard let scheduler = inbox.schedulerOnItsThread else { throw TokenError(code: .schedulerGone, tokenID: tokenID) }
        guard scheduler.terminateToken(id: tokenID, owner: owner) else { throw TokenError(code: .alreadyTerminated, tokenID: tokenID) }
    }

    /// Ends a token taken by id from any thread: at once on the scheduler's thread, else queued for its next turn,
    /// as an ``IsActiveToken/terminate()`` from another thread is (R36). For a holder that keeps its own record
    /// of which of its ids are outstanding and ends each once (the plugin host's contexts, whose `token_terminate`
    /// any thread may call): an id that is not outstanding changes nothing when its turn comes.
    /// - Parameter tokenID: An id from ``generateID()`` of this performer.
    /// - Returns: `false` when the scheduler is gone (it ended its tokens, R37), or, on its thread, when the
    ///   performer holds no token of that id; nothing changed then.
    package func terminateOnAnyThread(tokenID: UInt64) -> Bool {
        if let scheduler = inbox.schedulerOnItsThread { return scheduler.terminateToken(id: tokenID, owner: owner) }
        if inbox.isOnSchedulerThread { return false }
        return inbox.enqueue(.tokenTerminatedByID(tokenID, owner: owner))
    }
}

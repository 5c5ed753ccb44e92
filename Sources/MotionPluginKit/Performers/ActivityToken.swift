import CMotionABI

/// The one is-active token a continuous performer holds while it works: ``hold(_:)`` takes it if none is
/// held, ``release(_:)`` terminates it. A release after the scheduler has gone (which ends every token
/// itself, R37) is not an error; other failures are logged through the context.
///
/// ```swift
/// private var token = ActivityToken()
/// func add(_ plan: any PluginPlan) throws { …; token.hold(context) }
/// func update(frame: Frame) { …; if done { token.release(context) } }
/// deinit { token.release(context) }
/// ```
public struct ActivityToken: Sendable {
    /// The host's token value, 0 when none is held: a token with no object (``Token`` is one per token).
    private var rawValue: motion_token = 0

    /// No token held.
    public init() {}

    /// Takes a token if none is held.
    /// - Parameter context: the performer's context.
    public mutating func hold(_ context: PerformerContext) {
        guard rawValue == 0 else { return }
        guard let value = context.generateTokenValue() else {
            context.log(.warning, "the host gave no is-active token; the scheduler may have gone.")
            return
        }
        rawValue = value
    }

    /// Terminates the held token, if any.
    /// - Parameter context: the performer's context, for logging a failure.
    public mutating func release(_ context: PerformerContext) {
        guard rawValue != 0 else { return }
        let held = rawValue
        rawValue = 0
        do {
            try context.terminateToken(held)
        } catch  where error.code == .schedulerGone {
            // The scheduler went away first and has already ended the token (R37): nothing to do.
        } catch {
            context.log(.warning, "terminating token \(held) failed: \(error)")
        }
    }

    /// Whether a token is held.
    public var isHeld: Bool { rawValue != 0 }
}

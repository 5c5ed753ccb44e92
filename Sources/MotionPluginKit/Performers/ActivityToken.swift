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
    private var token: Token?

    /// No token held.
    public init() {}

    /// Takes a token if none is held.
    /// - Parameter context: the performer's context.
    public mutating func hold(_ context: PerformerContext) {
        guard token == nil else { return }
        token = context.generateToken()
        if token == nil { context.log(.warning, "the host gave no is-active token; the scheduler may have gone.") }
    }

    /// Terminates the held token, if any.
    /// - Parameter context: the performer's context, for logging a failure.
    public mutating func release(_ context: PerformerContext) {
        guard let held = token else { return }
        token = nil
        do {
            try held.terminate()
        } catch  where error.code == .schedulerGone {
            // The scheduler went away first and has already ended the token (R37): nothing to do.
        } catch {
            context.log(.warning, "terminating \(held) failed: \(error)")
        }
    }

    /// Whether a token is held.
    public var isHeld: Bool { token != nil }
}

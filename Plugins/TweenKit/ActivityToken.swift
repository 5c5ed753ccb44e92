import MotionPluginKit

/// One is-active token held while a performer has any animation running.
struct ActivityToken {
    private var token: Token?

    /// Takes a token if none is held.
    /// - Parameter context: the performer's context.
    mutating func hold(_ context: PerformerContext) {
        guard token == nil else { return }
        token = context.generateToken()
        if token == nil { context.log(.warning, "the host gave no is-active token; the scheduler may have gone.") }
    }

    /// Terminates the held token, if any.
    /// - Parameter context: the performer's context, for logging a failure.
    mutating func release(_ context: PerformerContext) {
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
    var isHeld: Bool { token != nil }
}

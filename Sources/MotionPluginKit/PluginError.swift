import CMotionABI

/// An error a plugin's performer reports to the host, or that the host reported to the plugin.
///
/// Thrown by performers (`add(_:)`, `init(context:)`) it becomes the `motion_status` and message of
/// the C call's `motion_error`; thrown by `PerformerContext` and `Token` it carries the status the
/// host returned. `code` is a raw-value struct over `motion_status`, so statuses a newer host adds
/// pass through unchanged.
public struct PluginError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A `motion_status` with a Swift name, e.g. `.invalidPlan` is `MOTION_ERR_INVALID_PLAN` (-2).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The `motion_status` value (negative for errors).
        public let rawValue: Int32

        /// Wraps a `motion_status`.
        /// - Parameter rawValue: the status, e.g. `MOTION_ERR_INVALID_PLAN`.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `MOTION_ERR_INVALID_ARGUMENT`: a NULL pointer, empty name, or a context that is no longer live.
        public static let invalidArgument = Code(rawValue: -1)
        /// `MOTION_ERR_INVALID_PLAN`: malformed plan JSON, or a missing, mistyped or out-of-range field.
        public static let invalidPlan = Code(rawValue: -2)
        /// `MOTION_ERR_UNKNOWN_CLASS`: the plugin has no performer class of that name.
        public static let unknownClass = Code(rawValue: -3)
        /// `MOTION_ERR_UNKNOWN_PLAN_TYPE`: no performer here (or, for an emission, no manifest) has that plan type.
        public static let unknownPlanType = Code(rawValue: -4)
        /// `MOTION_ERR_TOKEN_ALREADY_TERMINATED`: a second terminate of one token; it changed nothing.
        public static let tokenAlreadyTerminated = Code(rawValue: -5)
        /// `MOTION_ERR_UNKNOWN_TOKEN`: the token was never generated through this context.
        public static let unknownToken = Code(rawValue: -6)
        /// `MOTION_ERR_SCHEDULER_GONE`: the scheduler (or the performer's context) has gone; nothing was done.
        public static let schedulerGone = Code(rawValue: -7)
        /// `MOTION_ERR_EMISSION_FAILED`: an emitted transaction was malformed or one of its operations failed.
        public static let emissionFailed = Code(rawValue: -8)
        /// `MOTION_ERR_UNKNOWN_PROPERTY`: the property id is not interned or the target has no value for it.
        public static let unknownProperty = Code(rawValue: -9)
        /// `MOTION_ERR_BUFFER_TOO_SMALL`: a buffer was too small (the SDK retries with a larger one itself).
        public static let bufferTooSmall = Code(rawValue: -10)
        /// `MOTION_ERR_WRONG_THREAD`: a scheduler-thread host function was called from another thread.
        public static let wrongThread = Code(rawValue: -11)
        /// `MOTION_ERR_INTERNAL`: anything else.
        public static let `internal` = Code(rawValue: -12)
        /// `MOTION_ERR_TOO_LARGE` (ABI 1.2): an emitted transaction is over `MOTION_EMIT_MAX_BYTES` or
        /// `MOTION_EMIT_MAX_OPERATIONS`; nothing of it was done.
        public static let tooLarge = Code(rawValue: -13)

        /// The C constant's name, e.g. `MOTION_ERR_INVALID_PLAN` (from `motion_status_name`).
        public var description: String { String(cString: motion_status_name(rawValue)) }
    }

    /// The status.
    public let code: Code
    /// What happened and how to fix it.
    public let message: String
    /// The plan field the error concerns, if any (e.g. `"duration"`).
    public let field: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the status to report.
    ///   - message: what happened and how to fix it ("... To fix, ...").
    ///   - field: the plan field it concerns, if any; it prefixes the message sent to the host.
    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    /// A `MOTION_ERR_INVALID_PLAN` error about one field.
    /// - Parameters:
    ///   - field: the plan field, e.g. `"controlPoints"`.
    ///   - message: what was wrong and what to pass instead.
    /// - Returns: the error.
    public static func invalidPlan(field: String, _ message: String) -> PluginError {
        PluginError(.invalidPlan, message, field: field)
    }

    /// `"<field>: <message>"`, or the message alone; what the host receives in `motion_error.message`.
    public var description: String {
        if let field { return "\(field): \(message)" }
        return message
    }
}

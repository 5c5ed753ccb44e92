/// Why a commit failed, which operation failed and how much of the transaction was applied.
///
/// Operations before ``operationIndex`` stay applied (``appliedOperationCount``); the failing operation
/// is not half-applied (Documentation/RUNTIME.md R12). The scheduler stays consistent and usable.
public struct CommitError: Error, CustomStringConvertible, @unchecked Sendable {
    /// What kind of failure this is. A struct over a private enum, so codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Sendable {
            case invalidTransaction, invalidPlan, unknownTarget, unknownPlanType, emptyName
            case performerUnavailable, performerRefused, unsupportedOperation
            case emissionCycle, emissionTooDeep, schedulerGone, wrongThread
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The transaction JSON does not decode.
        public static let invalidTransaction = Code(.invalidTransaction)
        /// A plan fails its plan type's schema (a field missing, mistyped or out of range).
        public static let invalidPlan = Code(.invalidPlan)
        /// The operation names a target the scene does not have.
        public static let unknownTarget = Code(.unknownTarget)
        /// No registered performer class performs the plan type.
        public static let unknownPlanType = Code(.unknownPlanType)
        /// A named plan operation has an empty name (R21).
        public static let emptyName = Code(.emptyName)
        /// The performer could not be created: its factory, plugin or library failed (R12).
        public static let performerUnavailable = Code(.performerUnavailable)
        /// The performer refused the plan or the removal.
        public static let performerRefused = Code(.performerRefused)
        /// The performer does not support the operation (for example a named plan on a performer
        /// without named plans).
        public static let unsupportedOperation = Code(.unsupportedOperation)
        /// An emitted plan would be performed again inside its own emission chain (R25).
        public static let emissionCycle = Code(.emissionCycle)
        /// Emissions nested deeper than ``Scheduler/maximumEmissionDepth`` (R25).
        public static let emissionTooDeep = Code(.emissionTooDeep)
        /// The scheduler is gone (R26).
        public static let schedulerGone = Code(.schedulerGone)
        /// Committed from a thread other than the scheduler's.
        public static let wrongThread = Code(.wrongThread)

        public var description: String { value.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened and how to fix it.
    public var message: String
    /// The index of the failing operation in its transaction, if an operation failed.
    public var operationIndex: Int?
    /// The failing operation's target.
    public var target: TargetID?
    /// The failing operation's plan type.
    public var planType: String?
    /// How many operations of the transaction were applied (they stay applied).
    public var appliedOperationCount: Int
    /// The plan types of the emission chain that led to the failure, outermost first (R25).
    public var emissionChain: [String]
    /// The cause, if another error caused this one.
    public var underlying: (any Error)?

    /// Creates a commit error.
    public init(
        code: Code, message: String, operationIndex: Int? = nil, target: TargetID? = nil,
        planType: String? = nil, appliedOperationCount: Int = 0, emissionChain: [String] = [],
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.operationIndex = operationIndex
        self.target = target
        self.planType = planType
        self.appliedOperationCount = appliedOperationCount
        self.emissionChain = emissionChain
        self.underlying = underlying
    }

    /// One line: where (operation, target, plan type), then what happened.
    public var description: String {
        var place: [String] = []
        if let operationIndex { place.append("operation \(operationIndex)") }
        if let target { place.append("target \"\(target.name)\"") }
        if let planType { place.append("plan type \"\(planType)\"") }
        return place.isEmpty ? message : "\(place.joined(separator: ", ")): \(message)"
    }
}

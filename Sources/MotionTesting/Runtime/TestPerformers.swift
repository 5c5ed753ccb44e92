import Foundation
import MotionCore
import Synchronization

/// A shared, ordered log of the calls test performers receive, as one-line strings:
/// `create C@t`, `emitter C@t`, `tokens C@t`, `add C@t {plan json}`, `addNamed C@t name {plan json}`,
/// `removeNamed C@t name`, `update C@t frame`, `destroy C@t`.
///
/// The same strings come from the test plugin across the C ABI, so one behaviour test runs against
/// in-process and plugin performers alike.
///
/// Thread rule: safe from any thread.
public final class CallLog: Sendable {
    private let entries = Mutex<[String]>([])

    /// An empty log.
    public init() {}

    /// Appends one entry.
    public func append(_ entry: String) { entries.withLock { $0.append(entry) } }

    /// Every entry, in order.
    public var all: [String] { entries.withLock { $0 } }

    /// Entries with the given prefix (e.g. `"add "`), in order.
    public func entries(startingWith prefix: String) -> [String] { all.filter { $0.hasPrefix(prefix) } }

    /// Forgets every entry.
    public func reset() { entries.withLock { $0.removeAll() } }
}

/// The plan types of the test performers, and the classes that perform them.
///
/// | plan type | class | what it does |
/// |---|---|---|
/// | `Record`, `RecordToo` | `RecordingPerformer` | logs every call |
/// | `RecordOther` | `OtherRecordingPerformer` | logs every call |
/// | `SetValue`, `SetVector` `{property, value}` | `SetValuePerformer` | sets a property of its target (a number, or 1–4 numbers) |
/// | `Emit` `{transaction}` | `EmittingPerformer` | emits the transaction in its plan |
/// | `HoldTokens` `{count, terminateAfterFrames}` | `TokenPerformer` | takes `count` tokens; terminates them after N frames (0 = at once, -1 = never) |
public enum TestPerformers {
    /// A registry of every test performer, logging to `log`.
    public static func makeRegistry(log: CallLog) -> InProcessRegistry {
        let registry = InProcessRegistry()
        registry.register(planTypes: ["Record", "RecordToo"], className: "RecordingPerformer") {
            RecordingPerformer(context: $0, log: log)
        }
        registry.register(planTypes: ["RecordOther"], className: "OtherRecordingPerformer") {
            RecordingPerformer(context: $0, log: log)
        }
        registry.register(planTypes: ["SetValue", "SetVector"], className: "SetValuePerformer") {
            SetValuePerformer(context: $0, log: log)
        }
        registry.register(planTypes: ["Emit"], className: "EmittingPerformer") {
            EmittingPerformer(context: $0, log: log)
        }
        registry.register(planTypes: ["HoldTokens"], className: "TokenPerformer") {
            TokenPerformer(context: $0, log: log)
        }
        return registry
    }

    static func json(_ plan: Plan) -> String {
        (try? plan.jsonData()).flatMap { String(data: $0, encoding: .utf8) } ?? plan.type
    }
}

/// The base of the test performers: logs creation, the emitter and token generator hand-over, and
/// every plan call to a ``CallLog``.
public class LoggingPerformer: NamedPlanPerforming, ComposablePerforming, ContinuousPerforming {
    /// The performer's target.
    public let target: Target
    /// `Class@target`, as log entries name it.
    public let name: String
    let log: CallLog
    /// The emitter handed over by the scheduler.
    public private(set) var emitter: TransactionEmitter?
    /// The token generator handed over by the scheduler.
    public private(set) var tokenGenerator: IsActiveTokenGenerator?
    /// Every plan received, in order.
    public private(set) var plans: [Plan] = []

    init(context: PerformerContext, log: CallLog) {
        self.target = context.target
        self.name = "\(context.performerClass.name)@\(context.target.id.name)"
        self.log = log
        log.append("create \(name)")
    }

    deinit { log.append("destroy \(name)") }

    public func setEmitter(_ emitter: TransactionEmitter) {
        log.append("emitter \(name)")
        self.emitter = emitter
    }

    public func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) {
        log.append("tokens \(name)")
        tokenGenerator = generator
    }

    public func addPlan(_ plan: Plan) throws {
        log.append("add \(name) \(TestPerformers.json(plan))")
        plans.append(plan)
        try perform(plan)
    }

    public func addPlan(_ plan: Plan, named planName: String) throws {
        log.append("addNamed \(name) \(planName) \(TestPerformers.json(plan))")
        plans.append(plan)
        try perform(plan)
    }

    public func removePlan(named planName: String) throws {
        log.append("removeNamed \(name) \(planName)")
    }

    func perform(_ plan: Plan) throws {}
}

/// Logs every call and does nothing else.
public final class RecordingPerformer: LoggingPerformer {}

/// Sets `property` of its target to `value` (a number or 1–4 numbers).
public final class SetValuePerformer: LoggingPerformer {
    override func perform(_ plan: Plan) throws {
        guard let property = plan["property"]?.string else { throw TestPerformerError("SetValue needs a string \"property\"") }
        let value: PropertyValue
        switch plan["value"] {
        case .number(let n): value = PropertyValue(n)
        case .array(let a): value = PropertyValue(a.compactMap(\.number))
        default: throw TestPerformerError("SetValue needs a numeric \"value\"")
        }
        target.setValue(value, forName: property)
    }
}

/// Emits the transaction in its plan's `transaction` field, and rethrows a failure.
public final class EmittingPerformer: LoggingPerformer {
    /// What the last `emit` returned (`false`: the scheduler was gone).
    public private(set) var lastEmitResult: Bool?

    override func perform(_ plan: Plan) throws {
        guard let transactionJSON = plan["transaction"] else { return }
        let transaction = try JSONDecoder().decode(Transaction.self, from: JSONEncoder().encode(transactionJSON))
        lastEmitResult = try emitter?.emit(transaction)
    }

    /// Emits a transaction now (for tests of emission outside a plan call, e.g. after the scheduler is gone).
    public func emitNow(_ transaction: Transaction) throws -> Bool {
        try emitter?.emit(transaction) ?? false
    }
}

/// Takes `count` is-active tokens per plan and terminates them after `terminateAfterFrames` frames
/// (0: at once; -1 or absent: never). Frame-updated; logs `update C@t <frame index>`.
public final class TokenPerformer: LoggingPerformer, FrameUpdating {
    /// The tokens it holds, outstanding or not.
    public private(set) var tokens: [IsActiveToken] = []
    private var framesLeft: [Int] = []

    override func perform(_ plan: Plan) throws {
        let count = Int(plan["count"]?.number ?? 1)
        let after = Int(plan["terminateAfterFrames"]?.number ?? -1)
        for _ in 0..<count {
            guard let token = tokenGenerator?.generate() else { continue }
            if after == 0 {
                try token.terminate()
            } else {
                tokens.append(token)
                framesLeft.append(after)
            }
        }
    }

    public func update(frame: Frame) {
        log.append("update \(name) \(frame.index)")
        for i in tokens.indices where framesLeft[i] > 0 {
            framesLeft[i] -= 1
            if framesLeft[i] == 0 { try? tokens[i].terminate() }
        }
    }
}

/// A test performer's refusal of a plan.
public struct TestPerformerError: Error, CustomStringConvertible {
    /// What was wrong with the plan.
    public let description: String
    init(_ description: String) { self.description = description }
}

import FoundationEssentials
import MotionFiles

/// One event of a scheduler, as tracers see it (Documentation/RUNTIME.md R40).
///
/// Plans in events are the scheduler's own copies.
public enum TraceEvent: Sendable, Equatable, CustomStringConvertible {
    /// A transaction was committed from outside the scheduler.
    case committed(Transaction)
    /// A performer emitted a transaction (R23, R24). `crossesTargets` is true when any operation
    /// targets another target than the emitting performer's.
    case emitted(Transaction, by: PerformerDescription, crossesTargets: Bool)
    /// A performer was created (R39: before its first add).
    case performerCreated(PerformerDescription)
    /// A performer was removed and released, to be replaced by a new one of its class (R43).
    case performerDestroyed(PerformerDescription)
    /// A performer performed a plan (after its `addPlan` returned).
    case planAdded(Plan, performer: PerformerDescription)
    /// A performer performed a named plan.
    case namedPlanAdded(Plan, name: String, performer: PerformerDescription)
    /// A performer stopped performing a named plan.
    case namedPlanRemoved(name: String, performer: PerformerDescription)
    /// A performer generated an is-active token.
    case tokenGenerated(id: UInt64, performer: PerformerDescription)
    /// An is-active token was terminated (by its performer, or by the scheduler going away: R37).
    case tokenTerminated(id: UInt64, performer: PerformerDescription)
    /// The scheduler became active or idle.
    case activityChanged(isActive: Bool)

    /// One line describing the event, as the console tracer prints it.
    public var description: String {
        func json(_ plan: Plan) -> String {
            (try? plan.jsonData()).flatMap { String(data: $0, encoding: .utf8) } ?? plan.type
        }
        func json(_ transaction: Transaction) -> String {
            (try? transaction.jsonData()).flatMap { String(data: $0, encoding: .utf8) } ?? "transaction"
        }
        switch self {
        case .committed(let t): return "commit \(json(t))"
        case .emitted(let t, let by, let crosses):
            return "emit by \(by)\(crosses ? " (to other targets)" : "") \(json(t))"
        case .performerCreated(let p): return "create \(p)"
        case .performerDestroyed(let p): return "destroy \(p)"
        case .planAdded(let plan, let p): return "add \(p) \(json(plan))"
        case .namedPlanAdded(let plan, let name, let p): return "add named \"\(name)\" \(p) \(json(plan))"
        case .namedPlanRemoved(let name, let p): return "remove named \"\(name)\" \(p)"
        case .tokenGenerated(let id, let p): return "token \(id) generated \(p)"
        case .tokenTerminated(let id, let p): return "token \(id) terminated \(p)"
        case .activityChanged(let isActive): return isActive ? "active" : "idle"
        }
    }
}

/// Which performer an event concerns: its target and its class's name.
public struct PerformerDescription: Hashable, Sendable, CustomStringConvertible {
    /// The performer's target.
    public let target: TargetID
    /// The performer class's name.
    public let className: String

    /// A performer description.
    public init(target: TargetID, className: String) {
        self.target = target
        self.className = className
    }

    public var description: String { "\(className)@\(target.name)" }
}

/// Sees every event of a scheduler (Documentation/RUNTIME.md R40).
///
/// Thread rule: called on the scheduler's thread, synchronously, in event order.
public protocol Tracer: AnyObject {
    /// Receives one event.
    func trace(_ event: TraceEvent)
}

/// A tracer that prints each event as one line, prefixed with `[motion]`.
public final class ConsoleTracer: Tracer {
    private let write: (String) -> Void

    /// A tracer printing to standard error, or through `write` (one call per line, without newline).
    public init(write: ((String) -> Void)? = nil) {
        self.write = write ?? { line in StandardStream.error.write(line + "\n") }
    }

    public func trace(_ event: TraceEvent) { write("[motion] \(event)") }
}

/// Told when a scheduler becomes active or idle (Documentation/RUNTIME.md R35, R38).
///
/// Thread rule: called on the scheduler's thread, synchronously, once per transition.
public protocol ActivityObserver: AnyObject {
    /// The scheduler changed between idle and active.
    func schedulerActivityDidChange(isActive: Bool)
}

/// An activity observer that calls a closure.
public final class ActivityObserverClosure: ActivityObserver {
    private let body: (Bool) -> Void

    /// An observer calling `body` with the new activity state.
    public init(_ body: @escaping (_ isActive: Bool) -> Void) { self.body = body }

    public func schedulerActivityDidChange(isActive: Bool) { body(isActive) }
}

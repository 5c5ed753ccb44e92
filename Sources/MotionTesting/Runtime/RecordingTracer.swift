import MotionCore

/// A tracer that keeps every event, for assertions.
///
/// Thread rule: the scheduler's thread.
public final class RecordingTracer: Tracer {
    /// Every event received, in order.
    public private(set) var events: [TraceEvent] = []

    /// A tracer with no events yet.
    public init() {}

    public func trace(_ event: TraceEvent) { events.append(event) }

    /// The events as the console tracer would print them, one string each.
    public var lines: [String] { events.map(\.description) }

    /// Forgets the events received so far.
    public func reset() { events.removeAll() }
}

/// An activity observer that keeps every transition it is told of (`true` = became active).
public final class RecordingActivityObserver: ActivityObserver {
    /// Every transition received, in order.
    public private(set) var transitions: [Bool] = []

    /// An observer with no transitions yet.
    public init() {}

    public func schedulerActivityDidChange(isActive: Bool) { transitions.append(isActive) }
}

import MotionCore

/// Receives a run's timeline as it happens, in order: ``begin(_:)`` once, then per frame any commit,
/// trace and activity events followed by the frame's changes, then ``end(_:)`` once (also after a
/// failure, so what was produced so far is written).
///
/// Sinks do not throw: a writer keeps its first output error for the command to report at the end
/// (see ``TextOutput``).
protocol TimelineSink: AnyObject {
    /// The run starts.
    func begin(_ header: TimelineHeader)
    /// A scene transaction is about to be committed.
    func commit(_ commit: TimelineCommit, at point: TimelinePoint)
    /// A tracer event (only with `--trace`).
    func trace(_ event: TraceEvent, at point: TimelinePoint)
    /// The scheduler became active or idle.
    func activity(isActive: Bool, at point: TimelinePoint)
    /// The properties that changed during a frame (called only for frames with changes).
    func frame(_ point: TimelinePoint, changes: TimelineChanges)
    /// A failure; `message` is the one-line error. The run ends after it unless it was a failure that
    /// does not end it (a queued emission that failed).
    func failure(_ message: String, at point: TimelinePoint)
    /// The run ended.
    func end(_ summary: TimelineSummary)
    /// A performer emitted a transaction (with or without `--trace`), e.g. for a plot's marks.
    func emitted(_ transaction: Transaction, by performer: PerformerDescription, at point: TimelinePoint)
    /// A plugin's new code replaced its performers (`--watch`).
    func reload(_ reload: TimelineReload, at point: TimelinePoint)
}

// No default implementations: a sink that wraps another (``TraceFilteringSink``) must pass every event on, and
// without defaults the compiler makes it say so for each one.

/// A hot reload applied at a frame boundary (`--watch`): the `reload` line.
struct TimelineReload {
    /// The plugin's id.
    var pluginID: String
    /// The manifest, as the catalog found it.
    var manifest: String
    /// The library's canonical path.
    var library: String
    /// The SHA-256 (64 lowercase hex) of the library that runs now.
    var sha256: String
    /// How many of the plugin's performers were replaced.
    var performers: Int
    /// How many plans were given to them again.
    var plans: Int
    /// How many performers or plans could not be carried over (each also an `error` line).
    var failures: Int
}

/// A frame's index and time, seconds.
struct TimelinePoint: Equatable {
    /// The frame's index, from 0.
    var frame: Int
    /// The frame's time, seconds (`frame / frameRate`).
    var time: Double
}

/// What a timeline says about its run before the first frame.
struct TimelineHeader {
    /// The scene file's path, as given on the command line.
    var scenePath: String
    /// The scene's name.
    var name: String
    /// Frames per second.
    var frameRate: Double
    /// The run length.
    var duration: SceneDuration
    /// The safety limit of an `untilIdle` run, seconds.
    var maximumDuration: Double
    /// The targets and their initial values, in scene order.
    var targets: [SceneTarget]
    /// The unit of each property, by name, where known.
    var units: [String: String]
}

/// A transaction committed at a frame: a scene's, or one that came over `serve`'s wire.
struct TimelineCommit {
    /// Its index in the scene's `transactions`, or, for a transaction from the wire, its number among
    /// those (from 0, in arrival order).
    var index: Int
    /// Its scheduled time, or the time a transaction from the wire arrived; seconds on the run's clock.
    var at: Double
    /// The transaction.
    var transaction: Transaction
    /// Where a transaction not from the scene came from: `"http"` (`POST /transactions`) or `"websocket"`
    /// (a message on `GET /timeline`); `nil` for the scene's own.
    var source: String? = nil
}

/// The properties that changed in one frame, in the order the scene recorded them (a property appears
/// once, with its latest value), as parallel columns: change `i` is `values[i]` of property `properties[i]`
/// on the target at `targets[i]`, an index into the header's `targets` (scene order).
///
/// Targets and properties are numbers, not names, so a sink can keep what it writes for each (an escaped
/// name, a plot's series) in an array instead of hashing a string per change; ``names`` gives the names.
struct TimelineChanges {
    /// Each change's target: its index in ``TimelineHeader/targets``.
    var targets: [Int32] = []
    /// Each change's property, as interned by the run's scene.
    var properties: [PropertyID] = []
    /// Each change's new value.
    var values: [PropertyValue] = []
    /// The names behind the numbers.
    let names: TimelineNames

    /// No changes yet.
    init(names: TimelineNames) { self.names = names }

    /// How many properties changed.
    var count: Int { values.count }

    /// Whether nothing changed.
    var isEmpty: Bool { values.isEmpty }

    /// Adds a change.
    mutating func append(target: Int32, property: PropertyID, value: PropertyValue) {
        targets.append(target)
        properties.append(property)
        values.append(value)
    }

    /// Forgets the changes, keeping the storage for the next frame.
    mutating func removeAll() {
        targets.removeAll(keepingCapacity: true)
        properties.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }
}

/// The names of a run's targets (by index, scene order) and properties (by interned id).
final class TimelineNames {
    /// The targets' names, in scene order.
    let targets: [String]
    private let propertyName: (PropertyID) -> String?

    /// Names from a scene's targets and its property interning.
    /// - Parameters:
    ///   - targets: The target names, in scene order.
    ///   - propertyName: The name of an interned property id (``Scene/propertyName(_:)``).
    init(targets: [String], propertyName: @escaping (PropertyID) -> String?) {
        self.targets = targets
        self.propertyName = propertyName
    }

    /// A property's name (`#id` for an id the scene never interned, which a scene's change never has).
    func property(_ id: PropertyID) -> String { propertyName(id) ?? "\(id)" }
}

/// Why a run stopped.
enum StopReason: String {
    /// The duration elapsed.
    case duration
    /// The scheduler was idle after the last transaction (`untilIdle`).
    case idle
    /// An `untilIdle` run reached its `maximumDuration`.
    case safetyLimit
    /// A commit or an emission failed.
    case error
    /// SIGINT or SIGTERM arrived; the run stopped at the next frame boundary.
    case interrupted
    /// `POST /shutdown` stopped `serve` at a frame boundary.
    case shutdown
}

/// What a timeline says about its run after the last frame.
struct TimelineSummary {
    /// How many frames ran.
    var frames: Int
    /// The time of the last frame, seconds.
    var duration: Double
    /// How many of the scene's transactions were committed.
    var committedTransactions: Int
    /// How many failed after some of their operations were applied (those stay applied, R12): 0 or 1,
    /// since a failed commit ends the run.
    var partlyCommittedTransactions: Int = 0
    /// `serve` only: the transactions from outside the scene (`POST /transactions`, the timeline WebSocket)
    /// that were committed and that failed (some of whose operations may stay applied, R12); not counted in
    /// ``committedTransactions``. A request refused before it reached the scheduler (bad JSON, an unknown
    /// target) is in neither.
    var wireTransactions: (committed: Int, failed: Int)? = nil
    /// Every target's properties at the end, in scene order.
    var finalValues: [(target: String, properties: [(name: String, value: PropertyValue)])]
    /// Whether the scheduler was active at the end.
    var isActive: Bool
    /// Why the run stopped.
    var stopReason: StopReason
    /// Frames skipped because an earlier one overran (real-time runs only; `nil` on the simulated clock).
    var droppedFrames: Int? = nil
    /// The isolated plugins that failed during the run (one line each, as their `error` lines say); the run went
    /// on without their performers.
    var pluginFailures: [String] = []
}

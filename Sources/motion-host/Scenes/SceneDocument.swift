import MotionCore

/// A scene file: targets with initial property values, transactions to commit at given times, an
/// optional device-motion source, a frame rate and a run length. The input of `motion-host run`.
///
/// JSON form (JSON Schema: `manifests/schema/scene.schema.json`):
/// ```json
/// { "sceneVersion": 1,
///   "name": "Card fades in",
///   "frameRate": 60,
///   "duration": 3.0,
///   "maximumDuration": 30,
///   "units": {"position": "pt", "opacity": ""},
///   "targets": [ {"name": "card", "properties": {"opacity": 0, "position": [0, 0]}} ],
///   "deviceMotion": {"recording": "recordings/walk.csv", "referenceFrame": "xArbitraryZVertical"},
///   "transactions": [
///     {"at": 0.0, "operations": [ {"op": "add", "target": "card", "plan": {"type": "FadeIn", "duration": 0.3}} ]} ] }
/// ```
///
/// | field | type | meaning |
/// |---|---|---|
/// | `sceneVersion` | `1` | required; the only version this host reads |
/// | `name` | string | the title of plots; default: the file name without extension |
/// | `frameRate` | number > 0, ≤ 1000 | frames per second; default 60 |
/// | `duration` | number ≥ 0, or `"untilIdle"` | required; seconds of simulated time, or run until the scheduler is idle after the last transaction was committed |
/// | `maximumDuration` | number > 0 | seconds; the safety limit of an `untilIdle` run; default 60 |
/// | `units` | object of strings | optional; the unit of each property by name (`"pt"`, `"rad"`), for the timeline header and plot axes |
/// | `targets` | array | required; each `{"name": non-empty unique string, "properties": {name: number or array of 1–4 numbers}}` |
/// | `deviceMotion` | object | optional; `recording`: a path relative to the scene file; `referenceFrame`: one of ``DeviceMotionSource/referenceFrames`` (default `xArbitraryZVertical`) |
/// | `transactions` | array | required (may be empty); each `{"at": seconds ≥ 0, "operations": [...]}`; operations in the runtime's transaction JSON form: `{"op": "add", "target", "plan"}`, `{"op": "addNamed", "target", "name", "plan"}`, `{"op": "removeNamed", "target", "name"}`; a plan is `{"type": "PlanType", ...fields}` |
///
/// Timing: frame `i` is at `i / frameRate` seconds; frames run from 0 to the duration inclusive. A
/// transaction at time `t` is committed at the first frame whose time is ≥ `t`, before that frame's
/// performer updates; transactions due at the same frame are committed in file order.
/// Unknown fields are errors (with a "did you mean"), so a misspelt field is never silently ignored.
///
/// Order: the file is read with `JSONParser` (simdjson) into ``JSONValue``s, whose objects are
/// unordered, so only arrays keep the order written: targets and transactions stay in file order, while
/// a target's properties are sorted by name (and written to the timeline in that order, so a run's output
/// does not depend on how the members were ordered). Syntax errors (RFC 8259, strictly: no trailing
/// commas) give the line and column; so does a key written twice in one object, which is an error
/// naming the key and both places. Numbers are read exactly as written (the nearest `Double`).
struct SceneDocument {
    /// The longest run a scene may ask for, seconds (a day): longer runs are a mistake, not a scene.
    static let longestRun: Double = 86_400

    /// The scene file's path, as given on the command line.
    var path: String
    /// The title of plots.
    var name: String
    /// Frames per second.
    var frameRate: Double
    /// How long the run lasts.
    var duration: SceneDuration
    /// The safety limit of an `untilIdle` run, seconds.
    var maximumDuration: Double
    /// The unit of each property, by property name.
    var units: [String: String]
    /// The targets, in file order.
    var targets: [SceneTarget]
    /// Where device-motion samples come from, if anywhere.
    var deviceMotion: DeviceMotionSource?
    /// The transactions, in file order.
    var transactions: [TimedTransaction]
}

/// How long a run lasts.
enum SceneDuration: Equatable {
    /// A fixed length of simulated time, seconds.
    case seconds(Double)
    /// Until the scheduler is idle after the last transaction was committed.
    case untilIdle
    /// Until the run is stopped (`serve`: a signal or `POST /shutdown`).
    case untilStopped

    /// The JSON form: a number of seconds or `"untilIdle"`.
    var jsonText: String {
        switch self {
        case .seconds(let s): JSONText.number(s)
        case .untilIdle: "\"untilIdle\""
        case .untilStopped: "\"untilStopped\""
        }
    }
}

/// A target of a scene with its initial property values, sorted by property name.
struct SceneTarget {
    /// The target's name.
    var name: String
    /// The initial values, sorted by property name.
    var properties: [(name: String, value: PropertyValue)]
}

/// A scene's device-motion source.
struct DeviceMotionSource {
    /// The reference frames a scene may name (Core Motion's `CMAttitudeReferenceFrame` cases).
    static let referenceFrames = [
        "xArbitraryZVertical", "xArbitraryCorrectedZVertical", "xMagneticNorthZVertical", "xTrueNorthZVertical",
    ]

    /// The recording's path as written in the scene (relative to the scene file).
    var recording: String
    /// The recording's path resolved against the scene file's folder.
    var resolvedPath: String
    /// The attitude reference frame, one of ``referenceFrames``.
    var referenceFrame: String
}

/// A transaction of a scene and the time at which it is committed.
struct TimedTransaction {
    /// Its index in the scene's `transactions` array.
    var index: Int
    /// When it is committed, seconds.
    var at: Double
    /// The transaction.
    var transaction: Transaction
}

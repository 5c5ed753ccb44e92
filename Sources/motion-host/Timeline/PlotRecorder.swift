import MotionCore

/// Keeps what a plot needs from a timeline: every property's initial value and changes, activity
/// intervals and commit times.
final class PlotRecorder: TimelineSink {
    /// One property of one target over time.
    struct Series {
        /// The target's name.
        var target: String
        /// The property's name.
        var property: String
        /// The value before the first frame, if the scene gave one.
        var initial: PropertyValue?
        /// Every change: the frame's time (seconds) and the new value.
        var changes: [(time: Double, value: PropertyValue)] = []

        /// The most components any of its values has (1 to 4).
        var componentCount: Int {
            max(initial?.count ?? 1, changes.map(\.value.count).max() ?? 1)
        }
    }

    /// The scene's name.
    private(set) var name = ""
    /// The scene's path as given.
    private(set) var scenePath = ""
    /// Frames per second.
    private(set) var frameRate = 60.0
    /// Units by property name.
    private(set) var units: [String: String] = [:]
    /// Every property, in the order first seen (scene order, then first change).
    private(set) var series: [Series] = []
    /// The intervals during which the scheduler was active, seconds.
    private(set) var activeIntervals: [ClosedRange<Double>] = []
    /// The times (seconds) and indices of committed scene transactions.
    private(set) var commits: [(time: Double, index: Int)] = []
    /// The times (seconds) of transactions performers emitted, and who emitted them (`ShakeDetectorPerformer`).
    private(set) var emissions: [(time: Double, performer: String)] = []
    /// The time of the last frame, seconds.
    private(set) var endTime = 0.0
    /// How many frames ran.
    private(set) var frameCount = 0
    /// The failure message, if the run failed.
    private(set) var failure: String?

    private var activeSince: Double?
    private var seriesIndex: [String: Int] = [:]
    /// The series of a (target index, property id) pair, as `target << 32 | property`.
    private var seriesByID: [Int64: Int] = [:]

    /// An empty recorder.
    init() {}

    func begin(_ header: TimelineHeader) {
        name = header.name
        scenePath = header.scenePath
        frameRate = header.frameRate
        units = header.units
        for target in header.targets {
            for property in target.properties {
                index(target: target.name, property: property.name)
                series[series.count - 1].initial = property.value
            }
        }
    }

    func commit(_ commit: TimelineCommit, at point: TimelinePoint) {
        commits.append((point.time, commit.index))
    }

    func trace(_ event: TraceEvent, at point: TimelinePoint) {}

    func emitted(_ transaction: Transaction, by performer: PerformerDescription, at point: TimelinePoint) {
        emissions.append((point.time, performer.className))
    }

    func activity(isActive: Bool, at point: TimelinePoint) {
        if isActive {
            if activeSince == nil { activeSince = point.time }
        } else if let since = activeSince {
            activeIntervals.append(since...max(since, point.time))
            activeSince = nil
        }
    }

    func frame(_ point: TimelinePoint, changes: TimelineChanges) {
        for c in 0..<changes.count {
            let target = changes.targets[c]
            let property = changes.properties[c]
            let key = Int64(target) << 32 | Int64(property.rawValue)
            let i: Int
            if let known = seriesByID[key] {
                i = known
            } else {
                i = index(target: changes.names.targets[Int(target)], property: changes.names.property(property))
                seriesByID[key] = i
            }
            series[i].changes.append((point.time, changes.values[c]))
        }
    }

    func failure(_ message: String, at point: TimelinePoint) { failure = message }

    /// A reload has no mark on the plot.
    func reload(_ reload: TimelineReload, at point: TimelinePoint) {}

    func end(_ summary: TimelineSummary) {
        endTime = summary.duration
        frameCount = summary.frames
        if let since = activeSince {
            activeIntervals.append(since...max(since, endTime))
            activeSince = nil
        }
    }

    @discardableResult
    private func index(target: String, property: String) -> Int {
        let key = target + "\u{0}" + property
        if let i = seriesIndex[key] { return i }
        series.append(Series(target: target, property: property))
        seriesIndex[key] = series.count - 1
        return series.count - 1
    }
}

import Foundation
import MotionCore

/// Writes a timeline as JSON Lines: one JSON object per line, its kind named by its first key.
///
/// | first key | line |
/// |---|---|
/// | `timeline` | the header: `{"timeline": 1, "scene": path, "name", "frameRate", "duration", ("maximumDuration" when `untilIdle`), "targets": {target: {property: initial value}}, "units": {property: unit}}` |
/// | `commit` | a scene transaction being committed: `{"commit": index, "at", "time", "frame", "transaction": {"operations": [...]}}` |
/// | `trace` | a tracer event (with `--trace`): `{"trace": kind, "time", "frame", ...}`, kinds `committed`, `emitted`, `performerCreated`, `planAdded`, `namedPlanAdded`, `namedPlanRemoved`, `tokenGenerated`, `tokenTerminated`, `activityChanged` |
/// | `activity` | the scheduler became `"active"` or `"idle"`: `{"activity": "active", "time", "frame"}` |
/// | `frame` | the properties that changed in a frame: `{"frame": i, "time": t, "changes": {target: {property: value}}}` |
/// | `error` | a failure, `{"error": message, "time", "frame"}`: the run failed (the summary follows), or a transaction emitted from a plugin's own thread failed when applied (the run goes on); after a plugin crashed or hung the host (a fatal signal, the `--plugin-timeout` watchdog) it is the last line, with no summary |
/// | `summary` | the last line: `{"summary": {"frames", "duration", "committedTransactions", "partlyCommittedTransactions", "stoppedBecause", "activity", ("droppedFrames" in real time), ("pluginFailures": one line per isolated plugin that failed, when any did), "finalValues": {target: {property: value}}}}`; `stoppedBecause` is `duration`, `idle`, `safetyLimit`, `error`, `interrupted` or `shutdown` |
///
/// Nothing is written after the summary (events of the scheduler going away are not part of the run).
///
/// Values are a number (scalar) or an array of 2–4 numbers. Numbers use Swift's shortest
/// round-trip form (integers without a fraction), so output is stable across runs. Times are seconds.
final class JSONLinesTimelineWriter: TimelineSink {
    private let output: any TimelineTextOutput
    private var hasEnded = false

    /// A writer to an output (a file, standard output, or `serve`'s subscribers).
    init(output: any TimelineTextOutput) { self.output = output }

    func begin(_ header: TimelineHeader) {
        var line =
            "{\"timeline\":1,\"scene\":\(JSONText.string(header.scenePath)),\"name\":\(JSONText.string(header.name))"
        line += ",\"frameRate\":\(JSONText.number(header.frameRate)),\"duration\":\(header.duration.jsonText)"
        if header.duration == .untilIdle { line += ",\"maximumDuration\":\(JSONText.number(header.maximumDuration))" }
        line += ",\"targets\":{"
        line += header.targets.map { target in
            JSONText.string(target.name) + ":" + object(target.properties)
        }.joined(separator: ",")
        line += "},\"units\":{"
        let names = Set(header.targets.flatMap { $0.properties.map(\.name) }).union(header.units.keys).sorted()
        line += names.compactMap { name in header.units[name].map { "\(JSONText.string(name)):\(JSONText.string($0))" }
        }
        .joined(separator: ",")
        output.write(line + "}}\n")
    }

    func commit(_ commit: TimelineCommit, at point: TimelinePoint) {
        guard !hasEnded else { return }
        output.write(
            "{\"commit\":\(commit.index),\"at\":\(JSONText.number(commit.at))\(stamp(point)),\"transaction\":\(json(commit.transaction))}\n"
        )
    }

    func trace(_ event: TraceEvent, at point: TimelinePoint) {
        guard !hasEnded else { return }
        var line = "{\"trace\":"
        switch event {
        case .committed(let transaction):
            line += "\"committed\"\(stamp(point)),\"transaction\":\(json(transaction))"
        case .emitted(let transaction, let performer, let crossesTargets):
            line +=
                "\"emitted\"\(stamp(point)),\"performer\":\(JSONText.string(performer.description)),\"crossesTargets\":\(crossesTargets),\"transaction\":\(json(transaction))"
        case .performerCreated(let performer):
            line += "\"performerCreated\"\(stamp(point)),\"performer\":\(JSONText.string(performer.description))"
        case .planAdded(let plan, let performer):
            line +=
                "\"planAdded\"\(stamp(point)),\"performer\":\(JSONText.string(performer.description)),\"plan\":\(json(plan))"
        case .namedPlanAdded(let plan, let name, let performer):
            line +=
                "\"namedPlanAdded\"\(stamp(point)),\"performer\":\(JSONText.string(performer.description)),\"name\":\(JSONText.string(name)),\"plan\":\(json(plan))"
        case .namedPlanRemoved(let name, let performer):
            line +=
                "\"namedPlanRemoved\"\(stamp(point)),\"performer\":\(JSONText.string(performer.description)),\"name\":\(JSONText.string(name))"
        case .tokenGenerated(let id, let performer):
            line +=
                "\"tokenGenerated\"\(stamp(point)),\"performer\":\(JSONText.string(performer.description)),\"token\":\(id)"
        case .tokenTerminated(let id, let performer):
            line +=
                "\"tokenTerminated\"\(stamp(point)),\"performer\":\(JSONText.string(performer.description)),\"token\":\(id)"
        case .activityChanged(let isActive):
            line += "\"activityChanged\"\(stamp(point)),\"activity\":\"\(isActive ? "active" : "idle")\""
        }
        output.write(line + "}\n")
    }

    func activity(isActive: Bool, at point: TimelinePoint) {
        guard !hasEnded else { return }
        output.write("{\"activity\":\"\(isActive ? "active" : "idle")\"\(stamp(point))}\n")
    }

    func frame(_ point: TimelinePoint, changes: [TimelineChange]) {
        guard !hasEnded else { return }
        var byTarget: [(target: String, properties: [(name: String, value: PropertyValue)])] = []
        for change in changes {
            if let i = byTarget.firstIndex(where: { $0.target == change.target }) {
                byTarget[i].properties.append((change.property, change.value))
            } else {
                byTarget.append((change.target, [(change.property, change.value)]))
            }
        }
        let body = byTarget.map { JSONText.string($0.target) + ":" + object($0.properties) }.joined(separator: ",")
        output.write("{\"frame\":\(point.frame),\"time\":\(JSONText.number(point.time)),\"changes\":{\(body)}}\n")
    }

    func failure(_ message: String, at point: TimelinePoint) {
        guard !hasEnded else { return }
        output.write("{\"error\":\(JSONText.string(message))\(stamp(point))}\n")
    }

    func end(_ summary: TimelineSummary) {
        guard !hasEnded else { return }
        hasEnded = true
        var line = "{\"summary\":{\"frames\":\(summary.frames),\"duration\":\(JSONText.number(summary.duration))"
        line += ",\"committedTransactions\":\(summary.committedTransactions)"
        line += ",\"partlyCommittedTransactions\":\(summary.partlyCommittedTransactions)"
        line += ",\"stoppedBecause\":\"\(summary.stopReason.rawValue)\""
        line += ",\"activity\":\"\(summary.isActive ? "active" : "idle")\""
        if let dropped = summary.droppedFrames { line += ",\"droppedFrames\":\(dropped)" }
        if !summary.pluginFailures.isEmpty {
            line += ",\"pluginFailures\":[" + summary.pluginFailures.map { JSONText.quoted($0, limit: 2_000) }.joined(separator: ",") + "]"
        }
        line += ",\"finalValues\":{"
        line += summary.finalValues.map { JSONText.string($0.target) + ":" + object($0.properties) }
            .joined(separator: ",")
        output.write(line + "}}}\n")
        output.flush()
    }

    private func stamp(_ point: TimelinePoint) -> String { Self.stamp(point) }

    /// The `,"time":T,"frame":F` every line but the header, the frame lines and the summary ends with.
    static func stamp(_ point: TimelinePoint) -> String {
        ",\"time\":\(JSONText.number(point.time)),\"frame\":\(point.frame)"
    }

    private func object(_ properties: [(name: String, value: PropertyValue)]) -> String {
        "{" + properties.map { "\(JSONText.string($0.name)):\(Self.value($0.value))" }.joined(separator: ",") + "}"
    }

    /// A property value as JSON: a number, or an array of numbers for a vector.
    static func value(_ value: PropertyValue) -> String {
        if value.count == 1 { return JSONText.number(value.scalar) }
        return "[" + value.components.map(JSONText.number).joined(separator: ",") + "]"
    }

    private func json(_ transaction: Transaction) -> String {
        (try? transaction.jsonData()).flatMap { String(data: $0, encoding: .utf8) } ?? "null"
    }

    private func json(_ plan: Plan) -> String {
        (try? plan.jsonData()).flatMap { String(data: $0, encoding: .utf8) } ?? "null"
    }
}

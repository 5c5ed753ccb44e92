import Foundation
import MotionCore

/// Writes a timeline as JSON Lines: one JSON object per line, its kind named by its first key.
///
/// | first key | line |
/// |---|---|
/// | `timeline` | the header: `{"timeline": 1, "scene": path, "name", "frameRate", "duration", ("maximumDuration" when `untilIdle`), "targets": {target: {property: initial value}}, "units": {property: unit}}` |
/// | `commit` | a transaction being committed: a scene's `{"commit": index, "at", "time", "frame", "transaction": {"operations": [...]}}`; one from `serve`'s wire adds `"source": "http"` or `"websocket"`, its `commit` counts those from 0 and `at` is when it arrived |
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
            "{\"commit\":\(commit.index)\(commit.source.map { ",\"source\":\(JSONText.string($0))" } ?? ""),\"at\":\(JSONText.number(commit.at))\(stamp(point)),\"transaction\":\(json(commit.transaction))}\n"
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
        case .performerDestroyed(let performer):
            line += "\"performerDestroyed\"\(stamp(point)),\"performer\":\(JSONText.string(performer.description))"
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
        // Grouped by target in the order targets first appear: each change gets its target's group through
        // an index by name, then a stable counting sort orders the changes by group, and the line is built
        // in one string with the names' JSON forms cached. (A linear search per change, and a string per
        // target and per value joined together, made a frame line of 1,000 changed targets cost about 3 ms,
        // which serve's commit latency paid on every frame.)
        var groupOf = [Int](repeating: 0, count: changes.count)
        var firstOfGroup: [Int] = []
        var groupByTarget: [String: Int] = [:]
        groupByTarget.reserveCapacity(changes.count)
        for (i, change) in changes.enumerated() {
            if let group = groupByTarget[change.target] {
                groupOf[i] = group
            } else {
                groupByTarget[change.target] = firstOfGroup.count
                groupOf[i] = firstOfGroup.count
                firstOfGroup.append(i)
            }
        }
        var start = [Int](repeating: 0, count: firstOfGroup.count + 1)
        for group in groupOf { start[group + 1] += 1 }
        for g in firstOfGroup.indices { start[g + 1] += start[g] }
        var ordered = [Int](repeating: 0, count: changes.count)
        var next = start
        for (i, group) in groupOf.enumerated() {
            ordered[next[group]] = i
            next[group] += 1
        }
        var line: [UInt8] = []
        line.reserveCapacity(64 + changes.count * 40)
        line += "{\"frame\":\(point.frame),\"time\":".utf8
        JSONValue.writeNumber(point.time, into: &line)
        line += ",\"changes\":{".utf8
        for group in firstOfGroup.indices {
            if group > 0 { line.append(UInt8(ascii: ",")) }
            JSONValue.writeString(changes[firstOfGroup[group]].target, into: &line)
            line += ":{".utf8
            for k in start[group]..<start[group + 1] {
                let change = changes[ordered[k]]
                if k > start[group] { line.append(UInt8(ascii: ",")) }
                JSONValue.writeString(change.property, into: &line)
                line.append(UInt8(ascii: ":"))
                Self.append(change.value, to: &line)
            }
            line.append(UInt8(ascii: "}"))
        }
        line += "}}\n".utf8
        output.write(utf8: line)
    }

    func reload(_ reload: TimelineReload, at point: TimelinePoint) {
        guard !hasEnded else { return }
        output.write(
            "{\"reload\":\(JSONText.string(reload.pluginID)),\"manifest\":\(JSONText.string(reload.manifest)),\"library\":\(JSONText.string(reload.library)),\"sha256\":\"\(reload.sha256)\",\"performers\":\(reload.performers),\"plans\":\(reload.plans),\"failures\":\(reload.failures)\(stamp(point))}\n"
        )
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
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``value(_:)``'s form of a property value to a line.
    static func append(_ value: PropertyValue, to line: inout [UInt8]) {
        if value.count == 1 {
            JSONValue.writeNumber(value.scalar, into: &line)
            return
        }
        line.append(UInt8(ascii: "["))
        for i in 0..<value.count {
            if i > 0 { line.append(UInt8(ascii: ",")) }
            JSONValue.writeNumber(value[i], into: &line)
        }
        line.append(UInt8(ascii: "]"))
    }

    /// A transaction's JSON form, as `Transaction.jsonData()` gives it (keys sorted), written directly:
    /// through `JSONEncoder` it cost about 30 µs, which serve paid for every transaction from the wire (a
    /// `commit` line and a `trace` line each, 10,000 a second in its benchmark).
    private func json(_ transaction: Transaction) -> String {
        var out: [UInt8] = []
        out += #"{"operations":["#.utf8
        do {
            for (i, operation) in transaction.operations.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                switch operation {
                case .add(let plan, let target):
                    out += #"{"op":"add","plan":"#.utf8
                    try plan.writeJSON(into: &out)
                    out += #","target":"#.utf8
                    JSONValue.writeString(target.name, into: &out)
                case .addNamed(let plan, let name, let target):
                    out += #"{"name":"#.utf8
                    JSONValue.writeString(name, into: &out)
                    out += #","op":"addNamed","plan":"#.utf8
                    try plan.writeJSON(into: &out)
                    out += #","target":"#.utf8
                    JSONValue.writeString(target.name, into: &out)
                case .removeNamed(let name, let target):
                    out += #"{"name":"#.utf8
                    JSONValue.writeString(name, into: &out)
                    out += #","op":"removeNamed","target":"#.utf8
                    JSONValue.writeString(target.name, into: &out)
                }
                out.append(UInt8(ascii: "}"))
            }
        } catch {
            return "null"
        }
        out += "]}".utf8
        return String(decoding: out, as: UTF8.self)
    }

    private func json(_ plan: Plan) -> String {
        (try? plan.jsonData()).flatMap { String(data: $0, encoding: .utf8) } ?? "null"
    }
}

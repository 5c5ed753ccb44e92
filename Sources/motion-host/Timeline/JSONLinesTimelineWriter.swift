import FoundationEssentials
import MotionCore

/// Writes a timeline as JSON Lines: one JSON object per line, its kind named by its first key.
///
/// | first key | line |
/// |---|---|
/// | `timeline` | the header: `{"timeline": 1, "scene": path, "name", "frameRate", "duration", ("maximumDuration" when `untilIdle`), "targets": {target: {property: initial value}}, "units": {property: unit}}` |
/// | `commit` | a transaction being committed: a scene's `{"commit": index, "at", "time", "frame", "transaction": {"operations": [...]}}`; one from `serve`'s wire adds `"source": "http"` or `"websocket"`, its `commit` counts those from 0 and `at` is when it arrived |
/// | `trace` | a tracer event (with `--trace`): `{"trace": kind, "time", "frame", ...}`, kinds `committed`, `emitted`, `performerCreated`, `performerDestroyed` (a hot reload replaced it), `planAdded`, `namedPlanAdded`, `namedPlanRemoved`, `tokenGenerated`, `tokenTerminated`, `activityChanged` |
/// | `activity` | the scheduler became `"active"` or `"idle"`: `{"activity": "active", "time", "frame"}` |
/// | `frame` | the properties that changed in a frame: `{"frame": i, "time": t, "changes": {target: {property: value}}}` |
/// | `error` | a failure, `{"error": message, "time", "frame"}`: the run failed (the summary follows), or a transaction emitted from a plugin's own thread failed when applied (the run goes on); after a plugin crashed or hung the host (a fatal signal, the `--plugin-timeout` watchdog) it is the last line, with no summary |
/// | `summary` | the last line: `{"summary": {"frames", "duration", "committedTransactions" (the scene's), "partlyCommittedTransactions", (`serve`: "wireTransactions": {"committed", "failed"}), "stoppedBecause", "activity", ("droppedFrames" in real time), ("pluginFailures": one line per isolated plugin that failed, when any did), "finalValues": {target: {property: value}}}}`; `stoppedBecause` is `duration`, `idle`, `safetyLimit`, `error`, `interrupted` or `shutdown` |
///
/// Nothing is written after the summary (events of the scheduler going away are not part of the run).
///
/// Values are a number (scalar) or an array of 2–4 numbers. Numbers use Swift's shortest
/// round-trip form (integers without a fraction), so output is stable across runs. Times are seconds.
final class JSONLinesTimelineWriter: TimelineSink {
    private let output: any TimelineTextOutput
    private var hasEnded = false
    /// A frame line's bytes, reused from frame to frame.
    private var lineBuffer: [UInt8] = []
    /// Groups a frame's changes by target.
    private var grouping = ChangeGrouping()
    /// Each target's and property's JSON key, escaped once.
    private var keys = EscapedKeys()

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

    func frame(_ point: TimelinePoint, changes: TimelineChanges) {
        guard !hasEnded else { return }
        var line = lineBuffer
        lineBuffer = []  // the local copy is the only one: appends do not copy
        line.removeAll(keepingCapacity: true)
        line.append(contentsOf: #"{"frame":"#.utf8)
        JSONValue.writeInteger(Int64(point.frame), into: &line)
        line.append(contentsOf: #","time":"#.utf8)
        JSONValue.writeNumber(point.time, into: &line)
        line.append(contentsOf: #","changes":{"#.utf8)
        grouping.group(changes.targets, targetCount: changes.names.targets.count)
        for (g, first) in grouping.firsts.enumerated() {
            if g > 0 { line.append(UInt8(ascii: ",")) }
            keys.appendTarget(Int(changes.targets[Int(first)]), of: changes.names, to: &line)
            line.append(UInt8(ascii: "{"))
            var c = first
            var isFirst = true
            while c >= 0 {
                if !isFirst { line.append(UInt8(ascii: ",")) }
                isFirst = false
                keys.appendProperty(changes.properties[Int(c)], of: changes.names, to: &line)
                Self.writeValue(changes.values[Int(c)], into: &line)
                c = grouping.next[Int(c)]
            }
            line.append(UInt8(ascii: "}"))
        }
        line.append(contentsOf: "}}\n".utf8)
        line.withUnsafeBufferPointer { output.write(utf8: $0) }
        lineBuffer = line
    }

    /// An emission is written as its trace line (``trace(_:at:)``), with `--trace`.
    func emitted(_ transaction: Transaction, by performer: PerformerDescription, at point: TimelinePoint) {}

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
        if let wire = summary.wireTransactions {
            line += ",\"wireTransactions\":{\"committed\":\(wire.committed),\"failed\":\(wire.failed)}"
        }
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
        writeValue(value, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a property value as JSON (see ``value(_:)``).
    static func writeValue(_ value: PropertyValue, into out: inout [UInt8]) {
        if value.count == 1 {
            JSONValue.writeNumber(value.scalar, into: &out)
            return
        }
        out.append(UInt8(ascii: "["))
        for i in 0..<value.count {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeNumber(value[i], into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// The transaction's JSON form (``Transaction/writeJSON(into:)``), or `null` if a typed plan fails to encode.
    private func json(_ transaction: Transaction) -> String {
        var out: [UInt8] = []
        guard (try? transaction.writeJSON(into: &out)) != nil else { return "null" }
        return String(decoding: out, as: UTF8.self)
    }

    /// The plan's JSON form (``Plan/writeJSON(into:)``, as in commit lines), or `null` if a typed plan fails to
    /// encode.
    private func json(_ plan: Plan) -> String {
        var out: [UInt8] = []
        guard (try? plan.writeJSON(into: &out)) != nil else { return "null" }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Groups a frame's changes by target in one pass: targets in the order of their first change, each
/// target's changes in their order. A target's group is found through an array indexed by target (stamped
/// with the frame, so nothing is cleared between frames), and a group's changes are chained through
/// ``next``.
struct ChangeGrouping {
    /// The first change of each group, in the order the groups' targets first changed.
    private(set) var firsts: [Int32] = []
    /// For each change, the next change of its target in this frame, or -1.
    private(set) var next: [Int32] = []
    private var lasts: [Int32] = []
    private var groupOfTarget: [Int32] = []
    private var stampOfTarget: [UInt32] = []
    private var stamp: UInt32 = 0

    /// Groups the changes whose targets are `targets` (indices below `targetCount`).
    mutating func group(_ targets: [Int32], targetCount: Int) {
        if stampOfTarget.count < targetCount {
            stampOfTarget.append(contentsOf: repeatElement(0, count: targetCount - stampOfTarget.count))
            groupOfTarget.append(contentsOf: repeatElement(0, count: targetCount - groupOfTarget.count))
        }
        stamp &+= 1
        if stamp == 0 {  // wrapped: stale stamps could match again
            for i in stampOfTarget.indices { stampOfTarget[i] = 0 }
            stamp = 1
        }
        firsts.removeAll(keepingCapacity: true)
        lasts.removeAll(keepingCapacity: true)
        next.removeAll(keepingCapacity: true)
        next.append(contentsOf: repeatElement(-1, count: targets.count))
        for (c, target) in targets.enumerated() {
            let change = Int32(c)
            let t = Int(target)
            if stampOfTarget[t] == stamp {
                let g = Int(groupOfTarget[t])
                next[Int(lasts[g])] = change
                lasts[g] = change
            } else {
                stampOfTarget[t] = stamp
                groupOfTarget[t] = Int32(firsts.count)
                firsts.append(change)
                lasts.append(change)
            }
        }
    }
}

/// The JSON keys a timeline writes again and again, escaped once: `"name":` of each target (by index) and
/// each property (by interned id). The keys sit one after another in one byte array, in the order first
/// written, so a frame whose changes come in target order reads them in order (at 100,000 targets, one
/// small array per key cost a cache miss per change).
struct EscapedKeys {
    private var targets = KeyStore()
    private var properties = KeyStore()

    /// Appends `"target name":`.
    mutating func appendTarget(_ index: Int, of names: TimelineNames, to out: inout [UInt8]) {
        targets.append(index, to: &out) { names.targets[index] }
    }

    /// Appends `"property name":`.
    mutating func appendProperty(_ id: PropertyID, of names: TimelineNames, to out: inout [UInt8]) {
        properties.append(Int(id.rawValue), to: &out) { names.property(id) }
    }

    private struct KeyStore {
        var bytes: [UInt8] = []
        /// Where each key starts in ``bytes`` and where it ends; -1: not made yet.
        var starts: [Int] = []
        var ends: [Int] = []

        mutating func append(_ index: Int, to out: inout [UInt8], name: () -> String) {
            if index >= starts.count {
                starts.append(contentsOf: repeatElement(-1, count: index + 1 - starts.count))
                ends.append(contentsOf: repeatElement(-1, count: index + 1 - ends.count))
            }
            if starts[index] < 0 {
                starts[index] = bytes.count
                JSONValue.writeString(name(), into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                ends[index] = bytes.count
            }
            out.append(contentsOf: bytes[starts[index]..<ends[index]])
        }
    }
}

import FoundationEssentials
import MotionCore

/// Writes a timeline as CSV (RFC 4180): a header row `time,frame,target,property,x,y,z,w`, then one
/// row per changed property per frame; a value's components fill `x`, `y`, `z`, `w` in order and the
/// columns past its count are empty (a scalar fills only `x`).
///
/// Only property changes are written: commits, activity and trace events have no place in a table
/// (use the JSON Lines format for them). Times are seconds; numbers in shortest round-trip form.
final class CSVTimelineWriter: TimelineSink {
    private let output: TextOutput
    /// A frame's rows, reused from frame to frame.
    private var rowBuffer: [UInt8] = []
    /// Each target's field and comma (by index) and each property's field (by id), quoted once.
    private var targetFields: [[UInt8]] = []
    private var propertyFields: [[UInt8]] = []

    /// A writer to an output.
    init(output: TextOutput) { self.output = output }

    func begin(_ header: TimelineHeader) { output.write("time,frame,target,property,x,y,z,w\n") }

    func commit(_ commit: TimelineCommit, at point: TimelinePoint) {}

    func trace(_ event: TraceEvent, at point: TimelinePoint) {}

    func activity(isActive: Bool, at point: TimelinePoint) {}

    func frame(_ point: TimelinePoint, changes: TimelineChanges) {
        var rows = rowBuffer
        rowBuffer = []  // the local copy is the only one: appends do not copy
        rows.removeAll(keepingCapacity: true)
        var stamp: [UInt8] = []
        JSONValue.writeNumber(point.time, into: &stamp)
        stamp.append(UInt8(ascii: ","))
        JSONValue.writeInteger(Int64(point.frame), into: &stamp)
        stamp.append(UInt8(ascii: ","))
        for c in 0..<changes.count {
            rows.append(contentsOf: stamp)
            let target = Int(changes.targets[c])
            if target >= targetFields.count {
                targetFields.append(contentsOf: repeatElement([], count: target + 1 - targetFields.count))
            }
            if targetFields[target].isEmpty { targetFields[target] = Array((Self.field(changes.names.targets[target]) + ",").utf8) }
            rows.append(contentsOf: targetFields[target])
            let property = Int(changes.properties[c].rawValue)
            if property >= propertyFields.count {
                propertyFields.append(contentsOf: repeatElement([], count: property + 1 - propertyFields.count))
            }
            if propertyFields[property].isEmpty {
                propertyFields[property] = Array(Self.field(changes.names.property(changes.properties[c])).utf8)
            }
            rows.append(contentsOf: propertyFields[property])
            let value = changes.values[c]
            for i in 0..<PropertyValue.maximumCount {
                rows.append(UInt8(ascii: ","))
                if i < value.count { JSONValue.writeNumber(value[i], into: &rows) }
            }
            rows.append(UInt8(ascii: "\n"))
        }
        rows.withUnsafeBufferPointer { output.write(utf8: $0) }
        rowBuffer = rows
    }

    func failure(_ message: String, at point: TimelinePoint) {}

    func end(_ summary: TimelineSummary) { output.flush() }
    /// An emission has no CSV row (its plans' changes do).
    func emitted(_ transaction: Transaction, by performer: PerformerDescription, at point: TimelinePoint) {}
    /// A reload has no CSV row.
    func reload(_ reload: TimelineReload, at point: TimelinePoint) {}

    /// A field, quoted when it holds a comma, a quote or a line break (RFC 4180).
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }
}

import Foundation
import MotionCore

/// Writes a timeline as CSV (RFC 4180): a header row `time,frame,target,property,x,y,z,w`, then one
/// row per changed property per frame; a value's components fill `x`, `y`, `z`, `w` in order and the
/// columns past its count are empty (a scalar fills only `x`).
///
/// Only property changes are written: commits, activity and trace events have no place in a table
/// (use the JSON Lines format for them). Times are seconds; numbers in shortest round-trip form.
final class CSVTimelineWriter: TimelineSink {
    private let output: TextOutput

    /// A writer to an output.
    init(output: TextOutput) { self.output = output }

    func begin(_ header: TimelineHeader) { output.write("time,frame,target,property,x,y,z,w\n") }

    func commit(_ commit: TimelineCommit, at point: TimelinePoint) {}

    func trace(_ event: TraceEvent, at point: TimelinePoint) {}

    func activity(isActive: Bool, at point: TimelinePoint) {}

    func frame(_ point: TimelinePoint, changes: [TimelineChange]) {
        let time = JSONText.number(point.time)
        for change in changes {
            var row = "\(time),\(point.frame),\(Self.field(change.target)),\(Self.field(change.property))"
            for i in 0..<PropertyValue.maximumCount {
                row += i < change.value.count ? ",\(JSONText.number(change.value[i]))" : ","
            }
            output.write(row + "\n")
        }
    }

    func failure(_ message: String, at point: TimelinePoint) {}

    func end(_ summary: TimelineSummary) { output.flush() }

    /// A field, quoted when it holds a comma, a quote or a line break (RFC 4180).
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

import MotionCore
import MotionLive

/// Where a ``JSONLinesTimelineWriter`` writes: text, a line at a time, and a flush.
protocol TimelineTextOutput: AnyObject {
    /// Appends text (whole lines, each ending in a newline).
    func write(_ text: String)
    /// Appends UTF-8 bytes (whole lines, each ending in a newline).
    func write(utf8 bytes: UnsafeBufferPointer<UInt8>)
    /// Writes out what is buffered.
    func flush()
}

extension TextOutput: TimelineTextOutput {}

/// `serve`'s timeline for its WebSocket subscribers: lines are collected during a frame and handed to the
/// ``LiveServer`` at ``flush()`` (after every frame), which queues them and never waits. The first line (the
/// timeline's header) is also the greeting every later subscriber gets first.
final class LiveTimelineOutput: TimelineTextOutput {
    private let server: LiveServer
    private var lines: [String] = []
    private var hasGreeting = false

    init(server: LiveServer) { self.server = server }

    func write(_ text: String) {
        for line in text.split(separator: "\n") {
            if !hasGreeting {
                hasGreeting = true
                server.setGreeting(String(line))
                continue
            }
            lines.append(String(line))
        }
    }

    func write(utf8 bytes: UnsafeBufferPointer<UInt8>) { write(String(decoding: bytes, as: UTF8.self)) }

    func flush() {
        guard !lines.isEmpty else { return }
        server.publish(lines)
        lines.removeAll(keepingCapacity: true)
    }
}

/// Passes a timeline on without its trace lines: `serve` always traces (for `?trace=1` subscribers), its
/// `--output` file has them only with `--trace`.
final class TraceDroppingSink: TimelineSink {
    private let base: any TimelineSink

    init(_ base: any TimelineSink) { self.base = base }

    func begin(_ header: TimelineHeader) { base.begin(header) }
    func commit(_ commit: TimelineCommit, at point: TimelinePoint) { base.commit(commit, at: point) }
    func trace(_ event: TraceEvent, at point: TimelinePoint) {}
    func activity(isActive: Bool, at point: TimelinePoint) { base.activity(isActive: isActive, at: point) }
    func frame(_ point: TimelinePoint, changes: TimelineChanges) { base.frame(point, changes: changes) }
    func failure(_ message: String, at point: TimelinePoint) { base.failure(message, at: point) }
    func end(_ summary: TimelineSummary) { base.end(summary) }
}

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
    private var lines: [[UInt8]] = []
    private var hasGreeting = false

    init(server: LiveServer) { self.server = server }

    func write(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        // One line with its newline, after the header (a frame line built as bytes): as it is.
        if hasGreeting, bytes.last == UInt8(ascii: "\n"), bytes.firstIndex(of: UInt8(ascii: "\n")) == bytes.count - 1 {
            lines.append(Array(bytes.dropLast()))
            return
        }
        write(String(decoding: bytes, as: UTF8.self))
    }

    func write(_ text: String) {
        // Split as bytes: splitting a String walks its Characters, which cost about 0.5 ms per frame line of
        // 1,000 changed targets.
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
                start = end + 1
                guard !line.isEmpty else { continue }
                if !hasGreeting {
                    hasGreeting = true
                    server.setGreeting(String(decoding: line, as: UTF8.self))
                    continue
                }
                lines.append(Array(line))
            }
        }
    }

    func flush() {
        guard !lines.isEmpty else { return }
        server.publish(utf8Lines: lines)
        lines.removeAll(keepingCapacity: true)
    }
}

/// Passes a timeline on, with its trace lines only while `passesTrace()` says so: `serve` always traces
/// (for `?trace=1` subscribers), but its WebSocket timeline formats trace lines only while such a
/// subscriber is connected, and its `--output` file has them only with `--trace`.
final class TraceFilteringSink: TimelineSink {
    private let base: any TimelineSink
    private let passesTrace: () -> Bool

    /// - Parameters:
    ///   - base: Where every line goes.
    ///   - passesTrace: Asked at each trace event; `false` drops it before it is formatted.
    init(_ base: any TimelineSink, passesTrace: @escaping () -> Bool = { false }) {
        self.base = base
        self.passesTrace = passesTrace
    }

    func begin(_ header: TimelineHeader) { base.begin(header) }
    func commit(_ commit: TimelineCommit, at point: TimelinePoint) { base.commit(commit, at: point) }
    func trace(_ event: TraceEvent, at point: TimelinePoint) {
        if passesTrace() { base.trace(event, at: point) }
    }
    func activity(isActive: Bool, at point: TimelinePoint) { base.activity(isActive: isActive, at: point) }
    func frame(_ point: TimelinePoint, changes: TimelineChanges) { base.frame(point, changes: changes) }
    func failure(_ message: String, at point: TimelinePoint) { base.failure(message, at: point) }
    func end(_ summary: TimelineSummary) { base.end(summary) }
    func reload(_ reload: TimelineReload, at point: TimelinePoint) { base.reload(reload, at: point) }
    func emitted(_ transaction: Transaction, by performer: PerformerDescription, at point: TimelinePoint) {
        base.emitted(transaction, by: performer, at: point)
    }
}

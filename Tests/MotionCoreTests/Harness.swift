import Foundation
import MotionCore
import MotionTesting

/// A scheduler over the test performers, with a tracer that writes into the same call log, so one list
/// shows performer calls and trace events in their true order.
final class Harness {
    let log = CallLog()
    let scene = Scene(targets: ["a", "b"])
    let tracer = RecordingTracer()
    let scheduler: Scheduler

    init(registry: ((CallLog) -> any PerformerRegistry)? = nil) {
        let registry = registry?(log) ?? TestPerformers.makeRegistry(log: log)
        scheduler = Scheduler(scene: scene, registry: registry)
        scheduler.addTracer(tracer)
        scheduler.addTracer(LogTracer(log: log))
    }

    func commit(_ build: (inout Transaction) -> Void) throws(CommitError) {
        var transaction = Transaction()
        build(&transaction)
        try scheduler.commit(transaction)
    }

    /// The performer calls only (no trace lines), in order.
    var calls: [String] { log.all.filter { !$0.hasPrefix("trace ") } }
}

/// Appends each trace event to a call log as `trace <event>`.
final class LogTracer: Tracer {
    let log: CallLog
    init(log: CallLog) { self.log = log }
    func trace(_ event: TraceEvent) {
        switch event {
        case .committed, .emitted: log.append("trace \(event.description.prefix { $0 != " " })")
        default: log.append("trace \(event)")
        }
    }
}

func plan(_ type: String, _ fields: [String: JSONValue] = [:]) -> Plan { Plan(type: type, fields: fields) }

/// An `Emit` plan whose transaction adds `inner` to `target`.
func emitPlan(adding inner: Plan, to target: String) -> Plan {
    let innerJSON = try! JSONDecoder().decode(JSONValue.self, from: inner.jsonData())
    return plan("Emit", ["transaction": ["operations": [["op": "add", "target": .string(target), "plan": innerJSON]]]])
}

// A plugin (through MotionPluginKit) that decodes a plan with fields of every JSON kind and emits it
// back, re-encoded, to the target "probe-echo": tests compare what went in with what the SDK's plan
// decoder understood. Manifest: Tests/Fixtures/plugins/plan-probe.json.

import MotionPluginKit

/// `{"type": "Probe", "text": ..., "number": ..., "integer": ..., "flag": ..., "vector": [...],
/// "nested": {"name": ..., "values": [...]}, "optional": ...}`.
struct Probe: PluginPlan, Equatable {
    static let type = "Probe"

    struct Nested: Codable, Equatable {
        var name: String
        var values: [Int]
    }

    var text: String
    var number: Double
    var integer: Int64
    var flag: Bool
    var vector: [Double]
    var nested: Nested?
    var optional: Double?
    var small: UInt8?
    var ratio: Float?
}

final class ProbePerformer: PluginPerformer {
    static let planTypes: [any PluginPlan.Type] = [Probe.self]

    private let context: PerformerContext

    init(context: PerformerContext) {
        self.context = context
    }

    func add(_ plan: any PluginPlan) throws {
        guard let probe = plan as? Probe else {
            throw PluginError(.unknownPlanType, "ProbePerformer performs only Probe.", field: "type")
        }
        try context.emit(probe, to: "probe-echo")
    }
}

/// `{"type": "ReadingProbe", "text": ..., "number": ..., "flag": ..., "vector": [...], "optional": ...}`, read by
/// handle through `PlanFieldReading` from a host that offers it (and, as every plan, from JSON otherwise). A
/// `text` of "refuse" is refused the same way on both paths.
struct ReadingProbe: PlanFieldReading, Equatable {
    static let type = "ReadingProbe"
    static let fieldNames = ["text", "number", "flag", "vector", "optional"]

    var text: String
    var number: Double
    var flag: Bool
    var vector: [Double]
    var optional: [Double]?

    init(fields: PlanFields) throws {
        text = try fields.string("text")
        number = try fields.number("number")
        flag = try fields.bool("flag")
        vector = try fields.numbers("vector")
        optional = try fields.numbersIfPresent("optional")
        try refuseIfAsked()
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decode(String.self, forKey: .text)
        number = try container.decode(Double.self, forKey: .number)
        flag = try container.decode(Bool.self, forKey: .flag)
        vector = try container.decode([Double].self, forKey: .vector)
        optional = try container.decodeIfPresent([Double].self, forKey: .optional)
        try refuseIfAsked()
    }

    private func refuseIfAsked() throws {
        if text == "refuse" { throw PluginError(.invalidPlan, "is \"refuse\". To fix, ask for something else.", field: "text") }
    }
}

final class ReadingProbePerformer: SinglePlanPerformer {
    private let context: PerformerContext

    init(context: PerformerContext) {
        self.context = context
    }

    func perform(_ plan: ReadingProbe, named name: String?) throws {
        try context.emit(plan, to: "probe-echo")
    }
}

/// `{"type": "BatchOfOne"}`: nothing to perform; the performer counts the frames its batch gives it in `frames`.
struct BatchOfOne: PluginPlan {
    static let type = "BatchOfOne"
}

/// A `BatchedFrameUpdating` performer with a batch of its own (no ``PerformerContext/sharedFrameBatch(_:)``), as a
/// plugin may choose: `update_many` must run each performer's batch for it alone.
final class BatchOfOnePerformer: SinglePlanPerformer, BatchedFrameUpdating {
    let frameBatch = OneMemberBatch()
    fileprivate let context: PerformerContext
    fileprivate var frames = 0.0

    init(context: PerformerContext) {
        self.context = context
    }

    func perform(_ plan: BatchOfOne, named name: String?) throws {}
}

/// The batch of one ``BatchOfOnePerformer``.
final class OneMemberBatch: FrameBatch {
    func update(_ members: FrameBatchMembers<BatchOfOnePerformer>, frame: Frame, writer: FrameBatchWriter) {
        for performer in members {
            performer.frames += 1
            try? performer.context.setValue(performer.frames, of: performer.context.propertyID(named: "frames"))
        }
    }
}

@c(motion_plugin_entry)
public func motionPluginEntry(_ version: UInt32, _ host: UnsafePointer<motion_host_v1>?)
    -> UnsafePointer<motion_plugin_v1>?
{
    unsafe MotionPlugin(
        id: "org.motion.fixtures.plan-probe", performers: [ProbePerformer.self, ReadingProbePerformer.self, BatchOfOnePerformer.self]
    )
    .export(hostVersion: version, host: host)
}

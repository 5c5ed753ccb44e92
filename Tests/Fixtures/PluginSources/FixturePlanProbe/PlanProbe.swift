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

@c(motion_plugin_entry)
public func motionPluginEntry(_ version: UInt32, _ host: UnsafePointer<motion_host_v1>?)
    -> UnsafePointer<motion_plugin_v1>?
{
    unsafe MotionPlugin(id: "org.motion.fixtures.plan-probe", performers: [ProbePerformer.self])
        .export(hostVersion: version, host: host)
}

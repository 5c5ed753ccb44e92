import MotionPluginKit

/// {"type": "Pulse", "property": "scale", "amplitude": 0.1, "duration": 0.5}
/// Defaults live in the manifest: the host fills absent fields before the plugin sees a plan.
struct Pulse: PluginPlan {
    static let type = "Pulse"
    var property: String
    var amplitude: Double
    var duration: Double
}

final class PulsePerformer: SinglePlanPerformer, FrameUpdating {
    private let context: PerformerContext
    private var pulse: (plan: Pulse, property: PropertyID, base: [Double], start: Double?)?
    private var token = ActivityToken()  // the is-active token, held while a pulse runs

    init(context: PerformerContext) { self.context = context }
    deinit { token.release(context) }

    func perform(_ plan: Pulse, named name: String?) throws {  // name: set for a named add
        guard plan.duration > 0 else {
            throw PluginError.invalidPlan(field: "duration", "must be > 0 s. To fix, pass a positive duration.")
        }
        let property = try context.propertyID(named: plan.property)
        let base = (try? context.value(of: property)) ?? [1]
        pulse = (plan, property, base, nil)
        token.hold(context)  // active until the pulse ends
    }

    func update(frame: Frame) {
        guard var current = pulse else { return }
        let start = current.start ?? frame.time
        current.start = start
        let progress = min((frame.time - start) / current.plan.duration, 1)
        let offset = current.plan.amplitude * (1 - abs(2 * progress - 1))  // up, then back down
        try? context.setValue(current.base.map { $0 + offset }, of: current.property)
        pulse = progress < 1 ? current : nil
        if pulse == nil { token.release(context) }
    }
}

@c(motion_plugin_entry)
public func motionPluginEntry(_ version: UInt32, _ host: UnsafePointer<motion_host_v1>?)
    -> UnsafePointer<motion_plugin_v1>?
{
    unsafe MotionPlugin(id: "org.example.pulse", performers: [PulsePerformer.self]).export(hostVersion: version, host: host)
}

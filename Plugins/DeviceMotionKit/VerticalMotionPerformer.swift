import MotionPluginKit

/// Performs `VerticalMotion`: each device-motion sample writes `gravity · userAcceleration` (g) to the
/// plan's property; one plan per property (a new plan on a property replaces the old one). Holds an
/// is-active token while samples stream.
final class VerticalMotionPerformer: SinglePlanPerformer, FrameUpdating, DeviceMotionReceiving {
    private struct Output {
        var plan: VerticalMotion
        var name: String?
        var property: PropertyID
    }

    private let context: PerformerContext
    private var outputs: [Output] = []
    private var activity = StreamActivity()

    init(context: PerformerContext) {
        self.context = context
    }

    deinit {
        activity.stop(context)
    }

    func removePlan(named name: String) throws {
        outputs.removeAll { $0.name == name }
        if outputs.isEmpty { activity.stop(context) }
    }

    func perform(_ vertical: VerticalMotion, named name: String?) throws {
        try vertical.validate()
        let property = try context.propertyID(named: vertical.property)
        outputs.removeAll { $0.property == property }
        outputs.append(Output(plan: vertical, name: name, property: property))
    }

    func receive(sample: DeviceMotionSample) {
        guard !outputs.isEmpty else { return }
        let g = sample.gravity
        let a = sample.userAcceleration
        let vertical = g.x * a.x + g.y * a.y + g.z * a.z
        var index = 0
        while index < outputs.count {
            do {
                try context.setValue(vertical, of: outputs[index].property)
                index += 1
            } catch {
                context.log(.error, "VerticalMotion on \(outputs[index].plan.property) stopped: \(error)")
                outputs.remove(at: index)
            }
        }
        if outputs.isEmpty {
            activity.stop(context)
        } else {
            activity.sampleReceived(context)
        }
    }

    func update(frame: Frame) {
        guard let timeout = outputs.map(\.plan.timeout).max() else {
            activity.stop(context)
            return
        }
        activity.update(frame: frame, timeout: timeout, context)
    }
}

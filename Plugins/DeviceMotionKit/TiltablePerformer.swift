import MotionPluginKit

/// Performs `Tiltable`: each device-motion sample sets the target's rotation and parallax offset from
/// the sample's attitude. One tilt per target: a new `Tiltable` replaces the running one and keeps the
/// base position the first one read. Holds an is-active token while samples stream.
final class TiltablePerformer: SinglePlanPerformer, FrameUpdating, DeviceMotionReceiving {
    private struct Tilt {
        var plan: Tiltable
        var name: String?
        var rotation: PropertyID
        var position: PropertyID?
        /// pt: the position the target had when the plan arrived.
        var basePosition: [Double]
        /// The first sample's roll and pitch, when the plan measures relative to them.
        var reference: RollPitch?
    }

    private let context: PerformerContext
    private var tilt: Tilt?
    private var activity = StreamActivity()

    init(context: PerformerContext) {
        self.context = context
    }

    deinit {
        activity.stop(context)
    }

    func removePlan(named name: String) throws {
        guard let tilt, tilt.name == name else { return }
        self.tilt = nil
        activity.stop(context)
    }

    func perform(_ tiltable: Tiltable, named name: String?) throws {
        try tiltable.validate()
        let rotation = try context.propertyID(named: tiltable.rotationProperty)
        var position: PropertyID?
        var base: [Double] = []
        if tiltable.parallax != 0 {
            let id = try context.propertyID(named: tiltable.positionProperty)
            if let running = tilt, running.position == id {
                base = running.basePosition
            } else {
                base = (try? context.value(of: id)) ?? [0, 0]
            }
            guard base.count >= 2 else {
                throw PluginError.invalidPlan(
                    field: "positionProperty",
                    "\(tiltable.positionProperty) of \(context.targetName) has \(base.count) component(s). "
                        + "To fix, give the target a position [x, y], or set parallax to 0.")
            }
            position = id
        }
        tilt = Tilt(plan: tiltable, name: name, rotation: rotation, position: position, basePosition: base)
    }

    func receive(sample: DeviceMotionSample) {
        guard var current = tilt else { return }
        var angles = RollPitch(sample.attitude)
        if current.plan.isRelativeToFirstSample {
            let reference = current.reference ?? angles
            current.reference = reference
            angles = angles.relative(to: reference)
        }
        tilt = current
        let plan = current.plan
        let rotation = [
            clamp(plan.gain * angles.pitch, plan.maximumAngle), clamp(plan.gain * angles.roll, plan.maximumAngle), 0,
        ]
        do {
            try context.setValue(rotation, of: current.rotation)
            if let position = current.position {
                var values = current.basePosition
                values[0] += clamp(plan.parallax * angles.roll, plan.maximumOffset)
                values[1] += clamp(plan.parallax * angles.pitch, plan.maximumOffset)
                try context.setValue(values, of: position)
            }
        } catch {
            context.log(.error, "Tiltable stopped: \(error)")
            tilt = nil
            activity.stop(context)
            return
        }
        activity.sampleReceived(context)
    }

    func update(frame: Frame) {
        guard let tilt else {
            activity.stop(context)
            return
        }
        activity.update(frame: frame, timeout: tilt.plan.timeout, context)
    }
}

import MotionAnimation
import MotionCore

/// The `Tween` performer of TweenKit (Plugins/TweenKit/TweenPerformer.swift) as a MotionCore performer
/// compiled into the host: the same frame arithmetic (MotionAnimation's `TweenAnimations`, which TweenKit's
/// performer uses too), fields, timing curves and token handling, so the benchmark compares the plugin
/// boundary and nothing else. Only reading the plan, the property and the token is written here: each
/// tween's key is its property's slot, resolved when the plan arrives.
final class InProcessTweenPerformer: FrameUpdating {
    private let target: Target
    private let scene: Scene
    private let animations = TweenAnimations()
    private var generator: IsActiveTokenGenerator?
    private var token: IsActiveToken?

    init(target: Target) {
        self.target = target
        self.scene = target.scene
    }

    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }

    func addPlan(_ plan: Plan) throws {
        guard let property = plan["property"]?.string, let to = plan["to"]?.array?.compactMap(\.number), (1...4).contains(to.count)
        else {
            throw BenchmarkError("Tween needs \"property\" and \"to\" (1 to 4 numbers)")
        }
        let from = plan["from"]?.array?.compactMap(\.number)
        guard from == nil || from?.count == to.count else { throw BenchmarkError("Tween's \"from\" must match \"to\"") }
        let curve = try TimingCurve(named: plan["timing"]?.string ?? "easeInOut")
        let slot = target.slot(for: target.scene.propertyID(property))
        animations.add(
            key: Int64(slot.rawValue), curve: curve, from: from, to: to, duration: plan["duration"]?.number ?? 0.3,
            delay: plan["delay"]?.number ?? 0)
        if token == nil { token = generator?.generate() }
    }

    func update(frame: Frame) {
        let (target, scene) = (self.target, self.scene)
        animations.advance(to: frame.time) { key in
            target.value(at: PropertySlot(rawValue: Int32(truncatingIfNeeded: key)))?.components
        } write: { key, value in
            if value.count == 1 {
                // Through the scene (shared by every performer, so in cache), not the target: one object fewer
                // read per performer per frame. The slot came from this performer's target.
                scene.setScalar(value.c0, at: PropertySlot(rawValue: Int32(truncatingIfNeeded: key)))
            } else {
                var vector = PropertyValue(value.c0)
                for i in 1..<value.count { vector[i] = value[i] }
                target.setValue(vector, at: PropertySlot(rawValue: Int32(truncatingIfNeeded: key)))
            }
            return true
        }
        if animations.isEmpty, let held = token {
            token = nil
            try? held.terminate()
        }
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

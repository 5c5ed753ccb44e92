import MotionAnimation
import MotionCore

/// The `Tween` performer of TweenKit (Plugins/TweenKit/TweenPerformer.swift), compiled into the host as a
/// MotionCore performer: the same fields, timing curves, interpolation and token handling, so the
/// benchmark compares the plugin boundary and nothing else.
final class InProcessTweenPerformer: FrameUpdating {
    private struct Animation {
        let propertyName: String
        let property: PropertyID
        let curve: TimingCurve
        let to: [Double]
        let duration: Double
        let delay: Double
        var start: Double?
        var from: [Double]?
        var values: [Double]
        var name: String?
    }

    private let target: Target
    // Touched only on the scheduler thread and never re-entrantly: no dynamic exclusivity checks on
    // the per-frame path.
    @exclusivity(unchecked) private var animations: [Animation] = []
    private var generator: IsActiveTokenGenerator?
    private var token: IsActiveToken?

    init(target: Target) { self.target = target }

    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }

    func addPlan(_ plan: Plan) throws {
        guard let property = plan["property"]?.string, let to = plan["to"]?.array?.compactMap(\.number), !to.isEmpty else {
            throw BenchmarkError("Tween needs \"property\" and \"to\"")
        }
        let curve = try TimingCurve(named: plan["timing"]?.string ?? "easeInOut")
        let id = target.scene.propertyID(property)
        animations.removeAll { $0.property == id }
        animations.append(
            Animation(
                propertyName: property, property: id, curve: curve, to: to, duration: plan["duration"]?.number ?? 0.3,
                delay: plan["delay"]?.number ?? 0, start: nil, from: plan["from"]?.array?.compactMap(\.number), values: to, name: nil))
        if token == nil { token = generator?.generate() }
    }

    func update(frame: Frame) {
        var index = 0
        while index < animations.count {
            if step(&animations[index], at: frame.time) { animations.remove(at: index) } else { index += 1 }
        }
        if animations.isEmpty, let held = token {
            token = nil
            try? held.terminate()
        }
    }

    private func step(_ animation: inout Animation, at time: Double) -> Bool {
        let start = animation.start ?? time
        animation.start = start
        let elapsed = time - start - animation.delay
        guard elapsed >= 0 else { return false }
        if animation.from == nil {
            let current = target[animation.property]?.components
            animation.from = current?.count == animation.to.count ? current : animation.to
        }
        let progress = animation.duration > 0 ? elapsed / animation.duration : 1
        let fraction = animation.curve.value(at: progress)
        let from = animation.from ?? animation.to
        for component in animation.values.indices {
            animation.values[component] = interpolate(from: from[component], to: animation.to[component], fraction: fraction)
        }
        target.setValue(PropertyValue(animation.values), for: animation.property)
        return progress >= 1
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

import MotionAnimation
import MotionCore

/// The `Tween` performer of TweenKit (Plugins/TweenKit/TweenPerformer.swift) as a MotionCore performer
/// compiled into the host: the same frame arithmetic (MotionAnimation's `TweenAnimation`, which TweenKit's
/// performer uses too), fields, timing curves and token handling, so the benchmark compares the plugin
/// boundary and nothing else. Only reading the plan, the property and the token is written here.
final class InProcessTweenPerformer: FrameUpdating {
    private struct Animation {
        let property: PropertyID
        var tween: TweenAnimation
    }

    private let target: Target
    private var animations: [Animation] = []
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
        let tween = TweenAnimation(
            curve: curve, from: plan["from"]?.array?.compactMap(\.number), to: to, duration: plan["duration"]?.number ?? 0.3,
            delay: plan["delay"]?.number ?? 0)
        animations.append(Animation(property: id, tween: tween))
        if token == nil { token = generator?.generate() }
    }

    func update(frame: Frame) {
        // As TweenKit's performer: the frame works on a local array (two checked accesses per frame).
        var running: [Animation] = []
        swap(&running, &animations)
        var index = 0
        while index < running.count {
            if step(&running[index], at: frame.time) { running.remove(at: index) } else { index += 1 }
        }
        let isDone = running.isEmpty
        swap(&running, &animations)
        if isDone, let held = token {
            token = nil
            try? held.terminate()
        }
    }

    private func step(_ animation: inout Animation, at time: Double) -> Bool {
        let property = animation.property
        let step = animation.tween.advance(to: time) { target[property]?.components }
        if step == .waiting { return false }
        target.setValue(PropertyValue(animation.tween.values), for: property)
        return step == .finished
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

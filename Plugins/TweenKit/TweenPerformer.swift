import MotionAnimation
import MotionPluginKit

/// Performs `Tween`s: any number of properties of one target at once, one tween per property (a new
/// tween on a property replaces the running one). Holds one is-active token while any tween runs.
final class TweenPerformer: SinglePlanPerformer, FrameUpdating {
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

    private let context: PerformerContext
    private var animations: [Animation] = []
    private var token = ActivityToken()

    init(context: PerformerContext) {
        self.context = context
    }

    deinit {
        token.release(context)
    }

    func removePlan(named name: String) throws {
        animations.removeAll { $0.name == name }
        if animations.isEmpty { token.release(context) }
    }

    func perform(_ tween: Tween, named name: String?) throws {
        let curve = try tween.validatedCurve()
        let property = try context.propertyID(named: tween.property)
        animations.removeAll { $0.property == property }
        animations.append(
            Animation(
                propertyName: tween.property, property: property, curve: curve, to: tween.to, duration: tween.duration,
                delay: tween.delay, start: nil, from: tween.from, values: tween.to, name: name))
        token.hold(context)
    }

    func update(frame: Frame) {
        // The frame works on a local array: the stored property is accessed twice per frame (to take the
        // animations out and to put them back), not once per animation, and needs no
        // `@exclusivity(unchecked)`. (Nothing in the loop calls back into this performer.)
        var running: [Animation] = []
        swap(&running, &animations)
        var index = 0
        while index < running.count {
            if step(&running[index], at: frame.time) {
                running.remove(at: index)
            } else {
                index += 1
            }
        }
        let isDone = running.isEmpty
        swap(&running, &animations)
        if isDone { token.release(context) }
    }

    /// Advances one animation to `time`; returns whether it has finished.
    private func step(_ animation: inout Animation, at time: Double) -> Bool {
        let start = animation.start ?? time
        animation.start = start
        let elapsed = time - start - animation.delay
        guard elapsed >= 0 else { return false }
        if animation.from == nil {
            // Start from the property's value when the tween starts (after its delay).
            let current = try? context.value(of: animation.property)
            if let current, current.count == animation.to.count {
                animation.from = current
            } else {
                if let current {
                    context.log(
                        .warning,
                        "Tween on \(animation.propertyName): the property has \(current.count) components, "
                            + "\"to\" has \(animation.to.count); jumping to \"to\".")
                }
                animation.from = animation.to
            }
        }
        let progress = animation.duration > 0 ? elapsed / animation.duration : 1
        let fraction = animation.curve.value(at: progress)
        let from = animation.from ?? animation.to
        for component in animation.values.indices {
            animation.values[component] = interpolate(
                from: from[component], to: animation.to[component], fraction: fraction)
        }
        do {
            try context.setValue(animation.values, of: animation.property)
        } catch {
            context.log(.error, "Tween on \(animation.propertyName) stopped: \(error)")
            return true
        }
        return progress >= 1
    }
}

import MotionAnimation
import MotionPluginKit

/// Performs `Tween`s: any number of properties of one target at once, one tween per property (a new
/// tween on a property replaces the running one). Holds one is-active token while any tween runs.
final class TweenPerformer: SinglePlanPerformer, FrameUpdating {
    /// A running tween (its frame arithmetic is MotionAnimation's, shared with the benchmark's in-process
    /// Tween) and the property it writes.
    private struct Animation {
        let propertyName: String
        let property: PropertyID
        var tween: TweenAnimation
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
        // A vector of another length than the property's is a mistake in the plan, not a new shape for it.
        if let current = try? context.value(of: property), current.count != tween.to.count {
            throw PluginError.invalidPlan(
                field: "to",
                "has \(tween.to.count) components but \(tween.property) has \(current.count). To fix, give it \(current.count)")
        }
        animations.removeAll { $0.property == property }
        animations.append(
            Animation(
                propertyName: tween.property, property: property,
                tween: TweenAnimation(
                    curve: curve, from: tween.from, to: tween.to, duration: tween.duration, delay: tween.delay),
                name: name))
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

    /// Advances one animation to `time` and writes its value; returns whether it has finished.
    private func step(_ animation: inout Animation, at time: Double) -> Bool {
        let (property, name, count) = (animation.property, animation.propertyName, animation.tween.to.count)
        let step = animation.tween.advance(to: time) {
            // Start from the property's value when the tween starts (after its delay).
            let current = try? context.value(of: property)
            if let current, current.count != count {
                context.log(
                    .warning,
                    "Tween on \(name): the property has \(current.count) components, \"to\" has \(count); jumping to \"to\".")
            }
            return current
        }
        if step == .waiting { return false }
        do {
            try context.setValue(animation.tween.values, of: animation.property)
        } catch {
            context.log(.error, "Tween on \(animation.propertyName) stopped: \(error)")
            return true
        }
        return step == .finished
    }
}

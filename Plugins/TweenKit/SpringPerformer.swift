import MotionAnimation
import MotionPluginKit

/// Performs `SpringTo`: one spring per property of the target. A new `SpringTo` on a moving property
/// re-targets its spring and keeps the velocity. Holds one is-active token while any spring moves and
/// releases it when all are at rest.
final class SpringPerformer: SinglePlanPerformer, FrameUpdating {
    private struct Motion {
        let property: PropertyID
        let name: String
        var simulation: SpringSimulation
        var planName: String?
    }

    private let context: PerformerContext
    private var motions: [Motion] = []
    private var token = ActivityToken()

    init(context: PerformerContext) {
        self.context = context
    }

    deinit {
        token.release(context)
    }

    func removePlan(named name: String) throws {
        motions.removeAll { $0.planName == name }
        if motions.isEmpty { token.release(context) }
    }

    func perform(_ springTo: SpringTo, named name: String?) throws {
        let spring = try springTo.validatedSpring()
        let property = try context.propertyID(named: springTo.property)
        if let index = motions.firstIndex(where: { $0.property == property }) {
            guard motions[index].simulation.value.count == springTo.destination.count else {
                throw PluginError.invalidPlan(
                    field: "destination",
                    "has \(springTo.destination.count) components but \(springTo.property) has "
                        + "\(motions[index].simulation.value.count). To fix, match them.")
            }
            // Re-target: keep value and velocity, take the new destination and spring.
            try motions[index].simulation.retarget(to: springTo.destination)
            motions[index].simulation.spring = spring
            motions[index].planName = name
        } else {
            let current = (try? context.value(of: property)) ?? springTo.destination
            guard current.count == springTo.destination.count else {
                throw PluginError.invalidPlan(
                    field: "destination",
                    "has \(springTo.destination.count) components but \(springTo.property) has \(current.count). "
                        + "To fix, match them.")
            }
            let simulation: SpringSimulation
            do {
                simulation = try SpringSimulation(
                    spring: spring, value: current, destination: springTo.destination, threshold: springTo.threshold)
            } catch {
                throw PluginError.invalidPlan(field: error.parameter, error.message)
            }
            motions.append(Motion(property: property, name: springTo.property, simulation: simulation, planName: name))
        }
        token.hold(context)
    }

    func update(frame: Frame) {
        var index = 0
        while index < motions.count {
            let isAtRest = motions[index].simulation.advance(by: frame.delta)
            do {
                try context.setValue(motions[index].simulation.value, of: motions[index].property)
            } catch {
                context.log(.error, "SpringTo on \(motions[index].name) stopped: \(error)")
                motions.remove(at: index)
                continue
            }
            if isAtRest {
                motions.remove(at: index)
            } else {
                index += 1
            }
        }
        if motions.isEmpty { token.release(context) }
    }
}

import Foundation
import MotionCore

/// A typed plan that sets a scalar property.
struct SetLevel: PlanValue {
    static let planType = "SetLevel"
    var level: Double
}

/// Sets `level` on its target from typed or JSON plans.
final class LevelPerformer: Performer {
    let target: Target
    let property: PropertyID
    init(target: Target) {
        self.target = target
        property = target.scene.propertyID("level")
    }
    func addPlan(_ plan: Plan) throws {
        let level: Double
        if let typed = plan.typedValue as? SetLevel { level = typed.level } else { level = plan["level"]?.number ?? 0 }
        target.setValue(PropertyValue(level), for: property)
    }
}

/// Holds one token and moves its target's `x` every frame (a stand-in for any frame-updated performer).
final class DriftPerformer: FrameUpdating {
    let target: Target
    let property: PropertyID
    var generator: IsActiveTokenGenerator?
    var token: IsActiveToken?
    init(target: Target) {
        self.target = target
        property = target.scene.propertyID("x")
    }
    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
    func addPlan(_ plan: Plan) throws { token = generator?.generate() }
    func update(frame: Frame) { target.setValue(PropertyValue(frame.time * 2), for: property) }
}

struct RuntimeBenchmarks {
    static let targetCount = 100

    static func makeScheduler() -> Scheduler {
        let scene = Scene(targets: (0..<targetCount).map { TargetID("t\($0)") })
        let registry = InProcessRegistry()
        registry.register(planTypes: ["SetLevel"], className: "LevelPerformer") { LevelPerformer(target: $0.target) }
        registry.register(planTypes: ["Drift"], className: "DriftPerformer") { DriftPerformer(target: $0.target) }
        return Scheduler(scene: scene, registry: registry)
    }

    /// Plans per second committed as typed Swift plans, one plan per transaction.
    static func typedPlansPerSecond(plans: Int = 200_000) throws -> Double {
        let scheduler = makeScheduler()
        let targets = (0..<targetCount).map { TargetID("t\($0)") }
        let seconds = try medianSeconds {
            for i in 0..<plans {
                var t = Transaction()
                t.add(SetLevel(level: Double(i)), to: targets[i % targetCount])
                try scheduler.commit(t)
            }
        }
        return Double(plans) / seconds
    }

    /// Plans per second committed as JSON transactions of 10 plans each (decode + commit).
    static func jsonPlansPerSecond(transactions: Int = 10_000) throws -> Double {
        let scheduler = makeScheduler()
        let payloads: [Data] = (0..<100).map { k in
            let ops = (0..<10).map { j in #"{"op":"add","target":"t\#((k * 10 + j) % targetCount)","plan":{"type":"SetLevel","level":\#(j)}}"# }
            return Data(#"{"operations":[\#(ops.joined(separator: ","))]}"#.utf8)
        }
        let seconds = try medianSeconds {
            for i in 0..<transactions { try scheduler.commit(Transaction(jsonData: payloads[i % payloads.count])) }
        }
        return Double(transactions * 10) / seconds
    }

    /// Nanoseconds per performer per frame with `count` frame-updated performers, one per target.
    static func frameCost(performers count: Int = 10_000, frames: Int = 200, drain: Bool = true) throws -> Double {
        let scene = Scene(targets: (0..<count).map { TargetID("d\($0)") })
        let registry = InProcessRegistry()
        registry.register(planTypes: ["Drift"], className: "DriftPerformer") { DriftPerformer(target: $0.target) }
        let scheduler = Scheduler(scene: scene, registry: registry)
        var t = Transaction()
        for i in 0..<count { t.add(Plan(type: "Drift"), to: TargetID("d\(i)")) }
        try scheduler.commit(t)
        var time = 0.0
        let seconds = medianSeconds {
            for _ in 0..<frames {
                time += 1.0 / 60
                scheduler.advanceFrame(to: time)
                if drain { scene.drainChanges { _, _, _ in } }
            }
        }
        return seconds / Double(frames * count) * 1e9
    }
}

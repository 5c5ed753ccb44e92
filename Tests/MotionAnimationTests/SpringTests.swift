import MotionAnimation
import Testing

/// A reference solution: semi-implicit Euler with a tiny step, independent of the closed form.
private func integrate(_ spring: Spring, x0: Double, v0: Double, duration: Double) -> (Double, Double) {
    let steps = 200_000
    let h = duration / Double(steps)
    var x = x0
    var v = v0
    for _ in 0..<steps {
        let acceleration = (-spring.stiffness * x - spring.damping * v) / spring.mass
        v += acceleration * h
        x += v * h
    }
    return (x, v)
}

@Suite("Spring integration")
struct SpringTests {
    @Test("Defaults are stiffness 342, damping 30, mass 1: underdamped, ζ ≈ 0.811")
    func defaults() throws {
        let spring = try Spring()
        #expect(spring.stiffness == 342)
        #expect(spring.damping == 30)
        #expect(spring.mass == 1)
        #expect(abs(spring.dampingRatio - 30 / (2 * 342.0.squareRoot())) < 1e-12)
        #expect(spring.dampingRatio < 1)
    }

    @Test(
        "The closed form matches a fine numerical integration",
        arguments: [
            (342.0, 30.0, 1.0),  // underdamped (defaults)
            (100.0, 20.0, 1.0),  // critically damped: c = 2√(km)
            (100.0, 60.0, 1.0),  // overdamped
            (50.0, 0.0, 2.0),  // undamped
        ])
    func closedFormMatchesIntegration(stiffness: Double, damping: Double, mass: Double) throws {
        let spring = try Spring(stiffness: stiffness, damping: damping, mass: mass)
        for duration in [0.016, 0.1, 0.35] {
            let exact = spring.advance(displacement: 1.5, velocity: -2, by: duration)
            let reference = integrate(spring, x0: 1.5, v0: -2, duration: duration)
            #expect(abs(exact.displacement - reference.0) < 1e-3, "x after \(duration) s")
            #expect(abs(exact.velocity - reference.1) < 1e-2, "v after \(duration) s")
        }
    }

    @Test("One long step equals many short ones (no integration error accumulates)")
    func stepSizeIndependence() throws {
        let spring = try Spring()
        var x = 1.0
        var v = 0.0
        for _ in 0..<10 { (x, v) = spring.advance(displacement: x, velocity: v, by: 0.01) }
        let once = spring.advance(displacement: 1, velocity: 0, by: 0.1)
        #expect(abs(once.displacement - x) < 1e-12)
        #expect(abs(once.velocity - v) < 1e-10)
    }

    @Test("A simulation comes to rest at its destination and snaps exactly")
    func comesToRest() throws {
        var simulation = try SpringSimulation(spring: Spring(), value: [0, 10], destination: [1, -5])
        var frames = 0
        while !simulation.advance(by: 1.0 / 60) {
            frames += 1
            #expect(frames < 600, "still moving after 10 s")
            if frames >= 600 { break }
        }
        #expect(simulation.value == [1, -5])
        #expect(simulation.velocity == [0, 0])
        #expect(simulation.isAtRest)
        // The default spring settles in well under a second but not within a few frames.
        #expect(frames > 10 && frames < 60)
    }

    @Test("Re-targeting keeps the current value and velocity")
    func retargetKeepsVelocity() throws {
        var simulation = try SpringSimulation(spring: Spring(), value: [0], destination: [100])
        for _ in 0..<5 { simulation.advance(by: 1.0 / 60) }
        let valueBefore = simulation.value
        let velocityBefore = simulation.velocity
        #expect(velocityBefore[0] > 0)
        try simulation.retarget(to: [-100])
        #expect(simulation.value == valueBefore)
        #expect(simulation.velocity == velocityBefore)
        // Moving on: it still travels in the old direction for a moment (momentum), then turns.
        simulation.advance(by: 0.001)
        #expect(simulation.value[0] > valueBefore[0])
    }

    @Test("A simulation started at its destination is at rest; with velocity it is not")
    func restDetection() throws {
        let still = try SpringSimulation(spring: Spring(), value: [3], destination: [3])
        #expect(still.isAtRest)
        let pushed = try SpringSimulation(spring: Spring(), value: [3], velocity: [1], destination: [3])
        #expect(!pushed.isAtRest)
    }

    @Test("Non-positive or non-finite steps change nothing")
    func badSteps() throws {
        var simulation = try SpringSimulation(spring: Spring(), value: [0], destination: [1])
        for step in [0, -1, Double.nan, .infinity] {
            let isAtRest = simulation.advance(by: step)
            #expect(!isAtRest)
            #expect(simulation.value == [0])
        }
    }

    @Test(
        "Bad spring parameters throw naming the parameter",
        arguments: [
            (0.0, 30.0, 1.0, "stiffness"), (-1, 30, 1, "stiffness"), (342, -1, 1, "damping"),
            (342, 30, 0, "mass"), (.nan, 30, 1, "stiffness"), (342, .infinity, 1, "damping"),
        ])
    func badSprings(stiffness: Double, damping: Double, mass: Double, parameter: String) {
        #expect {
            try Spring(stiffness: stiffness, damping: damping, mass: mass)
        } throws: { error in
            (error as? AnimationError)?.parameter == parameter
        }
    }

    @Test("Mismatched component counts and bad thresholds throw; a failed re-target changes nothing")
    func badSimulations() throws {
        let spring = try Spring()
        #expect(throws: AnimationError.self) { try SpringSimulation(spring: spring, value: [], destination: []) }
        #expect(throws: AnimationError.self) { try SpringSimulation(spring: spring, value: [0, 0], destination: [1]) }
        #expect(throws: AnimationError.self) {
            try SpringSimulation(spring: spring, value: [0], velocity: [1, 2], destination: [1])
        }
        #expect(throws: AnimationError.self) {
            try SpringSimulation(spring: spring, value: [0], destination: [1], threshold: 0)
        }
        var simulation = try SpringSimulation(spring: spring, value: [0], destination: [1])
        #expect(throws: AnimationError.self) { try simulation.retarget(to: [1, 2]) }
        #expect(throws: AnimationError.self) { try simulation.retarget(to: [.nan]) }
        #expect(simulation.destination == [1])
    }
}

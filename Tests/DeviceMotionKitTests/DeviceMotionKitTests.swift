import DeviceMotion
import Foundation
import MotionCore
import Testing

/// DeviceMotionKit's performers through the real plugin host, fed as Composable Core Motion's README
/// feeds its feature: a test motion manager streams chosen samples, the plan is committed, and the
/// target's properties, tokens and emitted transactions are asserted exactly.
@Suite(.serialized)
struct VerticalMotionTests {
    @Test func writesGravityDotUserAccelerationAsInComposableCoreMotionsReadme() async throws {
        let harness = try DeviceMotionHarness(targets: [("card", ["verticalAcceleration": 0])])
        try harness.commit(#"{"operations":[{"op":"add","target":"card","plan":{"type":"VerticalMotion"}}]}"#)
        try await stream([motion(gravity: (1, 2, 3), userAcceleration: (4, 5, 6), at: 0)], into: harness)
        #expect(harness.value("card", "verticalAcceleration") == [32])
    }

    @Test func writesEverySampleToTheNamedProperty() async throws {
        let harness = try DeviceMotionHarness(targets: [("card", ["bounce": 0])])
        try harness.commit(
            #"{"operations":[{"op":"add","target":"card","plan":{"type":"VerticalMotion","property":"bounce"}}]}"#)
        var values: [[Double]?] = []
        let samples = [
            motion(gravity: (0, 0, -1), userAcceleration: (0.5, 0.25, -0.5), at: 0),
            motion(gravity: (0, -1, 0), userAcceleration: (0.5, 0.25, -0.5), at: 0.01),
        ]
        try await stream(samples, into: harness) { _ in values.append(harness.value("card", "bounce")) }
        #expect(values == [[0.5], [-0.25]])
        #expect(harness.value("card", "verticalAcceleration") == nil)
    }
}

@Suite(.serialized)
struct TiltableTests {
    /// Attitudes built from known roll and pitch (yaw 0, `q = q_x(pitch) · q_y(roll)`, Apple's
    /// decomposition), with gain 2, limit 1 rad, parallax 10 pt/rad, limit 5 pt, base position (100, 50).
    @Test(arguments: [
        // pitch, roll → rotation [x, y, z], position [x, y]
        (0.3, 0.0, [0.6, 0, 0], [100, 53]),
        (0.0, 0.4, [0, 0.8, 0], [104, 50]),
        (0.2, -0.35, [0.4, -0.7, 0], [96.5, 52]),
        (0.8, 0.0, [1.0, 0, 0], [100, 55]),  // rotation and offset clamped
        (-0.1, 1.2, [-0.2, 1.0, 0], [105, 49]),
    ])
    func mapsRollAndPitchToRotationAndParallax(
        pitch: Double, roll: Double, rotation: [Double], position: [Double]
    ) async throws {
        let harness = try DeviceMotionHarness(targets: [("card", ["position": PropertyValue([100, 50])])])
        try harness.commit(
            #"{"operations":[{"op":"add","target":"card","plan":{"type":"Tiltable","gain":2,"maximumAngle":1,"#
                + #""parallax":10,"maximumOffset":5,"relativeTo":"referenceFrame"}}]}"#)
        let q =
            Quaternion(x: sin(pitch / 2), y: 0, z: 0, w: cos(pitch / 2))
            * Quaternion(x: 0, y: sin(roll / 2), z: 0, w: cos(roll / 2))
        // The attitude really has these angles by Core Motion's formulas.
        #expect(abs(Attitude(quaternion: q).pitch - pitch) < 1e-12)
        #expect(abs(Attitude(quaternion: q).roll - roll) < 1e-12)
        try await stream([motion(attitude: q, at: 0)], into: harness)
        #expect(isClose(harness.value("card", "rotation"), rotation), "\(harness.value("card", "rotation") ?? [])")
        #expect(isClose(harness.value("card", "position"), position), "\(harness.value("card", "position") ?? [])")
    }

    @Test func measuresFromTheFirstSampleByDefault() async throws {
        let harness = try DeviceMotionHarness(targets: [("card", ["position": PropertyValue([0, 0])])])
        try harness.commit(
            #"{"operations":[{"op":"add","target":"card","plan":{"type":"Tiltable","gain":1,"parallax":100,"maximumOffset":50}}]}"#
        )
        let samples = [0.1, 0.35, -0.05].enumerated().map { index, pitch in
            motion(attitude: Quaternion(x: sin(pitch / 2), y: 0, z: 0, w: cos(pitch / 2)), at: Double(index) * 0.01)
        }
        var rotations: [[Double]] = []
        var positions: [[Double]] = []
        try await stream(samples, into: harness) { _ in
            rotations.append(harness.value("card", "rotation") ?? [])
            positions.append(harness.value("card", "position") ?? [])
        }
        #expect(isClose(rotations[0], [0, 0, 0]))
        #expect(isClose(rotations[1], [0.25, 0, 0]))
        #expect(isClose(rotations[2], [-0.15, 0, 0]))
        #expect(isClose(positions[1], [0, 25]))
        #expect(isClose(positions[2], [0, -15]))
    }
}

@Suite(.serialized)
struct ShakeDetectorTests {
    static let resetTransaction =
        #"{"operations":[{"op":"add","target":"card","plan":{"type":"Tween","property":"opacity","to":[1],"duration":0.5}}]}"#

    /// |userAcceleration| in g at 100 Hz: a 0.1 s shake at 1.5 g, a second one inside the cooldown, a third
    /// after it, and a one-sample spike too short to count.
    static func shakes() -> [DeviceMotion] {
        (0..<300).map { index in
            let t = Double(index) / 100
            let isShaking = (0.10...0.20).contains(t) || (0.50...0.60).contains(t) || (1.20...1.30).contains(t)
            let isSpike = index == 250
            let magnitude = isShaking || isSpike ? 1.5 : 0.2
            // Split over the axes so the magnitude, not a component, is what counts: (0.6, 0.8, 0) · m.
            return motion(userAcceleration: (0.6 * magnitude, 0.8 * magnitude, 0), at: t)
        }
    }

    @Test func firesOncePerShakeAndWaitsOutTheCooldown() async throws {
        let harness = try DeviceMotionHarness(targets: [("card", ["opacity": 0]), ("phone", [:])])
        try harness.commit(
            #"{"operations":[{"op":"add","target":"phone","plan":{"type":"ShakeDetector","threshold":1,"#
                + #""minimumDuration":0.05,"cooldown":1,"transaction":\#(Self.resetTransaction)}}]}"#)
        var firedAt: [Double] = []
        try await stream(Self.shakes(), into: harness) { sample in
            if harness.emitted.count > firedAt.count { firedAt.append(sample.timestamp) }
        }
        // Above the threshold since 0.10 s: fires at 0.15 s; 0.50–0.60 s is inside the cooldown (until
        // 1.15 s); 1.20 s → fires at 1.25 s; the spike at 2.50 s is shorter than 0.05 s.
        #expect(firedAt == [0.15, 1.25])
        let expected = MotionCore.Transaction([
            .add(
                Plan(type: "Tween", fields: ["property": .string("opacity"), "to": .array([.number(1)]), "duration": .number(0.5)]),
                target: "card")
        ])
        #expect(harness.emitted.map(\.transaction) == [expected, expected])
        #expect(harness.emitted.map(\.by) == Array(repeating: PerformerDescription(target: "phone", className: "ShakeDetectorPerformer"), count: 2))
    }

    @Test func theEmittedTransactionIsPerformed() async throws {
        let harness = try DeviceMotionHarness(targets: [("card", ["opacity": 0]), ("phone", [:])])
        try harness.commit(
            #"{"operations":[{"op":"add","target":"phone","plan":{"type":"ShakeDetector","threshold":1,"#
                + #""minimumDuration":0,"cooldown":1,"transaction":\#(Self.resetTransaction)}}]}"#)
        try await stream([motion(userAcceleration: (0, 0, 2), at: 0)], into: harness)
        #expect(harness.emitted.count == 1)
        // The emitted Tween runs on the card: 0 → 1 over 0.5 s of frames.
        for index in 0...40 { harness.frame(at: Double(index) / 60) }
        #expect(harness.value("card", "opacity") == [1])
    }

    @Test func anEmptyTransactionIsNotEmitted() async throws {
        let harness = try DeviceMotionHarness(targets: [("phone", [:])])
        try harness.commit(#"{"operations":[{"op":"add","target":"phone","plan":{"type":"ShakeDetector","minimumDuration":0}}]}"#)
        try await stream([motion(userAcceleration: (0, 3, 0), at: 0)], into: harness)
        #expect(harness.emitted.isEmpty)
        #expect(harness.scheduler.isActive)
    }
}

@Suite(.serialized)
struct StreamTokenTests {
    @Test(arguments: ["Tiltable", "VerticalMotion", "ShakeDetector"])
    func takesATokenOnTheFirstSampleAndReleasesItAfterTheTimeout(planType: String) async throws {
        let harness = try DeviceMotionHarness(
            targets: [("card", ["position": PropertyValue([0, 0]), "verticalAcceleration": 0])])
        try harness.commit(#"{"operations":[{"op":"add","target":"card","plan":{"type":"\#(planType)","timeout":0.5}}]}"#)
        try await stream([motion(at: 0), motion(at: 0.01)], into: harness)
        #expect(harness.scheduler.outstandingTokenCount == 1)
        harness.frame(at: 0)
        harness.frame(at: 0.25)
        #expect(harness.scheduler.isActive, "0.25 s without a sample is within the timeout")
        harness.frame(at: 0.5)
        #expect(!harness.scheduler.isActive)
        #expect(harness.activity.transitions == [true, false])
        let performer = "\(planType)Performer@card"
        #expect(harness.tokenEvents == ["generated \(performer)", "terminated \(performer)"])
    }

    @Test(arguments: ["Tiltable", "VerticalMotion", "ShakeDetector"])
    func removingTheNamedPlanReleasesTheToken(planType: String) async throws {
        let harness = try DeviceMotionHarness(
            targets: [("card", ["position": PropertyValue([0, 0]), "verticalAcceleration": 0])])
        try harness.commit(#"{"operations":[{"op":"addNamed","name":"sensor","target":"card","plan":{"type":"\#(planType)"}}]}"#)
        try await stream([motion(at: 0)], into: harness)
        harness.frame(at: 0)
        #expect(harness.scheduler.outstandingTokenCount == 1)
        try harness.commit(#"{"operations":[{"op":"removeNamed","name":"sensor","target":"card"}]}"#)
        _ = harness.scheduler.processPendingWork()
        #expect(!harness.scheduler.isActive)
        // Later samples no longer take a token.
        #expect(harness.deliver(motion(at: 0.02)) == 1)
        #expect(!harness.scheduler.isActive)
        #expect(harness.activity.transitions == [true, false])
    }
}

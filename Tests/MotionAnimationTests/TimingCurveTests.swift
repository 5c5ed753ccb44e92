import Testing

@testable import MotionAnimation

/// Finds y for x on a cubic Bézier by brute force: dense sampling of the parameter t, independent of
/// the Newton/bisection solver under test.
private func bruteForceY(x1: Double, y1: Double, x2: Double, y2: Double, x: Double) -> Double {
    func bezier(_ p1: Double, _ p2: Double, _ t: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
    }
    var bestT = 0.0
    var bestError = Double.infinity
    let steps = 200_000
    for step in 0...steps {
        let t = Double(step) / Double(steps)
        let error = abs(bezier(x1, x2, t) - x)
        if error < bestError {
            bestError = error
            bestT = t
        }
    }
    return bezier(y1, y2, bestT)
}

@Suite("Cubic-Bézier timing curves")
struct TimingCurveTests {
    @Test(
        "Presets carry the documented CSS and Material control points",
        arguments: [
            (CubicBezier.easeIn, [0.42, 0, 1, 1]),
            (CubicBezier.easeOut, [0, 0, 0.58, 1]),
            (CubicBezier.easeInOut, [0.42, 0, 0.58, 1]),
            (CubicBezier.materialStandard, [0.4, 0, 0.2, 1]),
            (CubicBezier.materialDeceleration, [0, 0, 0.2, 1]),
            (CubicBezier.materialAcceleration, [0.4, 0, 1, 1]),
            (CubicBezier.materialSharp, [0.4, 0, 0.6, 1]),
        ])
    func presetControlPoints(curve: CubicBezier, points: [Double]) {
        #expect([curve.x1, curve.y1, curve.x2, curve.y2] == points)
    }

    @Test(
        "The solver matches a brute-force evaluation of the curve",
        arguments: [
            [0.42, 0, 1, 1], [0, 0, 0.58, 1], [0.42, 0, 0.58, 1], [0.4, 0, 0.2, 1],
            [0.68, -0.55, 0.265, 1.55],  // CSS "easeInOutBack": overshoots both ends
            [1, 0, 0, 1],  // flat slope at x = 0.5: Newton stalls, bisection must finish
            [0, 1, 1, 0],  // vertical at x = 0.5
        ])
    func solverMatchesBruteForce(points: [Double]) throws {
        let curve = try CubicBezier(controlPoints: points)
        for x in stride(from: 0.05, through: 0.95, by: 0.05) {
            let expected = bruteForceY(x1: points[0], y1: points[1], x2: points[2], y2: points[3], x: x)
            // The brute force is only as fine as its grid; the vertical curve needs more room.
            let tolerance = points == [0, 1, 1, 0] ? 2e-2 : 1e-4
            #expect(abs(curve.value(at: x) - expected) < tolerance, "x = \(x) on \(curve)")
        }
    }

    @Test("solveT inverts x(t) to 1e-9 even where the slope is zero")
    func solveTInvertsX() throws {
        let curve = try CubicBezier(x1: 1, y1: 0, x2: 0, y2: 1)
        for x in stride(from: 0.0, through: 1.0, by: 0.01) {
            let t = curve.solveT(forX: x)
            let u = 1 - t
            let xOfT = 3 * u * u * t * 1 + 3 * u * t * t * 0 + t * t * t
            #expect(abs(xOfT - x) < 1e-8, "x = \(x), t = \(t)")
        }
    }

    @Test("Ends are exact and progress outside [0, 1] is clamped")
    func endsAndClamping() {
        for curve in [CubicBezier.easeIn, .easeOut, .easeInOut] {
            #expect(curve.value(at: 0) == 0)
            #expect(curve.value(at: 1) == 1)
            #expect(curve.value(at: -3) == 0)
            #expect(curve.value(at: 7) == 1)
            #expect(curve.value(at: .nan) == 0)
        }
        #expect(TimingCurve.linear.value(at: 0.25) == 0.25)
        #expect(TimingCurve.linear.value(at: 2) == 1)
        #expect(TimingCurve.linear.value(at: -1) == 0)
    }

    @Test("easeInOut is symmetric and the presets bend the expected way")
    func shapes() {
        #expect(abs(TimingCurve.easeInOut.value(at: 0.5) - 0.5) < 1e-9)
        #expect(abs(TimingCurve.easeInOut.value(at: 0.2) + TimingCurve.easeInOut.value(at: 0.8) - 1) < 1e-9)
        #expect(TimingCurve.easeIn.value(at: 0.5) < 0.5)
        #expect(TimingCurve.easeOut.value(at: 0.5) > 0.5)
        // The presets are monotonic.
        for curve in [TimingCurve.easeIn, .easeOut, .easeInOut] {
            var previous = 0.0
            for step in 1...100 {
                let value = curve.value(at: Double(step) / 100)
                #expect(value >= previous)
                previous = value
            }
        }
    }

    @Test("Named presets parse; unknown names throw listing the known ones", arguments: TimingCurve.names)
    func namedPresets(name: String) throws {
        let curve = try TimingCurve(named: name)
        let expected: TimingCurve =
            switch name {
            case "linear": .linear
            case "easeIn": .easeIn
            case "easeOut": .easeOut
            default: .easeInOut
            }
        #expect(curve == expected)
    }

    @Test("An unknown curve name is an unknownName error naming the field")
    func unknownName() {
        #expect {
            try TimingCurve(named: "bouncy")
        } throws: { error in
            guard let error = error as? AnimationError else { return false }
            return error.code == .unknownName && error.parameter == "timing" && error.message.contains("easeInOut")
        }
    }

    @Test(
        "Bad control points throw naming the point",
        arguments: [
            ([1.5, 0, 0.5, 1], "x1", AnimationError.Code.outOfRange),
            ([0.5, 0, -0.1, 1], "x2", .outOfRange),
            ([0.5, .nan, 0.5, 1], "y1", .notFinite),
            ([0.5, 0, 0.5, .infinity], "y2", .notFinite),
            ([0.5, 0, 0.5], "controlPoints", .outOfRange),
        ])
    func badControlPoints(points: [Double], parameter: String, code: AnimationError.Code) {
        #expect {
            try CubicBezier(controlPoints: points)
        } throws: { error in
            guard let error = error as? AnimationError else { return false }
            return error.parameter == parameter && error.code == code
        }
    }

    @Test("interpolate lands exactly on the end value")
    func interpolation() {
        #expect(interpolate(from: 0.1, to: 0.7, fraction: 1) == 0.7)
        #expect(interpolate(from: 2, to: 4, fraction: 0.25) == 2.5)
        #expect(interpolate(from: 2, to: 4, fraction: 1.5) == 5)
    }
}

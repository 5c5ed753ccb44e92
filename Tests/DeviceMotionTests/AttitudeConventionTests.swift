import DeviceMotion
import Foundation
import Testing

@Suite("Core Motion conventions, checked on the real iPhone recording")
struct AttitudeConventionTests {
    static let files = [
        "iphone-devicemotion/walk.csv", "iphone-devicemotion/balance.csv", "iphone-devicemotion/rest_tremor.csv",
    ]

    @Test(arguments: files)
    func gravityIsTheTransposedRotationOfDownOnEveryRow(file: String) throws {
        let samples = try TestData.recording(file).recordedDeviceMotion
        #expect(samples.count > 800)
        var worst = 0.0
        var worstMatrix = 0.0
        for sample in samples {
            worst = max(worst, maxDifference(sample.attitude.gravity.vector, sample.gravity.vector))
            // Core Motion's matrix maps reference → device: gravity = M · (0, 0, −1) = (−m13, −m23, −m33).
            let m = sample.attitude.rotationMatrix
            worstMatrix = max(worstMatrix, maxDifference(SIMD3(-m.m13, -m.m23, -m.m33), sample.gravity.vector))
        }
        #expect(worst < 1e-6)
        #expect(worstMatrix < 1e-6)
    }

    @Test(arguments: files)
    func eulerAnglesFollowApplesFormulas(file: String) throws {
        var worstGravity = 0.0
        var worstQuaternion = 0.0
        for sample in try TestData.recording(file).recordedDeviceMotion {
            let a = sample.attitude
            let (p, r, y) = (a.pitch, a.roll, a.yaw)
            // Gravity from the Euler angles alone, as Core Motion relates them.
            let fromAngles = SIMD3(cos(p) * sin(r), -sin(p), -cos(p) * cos(r))
            worstGravity = max(worstGravity, maxDifference(fromAngles, sample.gravity.vector))
            // q = q_z(yaw) · q_x(pitch) · q_y(roll), up to sign.
            let rebuilt =
                Quaternion(angle: y, axis: (0, 0, 1)) * Quaternion(angle: p, axis: (1, 0, 0))
                * Quaternion(angle: r, axis: (0, 1, 0))
            let q = a.quaternion.normalized
            let dot = rebuilt.x * q.x + rebuilt.y * q.y + rebuilt.z * q.z + rebuilt.w * q.w
            worstQuaternion = max(worstQuaternion, 1 - abs(dot))
        }
        #expect(worstGravity < 1e-6)
        #expect(worstQuaternion < 1e-9)
    }

    @Test func eulerAnglesOfSimpleRotationsAboutEachAxis() {
        let pitch = Attitude(quaternion: Quaternion(angle: 0.3, axis: (1, 0, 0)))
        #expect(abs(pitch.pitch - 0.3) < 1e-12 && abs(pitch.roll) < 1e-12 && abs(pitch.yaw) < 1e-12)
        let roll = Attitude(quaternion: Quaternion(angle: -0.4, axis: (0, 1, 0)))
        #expect(abs(roll.roll + 0.4) < 1e-12 && abs(roll.pitch) < 1e-12 && abs(roll.yaw) < 1e-12)
        let yaw = Attitude(quaternion: Quaternion(angle: 2.5, axis: (0, 0, 1)))
        #expect(abs(yaw.yaw - 2.5) < 1e-12 && abs(yaw.pitch) < 1e-12 && abs(yaw.roll) < 1e-12)
        // A yaw of +90°: Core Motion's matrix maps reference x onto device −y (m21 = −1) and y onto x (m12 = 1).
        let m = Attitude(quaternion: Quaternion(angle: .pi / 2, axis: (0, 0, 1))).rotationMatrix
        #expect(abs(m.m12 - 1) < 1e-12 && abs(m.m21 + 1) < 1e-12 && abs(m.m33 - 1) < 1e-12)
    }

    @Test func rotationMatrixIsTheTransposeOfTheQuaternionRotation() {
        let q = Quaternion(x: 0.2, y: -0.3, z: 0.4, w: 0.843).normalized
        let m = RotationMatrix(q)
        let v = SIMD3(0.3, -1.2, 2.0)
        // R(q) · v = q v q*, and Mᵀ = R(q).
        #expect(maxDifference(m.transposed.multiplied(by: v), q.rotate(v)) < 1e-12)
        #expect(maxDifference(m.multiplied(by: q.rotate(v)), v) < 1e-12)
        #expect(Quaternion(vector: q.vector, w: q.w) == q)
        #expect(abs(Quaternion.aboutZ(0.7).rotationAngle - 0.7) < 1e-12)
        let product = m * m.transposed
        #expect(abs(product.m11 - 1) < 1e-12 && abs(product.m12) < 1e-12 && abs(product.m33 - 1) < 1e-12)
    }

    @Test func multiplyByInverseOfItselfIsTheIdentity() throws {
        let sample = try #require(try TestData.recording("iphone-devicemotion/walk.csv").recordedDeviceMotion.last)
        var attitude = sample.attitude
        attitude.multiply(byInverseOf: sample.attitude)
        #expect(attitude.quaternion.rotationAngle < 1e-9)
        #expect(abs(attitude.roll) < 1e-9 && abs(attitude.pitch) < 1e-9 && abs(attitude.yaw) < 1e-9)
    }

    @Test func multiplyByInverseOfThePreviousSampleIsTheBodyRotationOfTheRotationRate() throws {
        let samples = try TestData.recording("iphone-devicemotion/walk.csv").recordedDeviceMotion
        var estimated: [[Double]] = [[], [], []]
        var measured: [[Double]] = [[], [], []]
        for (previous, current) in zip(samples, samples.dropFirst()) {
            var q = current.attitude.multiplied(byInverseOf: previous.attitude).quaternion
            if q.w < 0 { q = Quaternion(x: -q.x, y: -q.y, z: -q.z, w: -q.w) }
            let dt = current.timestamp - previous.timestamp
            let omega = q.vector * (2 / dt)
            let rate = current.rotationRate.vector
            for axis in 0..<3 {
                estimated[axis].append(omega[axis])
                measured[axis].append(rate[axis])
            }
        }
        // The relative attitude turns with the device's own axes: it tracks rotationRate on every axis.
        for axis in 0..<3 {
            #expect(correlation(estimated[axis], measured[axis]) > 0.95, "axis \(axis)")
        }
    }

    @Test func referenceFramesHaveCoreMotionsRawValuesAndNames() {
        #expect(ReferenceFrame.allCases.map(\.rawValue) == [1, 2, 4, 8])
        #expect(ReferenceFrame(name: "xMagneticNorthZVertical") == .xMagneticNorthZVertical)
        #expect(ReferenceFrame(name: "CMAttitudeReferenceFrameXArbitraryZVertical") == .xArbitraryZVertical)
        #expect(ReferenceFrame(name: "north") == nil)
        #expect(MagneticFieldCalibrationAccuracy.allCases.map(\.rawValue) == [-1, 0, 1, 2])
    }
}

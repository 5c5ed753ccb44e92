import DeviceMotion
import Foundation
import Testing

@Suite("Attitude estimator and sensor fusion")
struct AttitudeEstimatorTests {
    /// Gravity in the device frame for an estimator quaternion (device → reference, z up).
    func gravity(_ q: Quaternion) -> SIMD3<Double> { Attitude(quaternion: q).gravity.vector }

    @Test(arguments: [(0.4, 0.0), (-0.7, 0.3), (1.2, -1.0), (0.1, 2.8)])
    func sixAxisConvergesToTheTiltOfAStaticAccelerometerReading(pitch: Double, roll: Double) {
        var estimator = AttitudeEstimator(.init(sampleInterval: 0.01, usesMagnetometer: false))
        // Start lying flat, then hold the device still at another tilt.
        estimator.update(gyroscope: .zero, accelerometer: SIMD3(0, 0, -1), magnetometer: nil)
        let tilted = SIMD3(cos(pitch) * sin(roll), -sin(pitch), -cos(pitch) * cos(roll))
        estimator.update(gyroscope: .zero, accelerometer: tilted, magnetometer: nil)
        let early = angleDegrees(gravity(estimator.quaternion), tilted)
        for _ in 0..<1000 { estimator.update(gyroscope: .zero, accelerometer: tilted, magnetometer: nil) }
        #expect(early > 5)  // it did start away from the tilt
        #expect(angleDegrees(gravity(estimator.quaternion), tilted) < 0.1)
    }

    @Test func firstSampleAlignsTiltAndUpsideDownIsHandled() {
        var estimator = AttitudeEstimator(.init(sampleInterval: 0.01, usesMagnetometer: false))
        estimator.update(gyroscope: .zero, accelerometer: SIMD3(0, 0, 1), magnetometer: nil)
        #expect(angleDegrees(gravity(estimator.quaternion), SIMD3(0, 0, 1)) < 1e-9)
    }

    @Test func nineAxisPointsReferenceXAtMagneticNorth() {
        var estimator = AttitudeEstimator(.init(sampleInterval: 0.01, usesMagnetometer: true))
        // Lying flat; the field's horizontal part points along device (1, 1, 0): north lies between device +x and +y.
        let field = SIMD3(20.0, 20.0, -40.0)
        for _ in 0..<200 { estimator.update(gyroscope: .zero, accelerometer: SIMD3(0, 0, -1), magnetometer: field) }
        let q = estimator.quaternion
        let h = q.rotate(field)
        #expect(abs(h.y) < 1e-6)  // the field lies in the reference x–z plane
        #expect(h.x > 28)  // pointing north (x), |horizontal| = 28.28 µT
        #expect(abs(Attitude(quaternion: q).yaw - -.pi / 4) < 1e-6)
    }

    @Test func gyroscopeIsIntegratedAboutTheDeviceAxes() {
        var estimator = AttitudeEstimator(.init(sampleInterval: 0.01, usesMagnetometer: false))
        estimator.update(gyroscope: .zero, accelerometer: SIMD3(0, 0, -1), magnetometer: nil)
        // Turn at 1 rad/s about z for 1 s, lying flat (the accelerometer agrees with every attitude).
        for _ in 0..<100 {
            estimator.update(gyroscope: SIMD3(0, 0, 1), accelerometer: SIMD3(0, 0, -1), magnetometer: nil)
        }
        #expect(abs(Attitude(quaternion: estimator.quaternion).yaw - 1) < 1e-6)
    }

    @Test func sixAxisFusionOnAndroidMatchesAndroidsOwnGravityWhileLyingStill() throws {
        let recording = try TestData.recording("android-sensorlogger")
        let motion = try recording.deviceMotion(referenceFrame: .xArbitraryZVertical)
        #expect(motion.count == recording.accelerometerData.count)
        // The phone lies still for the first ~30 s (150 s – 180 s): compare with Android's Gravity.csv.
        var worst = 0.0
        for (sample, android) in zip(motion, recording.partialDeviceMotion) where sample.timestamp < 178 {
            #expect(sample.timestamp == android.timestamp)
            worst = max(worst, angleDegrees(sample.gravity.vector, try #require(android.gravity).vector))
        }
        #expect(worst < 1.0)
        // gravity + userAcceleration = the accelerometer reading, on every sample.
        for (sample, accel) in zip(motion, recording.accelerometerData) {
            #expect(
                maxDifference(sample.gravity.vector + sample.userAcceleration.vector, accel.acceleration.vector) < 1e-12
            )
        }
        #expect(motion.allSatisfy { $0.heading == -1 && $0.magneticField == .unavailable })
    }

    @Test func nineAxisFusionOnBROADTracksTheOpticalInclination() throws {
        let recording = try TestData.recording("broad/02_undisturbed_slow_rotation_B.csv")
        let motion = try recording.deviceMotion(referenceFrame: .xMagneticNorthZVertical)
        // Inclination error: the angle between estimated and reference "up" in the IMU frame, movement rows.
        var sum = 0.0
        var count = 0
        for (sample, reference) in zip(motion, recording.referenceOrientations) where reference.isMovement {
            guard let q = reference.quaternion else { continue }
            let referenceUp = q.conjugate.rotate(SIMD3(0, 0, 1))
            let estimatedUp = -sample.gravity.vector
            let error = angleDegrees(referenceUp, estimatedUp)
            sum += error * error
            count += 1
        }
        let rms = (sum / Double(count)).squareRoot()
        #expect(count > 10000)
        #expect(rms < 3)  // a sign or unit error in the reader gives tens of degrees
        #expect(motion.allSatisfy { (0..<360).contains($0.heading) })
        #expect(motion[100].magneticField.field == recording.magnetometerData[100].magneticField)
    }

    @Test func correctedFrameStartsWithTheDeviceXAxisAtZeroHeading() throws {
        let recording = try TestData.recording("xio-imu/sensor_data.csv")
        let corrected = try recording.deviceMotion(referenceFrame: .xArbitraryCorrectedZVertical)
        let north = try recording.deviceMotion(referenceFrame: .xMagneticNorthZVertical)
        let x = corrected[0].attitude.quaternion.rotate(SIMD3(1, 0, 0))
        #expect(abs(atan2(x.y, x.x)) < 1e-9)
        // Same tilt as the magnetic-north frame, only turned about z.
        #expect(maxDifference(corrected[500].gravity.vector, north[500].gravity.vector) < 1e-9)
        #expect(corrected[500].heading == -1)
        #expect(north[500].heading >= 0)
    }

    @Test func headingIsTheCompassDirectionOfTheDevicesTop() {
        var fusion = SensorFusion(referenceFrame: .xMagneticNorthZVertical, sampleInterval: 0.01)!
        // Flat, field along device +y (the top points to magnetic north): heading 0.
        let north = fusion.update(
            timestamp: 0, acceleration: Acceleration(x: 0, y: 0, z: -1), rotationRate: .zero,
            magneticField: MagneticField(x: 0, y: 20, z: -40))
        #expect(abs(north.heading) < 1e-9 || abs(north.heading - 360) < 1e-9)
        var east = SensorFusion(referenceFrame: .xMagneticNorthZVertical, sampleInterval: 0.01)!
        // Field along device −x: north is to the device's left, so the top points east: 90°.
        let sample = east.update(
            timestamp: 0, acceleration: Acceleration(x: 0, y: 0, z: -1), rotationRate: .zero,
            magneticField: MagneticField(x: -20, y: 0, z: -40))
        #expect(abs(sample.heading - 90) < 1e-9)
        #expect(SensorFusion(referenceFrame: .xTrueNorthZVertical, sampleInterval: 0.01) == nil)
    }
}

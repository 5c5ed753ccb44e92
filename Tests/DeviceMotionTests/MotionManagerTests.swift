import DeviceMotion
import Foundation
import MotionTesting
import Testing

/// A device-motion sample whose fields are all distinct, as in Composable Core Motion's README.
func motion(at timestamp: Double) -> DeviceMotion {
    DeviceMotion(
        attitude: Attitude(quaternion: Quaternion(x: 1, y: 0, z: 0, w: 0)),
        gravity: Acceleration(x: 1, y: 2, z: 3),
        userAcceleration: Acceleration(x: 4, y: 5, z: 6),
        rotationRate: RotationRate(x: 0, y: 0, z: 0),
        magneticField: CalibratedMagneticField(field: .zero, accuracy: .high),
        heading: 0,
        timestamp: timestamp)
}

@Suite("MotionManager: unimplemented")
struct UnimplementedMotionManagerTests {
    @Test func everyThrowingEndpointNamesItself() throws {
        let manager = MotionManager.unimplemented
        let calls: [(String, () throws -> Void)] = [
            ("create", { try manager.create(1) }), ("destroy", { try manager.destroy(1) }),
            ("stopDeviceMotionUpdates", { try manager.stopDeviceMotionUpdates(1) }),
            ("stopAccelerometerUpdates", { try manager.stopAccelerometerUpdates(1) }),
            ("stopGyroUpdates", { try manager.stopGyroUpdates(1) }),
            ("stopMagnetometerUpdates", { try manager.stopMagnetometerUpdates(1) }),
            ("updateInterval", { _ = try manager.updateInterval(1, .gyro) }),
            ("setUpdateInterval", { try manager.setUpdateInterval(1, .gyro, 0.1) }),
            ("isAvailable", { _ = try manager.isAvailable(1, .gyro) }),
            ("isActive", { _ = try manager.isActive(1, .gyro) }),
            ("deviceMotion", { _ = try manager.deviceMotion(1) }),
            ("accelerometerData", { _ = try manager.accelerometerData(1) }),
            ("gyroData", { _ = try manager.gyroData(1) }),
            ("magnetometerData", { _ = try manager.magnetometerData(1) }),
            ("attitudeReferenceFrame", { _ = try manager.attitudeReferenceFrame(1) }),
            ("availableReferenceFrames", { _ = try manager.availableReferenceFrames(1) }),
        ]
        for (endpoint, call) in calls {
            let error = try #require(throws: MotionManagerError.self) { try call() }
            #expect(error.code == .unimplemented)
            #expect(error.endpoint == endpoint)
            #expect(error.message.hasPrefix("\(endpoint) was called on MotionManager.unimplemented."))
        }
    }

    @Test func everyStreamFinishesWithAnErrorNamingItsEndpoint() async throws {
        let manager = MotionManager.unimplemented
        func endpoint<S: AsyncSequence>(of stream: S) async -> String? {
            do {
                for try await _ in stream {}
                return nil
            } catch {
                return (error as? MotionManagerError)?.endpoint
            }
        }
        #expect(
            await endpoint(of: manager.startDeviceMotionUpdates(1, .xArbitraryZVertical)) == "startDeviceMotionUpdates")
        #expect(await endpoint(of: manager.startAccelerometerUpdates(1)) == "startAccelerometerUpdates")
        #expect(await endpoint(of: manager.startGyroUpdates(1)) == "startGyroUpdates")
        #expect(await endpoint(of: manager.startMagnetometerUpdates(1)) == "startMagnetometerUpdates")
    }

    @Test func anEndpointCanBeReplaced() throws {
        var manager = MotionManager.unimplemented
        manager.isAvailable = { _, sensor in sensor == .gyro }
        #expect(try manager.isAvailable(1, .gyro))
        #expect(try !manager.isAvailable(1, .magnetometer))
        #expect(throws: MotionManagerError.self) { try manager.isActive(1, .gyro) }
    }
}

@Suite("MotionManager: test manager driven sample by sample")
struct TestMotionManagerTests {
    @Test func readmeCaseVerticalAccelerationIsGravityDotUserAcceleration() async throws {
        let test = TestMotionManager()
        let manager = test.manager
        try manager.create("feature")
        var samples = manager.startDeviceMotionUpdates("feature", .xArbitraryZVertical).makeAsyncIterator()
        #expect(test.send(motion(at: 0.5)) == 1)
        let sample = try #require(try await samples.next())
        let vertical = (sample.gravity.vector * sample.userAcceleration.vector).sum()
        #expect(vertical == 32)
        #expect(test.requests == [.deviceMotion(.xArbitraryZVertical, interval: 0.01)])
        #expect(test.clock.elapsedSeconds == 0.5)
        #expect(try manager.deviceMotion("feature") == motion(at: 0.5))
        try manager.stopDeviceMotionUpdates("feature")
        #expect(try await samples.next() == nil)
        #expect(try !manager.isActive("feature", .deviceMotion))
    }

    @Test func activeFlagsReadTheirOwnSensor() async throws {
        let test = TestMotionManager()
        let manager = test.manager
        try manager.create(1)
        var magnetometer = manager.startMagnetometerUpdates(1).makeAsyncIterator()
        #expect(try manager.isActive(1, .magnetometer))
        #expect(try !manager.isActive(1, .accelerometer))
        #expect(try !manager.isActive(1, .gyro))
        #expect(try !manager.isActive(1, .deviceMotion))
        let field = MagnetometerData(magneticField: MagneticField(x: 1, y: 2, z: 3), timestamp: 1)
        test.send(field)
        #expect(try await magnetometer.next() == field)
        #expect(try manager.magnetometerData(1) == field)
        #expect(try manager.accelerometerData(1) == nil)
    }

    @Test func availableReferenceFramesAreReachable() throws {
        let test = TestMotionManager(availableReferenceFrames: [.xArbitraryZVertical])
        try test.manager.create(1)
        #expect(try test.manager.availableReferenceFrames(1) == [.xArbitraryZVertical])
        #expect(try test.manager.attitudeReferenceFrame(1) == .xArbitraryZVertical)
    }

    @Test func cancellingAStreamLeavesTheIdAbleToStartAgain() async throws {
        let test = TestMotionManager()
        let manager = test.manager
        try manager.create(1)
        let consumer = Task {
            for try await _ in manager.startGyroUpdates(1) {}
        }
        while test.openStreamCount(.gyro) == 0 { await Task.yield() }
        consumer.cancel()
        _ = await consumer.result
        while try manager.isActive(1, .gyro) { await Task.yield() }
        while test.openStreamCount(.gyro) > 0 { await Task.yield() }
        var again = manager.startGyroUpdates(1).makeAsyncIterator()
        #expect(try manager.isActive(1, .gyro))
        let sample = GyroData(rotationRate: RotationRate(x: 0.1, y: 0.2, z: 0.3), timestamp: 2)
        #expect(test.send(sample) == 1)
        #expect(try await again.next() == sample)
        #expect(test.requests == [.gyro(interval: 0.01), .gyro(interval: 0.01)])
    }

    @Test func destroyStopsAndFinishesEveryStreamOfTheId() async throws {
        let test = TestMotionManager()
        let manager = test.manager
        try manager.create(1)
        try manager.create(2)
        var accelerometer = manager.startAccelerometerUpdates(1).makeAsyncIterator()
        var deviceMotion = manager.startDeviceMotionUpdates(1, .xMagneticNorthZVertical).makeAsyncIterator()
        var other = manager.startAccelerometerUpdates(2).makeAsyncIterator()
        try manager.destroy(1)
        #expect(try await accelerometer.next() == nil)
        #expect(try await deviceMotion.next() == nil)
        let error = try #require(throws: MotionManagerError.self) { try manager.isActive(1, .accelerometer) }
        #expect(error.code == .unknownManager)
        // The other id is untouched.
        let sample = AccelerometerData(acceleration: Acceleration(x: 0, y: 0, z: -1), timestamp: 3)
        test.send(sample)
        #expect(try await other.next() == sample)
        #expect(try manager.isActive(2, .accelerometer))
    }

    @Test func startingAgainReplacesTheEarlierStream() async throws {
        let test = TestMotionManager()
        let manager = test.manager
        try manager.create(1)
        var first = manager.startDeviceMotionUpdates(1, .xArbitraryZVertical).makeAsyncIterator()
        var second = manager.startDeviceMotionUpdates(1, .xMagneticNorthZVertical).makeAsyncIterator()
        #expect(try await first.next() == nil)
        #expect(try manager.attitudeReferenceFrame(1) == .xMagneticNorthZVertical)
        while test.openStreamCount(.deviceMotion) > 1 { await Task.yield() }
        #expect(test.send(motion(at: 1)) == 1)
        #expect(try await second.next() == motion(at: 1))
    }

    @Test func startErrorsFinishTheStream() async throws {
        let test = TestMotionManager(
            availableSensors: [.deviceMotion], availableReferenceFrames: [.xArbitraryZVertical])
        let manager = test.manager
        func failure<S: AsyncSequence>(_ stream: S) async -> MotionManagerError? {
            do {
                for try await _ in stream {}
                return nil
            } catch { return error as? MotionManagerError }
        }
        #expect(await failure(manager.startGyroUpdates("nobody"))?.code == .unknownManager)
        try manager.create("x")
        #expect(await failure(manager.startGyroUpdates("x"))?.code == .sensorUnavailable)
        let frame = await failure(manager.startDeviceMotionUpdates("x", .xTrueNorthZVertical))
        #expect(frame?.code == .referenceFrameUnavailable)
        #expect(frame?.message.contains("it offers xArbitraryZVertical") == true)
        #expect(throws: MotionManagerError.self) { try manager.create("x") }
        #expect(test.requests.isEmpty)
    }

    @Test func updateIntervalsAreKeptPerSensorAndPassedToTheSource() throws {
        let test = TestMotionManager()
        let manager = test.manager
        try manager.create(1)
        #expect(try manager.updateInterval(1, .accelerometer) == 0.01)
        try manager.setUpdateInterval(1, .accelerometer, 0.05)
        #expect(try manager.updateInterval(1, .accelerometer) == 0.05)
        #expect(try manager.updateInterval(1, .gyro) == 0.01)
        _ = manager.startAccelerometerUpdates(1)
        #expect(test.requests == [.accelerometer(interval: 0.05)])
        let error = try #require(throws: MotionManagerError.self) { try manager.setUpdateInterval(1, .gyro, -1) }
        #expect(error.code == .invalidUpdateInterval)
    }

    @Test func aFailingSourceFinishesTheStreamWithItsError() async throws {
        struct SensorBroke: Error, Equatable {}
        let test = TestMotionManager()
        try test.manager.create(1)
        var stream = test.manager.startAccelerometerUpdates(1).makeAsyncIterator()
        while test.openStreamCount(.accelerometer) == 0 { await Task.yield() }
        test.fail(with: SensorBroke())
        await #expect(throws: SensorBroke.self) { try await stream.next() }
    }
}

@Suite("MotionManager: live over a recording and over IIO")
struct LiveMotionManagerTests {
    @Test func recordingSourceReplaysOnTheSimulatedClockAtTheUpdateInterval() async throws {
        let recording = try TestData.recording("iphone4s-coremotion-logger")
        #expect(RecordingSource(recording: recording).availableSensors.isEmpty)  // no attitude, no raw sensors
        let xio = try TestData.recording("xio-imu/sensor_data.csv")
        let clock = SimulatedClock()
        let manager = MotionManager.live(source: RecordingSource(recording: xio, pacing: .simulated(clock)))
        try manager.create("imu")
        #expect(try manager.isAvailable("imu", .magnetometer))
        try manager.setUpdateInterval("imu", .accelerometer, 0.05)
        var stream = manager.startAccelerometerUpdates("imu").makeAsyncIterator()
        #expect(try await stream.next() == xio.accelerometerData[0])
        clock.advance(bySeconds: 0.06)
        let second = try #require(try await stream.next())
        // The first sample at or after 0.05 s: the interval you ask for, at the recording's own timestamps.
        let expected = try #require(xio.accelerometerData.first { $0.timestamp >= 0.05 - 1e-9 })
        #expect(second == expected)
        #expect(try manager.accelerometerData("imu") == expected)
        try manager.stopAccelerometerUpdates("imu")
        #expect(try await stream.next() == nil)
    }

    @Test func recordingSourceGivesFusedDeviceMotionInTheFrameAsked() async throws {
        let xio = try TestData.recording("xio-imu/sensor_data.csv")
        let clock = SimulatedClock()
        let manager = MotionManager.live(source: RecordingSource(recording: xio, pacing: .simulated(clock)))
        try manager.create(1)
        try manager.setUpdateInterval(1, .deviceMotion, 0)
        var stream = manager.startDeviceMotionUpdates(1, .xMagneticNorthZVertical).makeAsyncIterator()
        let expected = try xio.deviceMotion(referenceFrame: .xMagneticNorthZVertical)
        #expect(try await stream.next() == expected[0])
        clock.advance(bySeconds: 0.0101)
        #expect(try await stream.next() == expected[1])
        #expect(try manager.availableReferenceFrames(1).contains(.xArbitraryCorrectedZVertical))
    }

    @Test func updateIntervalIsHonouredWithoutHalvingASlightlyFasterSource() async throws {
        // Samples 0.00932 s apart (the iPhone 4S logger's real spacing), asked for at 0.01 s.
        let times = (0..<108).map { Double($0) * 0.00932 }
        let recording = Recording(
            format: .xioIMUCSV, url: URL(fileURLWithPath: "/generated"),
            gyroData: times.map { GyroData(rotationRate: .zero, timestamp: $0) })
        let clock = SimulatedClock()
        let manager = MotionManager.live(source: RecordingSource(recording: recording, pacing: .simulated(clock)))
        try manager.create(1)
        let collector = Task {
            var kept: [Double] = []
            for try await sample in manager.startGyroUpdates(1) { kept.append(sample.timestamp) }
            return kept
        }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(bySeconds: 2)
        let kept = try await collector.value
        #expect((99...101).contains(kept.count))  // about 100 Hz, not every other sample (54)
        #expect(zip(kept.dropFirst(), kept).allSatisfy { $0 - $1 < 0.0187 })
        #expect(zip(kept.dropFirst(), kept).contains { $0 - $1 > 0.0187 - 0.00932 })  // some were dropped
    }

    @Test func recordingStreamsFinishWhenTheRecordingEnds() async throws {
        let recording = Recording(
            format: .xioIMUCSV, url: URL(fileURLWithPath: "/generated"),
            gyroData: [0.0, 0.1, 0.2].map { GyroData(rotationRate: .zero, timestamp: $0) })
        let clock = SimulatedClock()
        let manager = MotionManager.live(source: RecordingSource(recording: recording, pacing: .simulated(clock)))
        try manager.create(1)
        let collector = Task {
            var times: [Double] = []
            for try await sample in manager.startGyroUpdates(1) { times.append(sample.timestamp) }
            return times
        }
        while try !manager.isActive(1, .gyro) { await Task.yield() }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(bySeconds: 1)
        #expect(try await collector.value == [0.0, 0.1, 0.2])
        while try manager.isActive(1, .gyro) { await Task.yield() }
        #expect(try manager.gyroData(1)?.timestamp == 0.2)
    }

    @Test func recordingSourceInRealTimeDeliversEverySampleInOrder() async throws {
        let times = [100.0, 100.001, 100.002, 100.004]
        let recording = Recording(
            format: .xioIMUCSV, url: URL(fileURLWithPath: "/generated"),
            magnetometerData: times.map {
                MagnetometerData(magneticField: MagneticField(x: $0, y: 0, z: 0), timestamp: $0)
            })
        let manager = MotionManager.live(source: RecordingSource(recording: recording))
        try manager.create(1)
        try manager.setUpdateInterval(1, .magnetometer, 0)
        var received: [Double] = []
        for try await sample in manager.startMagnetometerUpdates(1) { received.append(sample.magneticField.x) }
        #expect(received == times)
    }

    @Test func iioSourcePollsTheFakeDeviceOnTheClock() async throws {
        let sysfs = try FakeSysfs.phone()
        let reader = try IIOSensorReader(root: sysfs.root)
        let clock = SimulatedClock()
        let source = IIOSource(reader: reader, clock: clock, timestamp: { clock.elapsedSeconds })
        #expect(source.availableSensors == Set(MotionManager.Sensor.allCases))
        #expect(source.availableReferenceFrames.count == 3)
        let manager = MotionManager.live(source: source)
        try manager.create(1)
        try manager.setUpdateInterval(1, .gyro, 0.02)
        var gyro = manager.startGyroUpdates(1).makeAsyncIterator()
        let first = try #require(try await gyro.next())
        #expect(first.timestamp == 0)
        #expect(maxDifference(first.rotationRate.vector, SIMD3(0.1065264, -0.0532632, 0)) < 1e-15)
        // Starting asked the driver for 1 / 0.02 s = 50 Hz.
        #expect(try reader.samplingFrequency(of: .anglvel) == 50)
        try Data("200\n".utf8).write(to: sysfs.root.appendingPathComponent("iio:device0/in_anglvel_z_raw"))
        clock.advance(bySeconds: 0.02)
        let second = try #require(try await gyro.next())
        #expect(abs(second.timestamp - 0.02) < 1e-9)
        #expect(abs(second.rotationRate.z - 0.2130528) < 1e-12)
        var motion = manager.startDeviceMotionUpdates(1, .xMagneticNorthZVertical).makeAsyncIterator()
        let fused = try #require(try await motion.next())
        #expect(
            angleDegrees(fused.gravity.vector, try reader.readAccelerometer(timestamp: 0).acceleration.vector) < 1e-6)
        #expect(fused.heading >= 0)
        try manager.destroy(1)
    }
}

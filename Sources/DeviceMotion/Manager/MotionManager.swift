/// A client for device motion, after Composable Core Motion's `MotionManager`: a struct of closures, one per
/// `CMMotionManager` endpoint, keyed by a manager id, so that code using it can be run against a live source,
/// a test double (`TestMotionManager` in MotionTesting) or `unimplemented`.
///
/// Values: `live(source:)` over a `MotionSource` (a recording, a Linux IIO device), `unimplemented` (every
/// endpoint fails with an error naming itself), and MotionTesting's `TestMotionManager().manager`.
///
/// Lifecycle: `create(id)` first; each `start…Updates` returns an `AsyncThrowingStream` that runs until
/// `stop…Updates(id)`, `destroy(id)`, the source ends, or the consumer stops iterating. Starting a sensor
/// that is already running finishes the earlier stream and starts a new one (as `CMMotionManager` replaces
/// its handler). After a stream ends for any reason the id can start that sensor again. `destroy(id)` stops
/// every sensor of the id and finishes its streams. Errors of a start (unknown id, sensor or frame not
/// available) finish the returned stream with a `MotionManagerError`.
///
/// Thread rule: every endpoint may be called from any thread or task.
public struct MotionManager: Sendable {
    /// The sensors a manager can run.
    public enum Sensor: String, Hashable, Sendable, CaseIterable {
        /// Processed device motion (`CMDeviceMotion`).
        case deviceMotion
        /// Raw accelerometer (`CMAccelerometerData`).
        case accelerometer
        /// Raw gyroscope (`CMGyroData`).
        case gyro
        /// Raw magnetometer (`CMMagnetometerData`).
        case magnetometer
    }

    /// Creates the manager `id`. Throws `managerAlreadyExists` when it exists.
    public var create: @Sendable (_ id: AnyHashable) throws -> Void
    /// Stops every sensor of `id`, finishes its streams and forgets it. Throws `unknownManager`.
    public var destroy: @Sendable (_ id: AnyHashable) throws -> Void
    /// Starts device-motion updates of `id` in a reference frame (`startDeviceMotionUpdates(using:)`).
    public var startDeviceMotionUpdates:
        @Sendable (_ id: AnyHashable, _ referenceFrame: ReferenceFrame) -> AsyncThrowingStream<DeviceMotion, any Error>
    /// Stops device-motion updates of `id` and finishes their stream (nothing when not running).
    public var stopDeviceMotionUpdates: @Sendable (_ id: AnyHashable) throws -> Void
    /// Starts accelerometer updates of `id`.
    public var startAccelerometerUpdates: @Sendable (_ id: AnyHashable) -> AsyncThrowingStream<AccelerometerData, any Error>
    /// Stops accelerometer updates of `id` and finishes their stream.
    public var stopAccelerometerUpdates: @Sendable (_ id: AnyHashable) throws -> Void
    /// Starts gyroscope updates of `id`.
    public var startGyroUpdates: @Sendable (_ id: AnyHashable) -> AsyncThrowingStream<GyroData, any Error>
    /// Stops gyroscope updates of `id` and finishes their stream.
    public var stopGyroUpdates: @Sendable (_ id: AnyHashable) throws -> Void
    /// Starts magnetometer updates of `id`.
    public var startMagnetometerUpdates: @Sendable (_ id: AnyHashable) -> AsyncThrowingStream<MagnetometerData, any Error>
    /// Stops magnetometer updates of `id` and finishes their stream.
    public var stopMagnetometerUpdates: @Sendable (_ id: AnyHashable) throws -> Void
    /// The update interval of a sensor of `id`, seconds (`…UpdateInterval`; default 0.01).
    public var updateInterval: @Sendable (_ id: AnyHashable, _ sensor: Sensor) throws -> Double
    /// Sets the update interval of a sensor of `id`, seconds (0 = every sample); it applies from the next
    /// start. Throws `invalidUpdateInterval` for a negative or non-finite value.
    public var setUpdateInterval: @Sendable (_ id: AnyHashable, _ sensor: Sensor, _ seconds: Double) throws -> Void
    /// Whether the source has the sensor (`is…Available`).
    public var isAvailable: @Sendable (_ id: AnyHashable, _ sensor: Sensor) throws -> Bool
    /// Whether updates of that very sensor are running for `id` (`is…Active`).
    public var isActive: @Sendable (_ id: AnyHashable, _ sensor: Sensor) throws -> Bool
    /// The latest device-motion sample of `id`, or `nil` (`deviceMotion`).
    public var deviceMotion: @Sendable (_ id: AnyHashable) throws -> DeviceMotion?
    /// The latest accelerometer sample of `id`, or `nil` (`accelerometerData`).
    public var accelerometerData: @Sendable (_ id: AnyHashable) throws -> AccelerometerData?
    /// The latest gyroscope sample of `id`, or `nil` (`gyroData`).
    public var gyroData: @Sendable (_ id: AnyHashable) throws -> GyroData?
    /// The latest magnetometer sample of `id`, or `nil` (`magnetometerData`).
    public var magnetometerData: @Sendable (_ id: AnyHashable) throws -> MagnetometerData?
    /// The reference frame of the latest device-motion start of `id`, or `xArbitraryZVertical`
    /// (`attitudeReferenceFrame`).
    public var attitudeReferenceFrame: @Sendable (_ id: AnyHashable) throws -> ReferenceFrame
    /// The reference frames the source can give attitudes in (`availableAttitudeReferenceFrames()`).
    public var availableReferenceFrames: @Sendable (_ id: AnyHashable) throws -> Set<ReferenceFrame>

    /// Creates a manager from its endpoints (see each property for its contract).
    public init(
        create: @escaping @Sendable (_ id: AnyHashable) throws -> Void,
        destroy: @escaping @Sendable (_ id: AnyHashable) throws -> Void,
        startDeviceMotionUpdates:
            @escaping @Sendable (_ id: AnyHashable, _ referenceFrame: ReferenceFrame) ->
            AsyncThrowingStream<DeviceMotion, any Error>,
        stopDeviceMotionUpdates: @escaping @Sendable (_ id: AnyHashable) throws -> Void,
        startAccelerometerUpdates:
            @escaping @Sendable (_ id: AnyHashable) ->
            AsyncThrowingStream<AccelerometerData, any Error>,
        stopAccelerometerUpdates: @escaping @Sendable (_ id: AnyHashable) throws -> Void,
        startGyroUpdates: @escaping @Sendable (_ id: AnyHashable) -> AsyncThrowingStream<GyroData, any Error>,
        stopGyroUpdates: @escaping @Sendable (_ id: AnyHashable) throws -> Void,
        startMagnetometerUpdates:
            @escaping @Sendable (_ id: AnyHashable) ->
            AsyncThrowingStream<MagnetometerData, any Error>,
        stopMagnetometerUpdates: @escaping @Sendable (_ id: AnyHashable) throws -> Void,
        updateInterval: @escaping @Sendable (_ id: AnyHashable, _ sensor: Sensor) throws -> Double,
        setUpdateInterval: @escaping @Sendable (_ id: AnyHashable, _ sensor: Sensor, _ seconds: Double) throws -> Void,
        isAvailable: @escaping @Sendable (_ id: AnyHashable, _ sensor: Sensor) throws -> Bool,
        isActive: @escaping @Sendable (_ id: AnyHashable, _ sensor: Sensor) throws -> Bool,
        deviceMotion: @escaping @Sendable (_ id: AnyHashable) throws -> DeviceMotion?,
        accelerometerData: @escaping @Sendable (_ id: AnyHashable) throws -> AccelerometerData?,
        gyroData: @escaping @Sendable (_ id: AnyHashable) throws -> GyroData?,
        magnetometerData: @escaping @Sendable (_ id: AnyHashable) throws -> MagnetometerData?,
        attitudeReferenceFrame: @escaping @Sendable (_ id: AnyHashable) throws -> ReferenceFrame,
        availableReferenceFrames: @escaping @Sendable (_ id: AnyHashable) throws -> Set<ReferenceFrame>
    ) {
        self.create = create
        self.destroy = destroy
        self.startDeviceMotionUpdates = startDeviceMotionUpdates
        self.stopDeviceMotionUpdates = stopDeviceMotionUpdates
        self.startAccelerometerUpdates = startAccelerometerUpdates
        self.stopAccelerometerUpdates = stopAccelerometerUpdates
        self.startGyroUpdates = startGyroUpdates
        self.stopGyroUpdates = stopGyroUpdates
        self.startMagnetometerUpdates = startMagnetometerUpdates
        self.stopMagnetometerUpdates = stopMagnetometerUpdates
        self.updateInterval = updateInterval
        self.setUpdateInterval = setUpdateInterval
        self.isAvailable = isAvailable
        self.isActive = isActive
        self.deviceMotion = deviceMotion
        self.accelerometerData = accelerometerData
        self.gyroData = gyroData
        self.magnetometerData = magnetometerData
        self.attitudeReferenceFrame = attitudeReferenceFrame
        self.availableReferenceFrames = availableReferenceFrames
    }

    /// The default update interval of every sensor, seconds (100 Hz).
    public static let defaultUpdateInterval = 0.01
}

extension MotionManager {
    /// A manager whose every endpoint fails, naming the endpoint: throwing endpoints throw, and streams
    /// finish with, `MotionManagerError` code `unimplemented`. Never traps.
    ///
    /// Start from it in a test and replace the endpoints the code under test should use; any other call
    /// fails loudly instead of silently doing nothing. Code under test that calls with `try?` swallows the
    /// error: in tests prefer MotionTesting's `MotionManager.failing()`, which also records a test issue.
    public static let unimplemented = unimplemented(reporting: { _ in })

    /// A manager whose every endpoint fails as ``unimplemented`` does, after handing the error to `report`
    /// (MotionTesting's `failing()` records it as a test issue, as swift-dependencies' `unimplemented` does).
    /// - Parameter report: Called with each error, on the calling thread, before it is thrown or finishes
    ///   the stream.
    /// - Returns: The manager.
    public static func unimplemented(reporting report: @escaping @Sendable (MotionManagerError) -> Void) -> MotionManager {
        @Sendable func missing(_ endpoint: String) -> MotionManagerError {
            let error = MotionManagerError(
                .unimplemented,
                "\(endpoint) was called on MotionManager.unimplemented. To fix, give this endpoint an implementation "
                    + "(for example `manager.\(endpoint) = { … }`) or use MotionManager.live(source:)",
                endpoint: endpoint)
            report(error)
            return error
        }
        @Sendable func failedStream<Element>(_ endpoint: String) -> AsyncThrowingStream<Element, any Error> {
            let error = missing(endpoint)
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        return MotionManager(
            create: { _ in throw missing("create") },
            destroy: { _ in throw missing("destroy") },
            startDeviceMotionUpdates: { _, _ in failedStream("startDeviceMotionUpdates") },
            stopDeviceMotionUpdates: { _ in throw missing("stopDeviceMotionUpdates") },
            startAccelerometerUpdates: { _ in failedStream("startAccelerometerUpdates") },
            stopAccelerometerUpdates: { _ in throw missing("stopAccelerometerUpdates") },
            startGyroUpdates: { _ in failedStream("startGyroUpdates") },
            stopGyroUpdates: { _ in throw missing("stopGyroUpdates") },
            startMagnetometerUpdates: { _ in failedStream("startMagnetometerUpdates") },
            stopMagnetometerUpdates: { _ in throw missing("stopMagnetometerUpdates") },
            updateInterval: { _, _ in throw missing("updateInterval") },
            setUpdateInterval: { _, _, _ in throw missing("setUpdateInterval") },
            isAvailable: { _, _ in throw missing("isAvailable") },
            isActive: { _, _ in throw missing("isActive") },
            deviceMotion: { _ in throw missing("deviceMotion") },
            accelerometerData: { _ in throw missing("accelerometerData") },
            gyroData: { _ in throw missing("gyroData") },
            magnetometerData: { _ in throw missing("magnetometerData") },
            attitudeReferenceFrame: { _ in throw missing("attitudeReferenceFrame") },
            availableReferenceFrames: { _ in throw missing("availableReferenceFrames") })
    }
}

extension MotionManager {
    /// Every device-motion sample of a manager whose source ends (a recording), read as an app reads Core
    /// Motion: `create(id)`, update interval 0 (every sample), `startDeviceMotionUpdates(id, referenceFrame)`,
    /// then the simulated `clock` is moved to `end` and the stream is read until it finishes; `destroy(id)`
    /// at the end.
    ///
    /// For a `RecordingSource` paced by `clock`, an `end` past the recording's last sample delivers every
    /// sample at once (this is how `motion-host` reads recordings).
    /// - Parameters:
    ///   - id: A manager id not in use.
    ///   - referenceFrame: The frame the attitudes are to be in.
    ///   - clock: The clock the source is paced by.
    ///   - end: The instant the clock is moved to, after the stream has started.
    /// - Returns: The samples, in the order the stream gave them.
    /// - Throws: The manager's `MotionManagerError` (`managerAlreadyExists`, `sensorUnavailable`,
    ///   `referenceFrameUnavailable`, `unimplemented`, ...) or the source's own error (a `RecordingError`).
    public func allDeviceMotion(
        id: AnyHashable, referenceFrame: ReferenceFrame, clock: SimulatedClock, until end: SimulatedClock.Instant
    ) async throws -> [DeviceMotion] {
        try create(id)
        defer { try? destroy(id) }
        try setUpdateInterval(id, .deviceMotion, 0)
        let stream = startDeviceMotionUpdates(id, referenceFrame)
        clock.advance(to: end)
        var samples: [DeviceMotion] = []
        for try await sample in stream { samples.append(sample) }
        return samples
    }
}

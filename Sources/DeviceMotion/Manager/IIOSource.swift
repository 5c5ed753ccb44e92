import FoundationEssentials
import Synchronization

/// A `MotionSource` that polls Linux IIO sensors (`IIOSensorReader`) at the update interval.
///
/// Each stream reads its sensor once per interval (at least 1 ms) on the given clock and stamps samples with
/// the time since boot (`ProcessInfo.systemUptime`, as Core Motion's timestamps), or the injected time.
/// Starting a stream asks the driver for a matching sampling frequency where that attribute is writable.
/// Device motion polls accelerometer, gyroscope (and magnetometer in the 9-axis frames) together and fuses
/// them with `SensorFusion`. A read error finishes the stream with the `IIOError`.
public struct IIOSource: MotionSource {
    /// The reader the source polls.
    public let reader: IIOSensorReader
    /// Makes, for one stream, a function that sleeps until the stream's next poll (the first at once).
    private let makeTicker: @Sendable (Duration) -> @Sendable () async throws -> Void
    private let timestamp: @Sendable () -> Double

    /// Creates a source.
    /// - Parameters:
    ///   - reader: The IIO reader (real sysfs or a test tree).
    ///   - clock: The clock that paces polling; `ContinuousClock()` for a real device, a `SimulatedClock` in
    ///     tests.
    ///   - timestamp: The timestamp of a sample taken now, seconds; time since boot by default.
    public init<C: Clock<Duration>>(
        reader: IIOSensorReader, clock: C = ContinuousClock(),
        timestamp: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }
    ) {
        self.reader = reader
        self.makeTicker = { [clock] step in
            let due = Mutex<C.Instant?>(nil)
            return {
                let next = due.withLock { due in
                    let next = due.map { $0.advanced(by: step) } ?? clock.now
                    due = next
                    return next
                }
                try await clock.sleep(until: next, tolerance: nil)
            }
        }
        self.timestamp = timestamp
    }

    /// The sensors the reader found a device for; device motion when it has accelerometer and gyroscope.
    public var availableSensors: Set<MotionManager.Sensor> {
        var sensors: Set<MotionManager.Sensor> = []
        if reader.device(for: .accel) != nil { sensors.insert(.accelerometer) }
        if reader.device(for: .anglvel) != nil { sensors.insert(.gyro) }
        if reader.device(for: .magn) != nil { sensors.insert(.magnetometer) }
        if sensors.isSuperset(of: [.accelerometer, .gyro]) { sensors.insert(.deviceMotion) }
        return sensors
    }

    /// `xArbitraryZVertical` with accelerometer and gyroscope; plus the 9-axis frames with a magnetometer.
    public var availableReferenceFrames: Set<ReferenceFrame> {
        let sensors = availableSensors
        guard sensors.contains(.deviceMotion) else { return [] }
        return sensors.contains(.magnetometer)
            ? [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical] : [.xArbitraryZVertical]
    }

    /// Polled accelerometer samples.
    public func accelerometerUpdates(interval: Double) -> AsyncThrowingStream<AccelerometerData, any Error> {
        let reader = reader
        return poll(interval: interval, types: [.accel]) { t in try reader.readAccelerometer(timestamp: t) }
    }

    /// Polled gyroscope samples.
    public func gyroUpdates(interval: Double) -> AsyncThrowingStream<GyroData, any Error> {
        let reader = reader
        return poll(interval: interval, types: [.anglvel]) { t in try reader.readGyro(timestamp: t) }
    }

    /// Polled magnetometer samples.
    public func magnetometerUpdates(interval: Double) -> AsyncThrowingStream<MagnetometerData, any Error> {
        let reader = reader
        return poll(interval: interval, types: [.magn]) { t in try reader.readMagnetometer(timestamp: t) }
    }

    /// Polled and fused device-motion samples.
    public func deviceMotionUpdates(referenceFrame: ReferenceFrame, interval: Double) -> AsyncThrowingStream<
        DeviceMotion, any Error
    > {
        let reader = reader
        let period = max(interval, 0.001)
        let usesField = referenceFrame.needsMagnetometer
        guard let fusion = SensorFusion(referenceFrame: referenceFrame, sampleInterval: period) else {
            return AsyncThrowingStream {
                $0.finish(
                    throwing: MotionManagerError(
                        .referenceFrameUnavailable,
                        "xTrueNorthZVertical needs a location, which Linux does not "
                            + "provide. To fix, use xMagneticNorthZVertical", endpoint: "startDeviceMotionUpdates"))
            }
        }
        let state = FusionBox(fusion)
        return poll(interval: interval, types: usesField ? [.accel, .anglvel, .magn] : [.accel, .anglvel]) { t in
            let acceleration = try reader.readAccelerometer(timestamp: t).acceleration
            let rate = try reader.readGyro(timestamp: t).rotationRate
            let field = usesField ? try reader.readMagnetometer(timestamp: t).magneticField : nil
            return state.update(timestamp: t, acceleration: acceleration, rotationRate: rate, magneticField: field)
        }
    }

    private func poll<S: Sendable>(
        interval: Double, types: [IIOChannelType], read: @escaping @Sendable (Double) throws -> S
    ) -> AsyncThrowingStream<S, any Error> {
        let period = max(interval, 0.001)
        for type in types where FileManager.default.isWritableFile(atPath: samplingFrequencyPath(type)) {
            try? reader.setSamplingFrequency(1 / period, of: type)
        }
        let tick = makeTicker(.nanoseconds(Int64((period * 1e9).rounded())))
        return Self.poll(tick: tick, timestamp: timestamp, read: read)
    }

    private func samplingFrequencyPath(_ type: IIOChannelType) -> String {
        guard let device = reader.device(for: type) else { return "" }
        let specific = device.url.appendingPathComponent("in_\(type.rawValue)_sampling_frequency").path
        return FileManager.default.fileExists(atPath: specific)
            ? specific : device.url.appendingPathComponent("sampling_frequency").path
    }

    private static func poll<S: Sendable>(
        tick: @escaping @Sendable () async throws -> Void, timestamp: @escaping @Sendable () -> Double,
        read: @escaping @Sendable (Double) throws -> S
    ) -> AsyncThrowingStream<S, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                while !Task.isCancelled {
                    do {
                        try await tick()
                        continuation.yield(try read(timestamp()))
                    } catch is CancellationError {
                        break
                    } catch {
                        continuation.finish(throwing: error)
                        return
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// The fusion state of one device-motion stream, touched only by that stream's polling task.
private final class FusionBox: @unchecked Sendable {
    // One polling task calls `update`, one call at a time, so the state is never shared concurrently.
    private var fusion: SensorFusion

    init(_ fusion: SensorFusion) {
        self.fusion = fusion
    }

    func update(
        timestamp: Double, acceleration: Acceleration, rotationRate: RotationRate, magneticField: MagneticField?
    ) -> DeviceMotion {
        fusion.update(
            timestamp: timestamp, acceleration: acceleration, rotationRate: rotationRate, magneticField: magneticField)
    }
}

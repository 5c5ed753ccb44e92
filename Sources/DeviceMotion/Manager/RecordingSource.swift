import Synchronization

/// A `MotionSource` that replays a `Recording` at its own timestamps, in real time or on a `SimulatedClock`.
///
/// All streams of one source share a time origin: recording time `timeRange.lowerBound` is simulated instant
/// zero, or, in real time, the moment the first stream of the source starts. A stream started later begins
/// with the samples due at that moment (the past is not replayed), and every stream finishes after the
/// recording's last sample. Update intervals are honoured by dropping samples (see `MotionManager`); device
/// motion is the recording's `deviceMotion(referenceFrame:)` (recorded, or computed from raw sensors).
public struct RecordingSource: MotionSource {
    /// How the replay is paced.
    public enum Pacing: Sendable {
        /// At the recording's own pace on `ContinuousClock`.
        case realTime
        /// On a simulated clock that the caller advances; recording start = the clock's zero.
        case simulated(SimulatedClock)
    }

    /// The recording replayed.
    public let recording: Recording
    /// How the replay is paced.
    public let pacing: Pacing
    private let originBox: OriginBox

    /// Creates a source.
    /// - Parameters:
    ///   - recording: The recording to replay.
    ///   - pacing: `.realTime` (default) or `.simulated(clock)`.
    public init(recording: Recording, pacing: Pacing = .realTime) {
        self.recording = recording
        self.pacing = pacing
        originBox = OriginBox()
    }

    /// Accelerometer, gyroscope and magnetometer where the recording has raw samples; device motion where it
    /// offers at least one reference frame.
    public var availableSensors: Set<MotionManager.Sensor> {
        var sensors: Set<MotionManager.Sensor> = []
        if !recording.accelerometerData.isEmpty { sensors.insert(.accelerometer) }
        if !recording.gyroData.isEmpty { sensors.insert(.gyro) }
        if !recording.magnetometerData.isEmpty { sensors.insert(.magnetometer) }
        if !recording.availableReferenceFrames.isEmpty { sensors.insert(.deviceMotion) }
        return sensors
    }

    /// The recording's `availableReferenceFrames`.
    public var availableReferenceFrames: Set<ReferenceFrame> { recording.availableReferenceFrames }

    /// The recording's accelerometer samples, paced.
    public func accelerometerUpdates(interval: Double) -> AsyncThrowingStream<AccelerometerData, any Error> {
        replay(interval: interval) { recording.accelerometerData }
    }

    /// The recording's gyroscope samples, paced.
    public func gyroUpdates(interval: Double) -> AsyncThrowingStream<GyroData, any Error> {
        replay(interval: interval) { recording.gyroData }
    }

    /// The recording's magnetometer samples, paced.
    public func magnetometerUpdates(interval: Double) -> AsyncThrowingStream<MagnetometerData, any Error> {
        replay(interval: interval) { recording.magnetometerData }
    }

    /// The recording's device motion in `referenceFrame`, paced; the stream finishes with the
    /// `RecordingError` of `deviceMotion(referenceFrame:)` when the frame is not available.
    public func deviceMotionUpdates(referenceFrame: ReferenceFrame, interval: Double) -> AsyncThrowingStream<
        DeviceMotion, any Error
    > {
        replay(interval: interval) { [recording] () throws(RecordingError) in
            try recording.deviceMotion(referenceFrame: referenceFrame)
        }
    }

    private func replay<S: TimestampedSample>(
        interval: Double, _ samples: @escaping @Sendable () throws -> [S]
    ) -> AsyncThrowingStream<S, any Error> {
        let startTime = recording.timeRange?.lowerBound ?? 0
        // The stream starts now: fix the origin and the skipped past before any task runs, so scheduling
        // delays or the time to compute device motion never skip samples.
        let play: @Sendable (RecordingPlayer<S>) -> AsyncStream<S>
        switch pacing {
        case .realTime:
            let now = ContinuousClock.now
            let origin = originBox.origin(startingAt: now)
            play = { $0.play(on: ContinuousClock(), from: origin, skippingBefore: origin.duration(to: now)) }
        case .simulated(let clock):
            let origin = SimulatedClock.Instant(offset: .zero)
            let skipped = origin.duration(to: clock.now)
            play = { $0.play(on: clock, from: origin, skippingBefore: skipped) }
        }
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let player = RecordingPlayer(
                        samples: SampleDecimator.decimate(try samples(), interval: interval), startTime: startTime)
                    for await sample in play(player) { continuation.yield(sample) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// The real-time instant a source's recording starts at, fixed by its first stream.
private final class OriginBox: Sendable {
    private let instant = Mutex<ContinuousClock.Instant?>(nil)

    func origin(startingAt now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        instant.withLock { instant in
            if let instant { return instant }
            instant = now
            return now
        }
    }
}

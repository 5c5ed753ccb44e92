/// Where a live `MotionManager` gets its samples: a recording replayed on a clock (`RecordingSource`), a Linux
/// IIO device (`IIOSource`), or a test double.
///
/// Each method starts an independent stream at the given update interval; the stream ends when the source
/// has no more samples, and stops producing when its consumer stops iterating.
public protocol MotionSource: Sendable {
    /// The sensors the source has.
    var availableSensors: Set<MotionManager.Sensor> { get }
    /// The reference frames it can give attitudes in.
    var availableReferenceFrames: Set<ReferenceFrame> { get }
    /// Accelerometer samples, at most one per `interval` seconds (0: every sample).
    func accelerometerUpdates(interval: Double) -> AsyncThrowingStream<AccelerometerData, any Error>
    /// Gyroscope samples, at most one per `interval` seconds.
    func gyroUpdates(interval: Double) -> AsyncThrowingStream<GyroData, any Error>
    /// Magnetometer samples, at most one per `interval` seconds.
    func magnetometerUpdates(interval: Double) -> AsyncThrowingStream<MagnetometerData, any Error>
    /// Device-motion samples in `referenceFrame`, at most one per `interval` seconds.
    func deviceMotionUpdates(referenceFrame: ReferenceFrame, interval: Double) -> AsyncThrowingStream<
        DeviceMotion, any Error
    >
}

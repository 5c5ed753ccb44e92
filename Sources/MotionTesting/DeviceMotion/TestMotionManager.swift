import DeviceMotion
import Synchronization

/// A `MotionManager` whose streams the test drives sample by sample, with a deterministic clock.
///
/// `manager` is `MotionManager.live(source:)` over a source that the test feeds, so ids, active flags,
/// intervals, latest samples, reference frames, stop, destroy and restart behave exactly as in the live
/// manager; only the samples come from `send(_:)`. Each `send` advances `clock` to the sample's timestamp
/// (never backwards). `finish()` ends every running stream as a recording that runs out; `fail(with:)` ends
/// them with an error. `requests` logs what the code under test started, for exact assertions.
///
/// ```swift
/// let test = TestMotionManager()
/// let manager = test.manager
/// try manager.create("tilt")
/// var samples = manager.startDeviceMotionUpdates("tilt", .xArbitraryZVertical).makeAsyncIterator()
/// test.send(motion)
/// #expect(try await samples.next() == motion)
/// ```
///
/// Thread rule: all members are safe to call from any thread or task.
public final class TestMotionManager: Sendable {
    /// A stream the code under test started, as the source saw it.
    public enum Request: Hashable, Sendable {
        /// Device-motion updates in a frame at an interval (seconds).
        case deviceMotion(ReferenceFrame, interval: Double)
        /// Accelerometer updates at an interval (seconds).
        case accelerometer(interval: Double)
        /// Gyroscope updates at an interval (seconds).
        case gyro(interval: Double)
        /// Magnetometer updates at an interval (seconds).
        case magnetometer(interval: Double)
    }

    /// The manager to hand to the code under test.
    public let manager: MotionManager
    /// A clock advanced to the timestamp of each sample sent.
    public let clock: SimulatedClock
    private let source: TestSource

    /// Creates a test manager.
    /// - Parameters:
    ///   - availableSensors: What `isAvailable` reports and which starts succeed (all by default).
    ///   - availableReferenceFrames: The frames device motion can start in (all but true north by default).
    public init(
        availableSensors: Set<MotionManager.Sensor> = Set(MotionManager.Sensor.allCases),
        availableReferenceFrames: Set<ReferenceFrame> = [
            .xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical,
        ]
    ) {
        let source = TestSource(availableSensors: availableSensors, availableReferenceFrames: availableReferenceFrames)
        self.source = source
        clock = SimulatedClock()
        manager = .live(source: source)
    }

    /// Every stream started so far, in order.
    public var requests: [Request] { source.state.withLock { $0.requests } }

    /// The number of streams of a sensor currently open at the source.
    public func openStreamCount(_ sensor: MotionManager.Sensor) -> Int {
        source.state.withLock { state in state.streams.values.filter { $0.sensor == sensor }.count }
    }

    /// Delivers a device-motion sample to every running device-motion stream.
    /// - Parameter sample: The sample; its timestamp advances `clock`.
    /// - Returns: How many streams it reached (0 when none runs: a sign the test sends too early).
    @discardableResult
    public func send(_ sample: DeviceMotion) -> Int { deliver(.deviceMotion, sample) }

    /// Delivers an accelerometer sample to every running accelerometer stream.
    /// - Returns: How many streams it reached.
    @discardableResult
    public func send(_ sample: AccelerometerData) -> Int { deliver(.accelerometer, sample) }

    /// Delivers a gyroscope sample to every running gyroscope stream.
    /// - Returns: How many streams it reached.
    @discardableResult
    public func send(_ sample: GyroData) -> Int { deliver(.gyro, sample) }

    /// Delivers a magnetometer sample to every running magnetometer stream.
    /// - Returns: How many streams it reached.
    @discardableResult
    public func send(_ sample: MagnetometerData) -> Int { deliver(.magnetometer, sample) }

    /// Ends every running stream normally, as a source that has no more samples.
    public func finish() {
        for stream in source.takeAll() { stream.finish(nil) }
    }

    /// Ends every running stream with `error`, as a failing sensor.
    public func fail(with error: any Error) {
        for stream in source.takeAll() { stream.finish(error) }
    }

    private func deliver<S: TimestampedSample>(_ sensor: MotionManager.Sensor, _ sample: S) -> Int {
        clock.advance(by: .nanoseconds(Int64(((sample.timestamp - clock.elapsedSeconds) * 1e9).rounded())))
        let targets = source.state.withLock { state in state.streams.values.filter { $0.sensor == sensor } }
        var reached = 0
        for target in targets where target.yield(sample) { reached += 1 }
        return reached
    }
}

/// The source behind `TestMotionManager`: its streams are fed by the test.
private final class TestSource: MotionSource {
    struct OpenStream: Sendable {
        var sensor: MotionManager.Sensor
        var yield: @Sendable (any Sendable) -> Bool
        var finish: @Sendable ((any Error)?) -> Void
    }

    struct State: Sendable {
        var requests: [TestMotionManager.Request] = []
        var streams: [Int: OpenStream] = [:]
        var nextID = 0
    }

    let availableSensors: Set<MotionManager.Sensor>
    let availableReferenceFrames: Set<ReferenceFrame>
    let state = Mutex(State())

    init(availableSensors: Set<MotionManager.Sensor>, availableReferenceFrames: Set<ReferenceFrame>) {
        self.availableSensors = availableSensors
        self.availableReferenceFrames = availableReferenceFrames
    }

    func takeAll() -> [OpenStream] {
        state.withLock { state in
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
    }

    private func open<S: Sendable>(_ sensor: MotionManager.Sensor, _ request: TestMotionManager.Request)
        -> AsyncThrowingStream<S, any Error>
    {
        let (stream, continuation) = AsyncThrowingStream<S, any Error>.makeStream()
        let id = state.withLock { state in
            state.nextID += 1
            state.requests.append(request)
            state.streams[state.nextID] = OpenStream(
                sensor: sensor,
                yield: { value in
                    guard let sample = value as? S else { return false }
                    if case .enqueued = continuation.yield(sample) { return true }
                    return false
                },
                finish: { error in continuation.finish(throwing: error) })
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    func accelerometerUpdates(interval: Double) -> AsyncThrowingStream<AccelerometerData, any Error> {
        open(.accelerometer, .accelerometer(interval: interval))
    }

    func gyroUpdates(interval: Double) -> AsyncThrowingStream<GyroData, any Error> {
        open(.gyro, .gyro(interval: interval))
    }

    func magnetometerUpdates(interval: Double) -> AsyncThrowingStream<MagnetometerData, any Error> {
        open(.magnetometer, .magnetometer(interval: interval))
    }

    func deviceMotionUpdates(referenceFrame: ReferenceFrame, interval: Double) -> AsyncThrowingStream<
        DeviceMotion, any Error
    > {
        open(.deviceMotion, .deviceMotion(referenceFrame, interval: interval))
    }
}

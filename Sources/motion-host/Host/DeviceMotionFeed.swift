import CMotionABI
import DeviceMotion
import DeviceMotionABI
import Dispatch
import FoundationEssentials
import MotionCore
import MotionHost
import Synchronization

/// Makes the frame hook that replays a scene's device-motion recording: before each frame, every sample
/// whose time (seconds since the recording's first sample) has come is handed, in order, to every
/// performer that takes device motion (`motion.device-motion/1`).
///
/// - Parameters:
///   - source: The scene's `deviceMotion` source (recording path resolved, reference frame).
///   - scenePath: The scene file's path as given, for error messages.
/// - Returns: The hook the runner calls with each frame's time.
/// - Throws: ``MotionHostError`` naming the recording (file, line and column of a malformed row), an
///   unrecognised format, or a reference frame the recording cannot give.
func makeDeviceMotionHook(for source: DeviceMotionSource, scenePath: String) throws(MotionHostError) -> any FrameHook {
    guard let frame = ReferenceFrame(name: source.referenceFrame) else {
        throw MotionHostError(.invalidScene, file: scenePath, "$.deviceMotion.referenceFrame: unknown reference frame \"\(source.referenceFrame)\"")
    }
    do {
        let recording = try Recording.read(contentsOf: URL(fileURLWithPath: source.resolvedPath))
        return DeviceMotionFeed(samples: try readDeviceMotion(of: recording, referenceFrame: frame), referenceFrame: frame)
    } catch {
        throw MotionHostError(.invalidScene, file: scenePath, "$.deviceMotion.recording: \(error)", underlying: error)
    }
}

/// A recording's device motion in `referenceFrame`, read through the `MotionManager` client as an app reads
/// Core Motion: a live manager over the recording, paced by a simulated clock that is moved past the
/// recording's end once the stream has started, so every sample arrives at once (update interval 0).
/// - Parameters:
///   - recording: The recording.
///   - referenceFrame: The frame the attitudes are to be in.
/// - Returns: The samples, in time order (those of `recording.deviceMotion(referenceFrame:)`).
/// - Throws: The recording's `RecordingError` saying why it cannot give that frame (its wording, written for
///   people), else the manager's `MotionManagerError`.
func readDeviceMotion(of recording: Recording, referenceFrame: ReferenceFrame) throws -> [DeviceMotion] {
    if let problem = recording.deviceMotionUnavailability(referenceFrame: referenceFrame) { throw problem }
    let clock = SimulatedClock()
    let manager = MotionManager.live(source: RecordingSource(recording: recording, pacing: .simulated(clock)))
    let span = recording.timeRange.map { $0.upperBound - $0.lowerBound } ?? 0
    let end = SimulatedClock.Instant(offset: .seconds(span) + .seconds(1))
    return try waitForTask {
        try await manager.allDeviceMotion(id: "motion-host", referenceFrame: referenceFrame, clock: clock, until: end)
    }
}

/// Runs `body` in a detached task and blocks the calling thread until it returns. For the CLI's synchronous
/// code on the main thread only: the task runs on the global executor, never on the blocked thread.
/// - Returns: What `body` returned.
/// - Throws: What `body` threw.
func waitForTask<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = TaskOutcome<T>()
    Task.detached {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.result.withLock { $0 = result }
        outcome.done.signal()
    }
    outcome.done.wait()
    return try outcome.result.withLock { $0! }.get()
}

/// What a task handed to ``waitForTask(_:)`` returned, and the signal that it has.
private final class TaskOutcome<T: Sendable>: Sendable {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
}

/// Replays device-motion samples at their own timestamps on the run's simulated clock. Each sample is
/// converted with `DeviceMotionABI` (times from the recording's first sample) and handed to the scheduler's
/// device-motion performers with MotionHost's `deliverDeviceMotion(_:to:)`.
final class DeviceMotionFeed: FrameHook {
    private let samples: [DeviceMotion]
    private let referenceFrame: ReferenceFrame
    private let origin: Double
    private var next = 0
    private var delivery: DeviceMotionDelivery?

    init(samples: [DeviceMotion], referenceFrame: ReferenceFrame) {
        self.samples = samples
        self.referenceFrame = referenceFrame
        self.origin = samples.first?.timestamp ?? 0
    }

    func beforeFrame(time: Double, scheduler: Scheduler) throws {
        while next < samples.count, samples[next].timestamp - origin <= time + 1e-9 {
            var sample = motion_device_motion_sample(samples[next], referenceFrame: referenceFrame, timestampOrigin: origin)
            if delivery == nil { delivery = DeviceMotionDelivery(scheduler: scheduler) }
            delivery?.deliver(&sample)
            next += 1
        }
    }
}

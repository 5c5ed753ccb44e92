import CMotionABI
import DeviceMotion
import DeviceMotionABI
import Foundation
import MotionCore
import MotionHost

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
        return DeviceMotionFeed(samples: try recording.deviceMotion(referenceFrame: frame), referenceFrame: frame)
    } catch {
        throw MotionHostError(.invalidScene, file: scenePath, "$.deviceMotion.recording: \(error)", underlying: error)
    }
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

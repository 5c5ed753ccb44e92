import CMotionABI
import DeviceMotion
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

/// Replays device-motion samples at their own timestamps on the run's simulated clock.
final class DeviceMotionFeed: FrameHook {
    private let samples: [DeviceMotion]
    private let referenceFrame: ReferenceFrame
    private let origin: Double
    private var next = 0
    private var cSample = motion_device_motion_sample()

    init(samples: [DeviceMotion], referenceFrame: ReferenceFrame) {
        self.samples = samples
        self.referenceFrame = referenceFrame
        self.origin = samples.first?.timestamp ?? 0
        cSample.struct_size = UInt32(MemoryLayout<motion_device_motion_sample>.size)
    }

    func beforeFrame(time: Double, scheduler: Scheduler) throws {
        var receivers: [any DeviceMotionReceiving] = []
        scheduler.forEachPerformer { performer in
            if let receiver = performer as? any DeviceMotionReceiving, receiver.acceptsDeviceMotion { receivers.append(receiver) }
        }
        while next < samples.count, samples[next].timestamp - origin <= time + 1e-9 {
            fill(&cSample, from: samples[next])
            for receiver in receivers { receiver.receive(&cSample) }
            next += 1
        }
    }

    private func fill(_ c: inout motion_device_motion_sample, from s: DeviceMotion) {
        let q = s.attitude.quaternion
        c.timestamp = s.timestamp - origin
        (c.attitude_x, c.attitude_y, c.attitude_z, c.attitude_w) = (q.x, q.y, q.z, q.w)
        (c.gravity_x, c.gravity_y, c.gravity_z) = (s.gravity.x, s.gravity.y, s.gravity.z)
        (c.user_acceleration_x, c.user_acceleration_y, c.user_acceleration_z) = (s.userAcceleration.x, s.userAcceleration.y, s.userAcceleration.z)
        (c.rotation_rate_x, c.rotation_rate_y, c.rotation_rate_z) = (s.rotationRate.x, s.rotationRate.y, s.rotationRate.z)
        let field = s.magneticField.field
        (c.magnetic_field_x, c.magnetic_field_y, c.magnetic_field_z) = (field.x, field.y, field.z)
        c.magnetic_field_accuracy = s.magneticField.accuracy.rawValue
        c.reference_frame = Int32(referenceFrame.rawValue)
        c.heading = s.heading
    }
}

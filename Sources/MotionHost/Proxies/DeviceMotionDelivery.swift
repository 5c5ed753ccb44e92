import CMotionABI
import MotionCore

/// Hands one device-motion sample to every performer of `scheduler` that takes device motion
/// (a ``DeviceMotionReceiving`` performer whose plugin has the `motion.device-motion/1` extension), in the
/// scheduler's performer order, through `motion_device_motion_v1.receive`.
///
/// Call it on the scheduler's thread, between frames (`motion-host` calls it before each frame's update
/// for every sample whose time has come). Performers created by a delivery (a plugin emitting a
/// transaction from `receive`) get the next sample, not this one.
/// - Parameters:
///   - sample: The sample (see `motion_device_motion_sample` for its fields and units); borrowed for the
///     duration of the call.
///   - scheduler: The scheduler whose performers receive it.
/// - Returns: How many performers received the sample.
@discardableResult
public func deliverDeviceMotion(_ sample: inout motion_device_motion_sample, to scheduler: Scheduler) -> Int {
    var receivers: [any DeviceMotionReceiving] = []
    scheduler.forEachPerformer { performer in
        if let receiver = performer as? any DeviceMotionReceiving, receiver.acceptsDeviceMotion {
            receivers.append(receiver)
        }
    }
    withUnsafePointer(to: &sample) { pointer in
        for receiver in receivers { receiver.receive(pointer) }
    }
    return receivers.count
}

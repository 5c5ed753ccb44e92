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
    DeviceMotionDelivery(scheduler: scheduler).deliver(&sample)
}

/// Delivers samples to a scheduler's device-motion performers again and again, finding them once: the
/// list is rebuilt only when the scheduler has created performers since the last delivery (performers
/// only ever come, so a count says when), not with a cast per performer per sample.
///
/// Thread rule: the scheduler's thread.
public final class DeviceMotionDelivery {
    private let scheduler: Scheduler
    private var receivers: [any DeviceMotionReceiving] = []
    private var performersSeen = -1

    /// A delivery to `scheduler`'s performers.
    public init(scheduler: Scheduler) { self.scheduler = scheduler }

    /// Hands one sample to every performer that takes device motion; see ``deliverDeviceMotion(_:to:)``.
    /// - Returns: How many performers received the sample.
    @discardableResult
    public func deliver(_ sample: inout motion_device_motion_sample) -> Int {
        if performersSeen != scheduler.performerCount {
            performersSeen = scheduler.performerCount
            receivers.removeAll(keepingCapacity: true)
            scheduler.forEachPerformer { performer in
                if let receiver = performer as? any DeviceMotionReceiving, receiver.acceptsDeviceMotion {
                    receivers.append(receiver)
                }
            }
        }
        let current = receivers  // a performer created during this delivery gets the next sample
        withUnsafePointer(to: &sample) { pointer in
            for receiver in current { receiver.receive(pointer) }
        }
        return current.count
    }
}

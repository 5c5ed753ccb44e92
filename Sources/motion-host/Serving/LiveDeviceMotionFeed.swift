import CMotionABI
import DeviceMotion
import DeviceMotionABI
import MotionCore
import MotionHost
import MotionLive

/// `serve --device-motion sensorlogger`: Sensor Logger pushes, fused into device-motion samples
/// (``SensorLoggerStream``), handed to the device-motion performers at their own timestamps mapped onto the
/// host's clock.
///
/// Mapping: the first fused sample is placed at the frame time its push arrived; every later one at that
/// time plus its own offset from the first. The app pushes in batches, so a batch's samples are played
/// over the following interval, one batch late, in order and none dropped. On the frame loop's thread.
final class LiveDeviceMotionFeed {
    private var stream: SensorLoggerStream
    private var pending: [DeviceMotion] = []
    private var next = 0
    private var hostOffset: Double?
    private var delivery: DeviceMotionDelivery?
    /// Samples handed to the performers so far.
    private(set) var deliveredCount = 0

    /// A feed.
    /// - Parameters:
    ///   - referenceFrame: The attitude frame (the scene's `deviceMotion.referenceFrame`, or
    ///     `xArbitraryZVertical`); not `xTrueNorthZVertical`.
    ///   - isAndroid: Whether the phone is an Android one (`sensorlogger`) or an iPhone (`sensorlogger:ios`).
    init?(referenceFrame: ReferenceFrame, isAndroid: Bool) {
        guard let stream = SensorLoggerStream(referenceFrame: referenceFrame, isAndroid: isAndroid) else { return nil }
        self.stream = stream
    }

    /// Fuses a push that arrived at a frame.
    /// - Returns: How many device-motion samples it made, and how many readings were late.
    func add(_ push: SensorLoggerPush, arrivedAt time: Double) -> (fused: Int, late: Int) {
        let late = stream.lateSamples
        let samples = stream.add(push)
        if hostOffset == nil, let first = samples.first { hostOffset = time - first.timestamp }
        pending.append(contentsOf: samples)
        return (samples.count, stream.lateSamples - late)
    }

    /// Hands every sample whose mapped time has come to the performers, in order.
    func deliver(upTo time: Double, scheduler: Scheduler) {
        guard let hostOffset else { return }
        while next < pending.count, pending[next].timestamp + hostOffset <= time + 1e-9 {
            var sample = motion_device_motion_sample(
                pending[next], referenceFrame: stream.referenceFrame, timestampOrigin: -hostOffset)
            if delivery == nil { delivery = DeviceMotionDelivery(scheduler: scheduler) }
            delivery?.deliver(&sample)
            next += 1
            deliveredCount += 1
        }
        if next > 4096 {
            pending.removeFirst(next)
            next = 0
        }
    }
}

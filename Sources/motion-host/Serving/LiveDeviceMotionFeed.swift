import CMotionABI
import DeviceMotion
import DeviceMotionABI
import MotionCore
import MotionHost
import MotionLive

/// `serve`'s live device motion, handed to the device-motion performers at the samples' own timestamps
/// mapped onto the host's clock, in order, none dropped. On the frame loop's thread.
///
/// - `--device-motion sensorlogger`: pushes fused into samples (``SensorLoggerStream``). The first fused
///   sample is placed at the frame time its push arrived, every later one at that time plus its own offset
///   from the first. The app pushes in batches, so a batch's samples play over the following interval,
///   one batch late.
/// - `--device-motion iio[:DEVICE]`: samples polled by ``IIOLiveSource`` and stamped with the frame loop's
///   monotonic clock, placed at that time minus the run's start: each reaches the performers at the first
///   frame at or after the moment it was read.
final class LiveDeviceMotionFeed {
    /// Where samples come from.
    enum Intake {
        case sensorLogger(SensorLoggerStream)
        /// The IIO poller and the run's start on its clock, seconds.
        case iio(IIOLiveSource, start: () -> Double)
    }

    private var intake: Intake
    private let referenceFrame: ReferenceFrame
    private var pending: [DeviceMotion] = []
    private var next = 0
    private var hostOffset: Double?
    private var delivery: DeviceMotionDelivery?
    private var lastTimestamp = -Double.infinity
    /// Device-motion samples made so far (fused from pushes, or polled).
    private(set) var receivedCount = 0
    /// Samples handed to the performers so far, and how many of those reached at least one performer.
    private(set) var deliveredCount = 0
    private(set) var deliveredToPerformersCount = 0
    /// Sensor Logger readings skipped because they were older than one already used.
    private(set) var lateCount = 0
    /// Samples delivered with a timestamp before the previous one's (0 unless a source breaks its order).
    private(set) var outOfOrderCount = 0

    /// A feed of Sensor Logger pushes.
    /// - Parameters:
    ///   - referenceFrame: The attitude frame (the scene's `deviceMotion.referenceFrame`, or
    ///     `xArbitraryZVertical`); not `xTrueNorthZVertical`.
    ///   - isAndroid: Whether the phone is an Android one (`sensorlogger`) or an iPhone (`sensorlogger:ios`).
    init?(referenceFrame: ReferenceFrame, isAndroid: Bool) {
        guard let stream = SensorLoggerStream(referenceFrame: referenceFrame, isAndroid: isAndroid) else { return nil }
        self.intake = .sensorLogger(stream)
        self.referenceFrame = referenceFrame
    }

    /// A feed of polled IIO samples.
    /// - Parameters:
    ///   - source: The poller (started by the first ``deliver(upTo:scheduler:)``).
    ///   - start: The run's start on the monotonic clock, seconds (frame 0's due time).
    init(iio source: IIOLiveSource, start: @escaping () -> Double) {
        self.intake = .iio(source, start: start)
        self.referenceFrame = source.referenceFrame
    }

    /// `"sensorlogger"` or `"iio"`, for `GET /state`.
    var sourceName: String {
        if case .iio = intake { return "iio" }
        return "sensorlogger"
    }

    /// Fuses a push that arrived at a frame.
    /// - Returns: How many device-motion samples it made, and how many readings were late; `nil` when this
    ///   feed takes no pushes (IIO).
    func add(_ push: SensorLoggerPush, arrivedAt time: Double) -> (fused: Int, late: Int)? {
        guard case .sensorLogger(var stream) = intake else { return nil }
        let late = stream.lateSamples
        let samples = stream.add(push)
        intake = .sensorLogger(stream)
        if hostOffset == nil, let first = samples.first { hostOffset = time - first.timestamp }
        pending.append(contentsOf: samples)
        receivedCount += samples.count
        lateCount += stream.lateSamples - late
        return (samples.count, stream.lateSamples - late)
    }

    /// Hands every sample whose mapped time has come to the performers, in order.
    /// - Returns: A failure that ended the intake (an IIO device that could not be read any more), once.
    func deliver(upTo time: Double, scheduler: Scheduler) -> String? {
        var failure: String?
        if case .iio(let source, let start) = intake {
            source.start()
            hostOffset = -start()
            let taken = source.takeSamples()
            pending.append(contentsOf: taken.samples)
            receivedCount += taken.samples.count
            failure = taken.failure
        }
        guard let hostOffset else { return failure }
        while next < pending.count, pending[next].timestamp + hostOffset <= time + 1e-9 {
            var sample = motion_device_motion_sample(
                pending[next], referenceFrame: referenceFrame, timestampOrigin: -hostOffset)
            if delivery == nil { delivery = DeviceMotionDelivery(scheduler: scheduler) }
            if pending[next].timestamp < lastTimestamp { outOfOrderCount += 1 }
            lastTimestamp = pending[next].timestamp
            if delivery?.deliver(&sample) ?? 0 > 0 { deliveredToPerformersCount += 1 }
            next += 1
            deliveredCount += 1
        }
        if next > 4096 {
            pending.removeFirst(next)
            next = 0
        }
        return failure
    }

    /// Stops an IIO poller.
    func stop() {
        if case .iio(let source, _) = intake { source.stop() }
    }

    /// `GET /state`'s `"deviceMotion"` member: `{"source", "samples", "delivered", "deliveredToPerformers",
    /// "waiting", "late", "outOfOrder"}` (counts of samples since the start).
    var stateJSON: String {
        "{\"source\":\"\(sourceName)\",\"samples\":\(receivedCount),\"delivered\":\(deliveredCount),\"deliveredToPerformers\":\(deliveredToPerformersCount),\"waiting\":\(pending.count - next),\"late\":\(lateCount),\"outOfOrder\":\(outOfOrderCount)}"
    }
}

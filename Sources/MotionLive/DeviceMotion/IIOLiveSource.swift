import DeviceMotion
import FoundationEssentials
import Glibc
import MotionFiles

/// `serve --device-motion iio[:DEVICE]`: the kernel's IIO sensors as a live device-motion source.
///
/// A thread of its own reads accelerometer and gyroscope (and magnetometer in the 9-axis reference frames)
/// through the project's ``IIOSensorReader`` every `interval` (due times start + i × interval; a late poll
/// is not made up) and fuses them with ``SensorFusion``, as ``IIOSource`` does; each sample is stamped with
/// the monotonic clock the frame loop runs on (``RealTimeClock/monotonicNanoseconds``, seconds), so a
/// sample maps onto the host's clock as `timestamp − start of the run`. Samples wait here, in order, until
/// the frame loop takes them (``takeSamples()``); none is dropped. (A task on Swift's cooperative pool, as
/// ``IIOSource``'s streams use, starved for seconds while other work blocked the pool's two threads.)
///
/// Thread rule: ``start()`` and ``stop()`` from one thread; ``takeSamples()`` from any thread.
public final class IIOLiveSource: @unchecked Sendable {
    // @unchecked: `pending` is guarded by `lock`, an NSLock (pthread-based, which Thread Sanitizer sees;
    // it cannot see Synchronization's futex Mutex, Documentation/PITFALLS.md); the rest is immutable.
    /// What `DEVICE` in `iio[:DEVICE]` chose.
    public let reader: IIOSensorReader
    /// The attitude reference frame of the samples.
    public let referenceFrame: ReferenceFrame
    /// Seconds between polls.
    public let interval: Double
    private let now: RealTimeClock.Now
    private let lock = ThreadLock()
    private var pending: (samples: [DeviceMotion], failure: String?, isStarted: Bool, isStopping: Bool) = (
        [], nil, false, false
    )

    private func withLock<T>(
        _ body: (inout (samples: [DeviceMotion], failure: String?, isStarted: Bool, isStopping: Bool)) -> T
    ) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&pending)
    }

    /// Finds the sensors and checks that they can be read.
    /// - Parameters:
    ///   - device: `DEVICE` of `iio:DEVICE`, or `nil` for `iio`: nothing (every device under
    ///     `/sys/bus/iio/devices`, the first of each sensor type), device names as in their `name` files
    ///     separated by commas (`bmi160,ak8975`), or a path (it holds a `/`) to a devices folder laid out as
    ///     `/sys/bus/iio/devices` or to one device's folder.
    ///   - referenceFrame: Any frame but `xTrueNorthZVertical`; the 9-axis frames need a magnetometer.
    ///   - interval: Seconds between polls (0.01: 100 Hz), at least 1 ms.
    ///   - now: The monotonic clock, nanoseconds; the frame loop's own by default.
    /// - Throws: ``LiveRefusal`` (status 400) with one line that names the folder or file and says what to
    ///   do (the caller names the `--device-motion` value): no such folder or device, no accelerometer or gyroscope (or magnetometer) on it, an attribute
    ///   that cannot be read or does not hold a number.
    public init(
        device: String?, referenceFrame: ReferenceFrame, interval: Double = 0.01,
        now: @escaping RealTimeClock.Now = RealTimeClock.monotonicNanoseconds
    ) throws(LiveRefusal) {
        let reader: IIOSensorReader
        do throws(IIOError) {
            reader = try Self.reader(for: device)
        } catch {
            throw LiveRefusal(400, "\(error)")
        }
        let needed: [IIOChannelType] = referenceFrame.needsMagnetometer ? [.accel, .anglvel, .magn] : [.accel, .anglvel]
        for type in needed where reader.device(for: type) == nil {
            let found = reader.devices.map { "\($0.url.lastPathComponent) (\($0.name.isEmpty ? "no name" : $0.name))" }
            throw LiveRefusal(
                400,
                "\(reader.root.path): no device has \(Self.sensorName(type)) channels (in_\(type.rawValue)_x_raw, _y_raw, _z_raw)"
                    + (type == .magn ? ", which the reference frame \(referenceFrame.name) needs" : "")
                    + "; found \(found.isEmpty ? "no device" : found.joined(separator: ", ")). To fix, load the sensor's driver, name other devices (iio:NAME,NAME) or"
                    + (type == .magn ? " use xArbitraryZVertical" : " use another device-motion source"))
        }
        guard referenceFrame != .xTrueNorthZVertical else {
            throw LiveRefusal(
                400, "the reference frame xTrueNorthZVertical needs a location, which Linux does not give. To fix, use xMagneticNorthZVertical")
        }
        do throws(IIOError) {
            _ = try reader.readAccelerometer(timestamp: 0)
            _ = try reader.readGyro(timestamp: 0)
            if referenceFrame.needsMagnetometer { _ = try reader.readMagnetometer(timestamp: 0) }
        } catch {
            throw LiveRefusal(400, "\(error)")
        }
        self.reader = reader
        self.referenceFrame = referenceFrame
        self.interval = max(interval, 0.001)
        self.now = now
    }

    private static func reader(for device: String?) throws(IIOError) -> IIOSensorReader {
        guard let device, !device.isEmpty else { return try IIOSensorReader() }
        guard device.contains("/") else {
            return try IIOSensorReader(deviceNames: device.split(separator: ",").map(String.init))
        }
        let url = URL(fileURLWithPath: device)
        var isFolder: Bool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder else {
            throw IIOError(
                .noDevices,
                "no such folder. To fix, give a devices folder laid out as /sys/bus/iio/devices, one device's folder in it, or device names",
                path: url.path)
        }
        // One device's folder (it has a name file): its parent holds it, and only it is used.
        let nameFile = url.appendingPathComponent("name")
        guard FileManager.default.fileExists(atPath: nameFile.path) else { return try IIOSensorReader(root: url) }
        let name = (try? String(contentsOf: nameFile, encoding: .utf8))?.trimmingWhitespace(includingNewlines: true) ?? ""
        return try IIOSensorReader(root: url.deletingLastPathComponent(), deviceNames: [name])
    }

    private static func sensorName(_ type: IIOChannelType) -> String {
        switch type {
        case .accel: "accelerometer"
        case .anglvel: "gyroscope"
        case .magn: "magnetometer"
        }
    }

    /// Starts polling on a thread of its own (once; later calls do nothing). Where the driver's sampling
    /// frequency is writable, it is set to match the interval first. A thread that cannot be started is a failure
    /// that ``takeSamples()`` reports, as a device that can no longer be read is.
    public func start() {
        guard
            withLock({ state in
                defer { state.isStarted = true }
                return !state.isStarted
            })
        else { return }
        for type in [IIOChannelType.accel, .anglvel, .magn] where reader.device(for: type) != nil {
            try? reader.setSamplingFrequency(1 / interval, of: type)
        }
        do { try DetachedThread.start(name: "motion-iio") { [self] in poll() } } catch {
            withLock { $0.failure = "\(error). Device motion stopped before its first sample" }
        }
    }

    private func poll() {
        guard var fusion = SensorFusion(referenceFrame: referenceFrame, sampleInterval: interval) else { return }
        let usesField = referenceFrame.needsMagnetometer
        let step = UInt64((interval * 1e9).rounded())
        var due = RealTimeClock.monotonicNanoseconds()
        while !withLock({ $0.isStopping }) {
            let t = Double(now()) / 1e9
            do throws(IIOError) {
                let acceleration = try reader.readAccelerometer(timestamp: t).acceleration
                let rate = try reader.readGyro(timestamp: t).rotationRate
                let field = usesField ? try reader.readMagnetometer(timestamp: t).magneticField : nil
                let sample = fusion.update(timestamp: t, acceleration: acceleration, rotationRate: rate, magneticField: field)
                withLock { $0.samples.append(sample) }
            } catch {
                let interval = interval
                withLock { $0.failure = "\(error). Device motion stopped (it was polled every \(interval) s)" }
                return
            }
            due += step
            let current = RealTimeClock.monotonicNanoseconds()
            if current < due {
                usleep(UInt32(min((due - current) / 1000, 1_000_000)))
            } else {
                due = current  // late: the next poll is one interval from now, not a burst
            }
        }
    }

    /// Stops polling (at the thread's next poll); samples not taken yet stay.
    public func stop() { withLock { $0.isStopping = true } }

    /// Takes every sample polled since the last call, in time order (timestamps: monotonic seconds), and a
    /// read failure that ended the polling, once.
    public func takeSamples() -> (samples: [DeviceMotion], failure: String?) {
        withLock { state in
            defer {
                state.samples.removeAll(keepingCapacity: true)
                state.failure = nil
            }
            return (state.samples, state.failure)
        }
    }
}

import FoundationEssentials
import MotionFiles

/// The IIO channel types this library reads (the `<type>` in `in_<type>_x_raw`).
public enum IIOChannelType: String, Hashable, Sendable, CaseIterable {
    /// Accelerometer, `in_accel_*`: m/s² after scaling.
    case accel
    /// Gyroscope, `in_anglvel_*`: rad/s after scaling.
    case anglvel
    /// Magnetometer, `in_magn_*`: Gauss after scaling.
    case magn
}

/// One device under the IIO sysfs root (`iio:deviceN`).
public struct IIODevice: Hashable, Sendable {
    /// The device's folder, e.g. `/sys/bus/iio/devices/iio:device0`.
    public var url: URL
    /// The content of its `name` file (e.g. `"accel_3d"`, `"bmi160"`), or `""` when absent.
    public var name: String
    /// The channel types it has x, y and z raw channels for.
    public var channelTypes: Set<IIOChannelType>

    /// Creates a device description.
    public init(url: URL, name: String, channelTypes: Set<IIOChannelType>) {
        self.url = url
        self.name = name
        self.channelTypes = channelTypes
    }
}

/// Reads accelerometer, gyroscope and magnetometer samples from the Linux kernel's Industrial I/O sysfs
/// interface (Documentation/ABI/testing/sysfs-bus-iio).
///
/// For each axis, `value = (in_<type>_<axis>_raw + offset) × scale`, where scale and offset come from
/// `in_<type>_<axis>_scale` or the shared `in_<type>_scale` (offset: 0 when absent). The vector is then turned
/// into the device's axes with the mount matrix (`in_<type>_mount_matrix`, `in_mount_matrix` or
/// `mount_matrix`; rows separated by `;`, as the kernel prints it; identity when absent): `v_device = M ·
/// v_sensor`. Finally units and signs become Core Motion's:
/// - accelerometer: m/s², specific force (+9.81 on the axis pointing up) → g, pointing down (`−v / 9.80665`);
/// - gyroscope: rad/s, unchanged;
/// - magnetometer: Gauss → µT (`× 100`).
///
/// A real device is read exactly the same way: the default root is `/sys/bus/iio/devices`; tests pass a
/// folder laid out like it. Scale and offset are read at every sample, since a driver may change them
/// with the range or the sampling frequency.
///
/// Thread rule: a value type; its methods read and write files and may be called from any thread.
public struct IIOSensorReader: Sendable {
    /// The kernel's IIO device folder, `/sys/bus/iio/devices`.
    public static let defaultRoot = URL(fileURLWithPath: "/sys/bus/iio/devices")

    /// The sysfs root that was scanned.
    public let root: URL
    /// Every IIO device found under the root, in name order of their folders.
    public let devices: [IIODevice]
    private let chosen: [IIOChannelType: IIODevice]

    /// Scans the root and picks a device for each sensor type.
    /// - Parameters:
    ///   - root: The IIO devices folder; `defaultRoot` unless testing.
    ///   - deviceNames: When given, only devices whose `name` file is in this list are used, and for each
    ///     sensor type the earliest name in the list wins; otherwise the first device (by folder) wins.
    /// - Throws: `IIOError.noDevices` when the root is not a folder, cannot be listed, or holds no device with
    ///   any of the three channel types.
    public init(root: URL = IIOSensorReader.defaultRoot, deviceNames: [String]? = nil) throws(IIOError) {
        self.root = root
        var isFolder: Bool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder else {
            throw IIOError(
                .noDevices,
                "no such folder: the kernel shows no IIO sensors here. To fix, load the sensor's driver (or, in a "
                    + "container, make /sys/bus/iio visible), or read a folder laid out like it", path: root.path)
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        } catch {
            throw IIOError(
                .noDevices,
                "cannot list the IIO devices folder. To fix, check that the kernel has IIO sensors "
                    + "and that the folder is readable", path: root.path, underlying: "\(error)")
        }
        var devices: [IIODevice] = []
        for entry in names where entry.hasPrefix("iio:device") {
            let url = root.appendingPathComponent(entry)
            let name = (try? Self.readText(url.appendingPathComponent("name"))) ?? ""
            let types = IIOChannelType.allCases.filter { type in
                ["x", "y", "z"].allSatisfy {
                    FileManager.default.fileExists(atPath: url.appendingPathComponent("in_\(type)_\($0)_raw").path)
                }
            }
            devices.append(IIODevice(url: url, name: name, channelTypes: Set(types)))
        }
        self.devices = devices
        var chosen: [IIOChannelType: IIODevice] = [:]
        for type in IIOChannelType.allCases {
            let candidates = devices.filter { $0.channelTypes.contains(type) }
            if let deviceNames {
                chosen[type] = deviceNames.lazy.compactMap { name in candidates.first { $0.name == name } }.first
            } else {
                chosen[type] = candidates.first
            }
        }
        guard !chosen.isEmpty else {
            let filter = deviceNames.map { " named \($0.joined(separator: ", "))" } ?? ""
            throw IIOError(
                .noDevices,
                "found no IIO device\(filter) with accelerometer (in_accel_x_raw), gyroscope (in_anglvel_x_raw) or "
                    + "magnetometer (in_magn_x_raw) channels. To fix, load the sensor's driver or check the names",
                path: root.path)
        }
        self.chosen = chosen
    }

    /// The device used for a channel type, if any.
    /// - Parameter type: The channel type.
    /// - Returns: The chosen device, or `nil` when no device has that type.
    public func device(for type: IIOChannelType) -> IIODevice? { chosen[type] }

    /// Reads one accelerometer sample.
    /// - Parameter timestamp: The sample's timestamp, seconds (a live source passes the time since boot).
    /// - Returns: The acceleration in g with Core Motion's sign, in the device's axes.
    /// - Throws: `IIOError` (`noSensor`, `unreadableAttribute`, `malformedAttribute`).
    public func readAccelerometer(timestamp: Double) throws(IIOError) -> AccelerometerData {
        AccelerometerData(acceleration: Acceleration(try read(.accel) / -standardGravity), timestamp: timestamp)
    }

    /// Reads one gyroscope sample.
    /// - Parameter timestamp: Seconds.
    /// - Returns: The rotation rate in rad/s, in the device's axes.
    /// - Throws: `IIOError`.
    public func readGyro(timestamp: Double) throws(IIOError) -> GyroData {
        GyroData(rotationRate: RotationRate(try read(.anglvel)), timestamp: timestamp)
    }

    /// Reads one magnetometer sample.
    /// - Parameter timestamp: Seconds.
    /// - Returns: The field in µT (Gauss × 100), in the device's axes.
    /// - Throws: `IIOError`.
    public func readMagnetometer(timestamp: Double) throws(IIOError) -> MagnetometerData {
        MagnetometerData(magneticField: MagneticField(try read(.magn) * 100), timestamp: timestamp)
    }

    /// The sampling frequency of a sensor, Hz (`in_<type>_sampling_frequency` or `sampling_frequency`).
    /// - Parameter type: The channel type.
    /// - Returns: The frequency, or `nil` when the device has no such attribute.
    /// - Throws: `IIOError` when there is no such sensor or the attribute is unreadable or malformed.
    public func samplingFrequency(of type: IIOChannelType) throws(IIOError) -> Double? {
        let device = try device(type)
        guard let url = Self.samplingFrequencyURL(device, type) else { return nil }
        return try Self.readNumber(url)
    }

    /// Sets the sampling frequency of a sensor, where the attribute is writable.
    /// - Parameters:
    ///   - hertz: The frequency, Hz; the driver may round it (read it back with `samplingFrequency(of:)`).
    ///   - type: The channel type.
    /// - Throws: `IIOError.notWritable` when there is no such attribute or it is read-only (writing sysfs
    ///   usually needs root or a udev rule); `noSensor`.
    public func setSamplingFrequency(_ hertz: Double, of type: IIOChannelType) throws(IIOError) {
        let device = try device(type)
        guard let url = Self.samplingFrequencyURL(device, type),
            FileManager.default.isWritableFile(atPath: url.path)
        else {
            throw IIOError(
                .notWritable,
                "the \(type.rawValue) sampling frequency is not writable here. To fix, run with permission to write "
                    + "sysfs (for example a udev rule), or keep the driver's frequency",
                path: device.url.appendingPathComponent("sampling_frequency").path)
        }
        do {
            try Data("\(hertz)\n".utf8).write(to: url)
        } catch {
            throw IIOError(
                .notWritable,
                "the driver refused the sampling frequency \(hertz) Hz. To fix, use one of "
                    + "sampling_frequency_available", path: url.path, underlying: "\(error)")
        }
    }

    /// The device's mount matrix for a channel type, row-major (identity when the device has none).
    /// - Parameter type: The channel type.
    /// - Returns: The matrix `M` with `v_device = M · v_sensor`.
    /// - Throws: `IIOError` (`noSensor`, `malformedAttribute`).
    public func mountMatrix(of type: IIOChannelType) throws(IIOError) -> RotationMatrix {
        let device = try device(type)
        for file in ["in_\(type.rawValue)_mount_matrix", "in_mount_matrix", "mount_matrix"] {
            let url = device.url.appendingPathComponent(file)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            let text = try Self.readText(url)
            let fields = text.split(separator: ";").flatMap { $0.split(separator: ",") }
            let m = fields.compactMap { Double($0.trimmingWhitespace()) }.filter(\.isFinite)
            guard fields.count == 9, m.count == 9 else {
                throw IIOError(
                    .malformedAttribute,
                    "expected a mount matrix \"a, b, c; d, e, f; g, h, i\" (nine numbers), found \"\(text)\"",
                    path: url.path)
            }
            return RotationMatrix(
                m11: m[0], m12: m[1], m13: m[2], m21: m[3], m22: m[4], m23: m[5], m31: m[6], m32: m[7], m33: m[8])
        }
        return .identity
    }

    private func device(_ type: IIOChannelType) throws(IIOError) -> IIODevice {
        guard let device = chosen[type] else {
            throw IIOError(
                .noSensor,
                "no IIO device has in_\(type.rawValue)_x_raw, in_\(type.rawValue)_y_raw and in_\(type.rawValue)_z_raw. "
                    + "To fix, check that the sensor's driver is loaded", path: root.path)
        }
        return device
    }

    /// The scaled vector in the device's axes, in the channel's IIO unit.
    private func read(_ type: IIOChannelType) throws(IIOError) -> SIMD3<Double> {
        let device = try device(type)
        var v = SIMD3<Double>()
        for (i, axis) in ["x", "y", "z"].enumerated() {
            let prefix = "in_\(type.rawValue)"
            let raw = try Self.readNumber(device.url.appendingPathComponent("\(prefix)_\(axis)_raw"))
            let scale = try Self.attribute(device, ["\(prefix)_\(axis)_scale", "\(prefix)_scale"]) ?? 1
            let offset = try Self.attribute(device, ["\(prefix)_\(axis)_offset", "\(prefix)_offset"]) ?? 0
            v[i] = (raw + offset) * scale
        }
        return try mountMatrix(of: type).multiplied(by: v)
    }

    private static func samplingFrequencyURL(_ device: IIODevice, _ type: IIOChannelType) -> URL? {
        ["in_\(type.rawValue)_sampling_frequency", "sampling_frequency"].lazy.map {
            device.url.appendingPathComponent($0)
        }.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    private static func attribute(_ device: IIODevice, _ files: [String]) throws(IIOError) -> Double? {
        for file in files {
            let url = device.url.appendingPathComponent(file)
            if FileManager.default.fileExists(atPath: url.path) { return try readNumber(url) }
        }
        return nil
    }

    private static func readText(_ url: URL) throws(IIOError) -> String {
        do {
            return try String(contentsOf: url, encoding: .utf8).trimmingWhitespace(includingNewlines: true)
        } catch {
            throw IIOError(
                .unreadableAttribute, "cannot read the attribute. To fix, check the permissions of the sysfs file",
                path: url.path, underlying: "\(error)")
        }
    }

    private static func readNumber(_ url: URL) throws(IIOError) -> Double {
        let text = try readText(url)
        guard let value = Double(text), value.isFinite else {
            throw IIOError(.malformedAttribute, "expected a decimal number, found \"\(text)\"", path: url.path)
        }
        return value
    }
}

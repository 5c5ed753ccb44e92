import DeviceMotion
import MotionCore

/// One HTTP push of the Sensor Logger phone app, as it sends it to `POST /sensorlogger`:
/// `{"messageId": n, "sessionId": "…", "deviceId": "…", "payload": [{"name": "accelerometer",
/// "time": <UTC epoch ns>, "values": {"x": …, "y": …, "z": …}}, …]}`.
///
/// Sensors with `x`, `y`, `z` values: `totalacceleration`, `accelerometer` (without gravity), `gravity`
/// (m/s²), `gyroscope` (rad/s), `magnetometer` (µT), each in the device's axes as in the app's CSV exports.
/// `orientation` (quaternion and Euler angles) is checked and not used (the host estimates attitude itself);
/// any other sensor (barometer, location, battery, …) is counted in ``ignored`` and skipped.
public struct SensorLoggerPush: Sendable, Equatable {
    /// A sensor whose readings feed device motion.
    public enum Sensor: String, Sendable, CaseIterable {
        /// Accelerometer with gravity, m/s².
        case totalAcceleration = "totalacceleration"
        /// Gyroscope, rad/s.
        case gyroscope
        /// Magnetometer, µT.
        case magnetometer
    }

    /// One reading.
    public struct Sample: Sendable, Equatable {
        /// Which sensor.
        public var sensor: Sensor
        /// When, nanoseconds since the Unix epoch (UTC), as the app sends it (read through a JSON number, so
        /// exact to about 256 ns at today's dates; a string of digits is read exactly).
        public var time: Int64
        /// x, y, z in the sensor's unit.
        public var vector: SIMD3<Double>
    }

    /// The app's message counter, if sent.
    public var messageID: Int?
    /// The app's recording session, if sent.
    public var sessionID: String?
    /// The readings that feed device motion, in time order (stable for equal times).
    public var samples: [Sample]
    /// Readings skipped, by sensor name (`accelerometer`, `gravity`, `orientation` and sensors the host does
    /// not use).
    public var ignored: [String: Int]

    /// Checks and reads a push.
    /// - Parameter bytes: The request body.
    /// - Throws: ``LiveRefusal`` 400 naming the field (`$.payload[3].values.x: expected a number, found "a"`);
    ///   nothing of a refused push is used.
    public init(parsing bytes: [UInt8]) throws(LiveRefusal) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw LiveRefusal(400, "$: " + error.message)
        }
        guard case .object(let object) = root else {
            throw LiveRefusal(400, "$: expected an object {\"messageId\", \"sessionId\", \"deviceId\", \"payload\": [...]}")
        }
        if let id = object["messageId"] {
            guard case .number(let n) = id, n == n.rounded() else {
                throw LiveRefusal(400, "$.messageId: expected an integer, found \(JSONText.value(id))")
            }
            messageID = Int(exactly: n)
        }
        if let session = object["sessionId"] {
            guard case .string(let text) = session else {
                throw LiveRefusal(400, "$.sessionId: expected a string, found \(JSONText.value(session))")
            }
            sessionID = text
        }
        guard case .array(let payload)? = object["payload"] else {
            throw LiveRefusal(
                400,
                object["payload"] == nil
                    ? "$.payload: missing; this field is required"
                    : "$.payload: expected an array of readings, found \(JSONText.value(object["payload"]!))")
        }
        var samples: [Sample] = []
        var ignored: [String: Int] = [:]
        for (i, entry) in payload.enumerated() {
            let path = "$.payload[\(i)]"
            guard case .object(let reading) = entry else {
                throw LiveRefusal(400, "\(path): expected a reading {\"name\", \"time\", \"values\"}, found \(JSONText.value(entry))")
            }
            guard case .string(let rawName)? = reading["name"] else {
                throw LiveRefusal(400, "\(path).name: expected a sensor name such as \"accelerometer\"")
            }
            let name = rawName.lowercased()
            let time = try Self.time(reading["time"], path: "\(path).time")
            guard case .object(let values)? = reading["values"] else {
                throw LiveRefusal(400, "\(path).values: expected an object of the sensor's values")
            }
            let axes = ["x", "y", "z"]
            switch name {
            case "totalacceleration", "gyroscope", "magnetometer", "accelerometer", "gravity":
                var vector = SIMD3<Double>()
                for (axis, key) in axes.enumerated() {
                    guard case .number(let n)? = values[key], n.isFinite else {
                        throw LiveRefusal(
                            400,
                            "\(path).values.\(key): expected a number, found \(values[key].map { JSONText.value($0) } ?? "nothing")")
                    }
                    vector[axis] = n
                }
                if let sensor = Sensor(rawValue: name) {
                    samples.append(Sample(sensor: sensor, time: time, vector: vector))
                } else {
                    ignored[name, default: 0] += 1
                }
            default:
                ignored[name, default: 0] += 1
            }
        }
        self.samples = samples.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        self.ignored = ignored
    }

    private static func time(_ node: JSONValue?, path: String) throws(LiveRefusal) -> Int64 {
        switch node {
        case .number(let n) where n.isFinite && n >= 0 && n < 9.2e18:
            return Int64(n)
        case .string(let text) where Int64(text).map { $0 >= 0 } == true:
            return Int64(text)!
        default:
            throw LiveRefusal(
                400,
                "\(path): expected nanoseconds since the Unix epoch (a number ≥ 0), found \(node.map { JSONText.value($0) } ?? "nothing")")
        }
    }
}

/// Turns Sensor Logger pushes into Core Motion device-motion samples as they come: accelerations to g and
/// Core Motion's sign (``SensorLoggerUnits``, as for the app's CSV exports), then ``SensorFusion``
/// (attitude, gravity, user acceleration) at each total-acceleration reading, with the latest gyroscope and
/// magnetometer readings at or before it.
///
/// Timestamps are seconds since the first reading of the first push. A reading older than one already
/// fused (a push that arrives late) is counted in ``lateSamples`` and skipped, so time never runs back.
public struct SensorLoggerStream: Sendable {
    /// The attitude reference frame.
    public let referenceFrame: ReferenceFrame
    /// Whether the phone is an Android one (specific force, +g up) rather than an iPhone.
    public let isAndroid: Bool
    private var fusion: SensorFusion
    private var origin: Int64?
    private var lastTime = Int64.min
    private var rotationRate: RotationRate?
    private var magneticField: MagneticField?
    /// Readings skipped because they were older than one already fused.
    public private(set) var lateSamples = 0

    /// A stream.
    /// - Parameters:
    ///   - referenceFrame: Any frame but `xTrueNorthZVertical`.
    ///   - isAndroid: The phone's platform (the app's pushes do not say).
    ///   - sampleInterval: The app's sampling interval, seconds (100 Hz: 0.01).
    /// - Returns: `nil` for `xTrueNorthZVertical`.
    public init?(referenceFrame: ReferenceFrame, isAndroid: Bool, sampleInterval: Double = 0.01) {
        guard let fusion = SensorFusion(referenceFrame: referenceFrame, sampleInterval: sampleInterval) else { return nil }
        self.referenceFrame = referenceFrame
        self.isAndroid = isAndroid
        self.fusion = fusion
    }

    /// Fuses one push.
    /// - Parameter push: A checked push.
    /// - Returns: One device-motion sample per total-acceleration reading after the first gyroscope one, in
    ///   time order, timestamps in seconds since the stream's first reading.
    public mutating func add(_ push: SensorLoggerPush) -> [DeviceMotion] {
        var result: [DeviceMotion] = []
        for sample in push.samples {
            guard sample.time >= lastTime else {
                lateSamples += 1
                continue
            }
            lastTime = sample.time
            let origin = self.origin ?? sample.time
            self.origin = origin
            switch sample.sensor {
            case .gyroscope: rotationRate = RotationRate(sample.vector)
            case .magnetometer: magneticField = MagneticField(sample.vector)
            case .totalAcceleration:
                guard let rotationRate else { continue }
                result.append(
                    fusion.update(
                        timestamp: Double(sample.time - origin) / 1e9,
                        acceleration: SensorLoggerUnits.acceleration(sample.vector, isAndroid: isAndroid),
                        rotationRate: rotationRate, magneticField: magneticField))
            }
        }
        return result
    }
}

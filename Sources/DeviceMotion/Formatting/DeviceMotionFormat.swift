/// Text forms of a `DeviceMotion` sample, for the CLI (`motion-host device-motion RECORDING`) and for files.
///
/// - `json`: one JSON object per sample (JSON Lines), keys as Core Motion's properties:
///   `{"timestamp":…,"attitude":{"quaternion":{"x":…,"y":…,"z":…,"w":…},"roll":…,"pitch":…,"yaw":…},
///   "gravity":{"x":…,"y":…,"z":…},"userAcceleration":{…},"rotationRate":{…},
///   "magneticField":{"field":{…},"accuracy":-1},"heading":-1}`. Roll, pitch and yaw are in radians and are
///   derived from the quaternion; `JSONDecoder` reads the object back as a `DeviceMotion`.
/// - `csv`: one row per sample under `header`, the iPhone CMDeviceMotion CSV columns plus `heading`, so
///   `Recording.read(contentsOf:)` reads such a file back.
///
/// Numbers are printed with Swift's shortest round-trip form; a non-finite number is `null` in JSON and an
/// empty field in CSV. Units: seconds, g, rad/s, µT, degrees.
public enum DeviceMotionFormat: String, Hashable, Sendable, CaseIterable {
    /// A JSON object per sample.
    case json
    /// A CSV row per sample, after `header`.
    case csv

    /// The CSV header line (without a line break), or `nil` for JSON.
    public var header: String? {
        switch self {
        case .json: nil
        case .csv:
            "timestamp,attitude.quaternion.x,attitude.quaternion.y,attitude.quaternion.z,attitude.quaternion.w,"
                + "gravity.x,gravity.y,gravity.z,userAcceleration.x,userAcceleration.y,userAcceleration.z,"
                + "rotationRate.x,rotationRate.y,rotationRate.z,magneticField.field.x,magneticField.field.y,"
                + "magneticField.field.z,magneticField.accuracy,heading"
        }
    }
}

extension DeviceMotion {
    /// This sample as one JSON object or one CSV row (no line break).
    /// - Parameter format: `.json` or `.csv` (see `DeviceMotionFormat` for the layout).
    /// - Returns: The text.
    public func formatted(as format: DeviceMotionFormat) -> String {
        let q = attitude.quaternion
        switch format {
        case .csv:
            let values = [
                timestamp, q.x, q.y, q.z, q.w, gravity.x, gravity.y, gravity.z, userAcceleration.x, userAcceleration.y,
                userAcceleration.z, rotationRate.x, rotationRate.y, rotationRate.z, magneticField.field.x,
                magneticField.field.y, magneticField.field.z,
            ]
            var row = values.map { $0.isFinite ? "\($0)" : "" }.joined(separator: ",")
            row += ",\(magneticField.accuracy.rawValue),"
            row += heading.isFinite ? "\(heading)" : ""
            return row
        case .json:
            func n(_ value: Double) -> String { value.isFinite ? "\(value)" : "null" }
            func v(_ x: Double, _ y: Double, _ z: Double) -> String { "{\"x\":\(n(x)),\"y\":\(n(y)),\"z\":\(n(z))}" }
            let f = magneticField.field
            return "{\"timestamp\":\(n(timestamp)),"
                + "\"attitude\":{\"quaternion\":{\"x\":\(n(q.x)),\"y\":\(n(q.y)),\"z\":\(n(q.z)),\"w\":\(n(q.w))},"
                + "\"roll\":\(n(attitude.roll)),\"pitch\":\(n(attitude.pitch)),\"yaw\":\(n(attitude.yaw))},"
                + "\"gravity\":\(v(gravity.x, gravity.y, gravity.z)),"
                + "\"userAcceleration\":\(v(userAcceleration.x, userAcceleration.y, userAcceleration.z)),"
                + "\"rotationRate\":\(v(rotationRate.x, rotationRate.y, rotationRate.z)),"
                + "\"magneticField\":{\"field\":\(v(f.x, f.y, f.z)),\"accuracy\":\(magneticField.accuracy.rawValue)},"
                + "\"heading\":\(n(heading))}"
        }
    }
}

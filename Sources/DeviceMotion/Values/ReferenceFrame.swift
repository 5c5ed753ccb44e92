/// The frame an attitude is measured against (`CMAttitudeReferenceFrame`, same raw values).
///
/// Every frame has a vertical z axis (pointing up, away from gravity); they differ in where x points and in
/// which sensors they need. What each needs here, and what is not available on Linux:
///
/// | frame | x axis | needs | on Linux |
/// |---|---|---|---|
/// | `xArbitraryZVertical` | the device's horizontal heading when updates start; drifts slowly | accelerometer + gyroscope (6-axis) | yes |
/// | `xArbitraryCorrectedZVertical` | as above, with yaw drift corrected by the magnetometer | + magnetometer (9-axis) | yes, with a magnetometer |
/// | `xMagneticNorthZVertical` | magnetic north (so y points west) | + magnetometer (9-axis) | yes, with a magnetometer |
/// | `xTrueNorthZVertical` | true (geographic) north | + magnetometer + the device's location (magnetic declination) | **no**: there is no location service here |
///
/// A recording that already holds attitudes (the iPhone CMDeviceMotion CSV) offers only the frame it was
/// recorded in.
public enum ReferenceFrame: UInt32, Hashable, Sendable, Codable, CaseIterable {
    /// z vertical, x arbitrary in the horizontal plane (raw value 1).
    case xArbitraryZVertical = 1
    /// z vertical, x arbitrary, yaw corrected with the magnetometer (raw value 2).
    case xArbitraryCorrectedZVertical = 2
    /// z vertical, x toward magnetic north (raw value 4).
    case xMagneticNorthZVertical = 4
    /// z vertical, x toward true north (raw value 8); never available on Linux.
    case xTrueNorthZVertical = 8

    /// The frame's Core Motion name, e.g. `"xArbitraryZVertical"` (used by the CLI's `--reference-frame`).
    public var name: String {
        switch self {
        case .xArbitraryZVertical: "xArbitraryZVertical"
        case .xArbitraryCorrectedZVertical: "xArbitraryCorrectedZVertical"
        case .xMagneticNorthZVertical: "xMagneticNorthZVertical"
        case .xTrueNorthZVertical: "xTrueNorthZVertical"
        }
    }

    /// Finds a frame by its Core Motion name (case-insensitive; the `CMAttitudeReferenceFrame` prefix
    /// `"CMAttitudeReferenceFrame"` is accepted too).
    /// - Parameter name: For example `"xMagneticNorthZVertical"` or `"CMAttitudeReferenceFrameXArbitraryZVertical"`.
    /// - Returns: The frame, or `nil` when the name is not one of the four.
    public init?(name: String) {
        var key = name.lowercased()
        let prefix = "cmattitudereferenceframe"
        if key.hasPrefix(prefix) { key.removeFirst(prefix.count) }
        guard let frame = ReferenceFrame.allCases.first(where: { $0.name.lowercased() == key }) else { return nil }
        self = frame
    }

    /// Whether the frame needs a magnetometer.
    public var needsMagnetometer: Bool { self != .xArbitraryZVertical }
}

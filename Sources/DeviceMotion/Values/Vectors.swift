/// A vector along or about the device's axes (x to the right of the screen, y to its top, z out of it),
/// as Core Motion's `CMAcceleration`, `CMRotationRate` and `CMMagneticField` are: three types of one shape,
/// each in its own unit.
public protocol DeviceAxesVector: Hashable, Sendable, Codable {
    /// The x component, in the type's unit.
    var x: Double { get set }
    /// The y component, in the type's unit.
    var y: Double { get set }
    /// The z component, in the type's unit.
    var z: Double { get set }
    /// Creates a value from its components, in the type's unit.
    init(x: Double, y: Double, z: Double)
}

extension DeviceAxesVector {
    /// Creates a value from a vector `(x, y, z)` in the type's unit.
    public init(_ vector: SIMD3<Double>) { self.init(x: vector.x, y: vector.y, z: vector.z) }

    /// The components as a vector `(x, y, z)`, in the type's unit.
    public var vector: SIMD3<Double> { SIMD3(x, y, z) }

    /// The zero value (for a magnetic field, what Core Motion reports when the reference frame does not use
    /// the magnetometer).
    public static var zero: Self { Self(x: 0, y: 0, z: 0) }
}

/// An acceleration along the device's axes, in g (`CMAcceleration`; 1 g = 9.80665 m/s²).
///
/// Sign (Core Motion's): a device lying still face up reads `(0, 0, −1)` on its accelerometer, that is,
/// the reading points along gravity. Android and most IMUs use the opposite ("specific force") sign.
public struct Acceleration: DeviceAxesVector {
    /// Along the device's x axis (to the right of the screen), g.
    public var x: Double
    /// Along the device's y axis (to the top of the screen), g.
    public var y: Double
    /// Along the device's z axis (out of the screen), g.
    public var z: Double

    /// Creates an acceleration from its components, in g.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// A rotation rate about the device's axes, in rad/s, right-hand rule (`CMRotationRate`).
public struct RotationRate: DeviceAxesVector {
    /// About the device's x axis, rad/s.
    public var x: Double
    /// About the device's y axis, rad/s.
    public var y: Double
    /// About the device's z axis, rad/s.
    public var z: Double

    /// Creates a rotation rate from its components, in rad/s.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// A magnetic field along the device's axes, in microtesla (µT) (`CMMagneticField`).
public struct MagneticField: DeviceAxesVector {
    /// Along the device's x axis, µT.
    public var x: Double
    /// Along the device's y axis, µT.
    public var y: Double
    /// Along the device's z axis, µT.
    public var z: Double

    /// Creates a magnetic field from its components, in µT.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// How well the magnetometer is calibrated (`CMMagneticFieldCalibrationAccuracy`, same raw values).
public enum MagneticFieldCalibrationAccuracy: Int32, Hashable, Sendable, Codable, CaseIterable {
    /// Not calibrated, or not measured (raw value −1).
    case uncalibrated = -1
    /// Low accuracy (raw value 0).
    case low = 0
    /// Medium accuracy (raw value 1).
    case medium = 1
    /// High accuracy (raw value 2).
    case high = 2
}

/// A magnetic field with its calibration accuracy (`CMCalibratedMagneticField`).
///
/// This library performs no magnetometer calibration of its own: values read from recordings carry the
/// accuracy the recording states, and values computed from raw sensors are `.uncalibrated`.
public struct CalibratedMagneticField: Hashable, Sendable, Codable {
    /// The field along the device's axes, µT.
    public var field: MagneticField
    /// The calibration accuracy.
    public var accuracy: MagneticFieldCalibrationAccuracy

    /// Creates a calibrated field.
    /// - Parameters:
    ///   - field: The field, µT.
    ///   - accuracy: Its calibration accuracy.
    public init(field: MagneticField, accuracy: MagneticFieldCalibrationAccuracy) {
        self.field = field
        self.accuracy = accuracy
    }

    /// What Core Motion reports in a reference frame that does not use the magnetometer: a zero field,
    /// `.uncalibrated`.
    public static let unavailable = CalibratedMagneticField(field: .zero, accuracy: .uncalibrated)
}

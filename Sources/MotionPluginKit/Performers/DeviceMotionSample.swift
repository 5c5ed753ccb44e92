import CMotionABI

/// One device-motion sample, mirroring `motion_device_motion_sample` and Core Motion's `CMDeviceMotion`
/// field by field, in its units and conventions.
public struct DeviceMotionSample: Hashable, Sendable {
    /// A three-component vector in device axes (x right, y up the screen, z out of the screen).
    public struct Vector: Hashable, Sendable {
        /// x component.
        public var x: Double
        /// y component.
        public var y: Double
        /// z component.
        public var z: Double

        /// Creates a vector.
        /// - Parameters:
        ///   - x: x component.
        ///   - y: y component.
        ///   - z: z component.
        public init(x: Double, y: Double, z: Double) {
            self.x = x
            self.y = y
            self.z = z
        }
    }

    /// A unit quaternion (x, y, z, w) rotating device axes into the reference frame (`CMQuaternion`), with
    /// Core Motion's `roll`, `pitch` and `yaw`: MotionValues' `Quaternion`, the type DeviceMotion uses too.
    public typealias Quaternion = MotionValues.Quaternion

    /// The magnetometer's calibration accuracy (`CMMagneticFieldCalibrationAccuracy` raw values).
    public struct MagneticFieldAccuracy: RawRepresentable, Hashable, Sendable {
        /// The raw value: -1 uncalibrated, 0 low, 1 medium, 2 high.
        public let rawValue: Int32
        /// Wraps a raw value.
        /// - Parameter rawValue: a `MOTION_MAGNETIC_FIELD_ACCURACY_*` value.
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Not calibrated (-1).
        public static let uncalibrated = Self(rawValue: MOTION_MAGNETIC_FIELD_ACCURACY_UNCALIBRATED)
        /// Low accuracy (0).
        public static let low = Self(rawValue: MOTION_MAGNETIC_FIELD_ACCURACY_LOW)
        /// Medium accuracy (1).
        public static let medium = Self(rawValue: MOTION_MAGNETIC_FIELD_ACCURACY_MEDIUM)
        /// High accuracy (2).
        public static let high = Self(rawValue: MOTION_MAGNETIC_FIELD_ACCURACY_HIGH)
    }

    /// The reference frame the attitude is expressed in (`CMAttitudeReferenceFrame` raw values).
    public struct ReferenceFrame: RawRepresentable, Hashable, Sendable {
        /// The raw value: 1, 2, 4 or 8.
        public let rawValue: Int32
        /// Wraps a raw value.
        /// - Parameter rawValue: a `MOTION_REFERENCE_FRAME_*` value.
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Z vertical, X arbitrary in the horizontal plane (1).
        public static let xArbitraryZVertical = Self(rawValue: MOTION_REFERENCE_FRAME_X_ARBITRARY_Z_VERTICAL)
        /// As `xArbitraryZVertical`, with the magnetometer correcting yaw drift (2).
        public static let xArbitraryCorrectedZVertical = Self(
            rawValue: MOTION_REFERENCE_FRAME_X_ARBITRARY_CORRECTED_Z_VERTICAL)
        /// Z vertical, X towards magnetic north (4).
        public static let xMagneticNorthZVertical = Self(rawValue: MOTION_REFERENCE_FRAME_X_MAGNETIC_NORTH_Z_VERTICAL)
        /// Z vertical, X towards true north (8).
        public static let xTrueNorthZVertical = Self(rawValue: MOTION_REFERENCE_FRAME_X_TRUE_NORTH_Z_VERTICAL)
    }

    /// s, monotonic (`CMLogItem.timestamp`).
    public var timestamp: Double
    /// Device → reference frame rotation (`CMAttitude.quaternion`).
    public var attitude: Quaternion
    /// Gravity in device axes, g (`CMDeviceMotion.gravity`).
    public var gravity: Vector
    /// Acceleration the user gives the device, g (`CMDeviceMotion.userAcceleration`).
    public var userAcceleration: Vector
    /// Rotation rate about the device axes, rad/s (`CMDeviceMotion.rotationRate`).
    public var rotationRate: Vector
    /// Calibrated magnetic field, µT (`CMDeviceMotion.magneticField.field`).
    public var magneticField: Vector
    /// Its accuracy (`CMDeviceMotion.magneticField.accuracy`).
    public var magneticFieldAccuracy: MagneticFieldAccuracy
    /// The reference frame of `attitude`.
    public var referenceFrame: ReferenceFrame
    /// Degrees clockwise from north in [0, 360), or -1 when unknown (`CMDeviceMotion.heading`).
    public var heading: Double

    /// Creates a sample.
    /// - Parameters:
    ///   - timestamp: s.
    ///   - attitude: device → reference frame quaternion.
    ///   - gravity: g, device axes.
    ///   - userAcceleration: g, device axes.
    ///   - rotationRate: rad/s, device axes.
    ///   - magneticField: µT.
    ///   - magneticFieldAccuracy: calibration accuracy.
    ///   - referenceFrame: the attitude's reference frame.
    ///   - heading: degrees in [0, 360), or -1 when unknown.
    public init(
        timestamp: Double, attitude: Quaternion, gravity: Vector, userAcceleration: Vector, rotationRate: Vector,
        magneticField: Vector, magneticFieldAccuracy: MagneticFieldAccuracy, referenceFrame: ReferenceFrame,
        heading: Double
    ) {
        self.timestamp = timestamp
        self.attitude = attitude
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.rotationRate = rotationRate
        self.magneticField = magneticField
        self.magneticFieldAccuracy = magneticFieldAccuracy
        self.referenceFrame = referenceFrame
        self.heading = heading
    }

    /// Converts the C sample (fields not covered by its struct_size already zeroed by the caller).
    init(_ c: motion_device_motion_sample) {
        self.init(
            timestamp: c.timestamp,
            attitude: Quaternion(x: c.attitude_x, y: c.attitude_y, z: c.attitude_z, w: c.attitude_w),
            gravity: Vector(x: c.gravity_x, y: c.gravity_y, z: c.gravity_z),
            userAcceleration: Vector(x: c.user_acceleration_x, y: c.user_acceleration_y, z: c.user_acceleration_z),
            rotationRate: Vector(x: c.rotation_rate_x, y: c.rotation_rate_y, z: c.rotation_rate_z),
            magneticField: Vector(x: c.magnetic_field_x, y: c.magnetic_field_y, z: c.magnetic_field_z),
            magneticFieldAccuracy: MagneticFieldAccuracy(rawValue: c.magnetic_field_accuracy),
            referenceFrame: ReferenceFrame(rawValue: c.reference_frame),
            heading: c.heading)
    }
}

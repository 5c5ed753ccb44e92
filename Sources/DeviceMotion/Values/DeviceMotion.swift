/// A value that happened at a time: every sample type a recording or a motion manager delivers.
public protocol TimestampedSample: Sendable {
    /// When the sample was taken, seconds (Core Motion: `CMLogItem.timestamp`, seconds since boot; a
    /// recording keeps the time base it was written with).
    var timestamp: Double { get }
}

/// One processed device-motion sample: attitude, gravity, user acceleration, rotation rate, magnetic field
/// and heading (`CMDeviceMotion`).
///
/// Relations that hold on every sample (as on Core Motion's, checked on the iPhone recording):
/// `gravity = R(q)ᵀ · (0, 0, −1)` for the attitude quaternion `q`, and `gravity + userAcceleration` is the
/// accelerometer reading (Core Motion's sign, g).
///
/// Thread rule: a value type; safe to use from any thread.
public struct DeviceMotion: Hashable, Sendable, Codable, TimestampedSample {
    /// The device's orientation relative to the reference frame the updates were started with.
    public var attitude: Attitude
    /// Gravity in the device frame, g (a unit vector pointing down).
    public var gravity: Acceleration
    /// The acceleration the user gives the device, with gravity removed, g.
    public var userAcceleration: Acceleration
    /// The device's rotation rate about its own axes, rad/s.
    public var rotationRate: RotationRate
    /// The magnetic field with its calibration accuracy, µT; zero and `.uncalibrated` when the reference
    /// frame does not use the magnetometer (as on Core Motion).
    public var magneticField: CalibratedMagneticField
    /// The heading, degrees clockwise from north in `[0, 360)`, or `−1` when the reference frame has no
    /// north (the arbitrary frames) (`CMDeviceMotion.heading`).
    ///
    /// Computed here as the direction of the device's +y axis (the top of the screen) projected onto the
    /// horizontal plane, as `CLHeading` does for a device in portrait; it is ill-defined when +y is vertical.
    public var heading: Double
    /// When the sample was taken, seconds.
    public var timestamp: Double

    /// Creates a device-motion sample.
    /// - Parameters:
    ///   - attitude: Orientation, device → reference frame.
    ///   - gravity: Gravity in the device frame, g.
    ///   - userAcceleration: Acceleration without gravity, g.
    ///   - rotationRate: Rotation rate, rad/s.
    ///   - magneticField: Magnetic field and accuracy, µT.
    ///   - heading: Degrees in `[0, 360)`, or `−1` when unknown.
    ///   - timestamp: Seconds.
    public init(
        attitude: Attitude,
        gravity: Acceleration,
        userAcceleration: Acceleration,
        rotationRate: RotationRate,
        magneticField: CalibratedMagneticField = .unavailable,
        heading: Double = -1,
        timestamp: Double
    ) {
        self.attitude = attitude
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.rotationRate = rotationRate
        self.magneticField = magneticField
        self.heading = heading
        self.timestamp = timestamp
    }
}

/// One accelerometer sample (`CMAccelerometerData`).
public struct AccelerometerData: Hashable, Sendable, Codable, TimestampedSample {
    /// The acceleration including gravity, g, Core Motion's sign (`(0, 0, −1)` lying still face up).
    public var acceleration: Acceleration
    /// When the sample was taken, seconds.
    public var timestamp: Double

    /// Creates an accelerometer sample.
    /// - Parameters:
    ///   - acceleration: g, Core Motion's sign.
    ///   - timestamp: Seconds.
    public init(acceleration: Acceleration, timestamp: Double) {
        self.acceleration = acceleration
        self.timestamp = timestamp
    }
}

/// One gyroscope sample (`CMGyroData`).
public struct GyroData: Hashable, Sendable, Codable, TimestampedSample {
    /// The rotation rate about the device's axes, rad/s.
    public var rotationRate: RotationRate
    /// When the sample was taken, seconds.
    public var timestamp: Double

    /// Creates a gyroscope sample.
    /// - Parameters:
    ///   - rotationRate: rad/s.
    ///   - timestamp: Seconds.
    public init(rotationRate: RotationRate, timestamp: Double) {
        self.rotationRate = rotationRate
        self.timestamp = timestamp
    }
}

/// One magnetometer sample (`CMMagnetometerData`).
public struct MagnetometerData: Hashable, Sendable, Codable, TimestampedSample {
    /// The magnetic field along the device's axes, µT.
    public var magneticField: MagneticField
    /// When the sample was taken, seconds.
    public var timestamp: Double

    /// Creates a magnetometer sample.
    /// - Parameters:
    ///   - magneticField: µT.
    ///   - timestamp: Seconds.
    public init(magneticField: MagneticField, timestamp: Double) {
        self.magneticField = magneticField
        self.timestamp = timestamp
    }
}

/// The parts of a `CMDeviceMotion` sample that a recording holds when it does not hold all of them.
///
/// - The CoreMotion-Data-Logger logs hold rotation rate and user acceleration only (no attitude, no gravity).
/// - Sensor Logger exports hold the platform's own gravity and user (linear) acceleration, converted to
///   Core Motion's units and sign, but no attitude (its Orientation.csv is not read).
/// A field is `nil` when the recording does not have it.
public struct PartialDeviceMotion: Hashable, Sendable, Codable, TimestampedSample {
    /// Gravity in the device frame, g, or `nil`.
    public var gravity: Acceleration?
    /// User acceleration, g, or `nil`.
    public var userAcceleration: Acceleration?
    /// Rotation rate, rad/s, or `nil`.
    public var rotationRate: RotationRate?
    /// When the sample was taken, seconds.
    public var timestamp: Double

    /// Creates a partial sample.
    /// - Parameters:
    ///   - gravity: g, or `nil`.
    ///   - userAcceleration: g, or `nil`.
    ///   - rotationRate: rad/s, or `nil`.
    ///   - timestamp: Seconds.
    public init(
        gravity: Acceleration? = nil,
        userAcceleration: Acceleration? = nil,
        rotationRate: RotationRate? = nil,
        timestamp: Double
    ) {
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.rotationRate = rotationRate
        self.timestamp = timestamp
    }
}

/// A ground-truth orientation that comes with a benchmark recording (BROAD's optical reference).
public struct ReferenceOrientation: Hashable, Sendable, Codable, TimestampedSample {
    /// The reference orientation, IMU frame → East-North-Up (w first in the file), or `nil` where the
    /// optical system lost the marker.
    ///
    /// East-North-Up is not a Core Motion frame: to compare with `xMagneticNorthZVertical` (North-West-Up)
    /// attitudes, use `Quaternion.aboutZ(-.pi / 2) * quaternion`.
    public var quaternion: Quaternion?
    /// Whether the sample belongs to a movement phase (BROAD computes its errors on these only).
    public var isMovement: Bool
    /// When the sample was taken, seconds.
    public var timestamp: Double

    /// Creates a reference orientation.
    /// - Parameters:
    ///   - quaternion: IMU → ENU, or `nil`.
    ///   - isMovement: Whether the sample is in a movement phase.
    ///   - timestamp: Seconds.
    public init(quaternion: Quaternion?, isMovement: Bool, timestamp: Double) {
        self.quaternion = quaternion
        self.isMovement = isMovement
        self.timestamp = timestamp
    }
}

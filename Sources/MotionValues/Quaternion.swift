#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A rotation as a unit quaternion, in Core Motion's layout (`CMQuaternion`: `x`, `y`, `z`, `w`).
///
/// One type for DeviceMotion (`Attitude.quaternion`) and the plugin SDK (`DeviceMotionSample.attitude`),
/// which may not depend on each other; both re-export this module. Only what both need is here (the
/// components and Core Motion's angles), so plugins link little; DeviceMotion adds the algebra and `Codable`.
///
/// Convention (Apple's, checked on the iPhone recording in `shared/data/iphone-devicemotion`): the
/// quaternion rotates device-frame vectors into the reference frame, `v_ref = q · v_dev · q*`
/// (Hamilton product). Its rotation matrix `R(q)` is therefore device → reference; Core Motion's
/// `CMRotationMatrix` is the transpose of `R(q)`.
///
/// Thread rule: a value type; safe to use from any thread.
public struct Quaternion: Hashable, Sendable {
    /// The vector part, x component (unitless).
    public var x: Double
    /// The vector part, y component (unitless).
    public var y: Double
    /// The vector part, z component (unitless).
    public var z: Double
    /// The scalar part (unitless).
    public var w: Double

    /// Creates a quaternion from its components, in `CMQuaternion` order.
    public init(x: Double, y: Double, z: Double, w: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.w = w
    }

    /// The identity rotation, `(0, 0, 0, 1)`.
    public static let identity = Quaternion(x: 0, y: 0, z: 0, w: 1)

    // MARK: Euler angles, Core Motion's (`CMAttitude`), so that `q = q_z(yaw) · q_x(pitch) · q_y(roll)`

    /// Rotation about the device's x axis, radians, in `[−π/2, π/2]`: `asin(2(wx + yz))` (`CMAttitude.pitch`).
    public var pitch: Double { asin(min(1, max(-1, 2 * (w * x + y * z)))) }

    /// Rotation about the device's y axis, radians, in `(−π, π]`: `atan2(2(wy − xz), 1 − 2(x² + y²))`
    /// (`CMAttitude.roll`).
    public var roll: Double { atan2(2 * (w * y - x * z), 1 - 2 * (x * x + y * y)) }

    /// Rotation about the device's z axis, radians, in `(−π, π]`: `atan2(2(wz − xy), 1 − 2(x² + z²))`
    /// (`CMAttitude.yaw`).
    public var yaw: Double { atan2(2 * (w * z - x * y), 1 - 2 * (x * x + z * z)) }
}

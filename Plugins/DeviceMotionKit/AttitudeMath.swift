import MotionPluginKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Roll and pitch of an attitude quaternion, radians, with Core Motion's formulas (`CMAttitude`):
/// pitch (about the device's x axis) `= asin(2(wx + yz))` in `[−π/2, π/2]`,
/// roll (about y) `= atan2(2(wy − xz), 1 − 2(x² + y²))` in `(−π, π]`.
struct RollPitch: Equatable {
    /// rad.
    var roll: Double
    /// rad.
    var pitch: Double

    init(_ q: DeviceMotionSample.Quaternion) {
        pitch = asin(min(1, max(-1, 2 * (q.w * q.x + q.y * q.z))))
        roll = atan2(2 * (q.w * q.y - q.x * q.z), 1 - 2 * (q.x * q.x + q.y * q.y))
    }

    init(roll: Double, pitch: Double) {
        self.roll = roll
        self.pitch = pitch
    }

    /// The angles minus `reference`'s, the roll difference wrapped into `[−π, π]` (both angles are measured
    /// in the same vertical reference frame, so turning about the vertical does not leak into them).
    func relative(to reference: RollPitch) -> RollPitch {
        RollPitch(roll: remainder(roll - reference.roll, 2 * Double.pi), pitch: pitch - reference.pitch)
    }
}

/// `value` limited to `[−limit, limit]`.
func clamp(_ value: Double, _ limit: Double) -> Double {
    min(limit, max(-limit, value))
}

import MotionPluginKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Roll and pitch of an attitude quaternion, radians, with Core Motion's formulas (`CMAttitude`; written
/// once, on `Quaternion`).
struct RollPitch: Equatable {
    /// rad.
    var roll: Double
    /// rad.
    var pitch: Double

    init(_ q: DeviceMotionSample.Quaternion) {
        pitch = q.pitch
        roll = q.roll
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

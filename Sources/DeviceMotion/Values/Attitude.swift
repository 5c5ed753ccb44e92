import FoundationEssentials
import Glibc

/// The orientation of the device relative to a reference frame (`CMAttitude`).
///
/// Stored as a unit quaternion that rotates device-frame vectors into the reference frame; the rotation
/// matrix and the Euler angles are computed from it with Apple's conventions, which the tests check on a
/// real iPhone recording (`shared/data/iphone-devicemotion`):
/// - `rotationMatrix` is `CMRotationMatrix`, the transpose of `R(q)`;
/// - `pitch` (about the device's x axis) `= asin(2(wx + yz))`, in `[−π/2, π/2]`;
/// - `roll` (about y) `= atan2(2(wy − xz), 1 − 2(x² + y²))`, in `(−π, π]`;
/// - `yaw` (about z) `= atan2(2(wz − xy), 1 − 2(x² + z²))`, in `(−π, π]`;
/// so that `q = q_z(yaw) · q_x(pitch) · q_y(roll)` and gravity in the device frame is
/// `(cos(pitch) sin(roll), −sin(pitch), −cos(pitch) cos(roll))` g.
///
/// Thread rule: a value type; safe to use from any thread.
public struct Attitude: Hashable, Sendable, Codable {
    /// The attitude as a unit quaternion, device → reference frame (`CMAttitude.quaternion`).
    public var quaternion: Quaternion

    /// Creates an attitude from its quaternion.
    /// - Parameter quaternion: A unit quaternion rotating device-frame vectors into the reference frame.
    public init(quaternion: Quaternion) {
        self.quaternion = quaternion
    }

    /// The attitude that matches the reference frame (all angles 0).
    public static let identity = Attitude(quaternion: .identity)

    /// Core Motion's rotation matrix of this attitude (`CMAttitude.rotationMatrix`): the transpose of `R(q)`,
    /// mapping reference-frame vectors into the device frame.
    public var rotationMatrix: RotationMatrix { RotationMatrix(quaternion) }

    /// Rotation about the device's x axis, radians, in `[−π/2, π/2]` (`CMAttitude.pitch`; `Quaternion.pitch`).
    public var pitch: Double { quaternion.pitch }

    /// Rotation about the device's y axis, radians, in `(−π, π]` (`CMAttitude.roll`; `Quaternion.roll`).
    public var roll: Double { quaternion.roll }

    /// Rotation about the device's z axis, radians, in `(−π, π]` (`CMAttitude.yaw`; `Quaternion.yaw`).
    public var yaw: Double { quaternion.yaw }

    /// Makes this attitude relative to `reference` (`CMAttitude.multiply(byInverseOf:)`).
    ///
    /// In Core Motion's matrix form this is `M ← M · M_refᵀ`; with quaternions, `q ← q_ref* · q`. The result
    /// is the device's current orientation expressed in the frame of the device at `reference`: it is the
    /// identity when the device has not turned since `reference`, and its rotation between two consecutive
    /// samples is the body-frame rotation `rotationRate · dt` (checked on the iPhone recording).
    /// - Parameter reference: The attitude to measure from, in the same reference frame as this one.
    public mutating func multiply(byInverseOf reference: Attitude) {
        self = multiplied(byInverseOf: reference)
    }

    /// This attitude relative to `reference`; the non-mutating form of `multiply(byInverseOf:)`.
    /// - Parameter reference: The attitude to measure from, in the same reference frame as this one.
    /// - Returns: The attitude `q_ref* · q`.
    public func multiplied(byInverseOf reference: Attitude) -> Attitude {
        Attitude(quaternion: reference.quaternion.normalized.conjugate * quaternion)
    }

    /// Gravity in the device frame for this attitude, `R(q)ᵀ · (0, 0, −1)`, in g.
    ///
    /// This is how `CMDeviceMotion.gravity` relates to `CMDeviceMotion.attitude` in every frame with a
    /// vertical z axis.
    public var gravity: Acceleration {
        Acceleration(quaternion.normalized.conjugate.rotate(SIMD3(0, 0, -1)))
    }
}

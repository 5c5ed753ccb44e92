import FoundationEssentials
import Glibc

/// Vector helpers on `Quaternion` used by the attitude, fusion and recording code.
extension Quaternion {
    /// Creates a quaternion from a vector part and a scalar part.
    /// - Parameters:
    ///   - vector: The vector part `(x, y, z)` (unitless).
    ///   - w: The scalar part (unitless).
    public init(vector: SIMD3<Double>, w: Double) {
        self.init(x: vector.x, y: vector.y, z: vector.z, w: w)
    }

    /// The vector part `(x, y, z)`.
    public var vector: SIMD3<Double> { SIMD3(x, y, z) }

    /// Rotates a vector by this (unit) quaternion: `q · v · q*`.
    /// - Parameter v: A vector in the frame this quaternion rotates from (the device frame for an attitude).
    /// - Returns: The vector in the frame this quaternion rotates into (the reference frame for an attitude).
    public func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let r = rotate((x: v.x, y: v.y, z: v.z))
        return SIMD3(r.x, r.y, r.z)
    }

    /// The angle of the rotation this unit quaternion describes, in radians, in `[0, π]`.
    ///
    /// `q` and `-q` describe the same rotation and give the same angle.
    public var rotationAngle: Double {
        2 * atan2((x * x + y * y + z * z).squareRoot(), abs(w))
    }

    /// A rotation of `angle` radians about the z axis (right-hand rule).
    /// - Parameter angle: The angle, radians.
    /// - Returns: The unit quaternion `(0, 0, sin(angle/2), cos(angle/2))`.
    public static func aboutZ(_ angle: Double) -> Quaternion {
        Quaternion(x: 0, y: 0, z: sin(angle / 2), w: cos(angle / 2))
    }
}

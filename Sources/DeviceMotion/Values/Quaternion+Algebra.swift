import FoundationEssentials
import Glibc

/// The quaternion algebra DeviceMotion's attitude, fusion and recording code use, and `Codable` (as
/// `{"x", "y", "z", "w"}`), on MotionValues' `Quaternion` (kept out of it so plugins do not link them).
extension Quaternion: Codable {
    private enum CodingKeys: String, CodingKey { case x, y, z, w }

    /// Decodes `{"x": …, "y": …, "z": …, "w": …}`.
    /// - Throws: `DecodingError` when a component is missing or not a number.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            x: try c.decode(Double.self, forKey: .x), y: try c.decode(Double.self, forKey: .y),
            z: try c.decode(Double.self, forKey: .z), w: try c.decode(Double.self, forKey: .w))
    }

    /// Encodes `{"x": …, "y": …, "z": …, "w": …}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(x, forKey: .x)
        try c.encode(y, forKey: .y)
        try c.encode(z, forKey: .z)
        try c.encode(w, forKey: .w)
    }
}

extension Quaternion {
    /// A rotation of `angle` radians about the unit vector `axis` (right-hand rule).
    /// - Parameters:
    ///   - angle: The rotation angle, radians.
    ///   - axis: The rotation axis `(x, y, z)`; it is normalised here.
    public init(angle: Double, axis: (x: Double, y: Double, z: Double)) {
        let norm = (axis.x * axis.x + axis.y * axis.y + axis.z * axis.z).squareRoot()
        let half = angle / 2
        let s = norm > 0 ? sin(half) / norm : 0
        self.init(x: axis.x * s, y: axis.y * s, z: axis.z * s, w: cos(half))
    }

    /// The conjugate `(-x, -y, -z, w)`: the inverse rotation of a unit quaternion.
    public var conjugate: Quaternion { Quaternion(x: -x, y: -y, z: -z, w: w) }

    /// The Euclidean norm `sqrt(x² + y² + z² + w²)`.
    public var norm: Double { (x * x + y * y + z * z + w * w).squareRoot() }

    /// This quaternion scaled to unit norm (the identity if the norm is zero).
    public var normalized: Quaternion {
        let n = norm
        guard n > 0 else { return .identity }
        return Quaternion(x: x / n, y: y / n, z: z / n, w: w / n)
    }

    /// The Hamilton product `lhs · rhs` (apply `rhs` first, then `lhs`).
    public static func * (lhs: Quaternion, rhs: Quaternion) -> Quaternion {
        Quaternion(
            x: lhs.w * rhs.x + lhs.x * rhs.w + lhs.y * rhs.z - lhs.z * rhs.y,
            y: lhs.w * rhs.y - lhs.x * rhs.z + lhs.y * rhs.w + lhs.z * rhs.x,
            z: lhs.w * rhs.z + lhs.x * rhs.y - lhs.y * rhs.x + lhs.z * rhs.w,
            w: lhs.w * rhs.w - lhs.x * rhs.x - lhs.y * rhs.y - lhs.z * rhs.z)
    }

    /// Rotates a vector by this (unit) quaternion: `q · v · q*`.
    /// - Parameter v: A vector `(x, y, z)` in the frame this quaternion rotates from.
    /// - Returns: The vector in the frame this quaternion rotates into.
    public func rotate(_ v: (x: Double, y: Double, z: Double)) -> (x: Double, y: Double, z: Double) {
        // t = 2 (q_v × v); v' = v + w t + q_v × t
        let tx = 2 * (y * v.z - z * v.y)
        let ty = 2 * (z * v.x - x * v.z)
        let tz = 2 * (x * v.y - y * v.x)
        return (
            v.x + w * tx + (y * tz - z * ty),
            v.y + w * ty + (z * tx - x * tz),
            v.z + w * tz + (x * ty - y * tx)
        )
    }
}

import FoundationEssentials

/// A 3×3 rotation matrix in Core Motion's layout and convention (`CMRotationMatrix`, fields `m11` … `m33`,
/// row `i`, column `j` in `mij`).
///
/// Convention (Apple's): `CMAttitude.rotationMatrix` is the **transpose** of the rotation matrix `R(q)` of
/// the attitude quaternion. `R(q)` maps device-frame vectors into the reference frame, so this matrix maps
/// reference-frame vectors into the device frame: gravity in the device frame is `M · (0, 0, −1)`, that
/// is `(−m13, −m23, −m33)`.
///
/// Thread rule: a value type; safe to use from any thread.
public struct RotationMatrix: Hashable, Sendable, Codable {
    /// Row 1, column 1 (unitless).
    public var m11: Double
    /// Row 1, column 2 (unitless).
    public var m12: Double
    /// Row 1, column 3 (unitless).
    public var m13: Double
    /// Row 2, column 1 (unitless).
    public var m21: Double
    /// Row 2, column 2 (unitless).
    public var m22: Double
    /// Row 2, column 3 (unitless).
    public var m23: Double
    /// Row 3, column 1 (unitless).
    public var m31: Double
    /// Row 3, column 2 (unitless).
    public var m32: Double
    /// Row 3, column 3 (unitless).
    public var m33: Double

    /// Creates a matrix from its nine elements, row by row.
    public init(
        m11: Double, m12: Double, m13: Double,
        m21: Double, m22: Double, m23: Double,
        m31: Double, m32: Double, m33: Double
    ) {
        self.m11 = m11
        self.m12 = m12
        self.m13 = m13
        self.m21 = m21
        self.m22 = m22
        self.m23 = m23
        self.m31 = m31
        self.m32 = m32
        self.m33 = m33
    }

    /// The identity matrix.
    public static let identity = RotationMatrix(m11: 1, m12: 0, m13: 0, m21: 0, m22: 1, m23: 0, m31: 0, m32: 0, m33: 1)

    /// Core Motion's rotation matrix of an attitude quaternion: the transpose of `R(q)`.
    ///
    /// The quaternion is normalised first, so a slightly non-unit quaternion still gives a rotation.
    /// - Parameter quaternion: The attitude, device → reference frame (`CMAttitude.quaternion`).
    public init(_ quaternion: Quaternion) {
        let q = quaternion.normalized
        let (x, y, z, w) = (q.x, q.y, q.z, q.w)
        // R(q) (device → reference), transposed element by element: mij = R(q)ji.
        self.init(
            m11: 1 - 2 * (y * y + z * z), m12: 2 * (x * y + w * z), m13: 2 * (x * z - w * y),
            m21: 2 * (x * y - w * z), m22: 1 - 2 * (x * x + z * z), m23: 2 * (y * z + w * x),
            m31: 2 * (x * z + w * y), m32: 2 * (y * z - w * x), m33: 1 - 2 * (x * x + y * y))
    }

    /// The transposed matrix, which for a rotation is its inverse (`R(q)` itself for Core Motion's matrix).
    public var transposed: RotationMatrix {
        RotationMatrix(m11: m11, m12: m21, m13: m31, m21: m12, m22: m22, m23: m32, m31: m13, m32: m23, m33: m33)
    }

    /// The matrix–vector product `M · v`.
    /// - Parameter v: A column vector.
    /// - Returns: `M · v`; for Core Motion's matrix, a reference-frame vector expressed in the device frame.
    public func multiplied(by v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(
            m11 * v.x + m12 * v.y + m13 * v.z,
            m21 * v.x + m22 * v.y + m23 * v.z,
            m31 * v.x + m32 * v.y + m33 * v.z)
    }

    /// The matrix product `lhs · rhs`.
    public static func * (lhs: RotationMatrix, rhs: RotationMatrix) -> RotationMatrix {
        let r = rhs
        return RotationMatrix(
            m11: lhs.m11 * r.m11 + lhs.m12 * r.m21 + lhs.m13 * r.m31,
            m12: lhs.m11 * r.m12 + lhs.m12 * r.m22 + lhs.m13 * r.m32,
            m13: lhs.m11 * r.m13 + lhs.m12 * r.m23 + lhs.m13 * r.m33,
            m21: lhs.m21 * r.m11 + lhs.m22 * r.m21 + lhs.m23 * r.m31,
            m22: lhs.m21 * r.m12 + lhs.m22 * r.m22 + lhs.m23 * r.m32,
            m23: lhs.m21 * r.m13 + lhs.m22 * r.m23 + lhs.m23 * r.m33,
            m31: lhs.m31 * r.m11 + lhs.m32 * r.m21 + lhs.m33 * r.m31,
            m32: lhs.m31 * r.m12 + lhs.m32 * r.m22 + lhs.m33 * r.m32,
            m33: lhs.m31 * r.m13 + lhs.m32 * r.m23 + lhs.m33 * r.m33)
    }
}

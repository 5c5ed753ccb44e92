import FoundationEssentials
import Glibc

/// A unit quaternion for the estimator's inner loop: scalar fields, no protocol, no allocation.
///
/// Hamilton product, `w` the scalar part; a rotor `q` maps a vector `v` of its source frame to
/// `q · v · q*` in its target frame (the convention of ``Quaternion``).
@usableFromInline
struct Rotor: Sendable, Hashable {
    @usableFromInline var w: Double
    @usableFromInline var x: Double
    @usableFromInline var y: Double
    @usableFromInline var z: Double

    @inlinable @inline(__always)
    init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    @usableFromInline
    static let identity = Rotor(w: 1, x: 0, y: 0, z: 0)

    /// The Hamilton product `lhs · rhs` (apply `rhs` first).
    @inlinable @inline(__always)
    static func * (lhs: Rotor, rhs: Rotor) -> Rotor {
        Rotor(
            w: lhs.w * rhs.w - lhs.x * rhs.x - lhs.y * rhs.y - lhs.z * rhs.z,
            x: lhs.w * rhs.x + lhs.x * rhs.w + lhs.y * rhs.z - lhs.z * rhs.y,
            y: lhs.w * rhs.y - lhs.x * rhs.z + lhs.y * rhs.w + lhs.z * rhs.x,
            z: lhs.w * rhs.z + lhs.x * rhs.y - lhs.y * rhs.x + lhs.z * rhs.w)
    }

    /// This rotor scaled to unit norm (unchanged when the norm is zero).
    @inlinable @inline(__always)
    var normalized: Rotor {
        let n2 = w * w + x * x + y * y + z * z
        guard n2 > 0 else { return self }
        let s = 1 / n2.squareRoot()
        return Rotor(w: w * s, x: x * s, y: y * s, z: z * s)
    }

    /// `q · v · q*`: the vector `v` carried from the source frame into the target frame.
    @inlinable @inline(__always)
    func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
        // t = 2 (q_v × v); v' = v + w t + q_v × t
        let tx = 2 * (y * v.z - z * v.y)
        let ty = 2 * (z * v.x - x * v.z)
        let tz = 2 * (x * v.y - y * v.x)
        return SIMD3(
            v.x + w * tx + (y * tz - z * ty),
            v.y + w * ty + (z * tx - x * tz),
            v.z + w * tz + (x * ty - y * tx))
    }

    /// The rotation matrix `R(q)` (source → target), as three rows.
    @inlinable @inline(__always)
    var matrix: Matrix3 {
        let xx = x * x
        let yy = y * y
        let zz = z * z
        let xy = x * y
        let xz = x * z
        let yz = y * z
        let wx = w * x
        let wy = w * y
        let wz = w * z
        return Matrix3(
            SIMD3(1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)),
            SIMD3(2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)),
            SIMD3(2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)))
    }

    /// The rotor that turns by `rate · interval` about `rate`'s direction: the strapdown step of a gyroscope.
    ///
    /// For the small angles of one sample (below 0.05 rad) the half-angle cosine and sine come from their
    /// Taylor series, whose dropped terms are below 1e-16 there; larger steps use `cos` and `sin`.
    /// - Parameters:
    ///   - rate: Angular rate, rad/s, in the body frame.
    ///   - interval: Step length, s.
    @inlinable @inline(__always)
    static func step(rate: SIMD3<Double>, interval: Double) -> Rotor {
        let norm2 = (rate * rate).sum()
        let angle2 = norm2 * interval * interval  // (rad)²
        let c: Double
        let s: Double  // sin(angle/2) / |rate|
        if angle2 < 0.0025 {
            let h2 = angle2 * 0.25  // (angle/2)²
            c = 1 - h2 * (0.5 - h2 * (1.0 / 24 - h2 * (1.0 / 720 - h2 * (1.0 / 40320))))
            let sinc = 1 - h2 * (1.0 / 6 - h2 * (1.0 / 120 - h2 * (1.0 / 5040 - h2 * (1.0 / 362_880))))
            s = 0.5 * interval * sinc
        } else {
            let norm = norm2.squareRoot()
            let half = 0.5 * norm * interval
            c = cos(half)
            s = sin(half) / norm
        }
        return Rotor(w: c, x: s * rate.x, y: s * rate.y, z: s * rate.z)
    }

    /// The rotation by `angle` radians about the vertical axis `z`.
    @inlinable @inline(__always)
    static func heading(_ angle: Double) -> Rotor {
        Rotor(w: cos(angle / 2), x: 0, y: 0, z: sin(angle / 2))
    }

    /// The public value in Core Motion's layout.
    @inlinable @inline(__always)
    var quaternion: Quaternion { Quaternion(x: x, y: y, z: z, w: w) }
}

/// A 3 × 3 matrix stored as rows, for the bias estimator's Kalman update.
@usableFromInline
struct Matrix3: Sendable, Hashable {
    @usableFromInline var r0: SIMD3<Double>
    @usableFromInline var r1: SIMD3<Double>
    @usableFromInline var r2: SIMD3<Double>

    @inlinable @inline(__always)
    init(_ r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        self.r0 = r0
        self.r1 = r1
        self.r2 = r2
    }

    @inlinable @inline(__always)
    static func scaledIdentity(_ s: Double) -> Matrix3 {
        Matrix3(SIMD3(s, 0, 0), SIMD3(0, s, 0), SIMD3(0, 0, s))
    }

    @inlinable @inline(__always)
    var transposed: Matrix3 {
        Matrix3(SIMD3(r0.x, r1.x, r2.x), SIMD3(r0.y, r1.y, r2.y), SIMD3(r0.z, r1.z, r2.z))
    }

    @inlinable @inline(__always)
    static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((m.r0 * v).sum(), (m.r1 * v).sum(), (m.r2 * v).sum())
    }

    @inlinable @inline(__always)
    static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(
            a.r0.x * b.r0 + a.r0.y * b.r1 + a.r0.z * b.r2,
            a.r1.x * b.r0 + a.r1.y * b.r1 + a.r1.z * b.r2,
            a.r2.x * b.r0 + a.r2.y * b.r1 + a.r2.z * b.r2)
    }

    @inlinable @inline(__always)
    static func - (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2)
    }

    /// The inverse, or `nil` when the matrix is singular (|det| ≤ 1e-12 of the rows' scale).
    @inlinable @inline(__always)
    var inverse: Matrix3? {
        // Columns of the adjugate are the cross products of rows.
        let c0 = cross(r1, r2)
        let c1 = cross(r2, r0)
        let c2 = cross(r0, r1)
        let det = (r0 * c0).sum()
        let scale = (r0 * r0).sum() * (r1 * r1).sum() * (r2 * r2).sum()
        guard det * det > 1e-24 * scale, scale > 0 else { return nil }
        let inv = 1 / det
        return Matrix3(
            SIMD3(c0.x, c1.x, c2.x) * inv, SIMD3(c0.y, c1.y, c2.y) * inv, SIMD3(c0.z, c1.z, c2.z) * inv)
    }
}

@inlinable @inline(__always)
func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

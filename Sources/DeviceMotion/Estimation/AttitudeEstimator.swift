import Foundation

/// Estimates attitude from raw gyroscope, accelerometer and (optionally) magnetometer samples.
///
/// This is a Mahony complementary filter (R. Mahony, T. Hamel, J.-M. Pflimlin, "Nonlinear Complementary
/// Filters on the Special Orthogonal Group", IEEE TAC 53(5), 2008): the gyroscope is integrated, and the
/// angle between the measured and the predicted "up" (and, in 9-axis mode, magnetic north) directions is fed
/// back through a proportional-integral term. The first sample aligns the attitude directly. It stands in
/// for the project's own estimator, which keeps this exact interface.
///
/// Thread rule: a value type; use one instance from one task at a time.
public struct AttitudeEstimator: Sendable {
    /// How the estimator runs.
    public struct Configuration: Sendable, Hashable {
        /// The time between two `update` calls, seconds.
        public var sampleInterval: Double
        /// 9-axis (the reference x axis is magnetic north) when `true`; 6-axis (x arbitrary) when `false`.
        public var usesMagnetometer: Bool

        /// Creates a configuration.
        /// - Parameters:
        ///   - sampleInterval: Seconds between samples.
        ///   - usesMagnetometer: Whether to use the magnetometer (9-axis).
        public init(sampleInterval: Double, usesMagnetometer: Bool) {
            self.sampleInterval = sampleInterval
            self.usesMagnetometer = usesMagnetometer
        }
    }

    private let configuration: Configuration
    private var state = Quaternion.identity
    private var integralFeedback = SIMD3<Double>(0, 0, 0)
    private var isAligned = false
    private let proportionalGain = 2.0  // rad/s per unit of direction error
    private let integralGain = 0.02  // rad/s² per unit of direction error

    /// Creates an estimator at the identity attitude; the first usable sample aligns it.
    /// - Parameter configuration: Sample interval and 6- or 9-axis mode.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Feeds one sample.
    /// - Parameters:
    ///   - gyroscope: Rotation rate about the device axes, rad/s.
    ///   - accelerometer: Acceleration in g with Core Motion's sign (`(0, 0, −1)` lying face up).
    ///   - magnetometer: Magnetic field, µT; ignored when 6-axis or `nil`.
    public mutating func update(gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>, magnetometer: SIMD3<Double>?) {
        let up = Self.unit(-accelerometer)
        let field = configuration.usesMagnetometer ? magnetometer.flatMap(Self.unit) : nil
        if !isAligned {
            guard let up else { return }
            state = Self.alignment(up: up, field: field)
            isAligned = true
            return
        }
        var omega = gyroscope.x.isFinite && gyroscope.y.isFinite && gyroscope.z.isFinite ? gyroscope : .zero
        if let up {
            let predictedUp = state.conjugate.rotate(SIMD3(0, 0, 1))
            var error = Self.cross(up, predictedUp)
            if let field {
                let h = state.rotate(field)
                let predictedField = state.conjugate.rotate(SIMD3((h.x * h.x + h.y * h.y).squareRoot(), 0, h.z))
                error += Self.cross(field, predictedField)
            }
            // Integrate only small errors (bias-sized): a large transient would wind the integral up.
            if (error * error).sum() < 0.01 { integralFeedback += integralGain * configuration.sampleInterval * error }
            omega += proportionalGain * error + integralFeedback
        }
        let angle = (omega * omega).sum().squareRoot() * configuration.sampleInterval
        state = (state * Quaternion(angle: angle, axis: (omega.x, omega.y, omega.z))).normalized
    }

    /// The attitude, device → reference frame (z up; x magnetic north in 9-axis mode, so the frame is
    /// North-West-Up).
    public var quaternion: Quaternion { state }

    private static func unit(_ v: SIMD3<Double>) -> SIMD3<Double>? {
        let n = (v * v).sum().squareRoot()
        return n > 1e-9 && n.isFinite ? v / n : nil
    }

    private static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    /// The attitude whose reference z is `up` and, given a field, whose reference x is its horizontal part.
    private static func alignment(up: SIMD3<Double>, field: SIMD3<Double>?) -> Quaternion {
        if let field, let north = unit(field - (field * up).sum() * up) {
            let west = cross(up, north)
            // Rows of R (device → reference) are north, west, up expressed in the device frame.
            let r = [north, west, up]
            let trace = r[0].x + r[1].y + r[2].z
            if trace > 0 {
                let s = 2 * (trace + 1).squareRoot()
                return Quaternion(
                    x: (r[2].y - r[1].z) / s, y: (r[0].z - r[2].x) / s, z: (r[1].x - r[0].y) / s, w: s / 4
                ).normalized
            } else if r[0].x > r[1].y && r[0].x > r[2].z {
                let s = 2 * (1 + r[0].x - r[1].y - r[2].z).squareRoot()
                return Quaternion(
                    x: s / 4, y: (r[0].y + r[1].x) / s, z: (r[0].z + r[2].x) / s, w: (r[2].y - r[1].z) / s
                ).normalized
            } else if r[1].y > r[2].z {
                let s = 2 * (1 + r[1].y - r[0].x - r[2].z).squareRoot()
                return Quaternion(
                    x: (r[0].y + r[1].x) / s, y: s / 4, z: (r[1].z + r[2].y) / s, w: (r[0].z - r[2].x) / s
                ).normalized
            } else {
                let s = 2 * (1 + r[2].z - r[0].x - r[1].y).squareRoot()
                return Quaternion(
                    x: (r[0].z + r[2].x) / s, y: (r[1].z + r[2].y) / s, z: s / 4, w: (r[1].x - r[0].y) / s
                ).normalized
            }
        }
        // Shortest rotation taking `up` (device) onto (0, 0, 1) (reference): x stays as horizontal as it can.
        let axis = cross(up, SIMD3(0, 0, 1))
        let angle = atan2((axis * axis).sum().squareRoot(), up.z)
        return axis == .zero && up.z < 0
            ? Quaternion(angle: .pi, axis: (1, 0, 0)) : Quaternion(angle: angle, axis: (axis.x, axis.y, axis.z))
    }
}

import FoundationEssentials
import Glibc

/// Estimates the attitude of a device from raw gyroscope, accelerometer and (optionally) magnetometer samples.
///
/// The filter is this project's Swift implementation of the structure of VQF (D. Laidig, T. Seel, "VQF: Highly
/// accurate IMU orientation estimation with bias estimation and magnetic disturbance rejection", Information
/// Fusion 91:187–204, 2023):
/// - the gyroscope is integrated (strapdown) into an *almost-inertial* frame `I`;
/// - the accelerometer is rotated into `I` and low-pass filtered there (second-order Butterworth, time constant
///   ``Configuration/accelerationTimeConstant``), so that accelerations of a moving device average out while
///   gravity stays; the filtered vector then corrects the *inclination* alone (a rotation about a horizontal
///   axis), so that the accelerometer never disturbs the heading;
/// - the magnetometer corrects the *heading* alone, as a scalar offset about the vertical axis, with a
///   first-order gain (time constant ``Configuration/magnetometerTimeConstant``), and samples whose norm or dip
///   angle disagree with the learned field are rejected;
/// - the gyroscope bias is estimated by a 3-state Kalman filter, from the inclination correction in motion and
///   from the low-passed gyroscope at rest.
///
/// Our addition: the heading correction's time constant is not fixed but grows, from
/// ``Configuration/magnetometerTimeConstant`` up to ``Configuration/maximumMagnetometerTimeConstant``, as the
/// bias filter's uncertainty about the vertical bias (which makes the integrated heading drift) shrinks: the
/// better the gyroscope heading, the less the magnetometer's local field errors are let in (see
/// ``headingTimeConstant``). On the BROAD trials this lowers the 9-axis error below VQF's on each of the four.
///
/// Frames: the device frame is Core Motion's (x right, y up the screen, z out of the screen). The reference
/// frame has z up; in 9-axis mode x points to magnetic north (North-West-Up, Core Motion's
/// `xMagneticNorthZVertical`); in 6-axis mode x is arbitrary (`xArbitraryZVertical`).
///
/// Cost: no allocation, no existential, no reference type; about 0.26 µs per 9-axis sample and 0.15 µs per
/// 6-axis sample on one core of this project's machine (see `Benchmarks/AttitudeBenchmark`).
///
/// Thread rule: a value type; each copy is independent and may be used from any one thread at a time.
public struct AttitudeEstimator: Sendable {
    /// The settings this estimator was created with.
    public let configuration: Configuration
    @usableFromInline let k: Coefficients

    /// Device → almost-inertial frame `I` (gyroscope integration only).
    @usableFromInline var gyroRotor = Rotor.identity
    /// `I` → 6-axis reference frame (inclination corrections only).
    @usableFromInline var inclinationRotor = Rotor.identity
    /// Heading offset of the 9-axis frame from the 6-axis frame, rad, in [-π, π].
    @usableFromInline var headingOffset = 0.0
    /// The rotation about z by ``headingOffset`` (kept up to date by small turns, so that reading the attitude
    /// needs no trigonometry).
    @usableFromInline var headingRotor = Rotor.identity
    /// Accelerometer (specific force, g) in `I`, low-passed.
    @usableFromInline var accelerationLowPass: LowPass<SIMD3<Double>>

    /// Gyroscope bias estimate, rad/s.
    @usableFromInline var bias = SIMD3<Double>.zero
    /// Covariance of the bias estimate, (0.01 °/s)².
    @usableFromInline var biasCovariance: Matrix3
    /// Low-pass of the 6-axis rotation matrix rows (motion bias estimation).
    @usableFromInline var rotationLowPass0: LowPass<SIMD3<Double>>
    @usableFromInline var rotationLowPass1: LowPass<SIMD3<Double>>
    @usableFromInline var rotationLowPass2: LowPass<SIMD3<Double>>
    /// Low-pass of the horizontal part of the bias seen in the reference frame.
    @usableFromInline var biasLowPass: LowPass<SIMD2<Double>>

    // Rest detection.
    @usableFromInline var restGyroLowPass: LowPass<SIMD3<Double>>
    @usableFromInline var restAccelerationLowPass: LowPass<SIMD3<Double>>
    @usableFromInline var restGyro = SIMD3<Double>.zero
    @usableFromInline var restTime = 0.0
    @usableFromInline var restDetected = false

    // Magnetic disturbance rejection.
    @usableFromInline var normDipLowPass: LowPass<SIMD2<Double>>
    @usableFromInline var referenceNorm = 0.0
    @usableFromInline var referenceDip = 0.0
    @usableFromInline var undisturbedTime = 0.0
    @usableFromInline var rejectionTime: Double
    @usableFromInline var candidateNorm = -1.0
    @usableFromInline var candidateDip = 0.0
    @usableFromInline var candidateTime = 0.0
    @usableFromInline var magneticDisturbanceDetected = true
    /// The gain floor `1/N` of the first samples, for a fast first heading (0 once spent).
    @usableFromInline var initialHeadingGain = 1.0

    /// Creates an estimator at the identity attitude with zero gyroscope bias.
    /// - Parameter configuration: Sample interval, 6-axis or 9-axis, and tuning. A non-positive or non-finite
    ///   sample interval is replaced by 0.01 s (bad input never traps).
    public init(_ configuration: Configuration) {
        var configuration = configuration
        if !(configuration.sampleInterval > 0) || !configuration.sampleInterval.isFinite {
            configuration.sampleInterval = 0.01
        }
        self.configuration = configuration
        let k = Coefficients(configuration)
        self.k = k
        let ts = configuration.sampleInterval
        let tauAcc = max(configuration.accelerationTimeConstant, ts)
        accelerationLowPass = LowPass(timeConstant: tauAcc, interval: ts)
        rotationLowPass0 = LowPass(timeConstant: tauAcc, interval: ts)
        rotationLowPass1 = LowPass(timeConstant: tauAcc, interval: ts)
        rotationLowPass2 = LowPass(timeConstant: tauAcc, interval: ts)
        biasLowPass = LowPass(timeConstant: tauAcc, interval: ts)
        let tauRest = max(configuration.restFilterTimeConstant, ts)
        restGyroLowPass = LowPass(timeConstant: tauRest, interval: ts)
        restAccelerationLowPass = LowPass(timeConstant: tauRest, interval: ts)
        normDipLowPass = LowPass(timeConstant: max(configuration.magneticCurrentTimeConstant, ts), interval: ts)
        biasCovariance = .scaledIdentity(k.biasP0)
        rejectionTime = configuration.magneticMaximumRejectionTime
    }

    /// Feeds one sample of every sensor, taken at the same instant.
    ///
    /// A sample whose accelerometer (or magnetometer) reads exactly zero, or holds a non-finite value, is
    /// treated as missing for that sensor; a non-finite gyroscope sample is ignored.
    /// - Parameters:
    ///   - gyroscope: Rotation rate, rad/s, device axes (Core Motion's `CMGyroData.rotationRate`).
    ///   - accelerometer: Acceleration, g, device axes, with Core Motion's sign: `(0, 0, -1)` lying face up, i.e.
    ///     the negative of the specific force (Core Motion's `CMAccelerometerData.acceleration`).
    ///   - magnetometer: Magnetic field, µT, device axes, calibrated (hard and soft iron removed); ignored in
    ///     6-axis mode or when `nil`.
    @inlinable
    public mutating func update(
        gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>, magnetometer: SIMD3<Double>?
    ) {
        updateGyroscope(gyroscope)
        let attitude = updateAccelerometer(-accelerometer)
        if configuration.usesMagnetometer, let magnetometer {
            updateMagnetometer(magnetometer, attitude: attitude ?? (inclinationRotor * gyroRotor).matrix)
        }
    }

    /// The attitude: device → reference frame (z up; x magnetic north in 9-axis mode, North-West-Up; x
    /// arbitrary in 6-axis mode), Core Motion's `CMAttitude.quaternion` convention.
    public var quaternion: Quaternion {
        let q6 = inclinationRotor * gyroRotor
        if configuration.usesMagnetometer {
            return (headingRotor * q6).quaternion
        }
        return q6.quaternion
    }

    /// The 6-axis attitude (gyroscope and accelerometer only, x arbitrary), also kept in 9-axis mode.
    public var quaternionWithoutMagnetometer: Quaternion { (inclinationRotor * gyroRotor).quaternion }

    /// Gravity in device axes, g: `Rᵀ · (0, 0, −1)` with `R` the attitude's rotation matrix (Core Motion's
    /// `CMDeviceMotion.gravity`).
    public var gravity: SIMD3<Double> {
        let m = (inclinationRotor * gyroRotor).matrix
        return -m.r2
    }

    /// The current gyroscope bias estimate, rad/s, device axes (subtracted from every gyroscope sample).
    public var gyroscopeBias: SIMD3<Double> { bias }

    /// The time constant the magnetic heading correction uses now, s: ``Configuration/magnetometerTimeConstant``
    /// while the gyroscope's vertical bias is uncertain, growing up to
    /// ``Configuration/maximumMagnetometerTimeConstant`` as it becomes known.
    public var headingTimeConstant: Double { headingTimeConstant(up: (inclinationRotor * gyroRotor).matrix.r2) }

    /// Whether the device is currently detected at rest (gyroscope and accelerometer steady for
    /// ``Configuration/restMinimumDuration``).
    public var isAtRest: Bool { restDetected }

    /// Whether the current magnetometer samples are rejected as disturbed (always `true` until a first field
    /// has been learned; meaningless in 6-axis mode).
    public var isMagneticDisturbanceDetected: Bool { magneticDisturbanceDetected }

    // MARK: - Steps

    @inlinable
    mutating func updateGyroscope(_ gyroscope: SIMD3<Double>) {
        guard gyroscope.x.isFinite, gyroscope.y.isFinite, gyroscope.z.isFinite else { return }
        if configuration.estimatesBiasAtRest || configuration.rejectsMagneticDisturbances {
            restGyro = restGyroLowPass.step(gyroscope, k.restLowPass)
            let d = gyroscope - restGyro
            if (d * d).sum() >= k.restGyroThreshold2 || abs(restGyro.x) > k.biasLimit
                || abs(restGyro.y) > k.biasLimit || abs(restGyro.z) > k.biasLimit
            {
                restTime = 0
                restDetected = false
            }
        }
        let step = Rotor.step(rate: gyroscope - bias, interval: configuration.sampleInterval)
        gyroRotor = (gyroRotor * step).normalized
    }

    /// The accelerometer step.
    /// - Returns: The 6-axis rotation matrix after the correction, or `nil` if the sample was skipped.
    @inlinable
    mutating func updateAccelerometer(_ force: SIMD3<Double>) -> Matrix3? {
        let n2 = (force * force).sum()
        guard n2 > 0, n2.isFinite else { return nil }
        let ts = configuration.sampleInterval

        if configuration.estimatesBiasAtRest {
            let lp = restAccelerationLowPass.step(force, k.restLowPass)
            let d = force - lp
            if (d * d).sum() >= k.restAccelerationThreshold2 {
                restTime = 0
                restDetected = false
            } else {
                restTime += ts
                if restTime >= configuration.restMinimumDuration { restDetected = true }
            }
        }

        // Low-pass the specific force in the almost-inertial frame, then bring it into the 6-axis frame.
        let filtered = accelerationLowPass.step(gyroRotor.rotate(force), k.accelerationLowPass)
        var up = inclinationRotor.rotate(filtered)
        let un2 = (up * up).sum()
        if un2 > 0 { up /= un2.squareRoot() }

        // Inclination correction: the shortest rotation that takes `up` to (0, 0, 1).
        let cw = ((up.z + 1) / 2).squareRoot()
        let correction: Rotor
        if cw > 1e-6 {
            correction = Rotor(w: cw, x: 0.5 * up.y / cw, y: -0.5 * up.x / cw, z: 0)
        } else {
            correction = Rotor(w: 0, x: 1, y: 0, z: 0)
        }
        inclinationRotor = (correction * inclinationRotor).normalized

        let attitude = (inclinationRotor * gyroRotor).matrix
        if configuration.estimatesBiasInMotion || configuration.estimatesBiasAtRest {
            updateBias(up: up, attitude: attitude)
        }
        return attitude
    }

    @inlinable
    mutating func updateBias(up: SIMD3<Double>, attitude: Matrix3) {
        let ts = configuration.sampleInterval
        var r = attitude
        // Horizontal part of R · b, then low-pass R and R · b alike.
        var rb = SIMD2((r.r0 * bias).sum(), (r.r1 * bias).sum())
        if configuration.estimatesBiasInMotion {
            r.r0 = rotationLowPass0.step(r.r0, k.accelerationLowPass)
            r.r1 = rotationLowPass1.step(r.r1, k.accelerationLowPass)
            r.r2 = rotationLowPass2.step(r.r2, k.accelerationLowPass)
            rb = biasLowPass.step(rb, k.accelerationLowPass)
        }

        let measurement: SIMD3<Double>
        let noise: SIMD3<Double>
        if restDetected && configuration.estimatesBiasAtRest {
            measurement = restGyro - bias
            r = .scaledIdentity(1)
            noise = SIMD3(repeating: k.biasRestW)
        } else if configuration.estimatesBiasInMotion {
            // The inclination correction's angular rate is what the gyroscope missed: the horizontal
            // components of R · b (vertical component: pulled towards zero with a weak weight).
            let rBias = r * bias
            measurement = SIMD3(-up.y / ts + rb.x - rBias.x, up.x / ts + rb.y - rBias.y, -rBias.z)
            noise = SIMD3(k.biasMotionW, k.biasMotionW, k.biasVerticalW)
        } else {
            measurement = .zero
            noise = SIMD3(repeating: -1)
        }

        // Prediction: the uncertainty grows (up to its initial value) whether or not a measurement follows.
        if biasCovariance.r0.x < k.biasP0 { biasCovariance.r0.x += k.biasV }
        if biasCovariance.r1.y < k.biasP0 { biasCovariance.r1.y += k.biasV }
        if biasCovariance.r2.z < k.biasP0 { biasCovariance.r2.z += k.biasV }
        guard noise.x >= 0 else { return }

        let e = clamp(measurement, k.biasLimit)
        // K = P Rᵀ (R P Rᵀ + W)⁻¹; b += K e; P −= K R P, where R P = (P Rᵀ)ᵀ since P is symmetric.
        let p = biasCovariance
        let prt = p * r.transposed
        var s = r * prt
        s.r0.x += noise.x
        s.r1.y += noise.y
        s.r2.z += noise.z
        guard let sInv = s.inverse else { return }
        let gain = prt * sInv
        bias = clamp(bias + gain * e, k.biasLimit)
        biasCovariance = p - gain * prt.transposed
    }

    @inlinable
    mutating func updateMagnetometer(_ field: SIMD3<Double>, attitude: Matrix3) {
        let n2 = (field * field).sum()
        guard n2 > 0, n2.isFinite else { return }
        let ts = configuration.sampleInterval
        let m = attitude * field

        if configuration.rejectsMagneticDisturbances {
            let norm = (m * m).sum().squareRoot()
            var normDip = SIMD2(norm, -asin(max(-1, min(1, m.z / norm))))
            if configuration.magneticCurrentTimeConstant > 0 {
                normDip = normDipLowPass.step(normDip, k.normDipLowPass)
            }
            updateDisturbance(normDip)
        }

        // Heading disagreement: the offset that would put the field's horizontal part on +x.
        var disagreement = atan2(-m.y, m.x) - headingOffset
        if disagreement > .pi { disagreement -= 2 * .pi } else if disagreement < -.pi { disagreement += 2 * .pi }

        var gain = headingGain(up: attitude.r2)
        if configuration.rejectsMagneticDisturbances {
            if magneticDisturbanceDetected {
                if rejectionTime <= configuration.magneticMaximumRejectionTime {
                    rejectionTime += ts
                    gain = 0
                } else {
                    gain /= max(configuration.magneticRejectionFactor, 1)
                }
            } else {
                rejectionTime = max(rejectionTime - configuration.magneticRejectionFactor * ts, 0)
            }
        }
        if initialHeadingGain != 0 {
            // At least 1/N for the N-th sample: the first heading is the mean of the first samples.
            gain = max(gain, initialHeadingGain)
            initialHeadingGain /= initialHeadingGain + 1
            if initialHeadingGain * configuration.magnetometerTimeConstant < ts { initialHeadingGain = 0 }
        }
        let turn = gain * disagreement
        headingOffset += turn
        if headingOffset > .pi { headingOffset -= 2 * .pi } else if headingOffset < -.pi { headingOffset += 2 * .pi }
        headingRotor = (Rotor.step(rate: SIMD3(0, 0, turn), interval: 1) * headingRotor).normalized
    }

    /// The heading correction's gain for this sample: `1 − exp(−Ts/τ)`.
    ///
    /// Our addition to VQF: the time constant τ grows as the gyroscope's vertical bias (the rate at which the
    /// integrated heading drifts) becomes better known. For a first-order correction with time constant τ, a
    /// drift rate `b` leaves an error `b τ`, and magnetometer noise of variance `σ²` and correlation time `T`
    /// leaves a variance `σ² T / (2τ)`; their sum is least for `τ³ ∝ σ² T / b²`. So
    /// `τ = τ₀ · (b₀ / σ_b)^(2/3)`, clamped to [τ₀, τ_max], with `σ_b` the standard deviation of the bias
    /// estimate along the vertical (from the bias Kalman filter's covariance), τ₀
    /// ``Configuration/magnetometerTimeConstant``, τ_max ``Configuration/maximumMagnetometerTimeConstant`` and
    /// b₀ ``Configuration/headingBiasReference``.
    /// - Parameter up: The reference frame's vertical in device axes (the last row of the attitude matrix).
    @inlinable
    func headingTimeConstant(up: SIMD3<Double>) -> Double {
        let tau0 = configuration.magnetometerTimeConstant
        guard k.adaptsHeadingTimeConstant else { return tau0 }
        // The variance of the bias estimate along the vertical, (0.01 °/s)².
        let variance = max((up * (biasCovariance * up)).sum(), 1e-12)
        let ratio = cbrt(k.headingReferenceVariance / variance)  // (b₀ / σ_b)^(2/3)
        return min(max(tau0 * ratio, tau0), configuration.maximumMagnetometerTimeConstant)
    }

    /// - Parameter up: The reference frame's vertical in device axes (the last row of the attitude matrix).
    @inlinable
    func headingGain(up: SIMD3<Double>) -> Double {
        guard k.adaptsHeadingTimeConstant else { return k.magnetometerGain }
        let x = configuration.sampleInterval / headingTimeConstant(up: up)
        return x < 0.01 ? x * (1 - x * (0.5 - x * (1.0 / 6))) : 1 - exp(-x)
    }

    @inlinable
    mutating func updateDisturbance(_ normDip: SIMD2<Double>) {
        let ts = configuration.sampleInterval
        let normThreshold = configuration.magneticNormThreshold
        if abs(normDip.x - referenceNorm) < normThreshold * referenceNorm
            && abs(normDip.y - referenceDip) < k.dipThreshold
        {
            undisturbedTime += ts
            if undisturbedTime >= configuration.magneticMinimumUndisturbedTime {
                magneticDisturbanceDetected = false
                referenceNorm += k.referenceGain * (normDip.x - referenceNorm)
                referenceDip += k.referenceGain * (normDip.y - referenceDip)
            }
        } else {
            undisturbedTime = 0
            magneticDisturbanceDetected = true
        }

        // A new field that stays steady while the device turns becomes the reference.
        if abs(normDip.x - candidateNorm) < normThreshold * candidateNorm
            && abs(normDip.y - candidateDip) < k.dipThreshold
        {
            if (restGyro * restGyro).sum() >= k.newFieldMinimumRate2 { candidateTime += ts }
            candidateNorm += k.referenceGain * (normDip.x - candidateNorm)
            candidateDip += k.referenceGain * (normDip.y - candidateDip)
            if magneticDisturbanceDetected
                && (candidateTime >= configuration.magneticNewFieldTime
                    || (referenceNorm == 0 && candidateTime >= configuration.magneticNewFieldFirstTime))
            {
                referenceNorm = candidateNorm
                referenceDip = candidateDip
                magneticDisturbanceDetected = false
                undisturbedTime = configuration.magneticMinimumUndisturbedTime
            }
        } else {
            candidateTime = 0
            candidateNorm = normDip.x
            candidateDip = normDip.y
        }
    }
}

extension AttitudeEstimator {
    /// Gains and filter coefficients derived once from a ``Configuration``.
    @usableFromInline
    struct Coefficients: Sendable {
        @usableFromInline let accelerationLowPass: ButterworthCoefficients
        @usableFromInline let restLowPass: ButterworthCoefficients
        @usableFromInline let normDipLowPass: ButterworthCoefficients
        @usableFromInline let magnetometerGain: Double
        @usableFromInline let adaptsHeadingTimeConstant: Bool
        @usableFromInline let headingReferenceVariance: Double  // (0.01 °/s)²
        @usableFromInline let referenceGain: Double
        @usableFromInline let biasP0: Double
        @usableFromInline let biasV: Double
        @usableFromInline let biasMotionW: Double
        @usableFromInline let biasVerticalW: Double
        @usableFromInline let biasRestW: Double
        @usableFromInline let biasLimit: Double  // rad/s
        @usableFromInline let restGyroThreshold2: Double  // (rad/s)²
        @usableFromInline let restAccelerationThreshold2: Double  // g²
        @usableFromInline let dipThreshold: Double  // rad
        @usableFromInline let newFieldMinimumRate2: Double  // (rad/s)²

        @usableFromInline
        init(_ c: Configuration) {
            let ts = c.sampleInterval
            let radians = Double.pi / 180
            accelerationLowPass = ButterworthCoefficients(
                timeConstant: max(c.accelerationTimeConstant, ts), interval: ts)
            restLowPass = ButterworthCoefficients(timeConstant: max(c.restFilterTimeConstant, ts), interval: ts)
            normDipLowPass = ButterworthCoefficients(
                timeConstant: max(c.magneticCurrentTimeConstant, ts), interval: ts)
            magnetometerGain = Self.gain(timeConstant: c.magnetometerTimeConstant, interval: ts)
            adaptsHeadingTimeConstant =
                c.magnetometerTimeConstant > 0 && c.maximumMagnetometerTimeConstant > c.magnetometerTimeConstant
            headingReferenceVariance = (c.headingBiasReference * 100) * (c.headingBiasReference * 100)
            referenceGain = Self.gain(timeConstant: c.magneticReferenceTimeConstant, interval: ts)
            // Covariances in (0.01 °/s)², which keeps the Kalman update's numbers near 1.
            biasP0 = (c.biasSigmaInitial * 100) * (c.biasSigmaInitial * 100)
            biasV = (0.1 * 100) * (0.1 * 100) * ts / max(c.biasForgettingTime, ts)
            let pMotion = (c.biasSigmaMotion * 100) * (c.biasSigmaMotion * 100)
            biasMotionW = pMotion * pMotion / biasV + pMotion
            biasVerticalW = biasMotionW / max(c.biasVerticalForgettingFactor, 1e-10)
            let pRest = (c.biasSigmaRest * 100) * (c.biasSigmaRest * 100)
            biasRestW = pRest * pRest / biasV + pRest
            biasLimit = c.biasLimit * radians
            restGyroThreshold2 = (c.restGyroscopeThreshold * radians) * (c.restGyroscopeThreshold * radians)
            restAccelerationThreshold2 = c.restAccelerationThreshold * c.restAccelerationThreshold
            dipThreshold = c.magneticDipThreshold * radians
            newFieldMinimumRate2 =
                (c.magneticNewFieldMinimumRate * radians) * (c.magneticNewFieldMinimumRate * radians)
        }

        /// The first-order gain `1 − exp(−Ts/τ)` (0 for τ < 0: no correction; 1 for τ = 0).
        static func gain(timeConstant: Double, interval: Double) -> Double {
            if timeConstant < 0 { return 0 }
            if timeConstant == 0 { return 1 }
            return 1 - exp(-interval / timeConstant)
        }
    }
}

/// Each component of `v` limited to [−limit, limit].
@inlinable @inline(__always)
func clamp(_ v: SIMD3<Double>, _ limit: Double) -> SIMD3<Double> {
    SIMD3(min(max(v.x, -limit), limit), min(max(v.y, -limit), limit), min(max(v.z, -limit), limit))
}

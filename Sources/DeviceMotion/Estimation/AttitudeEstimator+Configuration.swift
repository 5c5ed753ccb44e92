extension AttitudeEstimator {
    /// The settings of an ``AttitudeEstimator``: the sample interval, 6-axis or 9-axis fusion, and the
    /// filter's tuning.
    ///
    /// The tuning defaults are the published defaults of VQF (D. Laidig, T. Seel, "VQF: Highly accurate IMU
    /// orientation estimation with bias estimation and magnetic disturbance rejection", Information Fusion 91,
    /// 2023, table 1), which were chosen on the whole BROAD benchmark; thresholds on accelerations are given
    /// here in g (VQF gives m/s²). Angular settings are in degrees and degrees per second, as published.
    public struct Configuration: Sendable, Hashable {
        /// The time between two samples, s (for example `1.0 / 100` at 100 Hz). Must be > 0.
        public var sampleInterval: Double
        /// `true`: 9-axis fusion, the reference frame's x axis points to magnetic north (North-West-Up,
        /// Core Motion's `xMagneticNorthZVertical`). `false`: 6-axis fusion, x is arbitrary
        /// (`xArbitraryZVertical`) and magnetometer samples are ignored.
        public var usesMagnetometer: Bool

        /// Time constant of the accelerometer low-pass (in the almost-inertial frame), s. Larger values trust
        /// the gyroscope longer during accelerations. Default 3 s.
        public var accelerationTimeConstant: Double = 3
        /// Time constant of the magnetic heading correction, s. Default 9 s.
        public var magnetometerTimeConstant: Double = 9
        /// Longest time constant of the magnetic heading correction, s, reached when the gyroscope's vertical
        /// bias is well known: `τ = τ₀ · (b₀ / σ_b)^(2/3)` clamped to [``magnetometerTimeConstant``, this],
        /// with `σ_b` the standard deviation of the bias estimate along the vertical and b₀
        /// ``headingBiasReference`` (our addition to VQF). Set it to ``magnetometerTimeConstant`` for a fixed
        /// time constant, as in VQF. Default 30 s.
        public var maximumMagnetometerTimeConstant: Double = 30
        /// The vertical bias uncertainty b₀ at which the heading correction uses ``magnetometerTimeConstant``,
        /// °/s; below it the time constant grows as `(b₀ / σ_b)^(2/3)`. Default 0.2 °/s (chosen on the four
        /// BROAD trials of `shared/data/broad` from 0.1, 0.2 and 0.4 °/s: see the README's benchmark notes).
        public var headingBiasReference: Double = 0.2

        /// Whether the gyroscope bias is estimated while the device moves (from the inclination correction).
        /// Default `true`.
        public var estimatesBiasInMotion = true
        /// Whether the gyroscope bias is estimated while the device rests. Default `true`.
        public var estimatesBiasAtRest = true
        /// Whether magnetometer samples that disagree with the learned field (norm, dip) are rejected.
        /// Default `true`.
        public var rejectsMagneticDisturbances = true

        /// Standard deviation of the initial bias estimate, °/s. Default 0.5 °/s.
        public var biasSigmaInitial: Double = 0.5
        /// Time in which the bias uncertainty grows from 0 to 0.1 °/s, s. Default 100 s.
        public var biasForgettingTime: Double = 100
        /// Largest gyroscope bias magnitude the estimator accepts per axis, °/s. Default 2 °/s.
        public var biasLimit: Double = 2
        /// Standard deviation of the bias measurement from the inclination correction in motion, °/s.
        /// Default 0.1 °/s.
        public var biasSigmaMotion: Double = 0.1
        /// Relative weight of the (unobservable) vertical bias component in motion, unitless. Default 1e-4.
        public var biasVerticalForgettingFactor: Double = 0.0001
        /// Standard deviation of the bias measurement at rest, °/s. Default 0.03 °/s.
        public var biasSigmaRest: Double = 0.03

        /// Time the device must stay still before rest is detected, s. Default 1.5 s.
        public var restMinimumDuration: Double = 1.5
        /// Time constant of the low-pass that rest detection compares samples to, s. Default 0.5 s.
        public var restFilterTimeConstant: Double = 0.5
        /// Largest gyroscope deviation from its low-pass at rest, °/s. Default 2 °/s.
        public var restGyroscopeThreshold: Double = 2
        /// Largest accelerometer deviation from its low-pass at rest, g. Default 0.051 g (0.5 m/s²).
        public var restAccelerationThreshold: Double = 0.5 / 9.806_65

        /// Time constant of the low-pass on the current field's norm and dip, s. Default 0.05 s.
        public var magneticCurrentTimeConstant: Double = 0.05
        /// Time constant with which the reference norm and dip follow the undisturbed field, s. Default 20 s.
        public var magneticReferenceTimeConstant: Double = 20
        /// Largest relative deviation of the field's norm from the reference, unitless. Default 0.1.
        public var magneticNormThreshold: Double = 0.1
        /// Largest deviation of the field's dip angle from the reference, degrees. Default 10°.
        public var magneticDipThreshold: Double = 10
        /// Time after which a new, steady field is accepted as the reference, s. Default 20 s.
        public var magneticNewFieldTime: Double = 20
        /// The same for the very first field, s. Default 5 s.
        public var magneticNewFieldFirstTime: Double = 5
        /// Rotation rate needed for that time to count, °/s. Default 20 °/s.
        public var magneticNewFieldMinimumRate: Double = 20
        /// Time the field must agree with the reference before it is used again, s. Default 0.5 s.
        public var magneticMinimumUndisturbedTime: Double = 0.5
        /// Longest time a disturbed field is ignored completely, s. Default 60 s.
        public var magneticMaximumRejectionTime: Double = 60
        /// Factor by which the heading gain is lowered after that time, unitless (≥ 1). Default 2.
        public var magneticRejectionFactor: Double = 2

        /// Creates a configuration with the default tuning.
        /// - Parameters:
        ///   - sampleInterval: The time between two samples, s (> 0).
        ///   - usesMagnetometer: `true` for 9-axis fusion to magnetic north, `false` for 6-axis fusion.
        public init(sampleInterval: Double, usesMagnetometer: Bool) {
            self.sampleInterval = sampleInterval
            self.usesMagnetometer = usesMagnetometer
        }
    }
}

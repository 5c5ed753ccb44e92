import FoundationEssentials
import Glibc

/// Turns raw accelerometer, gyroscope and magnetometer samples into `DeviceMotion` samples in a reference
/// frame, with `AttitudeEstimator`: 6-axis for `xArbitraryZVertical`, 9-axis for `xMagneticNorthZVertical`
/// and `xArbitraryCorrectedZVertical` (the 9-axis attitude turned about z so that x is the device's
/// horizontal heading at the first sample).
///
/// Per sample: `gravity = R(q)ᵀ · (0, 0, −1)`, `userAcceleration = accelerometer − gravity`,
/// `rotationRate` = the gyroscope, `magneticField` = the magnetometer (`.uncalibrated`) in the 9-axis
/// frames and zero otherwise (as Core Motion), `heading` in `xMagneticNorthZVertical` only (−1 for a
/// sample without magnetometer reading).
///
/// Thread rule: a value type; use one instance from one task at a time.
public struct SensorFusion: Sendable {
    /// The frame the attitudes are in.
    public let referenceFrame: ReferenceFrame
    private var estimator: AttitudeEstimator
    private var headingOffset: Double?

    /// Creates a fusion for a frame.
    /// - Parameters:
    ///   - referenceFrame: Any frame but `xTrueNorthZVertical` (which needs a location).
    ///   - sampleInterval: Seconds between samples.
    /// - Returns: `nil` for `xTrueNorthZVertical`.
    public init?(referenceFrame: ReferenceFrame, sampleInterval: Double) {
        guard referenceFrame != .xTrueNorthZVertical else { return nil }
        self.referenceFrame = referenceFrame
        estimator = AttitudeEstimator(
            AttitudeEstimator.Configuration(
                sampleInterval: sampleInterval, usesMagnetometer: referenceFrame.needsMagnetometer))
    }

    /// Feeds one set of simultaneous readings and returns the device-motion sample for them.
    /// - Parameters:
    ///   - timestamp: Seconds.
    ///   - acceleration: Accelerometer, g, Core Motion's sign.
    ///   - rotationRate: Gyroscope, rad/s.
    ///   - magneticField: Magnetometer, µT, or `nil` (then the 9-axis frames run on 6 axes for this sample).
    /// - Returns: The sample.
    public mutating func update(
        timestamp: Double, acceleration: Acceleration, rotationRate: RotationRate, magneticField: MagneticField?
    ) -> DeviceMotion {
        estimator.update(
            gyroscope: rotationRate.vector, accelerometer: acceleration.vector, magnetometer: magneticField?.vector)
        var q = estimator.quaternion
        if referenceFrame == .xArbitraryCorrectedZVertical {
            let offset = headingOffset ?? Self.xAxisAngle(q)
            headingOffset = offset
            q = Quaternion.aboutZ(-offset) * q
        }
        let attitude = Attitude(quaternion: q)
        let gravity = attitude.gravity
        let usesField = referenceFrame.needsMagnetometer && magneticField != nil
        return DeviceMotion(
            attitude: attitude,
            gravity: gravity,
            userAcceleration: Acceleration(acceleration.vector - gravity.vector),
            rotationRate: rotationRate,
            magneticField: usesField
                ? CalibratedMagneticField(field: magneticField!, accuracy: .uncalibrated) : .unavailable,
            heading: referenceFrame == .xMagneticNorthZVertical && magneticField != nil ? Self.heading(q) : -1,
            timestamp: timestamp)
    }

    /// The compass heading of the device's +y axis in a North-West-Up frame, degrees in `[0, 360)`.
    static func heading(_ q: Quaternion) -> Double {
        let top = q.rotate(SIMD3(0, 1, 0))
        var degrees = atan2(-top.y, top.x) * 180 / .pi
        if degrees < 0 { degrees += 360 }
        return degrees >= 360 ? 0 : degrees
    }

    /// The angle of the device's x axis projected on the horizontal plane, radians from reference x.
    static func xAxisAngle(_ q: Quaternion) -> Double {
        let x = q.rotate(SIMD3(1, 0, 0))
        return atan2(x.y, x.x)
    }

    /// Fuses whole sample arrays, on the accelerometer's timestamps.
    ///
    /// Gyroscope and magnetometer samples are linearly interpolated to each accelerometer timestamp (and held
    /// at the ends), so sensors sampled at different instants (as in a Sensor Logger export) line up. The
    /// estimator's sample interval is the median accelerometer interval.
    /// - Parameters:
    ///   - accelerometer: g, Core Motion's sign, in time order.
    ///   - gyro: rad/s, in time order; must not be empty.
    ///   - magnetometer: µT, in time order; may be empty for `xArbitraryZVertical`.
    ///   - referenceFrame: The frame; not `xTrueNorthZVertical`.
    /// - Returns: One sample per accelerometer sample, or `[]` when the frame is `xTrueNorthZVertical`, the
    ///   gyroscope is empty, or a 9-axis frame gets no magnetometer samples.
    public static func deviceMotion(
        accelerometer: [AccelerometerData], gyro: [GyroData], magnetometer: [MagnetometerData],
        referenceFrame: ReferenceFrame
    ) -> [DeviceMotion] {
        guard !gyro.isEmpty, !(referenceFrame.needsMagnetometer && magnetometer.isEmpty),
            var fusion = SensorFusion(
                referenceFrame: referenceFrame, sampleInterval: medianInterval(accelerometer.map(\.timestamp)))
        else { return [] }
        var rates = Interpolator(times: gyro.map(\.timestamp), values: gyro.map(\.rotationRate.vector))
        var fields =
            referenceFrame.needsMagnetometer
            ? Interpolator(times: magnetometer.map(\.timestamp), values: magnetometer.map(\.magneticField.vector)) : nil
        var result: [DeviceMotion] = []
        result.reserveCapacity(accelerometer.count)
        for sample in accelerometer {
            let t = sample.timestamp
            result.append(
                fusion.update(
                    timestamp: t, acceleration: sample.acceleration, rotationRate: RotationRate(rates.value(at: t)),
                    magneticField: (fields?.value(at: t)).map { MagneticField($0) }))
        }
        return result
    }

    /// The median of the positive differences of `times`, seconds (0.01 when there are none).
    static func medianInterval(_ times: [Double]) -> Double {
        var deltas = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }
        guard !deltas.isEmpty else { return 0.01 }
        deltas.sort()
        return deltas[deltas.count / 2]
    }
}

/// Linear interpolation of a time series at increasing query times.
struct Interpolator {
    let times: [Double]
    let values: [SIMD3<Double>]
    private var index = 0

    init(times: [Double], values: [SIMD3<Double>]) {
        self.times = times
        self.values = values
    }

    /// The value at `t`; held constant before the first and after the last sample.
    mutating func value(at t: Double) -> SIMD3<Double> {
        guard let first = times.first, t > first else { return values[0] }
        guard t < times[times.count - 1] else { return values[values.count - 1] }
        if times[index] > t { index = 0 }
        while times[index + 1] < t { index += 1 }
        let span = times[index + 1] - times[index]
        let f = span > 0 ? (t - times[index]) / span : 0
        return values[index] + (values[index + 1] - values[index]) * f
    }
}

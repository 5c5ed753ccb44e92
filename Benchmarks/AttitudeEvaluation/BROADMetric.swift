import DeviceMotion
import Foundation

/// The BROAD benchmark's error metric (Laidig et al., Data 6(7):72, 2021; `example_code/broad_utils.py`):
/// `q_err = q_est · conj(q_ref)`, both IMU → ENU; total `2 acos|w|`, heading `2 atan|z/w|`, inclination
/// `2 acos √(w² + z²)`; RMS over the movement rows that have a reference, degrees.
public struct BROADErrors: Sendable {
    public var total: Double
    public var heading: Double
    public var inclination: Double

    /// Rotation about z by +90°: North-West-Up → East-North-Up (`v_ENU = (−v_W, v_N, v_U)`).
    public static let northWestUpToEastNorthUp = Quaternion(angle: .pi / 2, axis: (0, 0, 1))

    /// - Parameters:
    ///   - estimates: Our output, device → North-West-Up (9-axis) or → z-up, x arbitrary (6-axis).
    ///   - trial: The trial with its reference and movement flags.
    ///   - removingMeanHeading: For 6-axis output, whose heading is arbitrary: first rotate the estimate about
    ///     the vertical by the circular mean of its heading error over the evaluated rows (our choice; the
    ///     9-axis figures are computed directly, as in the BROAD code).
    public init(estimates: [Quaternion], trial: BROADTrial, removingMeanHeading: Bool) {
        var errors: [Quaternion] = []
        errors.reserveCapacity(estimates.count)
        for i in estimates.indices where trial.isMovement[i] {
            guard let ref = trial.reference[i] else { continue }
            let est = Self.northWestUpToEastNorthUp * estimates[i]
            errors.append((est * ref.conjugate).normalized)
        }
        if removingMeanHeading {
            var s = 0.0
            var c = 0.0
            for e in errors {
                let psi = 2 * atan2(e.z, e.w)
                s += sin(psi)
                c += cos(psi)
            }
            let offset = Quaternion(angle: -atan2(s, c), axis: (0, 0, 1))
            errors = errors.map { (offset * $0).normalized }
        }
        var sumTotal = 0.0
        var sumHeading = 0.0
        var sumInclination = 0.0
        for e in errors {
            let total = 2 * acos(min(abs(e.w), 1))
            let heading = 2 * atan(abs(e.z / e.w))
            let inclination = 2 * acos(min((e.w * e.w + e.z * e.z).squareRoot(), 1))
            sumTotal += total * total
            sumHeading += heading * heading
            sumInclination += inclination * inclination
        }
        let n = Double(max(errors.count, 1))
        let degrees = 180 / Double.pi
        total = (sumTotal / n).squareRoot() * degrees
        heading = (sumHeading / n).squareRoot() * degrees
        inclination = (sumInclination / n).squareRoot() * degrees
    }
}

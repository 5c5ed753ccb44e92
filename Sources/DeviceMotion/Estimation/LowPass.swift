import FoundationEssentials
import Glibc

/// Coefficients of a second-order Butterworth low-pass filter (bilinear transform, `a0 = 1`).
///
/// The cut-off frequency is `fc = √2 / (2π τ)`, so that the step response's non-oscillating part has the
/// time constant `τ` (the parametrisation of Laidig & Seel, VQF, Information Fusion 91, 2023, sec. 3.2).
@usableFromInline
struct ButterworthCoefficients: Sendable, Hashable {
    @usableFromInline var b0: Double
    @usableFromInline var b1: Double
    @usableFromInline var b2: Double
    @usableFromInline var a1: Double
    @usableFromInline var a2: Double

    /// - Parameters:
    ///   - timeConstant: τ, s (> 0).
    ///   - interval: Sample interval, s (> 0).
    @usableFromInline
    init(timeConstant: Double, interval: Double) {
        let fc = 2.0.squareRoot() / (2 * Double.pi) / timeConstant
        let c = tan(Double.pi * fc * interval)
        let d = c * c + 2.0.squareRoot() * c + 1
        b0 = c * c / d
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (c * c - 1) / d
        a2 = (1 - 2.0.squareRoot() * c + c * c) / d
    }
}

/// A second-order Butterworth low-pass over every lane of a SIMD vector, in transposed direct form II.
///
/// To depend on more than the first sample, the filter outputs the running mean of its input for the
/// first `τ` seconds and then starts from the steady state at that mean.
@usableFromInline
struct LowPass<Vector: SIMD & Sendable>: Sendable where Vector.Scalar == Double {
    @usableFromInline var s0: Vector = .zero
    @usableFromInline var s1: Vector = .zero
    @usableFromInline var sum: Vector = .zero
    @usableFromInline var count: Double = 0
    @usableFromInline var isWarm = false
    /// Samples averaged before filtering starts: `τ / Ts`.
    @usableFromInline let warmUpSamples: Double

    @usableFromInline
    init(timeConstant: Double, interval: Double) {
        warmUpSamples = timeConstant / interval
    }

    /// Filters one sample.
    /// - Returns: The filter output for this sample.
    @inlinable @inline(__always)
    mutating func step(_ x: Vector, _ k: ButterworthCoefficients) -> Vector {
        if isWarm {
            let y = k.b0 * x + s0
            s0 = k.b1 * x - k.a1 * y + s1
            s1 = k.b2 * x - k.a2 * y
            return y
        }
        return warmUp(x, k)
    }

    @usableFromInline
    mutating func warmUp(_ x: Vector, _ k: ButterworthCoefficients) -> Vector {
        count += 1
        sum += x
        let mean = sum / Vector(repeating: count)
        if count >= warmUpSamples {
            // Steady state for a constant input `mean`: y = x = mean in the update equations.
            s0 = mean * (1 - k.b0)
            s1 = mean * (k.b2 - k.a2)
            isWarm = true
        }
        return mean
    }
}

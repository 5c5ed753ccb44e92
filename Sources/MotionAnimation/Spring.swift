#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The physical parameters of a damped spring: m·x″ + c·x′ + k·x = 0, where x is the displacement
/// from the destination.
///
/// Units are the caller's value unit u and seconds: stiffness k in (mass)/s², damping c in (mass)/s,
/// mass m in an arbitrary mass unit (only ratios matter). The defaults, stiffness 342 and damping 30
/// at mass 1, are the ones the Material Motion families used (an underdamped spring, ζ ≈ 0.81, that
/// settles in about 0.4 s).
public struct Spring: Hashable, Sendable {
    /// Stiffness k, > 0.
    public let stiffness: Double
    /// Damping coefficient c, >= 0 (0: oscillates forever).
    public let damping: Double
    /// Mass m, > 0.
    public let mass: Double

    /// Creates a spring.
    /// - Parameters:
    ///   - stiffness: k, finite and > 0; default 342.
    ///   - damping: c, finite and >= 0; default 30.
    ///   - mass: m, finite and > 0; default 1.
    /// - Throws: `AnimationError` naming the parameter that is not finite or out of range.
    public init(stiffness: Double = 342, damping: Double = 30, mass: Double = 1) throws(AnimationError) {
        try require(
            stiffness, "stiffness", in: .leastNonzeroMagnitude...Double.greatestFiniteMagnitude, "a stiffness > 0")
        try require(damping, "damping", in: 0...Double.greatestFiniteMagnitude, "a damping >= 0")
        try require(mass, "mass", in: .leastNonzeroMagnitude...Double.greatestFiniteMagnitude, "a mass > 0")
        self.stiffness = stiffness
        self.damping = damping
        self.mass = mass
    }

    /// The undamped angular frequency ω₀ = √(k/m), in rad/s.
    public var angularFrequency: Double { (stiffness / mass).squareRoot() }

    /// The damping ratio ζ = c / (2√(k·m)): < 1 underdamped (overshoots), 1 critical, > 1 overdamped.
    public var dampingRatio: Double { damping / (2 * (stiffness * mass).squareRoot()) }

    /// Advances one component by `duration` with the closed-form solution of the spring's equation,
    /// so the result is exact for any step and never blows up (no integration error accumulates).
    /// - Parameters:
    ///   - displacement: x, value minus destination, in u.
    ///   - velocity: x′, in u/s.
    ///   - duration: the step in s; values <= 0 or not finite return the state unchanged.
    /// - Returns: the displacement (u) and velocity (u/s) after the step.
    public func advance(displacement x0: Double, velocity v0: Double, by duration: Double) -> (
        displacement: Double, velocity: Double
    ) {
        guard duration > 0, duration.isFinite else { return (x0, v0) }
        let t = duration
        let omega0 = angularFrequency
        let zeta = dampingRatio
        if abs(zeta - 1) < 1e-9 {
            // Critically damped: x = e^(−ω₀t)·(x₀ + (v₀ + ω₀x₀)·t).
            let decay = exp(-omega0 * t)
            let b = v0 + omega0 * x0
            return (decay * (x0 + b * t), decay * (v0 - omega0 * b * t))
        } else if zeta < 1 {
            // Underdamped: x = e^(−ζω₀t)·(x₀·cos ω_d t + (v₀ + ζω₀x₀)/ω_d · sin ω_d t).
            let omegaD = omega0 * (1 - zeta * zeta).squareRoot()
            let decay = exp(-zeta * omega0 * t)
            let cosine = cos(omegaD * t)
            let sine = sin(omegaD * t)
            let x = decay * (x0 * cosine + (v0 + zeta * omega0 * x0) / omegaD * sine)
            let v = decay * (v0 * cosine - (zeta * omega0 * v0 + omega0 * omega0 * x0) / omegaD * sine)
            return (x, v)
        } else {
            // Overdamped: x = c₁·e^(r₁t) + c₂·e^(r₂t), r = −ω₀(ζ ∓ √(ζ² − 1)).
            let root = (zeta * zeta - 1).squareRoot()
            let r1 = -omega0 * (zeta - root)
            let r2 = -omega0 * (zeta + root)
            let c2 = (v0 - r1 * x0) / (r2 - r1)
            let c1 = x0 - c2
            let e1 = exp(r1 * t)
            let e2 = exp(r2 * t)
            return (c1 * e1 + c2 * e2, c1 * r1 * e1 + c2 * r2 * e2)
        }
    }
}

/// A spring animating a vector value (1 or more components) towards a destination.
///
/// Each component moves independently under the same `Spring`. Changing the destination while moving
/// (re-targeting) keeps the current value and velocity, so the motion stays continuous. The simulation
/// is at rest when every component is within `threshold` of the destination and its speed is below
/// `threshold` per second; it then snaps exactly to the destination with zero velocity.
public struct SpringSimulation: Hashable, Sendable {
    /// The spring's parameters.
    public var spring: Spring
    /// The current value, one number per component (u).
    public private(set) var value: [Double]
    /// The current velocity, one number per component (u/s).
    public private(set) var velocity: [Double]
    /// Where the spring pulls the value (u), as many components as `value`.
    public private(set) var destination: [Double]
    /// The rest threshold: largest displacement (u) and speed (u/s) that count as at rest.
    public let threshold: Double

    /// Creates a simulation.
    /// - Parameters:
    ///   - spring: the spring's parameters.
    ///   - value: the start value (1 or more finite components).
    ///   - velocity: the start velocity (u/s), as many components as `value`; `nil` means at rest.
    ///   - destination: the destination, as many finite components as `value`.
    ///   - threshold: the rest threshold, finite and > 0; default 0.001.
    /// - Throws: `AnimationError` for an empty value, a component count mismatch, a non-finite number or a
    ///   threshold <= 0.
    public init(
        spring: Spring, value: [Double], velocity: [Double]? = nil, destination: [Double], threshold: Double = 0.001
    ) throws(AnimationError) {
        guard !value.isEmpty else {
            throw AnimationError(
                .outOfRange, parameter: "value", message: "is empty. To fix, pass 1 or more components.")
        }
        let velocity = velocity ?? Array(repeating: 0, count: value.count)
        try Self.requireComponents(velocity, count: value.count, "velocity")
        try Self.requireComponents(destination, count: value.count, "destination")
        try Self.requireComponents(value, count: value.count, "value")
        try require(
            threshold, "threshold", in: .leastNonzeroMagnitude...Double.greatestFiniteMagnitude, "a threshold > 0")
        self.spring = spring
        self.value = value
        self.velocity = velocity
        self.destination = destination
        self.threshold = threshold
    }

    /// Whether every component is within `threshold` of the destination and slower than `threshold` per second.
    public var isAtRest: Bool {
        for index in value.indices
        where abs(value[index] - destination[index]) > threshold || abs(velocity[index]) > threshold {
            return false
        }
        return true
    }

    /// Re-targets the spring, keeping the current value and velocity.
    /// - Parameter destination: the new destination, as many finite components as `value`.
    /// - Throws: `AnimationError` for a component count mismatch or a non-finite component; the
    ///   simulation is then unchanged.
    public mutating func retarget(to destination: [Double]) throws(AnimationError) {
        try Self.requireComponents(destination, count: value.count, "destination")
        self.destination = destination
    }

    /// Advances the simulation by one step (exact closed-form solution, any step size), then snaps to
    /// the destination if at rest.
    /// - Parameter duration: the step in s; <= 0 or not finite leaves the simulation unchanged.
    /// - Returns: `isAtRest` after the step.
    @discardableResult
    public mutating func advance(by duration: Double) -> Bool {
        for index in value.indices {
            let next = spring.advance(
                displacement: value[index] - destination[index], velocity: velocity[index], by: duration)
            value[index] = destination[index] + next.displacement
            velocity[index] = next.velocity
        }
        if isAtRest {
            value = destination
            for index in velocity.indices { velocity[index] = 0 }
            return true
        }
        return false
    }

    private static func requireComponents(_ numbers: [Double], count: Int, _ name: String) throws(AnimationError) {
        guard numbers.count == count else {
            throw AnimationError(
                .outOfRange, parameter: name,
                message: "has \(numbers.count) components. To fix, pass \(count), as many as the value.")
        }
        for (index, number) in numbers.enumerated() {
            try require(number, "\(name)[\(index)]", "a finite number")
        }
    }
}

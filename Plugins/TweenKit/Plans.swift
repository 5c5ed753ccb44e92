import MotionAnimation
import MotionPluginKit

/// Animates one property of the target from a value (or its current value) to a value over a duration.
///
/// Defaults live in the manifest only (`manifests/tweenkit.json`): the host fills absent fields from it
/// before the plugin sees a plan, so every field without `?` always arrives and decoding is synthesized.
struct Tween: PluginPlan, Equatable {
    static let type = "Tween"
    /// The property's name, e.g. "opacity".
    var property: String
    /// The start value; absent: the property's value when the tween starts (after the delay).
    var from: [Double]? = nil
    /// The end value (1–4 components).
    var to: [Double]
    /// s, >= 0.
    var duration: Double
    /// s, >= 0, before the tween starts.
    var delay: Double
    /// linear, easeIn, easeOut or easeInOut; ignored when `controlPoints` is given.
    var timing: String
    /// A cubic-Bézier [x1, y1, x2, y2] that overrides `timing`.
    var controlPoints: [Double]? = nil

    /// Checks what the manifest cannot express and resolves the timing curve.
    /// - Throws: `PluginError` (invalid plan) naming the field.
    func validatedCurve() throws(PluginError) -> TimingCurve {
        guard !property.isEmpty else { throw .invalidPlan(field: "property", "is empty. To fix, name a property.") }
        try requireVector(to, "to")
        if let from {
            try requireVector(from, "from")
            guard from.count == to.count else {
                throw .invalidPlan(
                    field: "from", "has \(from.count) components but \"to\" has \(to.count). To fix, match them.")
            }
        }
        guard duration.isFinite, duration >= 0 else {
            throw .invalidPlan(field: "duration", "is \(duration). To fix, pass a duration >= 0 in seconds.")
        }
        guard delay.isFinite, delay >= 0 else {
            throw .invalidPlan(field: "delay", "is \(delay). To fix, pass a delay >= 0 in seconds.")
        }
        do {
            if let controlPoints { return .cubicBezier(try CubicBezier(controlPoints: controlPoints)) }
            return try TimingCurve(named: timing)
        } catch {
            throw .invalidPlan(field: controlPoints == nil ? "timing" : "controlPoints", error.description)
        }
    }
}

/// Fades the target's "opacity" from 0 to 1 by emitting a `Tween` to its own target. Defaults: the
/// manifest's, filled in by the host.
struct FadeIn: PluginPlan {
    static let type = "FadeIn"
    /// s, >= 0.
    var duration: Double
    /// s, >= 0.
    var delay: Double
    /// linear, easeIn, easeOut or easeInOut.
    var timing: String
}

/// Fades the target's "opacity" from its current value to 0 by emitting a `Tween` to its own target.
/// Defaults: the manifest's, filled in by the host.
struct FadeOut: PluginPlan {
    static let type = "FadeOut"
    /// s, >= 0.
    var duration: Double
    /// s, >= 0.
    var delay: Double
    /// linear, easeIn, easeOut or easeInOut.
    var timing: String
}

/// Pulls one property towards a destination with a spring until it comes to rest. Defaults (Material
/// Motion's stiffness and damping): the manifest's, filled in by the host.
struct SpringTo: PluginPlan {
    static let type = "SpringTo"
    /// The property's name.
    var property: String
    /// Where the spring pulls the property (1–4 components).
    var destination: [Double]
    /// k, > 0.
    var stiffness: Double
    /// c, >= 0.
    var damping: Double
    /// m, > 0.
    var mass: Double
    /// The rest threshold in the property's units (and units/s), > 0.
    var threshold: Double

    /// The spring, validated.
    /// - Throws: `PluginError` (invalid plan) naming the field.
    func validatedSpring() throws(PluginError) -> Spring {
        guard !property.isEmpty else { throw .invalidPlan(field: "property", "is empty. To fix, name a property.") }
        try requireVector(destination, "destination")
        guard threshold.isFinite, threshold > 0 else {
            throw .invalidPlan(field: "threshold", "is \(threshold). To fix, pass a threshold > 0.")
        }
        do {
            return try Spring(stiffness: stiffness, damping: damping, mass: mass)
        } catch {
            throw .invalidPlan(field: error.parameter, error.message)
        }
    }
}

// Read by handle from a host of ABI 1.4 (one host call per plan, no Decoder); Codable stays the reference
// (older hosts, and the fallback for a field these readers cannot take).

extension Tween: PlanFieldReading {
    static let fieldNames = ["property", "from", "to", "duration", "delay", "timing", "controlPoints"]

    init(fields: PlanFields) throws {
        self.init(
            property: try fields.string("property"), from: try fields.numbersIfPresent("from"), to: try fields.numbers("to"),
            duration: try fields.number("duration"), delay: try fields.number("delay"), timing: try fields.string("timing"),
            controlPoints: try fields.numbersIfPresent("controlPoints"))
    }
}

extension FadeIn: PlanFieldReading {
    static let fieldNames = ["duration", "delay", "timing"]

    init(fields: PlanFields) throws {
        self.init(duration: try fields.number("duration"), delay: try fields.number("delay"), timing: try fields.string("timing"))
    }
}

extension FadeOut: PlanFieldReading {
    static let fieldNames = ["duration", "delay", "timing"]

    init(fields: PlanFields) throws {
        self.init(duration: try fields.number("duration"), delay: try fields.number("delay"), timing: try fields.string("timing"))
    }
}

extension SpringTo: PlanFieldReading {
    static let fieldNames = ["property", "destination", "stiffness", "damping", "mass", "threshold"]

    init(fields: PlanFields) throws {
        self.init(
            property: try fields.string("property"), destination: try fields.numbers("destination"),
            stiffness: try fields.number("stiffness"), damping: try fields.number("damping"), mass: try fields.number("mass"),
            threshold: try fields.number("threshold"))
    }
}

/// Throws unless `vector` has 1–4 finite components.
func requireVector(_ vector: [Double], _ field: String) throws(PluginError) {
    guard (1...4).contains(vector.count) else {
        throw .invalidPlan(field: field, "has \(vector.count) components. To fix, pass 1 to 4 numbers.")
    }
    for (index, value) in vector.enumerated() where !value.isFinite {
        throw .invalidPlan(field: "\(field)[\(index)]", "is \(value). To fix, pass a finite number.")
    }
}

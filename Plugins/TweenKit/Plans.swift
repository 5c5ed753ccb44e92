import MotionAnimation
import MotionPluginKit

/// Animates one property of the target from a value (or its current value) to a value over a duration.
/// Manifest: `manifests/tweenkit.json`.
struct Tween: PluginPlan, Equatable {
    static let type = "Tween"
    /// The property's name, e.g. "opacity".
    var property: String
    /// The start value; absent: the property's value when the tween starts (after the delay).
    var from: [Double]?
    /// The end value (1–4 components).
    var to: [Double]
    /// s, >= 0.
    var duration: Double = 0.3
    /// s, >= 0, before the tween starts.
    var delay: Double = 0
    /// linear, easeIn, easeOut or easeInOut; ignored when `controlPoints` is given.
    var timing: String = "easeInOut"
    /// A cubic-Bézier [x1, y1, x2, y2] that overrides `timing`.
    var controlPoints: [Double]?

    init(
        property: String, from: [Double]? = nil, to: [Double], duration: Double = 0.3, delay: Double = 0,
        timing: String = "easeInOut", controlPoints: [Double]? = nil
    ) {
        self.property = property
        self.from = from
        self.to = to
        self.duration = duration
        self.delay = delay
        self.timing = timing
        self.controlPoints = controlPoints
    }

    enum CodingKeys: String, CodingKey { case property, from, to, duration, delay, timing, controlPoints }

    // Decoding fills the manifest's defaults too, so the plugin works with hosts that do not.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        property = try container.decode(String.self, forKey: .property)
        from = try container.decodeIfPresent([Double].self, forKey: .from)
        to = try container.decode([Double].self, forKey: .to)
        duration = try container.decodeIfPresent(Double.self, forKey: .duration) ?? 0.3
        delay = try container.decodeIfPresent(Double.self, forKey: .delay) ?? 0
        timing = try container.decodeIfPresent(String.self, forKey: .timing) ?? "easeInOut"
        controlPoints = try container.decodeIfPresent([Double].self, forKey: .controlPoints)
    }

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

/// Fades the target's "opacity" from 0 to 1 by emitting a `Tween` to its own target.
struct FadeIn: PluginPlan {
    static let type = "FadeIn"
    /// s, >= 0.
    var duration: Double = 0.3
    /// s, >= 0.
    var delay: Double = 0
    /// linear, easeIn, easeOut or easeInOut.
    var timing: String = "easeOut"

    enum CodingKeys: String, CodingKey { case duration, delay, timing }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        duration = try container.decodeIfPresent(Double.self, forKey: .duration) ?? 0.3
        delay = try container.decodeIfPresent(Double.self, forKey: .delay) ?? 0
        timing = try container.decodeIfPresent(String.self, forKey: .timing) ?? "easeOut"
    }
}

/// Fades the target's "opacity" from its current value to 0 by emitting a `Tween` to its own target.
struct FadeOut: PluginPlan {
    static let type = "FadeOut"
    /// s, >= 0.
    var duration: Double = 0.3
    /// s, >= 0.
    var delay: Double = 0
    /// linear, easeIn, easeOut or easeInOut.
    var timing: String = "easeIn"

    enum CodingKeys: String, CodingKey { case duration, delay, timing }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        duration = try container.decodeIfPresent(Double.self, forKey: .duration) ?? 0.3
        delay = try container.decodeIfPresent(Double.self, forKey: .delay) ?? 0
        timing = try container.decodeIfPresent(String.self, forKey: .timing) ?? "easeIn"
    }
}

/// Pulls one property towards a destination with a spring until it comes to rest.
struct SpringTo: PluginPlan {
    static let type = "SpringTo"
    /// The property's name.
    var property: String
    /// Where the spring pulls the property (1–4 components).
    var destination: [Double]
    /// k, > 0 (Material Motion's default 342).
    var stiffness: Double = 342
    /// c, >= 0 (Material Motion's default 30).
    var damping: Double = 30
    /// m, > 0.
    var mass: Double = 1
    /// The rest threshold in the property's units (and units/s), > 0.
    var threshold: Double = 0.001

    enum CodingKeys: String, CodingKey { case property, destination, stiffness, damping, mass, threshold }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        property = try container.decode(String.self, forKey: .property)
        destination = try container.decode([Double].self, forKey: .destination)
        stiffness = try container.decodeIfPresent(Double.self, forKey: .stiffness) ?? 342
        damping = try container.decodeIfPresent(Double.self, forKey: .damping) ?? 30
        mass = try container.decodeIfPresent(Double.self, forKey: .mass) ?? 1
        threshold = try container.decodeIfPresent(Double.self, forKey: .threshold) ?? 0.001
    }

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

/// Throws unless `vector` has 1–4 finite components.
func requireVector(_ vector: [Double], _ field: String) throws(PluginError) {
    guard (1...4).contains(vector.count) else {
        throw .invalidPlan(field: field, "has \(vector.count) components. To fix, pass 1 to 4 numbers.")
    }
    for (index, value) in vector.enumerated() where !value.isFinite {
        throw .invalidPlan(field: "\(field)[\(index)]", "is \(value). To fix, pass a finite number.")
    }
}

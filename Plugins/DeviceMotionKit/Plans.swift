import MotionPluginKit

/// Tilts the target with the device: attitude roll and pitch (rad, Core Motion's formulas) set the
/// target's rotation [x, y, z] = [gain · pitch, gain · roll, 0] (each clamped to ±maximumAngle rad) and
/// offset its position [x, y] by [parallax · roll, parallax · pitch] (pt, each clamped to ±maximumOffset)
/// from the position it had when the plan arrived. Manifest: `manifests/devicemotionkit.json`.
struct Tiltable: PluginPlan, Equatable {
    static let type = "Tiltable"
    /// The rotation property (3 components, rad).
    var rotationProperty = "rotation"
    /// The position property (2 or more components, pt).
    var positionProperty = "position"
    /// rad of rotation per rad of attitude.
    var gain = 1.0
    /// rad, >= 0: the largest rotation about each axis.
    var maximumAngle = 0.5
    /// pt per rad of attitude; 0 leaves the position alone.
    var parallax = 40.0
    /// pt, >= 0: the largest offset along each axis.
    var maximumOffset = 20.0
    /// "firstSample": roll and pitch minus those of the first sample after the plan arrived (roll
    /// difference wrapped into [−π, π]); "referenceFrame": the angles of the attitude as delivered.
    var relativeTo = "firstSample"
    /// s, > 0: the token is released after this long without a sample.
    var timeout = 0.5

    enum CodingKeys: String, CodingKey {
        case rotationProperty, positionProperty, gain, maximumAngle, parallax, maximumOffset, relativeTo, timeout
    }

    init(
        rotationProperty: String = "rotation", positionProperty: String = "position", gain: Double = 1,
        maximumAngle: Double = 0.5, parallax: Double = 40, maximumOffset: Double = 20,
        relativeTo: String = "firstSample", timeout: Double = 0.5
    ) {
        self.rotationProperty = rotationProperty
        self.positionProperty = positionProperty
        self.gain = gain
        self.maximumAngle = maximumAngle
        self.parallax = parallax
        self.maximumOffset = maximumOffset
        self.relativeTo = relativeTo
        self.timeout = timeout
    }

    // Decoding fills the manifest's defaults too, so the plugin works with hosts that do not.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rotationProperty = try c.decodeIfPresent(String.self, forKey: .rotationProperty) ?? "rotation"
        positionProperty = try c.decodeIfPresent(String.self, forKey: .positionProperty) ?? "position"
        gain = try c.decodeIfPresent(Double.self, forKey: .gain) ?? 1
        maximumAngle = try c.decodeIfPresent(Double.self, forKey: .maximumAngle) ?? 0.5
        parallax = try c.decodeIfPresent(Double.self, forKey: .parallax) ?? 40
        maximumOffset = try c.decodeIfPresent(Double.self, forKey: .maximumOffset) ?? 20
        relativeTo = try c.decodeIfPresent(String.self, forKey: .relativeTo) ?? "firstSample"
        timeout = try c.decodeIfPresent(Double.self, forKey: .timeout) ?? 0.5
    }

    /// Whether the attitude is taken relative to the first sample.
    var isRelativeToFirstSample: Bool { relativeTo == "firstSample" }

    /// Checks what the manifest cannot express (and everything, for hosts that do not validate).
    /// - Throws: `PluginError` (invalid plan) naming the field.
    func validate() throws(PluginError) {
        try requireName(rotationProperty, "rotationProperty")
        try requireName(positionProperty, "positionProperty")
        try requireFinite(gain, "gain")
        try requireFinite(parallax, "parallax")
        try requireNonNegative(maximumAngle, "maximumAngle", unit: "rad")
        try requireNonNegative(maximumOffset, "maximumOffset", unit: "pt")
        try requireTimeout(timeout)
        guard relativeTo == "firstSample" || relativeTo == "referenceFrame" else {
            throw .invalidPlan(
                field: "relativeTo", "is \"\(relativeTo)\". To fix, pass \"firstSample\" or \"referenceFrame\".")
        }
    }
}

/// Writes the vertical acceleration `gravity · userAcceleration` (g; Composable Core Motion's README) of
/// each sample to a one-component property of the target.
struct VerticalMotion: PluginPlan, Equatable {
    static let type = "VerticalMotion"
    /// The property written, one component, g.
    var property = "verticalAcceleration"
    /// s, > 0: the token is released after this long without a sample.
    var timeout = 0.5

    enum CodingKeys: String, CodingKey { case property, timeout }

    init(property: String = "verticalAcceleration", timeout: Double = 0.5) {
        self.property = property
        self.timeout = timeout
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        property = try c.decodeIfPresent(String.self, forKey: .property) ?? "verticalAcceleration"
        timeout = try c.decodeIfPresent(Double.self, forKey: .timeout) ?? 0.5
    }

    /// Checks the fields.
    /// - Throws: `PluginError` (invalid plan) naming the field.
    func validate() throws(PluginError) {
        try requireName(property, "property")
        try requireTimeout(timeout)
    }
}

/// Emits a transaction when the user acceleration's magnitude stays above `threshold` g for at least
/// `minimumDuration` s (sample time), then ignores shakes for `cooldown` s.
struct ShakeDetector: PluginPlan, Equatable {
    static let type = "ShakeDetector"
    /// g, > 0.
    var threshold = 1.0
    /// s, >= 0: how long |userAcceleration| must stay above the threshold (0: one sample is enough).
    var minimumDuration = 0.05
    /// s, >= 0: after firing, no shake fires before this much sample time has passed.
    var cooldown = 1.0
    /// The transaction emitted on each shake, `{"operations": [...]}` (the host's transaction JSON).
    var transaction: JSONValue = .object(["operations": .array([])])
    /// s, > 0: the token is released after this long without a sample.
    var timeout = 0.5

    enum CodingKeys: String, CodingKey { case threshold, minimumDuration, cooldown, transaction, timeout }

    init(
        threshold: Double = 1, minimumDuration: Double = 0.05, cooldown: Double = 1,
        transaction: JSONValue = .object(["operations": .array([])]), timeout: Double = 0.5
    ) {
        self.threshold = threshold
        self.minimumDuration = minimumDuration
        self.cooldown = cooldown
        self.transaction = transaction
        self.timeout = timeout
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        threshold = try c.decodeIfPresent(Double.self, forKey: .threshold) ?? 1
        minimumDuration = try c.decodeIfPresent(Double.self, forKey: .minimumDuration) ?? 0.05
        cooldown = try c.decodeIfPresent(Double.self, forKey: .cooldown) ?? 1
        transaction = try c.decodeIfPresent(JSONValue.self, forKey: .transaction) ?? .object(["operations": .array([])])
        timeout = try c.decodeIfPresent(Double.self, forKey: .timeout) ?? 0.5
    }

    /// The number of operations of `transaction`.
    var operationCount: Int {
        guard case .object(let members) = transaction, case .array(let operations)? = members["operations"] else {
            return 0
        }
        return operations.count
    }

    /// Checks the fields.
    /// - Throws: `PluginError` (invalid plan) naming the field.
    func validate() throws(PluginError) {
        guard threshold.isFinite, threshold > 0 else {
            throw .invalidPlan(field: "threshold", "is \(threshold). To fix, pass a threshold > 0 in g.")
        }
        try requireNonNegative(minimumDuration, "minimumDuration", unit: "s")
        try requireNonNegative(cooldown, "cooldown", unit: "s")
        try requireTimeout(timeout)
        guard case .object(let members) = transaction, case .array(let operations)? = members["operations"] else {
            throw .invalidPlan(
                field: "transaction",
                "is not a transaction. To fix, pass {\"operations\": [{\"op\": \"add\", \"target\": ..., \"plan\": {...}}]}.")
        }
        for (index, operation) in operations.enumerated() {
            guard case .object = operation else {
                throw .invalidPlan(
                    field: "transaction.operations[\(index)]", "is not an object. To fix, pass an operation object.")
            }
        }
    }
}

private func requireName(_ name: String, _ field: String) throws(PluginError) {
    guard !name.isEmpty else { throw .invalidPlan(field: field, "is empty. To fix, name a property.") }
}

private func requireFinite(_ value: Double, _ field: String) throws(PluginError) {
    guard value.isFinite else { throw .invalidPlan(field: field, "is \(value). To fix, pass a finite number.") }
}

private func requireNonNegative(_ value: Double, _ field: String, unit: String) throws(PluginError) {
    guard value.isFinite, value >= 0 else {
        throw .invalidPlan(field: field, "is \(value). To fix, pass a number >= 0 in \(unit).")
    }
}

private func requireTimeout(_ value: Double) throws(PluginError) {
    guard value.isFinite, value > 0 else {
        throw .invalidPlan(field: "timeout", "is \(value). To fix, pass a timeout > 0 in seconds.")
    }
}

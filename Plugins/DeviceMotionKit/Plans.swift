import MotionPluginKit

/// Tilts the target with the device: attitude roll and pitch (rad, Core Motion's formulas) set the
/// target's rotation [x, y, z] = [gain · pitch, gain · roll, 0] (each clamped to ±maximumAngle rad) and
/// offset its position [x, y] by [parallax · roll, parallax · pitch] (pt, each clamped to ±maximumOffset)
/// from the position it had when the plan arrived. Manifest: `manifests/devicemotionkit.json`.
///
/// The plans' defaults live in the manifest only: the host fills absent fields from it before the plugin
/// sees a plan, so every field always arrives and decoding is synthesized.
struct Tiltable: PluginPlan, Equatable {
    static let type = "Tiltable"
    /// The rotation property (3 components, rad).
    var rotationProperty: String
    /// The position property (2 or more components, pt).
    var positionProperty: String
    /// rad of rotation per rad of attitude.
    var gain: Double
    /// rad, >= 0: the largest rotation about each axis.
    var maximumAngle: Double
    /// pt per rad of attitude; 0 leaves the position alone.
    var parallax: Double
    /// pt, >= 0: the largest offset along each axis.
    var maximumOffset: Double
    /// "firstSample": roll and pitch minus those of the first sample after the plan arrived (roll
    /// difference wrapped into [−π, π]); "referenceFrame": the angles of the attitude as delivered.
    var relativeTo: String
    /// s, > 0: the token is released after this long without a sample.
    var timeout: Double

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
    var property: String
    /// s, > 0: the token is released after this long without a sample.
    var timeout: Double

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
    var threshold: Double
    /// s, >= 0: how long |userAcceleration| must stay above the threshold (0: one sample is enough).
    var minimumDuration: Double
    /// s, >= 0: after firing, no shake fires before this much sample time has passed.
    var cooldown: Double
    /// The transaction emitted on each shake, `{"operations": [...]}` (the host's transaction JSON).
    var transaction: JSONValue
    /// s, > 0: the token is released after this long without a sample.
    var timeout: Double

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

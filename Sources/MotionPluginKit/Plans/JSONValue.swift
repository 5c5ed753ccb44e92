#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `JSONValue` (MotionValues, the same type the host uses) holds a plan field whose shape the manifest
/// leaves open (`"type": "object"` or `"array"`). DeviceMotionKit's `ShakeDetector` keeps the transaction it
/// emits in one.
///
/// ```swift
/// struct OnShake: PluginPlan {
///     static let type = "OnShake"
///     var transaction: JSONValue
/// }
/// // later: try context.emit(transactionJSON: plan.transaction.encodedText())
/// ```
extension JSONValue {
    /// The JSON text, object keys sorted (deterministic), slashes unescaped, numbers as Foundation's
    /// `JSONEncoder` writes them.
    /// - Throws: `EncodingError` for a number that is not finite.
    public func encodedText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Any JSON value, for a plan field whose shape the manifest leaves open (`"type": "object"` or
/// `"array"`): decoded as it is and encoded back as the same JSON value, except that object keys are
/// not kept in order and numbers are `Double`s (an integer beyond 2^53 loses precision; `1e2` comes back
/// as `100`).
/// DeviceMotionKit's `ShakeDetector` keeps the transaction it emits in one.
///
/// ```swift
/// struct OnShake: PluginPlan {
///     static let type = "OnShake"
///     var transaction: JSONValue = .object(["operations": .array([])])
/// }
/// // later: try context.emit(transactionJSON: plan.transaction.encodedText())
/// ```
public enum JSONValue: Codable, Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (JSON numbers decode as `Double`).
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object; the order of its keys is not kept.
    case object([String: JSONValue])

    /// Decodes any JSON value.
    /// - Throws: `DecodingError` when the decoder holds no JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as it was decoded.
    /// - Throws: `EncodingError` for a number that is not finite.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The JSON text, object keys sorted (deterministic), slashes unescaped.
    /// - Throws: `EncodingError` for a number that is not finite.
    public func encodedText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

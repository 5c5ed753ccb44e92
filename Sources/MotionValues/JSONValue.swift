/// A JSON value: the shape plan fields take when a plan is described as data.
///
/// One type for the host side (MotionCore, which reads and writes it with simdjson and its own writer) and
/// the plugin SDK (MotionPluginKit, which encodes it with Foundation), which may not depend on each other;
/// both re-export this module. Only the cases and `Codable` are here, so plugins link little; MotionCore
/// adds `Hashable`, the accessors (`number`, `string`, ...), `typeName` and the literal conformances.
///
/// Numbers are `Double`, as in JSON itself. Objects keep their keys in a dictionary (JSON objects are
/// unordered); encoding sorts keys so output is stable.
///
/// Thread rule: a value type; safe to use from any thread.
public enum JSONValue: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])
}

extension JSONValue: Codable {
    /// Decodes any JSON value.
    /// - Throws: `DecodingError.dataCorrupted` if the value is none of the JSON types.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? container.decode(Double.self) {
            self = .number(n)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else if let o = try? container.decode([String: JSONValue].self) {
            self = .object(o)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a JSON value.")
        }
    }

    /// Encodes this value as the JSON it describes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n): try container.encode(n)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

import FoundationEssentials

/// A typed plan: a Swift value that says what a target should do or how it should behave.
///
/// Conform a `Codable` struct to add it to a transaction without going through JSON; it reaches
/// performers the same way a JSON plan does (``Plan/decode(_:)`` returns it without decoding).
/// Its JSON form is `{"type": planType, ...its coded fields}`.
///
/// ```swift
/// struct FadeIn: PlanValue {
///     static let planType = "FadeIn"
///     var duration: Double
/// }
/// ```
public protocol PlanValue: Codable, Sendable {
    /// The plan type name that selects the performer, e.g. `"Tween"`. Must not be empty.
    static var planType: String { get }
}

/// A plan: a plan type name and its fields.
///
/// A plan is a value, so the runtime always works on its own copy (Documentation/RUNTIME.md R1, R2). It is built
/// either from JSON fields (`{"type": "Tween", "property": "opacity", ...}`) or from a typed
/// ``PlanValue``; both reach performers as a `Plan`.
///
/// Thread rule: a value type; safe to use from any thread.
public struct Plan: Sendable {
    enum Payload: Sendable {
        case fields([String: JSONValue])
        case typed(any PlanValue)
    }

    /// The plan type name, e.g. `"Tween"`.
    public let type: String
    var payload: Payload

    /// A plan described as data.
    /// - Parameters:
    ///   - type: The plan type name.
    ///   - fields: The plan's fields, without `"type"`.
    public init(type: String, fields: [String: JSONValue] = [:]) {
        self.type = type
        var fields = fields
        fields.removeValue(forKey: "type")
        self.payload = .fields(fields)
    }

    /// A plan made from a typed Swift value.
    public init<Value: PlanValue>(_ value: Value) {
        self.type = Value.planType
        self.payload = .typed(value)
    }

    /// The typed value this plan was made from, if any.
    public var typedValue: (any PlanValue)? {
        if case .typed(let value) = payload { return value }
        return nil
    }

    /// The plan's fields, without `"type"`. For a typed plan this encodes the value (slow path; performers
    /// should prefer ``decode(_:)``). A typed value that fails to encode yields no fields.
    public var fields: [String: JSONValue] {
        switch payload {
        case .fields(let fields): return fields
        case .typed(let value): return (try? Self.encodeFields(value)) ?? [:]
        }
    }

    /// The value of one field, or `nil` if the plan has no such field.
    public subscript(field: String) -> JSONValue? { fields[field] }

    /// The plan as a typed value.
    ///
    /// A typed plan of that type is returned as is; otherwise the fields are decoded with `JSONDecoder`.
    /// - Throws: `DecodingError` when the fields do not decode as `Value` (for example a missing field).
    public func decode<Value: PlanValue>(_: Value.Type = Value.self) throws -> Value {
        if case .typed(let value) = payload, let typed = value as? Value { return typed }
        return try JSONDecoder().decode(Value.self, from: jsonData())
    }

    /// The plan's JSON form, `{"type": ..., ...fields}`, with sorted keys.
    /// - Throws: `EncodingError` if a typed value fails to encode.
    public func jsonData() throws -> Data {
        var bytes: [UInt8] = []
        try writeJSON(into: &bytes)
        return Data(bytes)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func encodeFields(_ value: any PlanValue) throws -> [String: JSONValue] {
        let data = try encoder.encode(value)
        var fields = try JSONDecoder().decode([String: JSONValue].self, from: data)
        fields.removeValue(forKey: "type")
        return fields
    }
}

extension Plan: Equatable {
    /// Plans are equal when their types and fields are equal (a typed plan compares by its encoded fields).
    public static func == (lhs: Plan, rhs: Plan) -> Bool {
        lhs.type == rhs.type && lhs.fields == rhs.fields
    }
}

extension Plan: Codable {
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes `{"type": "...", ...fields}`.
    /// - Throws: `DecodingError` when the value is not an object or has no non-empty string `"type"`.
    public init(from decoder: any Decoder) throws {
        var fields = try decoder.singleValueContainer().decode([String: JSONValue].self)
        guard let typeValue = fields.removeValue(forKey: "type") else {
            throw DecodingError.keyNotFound(
                AnyKey(stringValue: "type"),
                .init(codingPath: decoder.codingPath, debugDescription: "A plan needs a \"type\" naming its plan type."))
        }
        guard case .string(let type) = typeValue, !type.isEmpty else {
            throw DecodingError.typeMismatch(
                String.self,
                .init(
                    codingPath: decoder.codingPath + [AnyKey(stringValue: "type")],
                    debugDescription: "A plan's \"type\" must be a non-empty string, not \(typeValue.typeName)."))
        }
        self.init(type: type, fields: fields)
    }

    /// Encodes `{"type": "...", ...fields}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(type, forKey: AnyKey(stringValue: "type"))
        for (key, value) in fields where key != "type" {
            try container.encode(value, forKey: AnyKey(stringValue: key))
        }
    }
}

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
    /// Every case holds object references only (a typed value is boxed), so copying a plan retains them with no
    /// call through a value witness table (about 100 instructions per copy with the existential inline; a commit
    /// copies its plan several times).
    enum Payload: Sendable {
        case fields([String: JSONValue])
        case typed(TypedPlan)
        /// Fields as given, and the defaults a manifest fills in for the fields they leave out (none of whose
        /// keys is among them): a completed plan without a copy of its dictionary (``init(type:fields:defaults:)``).
        case completed([String: JSONValue], PlanDefaults)
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

    /// A plan completed with defaults, without copying `fields` to add them: what ``fields`` gives is `fields`
    /// with `defaults`' members added.
    /// - Parameters:
    ///   - type: The plan type name.
    ///   - fields: The plan's fields as given, without `"type"` and without any of `defaults`' keys (the
    ///     caller's promise: a key in both would be given twice by ``forEachField(_:)``).
    ///   - defaults: The values of the fields `fields` leaves out, shared by every plan that leaves out the same.
    package init(type: String, fields: [String: JSONValue], defaults: PlanDefaults) {
        self.type = type
        self.payload = defaults.members.isEmpty ? .fields(fields) : .completed(fields, defaults)
    }

    /// A plan made from a typed Swift value.
    public init<Value: PlanValue>(_ value: Value) {
        self.type = Value.planType
        self.payload = .typed(TypedPlan(value))
    }

    /// The typed value this plan was made from, if any.
    public var typedValue: (any PlanValue)? {
        if case .typed(let box) = payload { return box.value }
        return nil
    }

    /// The plan's fields, without `"type"`. For a typed plan this encodes the value (slow path; performers
    /// should prefer ``decode(_:)``). A typed value that fails to encode yields no fields.
    public var fields: [String: JSONValue] {
        switch payload {
        case .fields(let fields): return fields
        case .typed(let box): return (try? Self.encodeFields(box.value)) ?? [:]
        case .completed(let given, let defaults):
            var fields = given
            for (key, value) in defaults.members { fields[key] = value }
            return fields
        }
    }

    /// The value of one field, or `nil` if the plan has no such field.
    public subscript(field: String) -> JSONValue? {
        switch payload {
        case .fields(let fields): return fields[field]
        case .typed: return fields[field]
        case .completed(let given, let defaults): return given[field] ?? defaults.value(of: field)
        }
    }

    /// The plan's fields (without `"type"`) in two parts that share no key, without building the dictionary
    /// ``fields`` gives for a plan completed with defaults: the fields as given, and the defaults filled in.
    package var fieldParts: (given: [String: JSONValue], defaults: [(key: String, value: JSONValue)]) {
        switch payload {
        case .fields(let fields): (fields, [])
        case .typed: (fields, [])
        case .completed(let given, let defaults): (given, defaults.members)
        }
    }

    /// ``fieldParts`` with the defaults as the shared object the manifest made (`nil` when none were filled in),
    /// so that a reader can keep what it derives from a set of defaults once, by its identity, for every plan
    /// completed with it.
    package var completedParts: (given: [String: JSONValue], defaults: PlanDefaults?) {
        switch payload {
        case .fields(let fields): (fields, nil)
        case .typed: (fields, nil)
        case .completed(let given, let defaults): (given, defaults)
        }
    }

    /// The plan as a typed value.
    ///
    /// A typed plan of that type is returned as is; otherwise the fields are decoded with `JSONDecoder`.
    /// - Throws: `DecodingError` when the fields do not decode as `Value` (for example a missing field).
    public func decode<Value: PlanValue>(_: Value.Type = Value.self) throws -> Value {
        if case .typed(let box) = payload, let typed = box.value as? Value { return typed }
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

/// A typed plan's value, boxed (``Plan/Payload``).
final class TypedPlan: Sendable {
    let value: any PlanValue
    init(_ value: any PlanValue) { self.value = value }
}

/// The defaults a manifest fills in for the fields a plan leaves out, made once per set of left-out fields and
/// shared by every plan completed with it (``Plan/init(type:fields:defaults:)``).
///
/// Thread rule: immutable; safe from any thread.
package final class PlanDefaults: Sendable {
    /// The fields and their default values, in the manifest's order.
    package let members: [(key: String, value: JSONValue)]

    /// Defaults of these fields.
    package init(_ members: [(key: String, value: JSONValue)]) { self.members = members }

    /// The default of `field`, or `nil` when it has none here.
    func value(of field: String) -> JSONValue? {
        for member in members where member.key == field { return member.value }
        return nil
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

// Decoding a plan through the host's plan-field functions (motion_host_v1.plan_number, plan_numbers,
// plan_string, plan_value_json). For the plan the host is passing in the current call, the host answers
// from fields it already holds, so the plugin parses no JSON: a typical plan decodes several times
// faster than through JSONSerialization. Anything this decoder cannot answer exactly throws
// `HostFieldFallback`, and the SDK decodes the whole plan from its JSON instead (which also gives the
// exact DecodingError for a bad field).

import CMotionABI

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Thrown when a field cannot be read through the host; the caller decodes from JSON instead.
struct HostFieldFallback: Error {}

/// One plan's fields, read through the host.
struct HostPlanFields {
    let host: Host
    let json: UnsafePointer<CChar>
    let length: Int

    /// `plan_number`: a number field, or `nil` (absent, or not a number).
    // Field names go across with withCString, which lends a native string's own bytes (no copy into a
    // new array, as the implicit String-to-pointer conversion inside a closure makes).

    func number(_ field: String) -> Double? {
        guard let read = host.raw.pointee.plan_number else { return nil }
        var value = 0.0
        return field.withCString { read(json, length, $0, &value) } == MOTION_OK ? value : nil
    }

    /// `plan_numbers`: a vector field of up to 16 numbers, or `nil`.
    func numbers(_ field: String) -> [Double]? {
        guard let read = host.raw.pointee.plan_numbers else { return nil }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 16) { values -> [Double]? in
            var count: UInt32 = 0
            guard field.withCString({ read(json, length, $0, values.baseAddress, 16, &count) }) == MOTION_OK else { return nil }
            return Array(values.prefix(Int(count)))
        }
    }

    /// `plan_string`: a string field, or `nil`.
    func string(_ field: String) -> String? {
        guard let read = host.raw.pointee.plan_string else { return nil }
        return field.withCString { name in
            readText { buffer, capacity, length in read(json, self.length, name, buffer, capacity, &length) }
        }
    }

    /// `plan_value_json`: a field's value as JSON text, or `nil` when absent.
    func valueJSON(_ field: String) -> String? {
        guard let read = host.raw.pointee.plan_value_json else { return nil }
        return field.withCString { name in
            readText { buffer, capacity, length in read(json, self.length, name, buffer, capacity, &length) }
        }
    }

    /// Calls a host function that copies text into a buffer (on the stack; on the heap only when the
    /// text is longer than 256 bytes).
    private func readText(_ call: (UnsafeMutablePointer<CChar>, Int, inout Int) -> motion_status) -> String? {
        var length = 0
        let first: String?? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            let status = call(buffer.baseAddress!, buffer.count, &length)
            if status == MOTION_ERR_BUFFER_TOO_SMALL { return .none }
            guard status == MOTION_OK else { return .some(nil) }
            return buffer.withMemoryRebound(to: UInt8.self) { String(decoding: $0.prefix(length), as: UTF8.self) }
        }
        if let first { return first }
        var buffer = [CChar](repeating: 0, count: length + 1)
        let status = buffer.withUnsafeMutableBufferPointer { call($0.baseAddress!, $0.count, &length) }
        guard status == MOTION_OK else { return nil }
        return buffer.withUnsafeBufferPointer { chars in
            chars.withMemoryRebound(to: UInt8.self) { String(decoding: $0.prefix(length), as: UTF8.self) }
        }
    }

    /// Whether the plan has the field (any JSON type).
    func contains(_ field: String) -> Bool {
        guard let read = host.raw.pointee.plan_value_json else { return false }
        var length = 0
        return field.withCString { read(json, self.length, $0, nil, 0, &length) } != MOTION_ERR_INVALID_PLAN
    }

    /// A field's value parsed into `PlanJSON` (for nested values), or `nil` when absent.
    func value(_ field: String) -> PlanJSON? {
        guard let text = valueJSON(field) else { return nil }
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { try? PlanJSON.parse(UnsafeBufferPointer($0)) }
    }
}

/// A `Decoder` for the top level of a plan, over ``HostPlanFields``.
struct HostFieldDecoder: Decoder {
    let fields: HostPlanFields
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(HostKeyedContainer<Key>(fields: fields))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw HostFieldFallback() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw HostFieldFallback() }
}

private struct HostKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: HostPlanFields
    var codingPath: [any CodingKey] { [] }
    // The host does not list a plan's fields; synthesised Decodable initialisers never ask.
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { fields.contains(key.stringValue) }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let text = fields.valueJSON(key.stringValue) else { throw HostFieldFallback() }
        return text == "null"
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        switch fields.valueJSON(key.stringValue) {
        case "true"?: return true
        case "false"?: return false
        default: throw HostFieldFallback()
        }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        guard let value = fields.string(key.stringValue) else { throw HostFieldFallback() }
        return value
    }

    private func number(_ key: Key) throws -> PlanJSON {
        guard let value = fields.number(key.stringValue) else { throw HostFieldFallback() }
        return .number(value)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Primitive.double(number(key), [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try Primitive.float(number(key), [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Primitive.integer(number(key), [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try Primitive.integer(number(key), [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try Primitive.integer(number(key), [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try Primitive.integer(number(key), [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try Primitive.integer(number(key), [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try Primitive.integer(number(key), [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try Primitive.integer(number(key), [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try Primitive.integer(number(key), [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try Primitive.integer(number(key), [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try Primitive.integer(number(key), [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        // A vector: plan_numbers reads it; plan_number failing tells an array from a single number.
        if type == [Double].self, let numbers = fields.numbers(key.stringValue), fields.number(key.stringValue) == nil {
            return numbers as! T
        }
        guard let value = fields.value(key.stringValue) else { throw HostFieldFallback() }
        return try T(from: PlanDecoder(value: value, codingPath: [key]))
    }

    // decodeIfPresent with one typed host call for a field that is there; only when that call fails is
    // presence checked (an absent optional field is common; a mistyped one falls back to JSON).
    private func ifPresent<T>(_ key: Key, _ read: () throws -> T) throws -> T? {
        do {
            return try read()
        } catch is HostFieldFallback {
            if !fields.contains(key.stringValue) { return nil }
            if fields.valueJSON(key.stringValue) == "null" { return nil }
            throw HostFieldFallback()
        }
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try ifPresent(key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try ifPresent(key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try ifPresent(key) { try decode(type, forKey: key) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try ifPresent(key) { try decode(type, forKey: key) } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        // An optional vector (a Tween's "from", "controlPoints") is usually absent: when plan_numbers fails,
        // ask for presence at once (two host calls, not three); a vector that is there is read as decode does.
        if type == [Double].self {
            if let numbers = fields.numbers(key.stringValue) {
                if fields.number(key.stringValue) == nil { return numbers as? T }
            } else if !fields.contains(key.stringValue) {
                return nil
            }
        }
        return try ifPresent(key) { try decode(type, forKey: key) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        guard let value = fields.value(key.stringValue) else { throw HostFieldFallback() }
        return try PlanDecoder(value: value, codingPath: [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        guard let value = fields.value(key.stringValue) else { throw HostFieldFallback() }
        return try PlanDecoder(value: value, codingPath: [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw HostFieldFallback() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw HostFieldFallback() }
}

// Plans read by handle (motion/plans.h, ABI 1.4): a host that offers MOTION_HOST_EXTENSION_PLANS hands a plan over
// as a handle, and the SDK reads every field it needs in one motion_plans_v1.read call, by a layout of the
// performer class's field names resolved once. A plan type conforming to `PlanFieldReading` builds itself from
// those fields with no Decoder; any other plan type, and any field the reader cannot take, is decoded from the
// plan's JSON (motion_plans_v1.json) as add_plan's JSON is, so errors name the field exactly as they do there.

import CMotionABI
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A plan type that builds itself from its fields as the host holds them, without `Decoder`: from a host of ABI
/// 1.4 or later (plans by handle, `motion/plans.h`), the SDK reads all of a plan's fields in one host call and
/// calls ``init(fields:)``. The `Codable` conformance stays the reference: from an older host, and whenever
/// ``init(fields:)`` throws a ``PlanFields`` error (a field missing or of another JSON type), the plan is decoded
/// from its JSON instead, so a bad plan gets the same message either way.
///
/// ```swift
/// extension Pulse: PlanFieldReading {
///     static let fieldNames = ["property", "scale"]
///     init(fields: PlanFields) throws {
///         self.init(property: try fields.string("property"), scale: try fields.number("scale"))
///     }
/// }
/// ```
public protocol PlanFieldReading: PluginPlan {
    /// Every field ``init(fields:)`` reads, by its JSON name (not `"type"`). A name not listed here reads as
    /// absent.
    static var fieldNames: [String] { get }

    /// Makes the plan from its fields.
    /// - Parameter fields: the plan's fields, valid only during this call.
    /// - Throws: what `fields` throws (the SDK then decodes the plan from JSON), or an error of your own, which
    ///   reaches the host as `PluginPerformer.add(_:)` says.
    init(fields: PlanFields) throws
}

/// The fields of one plan as the host gave them (`motion_plan_field`s), valid during
/// ``PlanFieldReading/init(fields:)`` only.
///
/// Every accessor throws when the field is not of the kind asked for (or, without `IfPresent`, absent); the SDK
/// catches that and decodes the plan from its JSON with `Decodable`, whose error names the field.
public struct PlanFields {
    private let fields: UnsafeBufferPointer<motion_plan_field>
    private let names: [String]
    /// Where the next field is expected: readers read in `fieldNames` order, which is the layout's order for a
    /// class of one plan type, so most lookups are one compare of two equal strings (the fast one).
    private let cursor: UnsafeMutablePointer<Int>

    init(fields: UnsafeBufferPointer<motion_plan_field>, names: [String], cursor: UnsafeMutablePointer<Int>) {
        self.fields = fields
        self.names = names
        self.cursor = cursor
    }

    /// The field `name`, or an absent one: the expected one, else a linear scan (a class has a handful of
    /// fields) that compares lengths before contents.
    private func field(_ name: String) -> motion_plan_field {
        let next = cursor.pointee
        if next < names.count, names[next] == name {
            cursor.pointee = next + 1
            return fields[next]
        }
        let length = name.utf8.count
        for i in names.indices where names[i].utf8.count == length && names[i] == name {
            cursor.pointee = i + 1
            return fields[i]
        }
        return motion_plan_field()
    }

    /// A string field.
    /// - Parameter name: the field's JSON name.
    /// - Throws: a fallback error when it is absent or not a string.
    public func string(_ name: String) throws -> String {
        guard let value = Self.string(field(name)) else { throw PlanFieldsFallback() }
        return value
    }

    /// A string field, or `nil` when it is absent or null.
    /// - Throws: a fallback error when it is of another type.
    public func stringIfPresent(_ name: String) throws -> String? {
        let field = field(name)
        if Self.isAbsent(field) { return nil }
        guard let value = Self.string(field) else { throw PlanFieldsFallback() }
        return value
    }

    /// A number field.
    /// - Throws: a fallback error when it is absent or not a number.
    public func number(_ name: String) throws -> Double {
        let field = field(name)
        guard field.kind == MOTION_PLAN_FIELD_NUMBER else { throw PlanFieldsFallback() }
        return field.values.0
    }

    /// A number field, or `nil` when it is absent or null.
    /// - Throws: a fallback error when it is of another type.
    public func numberIfPresent(_ name: String) throws -> Double? {
        let field = field(name)
        if Self.isAbsent(field) { return nil }
        guard field.kind == MOTION_PLAN_FIELD_NUMBER else { throw PlanFieldsFallback() }
        return field.values.0
    }

    /// A vector: an array of up to `MOTION_PROPERTY_MAX_COMPONENTS` (4) numbers.
    /// - Throws: a fallback error when it is absent, not an array of numbers, or longer (read such a field with
    ///   `Decodable`: the fallback does).
    public func numbers(_ name: String) throws -> [Double] {
        guard let value = Self.numbers(field(name)) else { throw PlanFieldsFallback() }
        return value
    }

    /// A vector, or `nil` when it is absent or null.
    /// - Throws: as ``numbers(_:)`` for a field that is there.
    public func numbersIfPresent(_ name: String) throws -> [Double]? {
        let field = field(name)
        if Self.isAbsent(field) { return nil }
        guard let value = Self.numbers(field) else { throw PlanFieldsFallback() }
        return value
    }

    /// A boolean field.
    /// - Throws: a fallback error when it is absent or not a boolean.
    public func bool(_ name: String) throws -> Bool {
        let field = field(name)
        guard field.kind == MOTION_PLAN_FIELD_BOOLEAN else { throw PlanFieldsFallback() }
        return field.values.0 != 0
    }

    /// A boolean field, or `nil` when it is absent or null.
    /// - Throws: a fallback error when it is of another type.
    public func boolIfPresent(_ name: String) throws -> Bool? {
        let field = field(name)
        if Self.isAbsent(field) { return nil }
        guard field.kind == MOTION_PLAN_FIELD_BOOLEAN else { throw PlanFieldsFallback() }
        return field.values.0 != 0
    }

    /// Whether the plan has the field (null included).
    public func contains(_ name: String) -> Bool { field(name).kind != MOTION_PLAN_FIELD_ABSENT }

    private static func isAbsent(_ field: motion_plan_field) -> Bool {
        field.kind == MOTION_PLAN_FIELD_ABSENT || field.kind == MOTION_PLAN_FIELD_NULL
    }

    /// Whether `field` is the string `text`, compared byte for byte with no `String` made.
    static func isString(_ field: motion_plan_field, _ text: String) -> Bool {
        guard field.kind == MOTION_PLAN_FIELD_STRING, field.length == text.utf8.count else { return false }
        guard let bytes = field.text else { return field.length == 0 }
        var text = text
        return text.withUTF8 { $0.count == 0 || memcmp(bytes, $0.baseAddress!, $0.count) == 0 }
    }

    static func string(_ field: motion_plan_field) -> String? {
        guard field.kind == MOTION_PLAN_FIELD_STRING else { return nil }
        guard let text = field.text else { return field.length == 0 ? "" : nil }
        return text.withMemoryRebound(to: UInt8.self, capacity: field.length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: field.length), as: UTF8.self)
        }
    }

    private static func numbers(_ field: motion_plan_field) -> [Double]? {
        guard field.kind == MOTION_PLAN_FIELD_NUMBERS, field.count <= MOTION_PROPERTY_MAX_COMPONENTS else { return nil }
        var values = field.values
        return withUnsafeBytes(of: &values) { Array($0.bindMemory(to: Double.self).prefix(Int(field.count))) }
    }
}

/// Thrown by ``PlanFields`` for a field it cannot give as asked; the SDK decodes the plan from JSON instead.
@usableFromInline
struct PlanFieldsFallback: Error {
    @usableFromInline init() {}
}

/// A performer class's layout for reading plans by handle: `"type"`, then every field its `PlanFieldReading`
/// plan types read, resolved with the host once (on the first plan) and kept.
///
/// `Sendable`: the names are immutable; the layout is an atomic, and two threads resolving it at once both get
/// a working one (the header allows several layouts of the same names).
final class PlanLayout: Sendable {
    let names: [String]
    /// The host's layout; `unresolved` before the first plan, a negative status when the host refused.
    private let layout = Atomic<Int32>(PlanLayout.unresolved)
    private static let unresolved = Int32.min

    init(types: [any PluginPlan.Type]) {
        var names = ["type"]
        for case let type as any PlanFieldReading.Type in types {
            for name in type.fieldNames where !names.contains(name) { names.append(name) }
        }
        self.names = names
    }

    /// The host's layout of ``names``, or `nil` when the host refused to make one.
    func resolvedIfPresent(_ plans: UnsafePointer<motion_plans_v1>) -> motion_plan_layout? {
        let layout = resolved(plans)
        return layout >= 0 ? layout : nil
    }

    /// The host's layout of ``names``, or a negative status.
    func resolved(_ plans: UnsafePointer<motion_plans_v1>) -> motion_plan_layout {
        let known = layout.load(ordering: .relaxed)
        if known != Self.unresolved { return known }
        let made = withCStrings(names) { plans.pointee.layout?($0.baseAddress, $0.count) ?? MOTION_ERR_INTERNAL }
        layout.store(made, ordering: .relaxed)
        return made
    }
}

/// Runs `body` with `strings` as NUL-terminated C strings, valid during the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer(body)
}

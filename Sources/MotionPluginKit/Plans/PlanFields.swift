// Plans read by handle (motion/plans.h, ABI 1.4): a host that offers MOTION_HOST_EXTENSION_PLANS hands a plan over
// as a handle, and the SDK reads every field it needs in one motion_plans_v1.read call, by a layout of the
// performer class's field names resolved once. A plan type conforming to `PlanFieldReading` builds itself from
// those fields with no Decoder; any other plan type, and any field the reader cannot take, is decoded from the
// plan's JSON (motion_plans_v1.json) as add_plan's JSON is, so errors name the field exactly as they do there.

import CMotionABI
import CMotionPluginKitSupport
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
    private let layout: PlanLayout
    /// Where the next field is expected: readers read in `fieldNames` order, which is the layout's order for a
    /// class of one plan type, so most lookups are one compare of two equal strings (the fast one).
    private let cursor: UnsafeMutablePointer<Int>
    /// Whether this thread may use ``PlanLayout``'s strings made before (``PlanLayout/ownsStrings()``).
    private let usesKeptStrings: Bool

    init(fields: UnsafeBufferPointer<motion_plan_field>, layout: PlanLayout, cursor: UnsafeMutablePointer<Int>) {
        self.fields = fields
        self.layout = layout
        self.cursor = cursor
        self.usesKeptStrings = layout.ownsStrings()
    }

    /// The index of the field `name` in the layout, or -1: the expected one, else a linear scan (a class has a
    /// handful of fields). Names are compared by their `String`'s bits first (``NameBits``: a reader's literal
    /// and the layout's copy of it are equal small strings, so equal bits), by contents only when no bits match.
    private func index(_ name: String) -> Int {
        let bits = layout.bits
        let next = cursor.pointee
        let key = NameBits(name)
        if next < bits.count, bits[next] == key {
            cursor.pointee = next + 1
            return next
        }
        for i in bits.indices where bits[i] == key {
            cursor.pointee = i + 1
            return i
        }
        let names = layout.names
        let length = name.utf8.count
        for i in names.indices where names[i].utf8.count == length && names[i] == name {
            cursor.pointee = i + 1
            return i
        }
        return -1
    }

    private func field(_ name: String) -> motion_plan_field {
        let i = index(name)
        return i >= 0 ? fields[i] : motion_plan_field()
    }

    /// The string field at layout index `i` (-1: absent), or `nil` when it is not a string; a short one equal to
    /// the last one made for that index is that `String` again (``PlanLayout/keptString(at:_:)``).
    private func string(at i: Int) -> String?? {
        guard i >= 0 else { return .some(nil) }
        let field = fields[i]
        if Self.isAbsent(field) { return .some(nil) }
        guard usesKeptStrings, field.kind == MOTION_PLAN_FIELD_STRING else { return Self.string(field).map { .some($0) } }
        return layout.keptString(at: i, field).map { .some($0) }
    }

    /// A string field.
    /// - Parameter name: the field's JSON name.
    /// - Throws: a fallback error when it is absent or not a string.
    public func string(_ name: String) throws -> String {
        guard case .some(.some(let value)) = string(at: index(name)) else { throw PlanFieldsFallback() }
        return value
    }

    /// A string field, or `nil` when it is absent or null.
    /// - Throws: a fallback error when it is of another type.
    public func stringIfPresent(_ name: String) throws -> String? {
        guard case .some(let value) = string(at: index(name)) else { throw PlanFieldsFallback() }
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

/// A `String`'s 16 bytes as they are, compared as two words: equal bits are the same string (a small string, up to
/// 15 bytes of UTF-8, holds its bytes and count in them), unequal bits say nothing (two equal large strings may have
/// two storages), so a name whose bits do not match is then compared by contents.
struct NameBits: Equatable {
    let low: UInt64
    let high: UInt64

    init(_ text: String) { self = unsafeBitCast(text, to: NameBits.self) }
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
final class PlanLayout: @unchecked Sendable {
    let names: [String]
    /// Each name's ``NameBits``, for ``PlanFields``' first compare: in a buffer made once and freed with the
    /// layout, as an array read through the layout would be retained and released at each lookup.
    let bits: UnsafeBufferPointer<NameBits>
    /// The host's layout; `unresolved` before the first plan, a negative status when the host refused.
    private let layout = Atomic<Int32>(PlanLayout.unresolved)
    private static let unresolved = Int32.min

    /// The last string made for each name, by its bytes (up to 16): the plans of a class mostly repeat their
    /// strings (a Tween's "property", the manifest's default "timing"), and reusing the `String` saves making it
    /// from bytes (about 200 instructions each). One thread's (``owner``): `@unchecked Sendable` for this buffer,
    /// which no other thread touches.
    private let keptStrings: UnsafeMutablePointer<KeptString>
    /// ``motion_sdk_thread_identity()`` of the thread that may use ``keptStrings`` (the first to ask), 0 before.
    private let owner = Atomic<UInt>(0)

    private struct KeptString {
        var bytes: (UInt64, UInt64) = (0, 0)
        /// -1: none yet.
        var length = -1
        var string = ""
    }

    init(types: [any PluginPlan.Type]) {
        var names = ["type"]
        for case let type as any PlanFieldReading.Type in types {
            for name in type.fieldNames where !names.contains(name) { names.append(name) }
        }
        self.names = names
        let bits = UnsafeMutableBufferPointer<NameBits>.allocate(capacity: names.count)
        _ = bits.initialize(from: names.map(NameBits.init))
        self.bits = UnsafeBufferPointer(bits)
        keptStrings = .allocate(capacity: names.count)
        keptStrings.initialize(repeating: KeptString(), count: names.count)
    }

    deinit {
        keptStrings.deinitialize(count: names.count)
        keptStrings.deallocate()
        bits.deallocate()
    }

    /// Whether the calling thread may use the strings kept here (``keptString(at:_:)``): the first thread that
    /// asks does, for the life of the layout (a plugin's plans arrive on its scheduler's thread; another
    /// scheduler's thread makes its strings each time). A thread identity is unique among live threads only: a
    /// thread made after the owner ended may get the owner's, and with it a cache whose every hit is checked
    /// against the bytes of the field in hand.
    func ownsStrings() -> Bool {
        let me = UInt(motion_sdk_thread_identity())
        let current = owner.load(ordering: .acquiring)
        if current == me { return true }
        guard current == 0 else { return false }
        return owner.compareExchange(expected: 0, desired: me, ordering: .acquiringAndReleasing).exchanged
    }

    /// The string field `field` of name `index` as a `String`, the one made last for that name when its bytes are
    /// the same; `nil` when the host gave no bytes for a non-empty string. Only on the thread ``ownsStrings()``
    /// said `true` to.
    func keptString(at index: Int, _ field: motion_plan_field) -> String? {
        let length = field.length
        guard length <= 16, let text = field.text else { return PlanFields.string(field) }
        var bytes: (UInt64, UInt64) = (0, 0)
        // A byte loop: these are a few bytes, and a memcpy call for them cost more than the loop.
        withUnsafeMutableBytes(of: &bytes) { raw in
            for i in 0..<length { raw[i] = UInt8(bitPattern: text[i]) }
        }
        let kept = keptStrings + index
        if kept.pointee.length == length, kept.pointee.bytes == bytes { return kept.pointee.string }
        guard let made = PlanFields.string(field) else { return nil }
        kept.pointee = KeptString(bytes: bytes, length: length, string: made)
        return made
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

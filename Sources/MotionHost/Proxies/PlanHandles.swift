import CMotionABI
import FoundationEssentials
import Glibc
import MotionCore
import MotionFiles
import Synchronization

// The host's plans extension (`MOTION_HOST_EXTENSION_PLANS`, motion/plans.h, ABI 1.4): a plan handed over by
// handle is read from the fields the host holds (``PlansInFlight``), by a layout of names resolved once, so the
// host writes no JSON for it and the plugin parses none.

extension HostInterface {
    /// The host's plans extension, immutable, valid for the life of the process.
    nonisolated(unsafe) static let plansExtension: UnsafeMutablePointer<motion_plans_v1> = {
        let table = UnsafeMutablePointer<motion_plans_v1>.allocate(capacity: 1)
        table.initialize(
            to: motion_plans_v1(
                struct_size: UInt32(MemoryLayout<motion_plans_v1>.size), layout: hostPlanLayout, read: hostPlanRead,
                json: hostPlanJSON))
        return table
    }()
}

/// The layouts `motion_plans_v1.layout` made: lists of field names, by index, for the life of the process.
///
/// Thread rule: ``make(_:)`` from any thread (under a lock); ``layout(_:)`` from any thread without one: a
/// layout is written once, before the count that makes them visible is published (release), and read only below
/// a count loaded with acquire.
enum PlanLayouts {
    /// One layout: its names, and each name's UTF-8 bytes for ``hostPlanRead``'s byte comparisons. What a read
    /// walks is in buffers allocated once and kept for the life of the process, as the layout is: read through a
    /// pointer, an array would be retained and released at each use (about 60 instructions a read did only that).
    struct Layout {
        let names: [String]
        let bytes: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>
        /// Whether name i is "type" (the plan's type, not a field).
        let isType: UnsafeBufferPointer<Bool>
        /// Each name's ``StringBits``, for ``hostPlanRead``'s first try at a given field's name.
        let bits: UnsafeBufferPointer<StringBits>
        /// Whether no two names have the same bytes, so that a name whose bits a key's equal is the only name that
        /// is the key.
        let namesAreDistinct: Bool
    }

    private static let capacity = Int(MOTION_PLAN_LAYOUT_MAX_COUNT)
    nonisolated(unsafe) private static let storage = UnsafeMutablePointer<Layout>.allocate(capacity: capacity)
    private static let count = Atomic<Int>(0)
    // A pthread mutex, not Mutex: Thread Sanitizer cannot see Mutex (Documentation/PITFALLS.md).
    private static let lock = ThreadLock()

    /// A new layout of `names`, or the negative status the header gives.
    static func make(_ names: [String]) -> motion_plan_layout {
        lock.lock()
        defer { lock.unlock() }
        let index = count.load(ordering: .relaxed)
        guard index < capacity else { return MOTION_ERR_TOO_LARGE }
        let bytes = names.map { name in
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: name.utf8.count)
            _ = copy.initialize(from: name.utf8)
            return UnsafeBufferPointer(copy)
        }
        (storage + index).initialize(
            to: Layout(
                names: names, bytes: kept(bytes), isType: kept(names.map { $0 == "type" }), bits: kept(names.map(StringBits.init)),
                namesAreDistinct: Set(names.map { Array($0.utf8) }).count == names.count))
        count.store(index + 1, ordering: .releasing)
        return motion_plan_layout(index)
    }

    /// `values` in a buffer never freed (a layout's, for the life of the process).
    private static func kept<T>(_ values: [T]) -> UnsafeBufferPointer<T> {
        let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: values.count)
        _ = buffer.initialize(from: values)
        return UnsafeBufferPointer(buffer)
    }

    /// The layout `layout`, or `nil` for one never made.
    @inline(__always)
    static func layout(_ layout: motion_plan_layout) -> UnsafePointer<Layout>? {
        guard layout >= 0, Int(layout) < count.load(ordering: .acquiring) else { return nil }
        return UnsafePointer(storage + Int(layout))
    }
}

/// Bytes handed to a plugin for the life of one plan's call: chunks that are never moved (so a pointer into one
/// stays valid while more is copied), reused from plan to plan.
///
/// Thread rule: one thread's (``PlansInFlight``'s per-thread stack).
final class TextArena {
    private static let chunkSize = 4096
    // One thread's, never used re-entrantly: no dynamic exclusivity checks (four per plan read).
    @exclusivity(unchecked) private var chunks: [UnsafeMutablePointer<CChar>] = []
    /// Texts longer than a chunk, each in its own allocation, freed at ``reset(to:)``.
    @exclusivity(unchecked) private var large: [UnsafeMutablePointer<CChar>] = []
    @exclusivity(unchecked) private var chunk = 0
    @exclusivity(unchecked) private var offset = 0

    /// Where the arena stands: ``reset(to:)`` frees what was copied after it.
    struct Mark {
        fileprivate let chunk: Int
        fileprivate let offset: Int
        fileprivate let large: Int
    }

    var mark: Mark { Mark(chunk: chunk, offset: offset, large: large.count) }

    func reset(to mark: Mark) {
        while large.count > mark.large { large.removeLast().deallocate() }
        chunk = mark.chunk
        offset = mark.offset
    }

    deinit {
        for chunk in chunks { chunk.deallocate() }
        for text in large { text.deallocate() }
    }

    /// A copy of `text`'s UTF-8 bytes (not NUL-terminated), valid until a reset to a mark before this call.
    func copy(_ text: String) -> (UnsafePointer<CChar>, Int) {
        var text = text
        return text.withUTF8 { bytes in
            let destination = reserve(bytes.count)
            if let source = bytes.baseAddress, bytes.count > 0 {
                UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: bytes.count)
            }
            return (UnsafePointer(destination), bytes.count)
        }
    }

    private func reserve(_ count: Int) -> UnsafeMutablePointer<CChar> {
        if count > Self.chunkSize {
            let text = UnsafeMutablePointer<CChar>.allocate(capacity: count)
            large.append(text)
            return text
        }
        if chunk < chunks.count, offset + count > Self.chunkSize {
            chunk += 1
            offset = 0
        }
        if chunk == chunks.count { chunks.append(.allocate(capacity: Self.chunkSize)) }
        defer { offset += count }
        return chunks[chunk] + offset
    }
}

/// `motion_plans_v1.layout`: copies the names; [thread-safe].
private let hostPlanLayout: @convention(c) (UnsafePointer<UnsafePointer<CChar>?>?, Int) -> motion_plan_layout = { names, count in
    guard let names, count > 0, count <= Int(MOTION_PLAN_LAYOUT_MAX_FIELDS) else { return MOTION_ERR_INVALID_ARGUMENT }
    var copied: [String] = []
    copied.reserveCapacity(count)
    for i in 0..<count {
        guard let name = names[i], name.pointee != 0 else { return MOTION_ERR_INVALID_ARGUMENT }
        copied.append(String(cString: name))
    }
    return PlanLayouts.make(copied)
}

/// `motion_plans_v1.read`: the fields of the plan in flight on this thread behind `plan`, by the layout's names.
private let hostPlanRead: @convention(c) (OpaquePointer?, motion_plan_layout, UnsafeMutablePointer<motion_plan_field>?, Int) -> motion_status = {
    plan, layoutIndex, out, count in
    guard let plan, let out, count > 0, let layout = PlanLayouts.layout(layoutIndex), count <= layout.pointee.isType.count,
        let stack = PlansInFlight.existingStack, let index = PlansInFlight.entry(handle: plan, in: stack)
    else { return MOTION_ERR_INVALID_ARGUMENT }
    let texts = stack.texts
    // The plan is read where it lies in the stack (a copy of the entry retained and released its type and both
    // parts of its payload, about 200 instructions a read).
    return stack.entries.withUnsafeBufferPointer { entries in
        // The plan's type and the defaults the manifest filled in come as fields made once per thread
        // (``KeptFields``), matching no names; a set of defaults beyond what it keeps is matched as the given fields
        // are.
        let (given, defaults) = entries[index].plan.completedParts
        let kept = stack.keptFields
        let type = kept.typeField(entries[index].type)
        let isType = layout.pointee.isType
        for i in 0..<count { out[i] = isType[i] ? type : motion_plan_field() }
        if let defaults, !kept.writeFields(of: defaults, layout: layoutIndex, layout, into: out, count: count) {
            for (key, value) in defaults.members { match(key, value, layout, out, count, texts) }
        }
        // One pass over the plan's few given fields, each found among the layout's names by its bits
        // (``StringBits``), else byte for byte (as a C reader would; comparing two unequal Strings takes Swift's slow,
        // Unicode-aware path, and hashing every name cost more than the rest of the read).
        for (key, value) in given { match(key, value, layout, out, count, texts) }
        return MOTION_OK
    }
}

/// A `String`'s 16 bytes as they are, compared as two words.
///
/// Equal bits are one representation, so the same bytes (a small string, up to 15 bytes of UTF-8, holds its bytes
/// and count in them; a larger one points to its storage). Unequal bits say nothing: two equal large strings may
/// have two storages. So equal bits find a name with no byte comparison (the plan's keys and the layout's names
/// are short: about 250 instructions of a Tween plan's read went to `withUTF8` and `memcmp` over three keys), and
/// anything else is compared byte for byte.
struct StringBits: Equatable {
    let low: UInt64
    let high: UInt64

    init(_ text: String) { self = unsafeBitCast(text, to: StringBits.self) }
}

/// Writes `value` as the field of every one of the layout's first `count` names that is `key`.
@inline(__always)
private func match(
    _ key: String, _ value: JSONValue, _ layout: UnsafePointer<PlanLayouts.Layout>, _ out: UnsafeMutablePointer<motion_plan_field>,
    _ count: Int, _ texts: TextArena
) {
    if layout.pointee.namesAreDistinct {
        let bits = StringBits(key)
        let names = layout.pointee.bits
        for i in 0..<count where names[i] == bits {
            out[i] = planField(value, texts: texts)
            return
        }
    }
    var key = key
    key.withUTF8 { key in
        let names = layout.pointee.bytes
        for i in 0..<count
        where names[i].count == key.count && (key.count == 0 || memcmp(names[i].baseAddress!, key.baseAddress!, key.count) == 0) {
            out[i] = planField(value, texts: texts)
        }
    }
}

/// Fields a thread's plans by handle share, as `motion_plan_field`s made once and kept for the life of the thread
/// (their strings' bytes in an arena never reset, so a field handed to a plugin stays valid however reads nest):
/// each plan type's name, and the fields of each set of defaults (``PlanDefaults``, shared by every plan that left
/// out the same fields) by layout. At most ``capacity`` of each are kept; beyond that they are made per read, as
/// before.
///
/// Thread rule: one thread's (``PlansInFlight``'s per-thread stack).
final class KeptFields {
    static let capacity = 64

    private struct Defaults {
        let layout: motion_plan_layout
        /// Kept alive by this entry, so its identity is never another set's.
        let defaults: PlanDefaults
        /// (the layout's index, the field) for each of the layout's names that a default fills.
        let fields: [(Int, motion_plan_field)]
    }

    // One thread's, never used re-entrantly: no dynamic exclusivity checks.
    @exclusivity(unchecked) private var defaults: [Defaults] = []
    @exclusivity(unchecked) private var lastDefaults = -1
    @exclusivity(unchecked) private var types: [(type: String, field: motion_plan_field)] = []
    @exclusivity(unchecked) private var lastType = -1
    private let texts = TextArena()

    /// The plan type `type` as a string field.
    @inline(__always)
    func typeField(_ type: String) -> motion_plan_field {
        if lastType >= 0, types[lastType].type == type { return types[lastType].field }
        return newTypeField(type)
    }

    private func newTypeField(_ type: String) -> motion_plan_field {
        if let i = types.firstIndex(where: { $0.type == type }) {
            lastType = i
            return types[i].field
        }
        guard types.count < Self.capacity else { return planField(.string(type), texts: PlansInFlight.stack.texts) }
        types.append((type, planField(.string(type), texts: texts)))
        lastType = types.count - 1
        return types[lastType].field
    }

    /// Writes the fields `defaults` fills in of `layout`'s first `count` names into `out`; `false`, writing nothing,
    /// when ``capacity`` sets are kept already. The kept fields are written where they lie (returned as an array, they
    /// were retained and released per read).
    @inline(__always)
    func writeFields(
        of defaults: PlanDefaults, layout: motion_plan_layout, _ names: UnsafePointer<PlanLayouts.Layout>,
        into out: UnsafeMutablePointer<motion_plan_field>, count: Int
    ) -> Bool {
        if lastDefaults < 0 || self.defaults[lastDefaults].defaults !== defaults || self.defaults[lastDefaults].layout != layout {
            guard newFields(of: defaults, layout: layout, names) != nil else { return false }
        }
        self.defaults.withUnsafeBufferPointer { kept in
            kept[lastDefaults].fields.withUnsafeBufferPointer { fields in
                for (i, field) in fields where i < count { out[i] = field }
            }
        }
        return true
    }

    private func newFields(of defaults: PlanDefaults, layout: motion_plan_layout, _ names: UnsafePointer<PlanLayouts.Layout>) -> [(
        Int, motion_plan_field
    )]? {
        if let i = self.defaults.firstIndex(where: { $0.defaults === defaults && $0.layout == layout }) {
            lastDefaults = i
            return self.defaults[i].fields
        }
        guard self.defaults.count < Self.capacity else { return nil }
        var fields: [(Int, motion_plan_field)] = []
        for (key, value) in defaults.members {
            for i in names.pointee.names.indices where names.pointee.names[i] == key { fields.append((i, planField(value, texts: texts))) }
        }
        self.defaults.append(Defaults(layout: layout, defaults: defaults, fields: fields))
        lastDefaults = self.defaults.count - 1
        return fields
    }
}

/// One value as a `motion_plan_field` (a string's bytes copied into `texts`).
private func planField(_ value: JSONValue?, texts: TextArena) -> motion_plan_field {
    var field = motion_plan_field()
    switch value {
    case nil: field.kind = MOTION_PLAN_FIELD_ABSENT
    case .null?: field.kind = MOTION_PLAN_FIELD_NULL
    case .bool(let flag)?:
        field.kind = MOTION_PLAN_FIELD_BOOLEAN
        field.values.0 = flag ? 1 : 0
    case .number(let number)?:
        field.kind = MOTION_PLAN_FIELD_NUMBER
        field.count = 1
        field.values.0 = number
    case .string(let text)?:
        field.kind = MOTION_PLAN_FIELD_STRING
        (field.text, field.length) = texts.copy(text)
    case .array(let items)? where items.count <= Int(MOTION_PROPERTY_MAX_COMPONENTS):
        field.kind = MOTION_PLAN_FIELD_NUMBERS
        let isVector = withUnsafeMutableBytes(of: &field.values) { raw in
            let values = raw.bindMemory(to: Double.self)
            for (i, item) in items.enumerated() {
                guard case .number(let number) = item else { return false }
                values[i] = number
            }
            return true
        }
        if isVector {
            field.count = UInt32(items.count)
        } else {
            field = motion_plan_field()
            field.kind = MOTION_PLAN_FIELD_OTHER
        }
    case .array?, .object?: field.kind = MOTION_PLAN_FIELD_OTHER
    }
    return field
}

/// `motion_plans_v1.json`: the plan in flight behind `plan` as the JSON add_plan would have had.
private let hostPlanJSON: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int, UnsafeMutablePointer<Int>?) -> motion_status = {
    plan, buffer, capacity, lengthOut in
    lengthOut?.pointee = 0
    guard let plan, buffer != nil || capacity == 0, let stack = PlansInFlight.existingStack,
        let index = PlansInFlight.entry(handle: plan, in: stack)
    else { return MOTION_ERR_INVALID_ARGUMENT }
    var bytes: [UInt8] = []
    do {
        try stack.entries[index].plan.writeJSON(into: &bytes)
    } catch {
        return MOTION_ERR_INTERNAL
    }
    let status = bytes.withUnsafeBufferPointer { copy($0, to: buffer, capacity: capacity, lengthOut: lengthOut) }
    if status == MOTION_OK, let buffer { PlansInFlight.registerJSON(UnsafeBufferPointer(start: buffer, count: bytes.count), of: index, in: stack) }
    return status
}

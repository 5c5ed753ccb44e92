import CMotionABI
import FoundationEssentials
import Glibc
import MotionCore
import Synchronization

/// The sandbox's `motion.plans/1` (motion/plans.h): the plans it hands a plugin by handle are read straight from
/// the binary form the host sent (``WireWriter/plan(_:)``, in the request's payload), with no dictionary built and
/// no JSON, and answered exactly as the host's own extension answers for a plan in process (`hostPlanRead`,
/// `hostPlanJSON`: the same kinds, statuses and layouts, which are the host's, ``PlanLayouts``).
///
/// Thread rule: the sandbox's serving thread, the one that makes the plugin's add calls; a call from any other
/// thread finds no plan in flight (`MOTION_ERR_INVALID_ARGUMENT`, as the header says).
enum SandboxPlans {
    /// A plan being handed over: its handle, its type's UTF-8 bytes, and its fields (from their count on), all in
    /// the request's payload, which lives for the call.
    struct InFlight {
        let handle: UInt
        let type: UnsafeRawBufferPointer
        let fields: UnsafeRawBufferPointer
    }

    // Touched only on the serving thread (``isServingThread``: the thread of the outermost ``withHandle(_:_:)``).
    nonisolated(unsafe) private static var inFlight: [InFlight] = []
    nonisolated(unsafe) private static var lastHandle: UInt = 0
    /// That thread (`pthread_self()`), 0 before the first plan: atomic, since a plugin's own thread may ask.
    private static let servingThread = Atomic<UInt>(0)

    private static var isServingThread: Bool { servingThread.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// The extension the sandbox offers: the host's layouts, this reader.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<motion_plans_v1> = {
        let table = UnsafeMutablePointer<motion_plans_v1>.allocate(capacity: 1)
        table.initialize(
            to: motion_plans_v1(
                struct_size: UInt32(MemoryLayout<motion_plans_v1>.size), layout: HostInterface.plansExtension.pointee.layout,
                read: sandboxPlanRead, json: sandboxPlanJSON))
        return table
    }()

    /// Runs `body` with the plan in `plan` (the whole binary form: type, then fields) registered under a new handle,
    /// on the calling (serving) thread. What `motion_plans_v1.json` registered meanwhile for the host's plan-field
    /// functions is dropped when it returns, as in process.
    static func withHandle<R>(_ plan: UnsafeRawBufferPointer, _ body: (OpaquePointer) -> R) -> R? {
        var cursor = PlanCursor(plan)
        guard let type = cursor.bytes() else { return nil }
        let fields = UnsafeRawBufferPointer(rebasing: plan[cursor.offset...])
        if inFlight.isEmpty { servingThread.store(UInt(pthread_self()), ordering: .relaxed) }
        lastHandle &+= 1
        inFlight.append(InFlight(handle: lastHandle, type: type, fields: fields))
        let stack = PlansInFlight.stack
        let depth = stack.entries.count
        defer {
            inFlight.removeLast()
            if stack.entries.count > depth { stack.entries.removeSubrange(depth...) }
        }
        return body(OpaquePointer(bitPattern: lastHandle)!)
    }

    /// The plan in flight on this thread behind `handle`, innermost first.
    static func entry(_ handle: OpaquePointer) -> InFlight? {
        guard isServingThread else { return nil }
        let number = UInt(bitPattern: UnsafeRawPointer(handle))
        return inFlight.last { $0.handle == number }
    }
}

/// Reads the binary form of a plan (``WireWriter/plan(_:)``) in place. The sandbox checked the whole form when it
/// took the request (``WireReader/planBytes()``), so a read past the end cannot happen; it would answer `nil`.
struct PlanCursor {
    let base: UnsafeRawBufferPointer
    var offset = 0

    init(_ base: UnsafeRawBufferPointer) { self.base = base }

    mutating func u32() -> UInt32? {
        guard base.count - offset >= 4 else { return nil }
        defer { offset += 4 }
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func f64() -> Double? {
        guard base.count - offset >= 8 else { return nil }
        defer { offset += 8 }
        return Double(bitPattern: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }

    mutating func tag() -> UInt8? {
        guard offset < base.count else { return nil }
        defer { offset += 1 }
        return base[offset]
    }

    /// A string's bytes.
    mutating func bytes() -> UnsafeRawBufferPointer? {
        guard let count = u32(), base.count - offset >= Int(count) else { return nil }
        defer { offset += Int(count) }
        return UnsafeRawBufferPointer(rebasing: base[offset..<offset + Int(count)])
    }

    /// Steps over one value; `false` when the bytes are not one.
    mutating func skipValue(depth: Int = 0) -> Bool {
        guard let tag = tag() else { return false }
        switch tag {
        case 0, 1, 2: return true
        case 3: return f64() != nil
        case 4: return bytes() != nil
        case 5, 6:
            guard depth < WireWriter.maximumPlanDepth, let count = u32() else { return false }
            for _ in 0..<count {
                if tag == 6, bytes() == nil { return false }
                guard skipValue(depth: depth + 1) else { return false }
            }
            return true
        default: return false
        }
    }

    /// One value as `motion_plan_field`, as the host's reader gives it (`planField` in PlanHandles.swift): a string's
    /// text points into the payload (valid for the call, as the header promises); an array of at most
    /// `MOTION_PROPERTY_MAX_COMPONENTS` numbers is NUMBERS; any other array, and an object, is OTHER.
    mutating func field() -> motion_plan_field {
        var field = motion_plan_field()
        let start = offset
        switch tag() {
        case 0: field.kind = MOTION_PLAN_FIELD_NULL
        case 1, 2:
            field.kind = MOTION_PLAN_FIELD_BOOLEAN
            field.values.0 = base[offset - 1] == 2 ? 1 : 0
        case 3:
            field.kind = MOTION_PLAN_FIELD_NUMBER
            field.count = 1
            field.values.0 = f64() ?? 0
        case 4:
            let text = bytes()
            field.kind = MOTION_PLAN_FIELD_STRING
            field.text = text?.baseAddress?.assumingMemoryBound(to: CChar.self)
            field.length = text?.count ?? 0
        case 5:
            let count = u32() ?? 0
            if count <= MOTION_PROPERTY_MAX_COMPONENTS {
                let isVector = withUnsafeMutableBytes(of: &field.values) { raw in
                    for i in 0..<Int(count) {
                        guard tag() == 3, let number = f64() else { return false }
                        raw.storeBytes(of: number, toByteOffset: 8 * i, as: Double.self)
                    }
                    return true
                }
                if isVector {
                    field.kind = MOTION_PLAN_FIELD_NUMBERS
                    field.count = count
                    return field
                }
            }
            field = motion_plan_field()
            field.kind = MOTION_PLAN_FIELD_OTHER
            offset = start
            _ = skipValue()
        default:
            field.kind = MOTION_PLAN_FIELD_OTHER
            offset = start
            _ = skipValue()
        }
        return field
    }
}

/// `motion_plans_v1.read` in the sandbox: `hostPlanRead`'s checks and answers, from the binary form.
private let sandboxPlanRead: @convention(c) (OpaquePointer?, motion_plan_layout, UnsafeMutablePointer<motion_plan_field>?, Int) -> motion_status = {
    plan, layout, out, count in
    guard let plan, let out, count > 0, let layout = PlanLayouts.layout(layout), count <= layout.pointee.names.count,
        let entry = SandboxPlans.entry(plan)
    else { return MOTION_ERR_INVALID_ARGUMENT }
    let names = layout.pointee.bytes
    for i in 0..<count {
        var field = motion_plan_field()
        if layout.pointee.isType[i] {
            field.kind = MOTION_PLAN_FIELD_STRING
            field.text = entry.type.baseAddress?.assumingMemoryBound(to: CChar.self)
            field.length = entry.type.count
        }
        out[i] = field
    }
    var cursor = PlanCursor(entry.fields)
    let fieldCount = cursor.u32() ?? 0
    for _ in 0..<fieldCount {
        guard let key = cursor.bytes() else { break }
        var field: motion_plan_field?
        for i in 0..<count
        where names[i].count == key.count && (key.count == 0 || memcmp(names[i].baseAddress!, key.baseAddress!, key.count) == 0) {
            if field == nil { field = cursor.field() }
            out[i] = field!
        }
        if field == nil, !cursor.skipValue() { break }
    }
    return MOTION_OK
}

/// `motion_plans_v1.json` in the sandbox: `hostPlanJSON`'s answers (the plan read back into a ``Plan`` and written
/// by its own writer), and the buffer registered for the host's plan-field functions until the add call returns.
private let sandboxPlanJSON: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int, UnsafeMutablePointer<Int>?) -> motion_status = {
    plan, buffer, capacity, lengthOut in
    lengthOut?.pointee = 0
    guard let plan, buffer != nil || capacity == 0, let entry = SandboxPlans.entry(plan) else { return MOTION_ERR_INVALID_ARGUMENT }
    var form = WireWriter(capacity: entry.type.count + entry.fields.count + 4)
    form.data(entry.type)
    form.bytes.append(contentsOf: entry.fields)
    var reader = WireReader(form.bytes)
    guard let decoded = reader.plan() else { return MOTION_ERR_INTERNAL }
    var bytes: [UInt8] = []
    do { try decoded.writeJSON(into: &bytes) } catch { return MOTION_ERR_INTERNAL }
    let status = bytes.withUnsafeBufferPointer { copy($0, to: buffer, capacity: capacity, lengthOut: lengthOut) }
    if status == MOTION_OK, let buffer {
        PlansInFlight.stack.entries.append(
            PlansInFlight.Entry(
                start: UInt(bitPattern: buffer), length: bytes.count, type: decoded.type, plan: decoded))
    }
    return status
}

// Every raw call into the host's motion_host_v1 function pointers, in one place. Each wrapper names
// the C function it calls; none keeps a pointer beyond the call.

import CMotionABI

/// The host's interface pointer (`const motion_host_v1 *`).
///
/// `@unchecked Sendable`: the pointer is valid for the life of the process (motion_plugin.h, "The host's
/// side"), the struct is never written after the entry call, and every function it holds documents its
/// own thread rule ([thread-safe] or [scheduler-thread], which the host checks).
struct Host: @unchecked Sendable {
    let raw: UnsafePointer<motion_host_v1>
    /// The host's property-slots extension (ABI 1.3, motion/slots.h), when it offers one covering `set_slots`.
    let slots: UnsafePointer<motion_property_slots_v1>?
    /// The host's plans extension (ABI 1.4, motion/plans.h), when it offers one covering `json`: plans then
    /// arrive by handle and are read in one call.
    let plans: UnsafePointer<motion_plans_v1>?

    init(raw: UnsafePointer<motion_host_v1>) {
        self.raw = raw
        var slots: UnsafePointer<motion_property_slots_v1>?
        let size = MemoryLayout<motion_host_v1>.offset(of: \.get_extension)! + MemoryLayout<UnsafeRawPointer>.size
        if Int(raw.pointee.struct_size) >= size, let getExtension = raw.pointee.get_extension,
            let table = getExtension(MOTION_HOST_EXTENSION_PROPERTY_SLOTS)?.assumingMemoryBound(to: motion_property_slots_v1.self),
            Int(table.pointee.struct_size) >= MemoryLayout<motion_property_slots_v1>.size, table.pointee.slot != nil,
            table.pointee.set_slots != nil
        {
            slots = table
        }
        self.slots = slots
        var plans: UnsafePointer<motion_plans_v1>?
        if Int(raw.pointee.struct_size) >= size, let getExtension = raw.pointee.get_extension,
            let table = getExtension(MOTION_HOST_EXTENSION_PLANS)?.assumingMemoryBound(to: motion_plans_v1.self),
            Int(table.pointee.struct_size) >= MemoryLayout<motion_plans_v1>.size, table.pointee.layout != nil,
            table.pointee.read != nil, table.pointee.json != nil
        {
            plans = table
        }
        self.plans = plans
    }

    /// Whether the host's struct is large enough to hold `field` (motion_plugin.h, `MOTION_STRUCT_HAS_FIELD`).
    func covers<F>(_ field: KeyPath<motion_host_v1, F>) -> Bool {
        guard let offset = MemoryLayout<motion_host_v1>.offset(of: field) else { return false }
        return Int(raw.pointee.struct_size) >= offset + MemoryLayout<F>.size
    }

    /// The bytes of ABI 1.0's `motion_host_v1`: up to its last field, `plan_value_json`.
    static let version1Size = MemoryLayout<motion_host_v1>.offset(of: \.plan_value_json)! + MemoryLayout<UnsafeRawPointer>.size

    /// Whether the host's struct holds every ABI 1.0 field (a 1.0 host has no `set_properties`).
    var coversVersion1: Bool { covers(\.plan_value_json) }

    /// Whether the host's struct covers the plan-field functions (`plan_number` … `plan_value_json`).
    var coversPlanFields: Bool { covers(\.plan_value_json) }

    /// Whether the host's struct covers `set_properties` (ABI 1.1).
    var coversSetProperties: Bool { covers(\.set_properties) }

    /// Whether at least the `log` field is covered (so a refusal can be explained).
    var coversLog: Bool { covers(\.log) }

    /// `motion_host_v1.log(level, message)`.
    func log(_ level: Int32, _ message: String) {
        guard coversLog, let log = raw.pointee.log else { return }
        log(level, message)
    }

    /// `motion_host_v1.emit_transaction(ctx, json, length, error)`.
    func emitTransaction(_ context: ContextHandle, _ json: UnsafeBufferPointer<UInt8>, _ error: inout motion_error)
        -> motion_status
    {
        guard let emit = raw.pointee.emit_transaction, let base = json.baseAddress else {
            return MOTION_ERR_INVALID_ARGUMENT
        }
        return base.withMemoryRebound(to: CChar.self, capacity: json.count) {
            emit(context.raw, $0, json.count, &error)
        }
    }

    /// `motion_host_v1.token_generate(ctx, &token)`.
    func tokenGenerate(_ context: ContextHandle) -> (motion_status, motion_token) {
        guard let generate = raw.pointee.token_generate else { return (MOTION_ERR_INTERNAL, 0) }
        var token: motion_token = 0
        let status = generate(context.raw, &token)
        return (status, token)
    }

    /// `motion_host_v1.token_terminate(ctx, token)`.
    func tokenTerminate(_ context: ContextHandle, _ token: motion_token) -> motion_status {
        guard let terminate = raw.pointee.token_terminate else { return MOTION_ERR_INTERNAL }
        return terminate(context.raw, token)
    }

    /// `motion_host_v1.property_id(ctx, name)`.
    func propertyID(_ context: ContextHandle, _ name: String) -> motion_property_id {
        guard let propertyID = raw.pointee.property_id else { return MOTION_ERR_INTERNAL }
        return propertyID(context.raw, name)
    }

    /// `motion_host_v1.get_property(ctx, id, values, capacity, &count)`.
    func getProperty(_ context: ContextHandle, _ id: motion_property_id, _ values: UnsafeMutableBufferPointer<Double>)
        -> (motion_status, UInt32)
    {
        guard let get = raw.pointee.get_property else { return (MOTION_ERR_INTERNAL, 0) }
        var count: UInt32 = 0
        let status = get(context.raw, id, values.baseAddress, UInt32(values.count), &count)
        return (status, count)
    }

    /// `motion_host_v1.set_property(ctx, id, values, count)`.
    func setProperty(_ context: ContextHandle, _ id: motion_property_id, _ values: UnsafeBufferPointer<Double>)
        -> motion_status
    {
        guard let set = raw.pointee.set_property, let base = values.baseAddress else {
            return MOTION_ERR_INVALID_ARGUMENT
        }
        return set(context.raw, id, base, UInt32(values.count))
    }
}

/// The host's per-performer context (`motion_host_context *`).
///
/// `@unchecked Sendable`: an opaque host handle; the host documents which of its functions may be
/// called with it from which thread, and `PerformerContext` stops all use of it once the performer
/// is destroyed.
@usableFromInline
struct ContextHandle: @unchecked Sendable {
    @usableFromInline let raw: OpaquePointer
}

/// A fresh error out-parameter for a host call.
func makeError() -> motion_error {
    var error = motion_error()
    error.struct_size = UInt32(MemoryLayout<motion_error>.size)
    error.status = MOTION_OK
    return error
}

/// The NUL-terminated message of an error (never reads past its capacity).
func message(of error: motion_error) -> String {
    withUnsafeBytes(of: error.message) { bytes in
        String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
}

/// Copies a host-owned struct that begins with `uint32_t struct_size`, zero-filling any tail an older
/// host did not write (motion_plugin.h: "readers read only what the size covers").
func readCovered<T>(_ pointer: UnsafePointer<T>, zero: T) -> T {
    let size = Int(UnsafeRawPointer(pointer).load(as: UInt32.self))
    if size >= MemoryLayout<T>.size { return pointer.pointee }
    var value = zero
    withUnsafeMutableBytes(of: &value) { destination in
        destination.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer), count: size))
    }
    return value
}

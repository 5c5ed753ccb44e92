import CMotionABI
import FoundationEssentials
import Glibc
import MotionCore

/// The host's side of the C ABI: the `motion_host_v1` table every plugin receives.
///
/// Each function recovers its ``HostContext`` from the `motion_host_context *` and checks every
/// pointer the plugin passes: a misbehaving plugin gets a status code, never a host crash.
enum HostInterface {
    /// The table, immutable after initialisation, valid for the life of the process.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<motion_host_v1> = {
        let table = UnsafeMutablePointer<motion_host_v1>.allocate(capacity: 1)
        table.initialize(
            to: motion_host_v1(
                struct_size: UInt32(MemoryLayout<motion_host_v1>.size),
                abi_version: UInt32(MOTION_ABI_VERSION),
                log: hostLog,
                emit_transaction: hostEmitTransaction,
                token_generate: hostTokenGenerate,
                token_terminate: hostTokenTerminate,
                property_id: hostPropertyID,
                get_property: hostGetProperty,
                set_property: hostSetProperty,
                target_name: hostTargetName,
                plan_number: hostPlanNumber,
                plan_numbers: hostPlanNumbers,
                plan_string: hostPlanString,
                plan_value_json: hostPlanValueJSON,
                set_properties: hostSetProperties,
                get_extension: hostGetExtension))
        return table
    }()

    /// The host's log extension (`MOTION_HOST_EXTENSION_LOG`), immutable, valid for the life of the process.
    nonisolated(unsafe) static let logExtension: UnsafeMutablePointer<motion_log_v1> = {
        let table = UnsafeMutablePointer<motion_log_v1>.allocate(capacity: 1)
        table.initialize(to: motion_log_v1(struct_size: UInt32(MemoryLayout<motion_log_v1>.size), log: hostContextLog))
        return table
    }()
}

extension HostInterface {
    /// The host's property-slots extension (`MOTION_HOST_EXTENSION_PROPERTY_SLOTS`, ABI 1.3), immutable, valid
    /// for the life of the process.
    nonisolated(unsafe) static let slotsExtension: UnsafeMutablePointer<motion_property_slots_v1> = {
        let table = UnsafeMutablePointer<motion_property_slots_v1>.allocate(capacity: 1)
        table.initialize(
            to: motion_property_slots_v1(
                struct_size: UInt32(MemoryLayout<motion_property_slots_v1>.size), slot: hostSlot, set_slots: hostSetSlots))
        return table
    }()
}

/// `motion_host_v1.get_extension`: the host's extensions by id; `NULL` for an id it does not offer.
private let hostGetExtension: @convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer? = { id in
    guard let id else { return nil }
    if strcmp(id, MOTION_HOST_EXTENSION_LOG) == 0 { return UnsafeRawPointer(HostInterface.logExtension) }
    if strcmp(id, MOTION_HOST_EXTENSION_PROPERTY_SLOTS) == 0 { return UnsafeRawPointer(HostInterface.slotsExtension) }
    if strcmp(id, MOTION_HOST_EXTENSION_PLANS) == 0 { return UnsafeRawPointer(HostInterface.plansExtension) }
    return nil
}

/// `motion_property_slots_v1.slot`: the slot of a property of the context's target (motion/slots.h).
private let hostSlot: @convention(c) (OpaquePointer?, motion_property_id) -> motion_property_slot = { ctx, id in
    HostContext.borrowing(ctx, otherwise: MOTION_ERR_INVALID_ARGUMENT) { context in
        guard context.isLive else { return MOTION_ERR_SCHEDULER_GONE }
        guard context.isOnSchedulerThread else { return MOTION_ERR_WRONG_THREAD }
        let property = PropertyID(rawValue: id)
        guard context.withScene({ $0.hasProperty(property) }) else { return MOTION_ERR_UNKNOWN_PROPERTY }
        return context.withTarget { $0.slot(for: property).rawValue }
    }
}

/// `motion_property_slots_v1.set_slots`: a batch of writes by slot, every check made before any write is
/// applied, in the order motion/slots.h gives: the arguments, context and thread here, then per write its slot and
/// count, then the values' total and finiteness, by the scene's store (``Scene/setSlots(_:values:)``), which then
/// applies the batch with no further check.
private let hostSetSlots:
    @convention(c) (OpaquePointer?, UnsafePointer<motion_slot_write>?, Int, UnsafePointer<Double>?, Int, UnsafeMutablePointer<Int>?) ->
        motion_status = { ctx, writes, count, values, valueCount, failedIndexOut in
            HostContext.borrowing(ctx, otherwise: MOTION_ERR_INVALID_ARGUMENT) { context in
                guard count == 0 || (writes != nil && values != nil), count >= 0, valueCount >= 0 else {
                    return MOTION_ERR_INVALID_ARGUMENT
                }
                guard context.isLive else { return MOTION_ERR_SCHEDULER_GONE }
                guard context.isOnSchedulerThread else { return MOTION_ERR_WRONG_THREAD }
                guard count > 0 || valueCount > 0 else { return MOTION_OK }
                // Values with no writes: the whole batch's check names index 0 (count).
                guard let writes, let values else {
                    failedIndexOut?.pointee = 0
                    return MOTION_ERR_INVALID_ARGUMENT
                }
                let problem = context.withScene { scene in
                    SlotBatch.withSpans(writes, count, values, valueCount) { scene.setSlots($0, values: $1) }
                }
                guard let problem else { return MOTION_OK }
                failedIndexOut?.pointee = problem.index
                return SlotBatch.status(of: problem)
            }
        }

/// The checks of one `set_slots` batch, as motion/slots.h orders them, for the sandbox (which queues a batch it
/// checked for the host), and the views of a C batch the scene's store takes.
enum SlotBatch {
    /// `motion_slot_write` and ``PropertySlotWrite`` are one layout (an `int32_t` slot, a `uint32_t` count).
    static let layoutMatches: Bool =
        MemoryLayout<motion_slot_write>.size == MemoryLayout<PropertySlotWrite>.size
        && MemoryLayout<motion_slot_write>.stride == MemoryLayout<PropertySlotWrite>.stride
        && MemoryLayout<motion_slot_write>.offset(of: \.count) == MemoryLayout<PropertySlotWrite>.offset(of: \.count)

    /// Runs `body` with a C batch viewed as spans (valid during the call only).
    @inline(__always)
    static func withSpans<R>(
        _ writes: UnsafeRawPointer?, _ count: Int, _ values: UnsafePointer<Double>?, _ valueCount: Int,
        _ body: (Span<PropertySlotWrite>, Span<Double>) -> R
    ) -> R {
        precondition(layoutMatches, "PropertySlotWrite no longer has motion_slot_write's layout")
        let writeBuffer = UnsafeBufferPointer(start: writes?.assumingMemoryBound(to: PropertySlotWrite.self), count: count)
        let valueBuffer = UnsafeBufferPointer(start: values, count: valueCount)
        return body(Span(_unsafeElements: writeBuffer), Span(_unsafeElements: valueBuffer))
    }

    /// The status `set_slots` returns for a problem the scene's store found.
    static func status(of problem: PropertySlotBatchProblem) -> motion_status {
        problem.kind == .unknownSlot ? MOTION_ERR_UNKNOWN_PROPERTY : MOTION_ERR_INVALID_ARGUMENT
    }

    /// The first problem of a batch, as motion/slots.h orders them, with the index it reports, the slots that may
    /// be written given by `isKnownSlot` (a sandbox accepts only the slots it was given through `slot()`); `nil`
    /// when every write may be applied.
    @inline(__always)
    static func problem(
        _ writes: UnsafePointer<motion_slot_write>?, _ count: Int, _ values: UnsafePointer<Double>?, _ valueCount: Int,
        isKnownSlot: (motion_property_slot) -> Bool
    ) -> (motion_status, Int)? {
        guard count > 0 || valueCount > 0 else { return nil }
        guard let writes, let values else { return (MOTION_ERR_INVALID_ARGUMENT, 0) }
        var total = 0
        // x - x is 0 for a finite x and NaN otherwise: one sum over the batch's values, in the same pass, and a
        // search for the culprit only when it fails.
        var sum = 0.0
        var index = 0
        while index < count {
            // The common writes, one component each, while the values hold one per write.
            let end = min(count, index &+ (valueCount &- total))
            while index < end {
                let write = writes[index]
                if !isKnownSlot(write.slot) { return (MOTION_ERR_UNKNOWN_PROPERTY, index) }
                guard write.count == 1 else { break }
                sum += values[total] - values[total]
                total &+= 1
                index &+= 1
            }
            guard index < count else { break }
            let write = writes[index]
            if !isKnownSlot(write.slot) { return (MOTION_ERR_UNKNOWN_PROPERTY, index) }
            let components = Int(write.count)
            if write.count &- 1 >= UInt32(MOTION_PROPERTY_MAX_COMPONENTS) || components > valueCount &- total {
                return (MOTION_ERR_INVALID_ARGUMENT, index)
            }
            for i in total..<total &+ components { sum += values[i] - values[i] }
            total &+= components
            index &+= 1
        }
        if total < valueCount { return (MOTION_ERR_INVALID_ARGUMENT, count) }
        guard sum == 0 else { return (MOTION_ERR_INVALID_ARGUMENT, (0..<valueCount).first { !values[$0].isFinite } ?? 0) }
        return nil
    }
}

/// `motion_log_v1.log`: a line attributed by the host from the context (plugin and target), sent where that
/// plugin's host sends its lines.
private let hostContextLog: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?) -> Void = { ctx, level, message in
    guard let message else { return }
    let level = PluginLog.Level(rawValue: level) ?? .info
    // A retired context's line is not attributed: the performer is gone.
    guard let attribution = HostContext.from(ctx)?.logAttribution else {
        PluginLog.write(level, String(cString: message))
        return
    }
    let line = "\(attribution.plugin) (\(attribution.target)): \(String(cString: message))"
    if let route = attribution.route {
        PluginLog.routing(route) { PluginLog.write(level, line) }
    } else {
        PluginLog.write(level, line)
    }
}

/// Writes `message` (truncated, NUL-terminated) into a plugin-visible error.
func fill(_ error: UnsafeMutablePointer<motion_error>?, _ status: motion_status, _ message: String) {
    guard let error else { return }
    message.withCString { motion_error_set(error, status, $0) }
}

private let hostLog: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { level, message in
    guard let message else { return }
    PluginLog.write(PluginLog.Level(rawValue: level) ?? .info, String(cString: message))
}

private let hostEmitTransaction:
    @convention(c) (
        OpaquePointer?, UnsafePointer<CChar>?, Int, UnsafeMutablePointer<motion_error>?
    ) -> motion_status = { ctx, json, length, errorOut in
        guard let context = HostContext.from(ctx), let json, length > 0 else {
            fill(errorOut, MOTION_ERR_INVALID_ARGUMENT, "emit_transaction needs a context and a non-empty JSON buffer")
            return MOTION_ERR_INVALID_ARGUMENT
        }
        guard context.isLive else {
            fill(errorOut, MOTION_ERR_SCHEDULER_GONE, "the performer of this context was destroyed; nothing was emitted")
            return MOTION_ERR_SCHEDULER_GONE
        }
        guard let emitter = context.emitter else {
            fill(errorOut, MOTION_ERR_INTERNAL, "this performer has no emitter")
            return MOTION_ERR_INTERNAL
        }
        // The caps, before any parsing: a transaction's size bounds what parsing and applying it cost.
        if let problem = EmissionLimits.problem(json: UnsafeRawBufferPointer(start: json, count: length)) {
            fill(errorOut, MOTION_ERR_TOO_LARGE, problem)
            return MOTION_ERR_TOO_LARGE
        }
        do {
            let transaction = try Transaction(jsonData: Data(bytes: json, count: length))
            guard try emitter.emit(transaction) else {
                fill(errorOut, MOTION_ERR_SCHEDULER_GONE, "the scheduler is gone; nothing was emitted")
                return MOTION_ERR_SCHEDULER_GONE
            }
            return MOTION_OK
        } catch let error as CommitError {
            let status = error.code == .unknownPlanType ? MOTION_ERR_UNKNOWN_PLAN_TYPE : MOTION_ERR_EMISSION_FAILED
            fill(errorOut, status, error.description)
            return status
        } catch {
            fill(errorOut, MOTION_ERR_EMISSION_FAILED, "\(error)")
            return MOTION_ERR_EMISSION_FAILED
        }
    }

private let hostTokenGenerate: @convention(c) (OpaquePointer?, UnsafeMutablePointer<motion_token>?) -> motion_status = {
    ctx, tokenOut in
    guard let context = HostContext.from(ctx), let tokenOut else { return MOTION_ERR_INVALID_ARGUMENT }
    guard let token = context.generateToken() else {
        tokenOut.pointee = 0
        return MOTION_ERR_SCHEDULER_GONE
    }
    tokenOut.pointee = token
    return MOTION_OK
}

private let hostTokenTerminate: @convention(c) (OpaquePointer?, motion_token) -> motion_status = { ctx, token in
    guard let context = HostContext.from(ctx) else { return MOTION_ERR_INVALID_ARGUMENT }
    return context.terminateToken(token)
}

private let hostPropertyID: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> motion_property_id = { ctx, name in
    guard let name, name.pointee != 0 else { return MOTION_ERR_INVALID_ARGUMENT }
    return HostContext.borrowing(ctx, otherwise: MOTION_ERR_INVALID_ARGUMENT) { context in
        guard context.isLive else { return MOTION_ERR_SCHEDULER_GONE }
        guard context.isOnSchedulerThread else { return MOTION_ERR_WRONG_THREAD }
        return context.withScene { $0.propertyID(String(cString: name)).rawValue }
    }
}

private let hostGetProperty:
    @convention(c) (OpaquePointer?, motion_property_id, UnsafeMutablePointer<Double>?, UInt32, UnsafeMutablePointer<UInt32>?) ->
        motion_status = { ctx, id, values, capacity, countOut in
            guard let countOut else { return MOTION_ERR_INVALID_ARGUMENT }
            return HostContext.borrowing(ctx, otherwise: MOTION_ERR_INVALID_ARGUMENT) { context in
                guard context.isLive else {
                    countOut.pointee = 0
                    return MOTION_ERR_SCHEDULER_GONE
                }
                guard context.isOnSchedulerThread else { return MOTION_ERR_WRONG_THREAD }
                guard id >= 0, let value = context.withTarget({ $0[PropertyID(rawValue: id)] }) else {
                    countOut.pointee = 0
                    return MOTION_ERR_UNKNOWN_PROPERTY
                }
                countOut.pointee = UInt32(value.count)
                guard let values, capacity >= UInt32(value.count) else { return MOTION_ERR_BUFFER_TOO_SMALL }
                for i in 0..<value.count { values[i] = value[i] }
                return MOTION_OK
            }
        }

private let hostSetProperty: @convention(c) (OpaquePointer?, motion_property_id, UnsafePointer<Double>?, UInt32) -> motion_status = {
    ctx, id, values, count in
    guard let ctx else { return MOTION_ERR_INVALID_ARGUMENT }
    return setProperty(ctx, id, values, count, thread: pthread_self())
}

private let hostSetProperties: @convention(c) (UnsafePointer<motion_property_write>?, Int, Int, UnsafeMutablePointer<Int>?) -> motion_status = {
    writes, count, writeSize, failedIndexOut in
    guard count != 0 else { return MOTION_OK }
    // size_t arrives as Int: a count of 2^63 or more is negative here.
    guard let writes, count > 0, writeSize >= MemoryLayout<motion_property_write>.size,
        writeSize % MemoryLayout<motion_property_write>.alignment == 0, count <= Int.max / writeSize
    else {
        failedIndexOut?.pointee = 0
        return MOTION_ERR_INVALID_ARGUMENT
    }
    let thread = pthread_self()
    var firstFailure = MOTION_OK
    // The caller's stride: a newer minor may have appended fields this host does not read.
    var write = UnsafeRawPointer(writes)
    for index in 0..<count {
        let status = setProperty(write.assumingMemoryBound(to: motion_property_write.self), thread: thread)
        if status != MOTION_OK, firstFailure == MOTION_OK {
            firstFailure = status
            failedIndexOut?.pointee = index
        }
        write += writeSize
    }
    return firstFailure
}

/// One `set_property` call's checks and write: values, count, finiteness, then the context's.
@inline(__always)
private func setProperty(
    _ ctx: OpaquePointer, _ id: motion_property_id, _ values: UnsafePointer<Double>?, _ count: UInt32, thread: pthread_t
) -> motion_status {
    guard let values, count &- 1 < UInt32(MOTION_PROPERTY_MAX_COMPONENTS) else { return MOTION_ERR_INVALID_ARGUMENT }
    // The caller's buffer holds `count` values: read no more.
    let value = PropertyValue(UnsafeBufferPointer(start: values, count: Int(count)))
    guard value.isFinite else { return MOTION_ERR_INVALID_ARGUMENT }
    return setProperty(ctx, id, value, thread: thread)
}

/// One entry of `set_properties`: the same checks, in the same order, as `set_property` makes.
@inline(__always)
private func setProperty(_ write: UnsafePointer<motion_property_write>, thread: pthread_t) -> motion_status {
    let count = write.pointee.count
    guard let ctx = write.pointee.ctx, count &- 1 < UInt32(MOTION_PROPERTY_MAX_COMPONENTS) else {
        return MOTION_ERR_INVALID_ARGUMENT
    }
    // Read in place (no copy of the array); the values past `count` are ignored.
    let values = UnsafeRawPointer(write).advanced(by: MemoryLayout<motion_property_write>.offset(of: \.values)!)
        .assumingMemoryBound(to: Double.self)
    let value = PropertyValue(UnsafeBufferPointer(start: values, count: Int(count)))
    guard value.isFinite else { return MOTION_ERR_INVALID_ARGUMENT }
    return setProperty(ctx, write.pointee.property, value, thread: thread)
}

/// The checks that need the context (live, thread, then id), in the order the header gives, and the write,
/// with the context and target borrowed. `thread` is the caller's `pthread_self()`, taken once per call.
@inline(__always)
private func setProperty(_ ctx: OpaquePointer, _ id: motion_property_id, _ value: PropertyValue, thread: pthread_t)
    -> motion_status
{
    HostContext.borrowing(ctx, otherwise: MOTION_ERR_INVALID_ARGUMENT) { context in
        guard context.isLive else { return MOTION_ERR_SCHEDULER_GONE }
        guard context.schedulerThread == thread else { return MOTION_ERR_WRONG_THREAD }
        let property = PropertyID(rawValue: id)
        guard context.withScene({ $0.hasProperty(property) }) else { return MOTION_ERR_UNKNOWN_PROPERTY }
        context.withTarget { $0.setValue(value, for: property) }
        return MOTION_OK
    }
}

private let hostTargetName: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>? = { ctx in
    HostContext.from(ctx)?.targetName ?? emptyCString
}

// The C functions of the plugin's interface (motion_plugin_v1, motion_frames_v1,
// motion_device_motion_v1): they turn C calls into Swift calls on the performer and Swift errors into
// motion_status + motion_error. No Swift type crosses the boundary: only C types and JSON bytes.

import CMotionABI

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A performer class's plan types by name.
///
/// `Sendable` because its dictionary of metatypes of `Sendable` plan types is immutable.
final class PlanTable: Sendable {
    let types: [String: any PluginPlan.Type]
    /// The fields a plan by handle is read with (motion/plans.h).
    let layout: PlanLayout
    /// The plan types that read themselves from those fields, cast once here rather than per plan.
    let readers: [String: any PlanFieldReading.Type]
    /// For a `SinglePlanPerformer` whose plan type reads itself: reading and performing with no existential box
    /// or cast in between.
    let typedAdd: TypedAdd?
    /// For a `BatchedFrameUpdating` class: how `update_many` runs its batch.
    let batchRunner: FrameBatchRunner?
    /// How the SDK calls a performer of this class.
    let calls: PerformerCalls
    init(types: [String: any PluginPlan.Type], performer: any PluginPerformer.Type) {
        self.types = types
        self.batchRunner = FrameBatchRunner.make(performer)
        self.calls = PerformerCalls.make(performer)
        self.layout = PlanLayout(types: types.keys.sorted().compactMap { types[$0] })
        self.readers = types.compactMapValues { $0 as? any PlanFieldReading.Type }
        self.typedAdd = (performer as? any SinglePlanPerformer.Type).flatMap { TypedAdd.make($0) }
    }

    /// Decodes `{"type": ..., fields}` into the plan type it names.
    /// - Throws: `PlanJSONSyntaxError` (not JSON), `DecodingError` (a field), `PluginError` (no or an
    ///   unknown type).
    func decodePlan(_ bytes: UnsafeBufferPointer<UInt8>) throws -> any PluginPlan {
        let root = try PlanJSON.parse(bytes)
        guard case .object = root else {
            throw PluginError(
                .invalidPlan, "expected a plan object {\"type\": ..., fields}, found \(root.kind).", field: "plan")
        }
        guard case .string(let type) = root.member("type") else {
            throw PluginError(.invalidPlan, "missing. To fix, give the plan a \"type\" string.", field: "type")
        }
        guard let planType = types[type] else {
            let known = types.keys.sorted().joined(separator: ", ")
            throw PluginError(
                .unknownPlanType,
                "this performer does not perform plan type \"\(type)\"; it performs \(known). To fix, check the "
                    + "manifest lists the type under this performer class.",
                field: "type")
        }
        return try planType.init(from: PlanDecoder(value: root))
    }
}

/// How the SDK calls the performers of one class, made once per class: each call downcasts the context's
/// unretained performer with no dynamic cast, so that a context (the SDK's record of a performer) holds one
/// pointer to its performer instead of an existential per protocol (16 bytes each).
struct PerformerCalls: Sendable {
    /// The performer as the protocol the plan calls use.
    let performer: @Sendable (AnyObject) -> any PluginPerformer
    /// `FrameUpdating.update(frame:)`, for a class that conforms.
    let update: (@Sendable (AnyObject, Frame) -> Void)?
    /// `DeviceMotionReceiving.receive(sample:)`, for a class that conforms.
    let receive: (@Sendable (AnyObject, DeviceMotionSample) -> Void)?

    static func make(_ type: any PluginPerformer.Type) -> PerformerCalls { typed(type) }

    private static func typed<P: PluginPerformer>(_: P.Type) -> PerformerCalls {
        PerformerCalls(
            performer: { unsafeDowncast($0, to: P.self) },
            update: (P.self as? any FrameUpdating.Type).map { updating($0) },
            receive: (P.self as? any DeviceMotionReceiving.Type).map { receiving($0) })
    }

    private static func updating<P: FrameUpdating>(_: P.Type) -> @Sendable (AnyObject, Frame) -> Void {
        { unsafeDowncast($0, to: P.self).update(frame: $1) }
    }

    private static func receiving<P: DeviceMotionReceiving>(_: P.Type) -> @Sendable (AnyObject, DeviceMotionSample) -> Void {
        { unsafeDowncast($0, to: P.self).receive(sample: $1) }
    }
}

/// The SDK's record of a performer is its context: its address is the `motion_performer *` the host holds,
/// retained from `create_performer` to `destroy_performer`.
extension PerformerContext {
    /// The context behind a `motion_performer *` (not retained).
    static func from(_ pointer: OpaquePointer) -> PerformerContext {
        Unmanaged<PerformerContext>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// The performer (retained for the caller); only between `create_performer` and `destroy_performer`.
    var performer: any PluginPerformer { plans.calls.performer(performerObject.unsafelyUnwrapped.takeUnretainedValue()) }

    /// The performer's `update(frame:)` with no retain (a `FrameUpdating` performer's; else nothing).
    @inline(__always)
    func update(frame: Frame) {
        guard let update = plans.calls.update, let object = performerObject else { return }
        object._withUnsafeGuaranteedRef { update($0, frame) }
    }

    /// Decodes a plan's JSON bytes (host-owned, valid for the call): through the host's plan-field
    /// functions when the host has them (no JSON parsing for the plan in flight), else, or when a field
    /// cannot be read that way, from the JSON itself.
    func decodePlan(_ json: UnsafePointer<CChar>, _ length: Int) throws -> any PluginPlan {
        let host = self.host
        if host.coversPlanFields {
            let fields = HostPlanFields(host: host, json: json, length: length)
            if let type = fields.string("type"), let planType = plans.types[type],
                let plan = try? planType.init(from: HostFieldDecoder(fields: fields))
            {
                return plan
            }
        }
        return try json.withMemoryRebound(to: UInt8.self, capacity: length) {
            try plans.decodePlan(UnsafeBufferPointer(start: $0, count: length))
        }
    }
}

/// A `SinglePlanPerformer`'s plan read from its fields and performed, specialised for the performer and plan
/// types once per class.
struct TypedAdd: Sendable {
    /// The plan type's name.
    let type: String
    /// Reads the plan and performs it: `false` when a field cannot be read this way (nothing was performed).
    let add: @Sendable (any PluginPerformer, PlanFields, String?) throws -> Bool

    static func make<S: SinglePlanPerformer>(_ performer: S.Type) -> TypedAdd? {
        guard S.Plan.self is any PlanFieldReading.Type else { return nil }
        // S._performReading is compiled in the plugin for S and its plan type (SinglePlanPerformer's default): one
        // call through the witness table, and no generic copies of the plan (through two generic closures, which
        // this code is not specialised past, building and handing over a Tween cost about 1,000 instructions more).
        return TypedAdd(type: S.Plan.type) { performer, fields, name in
            try S._performReading(fields, on: unsafeDowncast(performer, to: S.self), named: name)
        }
    }
}

extension PerformerContext {
    /// Hands the plan behind a handle (motion/plans.h; valid for the call) to the performer, read in one host
    /// call for a `PlanFieldReading` type, else, or when a field cannot be read that way, from its JSON.
    func addPlan(handle: OpaquePointer, _ host: UnsafePointer<motion_plans_v1>, named name: String?) throws {
        if let typedAdd = plans.typedAdd, let layout = plans.layout.resolvedIfPresent(host), let readFields = host.pointee.read {
            let count = plans.layout.names.count
            let performed = try withUnsafeTemporaryAllocation(of: motion_plan_field.self, capacity: count) { fields -> Bool in
                fields.initialize(repeating: motion_plan_field())
                guard readFields(handle, layout, fields.baseAddress, count) == MOTION_OK, PlanFields.isString(fields[0], typedAdd.type)
                else { return false }
                var cursor = 1  // after "type"
                return try withUnsafeMutablePointer(to: &cursor) {
                    try typedAdd.add(performer, PlanFields(fields: UnsafeBufferPointer(fields), names: plans.layout.names, cursor: $0), name)
                }
            }
            if performed { return }
        }
        let plan = try decodePlan(handle: handle, host)
        if let name { try performer.add(plan, named: name) } else { try performer.add(plan) }
    }

    /// Decodes the plan behind a handle (motion/plans.h; valid for the call): its fields read in one host call
    /// for a `PlanFieldReading` type, else, or when a field cannot be read that way, from its JSON.
    func decodePlan(handle: OpaquePointer, _ host: UnsafePointer<motion_plans_v1>) throws -> any PluginPlan {
        let layout = plans.layout
        let resolved = layout.resolved(host)
        if resolved >= 0, let readFields = host.pointee.read {
            let count = layout.names.count
            // nil: read it from JSON instead.
            let outcome: Result<any PluginPlan, any Error>? = withUnsafeTemporaryAllocation(of: motion_plan_field.self, capacity: count) {
                fields in
                fields.initialize(repeating: motion_plan_field())
                guard readFields(handle, resolved, fields.baseAddress, count) == MOTION_OK,
                    let type = PlanFields.string(fields[0]), let planType = plans.readers[type]
                else { return nil }
                var cursor = 1  // after "type"
                do {
                    return .success(
                        try withUnsafeMutablePointer(to: &cursor) {
                            try planType.init(fields: PlanFields(fields: UnsafeBufferPointer(fields), names: layout.names, cursor: $0))
                        })
                } catch is PlanFieldsFallback {
                    return nil
                } catch {
                    return .failure(error)
                }
            }
            if let outcome { return try outcome.get() }
        }
        // The JSON the host wrote stands for the plan in its plan-field functions, as add_plan's does: decoded
        // as add_plan decodes it (fields read through the host, JSON parsed only to explain a bad field).
        return try withPlanJSON(handle, host) { bytes in
            try bytes.withMemoryRebound(to: CChar.self) { try decodePlan($0.baseAddress!, $0.count) }
        }
    }

    /// Runs `body` with the JSON of the plan behind `handle` (`motion_plans_v1.json`): on the stack up to 1 KiB.
    private func withPlanJSON<R>(_ handle: OpaquePointer, _ host: UnsafePointer<motion_plans_v1>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R)
        throws -> R
    {
        guard let json = host.pointee.json else { throw PluginError(.`internal`, "the host's motion.plans/1 has no json function.") }
        var length = 0
        let first: R? = try withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer in
            let status = json(handle, buffer.baseAddress, buffer.count, &length)
            if status == MOTION_ERR_BUFFER_TOO_SMALL { return nil }
            guard status == MOTION_OK else { throw PluginError(PluginError.Code(rawValue: status), "the host gave no JSON for the plan.") }
            return try buffer.withMemoryRebound(to: UInt8.self) { try body(UnsafeBufferPointer(rebasing: $0.prefix(length))) }
        }
        if let first { return first }
        var buffer = [CChar](repeating: 0, count: length + 1)
        let status = buffer.withUnsafeMutableBufferPointer { json(handle, $0.baseAddress, $0.count, &length) }
        guard status == MOTION_OK else { throw PluginError(PluginError.Code(rawValue: status), "the host gave no JSON for the plan.") }
        return try buffer.withUnsafeBufferPointer { chars in
            try chars.withMemoryRebound(to: UInt8.self) { try body(UnsafeBufferPointer(rebasing: $0.prefix(length))) }
        }
    }
}

/// Writes `error` into the C error out-parameter and returns its status.
func report(_ error: any Error, to out: UnsafeMutablePointer<motion_error>?) -> motion_status {
    let (status, text) = describe(error)
    motion_error_set(out, status, text)
    return status
}

/// The status and message for a Swift error thrown by a performer.
func describe(_ error: any Error) -> (motion_status, String) {
    switch error {
    case let error as PluginError:
        return (error.code.rawValue, error.description)
    case let error as DecodingError:
        return (MOTION_ERR_INVALID_PLAN, describe(decodingError: error))
    case let error as PlanJSONSyntaxError:
        return (MOTION_ERR_INVALID_PLAN, "plan: \(error.description). To fix, send one JSON object.")
    default:
        return (MOTION_ERR_INTERNAL, "\(error)")
    }
}

/// A coding path as a field path: `controlPoints[2]`, `transaction.operations[0].plan`.
private func path(_ codingPath: [any CodingKey]) -> String {
    var text = ""
    for key in codingPath {
        if let index = key.intValue {
            text += "[\(index)]"
        } else {
            text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
    }
    return text
}

private func describe(decodingError error: DecodingError) -> String {
    func field(_ codingPath: [any CodingKey]) -> String {
        let text = path(codingPath)
        return text.isEmpty ? "plan" : text
    }
    switch error {
    case .keyNotFound(let key, let context):
        return "\(field(context.codingPath + [key])): missing. To fix, give the plan a \"\(key.stringValue)\" field."
    case .typeMismatch(let type, let context):
        // The decoders' descriptions already say what was expected and found ("expected String, found a
        // number."); say it once.
        let detail = context.debugDescription
        guard !detail.isEmpty else { return "\(field(context.codingPath)): expected \(type)." }
        return "\(field(context.codingPath)): \(detail.prefix(1).lowercased())\(detail.dropFirst())"
    case .valueNotFound(let type, let context):
        return "\(field(context.codingPath)): expected \(type) but found null."
    case .dataCorrupted(let context):
        return "\(field(context.codingPath)): \(context.debugDescription)"
    @unknown default:
        return "\(error)"
    }
}

func sdkCreatePerformer(
    _ className: UnsafePointer<CChar>?, _ targetName: UnsafePointer<CChar>?, _ context: OpaquePointer?,
    _ error: UnsafeMutablePointer<motion_error>?
) -> OpaquePointer? {
    // Writes queued during update_many (this call may be nested in one) reach the host before it returns.
    defer { PropertyWriteQueue.flushActive() }
    guard let className, let targetName, let context else {
        motion_error_set(error, MOTION_ERR_INVALID_ARGUMENT, "create_performer needs a class, a target and a context.")
        return nil
    }
    guard let plugin = exportedPlugin.withLock({ $0 }) else {
        motion_error_set(error, MOTION_ERR_INTERNAL, "create_performer was called before motion_plugin_entry.")
        return nil
    }
    let name = String(cString: className)
    guard let performerClass = plugin.classes[name] else {
        let known = plugin.classes.keys.sorted().joined(separator: ", ")
        motion_error_set(
            error, MOTION_ERR_UNKNOWN_CLASS,
            "\(plugin.id) has no performer class \"\(name)\"; it has \(known). To fix, correct the manifest's \"class\"."
        )
        return nil
    }
    let performerContext = PerformerContext(
        plugin: plugin.identity, handle: ContextHandle(raw: context), targetName: String(cString: targetName),
        plans: performerClass.plans)
    do {
        let performer = try performerClass.type.init(context: performerContext)
        performerContext.performerObject = Unmanaged.passRetained(performer)
        if let batch = performerClass.plans.batchRunner?.batchOf(performer) { BatchMembers.join(batch, performerContext) }
        return OpaquePointer(Unmanaged.passRetained(performerContext).toOpaque())
    } catch let thrown {
        performerContext.invalidate()
        _ = report(thrown, to: error)
        return nil
    }
}

func sdkDestroyPerformer(_ performer: OpaquePointer?) {
    // Writes queued during update_many (this call may be nested in one) reach the host before it returns.
    defer { PropertyWriteQueue.flushActive() }
    guard let performer else { return }
    // Release the performer while its context is still live, so the performer's deinit may terminate tokens; then
    // invalidate the context and release it (a performer that kept it keeps it, invalidated).
    let context = Unmanaged<PerformerContext>.fromOpaque(UnsafeRawPointer(performer)).takeRetainedValue()
    // Out of its batch's members first, while the performer (and so its batch) is alive.
    BatchMembers.leave(context)
    let object = context.performerObject
    context.performerObject = nil
    object?.release()
    context.invalidate()
}

func sdkAddPlan(
    _ performer: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ length: Int,
    _ error: UnsafeMutablePointer<motion_error>?
) -> motion_status {
    // Writes queued during update_many (this call may be nested in one) reach the host before it returns.
    defer { PropertyWriteQueue.flushActive() }
    guard let performer, let json, length > 0 else {
        motion_error_set(error, MOTION_ERR_INVALID_ARGUMENT, "add_plan needs a performer and non-empty plan JSON.")
        return MOTION_ERR_INVALID_ARGUMENT
    }
    let context = PerformerContext.from(performer)
    let target = context.performer
    do {
        try target.add(context.decodePlan(json, length))
        return MOTION_OK
    } catch let thrown {
        return report(thrown, to: error)
    }
}

func sdkAddNamedPlan(
    _ performer: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ json: UnsafePointer<CChar>?, _ length: Int,
    _ error: UnsafeMutablePointer<motion_error>?
) -> motion_status {
    // Writes queued during update_many (this call may be nested in one) reach the host before it returns.
    defer { PropertyWriteQueue.flushActive() }
    guard let performer, let name, name.pointee != 0, let json, length > 0 else {
        motion_error_set(
            error, MOTION_ERR_INVALID_ARGUMENT, "add_named_plan needs a performer, a non-empty name and plan JSON.")
        return MOTION_ERR_INVALID_ARGUMENT
    }
    let context = PerformerContext.from(performer)
    let target = context.performer
    do {
        try target.add(context.decodePlan(json, length), named: String(cString: name))
        return MOTION_OK
    } catch let thrown {
        return report(thrown, to: error)
    }
}

func sdkAddPlanByHandle(_ performer: OpaquePointer?, _ plan: OpaquePointer?, _ error: UnsafeMutablePointer<motion_error>?) -> motion_status {
    // Writes queued during update_many (this call may be nested in one) reach the host before it returns.
    defer { PropertyWriteQueue.flushActive() }
    guard let performer, let plan else {
        motion_error_set(error, MOTION_ERR_INVALID_ARGUMENT, "add_plan needs a performer and a plan.")
        return MOTION_ERR_INVALID_ARGUMENT
    }
    return addByHandle(performer, plan, named: nil, error)
}

func sdkAddNamedPlanByHandle(
    _ performer: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ plan: OpaquePointer?, _ error: UnsafeMutablePointer<motion_error>?
) -> motion_status {
    // Writes queued during update_many (this call may be nested in one) reach the host before it returns.
    defer { PropertyWriteQueue.flushActive() }
    guard let performer, let name, name.pointee != 0, let plan else {
        motion_error_set(error, MOTION_ERR_INVALID_ARGUMENT, "add_named_plan needs a performer, a non-empty name and a plan.")
        return MOTION_ERR_INVALID_ARGUMENT
    }
    return addByHandle(performer, plan, named: String(cString: name), error)
}

/// The plan behind `plan` handed to the performer (the two by-handle adds, their arguments checked).
private func addByHandle(_ performer: OpaquePointer, _ plan: OpaquePointer, named name: String?, _ error: UnsafeMutablePointer<motion_error>?)
    -> motion_status
{
    let context = PerformerContext.from(performer)
    guard let host = context.host.plans else {
        motion_error_set(error, MOTION_ERR_INTERNAL, "a plan by handle from a host without motion.plans/1.")
        return MOTION_ERR_INTERNAL
    }
    do {
        try context.addPlan(handle: plan, host, named: name)
        return MOTION_OK
    } catch let thrown {
        return report(thrown, to: error)
    }
}

func sdkRemoveNamedPlan(
    _ performer: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<motion_error>?
) -> motion_status {
    // Writes queued during update_many (this call may be nested in one) reach the host before it returns.
    defer { PropertyWriteQueue.flushActive() }
    guard let performer, let name, name.pointee != 0 else {
        motion_error_set(
            error, MOTION_ERR_INVALID_ARGUMENT, "remove_named_plan needs a performer and a non-empty name.")
        return MOTION_ERR_INVALID_ARGUMENT
    }
    let target = PerformerContext.from(performer).performer
    do {
        try target.removePlan(named: String(cString: name))
        return MOTION_OK
    } catch let thrown {
        return report(thrown, to: error)
    }
}

func sdkGetExtension(_ id: UnsafePointer<CChar>?) -> UnsafeRawPointer? {
    guard let id, let plugin = exportedPlugin.withLock({ $0 }) else { return nil }
    switch String(cString: id) {
    case MOTION_EXTENSION_FRAMES: return plugin.frames.map { UnsafeRawPointer($0) }
    case MOTION_EXTENSION_DEVICE_MOTION: return plugin.deviceMotion.map { UnsafeRawPointer($0) }
    case MOTION_EXTENSION_PLAN_HANDLES: return plugin.planHandles.map { UnsafeRawPointer($0) }
    default: return nil
    }
}

func sdkUpdate(_ performer: OpaquePointer?, _ frame: UnsafePointer<motion_frame>?) {
    guard let performer, let frame else { return }
    if PerformerContext.from(performer).batchMembers != nil {
        // A batch's member: its batch's update of it alone, its writes queued as in update_many.
        var one: OpaquePointer? = performer
        sdkUpdateMany(&one, 1, frame)
        return
    }
    // Writes queued during update_many (this call may be nested in one) reach the host before it returns.
    defer { PropertyWriteQueue.flushActive() }
    let value = readCovered(frame, zero: motion_frame())
    // The per-frame path: borrow the context and its performer (the host keeps them alive until
    // destroy_performer) instead of retaining them, which measured as a fifth of the boundary's cost.
    Unmanaged<PerformerContext>.fromOpaque(UnsafeRawPointer(performer))._withUnsafeGuaranteedRef { context in
        context.update(frame: Frame(index: value.index, time: value.time, delta: value.delta))
    }
}

func sdkUpdateMany(_ performers: UnsafePointer<OpaquePointer?>?, _ count: Int, _ frame: UnsafePointer<motion_frame>?) {
    guard let performers, let frame else { return }
    let value = readCovered(frame, zero: motion_frame())
    let swiftFrame = Frame(index: value.index, time: value.time, delta: value.delta)
    let members = UnsafeBufferPointer(start: performers, count: count)
    guard let first = members.first(where: { $0 != nil }).flatMap({ $0 }) else { return }
    // The performers' property writes go to the host in set_properties calls (ABI 1.1 hosts).
    let firstContext = PerformerContext.from(first)
    let queue = PropertyWriteQueue.take(host: firstContext.host, pluginID: firstContext.pluginID)
    defer { queue?.putBack() }
    let pending = queue.map { Unmanaged.passUnretained($0) }
    PropertyWriteQueue.activating(queue) {
        var index = 0
        while index < count {
            guard let performer = members[index] else {
                index += 1
                continue
            }
            Unmanaged<PerformerContext>.fromOpaque(UnsafeRawPointer(performer))._withUnsafeGuaranteedRef { context in
                if let batchMembers = context.batchMembers, let runner = context.plans.batchRunner {
                    // The run of this batch's members that starts here, updated in one call.
                    let (end, isOneStretch) = batchMembers._withUnsafeGuaranteedRef {
                        $0.endOfRun(in: members, startingAt: index, context.batchIndex)
                    }
                    let batch = batchMembers._withUnsafeGuaranteedRef { $0.batch }
                    let run = UnsafeBufferPointer(rebasing: members[index..<end])
                    if context.host.slots != nil {
                        runner.run(batch, run, isOneStretch, swiftFrame, FrameBatchWriter(queue: pending, context: context.handle.raw))
                    } else {
                        // No slots (a host older than ABI 1.3): the batch writes through its members' contexts,
                        // which queue for set_properties as around a performer's own update.
                        setPendingWrites(pending, of: run)
                        runner.run(batch, run, isOneStretch, swiftFrame, FrameBatchWriter(queue: nil, context: nil))
                        setPendingWrites(nil, of: run)
                    }
                    index = end
                    return
                }
                let previous = context.pendingWrites
                context.pendingWrites = pending
                context.update(frame: swiftFrame)
                context.pendingWrites = previous
                index += 1
            }
        }
    }
}

/// Sets the pending-write queue of each performer of `run`.
private func setPendingWrites(_ queue: Unmanaged<PropertyWriteQueue>?, of run: UnsafeBufferPointer<OpaquePointer?>) {
    for performer in run {
        guard let performer else { continue }
        Unmanaged<PerformerContext>.fromOpaque(UnsafeRawPointer(performer))._withUnsafeGuaranteedRef { $0.pendingWrites = queue }
    }
}

func sdkReceive(_ performer: OpaquePointer?, _ sample: UnsafePointer<motion_device_motion_sample>?) {
    // Writes queued during update_many (this call may be nested in one) reach the host before it returns.
    defer { PropertyWriteQueue.flushActive() }
    guard let performer, let sample else { return }
    let context = PerformerContext.from(performer)
    guard let receive = context.plans.calls.receive, let object = context.performerObject else { return }
    object._withUnsafeGuaranteedRef { receive($0, DeviceMotionSample(readCovered(sample, zero: motion_device_motion_sample()))) }
}

import CMotionABI
import FoundationEssentials
import MotionCore

/// A performer of an isolated plugin, as ``EntryPerformer`` is one of an in-process plugin: the same calls, made
/// as requests to the plugin's sandbox (``IsolatedPlugin``), with the same errors. Its ``HostContext`` is the one
/// the plugin's calls are answered with, so emissions, tokens and property writes behave as in process.
///
/// Thread rule: the scheduler's thread, like every performer.
///
/// Memory: one per performer, so two references, its slot, its member and a flag (39 bytes, a 48-byte heap block);
/// a plan's JSON is written into a buffer of the call's own, as ``EntryPerformer`` does.
final class IsolatedPerformer: NamedPlanPerforming, ComposablePerforming, BatchedFrameUpdating, DeviceMotionReceiving {
    let plugin: IsolatedPlugin
    let context: HostContext
    let slot: UInt32
    private let memberIndex: UInt16
    /// Its plugin among the sandbox's (``IsolatedPlugin/members``; 0 outside a sandbox group).
    var member: Int { Int(memberIndex) }
    /// Whether `create_performer` succeeded (a proxy whose creation failed is deinitialized too, and must not ask
    /// the sandbox to destroy a performer it never made).
    private var isCreated = false

    /// Has the sandbox create the plugin's performer of `className` for the context's target (`create_performer`).
    /// - Throws: ``PluginError`` as ``EntryPerformer`` throws it, or `.sandboxFailed`.
    /// - Parameter member: The performer's plugin among the sandbox's (``IsolatedPlugin/members``).
    init(plugin: IsolatedPlugin, member: Int = 0, className: String, context performerContext: PerformerContext, batchesFrames: Bool = true)
        throws(PluginError)
    {
        precondition(member <= Int(UInt16.max), "a sandbox holds at most 65,536 plugins")
        self.plugin = plugin
        self.memberIndex = UInt16(member)
        let target = performerContext.target
        let context = HostContext(target: target, identity: plugin.members[member].identity, batchesFrames: batchesFrames)
        context.emitter = performerContext.emitter
        context.tokenGenerator = performerContext.tokenGenerator
        self.context = context
        slot = plugin.register(context, className: className, member: member)
        plugin.slotBeingCreated = slot
        defer { plugin.slotBeingCreated = nil }
        do {
            try Self.create(plugin: plugin, member: member, slot: slot, className: className, context: context)
        } catch {
            context.retire()
            throw error
        }
        isCreated = true
    }

    /// `create_performer` in the sandbox (its answer taken from a recreation batch when one runs, R43).
    private static func create(plugin: IsolatedPlugin, member: Int, slot: UInt32, className: String, context: HostContext) throws(PluginError) {
        let manifest = plugin.members[member].manifest
        var reply: WireReader
        if let batched = try plugin.batchedReply(.create, slot: slot, member: member) {
            reply = batched
        } else {
            let out = context.withTarget { createRequest(plugin: plugin, member: member, slot: slot, className: className, target: $0) }
            reply = try Self.request(plugin, member, .create, "create_performer", out)
        }
        guard reply.bool() == true else {
            let status = reply.i32() ?? MOTION_ERR_INTERNAL
            let message = pluginMessage(reply.string() ?? "")
            if status == MOTION_ERR_UNKNOWN_CLASS {
                throw PluginError(
                    code: .unknownClass, message: "the library has no performer class \"\(className)\": \(message)", for: manifest)
            }
            throw PluginError(
                code: .creationFailed, message: "create_performer(\"\(className)\") failed with \(statusName(status)): \(message)",
                for: manifest)
        }
    }

    deinit {
        if isCreated, plugin.failure == nil, !plugin.isBeingReplaced {
            var out = WireWriter()
            out.u32(slot)
            _ = try? Self.request(plugin, member, .destroy, "destroy_performer", out)
        }
        context.retire()
    }

    func setEmitter(_ emitter: TransactionEmitter) { context.emitter = emitter }
    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { context.tokenGenerator = generator }

    func addPlan(_ plan: Plan) throws { try give(plan, named: nil) }

    func addPlan(_ plan: Plan, named name: String) throws { try give(plan, named: name) }

    /// `add_plan` / `add_named_plan` in the sandbox; in a recreation batch (R43), the answer the batch gave.
    private func give(_ plan: Plan, named name: String?) throws {
        let call = name == nil ? "add_plan" : "add_named_plan"
        if let reply = try plugin.batchedPlanReply(slot: slot, member: member, plan: plan, name: name) {
            return try check(reply, call, plan.type)
        }
        let byHandle = plugin.members[member].takesPlansByHandle
        let (kind, out) = try context.withTarget { target in
            Result { try Self.planRequest(plan, named: name, slot: slot, byHandle: byHandle, target: target) }
        }.get()
        try check(try request(kind, call, out), call, plan.type)
    }

    /// The payload of `create` for a performer of `className` on `target` in `slot`, made by the plugin `member`.
    static func createRequest(plugin: IsolatedPlugin, member: Int, slot: UInt32, className: String, target: Target) -> WireWriter {
        var out = WireWriter()
        out.u32(slot)
        out.u32(plugin.sceneKey(for: target.scene))
        out.string(className)
        out.string(target.id.name)
        out.u32(UInt32(member))
        return out
    }

    /// The request that gives `plan` (named `name`, or a plain add) to the performer in `slot` on `target`: by handle
    /// (motion/plans.h, the fields in binary, as ``EntryPerformer`` hands it over) when the plugin takes plans so and
    /// the plan is not nested too deep for it, else as JSON; then the prefetched values (``prefetch(for:into:target:)``).
    /// - Parameter withSlots: Whether the property slots of the prefetched values follow them (a recreation batch's
    ///   call: the new performer's `slot()` calls are answered in the sandbox).
    /// - Throws: The plan's JSON encoding error.
    static func planRequest(_ plan: Plan, named name: String?, slot: UInt32, byHandle: Bool, target: Target, withSlots: Bool = false) throws
        -> (SandboxMessageKind, WireWriter)
    {
        let nameBytes = name?.utf8.count ?? 0
        if byHandle {
            var out = WireWriter(capacity: 256 + nameBytes)
            out.u32(slot)
            if let name { out.string(name) }
            if out.plan(plan) {
                prefetch(for: plan, into: &out, target: target, withSlots: withSlots)
                return (name == nil ? .addPlanByHandle : .addNamedPlanByHandle, out)
            }
        }
        var buffer: [UInt8] = []
        try plan.writeJSON(into: &buffer)
        var out = WireWriter(capacity: buffer.count + nameBytes + 128)
        out.u32(slot)
        if let name { out.string(name) }
        buffer.withUnsafeBytes { out.data($0) }
        prefetch(for: plan, into: &out, target: target, withSlots: withSlots)
        return (name == nil ? .addPlan : .addNamedPlan, out)
    }

    /// The target's current values of the properties the plan names (string fields such as a Tween's
    /// `"property"`), sent with the plan: a plugin that interns and reads them while it takes the plan (TweenKit
    /// checks a vector's length) is answered in its sandbox instead of by a round trip each. The sandbox keeps them
    /// only until it next calls the host, and updates them with the plugin's own writes. With `withSlots`, the
    /// properties' slots follow (a count, then property id and slot, 32 bits each): the host's `slot()` answer for a
    /// property the target has, which never changes.
    private static func prefetch(for plan: Plan, into out: inout WireWriter, target: Target, withSlots: Bool) {
        // One lookup of each string field in the scene's names and one read of the target: the count is patched in
        // after the entries (a name given twice is sent twice; the sandbox takes the first).
        let countOffset = out.bytes.count
        out.u32(0)
        var count: UInt32 = 0
        var ids: [PropertyID] = []
        func add(_ value: JSONValue) {
            guard case .string(let name) = value, let id = target.scene.existingPropertyID(name), let current = target[id] else { return }
            out.string(name)
            out.i32(id.rawValue)
            out.u32(UInt32(current.count))
            for i in 0..<current.count { out.f64(current[i]) }
            count += 1
            if withSlots { ids.append(id) }
        }
        // The fields as given and the defaults filled in, without merging them (``WireWriter/plan(_:)``).
        let (given, defaults) = plan.fieldParts
        for (_, value) in given { add(value) }
        for (_, value) in defaults { add(value) }
        out.bytes.withUnsafeMutableBytes { $0.storeBytes(of: count.littleEndian, toByteOffset: countOffset, as: UInt32.self) }
        guard withSlots else { return }
        out.u32(UInt32(ids.count))
        for id in ids {
            out.i32(id.rawValue)
            out.i32(target.slot(for: id).rawValue)
        }
    }

    func removePlan(named name: String) throws {
        var out = WireWriter()
        out.u32(slot)
        out.string(name)
        try check(try request(.removeNamedPlan, "remove_named_plan", out), "remove_named_plan", nil)
    }

    func update(frame: Frame) {
        guard plugin.members[member].hasFrames else { return }
        plugin.noteFrame(frame)
        var out = WireWriter()
        out.u32(slot)
        out.u64(UInt64(frame.index))
        out.f64(frame.time)
        out.f64(frame.delta)
        _ = try? request(.update, "update", out)
    }

    /// The plugin, when it has `update_many`: one request per run of its performers per frame.
    var frameBatch: (any FrameBatch)? {
        plugin.members[member].hasFrames && plugin.members[member].hasUpdateMany && context.batchesFrames ? plugin : nil
    }
    var frameBatchMember: OpaquePointer { OpaquePointer(bitPattern: Int(slot) + 1)! }

    func receive(_ sample: UnsafePointer<motion_device_motion_sample>) {
        var out = WireWriter()
        out.u32(slot)
        out.data(UnsafeRawBufferPointer(start: sample, count: MemoryLayout<motion_device_motion_sample>.size))
        _ = try? request(.receiveSample, "receive", out)
    }

    var acceptsDeviceMotion: Bool { plugin.members[member].hasDeviceMotion }

    private func request(_ kind: SandboxMessageKind, _ what: String, _ out: WireWriter) throws(PluginError) -> WireReader {
        try Self.request(plugin, member, kind, what, out)
    }

    /// A request to the plugin's sandbox (under the plugin's log route, as every call into a plugin is made).
    private static func request(_ plugin: IsolatedPlugin, _ member: Int, _ kind: SandboxMessageKind, _ what: String, _ out: WireWriter)
        throws(PluginError) -> WireReader
    {
        try plugin.call(kind, what, out, member: member)
    }

    private func check(_ reply: WireReader, _ call: String, _ planType: String?) throws(PluginError) {
        var reply = reply
        let status = reply.i32() ?? MOTION_ERR_INTERNAL
        guard status != MOTION_OK else { return }
        let what = planType.map { " for plan type \"\($0)\"" } ?? ""
        var failure = PluginError(
            code: .callFailed, message: "\(call)\(what) failed with \(statusName(status)): \(pluginMessage(reply.string() ?? ""))",
            for: plugin.members[member].manifest)
        failure.status = status
        throw failure
    }
}

/// A plugin's message as the host shows it: made safe for one line, or a placeholder when it wrote none.
func pluginMessage(_ text: String) -> String { text.isEmpty ? "(the plugin gave no message)" : PluginLog.sanitized(text) }

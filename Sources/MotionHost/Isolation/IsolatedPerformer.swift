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

    /// `create_performer` in the sandbox.
    private static func create(plugin: IsolatedPlugin, member: Int, slot: UInt32, className: String, context: HostContext) throws(PluginError) {
        let targetName = context.targetID
        var out = WireWriter()
        out.u32(slot)
        out.u32(context.withScene { plugin.sceneKey(for: $0) })
        out.string(className)
        out.string(targetName)
        out.u32(UInt32(member))
        let manifest = plugin.members[member].manifest
        var reply = try Self.request(plugin, member, .create, "create_performer", out)
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

    func addPlan(_ plan: Plan) throws {
        if plugin.members[member].takesPlansByHandle {
            // By handle (motion/plans.h), as ``EntryPerformer`` hands it over: the fields in binary, no JSON.
            var out = WireWriter(capacity: 256)
            out.u32(slot)
            if out.plan(plan) {
                prefetch(for: plan, into: &out)
                return try check(try request(.addPlanByHandle, "add_plan", out), "add_plan", plan.type)
            }
        }
        var buffer: [UInt8] = []
        try plan.writeJSON(into: &buffer)
        var out = WireWriter(capacity: buffer.count + 128)
        out.u32(slot)
        buffer.withUnsafeBytes { out.data($0) }
        prefetch(for: plan, into: &out)
        try check(try request(.addPlan, "add_plan", out), "add_plan", plan.type)
    }

    func addPlan(_ plan: Plan, named name: String) throws {
        if plugin.members[member].takesPlansByHandle {
            var out = WireWriter(capacity: 256 + name.utf8.count)
            out.u32(slot)
            out.string(name)
            if out.plan(plan) {
                prefetch(for: plan, into: &out)
                return try check(try request(.addNamedPlanByHandle, "add_named_plan", out), "add_named_plan", plan.type)
            }
        }
        var buffer: [UInt8] = []
        try plan.writeJSON(into: &buffer)
        var out = WireWriter(capacity: buffer.count + name.utf8.count + 128)
        out.u32(slot)
        out.string(name)
        buffer.withUnsafeBytes { out.data($0) }
        prefetch(for: plan, into: &out)
        try check(try request(.addNamedPlan, "add_named_plan", out), "add_named_plan", plan.type)
    }

    /// The target's current values of the properties the plan names (string fields such as a Tween's
    /// `"property"`), sent with the plan: a plugin that interns and reads them while it takes the plan (TweenKit
    /// checks a vector's length) is answered in its sandbox instead of by a round trip each. The sandbox keeps them
    /// only until it next calls the host, and updates them with the plugin's own writes.
    private func prefetch(for plan: Plan, into out: inout WireWriter) {
        // One lookup of each string field in the scene's names and one read of the target: the count is patched in
        // after the entries (a name given twice is sent twice; the sandbox takes the first).
        let countOffset = out.bytes.count
        out.u32(0)
        var count: UInt32 = 0
        func add(_ value: JSONValue) {
            guard case .string(let name) = value, let id = context.withScene({ $0.existingPropertyID(name) }),
                let current = context.withTarget({ $0[id] })
            else { return }
            out.string(name)
            out.i32(id.rawValue)
            out.u32(UInt32(current.count))
            for i in 0..<current.count { out.f64(current[i]) }
            count += 1
        }
        // The fields as given and the defaults filled in, without merging them (``WireWriter/plan(_:)``).
        let (given, defaults) = plan.fieldParts
        for (_, value) in given { add(value) }
        for (_, value) in defaults { add(value) }
        out.bytes.withUnsafeMutableBytes { $0.storeBytes(of: count.littleEndian, toByteOffset: countOffset, as: UInt32.self) }
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

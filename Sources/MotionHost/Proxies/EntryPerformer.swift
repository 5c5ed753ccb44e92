import CMotionABI
import FoundationEssentials
import MotionCore

/// Makes a performer living in an entry plugin look like a MotionCore performer: plans go across as
/// JSON, frames and device-motion samples as C structs; the plugin calls back through its
/// ``HostContext``.
///
/// Thread rule: the scheduler's thread, like every performer.
///
/// Memory: one per performer (a running TweenKit Tween has one), so it holds its context's handle and nothing else
/// (24 bytes, a 32-byte heap block; 40 bytes, a 48-byte block, with the plugin and the plugin's performer before): the
/// plugin is its context group's ``HostContext/owner`` (one per plugin and scheduler) and the plugin's performer is in
/// its context's entry (``HostContext/performer``); a frame goes through ``EntryPlugin/update(_:frame:)``, one call per
/// run of performers, and its `update_many` flag is the context's.
final class EntryPerformer: NamedPlanPerforming, ComposablePerforming, BatchedFrameUpdating, DeviceMotionReceiving {
    let context: HostContext

    /// The plugin (the context group's owner).
    var plugin: EntryPlugin { unsafeDowncast(context.owner.unsafelyUnwrapped, to: EntryPlugin.self) }
    /// The plugin's performer.
    var performer: OpaquePointer { context.performer.unsafelyUnwrapped }

    /// Creates the plugin's performer of `className` for `target` (`create_performer`).
    /// - Throws: ``PluginError`` with `.unknownClass` or `.creationFailed` and the plugin's message.
    /// - Parameter batchesFrames: whether the scheduler may update it through `update_many` (when the
    ///   plugin has it); `false` makes it `update` alone (`plugins validate` compares the two).
    init(plugin: EntryPlugin, className: String, context performerContext: PerformerContext, batchesFrames: Bool = true)
        throws(PluginError)
    {
        let context = HostContext(
            target: performerContext.target, identity: plugin.identity, batchesFrames: batchesFrames, owner: plugin)
        // The header lets a plugin emit and take tokens from inside create_performer.
        context.emitter = performerContext.emitter
        context.tokenGenerator = performerContext.tokenGenerator
        self.context = context
        var error = Self.makeError()
        // Both names are valid during the call only (motion/plugin.h): the target's C name is made only if the
        // plugin asks for it later (target_name).
        let created = className.withCString { classPointer in
            context.targetID.withCString { targetName in
                PluginLog.routing(plugin.logRoute) {
                    PluginCrashReport.calling(plugin.cName, .create) {
                        plugin.table.pointee.create_performer(classPointer, targetName, context.opaque, &error)
                    }
                }
            }
        }
        guard let created else {
            // The plugin may have kept ctx although it was refused: a later call must find it gone. Every stored
            // property is set, so this throw still runs deinit (Documentation/PITFALLS.md), which finds the context retired and
            // calls nothing.
            context.retire()
            let message = errorMessage(error)
            if error.status == MOTION_ERR_UNKNOWN_CLASS {
                throw PluginError(
                    code: .unknownClass, message: "the library has no performer class \"\(className)\": \(message)", manifest: plugin.manifest,
                    library: plugin.library)
            }
            throw PluginError(
                code: .creationFailed, message: "create_performer(\"\(className)\") failed with \(statusName(error.status)): \(message)",
                manifest: plugin.manifest,
                library: plugin.library)
        }
        context.performer = created
    }

    deinit {
        // A refused create_performer retired the context already (and the plugin made no performer to destroy).
        guard context.isLive else { return }
        let plugin = self.plugin
        PluginLog.routing(plugin.logRoute) { PluginCrashReport.calling(plugin.cName, .destroy) { plugin.table.pointee.destroy_performer(performer) } }
        // A plugin thread that calls the host with this context from now on gets MOTION_ERR_SCHEDULER_GONE (the
        // handle's generation is retired with it).
        context.retire()
    }

    func setEmitter(_ emitter: TransactionEmitter) { context.emitter = emitter }
    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { context.tokenGenerator = generator }

    func addPlan(_ plan: Plan) throws {
        if let handles = plugin.planHandles, let add = handles.pointee.add_plan {
            // By handle (motion/plans.h): the plugin reads the fields the host holds; no JSON is written.
            var error = Self.makeError()
            let status = PlansInFlight.withHandle(plan) { handle in
                PluginLog.routing(plugin.logRoute) {
                    PluginCrashReport.calling(plugin.cName, .addPlan) { add(performer, handle, &error) }
                }
            }
            if status != MOTION_OK { throw failure(status, &error, "add_plan", plan.type) }
            return
        }
        // The JSON and the error live on this call's stack, not in the performer: a performer is handed
        // plans rarely, and a motion_error (520 bytes) kept per performer was a fifth of a running Tween's
        // memory.
        var buffer: [UInt8] = []
        try plan.writeJSON(into: &buffer)
        var error = Self.makeError()
        let status = buffer.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                PlansInFlight.with(plan, bytes: chars) {
                    PluginLog.routing(plugin.logRoute) {
                        PluginCrashReport.calling(plugin.cName, .addPlan) {
                            plugin.table.pointee.add_plan(performer, chars.baseAddress, chars.count, &error)
                        }
                    }
                }
            }
        }
        if status != MOTION_OK { throw failure(status, &error, "add_plan", plan.type) }
    }

    func addPlan(_ plan: Plan, named name: String) throws {
        if let handles = plugin.planHandles, let add = handles.pointee.add_named_plan {
            var error = Self.makeError()
            let status = name.withCString { namePointer in
                PlansInFlight.withHandle(plan) { handle in
                    PluginLog.routing(plugin.logRoute) {
                        PluginCrashReport.calling(plugin.cName, .addNamedPlan) { add(performer, namePointer, handle, &error) }
                    }
                }
            }
            if status != MOTION_OK { throw failure(status, &error, "add_named_plan", plan.type) }
            return
        }
        var buffer: [UInt8] = []
        try plan.writeJSON(into: &buffer)
        var error = Self.makeError()
        let status = name.withCString { namePointer in
            buffer.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    PlansInFlight.with(plan, bytes: chars) {
                        PluginLog.routing(plugin.logRoute) {
                            PluginCrashReport.calling(plugin.cName, .addNamedPlan) {
                                plugin.table.pointee.add_named_plan(performer, namePointer, chars.baseAddress, chars.count, &error)
                            }
                        }
                    }
                }
            }
        }
        if status != MOTION_OK { throw failure(status, &error, "add_named_plan", plan.type) }
    }

    func removePlan(named name: String) throws {
        var error = Self.makeError()
        let status = name.withCString { namePointer in
            PluginLog.routing(plugin.logRoute) {
                PluginCrashReport.calling(plugin.cName, .removeNamedPlan) { plugin.table.pointee.remove_named_plan(performer, namePointer, &error) }
            }
        }
        if status != MOTION_OK { throw failure(status, &error, "remove_named_plan", nil) }
    }

    func update(frame: Frame) {
        guard let frameUpdate = plugin.frames?.pointee.update else { return }
        var cFrame = motion_frame(
            struct_size: UInt32(MemoryLayout<motion_frame>.size), index: UInt64(frame.index), time: frame.time, delta: frame.delta)
        PluginLog.routing(plugin.logRoute) {
            PluginCrashReport.calling(plugin.cName, .update, frame: frame.index) { frameUpdate(performer, &cFrame) }
        }
    }

    /// The plugin, when it has `update_many` (ABI 1.1): the scheduler updates consecutive performers of
    /// one plugin with one call (``EntryPlugin/update(_:frame:)``). A plugin without it is updated per
    /// performer, each checked for a token at its turn, as a 1.0 host does.
    var frameBatch: (any FrameBatch)? {
        plugin.frames?.pointee.update == nil || plugin.updateMany == nil || !context.batchesFrames ? nil : plugin
    }
    var frameBatchMember: OpaquePointer { performer }

    func receive(_ sample: UnsafePointer<motion_device_motion_sample>) {
        PluginLog.routing(plugin.logRoute) {
            PluginCrashReport.calling(plugin.cName, .receiveSample) { plugin.deviceMotion?.pointee.receive(performer, sample) }
        }
    }

    var acceptsDeviceMotion: Bool { plugin.deviceMotion != nil }

    /// An empty error out-parameter for one plugin call.
    private static func makeError() -> motion_error {
        var error = motion_error()
        error.struct_size = UInt32(MemoryLayout<motion_error>.size)
        return error
    }

    /// The error of a call that answered `status` (not `MOTION_OK`), with the plugin's message. Called only on
    /// failure, with the error in place: passed by value, its 520 bytes were copied on every call.
    private func failure(_ status: motion_status, _ error: inout motion_error, _ call: String, _ planType: String?) -> PluginError {
        let what = planType.map { " for plan type \"\($0)\"" } ?? ""
        var failure = PluginError(
            code: .callFailed,
            message: "\(call)\(what) failed with \(statusName(status)): \(errorMessage(error))",
            manifest: plugin.manifest, library: plugin.library)
        failure.status = status
        return failure
    }
}

/// The message a plugin wrote into a `motion_error`, or a placeholder when it wrote none.
func errorMessage(_ error: motion_error) -> String {
    var error = error
    let message = withUnsafeBytes(of: &error.message) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
    return message.isEmpty ? "(the plugin gave no message)" : PluginLog.sanitized(message)
}

/// A performer that takes device-motion samples as the C ABI's `motion_device_motion_sample`
/// (`motion.device-motion/1`).
public protocol DeviceMotionReceiving: AnyObject {
    /// Whether this performer's plugin takes samples at all.
    var acceptsDeviceMotion: Bool { get }
    /// Delivers one sample; the pointer is valid during the call only.
    func receive(_ sample: UnsafePointer<motion_device_motion_sample>)
}

/// A status's constant name, with the number for a code this header does not define
/// (`MOTION_ERR_UNRECOGNIZED (12345)`).
func statusName(_ status: motion_status) -> String {
    let name = String(cString: motion_status_name(status))
    return name == "MOTION_ERR_UNRECOGNIZED" ? "\(name) (\(status))" : name
}

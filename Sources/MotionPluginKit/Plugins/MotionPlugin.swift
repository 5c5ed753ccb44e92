import CMotionABI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A whole plugin: its id and performer classes, exported through the one entry symbol.
///
/// ```swift
/// @c(motion_plugin_entry)
/// public func motionPluginEntry(
///     _ version: UInt32, _ host: UnsafePointer<motion_host_v1>?
/// ) -> UnsafePointer<motion_plugin_v1>? {
///     MotionPlugin(id: "org.motion.tweenkit", performers: [TweenPerformer.self, SpringPerformer.self])
///         .export(hostVersion: version, host: host)
/// }
/// ```
///
/// `@c(name)` (Swift 6.3) exports the function under that unmangled C name; on older compilers
/// `@_cdecl("motion_plugin_entry")` does the same.
public struct MotionPlugin: Sendable {
    /// The plugin's reverse-DNS id; must equal the manifest's `"id"`.
    public let id: String
    /// The performer classes; their `className`s must be unique.
    public let performers: [any PluginPerformer.Type]

    /// Describes a plugin.
    /// - Parameters:
    ///   - id: the reverse-DNS id, as in the manifest.
    ///   - performers: the performer classes, as in the manifest's `"performers"`.
    public init(id: String, performers: [any PluginPerformer.Type]) {
        self.id = id
        self.performers = performers
    }

    /// Answers the host's entry call: checks the ABI version handshake, builds the C interface once per
    /// process, and returns it.
    ///
    /// Refuses (returns `nil` after logging the reason through the host) when the host's ABI major differs
    /// from `MOTION_ABI_VERSION_MAJOR`, the host's struct is smaller than `motion_host_v1`, the plugin's
    /// description is inconsistent (empty id, no performers, duplicate class or plan type names), or the
    /// library already exported a different plugin id.
    /// - Parameters:
    ///   - hostVersion: the entry's first argument, the host's `MOTION_ABI_VERSION`.
    ///   - host: the entry's second argument, the host's interface (valid for the process).
    /// - Returns: the plugin's interface, valid for the life of the process, or `nil` to refuse.
    public func export(hostVersion: UInt32, host: UnsafePointer<motion_host_v1>?) -> UnsafePointer<motion_plugin_v1>? {
        guard let host else { return nil }
        let hostInterface = Host(raw: host)
        func refuse(_ reason: String) -> UnsafePointer<motion_plugin_v1>? {
            hostInterface.log(MOTION_LOG_ERROR, "\(id.isEmpty ? "plugin" : id): refusing to load: \(reason)")
            return nil
        }
        let major = hostVersion >> 16
        let minor = hostVersion & 0xFFFF
        guard major == UInt32(MOTION_ABI_VERSION_MAJOR) else {
            return refuse(
                "the host offers ABI \(major).\(minor) but this plugin was built against ABI "
                    + "\(MOTION_ABI_VERSION_MAJOR).\(MOTION_ABI_VERSION_MINOR); majors must match. To fix, rebuild "
                    + "the plugin against the host's motion_plugin.h.")
        }
        guard hostInterface.coversVersion1 else {
            return refuse(
                "the host's motion_host_v1 is \(host.pointee.struct_size) bytes, smaller than the "
                    + "\(Host.version1Size) of ABI 1.0. To fix, use a conforming host.")
        }
        let classes: [String: PerformerClass]
        do {
            classes = try PerformerClass.table(for: performers)
        } catch {
            return refuse(error.description)
        }
        guard !id.isEmpty else { return refuse("the plugin id is empty. To fix, pass the manifest's \"id\".") }
        return exportedPlugin.withLock { exported -> UnsafePointer<motion_plugin_v1>? in
            if let existing = exported {
                guard existing.id == id else {
                    hostInterface.log(
                        MOTION_LOG_ERROR,
                        "\(id): refusing to load: this library already exported plugin \(existing.id).")
                    return nil
                }
                return UnsafePointer(existing.interface)
            }
            let plugin = ExportedPlugin(id: id, host: hostInterface, classes: classes)
            exported = plugin
            return UnsafePointer(plugin.interface)
        }
    }

    /// Refuses the host's entry call for a reason of the plugin's own (a missing device, a bad
    /// configuration): logs the reason at error level and returns `nil`.
    /// - Parameters:
    ///   - host: the entry's host argument.
    ///   - pluginID: the plugin's id, to attribute the message.
    ///   - reason: what is missing and how to fix it.
    /// - Returns: `nil`, for the entry function to return.
    public static func refuse(host: UnsafePointer<motion_host_v1>?, pluginID: String, reason: String)
        -> UnsafePointer<motion_plugin_v1>?
    {
        if let host { Host(raw: host).log(MOTION_LOG_ERROR, "\(pluginID): refusing to load: \(reason)") }
        return nil
    }

    /// Writes a line to the host's log outside any performer (e.g. from a plugin-owned thread).
    /// Does nothing before the entry call has succeeded.
    /// - Parameters:
    ///   - level: the level.
    ///   - message: the text; prefixed with the plugin id.
    public static func log(_ level: LogLevel, _ message: String) {
        guard let plugin = exportedPlugin.withLock({ $0 }) else { return }
        plugin.host.log(level.rawValue, "\(plugin.id): \(message)")
    }
}

/// A performer class with its plan types by name.
struct PerformerClass: Sendable {
    let type: any PluginPerformer.Type
    let plans: PlanTable

    /// Builds the class table, rejecting duplicate class names and duplicate plan types within a class.
    static func table(for performers: [any PluginPerformer.Type]) throws(PluginError) -> [String: PerformerClass] {
        guard !performers.isEmpty else {
            throw PluginError(.invalidArgument, "the plugin has no performer classes. To fix, list at least one.")
        }
        var table: [String: PerformerClass] = [:]
        for performer in performers {
            let name = performer.className
            guard table[name] == nil else {
                throw PluginError(.invalidArgument, "two performer classes are named \"\(name)\". To fix, rename one.")
            }
            var plans: [String: any PluginPlan.Type] = [:]
            for plan in performer.planTypes {
                guard plans[plan.type] == nil else {
                    throw PluginError(
                        .invalidArgument,
                        "performer class \(name) lists plan type \"\(plan.type)\" twice. To fix, list it once.")
                }
                plans[plan.type] = plan
            }
            table[name] = PerformerClass(type: performer, plans: PlanTable(types: plans, performer: performer))
        }
        return table
    }
}

/// The plugin a library has exported, with its C interface.
///
/// `@unchecked Sendable`: immutable after init. The C structs and the id string it points to are
/// allocated once and never freed, because the host keeps pointers to them for the life of the process
/// (motion_plugin.h: "must stay valid for the life of the process").
final class ExportedPlugin: @unchecked Sendable {
    let id: String
    let host: Host
    /// The id and host again, in the one object every performer's context points to.
    let identity: PluginIdentity
    let classes: [String: PerformerClass]
    let interface: UnsafeMutablePointer<motion_plugin_v1>
    let frames: UnsafeMutablePointer<motion_frames_v1>?
    let deviceMotion: UnsafeMutablePointer<motion_device_motion_v1>?
    /// Offered only to a host that offers the plans extension to read the handles with.
    let planHandles: UnsafeMutablePointer<motion_plan_handles_v1>?

    init(id: String, host: Host, classes: [String: PerformerClass]) {
        self.id = id
        self.host = host
        self.identity = PluginIdentity(id: id, host: host)
        self.classes = classes
        interface = .allocate(capacity: 1)
        interface.initialize(
            to: motion_plugin_v1(
                struct_size: UInt32(MemoryLayout<motion_plugin_v1>.size),
                abi_version: MOTION_ABI_VERSION,
                plugin_id: UnsafePointer(strdup(id)),
                create_performer: sdkCreatePerformer,
                destroy_performer: sdkDestroyPerformer,
                add_plan: sdkAddPlan,
                add_named_plan: sdkAddNamedPlan,
                remove_named_plan: sdkRemoveNamedPlan,
                get_extension: sdkGetExtension))
        if classes.values.contains(where: { $0.type is any FrameUpdating.Type }) {
            frames = .allocate(capacity: 1)
            frames?.initialize(
                to: motion_frames_v1(
                    struct_size: UInt32(MemoryLayout<motion_frames_v1>.size), update: sdkUpdate, update_many: sdkUpdateMany))
        } else {
            frames = nil
        }
        if classes.values.contains(where: { $0.type is any DeviceMotionReceiving.Type }) {
            deviceMotion = .allocate(capacity: 1)
            deviceMotion?.initialize(
                to: motion_device_motion_v1(
                    struct_size: UInt32(MemoryLayout<motion_device_motion_v1>.size), receive: sdkReceive))
        } else {
            deviceMotion = nil
        }
        if host.plans != nil {
            planHandles = .allocate(capacity: 1)
            planHandles?.initialize(
                to: motion_plan_handles_v1(
                    struct_size: UInt32(MemoryLayout<motion_plan_handles_v1>.size), add_plan: sdkAddPlanByHandle,
                    add_named_plan: sdkAddNamedPlanByHandle))
        } else {
            planHandles = nil
        }
    }
}

/// What every performer context of a plugin shares: one object, where each context kept the host's three
/// pointers and the id's string before (40 bytes a performer).
final class PluginIdentity: Sendable {
    /// The plugin's id, e.g. `"org.motion.tweenkit"`.
    let id: String
    /// The host's interface.
    let host: Host

    init(id: String, host: Host) {
        self.id = id
        self.host = host
    }
}

/// The one plugin this library exported (a library has one entry symbol, so one plugin).
let exportedPlugin = ExportedPluginSlot()

/// Where ``exportedPlugin`` is kept: under a pthread mutex, which the Thread Sanitizer sees, unlike
/// `Synchronization.Mutex` (Documentation/PITFALLS.md: two hosts' entry calls on two threads were reported as a race
/// on the fresh clone's `.ci/tsan`).
///
/// Thread rule: any thread.
final class ExportedPluginSlot: @unchecked Sendable {
    // @unchecked: `plugin` is read and written under `lock` only.
    private var plugin: ExportedPlugin?
    private let lock = PluginLock(guarding: "the exported plugin")

    /// Runs `body` with the exported plugin (or `nil` before the first entry call), which it may set, under the lock.
    func withLock<R>(_ body: (inout ExportedPlugin?) throws -> R) rethrows -> R {
        try lock.withLock { try body(&plugin) }
    }
}

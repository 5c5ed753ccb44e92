import CMotionABI
import FoundationEssentials
import Glibc
import MotionCore

/// A plugin reached through `motion_plugin_entry`: its checked `motion_plugin_v1` table and the
/// optional extensions it offers.
///
/// Thread rule: created on the scheduler's thread (the entry function is called there); afterwards
/// immutable. `@unchecked Sendable` because it holds pointers into the plugin's static data, which the
/// ABI says stay valid and unchanged for the life of the process.
public final class EntryPlugin: @unchecked Sendable {
    let table: UnsafePointer<motion_plugin_v1>
    /// The id the plugin reports (`motion_plugin_v1.plugin_id`).
    public let pluginID: String
    /// The packed ABI version the plugin was built against (`motion_plugin_v1.abi_version`).
    public let abiVersion: UInt32
    /// Who the plugin is, for messages: its manifest's id, or the library's path.
    public let name: String
    /// `name` as a C string for ``PluginCrashReport``; it lives for the process, as the library does.
    let cName: UnsafePointer<CChar>
    /// Where the log lines of the host's calls into the plugin go (the host's sink).
    let logRoute: PluginLogRoute
    /// Its name and log route for the host contexts of its performers, shared by all of them.
    let identity: PluginIdentity
    /// The manifest and library named in errors.
    let manifest: URL?
    let library: String?
    let frames: UnsafePointer<motion_frames_v1>?
    let deviceMotion: UnsafePointer<motion_device_motion_v1>?
    /// The plugin's plan-handles extension (`MOTION_EXTENSION_PLAN_HANDLES`, ABI 1.4), when its struct covers
    /// both functions and neither is NULL: plans then go across by handle, with no JSON written.
    let planHandles: UnsafePointer<motion_plan_handles_v1>?

    /// Calls a plugin's entry function and checks what it returns.
    ///
    /// Checks, each failing with a ``PluginError`` that names the manifest and library: the entry returns a table
    /// (else the plugin refused, and the message quotes the line it logged during that call, on the calling
    /// thread); `struct_size` covers every version-1 field; the ABI majors match (both versions named); no
    /// required function is NULL; the plugin id matches `expectedID` when given. The frames and device-motion
    /// extensions are taken only when their `struct_size` covers their function and it is not NULL.
    ///
    /// This calls `entry` each time; a host calls a library's entry once per process through
    /// ``EntryRegistry`` instead.
    /// - Parameters:
    ///   - entry: The library's `motion_plugin_entry`.
    ///   - name: The plugin's name for messages.
    ///   - expectedID: The id the manifest declares, if any.
    ///   - manifest: The manifest, for errors.
    ///   - library: The library as the manifest names it, for errors.
    ///   - logSink: Where the plugin's log lines from the host's calls go (`nil`: the process's default,
    ///     ``PluginLog/setSink(_:)``).
    public convenience init(
        entry: motion_plugin_entry_fn, name: String, expectedID: String? = nil, manifest: URL? = nil, library: String? = nil,
        logSink: PluginLog.Sink? = nil
    ) throws(PluginError) {
        let cName = Self.makeCName(name: name, manifest: manifest)
        let outcome = EntryRegistry.call(entry, cName: cName, logSink: logSink)
        try self.init(
            outcome: outcome, name: name, cName: cName, expectedID: expectedID, manifest: manifest, library: library, logSink: logSink)
    }

    static func makeCName(name: String, manifest: URL?) -> UnsafePointer<CChar> {
        UnsafePointer(strdup(manifest.map { "\(name) (\($0.relativePath))" } ?? name)!)
    }

    /// Checks what a library's entry returned (``EntryRegistry``), as the public initializer says.
    init(
        outcome: EntryRegistry.Outcome, name: String, cName: UnsafePointer<CChar>, expectedID: String?, manifest: URL?,
        library: String?, logSink: PluginLog.Sink?
    ) throws(PluginError) {
        self.name = name
        self.cName = cName
        self.manifest = manifest
        self.library = library
        self.logRoute = PluginLogRoute(sink: logSink)
        self.identity = PluginIdentity(description: name, logRoute: logRoute)
        func failure(_ code: PluginError.Code, _ message: String) -> PluginError {
            PluginError(code: code, message: message, manifest: manifest, library: library)
        }
        guard let table = outcome.table else {
            let reason = outcome.refusal.map { "; it logged: \($0)" } ?? " and logged no reason"
            throw failure(.entryRefused, "motion_plugin_entry returned NULL\(reason)")
        }
        let plugin = table.pointee
        guard structCovers(table, \motion_plugin_v1.get_extension) else {
            let required = MemoryLayout<motion_plugin_v1>.offset(of: \motion_plugin_v1.get_extension)! + MemoryLayout<UnsafeRawPointer>.size
            throw failure(
                .invalidInterface,
                "motion_plugin_v1.struct_size is \(plugin.struct_size) bytes, smaller than the \(required) bytes of ABI 1.0's fields")
        }
        let pluginMajor = plugin.abi_version >> 16
        guard pluginMajor == UInt32(MOTION_ABI_VERSION_MAJOR) else {
            throw failure(
                .abiMismatch,
                "the library was built for ABI \(pluginMajor).\(plugin.abi_version & 0xFFFF); this host speaks ABI \(MOTION_ABI_VERSION_MAJOR).\(MOTION_ABI_VERSION_MINOR). To fix, rebuild the plugin against this host's motion_plugin.h"
            )
        }
        guard plugin.create_performer != nil, plugin.destroy_performer != nil, plugin.add_plan != nil,
            plugin.add_named_plan != nil, plugin.remove_named_plan != nil, plugin.get_extension != nil
        else {
            throw failure(.invalidInterface, "motion_plugin_v1 has a NULL function pointer; every function is required")
        }
        guard let idPointer = plugin.plugin_id else {
            throw failure(.invalidInterface, "motion_plugin_v1.plugin_id is NULL")
        }
        let id = String(cString: idPointer)
        if let expectedID, expectedID != id {
            throw failure(.invalidInterface, "the library says it is plugin \"\(id)\", the manifest says \"\(expectedID)\"")
        }
        self.table = table
        self.pluginID = id
        self.abiVersion = plugin.abi_version
        var problems: [String] = []
        let frames = Self.extensionTable(plugin, MOTION_EXTENSION_FRAMES, \motion_frames_v1.update, problems: &problems)
        self.frames = frames
        self.updateMany = structCovers(frames, \motion_frames_v1.update_many) ? frames?.pointee.update_many : nil
        self.deviceMotion = Self.extensionTable(
            plugin, MOTION_EXTENSION_DEVICE_MOTION, \motion_device_motion_v1.receive, problems: &problems)
        let handles = Self.extensionTable(plugin, MOTION_EXTENSION_PLAN_HANDLES, \motion_plan_handles_v1.add_named_plan, problems: &problems)
        if let handles, handles.pointee.add_plan == nil {
            problems.append("get_extension(\"\(MOTION_EXTENSION_PLAN_HANDLES)\") returned a struct whose add_plan is NULL; it is ignored")
            self.planHandles = nil
        } else {
            self.planHandles = handles
        }
        self.extensionProblems = problems
    }

    /// Extensions the plugin returned but the host could not use (too small a `struct_size`, a NULL
    /// function), one line each; the host ignores them, and `plugins validate` reports them.
    public let extensionProblems: [String]

    private static func extensionTable<T, F>(
        _ plugin: motion_plugin_v1, _ id: String, _ function: KeyPath<T, F?>, problems: inout [String]
    ) -> UnsafePointer<T>? {
        guard let raw = id.withCString({ plugin.get_extension($0) }) else { return nil }
        let pointer = raw.assumingMemoryBound(to: T.self)
        guard structCovers(pointer, function) else {
            let size = raw.load(as: UInt32.self)
            problems.append("get_extension(\"\(id)\") returned a struct of \(size) bytes, too small for its function; it is ignored")
            return nil
        }
        guard pointer.pointee[keyPath: function] != nil else {
            problems.append("get_extension(\"\(id)\") returned a struct whose function is NULL; it is ignored")
            return nil
        }
        return pointer
    }

    /// The plugin's `motion_frames_v1.update_many` (ABI 1.1), when its struct covers it and it is not NULL.
    let updateMany: (@convention(c) (UnsafePointer<OpaquePointer?>?, Int, UnsafePointer<motion_frame>?) -> Void)?

    /// Where the manifest's capabilities and the extensions the library offers disagree, one sentence each
    /// (with "To fix"): `frames` declared but no `motion.frames/1` offered, or offered but declared by no entry
    /// performer; the same for `deviceMotion` and `motion.device-motion/1`. A run refuses such a plugin
    /// (``PluginHost``), and `plugins validate` fails it.
    /// - Parameter manifest: The plugin's manifest.
    /// - Returns: The mismatches; empty when the manifest describes the library.
    public func capabilityMismatches(with manifest: PluginManifest) -> [String] {
        var problems: [String] = []
        let declared = Set(manifest.performers.filter { $0.interface == .entry }.flatMap(\.capabilities))
        if declared.contains(.frames), !hasFrames {
            problems.append("the manifest declares the capability frames, but the library offers no motion.frames/1")
        }
        if declared.contains(.deviceMotion), !hasDeviceMotion {
            problems.append("the manifest declares the capability deviceMotion, but the library offers no motion.device-motion/1")
        }
        // The other way: an extension no performer declares is a manifest that misdescribes its plugin.
        if hasFrames, !declared.contains(.frames) {
            problems.append(
                "the library offers motion.frames/1, but no performer declares the capability frames. To fix, add \"frames\" to the \"capabilities\" of the performers it updates"
            )
        }
        if hasDeviceMotion, !declared.contains(.deviceMotion) {
            problems.append(
                "the library offers motion.device-motion/1, but no performer declares the capability deviceMotion. To fix, add \"deviceMotion\" to the \"capabilities\" of the performers that take samples"
            )
        }
        return problems
    }

    /// Whether the plugin offers per-frame updates (`motion.frames/1`).
    public var hasFrames: Bool { frames != nil }
    /// Whether the plugin accepts device-motion samples (`motion.device-motion/1`).
    public var hasDeviceMotion: Bool { deviceMotion != nil }
}

extension EntryPlugin: FrameBatch {
    /// Updates a run of this plugin's performers: one `update_many` call when the plugin has it, else
    /// `update` per performer; either way under one ``PluginCrashReport`` mark and log route.
    public func update(_ members: UnsafeBufferPointer<OpaquePointer>, frame: Frame) {
        guard let frames else { return }
        var cFrame = motion_frame(
            struct_size: UInt32(MemoryLayout<motion_frame>.size), index: UInt64(frame.index), time: frame.time, delta: frame.delta)
        PluginLog.routing(logRoute) {
            if let updateMany {
                PluginCrashReport.calling(cName, .updateMany, frame: frame.index) {
                    members.withMemoryRebound(to: OpaquePointer?.self) { updateMany($0.baseAddress, $0.count, &cFrame) }
                }
            } else if let update = frames.pointee.update {
                PluginCrashReport.calling(cName, .update, frame: frame.index) {
                    for member in members { update(member, &cFrame) }
                }
            }
        }
    }
}

/// Whether the struct at `pointer` (which begins with `uint32_t struct_size`) is large enough to hold the
/// field at `field`, as the C header's `MOTION_STRUCT_HAS_FIELD` says.
func structCovers<T, F>(_ pointer: UnsafePointer<T>?, _ field: KeyPath<T, F>) -> Bool {
    guard let pointer, let offset = MemoryLayout<T>.offset(of: field) else { return false }
    let size = UnsafeRawPointer(pointer).load(as: UInt32.self)
    return Int(size) >= offset + MemoryLayout<F>.size
}

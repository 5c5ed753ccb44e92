import CMotionHostSupport
import FoundationEssentials

/// Names the plugin that was running when the process received a fatal signal, in one line on standard
/// error (and, when a timeline is attached, as its last `error` line), instead of a crash report about
/// the host.
///
/// The host marks every call into a plugin (entry, create, plans, frames, samples, destroy) with the
/// plugin's name, the C function called and the frame, on the calling thread (a C `_Thread_local`
/// variable, CMotionHostSupport). The handler that ``install()`` installs reads the crashing thread's
/// mark and writes `error: plugin ID (MANIFEST) crashed the host (signal N) in CALL at frame F. …` with
/// async-signal-safe `write(2)` calls, then lets the signal take its course (so a parent process, such as
/// `plugins validate`, still sees the signal). A crash on a thread with no mark (a plugin's own thread) is
/// blamed on the plugin library its program counter, its faulting address or its stack points into, from
/// the table ``recordLibrary(containing:name:)`` fills when a library is loaded.
///
/// Thread rule: a mark is per thread; any thread may mark its own calls and read its own mark.
public enum PluginCrashReport {
    /// The C function a mark names: one of the plugin entry points of `motion_plugin.h`.
    public struct Call: Sendable {
        /// The function's name as a C string in static storage.
        let name: StaticString
        init(_ name: StaticString) { self.name = name }

        /// `motion_plugin_entry`.
        public static let entry = Call("motion_plugin_entry")
        /// `motion_plugin_v1.create_performer` (or a declarative class's `create`).
        public static let create = Call("create_performer")
        /// `motion_plugin_v1.destroy_performer` (or a declarative class's `destroy`).
        public static let destroy = Call("destroy_performer")
        /// `motion_plugin_v1.add_plan` (or a declarative plan's `call`).
        public static let addPlan = Call("add_plan")
        /// `motion_plugin_v1.add_named_plan`.
        public static let addNamedPlan = Call("add_named_plan")
        /// `motion_plugin_v1.remove_named_plan`.
        public static let removeNamedPlan = Call("remove_named_plan")
        /// `motion_frames_v1.update` (or a declarative class's `update`).
        public static let update = Call("update")
        /// `motion_frames_v1.update_many`.
        public static let updateMany = Call("update_many")
        /// `motion_device_motion_v1.receive`.
        public static let receiveSample = Call("receive (device-motion sample)")

        var cString: UnsafePointer<CChar> { UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self) }
    }

    /// Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP (on an alternate
    /// stack for the calling thread). Call once, early, on the main thread.
    public static func install() { cmotionhost_install_crash_handler() }

    /// The plugin this thread is calling, or `nil`.
    public static var currentPlugin: String? { cmotionhost_current_plugin().map { String(cString: $0) } }
    /// The C function of the plugin this thread is calling, or `nil`.
    public static var currentCall: String? { cmotionhost_current_call().map { String(cString: $0) } }
    /// The frame index of this thread's call into a plugin, or `nil` when it is not part of a frame.
    public static var currentFrame: Int? {
        let frame = cmotionhost_current_frame()
        return frame < 0 ? nil : Int(frame)
    }

    /// Records the address range of the loaded library holding `address` (for example its entry function),
    /// so a crash on a thread with no mark whose program counter or stack lies in it names `name`.
    /// Wraps `dl_iterate_phdr(3)`; a library already recorded is kept as it is.
    /// - Parameters:
    ///   - address: Any address inside the library's mapping.
    ///   - name: The plugin's name, a C string that lives for the process.
    /// - Returns: `false` when no loaded object holds the address or the table (128 libraries) is full.
    @discardableResult
    public static func recordLibrary(containing address: UnsafeRawPointer, name: UnsafePointer<CChar>) -> Bool {
        cmotionhost_record_library(address, name)
    }

    /// The plugin whose recorded library holds `address`, or `nil`.
    public static func plugin(owning address: UnsafeRawPointer) -> String? {
        cmotionhost_library_plugin(UInt(bitPattern: address)).map { String(cString: $0) }
    }

    /// Runs `body` marked, on this thread, as the call `call` into the plugin `name`.
    /// - Parameters:
    ///   - name: The plugin's name, a C string that lives for the process.
    ///   - call: The C function called.
    ///   - frame: The scheduler's frame index when the call is part of a frame.
    @inline(__always)
    public static func calling<R>(
        _ name: UnsafePointer<CChar>, _ call: Call, frame: Int? = nil, _ body: () throws -> R
    ) rethrows -> R {
        let outer = cmotionhost_mark_call(name, call.cString, Int64(frame ?? -1))
        defer { cmotionhost_unmark_call(outer) }
        return try body()
    }
}

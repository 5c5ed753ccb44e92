import CMotionABI
import Synchronization

/// What each loaded library's `motion_plugin_entry` returned, one record per library for the process:
/// the header says the entry is called once per process, so a second ``PluginHost`` (or a second
/// manifest naming the same library) gets the first call's result instead of calling it again.
///
/// Libraries are told apart by their `dlopen` handle, which the dynamic linker gives once per loaded
/// library and which is never closed (``LoadedLibrary``). The per-host checks (the ABI, the plugin id
/// against each manifest) are made by ``EntryPlugin`` on every host, from the recorded result.
///
/// Thread rule: safe from any thread. The first call of a library's entry runs under the registry's
/// lock, on the thread that needs the plugin first (a scheduler's thread), so a second thread asking
/// for the same library waits for that call's result rather than making its own.
enum EntryRegistry {
    /// What an entry returned: its table, or `nil` with the line it logged during that call.
    ///
    /// `@unchecked Sendable`: immutable; the table is the plugin's static data, valid and unchanged for
    /// the life of the process (the header's rule for `motion_plugin_v1`).
    final class Outcome: @unchecked Sendable {
        /// The plugin's table, or `nil` when the entry refused.
        let table: UnsafePointer<motion_plugin_v1>?
        /// For a refusal: the line the plugin logged on the calling thread during the entry call (its
        /// last error, else its last line), if any.
        let refusal: String?

        init(table: UnsafePointer<motion_plugin_v1>?, refusal: String?) {
            self.table = table
            self.refusal = refusal
        }
    }

    private static let records = ProcessLock<[UInt: Outcome]>([:])

    /// Calls an entry function once, now, with the lines it logs on this thread captured for its
    /// refusal and sent to `logSink`; records nothing.
    /// - Parameters:
    ///   - entry: A library's `motion_plugin_entry`.
    ///   - cName: The plugin's name for ``PluginCrashReport``, living for the process.
    ///   - logSink: Where the lines go (`nil`: the process's default).
    ///   - host: The host table the entry receives: the host's own, or a sandbox's (``SandboxHostInterface``).
    /// - Returns: What the entry returned.
    static func call(
        _ entry: motion_plugin_entry_fn, cName: UnsafePointer<CChar>, logSink: PluginLog.Sink?,
        host: UnsafePointer<motion_host_v1> = UnsafePointer(HostInterface.table)
    ) -> Outcome {
        let route = PluginLogRoute(sink: logSink, capturing: true)
        // A crash on a thread of this plugin's own, outside any marked call, is blamed on its library.
        _ = PluginCrashReport.recordLibrary(containing: unsafeBitCast(entry, to: UnsafeRawPointer.self), name: cName)
        let table = PluginLog.routing(route) {
            PluginCrashReport.calling(cName, .entry) { entry(UInt32(MOTION_ABI_VERSION), host) }
        }
        return Outcome(table: table, refusal: table == nil ? route.reason : nil)
    }

    /// The result of `library`'s entry, calling it (``call(_:cName:logSink:)``) the first time the process
    /// asks for that library.
    /// - Parameters:
    ///   - library: The loaded library.
    ///   - entry: Its `motion_plugin_entry`.
    ///   - cName: The plugin's name for ``PluginCrashReport``.
    ///   - logSink: Where the first call's lines go (later callers get the recorded result, no lines).
    /// - Returns: The recorded result.
    static func outcome(
        for library: LoadedLibrary, entry: motion_plugin_entry_fn, cName: UnsafePointer<CChar>, logSink: PluginLog.Sink?
    ) -> Outcome {
        records.withLock { records in
            let key = UInt(bitPattern: library.handle)
            if let recorded = records[key] { return recorded }
            let outcome = call(entry, cName: cName, logSink: logSink)
            records[key] = outcome
            return outcome
        }
    }
}

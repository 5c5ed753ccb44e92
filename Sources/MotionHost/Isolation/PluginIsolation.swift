import MotionCore

/// Where a plugin's code runs, and what happens when it fails there: one plugin's entry in the host
/// configuration's `"plugins"` object, or what `--isolate PLUGIN_ID` / `--isolate all` asks for.
///
/// ```json
/// "plugins": {
///   "org.example.untrusted": { "isolation": "process", "memoryLimit": 268435456, "onCrash": "restart", "maxRestarts": 2 },
///   "*": { "isolation": "process" }
/// }
/// ```
/// `"*"` applies to every plugin without an entry of its own. A plugin run in a process of its own (a sandbox,
/// ``IsolatedPlugin``) is the same library, manifest and C ABI: its author changes nothing.
///
/// Thread rule: a value type; safe from any thread.
public struct PluginIsolation: Sendable, Hashable {
    /// Where the plugin's code runs.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// In the host's own process (the default): fastest; a crash or hang of the plugin is the host's.
        case inProcess
        /// In a sandbox process of its own (`motion-sandbox`), confined: a crash or hang ends that plugin's
        /// performers, not the host.
        case process
    }

    /// What the host does when an isolated plugin's sandbox dies or misses its deadline.
    public enum CrashPolicy: String, Sendable, Hashable, CaseIterable {
        /// Its performers end (their is-active tokens are ended) and later plans of its types fail.
        case fail
        /// A new sandbox re-creates its performers and re-adds their current plans, at most
        /// ``PluginIsolation/maxRestarts`` times: ``PluginHost/takeFailures(restartingIn:)`` starts it and switches the
        /// performers with ``Scheduler/recreatePerformers(of:)`` (R43), which needs the scheduler's
        /// ``Scheduler/recordsPlansForRecreation``.
        case restart
    }

    /// Where the plugin runs (`"isolation"`).
    public var mode: Mode
    /// The sandbox's address-space limit in bytes (`"memoryLimit"`, `RLIMIT_AS`), or `nil` for none. Applies to
    /// an isolated plugin only.
    public var memoryLimit: Int?
    /// What a failure leads to (`"onCrash"`).
    public var onCrash: CrashPolicy
    /// How many times a sandbox is restarted under ``CrashPolicy/restart`` (`"maxRestarts"`).
    public var maxRestarts: Int
    /// The sandbox group the plugin runs in (`"group"`), or `nil` for a sandbox of its own. The isolated plugins of
    /// one group share one sandbox process (as the CLAP sandbox `scuff`'s sandbox groups do): one frame request for
    /// all of them, and a crash, hang or out-of-memory of that process ends the performers of every one of them
    /// (each reported). Members must agree on ``memoryLimit``, ``onCrash`` and ``maxRestarts`` (the host
    /// configuration refuses a group whose members differ); only with ``Mode/process``.
    public var group: String?

    /// The smallest `memoryLimit` accepted: below it the Swift runtime of the sandbox itself cannot start.
    public static let smallestMemoryLimit = 64 << 20

    /// An isolation setting from its parts.
    public init(mode: Mode = .inProcess, memoryLimit: Int? = nil, onCrash: CrashPolicy = .fail, maxRestarts: Int = 3, group: String? = nil) {
        self.mode = mode
        self.memoryLimit = memoryLimit
        self.onCrash = onCrash
        self.maxRestarts = maxRestarts
        self.group = group
    }

    /// In the host's process: the default.
    public static let inProcess = PluginIsolation()
    /// In a sandbox process, no memory limit, failures end the plugin's performers.
    public static let process = PluginIsolation(mode: .process)

    /// Whether the plugin runs in a sandbox.
    public var isIsolated: Bool { mode == .process }

    /// Reads one plugin's entry of the configuration's `"plugins"` object.
    /// - Throws: The reader's error (``ManifestError``) naming the file and the JSON path of the bad field.
    static func decode(_ node: JSONValue, _ r: JSONDocumentReader<ManifestError>) throws(ManifestError) -> PluginIsolation {
        let object = try r.object(node, expected: "an object with isolation, memoryLimit, onCrash, maxRestarts and group")
        try r.checkKeys(object, allowed: ["isolation", "memoryLimit", "onCrash", "maxRestarts", "group"], what: "a plugin's settings")
        var settings = PluginIsolation()
        if let mode = try r.optional(object, "isolation", { (node) throws(ManifestError) in try r.choice(node, Mode.self) }) {
            settings.mode = mode
        }
        settings.memoryLimit = try r.optional(object, "memoryLimit") { (node) throws(ManifestError) -> Int in
            let bytes = try r.integer(node, atLeast: 1)
            guard bytes >= smallestMemoryLimit else {
                throw r.fail(
                    .invalidValue,
                    "expected a number of bytes ≥ \(smallestMemoryLimit) (64 MiB, what the sandbox's own runtime needs); found \(bytes)")
            }
            return bytes
        }
        if let policy = try r.optional(object, "onCrash", { (node) throws(ManifestError) in try r.choice(node, CrashPolicy.self) }) {
            settings.onCrash = policy
        }
        if let restarts = try r.optional(object, "maxRestarts", { (node) throws(ManifestError) in try r.integer(node, atLeast: 0) }) {
            settings.maxRestarts = restarts
        }
        settings.group = try r.optional(object, "group") { (node) throws(ManifestError) -> String in
            let name = try r.string(node, expected: "a sandbox group's name")
            guard !name.isEmpty, name.utf8.count <= 64, !name.contains(where: { $0.isNewline || $0 == "\"" }) else {
                throw r.fail(.invalidValue, "expected a sandbox group's name of 1 to 64 characters on one line; found \(node.found)")
            }
            guard settings.mode == .process else {
                throw r.fail(
                    .invalidValue,
                    "a group is plugins that share one sandbox process, so it needs \"isolation\": \"process\"; found \"isolation\": \"\(settings.mode.rawValue)\". To fix, add \"isolation\": \"process\" or drop \"group\""
                )
            }
            return name
        }
        return settings
    }

    /// The settings that one sandbox group's members must share (its process's): memory limit, crash policy, restarts.
    var processSettings: String {
        "memoryLimit \(memoryLimit.map(String.init) ?? "none"), onCrash \(onCrash.rawValue), maxRestarts \(maxRestarts)"
    }
}

extension HostConfiguration {
    /// The isolation a plugin runs with: its own entry of ``plugins``, else the `"*"` entry, else in process.
    /// - Parameter pluginID: The plugin's id.
    /// - Returns: Its settings.
    public func isolation(of pluginID: String) -> PluginIsolation {
        plugins[pluginID] ?? plugins["*"] ?? .inProcess
    }

    /// The ids of the catalog's plugins that run in one sandbox with `pluginID` (its ``PluginIsolation/group``),
    /// `pluginID` first, then the others in the catalog's order; just `[pluginID]` without a group.
    /// - Parameters:
    ///   - pluginID: A plugin's id.
    ///   - candidates: The ids of the plugins there are (the catalog's), in order.
    /// - Returns: The group's plugin ids.
    public func sandboxGroup(of pluginID: String, among candidates: [String]) -> [String] {
        let settings = isolation(of: pluginID)
        guard settings.isIsolated, let group = settings.group else { return [pluginID] }
        return [pluginID]
            + candidates.filter { $0 != pluginID && isolation(of: $0).isIsolated && isolation(of: $0).group == group }
    }

    /// This configuration with `pluginIDs` isolated (`--isolate PLUGIN_ID`, `"*"` for `--isolate all`): each
    /// keeps its memory limit and crash policy, if it has any, and runs in a sandbox.
    /// - Parameter pluginIDs: Plugin ids, or `"*"`.
    /// - Returns: The changed configuration.
    public func isolating(_ pluginIDs: [String]) -> HostConfiguration {
        var copy = self
        for id in pluginIDs {
            var settings = copy.plugins[id] ?? (id == "*" ? .inProcess : copy.plugins["*"] ?? .inProcess)
            settings.mode = .process
            copy.plugins[id] = settings
        }
        return copy
    }
}

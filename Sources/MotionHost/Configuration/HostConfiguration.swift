import FoundationEssentials
import MotionCore
import MotionFiles

/// The host's own configuration: extra plugin and library folders, disabled plugins, who owns a
/// contested plan type, and trusted SHA-256 pins of plugin libraries.
///
/// Read from `$XDG_CONFIG_HOME/motion/host.json` (`~/.config/motion/host.json` when `XDG_CONFIG_HOME`
/// is unset) or a file given explicitly (the CLI's `--config FILE`). The format is
/// `manifests/schema/host-configuration.schema.json`:
///
/// ```json
/// {
///   "configurationVersion": 1,
///   "searchPaths": ["/opt/motion/plugins", "plugins"],
///   "libraryPaths": ["/opt/motion/lib"],
///   "disabledPlugins": ["org.example.broken"],
///   "planTypeOwners": { "Tween": "org.motion.tweenkit" },
///   "pins": { "libTweenKit.so": "9f86d081…", "org.example.blink": "…" },
///   "pluginManifests": { "org.motion.tweenkit": "/opt/motion/plugins/tweenkit.json" }
/// }
/// ```
/// Relative paths are relative to the configuration file's folder.
///
/// ## Pins: which one protects what
/// A pin in the host configuration is the one that protects against a rewritten plugin folder: the
/// configuration lives outside that folder (in the user's own configuration directory), so an attacker
/// who can replace `libX.so` cannot also change the hash it must match. A manifest's own `sha256` only
/// detects corruption (a truncated download, a bad disk): whoever can rewrite the library can rewrite
/// the manifest beside it. When both exist, the library must match both.
///
/// Thread rule: a value type; safe to use from any thread.
public struct HostConfiguration: Sendable, Hashable {
    /// The configuration format version this host reads.
    public static let supportedConfigurationVersion = 1

    /// Extra folders searched for manifests, after the explicit and `MOTION_PLUGIN_PATH` folders
    /// (see ``PluginSearchPath``).
    public var searchPaths: [URL]
    /// Extra folders a manifest's `library` may be resolved in (after the manifest's own folder).
    public var libraryPaths: [URL]
    /// Plugin ids that are not loaded, listed or used.
    public var disabledPlugins: Set<String>
    /// Plan type → plugin id: which plugin performs a plan type that several manifests declare.
    public var planTypeOwners: [String: String]
    /// Library file name (e.g. `"libTweenKit.so"`) or plugin id → trusted SHA-256 (64 lowercase hex).
    public var pins: [String: String]
    /// Plugin id → the manifest to use when several search folders hold a manifest of that plugin id (the
    /// others are listed as shadowed); without an entry, the earliest folder's is used.
    public var pluginManifests: [String: URL]
    /// Whether every plugin library must match a pin of this configuration to load (`"requirePins": true`).
    /// Without it a pin is looked up by the manifest's plugin id or library file name, both of which a
    /// rewritten plugin folder chooses: requiring pins is what makes the pins protect against one.
    public var requiresPins: Bool
    /// Plugin id (or `"*"` for every other plugin) → where its code runs and what a failure there leads to
    /// (`"plugins"`; see ``PluginIsolation``).
    public var plugins: [String: PluginIsolation]
    /// The file this configuration was read from, if any.
    public var url: URL?

    /// A configuration from its parts.
    public init(
        searchPaths: [URL] = [], libraryPaths: [URL] = [], disabledPlugins: Set<String> = [],
        planTypeOwners: [String: String] = [:], pins: [String: String] = [:], pluginManifests: [String: URL] = [:],
        requiresPins: Bool = false, plugins: [String: PluginIsolation] = [:], url: URL? = nil
    ) {
        self.plugins = plugins
        self.searchPaths = searchPaths
        self.libraryPaths = libraryPaths
        self.disabledPlugins = disabledPlugins
        self.planTypeOwners = planTypeOwners
        self.pins = pins.mapValues { $0.lowercased() }
        self.pluginManifests = pluginManifests
        self.requiresPins = requiresPins
        self.url = url
    }

    /// No extra folders, nothing disabled, no owners, no pins.
    public static let empty = HostConfiguration()

    /// The default configuration file: `$XDG_CONFIG_HOME/motion/host.json`, where `XDG_CONFIG_HOME`
    /// defaults to `$HOME/.config` when unset, empty or relative (XDG Base Directory Specification).
    /// - Parameter environment: The process environment (injectable for tests).
    /// - Returns: The file's URL (it may not exist).
    public static func defaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base = XDG.directory("XDG_CONFIG_HOME", default: ".config", environment: environment)
        return URL(fileURLWithPath: base).appendingPathComponent("motion").appendingPathComponent("host.json")
    }

    /// Reads the default configuration file, or returns ``empty`` when it does not exist.
    /// - Parameter environment: The process environment (injectable for tests).
    /// - Returns: The configuration.
    /// - Throws: ``ManifestError`` when the file exists but is unreadable or invalid.
    public static func loadDefault(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ManifestError) -> HostConfiguration {
        let url = defaultURL(environment: environment)
        if (try? system_stat(url.path)) == nil { return .empty }
        return try load(contentsOf: url)
    }

    /// Reads and validates a configuration file.
    /// - Parameter url: The file.
    /// - Returns: The configuration, relative paths resolved against the file's folder.
    /// - Throws: ``ManifestError`` naming the file and the JSON path of the bad field, what was
    ///   expected and what was found; invalid JSON gives line and column.
    public static func load(contentsOf url: URL) throws(ManifestError) -> HostConfiguration {
        let bytes = try ManifestError.readDocument(
            at: url, limit: FileSizeLimit.configuration, what: "the host configuration")
        return try decode(Data(bytes), url: url)
    }

    /// Validates a configuration from its JSON bytes.
    /// - Parameters:
    ///   - data: The configuration's JSON.
    ///   - url: The file it came from (relative paths are resolved against its folder).
    /// - Returns: The configuration.
    /// - Throws: ``ManifestError`` as ``load(contentsOf:)``.
    public static func decode(_ data: Data, url: URL) throws(ManifestError) -> HostConfiguration {
        let r = JSONDocumentReader<ManifestError>(file: url)
        let root = try r.parseObject(data)
        let keys = [
            "configurationVersion", "searchPaths", "libraryPaths", "disabledPlugins", "planTypeOwners", "pins", "pluginManifests", "requirePins",
            "plugins",
        ]
        _ = try r.optional(root, "configurationVersion") { (node) throws(ManifestError) in
            let v = try r.integer(node)
            guard v == supportedConfigurationVersion else {
                throw r.fail(
                    .unsupportedVersion,
                    "expected \(supportedConfigurationVersion) (the configuration version this host reads); found \(v)")
            }
            return v
        }
        try r.checkKeys(root, allowed: keys, what: "a host configuration")
        let folder = url.deletingLastPathComponent()
        func location(_ node: JSONValue, expected: String, isDirectory: Bool) throws(ManifestError) -> URL {
            let path = try r.nonEmptyString(node, expected: expected)
            if path.hasPrefix("~") {
                throw r.fail(
                    .invalidValue,
                    "expected an absolute path or one relative to the configuration's folder (\"~\" is not expanded); found \(node.found)"
                )
            }
            return path.hasPrefix("/")
                ? URL(fileURLWithPath: path, isDirectory: isDirectory)
                : folder.appendingPathComponent(path, isDirectory: isDirectory).standardizedFileURL
        }
        func folders(_ key: String) throws(ManifestError) -> [URL] {
            try r.optional(root, key) { (node) throws(ManifestError) -> [URL] in
                let items = try r.array(node, expected: "an array of folder paths")
                return try r.elements(items) { (_, node) throws(ManifestError) -> URL in
                    try location(node, expected: "a folder path", isDirectory: true)
                }
            } ?? []
        }
        let searchPaths = try folders("searchPaths")
        let libraryPaths = try folders("libraryPaths")
        let disabled =
            try r.optional(root, "disabledPlugins") { (node) throws(ManifestError) -> [String] in
                let items = try r.array(node, expected: "an array of plugin ids")
                return try r.elements(items) { (_, node) throws(ManifestError) -> String in
                    try pluginID(node, r)
                }
            } ?? []
        let owners =
            try r.optional(root, "planTypeOwners") { (node) throws(ManifestError) -> [String: String] in
                let object = try r.object(node, expected: "an object mapping plan types to plugin ids")
                var owners: [String: String] = [:]
                for key in object.keys.sorted() {
                    owners[key] = try r.at(.key(key)) { () throws(ManifestError) -> String in
                        try pluginID(object[key]!, r)
                    }
                }
                return owners
            } ?? [:]
        let pins =
            try r.optional(root, "pins") { (node) throws(ManifestError) -> [String: String] in
                let object = try r.object(
                    node, expected: "an object mapping library file names or plugin ids to SHA-256")
                var pins: [String: String] = [:]
                for key in object.keys.sorted() {
                    pins[key] = try r.at(.key(key)) { () throws(ManifestError) -> String in
                        if key.isEmpty || key.contains("/") {
                            throw r.fail(
                                .invalidValue,
                                "expected a library file name (no \"/\") or a plugin id as the key; found \(JSONText.quoted(key))"
                            )
                        }
                        let node = object[key]!
                        let hex = try r.string(node, expected: "64 hexadecimal digits")
                        guard hex.utf8.count == 64, hex.utf8.allSatisfy(ManifestDecoder.isHexDigit) else {
                            throw r.fail(
                                .invalidValue, "expected a SHA-256 of 64 hexadecimal digits; found \(node.found)")
                        }
                        return hex.lowercased()
                    }
                }
                return pins
            } ?? [:]
        let manifests =
            try r.optional(root, "pluginManifests") { (node) throws(ManifestError) -> [String: URL] in
                let object = try r.object(node, expected: "an object mapping plugin ids to manifest paths")
                var manifests: [String: URL] = [:]
                for key in object.keys.sorted() {
                    manifests[key] = try r.at(.key(key)) { () throws(ManifestError) -> URL in
                        guard ManifestDecoder.isReverseDNS(key) else {
                            throw r.fail(
                                .invalidValue,
                                "expected a reverse-DNS plugin id such as \"org.example.myplugin\" as the key; found \(JSONText.quoted(key))"
                            )
                        }
                        return try location(object[key]!, expected: "a manifest path", isDirectory: false)
                    }
                }
                return manifests
            } ?? [:]
        let requiresPins = try r.optional(root, "requirePins") { (node) throws(ManifestError) in try r.bool(node) } ?? false
        let plugins =
            try r.optional(root, "plugins") { (node) throws(ManifestError) -> [String: PluginIsolation] in
                let object = try r.object(node, expected: "an object mapping plugin ids (or \"*\") to their settings")
                var plugins: [String: PluginIsolation] = [:]
                for key in object.keys.sorted() {
                    plugins[key] = try r.at(.key(key)) { () throws(ManifestError) -> PluginIsolation in
                        guard key == "*" || ManifestDecoder.isReverseDNS(key) else {
                            throw r.fail(
                                .invalidValue,
                                "expected a reverse-DNS plugin id such as \"org.example.myplugin\", or \"*\" for every plugin, as the key; found \(JSONText.quoted(key))"
                            )
                        }
                        return try PluginIsolation.decode(object[key]!, r)
                    }
                }
                // One sandbox group is one process: its members must agree on that process's settings.
                var firstOfGroup: [String: String] = [:]
                for key in plugins.keys.sorted(by: { ($0 == "*" ? 1 : 0, $0) < ($1 == "*" ? 1 : 0, $1) }) {
                    guard let settings = plugins[key], let group = settings.group else { continue }
                    guard let first = firstOfGroup[group] else {
                        firstOfGroup[group] = key
                        continue
                    }
                    let other = plugins[first]!
                    if other.memoryLimit != settings.memoryLimit || other.onCrash != settings.onCrash || other.maxRestarts != settings.maxRestarts {
                        try r.at(.key(key)) { () throws(ManifestError) in
                            try r.at(.key("group")) { () throws(ManifestError) in
                                throw r.fail(
                                    .invalidValue,
                                    "plugins \(JSONText.quoted(first)) and \(JSONText.quoted(key)) share the sandbox group \(JSONText.quoted(group)), one process, but not its settings: \(other.processSettings) against \(settings.processSettings). To fix, give every member of the group the same memoryLimit, onCrash and maxRestarts"
                                )
                            }
                        }
                    }
                }
                return plugins
            } ?? [:]
        return HostConfiguration(
            searchPaths: searchPaths, libraryPaths: libraryPaths, disabledPlugins: Set(disabled),
            planTypeOwners: owners, pins: pins, pluginManifests: manifests, requiresPins: requiresPins, plugins: plugins, url: url)
    }

    private static func pluginID(_ node: JSONValue, _ r: JSONDocumentReader<ManifestError>) throws(ManifestError) -> String {
        let id = try r.string(node, expected: "a plugin id")
        guard ManifestDecoder.isReverseDNS(id) else {
            throw r.fail(
                .invalidValue, "expected a reverse-DNS plugin id such as \"org.example.myplugin\"; found \(node.found)")
        }
        return id
    }

    /// The trusted hash the configuration pins for a manifest's library: by plugin id first, then by
    /// the library's file name.
    /// - Parameter manifest: The plugin's manifest.
    /// - Returns: The pin's key and its SHA-256 (64 lowercase hex), or `nil` when nothing is pinned.
    public func pin(for manifest: PluginManifest) -> (key: String, sha256: String)? {
        if let hash = pins[manifest.id] { return (manifest.id, hash) }
        let fileName = String(manifest.library.split(separator: "/").last ?? Substring(manifest.library))
        if let hash = pins[fileName] { return (fileName, hash) }
        return nil
    }
}

/// XDG Base Directory lookups.
enum XDG {
    /// `$NAME` if set to an absolute path, else `$HOME/<fallback>`.
    static func directory(_ name: String, default fallback: String, environment: [String: String]) -> String {
        if let value = environment[name], value.hasPrefix("/") { return value }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/" + fallback
    }
}

import FoundationEssentials
import MotionCore
import MotionHost

/// What a command needs of the plugin host: the host configuration, the discovered manifests and the
/// loader. Every registry construction of the CLI is in this file.
struct PluginEnvironment {
    let configuration: HostConfiguration
    let catalog: PluginCatalog
    let loader: LibraryLoader

    /// Reads the host configuration and discovers manifests.
    ///
    /// Search path: `--plugin-path` folders, then `MOTION_PLUGIN_PATH`, the configuration's `searchPaths`,
    /// `$XDG_DATA_HOME/motion/plugins`, `/usr/local/lib/motion/plugins`, `/usr/lib/motion/plugins`.
    /// Libraries are looked for beside each manifest, in the configuration's `libraryPaths`, then in this
    /// executable's folder (where `swift build` puts the sample plugins). Discovery uses the cache in
    /// `$XDG_CACHE_HOME/motion`, keyed by each manifest's path, size and modification time.
    /// - Parameters:
    ///   - pluginPaths: Folders given with `--plugin-path`, searched first, in order.
    ///   - configPath: A host configuration file given with `--config`, or `nil` for the default
    ///     (`$XDG_CONFIG_HOME/motion/host.json`, which may be absent).
    /// - Throws: ``MotionHostError`` `.registryUnavailable` naming a plugin folder or configuration file
    ///   that does not exist or does not decode.
    init(pluginPaths: [String], configPath: String?) throws(MotionHostError) {
        for path in pluginPaths {
            var isDirectory: Bool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw MotionHostError(
                    .registryUnavailable, file: path, "--plugin-path: no such folder\(Self.repositoryHint(for: path))")
            }
            guard isDirectory else {
                throw MotionHostError(
                    .registryUnavailable, file: path,
                    "--plugin-path: a file, not a folder; it takes the folder that holds the manifests. To fix, pass --plugin-path \(parentFolder(of: path).isEmpty ? "." : parentFolder(of: path))"
                )
            }
        }
        configuration = try Self.configuration(at: configPath)
        let searchPath = PluginSearchPath(
            explicit: pluginPaths.map { URL(fileURLWithPath: $0, isDirectory: true) }, configuration: configuration)
        catalog = PluginCatalog.discover(searchPath: searchPath, configuration: configuration, cache: DiscoveryCache.standard())
        loader = Self.loader(configuration)
    }

    /// When the current folder is this repository (it has `manifests/` with manifests), a hint at it.
    static func repositoryHint(for path: String) -> String {
        guard path != "manifests",
            let names = try? FileManager.default.contentsOfDirectory(atPath: "manifests"), names.contains(where: { $0.hasSuffix(".json") })
        else { return "" }
        return ". The sample plugins' manifests are in manifests/ here: pass --plugin-path manifests"
    }

    /// Reads the host configuration every command uses: `--config FILE`, or the default
    /// `$XDG_CONFIG_HOME/motion/host.json` (``HostConfiguration/empty`` when that does not exist).
    /// - Parameter configPath: The file given with `--config`, or `nil`.
    /// - Throws: ``MotionHostError`` `.registryUnavailable` naming a missing or invalid file.
    static func configuration(at configPath: String?) throws(MotionHostError) -> HostConfiguration {
        do {
            if let configPath {
                guard FileManager.default.fileExists(atPath: configPath) else {
                    throw MotionHostError(.registryUnavailable, file: configPath, "--config: no such file")
                }
                return try HostConfiguration.load(contentsOf: URL(fileURLWithPath: configPath))
            }
            return try HostConfiguration.loadDefault()
        } catch let error as MotionHostError {
            throw error
        } catch {
            throw MotionHostError(.registryUnavailable, "\(error)", underlying: error)
        }
    }

    /// The loader every command uses: the configuration's library folders and pins, then this executable's
    /// folder (where `swift build` puts the sample plugins).
    static func loader(_ configuration: HostConfiguration) -> LibraryLoader {
        LibraryLoader(configuration: configuration, extraLibraryDirectories: LibraryLoader.executableDirectory().map { [$0] } ?? [])
    }
}

/// Builds the performer registry of a run: the plugin host over the discovered manifests. Each invalid
/// manifest is reported on standard error as one warning line; the others load.
/// - Parameters:
///   - pluginPaths: Folders given with `--plugin-path`, searched first, in order.
///   - configPath: A host configuration file given with `--config`, or `nil` for the default.
///   - isolate: `--isolate` values: plugin ids, or `all`.
///   - pluginTimeout: Seconds an isolated plugin's sandbox has per request (`--plugin-timeout`), `nil` for no limit.
///   - commandPath: The command, for a usage error.
/// - Returns: The registry the scheduler resolves plan types with.
/// - Throws: ``MotionHostError`` `.registryUnavailable` (see ``PluginEnvironment``).
func makeRegistry(
    pluginPaths: [String], configPath: String?, isolate: [String] = [], pluginTimeout: Double? = 10, commandPath: [String] = []
) throws -> any PerformerRegistry {
    let environment = try PluginEnvironment(pluginPaths: pluginPaths, configPath: configPath)
    let isolated = try isolatedPluginIDs(isolate, catalog: environment.catalog, commandPath: commandPath)
    let contentProblems: Set<ManifestError.Code> = [
        .missingField, .wrongType, .invalidValue, .unknownField, .duplicate, .unsupportedVersion,
    ]
    for problem in environment.catalog.problems {
        // Say why the file was read as a manifest at all (a scene beside the manifests is not).
        let why = contentProblems.contains(problem.code) ? " (read as a plugin manifest: it has a manifestVersion key)" : ""
        CommandLineTool.writeStandardError("warning: \(problem)\(why)\n")
    }
    let host = PluginHost(catalog: environment.catalog, loader: PluginEnvironment.loader(environment.configuration.isolating(isolated)))
    host.pluginTimeout = pluginTimeout
    return host
}

/// The plugin ids of `--isolate` options (`all` is `"*"`), each checked against the discovered manifests.
/// - Throws: ``UsageError`` for an id no manifest on the search path has, with the nearest one suggested.
func isolatedPluginIDs(_ values: [String], catalog: PluginCatalog, commandPath: [String] = []) throws -> [String] {
    let known = catalog.plugins.map(\.id)
    return try values.map { value in
        if value == "all" { return "*" }
        guard known.contains(value) else {
            throw UsageError(
                message:
                    "The value '\(value)' is invalid for '--isolate <plugin-id>': no plugin of that id is on the plugin search path\(JSONText.suggestion(for: value, among: known)); give a plugin id (plugins list shows them) or all",
                commandPath: commandPath)
        }
        return value
    }
}

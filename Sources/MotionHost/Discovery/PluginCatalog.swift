import Dispatch
import FoundationEssentials
import MotionCore
import MotionFiles

/// Every plugin found on a search path: the valid, enabled manifests, the problems met, and which plugin
/// performs each plan type. Built from manifests alone; no library is opened.
///
/// Rules:
/// - Every `*.json` file directly in a search folder (hidden files skipped) that is a regular file (after
///   symbolic links) is read; one whose top level is an object without `manifestVersion` is not a manifest
///   (a scene beside the manifests, say) and is listed in ``notManifests``, not reported; an invalid manifest
///   is reported in ``problems`` and never stops the others.
/// - A manifest names code to run, so it is trusted as a library is (``PathTrust``): the file and every
///   folder from it up to `/` must be owned by the current user or root and not writable by group or others
///   (a sticky folder owned by root, such as `/tmp`, excepted). An untrusted manifest is a
///   ``ManifestError/Code/untrusted`` problem and declares nothing.
/// - Two manifests with the same plugin id: the one the configuration picks
///   (``HostConfiguration/pluginManifests``) or else the one in the earlier folder is used; the other is
///   listed in ``shadowed``.
/// - A plugin whose id is in ``HostConfiguration/disabledPlugins`` is listed in ``disabled`` and
///   declares nothing (an invalid manifest of a disabled plugin is not reported).
/// - Two plugins declaring one plan type: a ``ManifestError/Code/conflict`` problem naming both files,
///   and the plan type is unavailable, unless ``HostConfiguration/planTypeOwners`` names one of them.
///
/// Thread rule: a value type; safe to use from any thread.
public struct PluginCatalog: Sendable {
    /// Where a plan type is performed: the plugin, its performer class and the plan's declaration.
    public typealias Entry = (plugin: PluginManifest, performer: PerformerManifest, plan: PlanManifest)

    /// A manifest ignored because another one with the same plugin id is used: the one in an earlier
    /// folder, or the one the host configuration picks.
    public struct Shadowing: Sendable, Hashable {
        /// The plugin id.
        public let pluginID: String
        /// The manifest used.
        public let used: URL
        /// The manifest ignored.
        public let ignored: URL
        /// Whether the host configuration's ``HostConfiguration/pluginManifests`` chose `used`.
        public let isConfigured: Bool
    }

    /// The search path that was searched.
    public let searchPath: PluginSearchPath
    /// The configuration that applied.
    public let configuration: HostConfiguration
    /// The valid, enabled plugins, in search order (folder order, then file name).
    public let plugins: [PluginManifest]
    /// Valid plugins that the configuration disables.
    public let disabled: [PluginManifest]
    /// Manifests ignored because an earlier folder holds the same plugin id.
    public let shadowed: [Shadowing]
    /// `*.json` files on the search path that are not manifests: their top level is an object without
    /// `manifestVersion`, the key that marks a manifest.
    public let notManifests: [URL]
    /// Every problem: invalid manifests (one each, with path and JSON path), unreadable explicit
    /// folders, plan-type conflicts and configuration owners that do not apply.
    public let problems: [ManifestError]

    private let available: [String: Location]
    private let unavailable: [String: ManifestError]

    /// Where a plan type's declaration sits in ``plugins``.
    struct Location: Sendable {
        var plugin: Int
        var performer: Int
        var plan: Int
    }

    /// The plan types that can be performed, sorted.
    public var planTypes: [String] { available.keys.sorted() }

    /// The plugin, performer class and plan declaration for a plan type.
    /// - Parameter planType: A plan type name, e.g. `"Tween"`.
    /// - Returns: `nil` when the plan type is unavailable (see ``unavailability(ofPlanType:)``).
    public func entry(forPlanType planType: String) -> Entry? {
        guard let l = available[planType] else { return nil }
        let plugin = plugins[l.plugin]
        let performer = plugin.performers[l.performer]
        return (plugin, performer, performer.plans[l.plan])
    }

    /// Why a plan type cannot be performed.
    /// - Parameter planType: A plan type name.
    /// - Returns: `nil` when it is available; otherwise a conflict (naming both manifests), a disabled
    ///   plugin, an owner the configuration names that does not declare it, or an unknown plan type
    ///   (with the closest known one).
    public func unavailability(ofPlanType planType: String) -> ManifestError? {
        if available[planType] != nil { return nil }
        if let reason = unavailable[planType] { return reason }
        if let invalid = invalidManifest(declaring: planType) {
            return ManifestError(
                code: .unknownPlanType, file: invalid.file, jsonPath: nil,
                message:
                    "plan type \(JSONText.quoted(planType)) is declared only by \(invalid.file?.relativePath ?? "a manifest"), which is invalid (\(invalid.jsonPath.map { "\($0): " } ?? "")\(invalid.message)). To fix, correct the manifest"
            )
        }
        let known = planTypes
        let list = known.isEmpty ? "none (no valid manifest was found)" : known.joined(separator: ", ")
        return ManifestError(
            code: .unknownPlanType, file: nil, jsonPath: nil,
            message:
                "no manifest on the plugin search path declares plan type \(JSONText.quoted(planType))\(JSONText.suggestion(for: planType, among: known)); known plan types: \(list). To fix, install the plugin or add its folder with --plugin-path or MOTION_PLUGIN_PATH"
        )
    }

    /// The first invalid manifest (one of ``problems``) whose JSON names `planType` under
    /// `performers[].plans[].type`, read leniently, so an error can point at it rather than say that no
    /// manifest declares the plan type.
    private func invalidManifest(declaring planType: String) -> ManifestError? {
        for problem in problems where problem.code != .conflict && problem.code != .duplicate {
            guard let file = problem.file,
                let bytes = try? RegularFile.read(atPath: file.path, limit: FileSizeLimit.manifest, what: "the manifest"),
                case .object(let root)? = try? JSONParser.parse(bytes), case .array(let performers)? = root["performers"]
            else { continue }
            let types = performers.flatMap { ($0.object?["plans"]?.array ?? []).compactMap { $0.object?["type"]?.string } }
            if types.contains(planType) { return problem }
        }
        return nil
    }

    /// The enabled plugin with this id.
    public func plugin(id: String) -> PluginManifest? {
        plugins.first { $0.id == id }
    }

    /// Finds every manifest on a search path. Never throws: problems are collected in ``problems``.
    /// - Parameters:
    ///   - searchPath: The folders to search, in order.
    ///   - configuration: Disabled plugins and plan-type owners.
    ///   - cache: A discovery cache to reuse manifests whose file (path, size, modification and change
    ///     time, inode) has not changed since it was written; `nil` reads every manifest.
    /// - Returns: The catalog.
    public static func discover(
        searchPath: PluginSearchPath, configuration: HostConfiguration = .empty, cache: DiscoveryCache? = nil
    ) -> PluginCatalog {
        var problems: [ManifestError] = []
        var plugins: [PluginManifest] = []
        var disabled: [PluginManifest] = []
        var shadowed: [Shadowing] = []
        var notManifests: [URL] = []
        var byID: [String: URL] = [:]
        let session = cache?.open()

        // 1. List the folders in search order (cheap: readdir and stat), keeping the manifests that may be
        //    trusted (their own status, and each folder up to `/` once per discovery).
        var files: [(path: String, url: URL, status: FileStatus)] = []
        var folderProblems: [(beforeFile: Int, error: ManifestError)] = []
        var trustedFolders: Set<String> = []
        for entry in searchPath.entries {
            let folder = entry.url.path
            let entries: [(name: String, status: FileStatus?, isSymbolicLink: Bool)]
            do {
                entries = try system_listDirectory(folder, suffix: ".json")
            } catch {
                if entry.origin == .explicit {
                    folderProblems.append(
                        (
                            files.count,
                            ManifestError(
                                code: .unreadable, file: entry.url, jsonPath: nil,
                                message: "cannot search this plugin folder: \(error). To fix, check the path given")
                        ))
                }
                continue
            }
            let realFolder = (try? system_realpath(folder)) ?? folder
            for (name, status, isSymbolicLink) in entries.sorted(by: { $0.name < $1.name }) {
                guard let status, status.isRegularFile else { continue }
                let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
                // Relative to the folder's URL, so messages show a folder given as "manifests" as
                // "manifests/tween.json".
                let url = entry.url.appendingPathComponent(name, isDirectory: false)
                // A symbolic link is judged where it leads; any other entry is in the (resolved) folder.
                let trustedPath =
                    isSymbolicLink
                    ? (try? system_realpath(path)) ?? path
                    : realFolder.hasSuffix("/") ? realFolder + name : realFolder + "/" + name
                // A link is judged twice: where it leads, and where it sits (whoever can write its folder can
                // point it elsewhere between the check and the read).
                let linkPath = realFolder.hasSuffix("/") ? realFolder + name : realFolder + "/" + name
                if let problem = PathTrust.problem(file: status, path: trustedPath, what: "manifest")
                    ?? PathTrust.problemInFolders(of: trustedPath, what: "manifest", checked: &trustedFolders)
                    ?? (isSymbolicLink
                        ? PathTrust.problemInFolders(of: linkPath, what: "manifest", checked: &trustedFolders) : nil)
                {
                    folderProblems.append(
                        (
                            files.count,
                            ManifestError(
                                code: .untrusted, file: url, jsonPath: nil,
                                message: problem.message.replacing("it was not loaded", with: "it was not read"))
                        ))
                    continue
                }
                files.append((path, url, status))
            }
        }

        // 2. Read every manifest (from the cache when its file is unchanged), in parallel: each file is
        //    independent, and reading JSON is most of the cost of a cold discovery.
        let outcomes = OutcomeBuffer(count: files.count)
        let fileList = files
        let work: @Sendable (Int) -> Void = { (i: Int) in
            let file = fileList[i]
            if let cached = session?.cachedManifest(path: file.path, status: file.status, url: file.url) {
                outcomes.set(i, .cached(cached))
            } else {
                outcomes.set(i, ManifestOutcome.read(file.url, path: file.path))
            }
        }
        let count = fileList.count
        if count >= 32 && ProcessInfo.processInfo.activeProcessorCount > 1 {
            let chunks = min(count, ProcessInfo.processInfo.activeProcessorCount * 4)
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                var i = chunk * count / chunks
                let end = (chunk + 1) * count / chunks
                while i < end {
                    work(i)
                    i += 1
                }
            }
        } else {
            for i in files.indices { work(i) }
        }

        // 3. Assemble in search order. A plugin id the configuration gives a manifest for takes that one.
        let chosen: [String: String] = configuration.pluginManifests.mapValues { (try? system_realpath($0.path)) ?? $0.path }
        var nextFolderProblem = 0
        for (i, file) in files.enumerated() {
            while nextFolderProblem < folderProblems.count && folderProblems[nextFolderProblem].beforeFile <= i {
                problems.append(folderProblems[nextFolderProblem].error)
                nextFolderProblem += 1
            }
            let manifest: PluginManifest
            switch outcomes.take(i) {
            case .cached(let cached):
                session?.keep(path: file.path)
                manifest = cached
            case .valid(let read):
                session?.store(read, path: file.path, status: file.status)
                manifest = read
            case .notAManifest:
                notManifests.append(file.url)
                continue
            case .invalid(let error, let rawID):
                if let rawID, configuration.disabledPlugins.contains(rawID) { continue }
                problems.append(error)
                continue
            }
            if let pick = chosen[manifest.id], ((try? system_realpath(file.path)) ?? file.path) != pick {
                shadowed.append(
                    Shadowing(
                        pluginID: manifest.id, used: configuration.pluginManifests[manifest.id]!, ignored: file.url,
                        isConfigured: true))
                continue
            }
            if let used = byID[manifest.id] {
                shadowed.append(
                    Shadowing(pluginID: manifest.id, used: used, ignored: file.url, isConfigured: chosen[manifest.id] != nil))
                continue
            }
            byID[manifest.id] = file.url
            if configuration.disabledPlugins.contains(manifest.id) {
                disabled.append(manifest)
            } else {
                plugins.append(manifest)
            }
        }
        problems += folderProblems[nextFolderProblem...].map(\.error)
        for (id, url) in configuration.pluginManifests.sorted(by: { $0.key < $1.key }) where byID[id] == nil {
            if configuration.disabledPlugins.contains(id) { continue }
            problems.append(
                ManifestError(
                    code: .invalidValue, file: configuration.url, jsonPath: JSONPath.render([.key("pluginManifests"), .key(id)]),
                    message:
                        "expected a valid manifest of plugin \(id) on the plugin search path; \(url.path) is not one (missing, invalid, untrusted, or of another plugin). To fix, correct the path or add its folder to the search path"
                ))
        }
        session?.save()

        let (available, unavailable, planProblems) = resolvePlanTypes(
            plugins: plugins, disabled: disabled, configuration: configuration)
        problems += planProblems
        return PluginCatalog(
            searchPath: searchPath, configuration: configuration, plugins: plugins, disabled: disabled,
            shadowed: shadowed, notManifests: notManifests, problems: problems, available: available,
            unavailable: unavailable)
    }

    /// A catalog of exactly the given manifests (for tests and the validator), with plan types resolved
    /// as discovery resolves them.
    /// - Parameters:
    ///   - plugins: The manifests, in precedence order.
    ///   - configuration: Disabled plugins and plan-type owners.
    public init(plugins: [PluginManifest], configuration: HostConfiguration = .empty) {
        let enabled = plugins.filter { !configuration.disabledPlugins.contains($0.id) }
        let disabled = plugins.filter { configuration.disabledPlugins.contains($0.id) }
        let (available, unavailable, problems) = Self.resolvePlanTypes(plugins: enabled, disabled: disabled, configuration: configuration)
        self.init(
            searchPath: PluginSearchPath(directories: []), configuration: configuration, plugins: enabled, disabled: disabled,
            shadowed: [], notManifests: [], problems: problems, available: available, unavailable: unavailable)
    }

    private init(
        searchPath: PluginSearchPath, configuration: HostConfiguration, plugins: [PluginManifest],
        disabled: [PluginManifest], shadowed: [Shadowing], notManifests: [URL], problems: [ManifestError],
        available: [String: Location], unavailable: [String: ManifestError]
    ) {
        self.searchPath = searchPath
        self.configuration = configuration
        self.plugins = plugins
        self.disabled = disabled
        self.shadowed = shadowed
        self.notManifests = notManifests
        self.problems = problems
        self.available = available
        self.unavailable = unavailable
    }

    /// Decides which plugin performs each plan type.
    private static func resolvePlanTypes(
        plugins: [PluginManifest], disabled: [PluginManifest], configuration: HostConfiguration
    ) -> (available: [String: Location], unavailable: [String: ManifestError], problems: [ManifestError]) {
        // Each plan type's first declarer, and the later ones of the few declared more than once.
        var firstDeclarer: [String: Location] = [:]
        firstDeclarer.reserveCapacity(plugins.count)
        var later: [String: [Location]] = [:]
        var order: [String] = []
        for (p, plugin) in plugins.enumerated() {
            for (f, performer) in plugin.performers.enumerated() {
                for (q, plan) in performer.plans.enumerated() {
                    let location = Location(plugin: p, performer: f, plan: q)
                    if firstDeclarer[plan.type] == nil {
                        firstDeclarer[plan.type] = location
                        order.append(plan.type)
                    } else {
                        later[plan.type, default: []].append(location)
                    }
                }
            }
        }
        // A plan type declared once, with no owner named, is performed by its declarer; the others are decided
        // below, in declaration order.
        var available = firstDeclarer
        var unavailable: [String: ManifestError] = [:]
        var problems: [ManifestError] = []
        func path(_ l: Location) -> String { "$.performers[\(l.performer)].plans[\(l.plan)].type" }

        let owners = configuration.planTypeOwners
        for type in order where (!later.isEmpty && later[type] != nil) || (!owners.isEmpty && owners[type] != nil) {
            let locations = [firstDeclarer[type]!] + (later[type] ?? [])
            available[type] = nil
            if let owner = configuration.planTypeOwners[type] {
                if let chosen = locations.first(where: { plugins[$0.plugin].id == owner }) {
                    available[type] = chosen
                } else {
                    let ids = locations.map { plugins[$0.plugin].id }
                    let error = ManifestError(
                        code: .conflict, file: configuration.url,
                        jsonPath: JSONPath.render([.key("planTypeOwners"), .key(type)]),
                        message:
                            "expected the id of an enabled plugin that declares plan type \(JSONText.quoted(type)) (\(ids.joined(separator: ", "))); found \(JSONText.quoted(owner)). The plan type is unavailable until the owner is fixed"
                    )
                    unavailable[type] = error
                    problems.append(error)
                }
                continue
            }
            if locations.count == 1 {
                available[type] = locations[0]
                continue
            }
            let first = locations[0]
            let others = locations.dropFirst().map {
                "\(plugins[$0.plugin].url.relativePath) (\(plugins[$0.plugin].id), \(path($0)))"
            }
            let error = ManifestError(
                code: .conflict, file: plugins[first.plugin].url, jsonPath: path(first),
                message:
                    "plan type \(JSONText.quoted(type)) is declared by this manifest (\(plugins[first.plugin].id)) and by \(others.joined(separator: " and ")); it is unavailable until one is removed or disabled, or the host configuration's planTypeOwners names its owner"
            )
            unavailable[type] = error
            problems.append(error)
        }
        for plugin in disabled {
            for type in plugin.planTypes where available[type] == nil && unavailable[type] == nil {
                unavailable[type] = ManifestError(
                    code: .disabled, file: plugin.url, jsonPath: nil,
                    message:
                        "plan type \(JSONText.quoted(type)) is declared by plugin \(plugin.id), which the host configuration disables\(configuration.url.map { " (\($0.relativePath))" } ?? ""). To use it, remove the id from disabledPlugins"
                )
            }
        }
        return (available, unavailable, problems)
    }
}

/// A manifest file read: valid, or invalid with the plugin id it claims (if it got that far).
enum ManifestOutcome: Sendable {
    case cached(PluginManifest)
    case valid(PluginManifest)
    case invalid(ManifestError, rawID: String?)
    /// A JSON object without `manifestVersion`: another kind of file (a scene, say), not a manifest.
    case notAManifest

    /// Reads the manifest at `path` (the file listed and trust-checked), named `url` in the result.
    static func read(_ url: URL, path: String) -> ManifestOutcome {
        let bytes: [UInt8]
        do {
            bytes = try ManifestError.readDocument(atPath: path, url: url, limit: FileSizeLimit.manifest, what: "the manifest")
        } catch {
            return .invalid(error, rawID: nil)
        }
        do {
            return .valid(try PluginManifest.decode(bytes, url: url))
        } catch {
            if error.code == .missingField && error.jsonPath == "$.manifestVersion" { return .notAManifest }
            let rawID = (try? JSONParser.parse(bytes))?.object?["id"]?.string
            return .invalid(error, rawID: rawID)
        }
    }
}

/// One slot per manifest file, written once by the thread that reads that file, read after all have
/// finished.
final class OutcomeBuffer: @unchecked Sendable {
    // @unchecked: each slot is written by exactly one iteration of concurrentPerform and read only after
    // concurrentPerform has returned (which orders the writes before the reads).
    private let slots: UnsafeMutableBufferPointer<ManifestOutcome?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    func set(_ i: Int, _ outcome: ManifestOutcome) { slots[i] = outcome }

    func take(_ i: Int) -> ManifestOutcome {
        let outcome = slots[i]!
        slots[i] = nil
        return outcome
    }
}

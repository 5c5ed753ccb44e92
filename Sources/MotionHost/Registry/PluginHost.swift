import CMotionABI
import FoundationEssentials
import MotionCore

/// The plugin host as a ``PerformerRegistry``: plan types come from the manifests of a
/// ``PluginCatalog``; a plugin's library is checked and loaded (``LibraryLoader``) the first time a
/// performer of one of its classes is needed, once per process, and its performers are proxied to
/// MotionCore (entry plugins through `motion_plugin_v1`, declarative ones through libffi).
///
/// Every plan is validated against its manifest (``PlanManifest/validate(_:)``, defaults filled in)
/// before any plugin code sees it; a failing plan fails the commit and never reaches the plugin.
///
/// Thread rule: use on the scheduler's thread (it is the scheduler's registry).
public final class PluginHost: PerformerRegistry {
    /// The manifests this host performs.
    public let catalog: PluginCatalog
    /// Checks and opens libraries.
    public let loader: LibraryLoader
    var classes: [ClassKey: PerformerClass] = [:]
    var loaded: [String: LoadedPlugin] = [:]
    /// The manifest each loaded plugin runs with (the catalog's, or the one a reload read).
    var runningManifests: [String: PluginManifest] = [:]
    /// The SHA-256 of each in-process plugin's running library, once a reload has hashed it (so the next reload
    /// does not hash the running copy again).
    var runningDigests: [String: String] = [:]
    /// Targets whose entry performers are updated with `update` alone, never `update_many` (for
    /// `plugins validate`, which compares the two).
    var unbatchedTargets: Set<TargetID> = []
    /// Whether ``load(_:)`` refuses a plugin whose manifest's capabilities disagree with the extensions its
    /// library offers (``EntryPlugin/capabilityMismatches(with:)``), as a run does; `plugins validate` turns it
    /// off to report them as a check of its own.
    var refusesCapabilityMismatches = true

    struct ClassKey: Hashable {
        let pluginID: String
        let className: String
    }

    enum LoadedPlugin {
        case library(LoadedLibrary, entry: EntryPlugin?)
        case isolated(IsolatedPlugin)
        case failed(PluginError)
    }

    /// Seconds an isolated plugin's sandbox has to answer any one request (the CLI's `--plugin-timeout`), or `nil`
    /// for no limit; a sandbox that misses it is killed and its failure reported (``takeFailures(restartingIn:)``).
    public var pluginTimeout: Double? = 10

    /// Failures of isolated plugins not yet taken by ``takeFailures(restartingIn:)``.
    var failures: [PluginFailure] = []
    /// Failures taken so far.
    private var takenFailures: [PluginFailure] = []
    /// Every sandbox running (or failed) for this host: the current one of each isolated plugin, and those a restart
    /// or reload replaced that still have performers (a performer R43 could not re-create keeps its old one).
    var isolatedPlugins: [IsolatedPlugin] = []
    /// Replaced sandboxes, ended once none of their performers is left.
    var retiredPlugins: [IsolatedPlugin] = []
    /// What a sandbox group's restart did for its members other than the one whose failure started it, until their
    /// own failures are taken (``takeFailures(restartingIn:)``).
    var groupRestartOutcomes: [String: GroupRestartOutcome] = [:]
    enum GroupRestartOutcome {
        case restarted(plans: Int)
        case gaveUp(String)
    }
    /// Failures of queued work done before a reload or restart replaced performers (``takePendingWorkFailures()``).
    var pendingWorkFailures: [CommitError] = []

    /// The failures of isolated plugins found since the last call (each once), oldest first, after looking for
    /// sandboxes that died between calls. A run writes each as an `error` line; the host has already ended the
    /// performers' tokens, and later plans of the plugin's types fail with ``PluginError/Code/sandboxFailed``.
    ///
    /// With a scheduler, a plugin configured with `"onCrash": "restart"` (and restarts left) is restarted here: a
    /// new sandbox loads the plugin again and the plugin's performers are switched to it with
    /// ``Scheduler/recreatePerformers(of:)`` (R43: created again, given their plans again, named plans by name,
    /// target values kept), which needs ``Scheduler/recordsPlansForRecreation`` (see ``keepsPlansForRestarts``).
    /// The failure then says ``PluginFailure/isRestarted``. A run calls this after every commit and every frame;
    /// without a scheduler a due restart waits for the next call with one.
    /// - Parameter scheduler: The scheduler whose performers this host makes, between frames on its thread, or `nil`.
    /// - Returns: The new failures.
    public func takeFailures(restartingIn scheduler: Scheduler? = nil) -> [PluginFailure] {
        for plugin in isolatedPlugins { plugin.checkForFailure() }
        var taken: [PluginFailure] = []
        while !failures.isEmpty {
            let failure = failures.removeFirst()
            taken.append(scheduler.map { restartIfDue(failure, in: $0) } ?? failure)
        }
        endRetiredSandboxes()
        takenFailures += taken
        return taken
    }

    /// Every failure of an isolated plugin in this host's life, oldest first (for a run's summary).
    public var allFailures: [PluginFailure] { takenFailures + failures }

    /// Whether the configuration restarts an isolated plugin whose sandbox failed (`"onCrash": "restart"` with
    /// `maxRestarts` above 0): then a scheduler must keep its performers' plans
    /// (``Scheduler/recordsPlansForRecreation``, before its first commit) for the restart to give them again.
    public var keepsPlansForRestarts: Bool {
        loader.configuration.plugins.values.contains { $0.isIsolated && $0.onCrash == .restart && $0.maxRestarts > 0 }
    }

    /// The isolation the configuration gives a plugin (``HostConfiguration/isolation(of:)``).
    public func isolation(of pluginID: String) -> PluginIsolation { loader.configuration.isolation(of: pluginID) }

    /// Where the plugins' log lines from this host's calls go (`nil`: the process's default sink).
    public let logSink: PluginLog.Sink?

    /// A host over a catalog.
    /// - Parameters:
    ///   - catalog: The discovered manifests.
    ///   - loader: How libraries are found, checked and opened.
    ///   - logSink: Where the lines plugins log (`motion_host_v1.log`) while this host calls them go;
    ///     `nil` sends them to the process's default sink (``PluginLog/setSink(_:)``, else standard error).
    ///     Lines a plugin logs on threads of its own go to the default sink (see ``PluginLog``).
    public init(catalog: PluginCatalog, loader: LibraryLoader, logSink: PluginLog.Sink? = nil) {
        self.catalog = catalog
        self.loader = loader
        self.logSink = logSink
        self.logRoute = PluginLogRoute(sink: logSink)
    }

    /// The route of this host's calls into declarative plugins.
    private let logRoute: PluginLogRoute

    public var planTypes: [String] { catalog.planTypes }

    /// The ids of the plugins whose libraries are loaded, sorted.
    public var loadedPluginIDs: [String] {
        loaded.compactMap { id, state in
            switch state {
            case .library, .isolated: id
            case .failed: nil
            }
        }.sorted()
    }

    /// The performer class for a plan type, from its manifest; no library is loaded here.
    /// - Throws: ``CommitError`` `.unknownPlanType` when no manifest declares the plan type (naming the
    ///   nearest known one), `.performerUnavailable` when it is contested or its plugin disabled (the
    ///   catalog's ``ManifestError`` as the cause).
    public func performerClass(forPlanType type: String) throws -> PerformerClass? {
        guard let entry = catalog.entry(forPlanType: type) else {
            guard let problem = catalog.unavailability(ofPlanType: type) else { return nil }
            let code: CommitError.Code = problem.code == .unknownPlanType ? .unknownPlanType : .performerUnavailable
            throw CommitError(code: code, message: problem.code == .unknownPlanType ? problem.message : problem.description, underlying: problem)
        }
        let key = ClassKey(pluginID: entry.plugin.id, className: entry.performer.className)
        if let existing = classes[key] { return existing }
        let declaration = ClassDeclaration(manifest: entry.plugin, performer: entry.performer)
        let performerClass = PerformerClass(
            name: entry.performer.className, origin: entry.plugin.url.relativePath,
            // Validation, defaults and the property check in one pass over the plan's fields.
            preparePlanOnTarget: { plan, target in
                guard let preparation = declaration.preparation(ofType: plan.type) else { return plan }
                return try preparation.prepare(plan, on: target)
            },
            make: { [weak self] context in
                guard let self else {
                    throw PluginError(code: .loadFailed, message: "the plugin host is gone", for: declaration.manifest)
                }
                return try self.makePerformer(manifest: declaration.manifest, performer: declaration.performer, context: context)
            })
        classes[key] = performerClass
        declarations[key] = declaration
        return performerClass
    }

    /// What a performer class's closures read of its manifest: replaced when a reload brings a new manifest.
    final class ClassDeclaration {
        private(set) var manifest: PluginManifest
        private(set) var performer: PerformerManifest
        private(set) var plans: [String: PlanPreparation] = [:]
        /// The class's plan types in manifest order (the first of each type), for ``preparation(ofType:)``.
        @exclusivity(unchecked) private var planList: [PlanPreparation] = []

        init(manifest: PluginManifest, performer: PerformerManifest) {
            self.manifest = manifest
            self.performer = performer
            update(manifest: manifest, performer: performer)
        }

        func update(manifest: PluginManifest, performer: PerformerManifest) {
            self.manifest = manifest
            self.performer = performer
            planList = []
            plans = [:]
            for plan in performer.plans where plans[plan.type] == nil {
                let preparation = PlanPreparation(plan)
                plans[plan.type] = preparation
                planList.append(preparation)
            }
        }

        /// How plans of type `type` are checked: a class has a handful of plan types, so a scan comparing equal
        /// strings (two equal small strings compare in one step) is cheaper than hashing the name.
        func preparation(ofType type: String) -> PlanPreparation? {
            if planList.count <= 8 {
                for i in planList.indices where planList[i].type == type { return planList[i] }
                return nil
            }
            return plans[type]
        }
    }

    /// One plan type's checks at commit, made once per manifest read: the plan validated against its declaration
    /// with defaults filled in (``PlanManifest/validate(_:)``), then each field of type `property` checked against
    /// the target, in one pass over the plan's fields.
    final class PlanPreparation {
        let type: String
        let manifest: PlanManifest
        /// The names of the declaration's fields of type `property`, in manifest order.
        private let propertyFields: [String]

        init(_ manifest: PlanManifest) {
            self.type = manifest.type
            self.manifest = manifest
            self.propertyFields = manifest.lookup.propertyFields.map { manifest.fields[$0].name }
        }

        /// The plan checked and completed, for `target`.
        /// - Throws: ``CommitError`` `.invalidPlan` with the validation's message (plan type and field), or naming
        ///   the property the target lacks.
        func prepare(_ plan: Plan, on target: Target) throws(CommitError) -> Plan {
            let prepared: (plan: Plan, property: String?)
            do {
                prepared = try manifest.prepared(plan)
            } catch {
                throw CommitError(code: .invalidPlan, message: error.message, underlying: error)
            }
            if propertyFields.count == 1 {
                if let name = prepared.property, !hasProperty(named: name, target) {
                    try PluginHost.checkProperty(name, field: propertyFields[0], on: target)
                }
            } else {
                for field in propertyFields {
                    if case .string(let name)? = prepared.plan[field] { try PluginHost.checkProperty(name, field: field, on: target) }
                }
            }
            return prepared.plan
        }

        /// The property last found and the scene it was found in (plans of a type usually name the same property):
        /// found again with no hashing of its name. The scene's own name for the id confirms it, so another scene
        /// made where a freed one was is never misread. The host's thread rule makes this safe without a lock.
        @exclusivity(unchecked) private var lastScene: ObjectIdentifier?
        @exclusivity(unchecked) private var lastPropertyName = ""
        @exclusivity(unchecked) private var lastProperty = PropertyID(rawValue: -1)

        /// Whether `target` has a value for the property `name` (``Target/hasProperty(named:)``).
        private func hasProperty(named name: String, _ target: Target) -> Bool {
            let scene = target.scene
            if lastScene == ObjectIdentifier(scene), lastPropertyName == name, scene.propertyName(lastProperty) == name {
                return target[lastProperty] != nil
            }
            guard let id = scene.existingPropertyID(name) else { return false }
            (lastScene, lastPropertyName, lastProperty) = (ObjectIdentifier(scene), name, id)
            return target[id] != nil
        }
    }

    var declarations: [ClassKey: ClassDeclaration] = [:]

    /// For a field of type `property`: checks that it names a property the target has (with the nearest one
    /// suggested), so a typo fails the commit instead of creating a new property.
    static func checkProperty(_ name: String, field: String, on target: Target) throws(CommitError) {
        guard !target.hasProperty(named: name) else { return }
        let known = target.properties.map(\.name)
        throw CommitError(
            code: .invalidPlan,
            message:
                "field \(JSONText.quoted(field)): target \(JSONText.quoted(target.id.name)) has no property \(JSONText.quoted(name))\(JSONText.suggestion(for: name, among: known)); its properties: \(known.isEmpty ? "none" : known.joined(separator: ", ")). To fix, name one of them, or give the target that property in the scene"
        )
    }

    private func makePerformer(manifest: PluginManifest, performer: PerformerManifest, context: PerformerContext) throws -> any Performer {
        if isolation(of: manifest.id).isIsolated {
            let sandbox = try loadIsolated(manifest, performer: performer)
            guard let member = sandbox.member(of: manifest.id) else {
                throw PluginError(code: .loadFailed, message: "the plugin is not loaded in its sandbox group's process", for: manifest)
            }
            return try IsolatedPerformer(
                plugin: sandbox, member: member, className: performer.className, context: context,
                batchesFrames: !unbatchedTargets.contains(context.target.id))
        }
        let (library, entry) = try load(manifest)
        switch performer.interface {
        case .entry:
            guard let entry else {
                throw PluginError(code: .invalidInterface, message: "the manifest declares no entry performer", for: manifest)
            }
            return try EntryPerformer(
                plugin: entry, className: performer.className, context: context,
                batchesFrames: !unbatchedTargets.contains(context.target.id))
        case .functions:
            return try DeclarativePerformer(
                functions: try declaredFunctions(manifest, performer, library), context: context, logRoute: logRoute)
        }
    }

    var declared: [ClassKey: DeclaredFunctions] = [:]

    private func declaredFunctions(_ manifest: PluginManifest, _ performer: PerformerManifest, _ library: LoadedLibrary) throws(PluginError)
        -> DeclaredFunctions
    {
        let key = ClassKey(pluginID: manifest.id, className: performer.className)
        if let existing = declared[key] { return existing }
        let functions = try DeclaredFunctions(manifest: manifest, performer: performer, library: library)
        declared[key] = functions
        return functions
    }

    /// Loads a plugin now rather than at the first commit that needs it: in process, its library's trust checks,
    /// `dlopen`, entry and ABI checks (``load(_:)``); isolated, a sandbox started that makes the same checks.
    /// - Parameter manifest: The plugin's manifest (one of the catalog's).
    /// - Throws: ``PluginError``, as the first commit would have met it.
    public func prepare(_ manifest: PluginManifest) throws(PluginError) {
        if isolation(of: manifest.id).isIsolated, let first = manifest.performers.first {
            _ = try loadIsolated(manifest, performer: first)
        } else {
            try load(manifest)
        }
    }

    /// Starts an isolated plugin's sandbox once, which loads its library as ``load(_:)`` would (the same checks,
    /// errors and refusals), and remembers the outcome as ``load(_:)`` does. A plugin of a sandbox group
    /// (``PluginIsolation/group``) starts the group's one process, which loads every plugin of the group the catalog
    /// has and that is not loaded yet, each with its own outcome (a member refused does not keep the others out).
    /// - Throws: ``PluginError``.
    func loadIsolated(_ manifest: PluginManifest, performer: PerformerManifest) throws(PluginError) -> IsolatedPlugin {
        switch loaded[manifest.id] {
        case .isolated(let plugin)?: return plugin
        case .failed(let error)?: throw error
        case .library?, nil: break
        }
        do throws(PluginError) {
            guard performer.interface == .entry, !manifest.performers.contains(where: { $0.interface != .entry }) else {
                throw PluginError(
                    code: .invalidInterface,
                    message:
                        "the configuration isolates this plugin, but isolation runs entry plugins only and its manifest declares C functions (\"interface\": \"functions\"). To fix, run it in process",
                    for: manifest)
            }
            let (plugin, refused) = try startSandbox(sandboxGroupManifests(of: manifest))
            isolatedPlugins.append(plugin)
            for member in plugin.members where refused[member.manifest.id] == nil {
                loaded[member.manifest.id] = .isolated(plugin)
                runningManifests[member.manifest.id] = member.manifest
            }
            for (id, error) in refused { loaded[id] = .failed(error) }
            if let error = refused[manifest.id] { throw error }
            return plugin
        } catch {
            loaded[manifest.id] = .failed(error)
            throw error
        }
    }

    /// `manifest` and the manifests of the other plugins of its sandbox group (``PluginIsolation/group``) that are
    /// not loaded (nor refused) yet and are entry plugins, in the catalog's order; just `[manifest]` without a group.
    func sandboxGroupManifests(of manifest: PluginManifest) -> [PluginManifest] {
        let ids = loader.configuration.sandboxGroup(of: manifest.id, among: catalog.plugins.map(\.id))
        return [manifest]
            + ids.dropFirst().compactMap { id in
                guard loaded[id] == nil, let other = catalog.plugin(id: id), other.performers.allSatisfy({ $0.interface == .entry }) else {
                    return nil
                }
                return other
            }
    }

    /// Starts a sandbox for isolated plugins (one, or a sandbox group's; a first load, a restart or a reload), which
    /// loads their libraries with the trust checks of ``load(_:)``, and checks their capabilities; its failures are
    /// queued for ``takeFailures(restartingIn:)``.
    /// - Parameters:
    ///   - manifests: The plugins, at least one; the first one's settings are the process's (a group's members agree,
    ///     ``HostConfiguration``).
    ///   - restarts: How many of the plugins' sandboxes failed and were restarted before this one.
    /// - Returns: The sandbox, and the plugins of the group it refused (by plugin id), which are not to be used.
    /// - Throws: ``PluginError`` when it refused the first plugin (the sandbox is ended then), or could not start.
    func startSandbox(_ manifests: [PluginManifest], restarts: Int = 0) throws(PluginError) -> (IsolatedPlugin, refused: [String: PluginError]) {
        let (plugin, refused) = try sandboxStart.start(manifests, restarts: restarts)
        plugin.onFailure = { [weak self] failure in self?.failures.append(failure) }
        return (plugin, refused)
    }

    /// Starts a sandbox that must load every one of `manifests` (a restart or a reload of a sandbox group).
    /// - Throws: ``PluginError``: the first refusal; the sandbox is ended then.
    func startWholeSandbox(_ manifests: [PluginManifest], restarts: Int = 0) throws(PluginError) -> IsolatedPlugin {
        let plugin = try sandboxStart.startWhole(manifests, restarts: restarts)
        plugin.onFailure = { [weak self] failure in self?.failures.append(failure) }
        return plugin
    }

    /// What starting a sandbox takes from this host, as a value that another thread may use (a reload's new sandbox
    /// is started off the scheduler's thread, ``prepareReload(from:)``).
    var sandboxStart: SandboxStart {
        SandboxStart(
            loader: loader, timeout: pluginTimeout, logSink: logSink, refusesCapabilityMismatches: refusesCapabilityMismatches)
    }

    /// Loads a plugin's library once: the trust checks and `dlopen` (``LibraryLoader``), then for a
    /// plugin with entry performers `motion_plugin_entry` and the ABI checks (``EntryPlugin``).
    /// A failure is remembered, so a broken plugin is not retried on every commit. The entry is called
    /// once per process and library (``EntryRegistry``): a second host gets the first call's result, and
    /// checks it against its own manifest.
    /// - Throws: ``PluginError``.
    @discardableResult
    public func load(_ manifest: PluginManifest) throws(PluginError) -> (LoadedLibrary, EntryPlugin?) {
        switch loaded[manifest.id] {
        case .library(let library, let entry)?: return (library, entry)
        case .failed(let error)?: throw error
        case .isolated?, nil: break
        }
        do throws(PluginError) {
            let library = try loader.load(manifest)
            let entry = try entryPlugin(of: library, manifest: manifest)
            loaded[manifest.id] = .library(library, entry: entry)
            runningManifests[manifest.id] = manifest
            return (library, entry)
        } catch {
            loaded[manifest.id] = .failed(error)
            throw error
        }
    }

    /// For a plugin with entry performers: `motion_plugin_entry` (once per library, ``EntryRegistry``), the
    /// ABI checks (``EntryPlugin``) and, unless turned off, the capability check; `nil` for a declarative one.
    func entryPlugin(of library: LoadedLibrary, manifest: PluginManifest) throws(PluginError) -> EntryPlugin? {
        guard manifest.performers.contains(where: { $0.interface == .entry }) else { return nil }
        let symbol = try library.requiredSymbol(MOTION_PLUGIN_ENTRY_SYMBOL, for: manifest)
        let cName = EntryPlugin.makeCName(name: manifest.id, manifest: manifest.url)
        let outcome = EntryRegistry.outcome(
            for: library, entry: unsafeBitCast(symbol, to: motion_plugin_entry_fn.self), cName: cName, logSink: logSink)
        let plugin = try EntryPlugin(
            outcome: outcome, name: manifest.id, cName: cName, expectedID: manifest.id, manifest: manifest.url,
            library: manifest.library, logSink: logSink)
        let mismatches = plugin.capabilityMismatches(with: manifest)
        if refusesCapabilityMismatches, !mismatches.isEmpty {
            throw PluginError(
                code: .invalidInterface,
                message:
                    "the manifest does not describe the library, so it is not used: \(mismatches.joined(separator: "; ")). plugins validate checks this too",
                for: manifest)
        }
        return plugin
    }
}

/// How a ``PluginHost`` starts sandboxes (its loader, `--plugin-timeout`, log sink and capability check), as a value
/// that any thread may use: a reload's new sandbox is started on the watcher's thread. The sandbox it returns has no
/// ``IsolatedPlugin/onFailure`` yet; the host sets it on the scheduler's thread when it takes the sandbox.
struct SandboxStart: Sendable {
    let loader: LibraryLoader
    let timeout: Double?
    let logSink: PluginLog.Sink?
    let refusesCapabilityMismatches: Bool

    /// Starts a sandbox for isolated plugins (``PluginHost/startSandbox(_:restarts:)``).
    func start(_ manifests: [PluginManifest], restarts: Int) throws(PluginError) -> (IsolatedPlugin, refused: [String: PluginError]) {
        let plugin = try IsolatedPlugin(
            manifests: manifests, loader: loader, settings: loader.configuration.isolation(of: manifests[0].id), timeout: timeout,
            logSink: logSink, restarts: restarts)
        var refused = plugin.refusals
        for member in plugin.members where refusesCapabilityMismatches && !member.capabilityMismatches.isEmpty {
            refused[member.manifest.id] = PluginError(
                code: .invalidInterface,
                message:
                    "the manifest does not describe the library, so it is not used: \(member.capabilityMismatches.joined(separator: "; ")). plugins validate checks this too",
                for: member.manifest)
        }
        if let error = refused[manifests[0].id], manifests.allSatisfy({ refused[$0.id] != nil }) {
            plugin.shutDown()
            throw error
        }
        return (plugin, refused)
    }

    /// Starts a sandbox that must load every one of `manifests` (``PluginHost/startWholeSandbox(_:restarts:)``).
    func startWhole(_ manifests: [PluginManifest], restarts: Int) throws(PluginError) -> IsolatedPlugin {
        let (plugin, refused) = try start(manifests, restarts: restarts)
        if let error = manifests.lazy.compactMap({ refused[$0.id] }).first {
            plugin.shutDown()
            throw error
        }
        return plugin
    }
}

import FoundationEssentials
import MotionCore

/// A reload that was applied: which plugin, where its new code came from, and what was re-created.
public struct PluginReload {
    /// The plugin's id.
    public let pluginID: String
    /// The manifest, as read again.
    public let manifest: URL
    /// The library's canonical path.
    public let libraryPath: String
    /// The SHA-256 (64 lowercase hex) of the library that runs now.
    public let sha256: String
    /// Whether the library was loaded again (`false`: only the manifest changed).
    public let isNewLibrary: Bool
    /// The plugin's performers that were replaced, the plans re-added, and what failed.
    public let recreation: PerformerRecreation
}

extension PluginHost {
    /// The files a loaded plugin's code comes from: its manifest and its library (canonical paths), which a
    /// watcher watches for a reload.
    /// - Parameter id: The plugin's id.
    /// - Returns: Both files, or `nil` when the plugin is not loaded.
    public func codeFiles(ofPlugin id: String) -> (manifest: URL, library: URL)? {
        guard let manifest = runningManifests[id] else { return nil }
        let library: URL
        switch loaded[id] {
        case .library(let loaded, _)?: library = loaded.url
        case .isolated(let plugin)?: library = URL(fileURLWithPath: plugin.library.path, isDirectory: false)
        case .failed?, nil: return nil
        }
        let manifestPath = (try? system_realpath(manifest.url.path)) ?? manifest.url.path
        return (URL(fileURLWithPath: manifestPath), library)
    }

    /// The plugins whose first load failed (their library did not load or pass its checks), sorted: a watcher
    /// watches their files too (``filesToWatch(ofPlugin:)``), so that fixing the file on disk loads them
    /// (``reload(pluginID:in:)``).
    public var failedPluginIDs: [String] {
        loaded.compactMap { id, state in if case .failed = state { id } else { nil } }.sorted()
    }

    /// The files a watcher watches for a plugin's reload: for a loaded plugin its manifest and library
    /// (``codeFiles(ofPlugin:)``); for one whose first load failed, its manifest and its library where it is found,
    /// or, if it is not, every place it is looked for (``LibraryLoader/libraryDirectories(for:)``: a library not
    /// built yet is loaded once it is there).
    /// - Parameter id: The plugin's id.
    /// - Returns: The files; empty when the plugin was never asked for.
    public func filesToWatch(ofPlugin id: String) -> [URL] {
        if let files = codeFiles(ofPlugin: id) { return [files.manifest, files.library] }
        guard case .failed? = loaded[id], let manifest = catalog.plugin(id: id) else { return [] }
        let manifestPath = (try? system_realpath(manifest.url.path)) ?? manifest.url.path
        let libraries =
            (try? loader.resolve(manifest)).map { [$0] }
            ?? loader.libraryDirectories(for: manifest).map { $0.appendingPathComponent(manifest.library, isDirectory: false) }
        return [URL(fileURLWithPath: manifestPath)] + libraries
    }

    /// Whether the file a loaded plugin's library was copied from has been replaced on disk since (another
    /// file is at its path now: a rebuild renamed into place). A watcher that starts after the load asks this,
    /// so a rebuild that landed in between is not missed.
    /// - Parameter id: The plugin's id.
    /// - Returns: `false` when the plugin is not loaded, or its library file is the one it was loaded from.
    public func isLibraryReplacedOnDisk(ofPlugin id: String) -> Bool {
        let file: (path: String, device: UInt64, inode: UInt64)
        switch loaded[id] {
        case .library(let library, _)?: file = (library.resolvedPath, library.key.device, library.key.inode)
        case .isolated(let plugin)?: file = (plugin.library.path, plugin.library.device, plugin.library.inode)
        case .failed?, nil: return false
        }
        guard let status = try? system_stat(file.path) else { return true }
        return status.device != file.device || status.inode != file.inode
    }

    /// The performer classes of a plugin that this host has made so far (a class is made when a plan of one
    /// of its types is first resolved), sorted by class name: what ``Scheduler/recreatePerformers(of:)`` takes to
    /// replace that plugin's performers (R43).
    /// - Parameter id: The plugin's id.
    /// - Returns: The classes; empty when none was made.
    public func performerClasses(ofPlugin id: String) -> [PerformerClass] {
        classes.filter { $0.key.pluginID == id }.sorted { $0.key.className < $1.key.className }.map(\.value)
    }

    /// Reloads a loaded plugin whose manifest or library changed on disk, and replaces its performers
    /// (hot reload, issue 14).
    ///
    /// 1. The manifest is read again; it must decode and keep the plugin's id, performer classes, their
    ///    interfaces and plan types (what the catalog routes by). Its plan declarations (defaults, ranges,
    ///    capabilities) and library may change.
    /// 2. The library is checked and loaded from a new sealed copy (``LibraryLoader/loadNewCopy(of:replacing:)``:
    ///    every trust check and pin of a first load); the same bytes are not loaded again.
    /// 3. A new library's entry is called and checked (ABI, plugin id, capabilities), and the declared
    ///    functions of its declarative classes are looked up.
    /// 4. Only then the plugin's new code replaces the old: the performers of its classes in `scheduler` are
    ///    re-created and given their plans again (``Scheduler/recreatePerformers(of:)``, R43), made by the
    ///    new library; later commits use it too.
    ///
    /// A failure in steps 1–3 changes nothing: the old code keeps running. Old libraries are never unloaded.
    /// Before step 4, the scheduler's pending work is processed (``Scheduler/processPendingWork()``), so that
    /// what the old performers queued from other threads is not lost; its failures wait in
    /// ``takePendingWorkFailures()``.
    ///
    /// An isolated plugin reloads by starting a new sandbox, which makes steps 2 and 3 in its process as a first
    /// load does; its performers are then switched to it (R43) and the old sandbox ended
    /// (``switchSandbox(of:to:manifests:in:)``). A sandbox that cannot be started, or whose checks fail, leaves the old
    /// one running.
    ///
    /// This does every step here. A watcher does steps 1 and 2 (or starts the new sandbox) on its own thread as soon as
    /// the file is complete (``reloadBasis(ofPlugin:)``, ``ReloadBasis/prepare()``, ``ReloadPreparer``), and the frame
    /// boundary only the rest (``reload(_:in:)``).
    /// - Parameters:
    ///   - id: The plugin's id.
    ///   - scheduler: The scheduler whose performers this host makes; call between frames, on its thread.
    /// - Returns: What was done, or `nil` when there was nothing to do (the plugin is not loaded, or neither
    ///   file changed in content).
    /// - Throws: ``PluginError`` naming the manifest and library and the cause (``PluginError/Code/reloadRefused``
    ///   for a manifest that does not read or changes what a reload keeps; the codes of a first load for the
    ///   library and its entry).
    public func reload(pluginID id: String, in scheduler: Scheduler) throws(PluginError) -> PluginReload? {
        if case .failed? = loaded[id] { return try retryFirstLoad(of: id) }
        guard let basis = reloadBasis(ofPlugin: id) else { return nil }
        return try finishReload(basis.prepare(), in: scheduler)
    }

    /// ``reload(pluginID:in:)`` with steps 1 and 2 (or, isolated, the new sandbox) done already, off the scheduler's
    /// thread (``ReloadBasis/prepare()``): what is left is the entry and the switch. When the plugin changed since its
    /// basis was taken (another reload, a restart), the preparation is dropped and the reload done here from the start.
    /// - Parameters:
    ///   - prepared: A preparation from a basis of this host's (``reloadBasis(ofPlugin:)``).
    ///   - scheduler: The scheduler whose performers this host makes; call between frames, on its thread.
    /// - Returns: What was done, or `nil` when there was nothing to do.
    /// - Throws: ``PluginError`` as ``reload(pluginID:in:)`` does; the preparation's own failure.
    public func reload(_ prepared: PreparedReload, in scheduler: Scheduler) throws(PluginError) -> PluginReload? {
        guard let current = reloadBasis(ofPlugin: prepared.basis.pluginID), current.isSame(as: prepared.basis) else {
            prepared.discard()
            return try reload(pluginID: prepared.basis.pluginID, in: scheduler)
        }
        return try finishReload(prepared, in: scheduler)
    }

    /// The identity of the code plugin `id` runs (its library, or its sandbox), or `nil` when it is not loaded: a
    /// reload or a restart changes it (a reload of the manifest alone does not).
    public func runningCode(ofPlugin id: String) -> ObjectIdentifier? {
        switch loaded[id] {
        case .library(let library, _)?: ObjectIdentifier(library)
        case .isolated(let plugin)?: ObjectIdentifier(plugin)
        case .failed?, nil: nil
        }
    }

    /// What a reload of plugin `id` starts from, taken on the scheduler's thread: its running manifest and code, and
    /// what a new sandbox needs. `nil` when the plugin is not loaded (or its first load failed: that reload is done on
    /// the scheduler's thread, ``reload(pluginID:in:)``).
    public func reloadBasis(ofPlugin id: String) -> ReloadBasis? {
        guard let runningManifest = runningManifests[id] else { return nil }
        switch loaded[id] {
        case .library(let running, let entry)?:
            return ReloadBasis(
                pluginID: id, manifest: runningManifest,
                running: .library(running, entry: entry, sha256: runningDigests[id]), loader: loader, sandboxStart: nil)
        case .isolated(let running)?:
            // A sandbox group starts again as a whole: this plugin's new library beside the others' running ones.
            let ids = running.members.map(\.manifest.id).filter { if case .isolated(let p)? = loaded[$0] { p === running } else { false } }
            let manifests = ids.map { runningManifests[$0] ?? running.members[running.member(of: $0)!].manifest }
            let sha256 = running.member(of: id).map { running.members[$0].library.sha256 }
            return ReloadBasis(
                pluginID: id, manifest: runningManifest,
                running: .isolated(running, ids: ids, manifests: manifests, sha256: sha256, hasFailed: running.failure != nil),
                loader: loader, sandboxStart: sandboxStart)
        case .failed?, nil:
            return nil
        }
    }

    /// Steps 3 and 4 of a reload (or an isolated plugin's switch to its new sandbox), on the scheduler's thread.
    private func finishReload(_ prepared: PreparedReload, in scheduler: Scheduler) throws(PluginError) -> PluginReload? {
        let id = prepared.basis.pluginID
        let runningManifest = prepared.basis.manifest
        let stage = try prepared.take()
        switch (prepared.basis.running, stage) {
        case (.isolated(_, let ids, _, let runningSHA256, let hasFailed), .sandbox(let manifest, let manifests, let fresh)):
            fresh.onFailure = { [weak self] failure in self?.failures.append(failure) }
            guard let member = fresh.member(of: id), runningSHA256 != nil else {
                fresh.shutDown()
                return nil
            }
            let library = fresh.members[member].library
            let isNewLibrary = library.sha256 != runningSHA256 || library.sha256.isEmpty
            guard isNewLibrary || manifest != runningManifest || hasFailed else {
                fresh.shutDown()
                return nil
            }
            do throws(CommitError) {
                let recreations = try switchSandbox(
                    of: ids.isEmpty ? [id] : ids, to: fresh, manifests: manifests.isEmpty ? [manifest] : manifests, in: scheduler,
                    endingReplacedInBackground: true)
                return PluginReload(
                    pluginID: id, manifest: manifest.url, libraryPath: library.path, sha256: library.sha256,
                    isNewLibrary: isNewLibrary, recreation: recreations[id] ?? PerformerRecreation())
            } catch {
                throw PluginError(
                    code: .reloadRefused, message: "the plugin was not reloaded: \(error.message)", for: runningManifest, underlying: error)
            }
        case (.library(let running, let runningEntry, _), .library(let manifest, let copy)):
            return try finishLibraryReload(
                id, manifest: manifest, copy: copy, running: running, runningEntry: runningEntry, runningManifest: runningManifest,
                in: scheduler)
        default:
            preconditionFailure("a reload prepared for another kind of plugin")
        }
    }

    /// Steps 3 and 4 of an in-process reload, on the scheduler's thread.
    private func finishLibraryReload(
        _ id: String, manifest: PluginManifest, copy: LibraryCopy, running: LoadedLibrary, runningEntry: EntryPlugin?,
        runningManifest: PluginManifest, in scheduler: Scheduler
    ) throws(PluginError) -> PluginReload? {
        runningDigests[id] = runningDigests[id] ?? (copy.isNew ? nil : copy.sha256)
        guard copy.isNew || manifest != runningManifest else { return nil }
        // Step 3 here: the ABI has motion_plugin_entry called on the scheduler's thread.
        let entry: EntryPlugin?
        if copy.isNew {
            entry = try entryPlugin(of: copy.library, manifest: manifest)
        } else {
            entry = runningEntry
            if let entry, refusesCapabilityMismatches, case let mismatches = entry.capabilityMismatches(with: manifest), !mismatches.isEmpty {
                throw PluginError(
                    code: .invalidInterface,
                    message:
                        "the changed manifest does not describe the library, so it was not taken: \(mismatches.joined(separator: "; ")); the old code keeps running",
                    for: manifest)
            }
        }
        var functions: [ClassKey: DeclaredFunctions] = [:]
        for performer in manifest.performers where performer.interface == .functions {
            let key = ClassKey(pluginID: id, className: performer.className)
            guard declared[key] != nil else { continue }
            functions[key] = try DeclaredFunctions(manifest: manifest, performer: performer, library: copy.library)
        }

        // Work queued for the old performers (emissions and token ends from plugin threads) is done by them first:
        // once replaced, their emitters are dead and a queued emission of theirs would be dropped (R43).
        settlePendingWork(in: scheduler)
        // The switch: from here the plugin's classes make performers from the new code.
        let runningDeclared = declared.filter { $0.key.pluginID == id }
        let runningDigest = runningDigests[id]
        runningDigests[id] = copy.sha256
        loaded[id] = .library(copy.library, entry: entry)
        runningManifests[id] = manifest
        declared.merge(functions) { _, new in new }
        updateDeclarations(of: id, to: manifest)
        do {
            let recreation = try scheduler.recreatePerformers(of: performerClasses(ofPlugin: id))
            return PluginReload(
                pluginID: id, manifest: manifest.url, libraryPath: copy.library.resolvedPath, sha256: copy.sha256,
                isNewLibrary: copy.isNew, recreation: recreation)
        } catch {
            // Called at the wrong moment: nothing was re-created, so the old code stays.
            loaded[id] = .library(running, entry: runningEntry)
            runningDigests[id] = runningDigest
            runningManifests[id] = runningManifest
            declared.merge(runningDeclared) { _, old in old }
            updateDeclarations(of: id, to: runningManifest)
            throw PluginError(
                code: .reloadRefused, message: "the plugin was not reloaded: \(error.message)", for: runningManifest, underlying: error)
        }
    }

    /// ``reload(pluginID:in:)`` for a plugin whose first load failed: its manifest read again (it must keep what a
    /// reload keeps), then the first load again, in process or in a sandbox. It has no performers yet; commits from
    /// now on make them.
    /// - Returns: The reload, with nothing re-created.
    /// - Throws: ``PluginError``: why it still does not load (remembered, as a first load's failure is).
    private func retryFirstLoad(of id: String) throws(PluginError) -> PluginReload? {
        guard let catalogued = catalog.plugin(id: id) else { return nil }
        let manifest = try Self.rereadManifest(catalogued)
        loaded[id] = nil
        updateDeclarations(of: id, to: manifest)
        do throws(PluginError) {
            try prepare(manifest)
        } catch {
            updateDeclarations(of: id, to: catalogued)
            throw error
        }
        let library: (path: String, sha256: String)
        switch loaded[id] {
        case .library(let loaded, _)?: library = (loaded.resolvedPath, loader.sha256(of: loaded, manifest: manifest) ?? "")
        case .isolated(let plugin)?: library = (plugin.library.path, plugin.library.sha256)
        case .failed?, nil: return nil
        }
        return PluginReload(
            pluginID: id, manifest: manifest.url, libraryPath: library.path, sha256: library.sha256, isNewLibrary: true,
            recreation: PerformerRecreation())
    }

    /// Step 1 of a reload: the manifest read again from its file, and checked against the running one.
    /// - Throws: ``PluginError`` ``PluginError/Code/reloadRefused``.
    static func rereadManifest(_ runningManifest: PluginManifest) throws(PluginError) -> PluginManifest {
        let manifest: PluginManifest
        do throws(ManifestError) {
            manifest = try PluginManifest.load(contentsOf: runningManifest.url)
        } catch {
            throw PluginError(
                code: .reloadRefused,
                message:
                    "the changed manifest was not taken: \(error.jsonPath.map { "\($0): " } ?? "")\(error.message); the old code keeps running. To fix, correct the manifest",
                manifest: runningManifest.url, library: runningManifest.library, underlying: error)
        }
        try checkReloadable(manifest, running: runningManifest)
        return manifest
    }

    /// A reload keeps the plugin's id, performer classes, their interfaces and plan types.
    private static func checkReloadable(_ manifest: PluginManifest, running: PluginManifest) throws(PluginError) {
        func shape(_ manifest: PluginManifest) -> [String] {
            // rawValue, not "\(interface)": describing an enum looks up its conformances, slow after a library is loaded.
            manifest.performers.map { $0.className + " (" + $0.interface.rawValue + "): " + $0.plans.map(\.type).sorted().joined(separator: ", ") }
                .sorted()
        }
        if manifest.id != running.id {
            throw PluginError(
                code: .reloadRefused,
                message:
                    "the changed manifest says it is plugin \(JSONText.quoted(manifest.id)), not \(JSONText.quoted(running.id)); the old code keeps running. To fix, keep the id, or restart the host to load another plugin",
                for: running)
        }
        let before = shape(running)
        let after = shape(manifest)
        if before != after {
            throw PluginError(
                code: .reloadRefused,
                message:
                    "the changed manifest changes the plugin's performer classes or plan types (\(before.joined(separator: "; ")) → \(after.joined(separator: "; "))), which a reload keeps; the old code keeps running. To fix, restart the host to take them",
                for: running)
        }
    }
}

/// What a reload of one plugin starts from (``PluginHost/reloadBasis(ofPlugin:)``): the running manifest and code, taken on
/// the scheduler's thread, so that the slow half of the reload can run on another (``prepare()``) while frames go on.
///
/// Thread rule: taken and used by ``PluginHost`` on the scheduler's thread; ``prepare()`` from any thread.
public struct ReloadBasis: @unchecked Sendable {
    // @unchecked: the running plugin's objects are only compared by identity and read for immutable fields off the
    // scheduler's thread; everything else is a value.
    /// The plugin's id.
    public let pluginID: String
    /// The manifest it runs with.
    let manifest: PluginManifest
    enum Running {
        case library(LoadedLibrary, entry: EntryPlugin?, sha256: String?)
        /// `ids` and `manifests`: the plugins of its sandbox (one, or a sandbox group's running members).
        case isolated(IsolatedPlugin, ids: [String], manifests: [PluginManifest], sha256: String?, hasFailed: Bool)
    }
    let running: Running
    let loader: LibraryLoader
    let sandboxStart: SandboxStart?

    /// Whether `other` is a basis of the same running code (no reload or restart came in between).
    func isSame(as other: ReloadBasis) -> Bool {
        guard pluginID == other.pluginID, manifest == other.manifest else { return false }
        switch (running, other.running) {
        case (.library(let a, _, _), .library(let b, _, _)): return a === b
        case (.isolated(let a, let ids, _, _, let failed), .isolated(let b, let otherIDs, _, _, let otherFailed)):
            return a === b && ids == otherIDs && failed == otherFailed
        default: return false
        }
    }

    /// The slow half of a reload, on any thread: the manifest read again and checked (step 1 of
    /// ``PluginHost/reload(pluginID:in:)``), then the library checked and loaded from a new sealed copy (step 2), or,
    /// for an isolated plugin, a new sandbox started (which loads it with every check, its entry and ABI). The entry of
    /// an in-process library (step 3, on the scheduler's thread by the C ABI) and the switch are left to
    /// ``PluginHost/reload(_:in:)``.
    /// - Returns: The preparation; a failure is kept in it and thrown by ``PluginHost/reload(_:in:)``.
    public func prepare() -> PreparedReload {
        do throws(PluginError) {
            let manifest = try PluginHost.rereadManifest(self.manifest)
            switch running {
            case .library(let library, _, let sha256):
                let copy = try loader.loadNewCopy(of: manifest, replacing: library, runningSHA256: sha256)
                return PreparedReload(basis: self, stage: .success(.library(manifest: manifest, copy: copy)))
            case .isolated(_, let ids, let runningManifests, _, _):
                let manifests = ids.isEmpty ? [manifest] : zip(ids, runningManifests).map { $0 == pluginID ? manifest : $1 }
                let fresh = try sandboxStart!.startWhole(manifests, restarts: 0)
                return PreparedReload(basis: self, stage: .success(.sandbox(manifest: manifest, manifests: manifests, fresh: fresh)))
            }
        } catch {
            return PreparedReload(basis: self, stage: .failure(error))
        }
    }
}

/// A reload whose slow half is done (``ReloadBasis/prepare()``), waiting for the scheduler's thread to finish it
/// (``PluginHost/reload(_:in:)``). A new sandbox it holds and nobody takes is ended when it goes.
///
/// Thread rule: made on any thread, handed over once (behind a lock), then used on the scheduler's thread.
public final class PreparedReload: @unchecked Sendable {
    // @unchecked: handed from the preparing thread to the scheduler's through a lock, and used by one at a time.
    /// What it was prepared from.
    public let basis: ReloadBasis
    enum Stage {
        case library(manifest: PluginManifest, copy: LibraryCopy)
        case sandbox(manifest: PluginManifest, manifests: [PluginManifest], fresh: IsolatedPlugin)
    }
    private var stage: Result<Stage, PluginError>?

    init(basis: ReloadBasis, stage: Result<Stage, PluginError>) {
        self.basis = basis
        self.stage = stage
    }

    deinit { discard() }

    /// The prepared stage, once.
    func take() throws(PluginError) -> Stage {
        guard let stage else { preconditionFailure("a prepared reload was taken twice") }
        self.stage = nil
        return try stage.get()
    }

    /// The prepared stage, left in place (for tests).
    func peekStage() throws(PluginError) -> Stage {
        guard let stage else { preconditionFailure("a prepared reload was taken already") }
        return try stage.get()
    }

    /// Drops what was prepared: a new sandbox is ended (a library loaded stays loaded, as every library does).
    public func discard() {
        if case .success(.sandbox(_, _, let fresh))? = stage { fresh.shutDown() }
        stage = nil
    }
}

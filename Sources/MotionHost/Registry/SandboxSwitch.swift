import FoundationEssentials
import MotionCore

/// Switching an isolated plugin's performers to a new sandbox: one rule for a restart after a crash
/// (`"onCrash": "restart"`) and for a hot reload of a rebuilt plugin (issue 14). Both start a new
/// ``IsolatedPlugin`` (a new `motion-sandbox` process, the library's trust checks and sealed copy, entry and ABI
/// checks), make it the plugin's, and replace the plugin's performers with ``Scheduler/recreatePerformers(of:)``
/// (R43): the new ones are created in the new sandbox and given the old ones' plans again (named plans by name),
/// target values kept. Then the old sandbox is ended (killed, reaped, its shared memory unmapped) once none of its
/// performers is left: a performer R43 could not re-create keeps its old one, and its sandbox with it.
extension PluginHost {
    /// The sandbox an isolated plugin runs in now (for tests).
    func currentSandbox(ofPlugin id: String) -> IsolatedPlugin? {
        if case .isolated(let plugin)? = loaded[id] { return plugin }
        return nil
    }

    /// Restarts the failed plugin of `failure` when its configuration asks for it and it has restarts left.
    /// - Returns: The failure, marked restarted (with the plans given again), or with why no new sandbox took over.
    func restartIfDue(_ failure: PluginFailure, in scheduler: Scheduler) -> PluginFailure {
        guard case .isolated(let failed)? = loaded[failure.pluginID], failed.failure != nil, failed.isRestartDue,
            let manifest = runningManifests[failure.pluginID]
        else { return failure }
        let recreation: PerformerRecreation
        do throws(PluginError) {
            let fresh = try startSandbox(manifest, restarts: failed.restarts + 1)
            do throws(CommitError) {
                recreation = try switchSandbox(of: failure.pluginID, to: fresh, manifest: manifest, in: scheduler)
            } catch {
                throw PluginError(code: .sandboxFailed, message: "its performers could not be re-created: \(error.message)", for: manifest)
            }
        } catch {
            failed.hasGivenUpRestarting = true
            return failure.with(cause: "\(failure.cause); no new sandbox took over (\(error.message))")
        }
        return failure.with(restartedReadding: recreation.readdedPlanCount)
    }

    /// Makes `fresh` the plugin's sandbox and re-creates the plugin's performers in it (R43), between frames. When
    /// R43 refuses (called at the wrong moment, or plans not kept), nothing changes and `fresh` is ended.
    /// - Returns: What R43 re-created.
    /// - Throws: ``CommitError`` from ``Scheduler/recreatePerformers(of:)``.
    func switchSandbox(of id: String, to fresh: IsolatedPlugin, manifest: PluginManifest, in scheduler: Scheduler) throws(CommitError)
        -> PerformerRecreation
    {
        settlePendingWork(in: scheduler)
        let running = loaded[id]
        let runningManifest = runningManifests[id]
        loaded[id] = .isolated(fresh)
        runningManifests[id] = manifest
        updateDeclarations(of: id, to: manifest)
        isolatedPlugins.append(fresh)
        let replaced: IsolatedPlugin? = if case .isolated(let old)? = running { old } else { nil }
        replaced?.isBeingReplaced = true
        do {
            let recreation = try scheduler.recreatePerformers(of: performerClasses(ofPlugin: id))
            if let replaced { retiredPlugins.append(replaced) }
            endRetiredSandboxes()
            return recreation
        } catch {
            replaced?.isBeingReplaced = false
            loaded[id] = running
            runningManifests[id] = runningManifest
            if let runningManifest { updateDeclarations(of: id, to: runningManifest) }
            isolatedPlugins.removeAll { $0 === fresh }
            fresh.shutDown()
            throw error
        }
    }

    /// Processes the scheduler's pending work (``Scheduler/processPendingWork()``: transactions emitted and tokens
    /// ended on other threads) before performers are replaced: after R43 a replaced performer's queued emission is
    /// dropped, so work the old performers queued before a reload or restart would be lost. Its failures are kept for
    /// ``takePendingWorkFailures()``.
    func settlePendingWork(in scheduler: Scheduler) {
        pendingWorkFailures += scheduler.processPendingWork()
    }

    /// The failures of queued work (a transaction emitted on another thread) that a reload or restart performed
    /// before it replaced performers, since the last call; a run reports each as it reports a queued emission that
    /// failed in a frame.
    /// - Returns: The failures, oldest first.
    public func takePendingWorkFailures() -> [CommitError] {
        defer { pendingWorkFailures.removeAll() }
        return pendingWorkFailures
    }

    /// Points the plugin's performer classes at `manifest` (plan declarations, defaults, ranges).
    func updateDeclarations(of id: String, to manifest: PluginManifest) {
        for (key, declaration) in declarations where key.pluginID == id {
            if let performer = manifest.performers.first(where: { $0.className == key.className }) {
                declaration.update(manifest: manifest, performer: performer)
            }
        }
    }

    /// Ends each replaced sandbox none of whose performers is left, and forgets it.
    func endRetiredSandboxes() {
        let ended = retiredPlugins.filter { !$0.hasLivePerformers }
        guard !ended.isEmpty else { return }
        for plugin in ended { plugin.shutDown() }
        retiredPlugins.removeAll { plugin in ended.contains { $0 === plugin } }
        isolatedPlugins.removeAll { plugin in ended.contains { $0 === plugin } }
    }

    /// ``reload(pluginID:in:)`` for an isolated plugin: the manifest read and checked as in process, then a new
    /// sandbox that loads the library on disk (every trust check, a new sealed copy, the entry and ABI), then the
    /// switch (``switchSandbox(of:to:manifest:in:)``). A new sandbox starts the count of `maxRestarts` again.
    /// - Returns: What was done, or `nil` when the library's bytes and the manifest are those running.
    func reloadIsolated(_ id: String, running: IsolatedPlugin, manifest runningManifest: PluginManifest, in scheduler: Scheduler)
        throws(PluginError) -> PluginReload?
    {
        let manifest = try rereadManifest(runningManifest)
        let fresh = try startSandbox(manifest)
        let isNewLibrary = fresh.library.sha256 != running.library.sha256 || fresh.library.sha256.isEmpty
        guard isNewLibrary || manifest != runningManifest || running.failure != nil else {
            fresh.shutDown()
            return nil
        }
        do throws(CommitError) {
            let recreation = try switchSandbox(of: id, to: fresh, manifest: manifest, in: scheduler)
            return PluginReload(
                pluginID: id, manifest: manifest.url, libraryPath: fresh.library.path, sha256: fresh.library.sha256,
                isNewLibrary: isNewLibrary, recreation: recreation)
        } catch {
            throw PluginError(
                code: .reloadRefused, message: "the plugin was not reloaded: \(error.message)", for: runningManifest, underlying: error)
        }
    }
}

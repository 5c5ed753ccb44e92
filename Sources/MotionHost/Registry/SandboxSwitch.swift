import FoundationEssentials
import MotionCore

/// Switching an isolated plugin's performers to a new sandbox: one rule for a restart after a crash
/// (`"onCrash": "restart"`) and for a hot reload of a rebuilt plugin (issue 14). Both start a new
/// ``IsolatedPlugin`` (a new `motion-sandbox` process, the library's trust checks and sealed copy, entry and ABI
/// checks), make it the plugin's, and replace the plugin's performers with ``Scheduler/recreatePerformers(of:)``
/// (R43): the new ones are created in the new sandbox and given the old ones' plans again (named plans by name),
/// target values kept. Then the old sandbox is ended (killed, reaped, its shared memory unmapped) once none of its
/// performers is left: a performer R43 could not re-create keeps its old one, and its sandbox with it.
///
/// A sandbox group (``PluginIsolation/group``) is switched as a whole: its restart is one new process for all its
/// plugins, each plugin's performers switched to it (one R43 call per plugin); a reload of one of its plugins starts
/// the group's process again with that plugin's new library and the others' running ones, and switches them all.
extension PluginHost {
    /// The sandbox an isolated plugin runs in now (for tests).
    func currentSandbox(ofPlugin id: String) -> IsolatedPlugin? {
        if case .isolated(let plugin)? = loaded[id] { return plugin }
        return nil
    }

    /// Restarts the failed plugin of `failure` when its configuration asks for it and it has restarts left.
    /// - Returns: The failure, marked restarted (with the plans given again), or with why no new sandbox took over.
    func restartIfDue(_ failure: PluginFailure, in scheduler: Scheduler) -> PluginFailure {
        // A sandbox group's restart (done for the failure of the member found first) settled this member too.
        if let outcome = groupRestartOutcomes.removeValue(forKey: failure.pluginID) {
            switch outcome {
            case .restarted(let plans): return failure.with(restartedReadding: plans)
            case .gaveUp(let why): return failure.with(cause: "\(failure.cause); no new sandbox took over (\(why))")
            }
        }
        guard case .isolated(let failed)? = loaded[failure.pluginID], failed.failure != nil, failed.isRestartDue else { return failure }
        let ids = failed.members.map(\.manifest.id).filter { if case .isolated(let p)? = loaded[$0] { p === failed } else { false } }
        let manifests = ids.compactMap { runningManifests[$0] }
        guard manifests.count == ids.count, ids.contains(failure.pluginID) else { return failure }
        var recreations: [String: PerformerRecreation] = [:]
        do throws(PluginError) {
            let fresh = try startWholeSandbox(manifests, restarts: failed.restarts + 1)
            do throws(CommitError) {
                recreations = try switchSandbox(of: ids, to: fresh, manifests: manifests, in: scheduler)
            } catch {
                throw PluginError(
                    code: .sandboxFailed, message: "its performers could not be re-created: \(error.message)",
                    for: runningManifests[failure.pluginID]!)
            }
        } catch {
            failed.hasGivenUpRestarting = true
            for id in ids where id != failure.pluginID { groupRestartOutcomes[id] = .gaveUp(error.message) }
            return failure.with(cause: "\(failure.cause); no new sandbox took over (\(error.message))")
        }
        for id in ids where id != failure.pluginID { groupRestartOutcomes[id] = .restarted(plans: recreations[id]?.readdedPlanCount ?? 0) }
        return failure.with(restartedReadding: recreations[failure.pluginID]?.readdedPlanCount ?? 0)
    }

    /// Makes `fresh` the sandbox of the plugins `ids` (one, or a sandbox group's, with `manifests` in the same order)
    /// and re-creates each plugin's performers in it (R43, one call per plugin, in order), between frames; the replaced
    /// sandbox is ended then, or, with `endingReplacedInBackground` (a reload), on a thread of its own. When R43
    /// refuses (called at the wrong moment, or plans not kept: the same for every plugin, so the first call), nothing
    /// changes and `fresh` is ended.
    /// - Returns: What R43 re-created, by plugin id.
    /// - Throws: ``CommitError`` from ``Scheduler/recreatePerformers(of:)``.
    func switchSandbox(
        of ids: [String], to fresh: IsolatedPlugin, manifests: [PluginManifest], in scheduler: Scheduler, endingReplacedInBackground: Bool = false
    ) throws(CommitError) -> [String: PerformerRecreation] {
        settlePendingWork(in: scheduler)
        let running = ids.map { loaded[$0] }
        let runningManifestsBefore = ids.map { runningManifests[$0] }
        for (id, manifest) in zip(ids, manifests) {
            loaded[id] = .isolated(fresh)
            runningManifests[id] = manifest
            updateDeclarations(of: id, to: manifest)
        }
        isolatedPlugins.append(fresh)
        var replaced: [IsolatedPlugin] = []
        for case .isolated(let old)? in running where !replaced.contains(where: { $0 === old }) { replaced.append(old) }
        for old in replaced { old.isBeingReplaced = true }
        var recreations: [String: PerformerRecreation] = [:]
        do throws(CommitError) {
            for id in ids {
                let classes = performerClasses(ofPlugin: id)
                // R43's calls to the new sandbox go as one request, answered as R43 makes them (SandboxRecreation).
                let member = fresh.member(of: id)
                let isBatched = member.map { fresh.beginRecreation(scheduler.recreationOutline(of: classes), member: $0) } ?? false
                do throws(CommitError) { recreations[id] = try scheduler.recreatePerformers(of: classes) } catch {
                    fresh.abandonRecreation()
                    throw error
                }
                if isBatched, let member { fresh.endRecreation(member: member) }
            }
            retiredPlugins += replaced
            endRetiredSandboxes(inBackground: endingReplacedInBackground)
            return recreations
        } catch {
            for old in replaced { old.isBeingReplaced = false }
            for (index, id) in ids.enumerated() {
                loaded[id] = running[index]
                runningManifests[id] = runningManifestsBefore[index]
                if let before = runningManifestsBefore[index] { updateDeclarations(of: id, to: before) }
            }
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

    /// Points the plugin's performer classes at `manifest` (plan declarations, defaults, ranges). A class whose plan
    /// declarations change is told (``PerformerClass/preparationDidChange()``), so that R43 prepares its plans again;
    /// the others' re-created performers get their plans in the form their commits prepared.
    func updateDeclarations(of id: String, to manifest: PluginManifest) {
        for (key, declaration) in declarations where key.pluginID == id {
            if let performer = manifest.performers.first(where: { $0.className == key.className }) {
                if declaration.performer.plans != performer.plans { classes[key]?.preparationDidChange() }
                declaration.update(manifest: manifest, performer: performer)
            }
        }
    }

    /// Ends each replaced sandbox none of whose performers is left, and forgets it.
    /// - Parameter inBackground: Whether their processes are ended on a thread of their own
    ///   (``IsolatedPlugin/shutDownInBackground()``: a reload's old sandbox), not before this returns.
    func endRetiredSandboxes(inBackground: Bool = false) {
        let ended = retiredPlugins.filter { !$0.hasLivePerformers }
        guard !ended.isEmpty else { return }
        for plugin in ended {
            if inBackground { plugin.shutDownInBackground() } else { plugin.shutDown() }
        }
        retiredPlugins.removeAll { plugin in ended.contains { $0 === plugin } }
        isolatedPlugins.removeAll { plugin in ended.contains { $0 === plugin } }
    }
}

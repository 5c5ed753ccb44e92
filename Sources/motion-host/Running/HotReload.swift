import FoundationEssentials
import MotionCore
import MotionHost

/// `--watch` (`serve`, `run --realtime`): a thread of its own watches the plugins' files and, as soon as a
/// manifest or library is complete on disk, prepares that plugin's reload (``ReloadPreparer``: the manifest read
/// again, a new sealed copy through every trust check, or an isolated plugin's new sandbox started); at the next
/// frame boundary, before the frame's transactions, the reload is finished (``PluginHost/reload(_:in:)``: the entry
/// checked, then the plugin's performers re-created with their plans, R43), so a rebuilt plugin runs from the first
/// frame that begins after its new code is loaded, and frames go on meanwhile. Plugins are watched from the frame
/// after their first load; a library renamed into place before that is noticed then (another file at its path) and
/// reloaded there from the start. A plugin whose first load failed is watched too (its manifest, and its library
/// wherever it is looked for), and loaded again at the frame boundary after one of them is complete on disk.
final class HotReload {
    /// What happened to one changed plugin.
    enum Outcome {
        /// Its new code runs; `manifest` is the manifest's path as the catalog found it.
        case reloaded(PluginReload, manifest: String)
        /// It was not reloaded, for this reason; its old code keeps running (`wasLoaded`), or it still does not load.
        case refused(pluginID: String, PluginError, wasLoaded: Bool)
    }

    private let host: PluginHost
    /// The watcher, on a thread of its own, which prepares each changed plugin's reload as soon as its file is complete.
    private let preparer: ReloadPreparer
    /// The running code each plugin's basis in the preparer was taken from (a restart replaces it).
    private var bases: [String: ObjectIdentifier] = [:]

    /// Watches the plugins of a run's registry.
    /// - Throws: ``MotionHostError`` `.notAvailable` when the registry is not a plugin host or inotify cannot
    ///   be used.
    init(registry: any PerformerRegistry) throws(MotionHostError) {
        guard let host = registry as? PluginHost else {
            throw MotionHostError(.notAvailable, "--watch: this run's performers do not come from plugins")
        }
        self.host = host
        do {
            preparer = try ReloadPreparer(watcher: try PluginWatcher())
        } catch {
            throw MotionHostError(.notAvailable, "--watch: \(error)", underlying: error)
        }
    }

    deinit { preparer.stop() }

    /// Calls `body` from the watcher's thread each time a reload is prepared or a plugin without one changed
    /// (``ReloadPreparer/setOnWork(_:)``): a frame loop that waits applies it then (``apply(scheduler:)``).
    func setOnPreparedWork(_ body: (@Sendable () -> Void)?) { preparer.setOnWork(body) }

    /// Whether the watcher's thread has a reload prepared, or a changed plugin, for ``apply(scheduler:)``.
    var hasPreparedWork: Bool { preparer.hasPendingWork }

    /// Watches plugins loaded since the last call, then reloads each one whose files changed: those the watcher's
    /// thread prepared (``ReloadPreparer``) are finished here, the others (a first load that failed, a rebuild that
    /// landed before the watch began) done here from the start.
    /// - Parameter scheduler: The run's scheduler, between frames.
    /// - Returns: One outcome per changed plugin, in plugin id order.
    func apply(scheduler: Scheduler) -> [Outcome] {
        var outcomes: [Outcome] = []
        var changed: Set<String> = []
        let loaded = host.loadedPluginIDs
        let failed = host.failedPluginIDs
        preparer.withWatcher { watcher in
            let watched = Set(watcher.watchedPluginIDs)
            for id in loaded + failed where !watched.contains(id) {
                do throws(PluginError) {
                    try watcher.watch(pluginID: id, files: host.filesToWatch(ofPlugin: id))
                } catch {
                    outcomes.append(.refused(pluginID: id, error, wasLoaded: !failed.contains(id)))
                }
                // A rebuild that landed between the load and this watch.
                if host.isLibraryReplacedOnDisk(ofPlugin: id) { changed.insert(id) }
            }
        }
        for id in loaded { updateBasis(of: id) }
        let (prepared, unprepared) = preparer.take()
        var work: [(id: String, prepared: PreparedReload?)] = prepared.map { ($0.basis.pluginID, $0) }
        for id in changed.union(unprepared) where !work.contains(where: { $0.id == id }) { work.append((id, nil)) }
        for (id, prepared) in work.sorted(by: { $0.id < $1.id }) {
            let wasLoaded = !host.failedPluginIDs.contains(id)
            do throws(PluginError) {
                let done: PluginReload?
                if let prepared { done = try host.reload(prepared, in: scheduler) } else { done = try host.reload(pluginID: id, in: scheduler) }
                updateBasis(of: id, always: true)
                guard let reload = done else { continue }
                // A reload may bring a manifest naming another library: watch that one too.
                if let files = host.codeFiles(ofPlugin: id) {
                    try? preparer.withWatcher { (watcher) throws(PluginError) in try watcher.watch(pluginID: id, files: [files.library]) }
                }
                let manifest = host.catalog.plugin(id: id)?.url.relativePath ?? reload.manifest.path
                outcomes.append(.reloaded(reload, manifest: manifest))
            } catch {
                updateBasis(of: id, always: true)
                outcomes.append(.refused(pluginID: id, error, wasLoaded: wasLoaded))
            }
        }
        return outcomes
    }

    /// Gives the preparer plugin `id`'s basis when its running code is not the one the last basis was taken from (a
    /// restart), or `always` (after a reload, which may keep the code and change the manifest).
    private func updateBasis(of id: String, always: Bool = false) {
        let code = host.runningCode(ofPlugin: id)
        guard always || code != bases[id] else { return }
        bases[id] = code
        preparer.setBasis(code == nil ? nil : host.reloadBasis(ofPlugin: id), forPlugin: id)
    }
}

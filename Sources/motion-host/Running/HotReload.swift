import FoundationEssentials
import MotionCore
import MotionHost

/// `--watch` (`serve`, `run --realtime`): at every frame boundary, before the frame's transactions, the
/// plugins whose manifest or library was completed on disk since the last frame are reloaded
/// (``PluginHost/reload(pluginID:in:)``: a new sealed copy through every trust check, the entry checked,
/// then the plugin's performers re-created with their plans, R43), so a rebuilt plugin runs from the first
/// frame that begins after its file is in place. Plugins are watched from the frame after their first load;
/// a library renamed into place before that is noticed then (another file at its path). A plugin whose first
/// load failed is watched too (its manifest, and its library wherever it is looked for), and loaded again when
/// one of them is complete on disk.
final class HotReload {
    /// What happened to one changed plugin.
    enum Outcome {
        /// Its new code runs; `manifest` is the manifest's path as the catalog found it.
        case reloaded(PluginReload, manifest: String)
        /// It was not reloaded, for this reason; its old code keeps running (`wasLoaded`), or it still does not load.
        case refused(pluginID: String, PluginError, wasLoaded: Bool)
    }

    private let host: PluginHost
    private let watcher: PluginWatcher

    /// Watches the plugins of a run's registry.
    /// - Throws: ``MotionHostError`` `.notAvailable` when the registry is not a plugin host or inotify cannot
    ///   be used.
    init(registry: any PerformerRegistry) throws(MotionHostError) {
        guard let host = registry as? PluginHost else {
            throw MotionHostError(.notAvailable, "--watch: this run's performers do not come from plugins")
        }
        self.host = host
        do {
            watcher = try PluginWatcher()
        } catch {
            throw MotionHostError(.notAvailable, "--watch: \(error)", underlying: error)
        }
    }

    /// Watches plugins loaded since the last call, then reloads each one whose files changed.
    /// - Parameter scheduler: The run's scheduler, between frames.
    /// - Returns: One outcome per changed plugin, in plugin id order.
    func apply(scheduler: Scheduler) -> [Outcome] {
        var outcomes: [Outcome] = []
        var changed: Set<String> = []
        let loaded = host.loadedPluginIDs
        let failed = host.failedPluginIDs
        let watched = Set(watcher.watchedPluginIDs)
        for id in loaded + failed where !watched.contains(id) {
            do {
                try watcher.watch(pluginID: id, files: host.filesToWatch(ofPlugin: id))
            } catch {
                outcomes.append(.refused(pluginID: id, error, wasLoaded: !failed.contains(id)))
            }
            // A rebuild that landed between the load and this watch.
            if host.isLibraryReplacedOnDisk(ofPlugin: id) { changed.insert(id) }
        }
        for id in changed.union(watcher.changedPlugins()).sorted() {
            let wasLoaded = !host.failedPluginIDs.contains(id)
            do {
                guard let reload = try host.reload(pluginID: id, in: scheduler) else { continue }
                // A reload may bring a manifest naming another library: watch that one too.
                if let files = host.codeFiles(ofPlugin: id) { try? watcher.watch(pluginID: id, files: [files.library]) }
                let manifest = host.catalog.plugin(id: id)?.url.relativePath ?? reload.manifest.path
                outcomes.append(.reloaded(reload, manifest: manifest))
            } catch {
                outcomes.append(.refused(pluginID: id, error, wasLoaded: wasLoaded))
            }
        }
        return outcomes
    }
}

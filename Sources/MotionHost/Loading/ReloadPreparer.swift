import FoundationEssentials
import MotionFiles

/// Watches plugins' files on a thread of its own and prepares each changed plugin's reload there as soon as its
/// file is complete on disk (``ReloadBasis/prepare()``: the manifest read again, the library checked and loaded from
/// a new sealed copy, or an isolated plugin's new sandbox started), so that the frame boundary that applies it only
/// calls the entry and switches the performers (``PluginHost/reload(_:in:)``, R43). Without it the whole reload ran
/// at the frame boundary, and a change waited there for the next boundary to be seen at all.
///
/// The scheduler's thread hands it, for each watched plugin, what a reload starts from (``setBasis(_:forPlugin:)``),
/// and takes what is ready at every frame boundary (``take()``). A plugin with no basis (one whose first load failed)
/// is only reported as changed, for a reload on the scheduler's thread (``PluginHost/reload(pluginID:in:)``).
///
/// Thread rule: every method on the scheduler's thread; the watcher's thread is its own. The watcher is used by one
/// thread at a time, behind a lock (``withWatcher(_:)``).
public final class ReloadPreparer: @unchecked Sendable {
    // @unchecked: every mutable field is behind `lock`; the watcher behind `watcherLock`.
    private let watcher: PluginWatcher
    private let watcherLock = ThreadLock()
    private let lock = ThreadLock()
    private var bases: [String: ReloadBasis] = [:]
    private var ready: [String: PreparedReload] = [:]
    private var changed: Set<String> = []
    private var isStopped = false
    private var onWork: (@Sendable () -> Void)?
    /// How long one wait for the watcher's events lasts, in milliseconds: the thread looks at ``stop()`` (and
    /// watches folders that did not exist yet again) at least this often.
    static let waitMilliseconds: Int32 = 100

    /// Starts the watcher's thread.
    /// - Parameter watcher: The watcher; from now on use it only through ``withWatcher(_:)``.
    /// - Throws: ``ThreadStartFailure`` when the thread cannot be made.
    public init(watcher: PluginWatcher) throws(ThreadStartFailure) {
        self.watcher = watcher
        try DetachedThread.start(name: "motion reload") { [self] in run() }
    }

    deinit { stop() }

    /// Runs `body` with the watcher, while its thread does not read it (to watch more files).
    public func withWatcher<R, E: Error>(_ body: (PluginWatcher) throws(E) -> R) throws(E) -> R {
        try watcherLock.withLock { () throws(E) -> R in try body(watcher) }
    }

    /// Calls `body` (on the watcher's thread) each time a reload is prepared or a plugin without a basis changed, so
    /// that the frame loop can take it (``take()``) at once rather than at its next frame's start; `nil` stops it.
    public func setOnWork(_ body: (@Sendable () -> Void)?) {
        lock.withLock { onWork = body }
    }

    /// What a reload of plugin `id` starts from now, or `nil` to have its changes only reported (``take()``). Set it
    /// again after every reload or restart of the plugin; a reload prepared from an older one is done again at the
    /// frame boundary (``PluginHost/reload(_:in:)`` checks).
    public func setBasis(_ basis: ReloadBasis?, forPlugin id: String) {
        lock.withLock { bases[id] = basis }
    }

    /// The basis last set for plugin `id`.
    public func basis(ofPlugin id: String) -> ReloadBasis? { lock.withLock { bases[id] } }

    /// The reloads prepared since the last call, and the plugins that changed with no basis, each sorted by plugin id.
    /// A plugin whose files changed again before its reload was taken has only its latest preparation here (the
    /// earlier one's new sandbox was ended).
    public func take() -> (prepared: [PreparedReload], changed: [String]) {
        lock.withLock {
            defer {
                ready.removeAll()
                changed.removeAll()
            }
            return (ready.sorted { $0.key < $1.key }.map(\.value), changed.sorted())
        }
    }

    /// Whether a reload is being prepared or waits to be taken (for tests, which wait for it).
    public var hasPendingWork: Bool { lock.withLock { !ready.isEmpty || !changed.isEmpty } }

    /// Ends the watcher's thread (within ``waitMilliseconds``); reloads prepared and not taken are dropped.
    public func stop() {
        lock.withLock { isStopped = true }
    }

    private func run() {
        while !lock.withLock({ isStopped }) {
            // The fd is the watcher's for its life; only reading its events needs the lock.
            _ = try? system_pollReadable(watcher.fd, milliseconds: Self.waitMilliseconds)
            let ids = watcherLock.withLock { watcher.changedPlugins() }
            for id in ids {
                guard let basis = lock.withLock({ isStopped ? nil : bases[id] }) else {
                    lock.withLock { _ = changed.insert(id) }
                    lock.withLock { onWork }?()
                    continue
                }
                let prepared = basis.prepare()
                let superseded: PreparedReload? = lock.withLock {
                    if isStopped { return prepared }
                    defer { ready[id] = prepared }
                    return ready[id]
                }
                superseded?.discard()
                lock.withLock { onWork }?()
            }
        }
        let left = lock.withLock { () -> [PreparedReload] in
            defer { ready.removeAll() }
            return Array(ready.values)
        }
        for prepared in left { prepared.discard() }
    }
}

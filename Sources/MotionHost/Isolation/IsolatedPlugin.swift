import CMotionABI
import CMotionHostSupport
import Dispatch
import FoundationEssentials
import Glibc
import MotionCore
import MotionFiles

/// How an isolated plugin's sandbox failed, and what the host did about it: one `error` line of a run's timeline.
///
/// Thread rule: a value; safe from any thread.
public struct PluginFailure: Sendable, Hashable, CustomStringConvertible {
    /// The plugin's id.
    public let pluginID: String
    /// Its manifest, as found on the search path.
    public let manifest: URL
    /// What happened to the sandbox: "was killed by signal 11 (SIGSEGV)", "exited with status 3", "did not answer
    /// update_many within 1 s (--plugin-timeout), so it was killed".
    public let cause: String
    /// The plugin call the host was making (`add_plan`, `update_many` …), or `nil` when the sandbox died between
    /// calls (on a thread of the plugin's own).
    public let call: String?
    /// The last frame the plugin's performers were updated for, if any.
    public let frame: Int?
    /// The performers that ended, `Class@target`, in the order they were made.
    public let performers: [String]
    /// Their targets, each once, in the same order.
    public let targets: [String]
    /// Whether the host started a new sandbox for the plugin (`"onCrash": "restart"`), which re-created these
    /// performers (``Scheduler/recreatePerformers(of:)``, R43).
    public let isRestarted: Bool
    /// With ``isRestarted``: the plans the new sandbox's performers were given again; else 0.
    public let readdedPlanCount: Int

    /// A failure from its parts (the host makes them; public for tests of what reports them).
    public init(
        pluginID: String, manifest: URL, cause: String, call: String?, frame: Int?, performers: [String], targets: [String],
        isRestarted: Bool = false, readdedPlanCount: Int = 0
    ) {
        self.pluginID = pluginID
        self.manifest = manifest
        self.cause = cause
        self.call = call
        self.frame = frame
        self.performers = performers
        self.targets = targets
        self.isRestarted = isRestarted
        self.readdedPlanCount = readdedPlanCount
    }

    /// The same failure with another cause, or marked restarted with the plans re-added.
    func with(cause: String? = nil, restartedReadding plans: Int? = nil) -> PluginFailure {
        PluginFailure(
            pluginID: pluginID, manifest: manifest, cause: cause ?? self.cause, call: call, frame: frame, performers: performers,
            targets: targets, isRestarted: plans != nil, readdedPlanCount: plans ?? 0)
    }

    /// One line: who, what, where, and what it affected.
    public var description: String {
        let whereText = call.map { "in \($0)" } ?? "outside any call from the host"
        let frameText = frame.map { " at frame \($0)" } ?? ""
        let ended = performers.isEmpty ? "no performers" : "its performers \(performers.joined(separator: ", "))"
        let targetText = targets.isEmpty ? "" : " (targets \(targets.joined(separator: ", ")))"
        let after =
            isRestarted
            ? "a new sandbox re-created them and re-added their \(readdedPlanCount) plan\(readdedPlanCount == 1 ? "" : "s") (onCrash: restart)"
            : "their is-active tokens were ended and later plans of its types fail"
        return
            "plugin \(pluginID) (\(manifest.relativePath)): \(whereText)\(frameText), its sandbox \(cause); \(ended)\(targetText) stopped; \(after); the other performers go on"
    }
}

/// A plugin whose code runs in a sandbox process of its own (``SandboxServer``, the `motion-sandbox` executable
/// beside the host's), reached through ``IsolatedPerformer`` proxies exactly as ``EntryPlugin`` is reached through
/// ``EntryPerformer`` ones: the scheduler cannot tell them apart.
///
/// Per frame, one request and one reply per plugin (its `update_many` batch): the members go through shared
/// memory, and so do the property writes the plugin queued, which the host applies through its own
/// `set_properties` (the same checks and path as in process) before anything else it reads from the sandbox.
/// The plugin's calls of `motion_host_v1` on the thread the sandbox serves the host on arrive while the host waits
/// for a reply, and are answered on the scheduler's thread through the host's own table with the performer's real
/// context; the calls from the plugin's own threads arrive on a second channel and are answered on a thread of the
/// host's, as in process.
///
/// A failure (the sandbox dies, sends something malformed, or does not answer within the plugin timeout and is
/// killed) is contained: the process is reaped and its shared memory unmapped, the plugin's performers' tokens are
/// ended, a ``PluginFailure`` is recorded for the ``PluginHost`` to report, and every later call fails with
/// ``PluginError/Code/sandboxFailed``. One object is one sandbox: a restart (`"onCrash": "restart"`) or a hot reload
/// is a new ``IsolatedPlugin`` that the host switches the plugin's performers to (``PluginHost``, R43).
///
/// A sandbox group (``PluginIsolation/group``) is one object and one process for several plugins, its
/// ``members``: each library loaded in that process with the same checks, each performer created by its member
/// (the `create` request names it), one slot space and one ``FrameBatch`` for all of them (one `update_many`
/// request per run of the group's performers per frame, which the sandbox splits by plugin). A failure of the
/// process is every member's: each gets its own ``PluginFailure`` (its performers, its targets).
///
/// Thread rule: the scheduler's thread (every ``FrameBatch`` and proxy call); the second channel's thread only
/// reads ``sharedContexts`` and sets ``diedOnItsOwn``.
final class IsolatedPlugin: FrameBatch, @unchecked Sendable {
    // @unchecked: the mutable state is the scheduler thread's; what the channel thread touches is behind locks.
    let settings: PluginIsolation
    /// Seconds to wait for the sandbox's answer to any one message (`--plugin-timeout`), or `nil` for no limit.
    let timeout: Double?
    let logRoute: PluginLogRoute

    /// One plugin loaded in this sandbox, and what the sandbox said of its library.
    struct Member {
        let manifest: PluginManifest
        /// `plugin id (manifest path)`, as host contexts name their plugin.
        let name: String
        /// The name and the plugin's log route, shared by the host contexts of the member's performers.
        let identity: PluginIdentity
        var pluginID = ""
        var hasFrames = false
        var hasUpdateMany = false
        var hasDeviceMotion = false
        /// Whether the plugin takes plans by handle in its sandbox (`motion.plan-handles/1`, motion/plans.h): then
        /// ``IsolatedPerformer`` sends a plan's fields in binary instead of its JSON.
        var takesPlansByHandle = false
        var extensionProblems: [String] = []
        var capabilityMismatches: [String] = []
        /// The library the sandbox loaded: its canonical path, SHA-256 (64 lowercase hex) and file identity.
        var library = (path: "", sha256: "", device: UInt64(0), inode: UInt64(0))
        /// This member's report of the failure that ended the sandbox, once there is one.
        var failure: PluginFailure?

        init(manifest: PluginManifest, logRoute: PluginLogRoute) {
            self.manifest = manifest
            name = "\(manifest.id) (\(manifest.url.relativePath))"
            identity = PluginIdentity(description: name, logRoute: logRoute)
        }
    }

    /// The plugins loaded in this sandbox, in the order they were loaded (the sandbox's member indices): one, or the
    /// members of a sandbox group that loaded.
    private(set) var members: [Member] = []
    /// The plugins of the group whose loads the sandbox refused (their trust checks, entry or ABI), by plugin id:
    /// they are not members; the others run.
    private(set) var refusals: [String: PluginError] = [:]
    /// The index in ``members`` of the plugin with id `pluginID`, if it is one.
    func member(of pluginID: String) -> Int? { members.firstIndex { $0.manifest.id == pluginID } }

    /// The first member's (the only one's, outside a group) manifest, name and description of its library.
    var manifest: PluginManifest { members[0].manifest }
    var name: String { members[0].name }
    var pluginID: String { members[0].pluginID }
    var hasFrames: Bool { members[0].hasFrames }
    var hasUpdateMany: Bool { members[0].hasUpdateMany }
    var hasDeviceMotion: Bool { members[0].hasDeviceMotion }
    var extensionProblems: [String] { members[0].extensionProblems }
    var capabilityMismatches: [String] { members[0].capabilityMismatches }
    var library: (path: String, sha256: String, device: UInt64, inode: UInt64) { members[0].library }

    private var process: SandboxProcess?
    /// The running sandbox's shared memory (for ``waitCounts``), or `nil`.
    var runningMemory: SandboxSharedMemory? { process?.memory }
    /// Every performer's host context, by slot (never removed: a retired one answers `MOTION_ERR_SCHEDULER_GONE`).
    private var contexts: [HostContext] = []
    /// The same, for the thread that serves the plugin's own threads.
    private let sharedContexts = ProcessLock<[HostContext]>([])
    /// Each slot's member (an index into ``members``) and performer class (an index into ``classNames``), 4 bytes a
    /// slot: a failure report names the performer `Class@target` from these and its context's target.
    private var slotOwners: [SlotOwner] = []
    private struct SlotOwner {
        let member: UInt16
        let className: UInt16
    }
    /// The performer classes made in this sandbox, each once, in the order first made.
    private var classNames: [String] = []
    /// Set by the plugin threads' channel when the sandbox closed it (it died between the host's calls); a new one
    /// for each sandbox.
    private var diedOnItsOwn = ProcessLock(false)
    /// How many sandboxes of this plugin failed and were restarted before this one (`"onCrash": "restart"`).
    let restarts: Int
    private var sceneKeys: [ObjectIdentifier: (scene: WeakScene, key: UInt32)] = [:]
    private var nextSceneKey: UInt32 = 0
    /// The failure that ended the sandbox, once there is one (the report of the member whose call found it).
    private(set) var failure: PluginFailure?
    /// Called on the scheduler's thread with each failure, as it is found (the ``PluginHost`` records it).
    var onFailure: ((PluginFailure) -> Void)?
    private var lastFrame: Int?
    /// The slot of the performer being created, which a failure during its `create_performer` does not count as
    /// one that existed.
    var slotBeingCreated: UInt32?
    /// The queued writes by id, copied out of the shared memory for the host's own set_properties (each takes
    /// ``SandboxSharedMemory/idWriteSize`` bytes of the queue, so this holds a whole queue of them). Writes by slot
    /// are applied where they lie (``applyWrites(_:memory:)``).
    private let writes = UnsafeMutablePointer<motion_property_write>.allocate(
        capacity: SandboxSharedMemory.writeBytes / SandboxSharedMemory.idWriteSize)
    /// R43's calls sent as one request and being answered (``SandboxRecreation``), or `nil`.
    var recreation: SandboxRecreation?
    /// The tokens the plugin took during recreation batches, by the sandbox's id (``BatchTokens``).
    let batchTokens = ProcessLock(BatchTokens())
    /// How many performer slots this sandbox has given (the next performer's slot).
    var slotCount: Int { contexts.count }
    /// Whether the sandbox process runs (it has not failed or been shut down).
    var isRunning: Bool { process != nil }

    private final class WeakScene {
        weak var scene: Scene?
        init(_ scene: Scene) { self.scene = scene }
    }

    /// Where the sandbox executable is: `motion-sandbox` in the folder of the running executable (where
    /// `swift build` and `Scripts/install.sh` put it beside `motion-host`).
    static var sandboxExecutable: URL? {
        LibraryLoader.executableDirectory()?.appendingPathComponent("motion-sandbox", isDirectory: false)
    }

    /// Starts a sandbox for `manifests`' plugins (one, or a sandbox group's) and has it load each library: trust
    /// checks, sealed copy, entry, ABI, one after another in one process.
    /// - Parameters:
    ///   - manifests: The plugins, at least one; more than one share the process (``PluginIsolation/group``).
    ///   - restarts: How many of the plugin's sandboxes failed and were restarted before this one.
    /// - Throws: ``PluginError``: what the sandbox's checks found (the same code and message as in process) when no
    ///   plugin loaded (the first plugin's; the others' are in ``refusals``), or `.loadFailed` when the sandbox
    ///   cannot be started, or `.sandboxFailed` when it died loading its only plugin. In a group, a plugin whose
    ///   load killed the sandbox is refused (`.sandboxFailed`, in ``refusals``) and the others are loaded again in
    ///   a new process.
    init(
        manifests: [PluginManifest], loader: LibraryLoader, settings: PluginIsolation, timeout: Double?, logSink: PluginLog.Sink?,
        restarts: Int = 0
    ) throws(PluginError) {
        precondition(!manifests.isEmpty, "a sandbox for no plugin")
        self.settings = settings
        self.timeout = timeout
        self.logRoute = PluginLogRoute(sink: logSink)
        self.restarts = restarts
        try start(manifests, loader: loader)
    }

    /// Starts a sandbox for one plugin (``init(manifests:loader:settings:timeout:logSink:restarts:)``).
    convenience init(
        manifest: PluginManifest, loader: LibraryLoader, settings: PluginIsolation, timeout: Double?, logSink: PluginLog.Sink?,
        restarts: Int = 0
    ) throws(PluginError) {
        try self.init(manifests: [manifest], loader: loader, settings: settings, timeout: timeout, logSink: logSink, restarts: restarts)
    }

    deinit {
        shutDown()
        writes.deallocate()
    }

    private func start(_ manifests: [PluginManifest], loader: LibraryLoader) throws(PluginError) {
        let manifest = manifests[0]
        guard let executable = Self.sandboxExecutable, access(executable.path, X_OK) == 0 else {
            throw PluginError(
                code: .loadFailed,
                message:
                    "the plugin is to run isolated, but there is no sandbox executable at \(Self.sandboxExecutable?.path ?? "motion-sandbox"). To fix, install motion-sandbox beside motion-host (swift build and Scripts/install.sh do)",
                for: manifest)
        }
        let started: SandboxProcess
        let processName = manifests.count == 1 ? manifest.id : "group \(settings.group ?? "") \(manifests.map(\.id).joined(separator: ","))"
        do { started = try SandboxProcess(executable: executable.path, pluginID: processName) } catch {
            throw PluginError(code: .loadFailed, message: "cannot start the plugin's sandbox: \(error)", for: manifest)
        }
        process = started
        let died = ProcessLock(false)
        diedOnItsOwn = died
        started.requests.isPeerGone = { died.withLock { $0 } }
        do throws(ThreadStartFailure) {
            try startOtherThreadsChannel(started.otherThreads, memory: started.memory, ended: started.otherThreadsEnded, name: processName)
        } catch {
            started.otherThreadsEnded.signal()  // no thread serves the channel: nothing to wait for before unmapping
            shutDown()
            throw PluginError(code: .loadFailed, message: "cannot start the plugin's sandbox: \(error)", for: manifest)
        }
        for manifest in manifests {
            do throws(PluginError) {
                try load(manifest, loader: loader)
            } catch {
                guard manifests.count > 1 else {
                    shutDown()
                    throw error
                }
                // A refusal leaves the others to load. A plugin whose load killed the sandbox (a crash in its
                // entry) took the members loaded before it with it: they, and those not tried yet, get a new
                // process without it (each such restart leaves one more plugin out, so they end).
                refusals[manifest.id] = error
                guard failure != nil else { continue }
                let rest = manifests.filter { refusals[$0.id] == nil }
                (failure, members) = (nil, [])
                guard !rest.isEmpty else { throw refusals[manifests[0].id]! }
                do throws(PluginError) { try start(rest, loader: loader) } catch { throw refusals[manifests[0].id] ?? error }
                return
            }
        }
        guard !members.isEmpty else {
            shutDown()
            throw refusals[manifest.id]!
        }
    }

    /// Has the sandbox load one more plugin (the first one also confines the sandbox) and makes it a member.
    private func load(_ manifest: PluginManifest, loader: LibraryLoader) throws(PluginError) {
        let index = members.count
        members.append(Member(manifest: manifest, logRoute: logRoute))
        var out = WireWriter()
        out.string(manifest.url.path)
        let libraryPaths = loader.configuration.libraryPaths
        out.u32(UInt32(libraryPaths.count))
        for url in libraryPaths { out.string(url.path) }
        out.u32(UInt32(loader.extraLibraryDirectories.count))
        for url in loader.extraLibraryDirectories { out.string(url.path) }
        let pins = loader.configuration.pins.sorted { $0.key < $1.key }
        out.u32(UInt32(pins.count))
        for (key, hash) in pins {
            out.string(key)
            out.string(hash)
        }
        out.bool(loader.configuration.requiresPins)
        out.u64(UInt64(settings.memoryLimit ?? 0))
        var reply = try call(.load, "motion_plugin_entry (in its sandbox)", out, member: index)
        guard let isLoaded = reply.bool() else { throw malformed("load", member: index) }
        guard isLoaded else {
            let code = reply.string().flatMap(PluginError.Code.init(name:)) ?? .loadFailed
            let message = reply.string() ?? "the sandbox could not load the plugin"
            members.removeLast()
            throw PluginError(code: code, message: message, for: manifest)
        }
        guard let id = reply.string(), let abi = reply.u32(), let frames = reply.bool(), let many = reply.bool(),
            let deviceMotion = reply.bool(), let problems = strings(&reply), let mismatches = strings(&reply),
            let path = reply.string(), let sha256 = reply.string(), let device = reply.u64(), let inode = reply.u64(),
            let byHandle = reply.bool()
        else { throw malformed("load", member: index) }
        members[index].takesPlansByHandle = byHandle
        (members[index].pluginID, members[index].hasFrames, members[index].hasUpdateMany, members[index].hasDeviceMotion) = (
            id, frames, many, deviceMotion
        )
        members[index].library = (path, sha256, device, inode)
        _ = abi
        members[index].extensionProblems = problems
        members[index].capabilityMismatches = mismatches
    }

    private func strings(_ reader: inout WireReader) -> [String]? {
        guard let count = reader.u32() else { return nil }
        var result: [String] = []
        for _ in 0..<count {
            guard let text = reader.string() else { return nil }
            result.append(text)
        }
        return result
    }

    private func malformed(_ what: String, member: Int) -> PluginError {
        fail(.malformed("a reply to \(what)"), in: what, member: member)
    }

    /// Ends the sandbox without a failure (the host is done with it, refused its plugin, or switched the plugin's
    /// performers to a new sandbox): the process is killed and reaped, its shared memory unmapped. Its performers were
    /// destroyed already (each proxy's deinit, or R43's switch), so nothing of the plugin's is left to lose; calls
    /// after it fail.
    func shutDown() {
        guard let process else { return }
        self.process = nil
        process.end()
    }

    /// ``shutDown()`` with the process's end (SIGKILL, reaping, then unmapping once the thread serving the plugin's own
    /// threads has stopped) on a thread of its own: for a sandbox that a reload replaced, whose end the frame that
    /// switched need not wait for (6–40 ms on the frame thread at a load average of 11).
    func shutDownInBackground() {
        guard let process else { return }
        self.process = nil
        let ending = EndingProcess(process: process)
        // Without a thread (the thread limit reached), it ends here.
        do { try DetachedThread.start(name: "motion sandbox end") { ending.process.end() } } catch { process.end() }
    }

    /// A sandbox process handed to the thread that ends it, which is then its only user.
    private struct EndingProcess: @unchecked Sendable {
        let process: SandboxProcess
    }

    /// The sandbox's process id and the host's address of its shared memory while it runs (for tests, which check
    /// that an ended sandbox is reaped and its mapping gone).
    var sandboxProcess: (pid: pid_t, sharedMemory: UInt)? { process.map { ($0.pid, UInt(bitPattern: $0.memory.base)) } }

    /// Set by the host when the plugin's performers are switched to another sandbox (a reload or restart, R43): the
    /// replaced performers are then not destroyed one request each, since this sandbox is ended as a whole once they
    /// are gone (1,000 Tweens: 1,000 round trips saved in the frame of the switch).
    var isBeingReplaced = false

    /// Whether a performer made in this sandbox is still in use (not destroyed, not failed).
    var hasLivePerformers: Bool { contexts.contains { $0.isLive } }

    /// Whether this sandbox failed and the configuration asks for a new one (`"onCrash": "restart"`, fewer than
    /// `maxRestarts` so far).
    var isRestartDue: Bool {
        failure != nil && !hasGivenUpRestarting && settings.onCrash == .restart && restarts < settings.maxRestarts
    }
    /// Set by the host when a restart was due but no new sandbox could take over: later calls say the plugin's plan
    /// types are not performed any more.
    var hasGivenUpRestarting = false

    // MARK: Performers

    /// Registers a performer's host context (of the plugin `member`); returns its slot, the sandbox's name for the
    /// performer.
    func register(_ context: HostContext, className: String, member: Int = 0) -> UInt32 {
        let slot = UInt32(contexts.count)
        contexts.append(context)
        let classIndex = classNames.firstIndex(of: className) ?? classNames.count
        if classIndex == classNames.count { classNames.append(className) }
        precondition(member <= Int(UInt16.max) && classIndex <= Int(UInt16.max), "a sandbox holds at most 65,536 plugins and classes")
        slotOwners.append(SlotOwner(member: UInt16(member), className: UInt16(classIndex)))
        sharedContexts.withLock { $0.append(context) }
        return slot
    }

    /// The sandbox's key for a scene: property ids are interned per scene, and the sandbox caches them per key.
    func sceneKey(for scene: Scene) -> UInt32 {
        let id = ObjectIdentifier(scene)
        if let entry = sceneKeys[id], entry.scene.scene === scene { return entry.key }
        let key = nextSceneKey
        nextSceneKey += 1
        sceneKeys[id] = (WeakScene(scene), key)
        return key
    }

    /// Sends a request and waits for its reply, serving the sandbox's requests meanwhile (on this, the
    /// scheduler's thread, so that the plugin's calls reach the host on the thread they would in process).
    /// - Parameters:
    ///   - what: The plugin call, for a failure report.
    ///   - member: The plugin (index in ``members``) the call is made to, whose error a failure is.
    /// - Throws: ``PluginError`` `.sandboxFailed` when the sandbox has failed, now or earlier.
    func call(_ kind: SandboxMessageKind, _ what: String, _ payload: WireWriter = WireWriter(), member: Int = 0) throws(PluginError)
        -> WireReader
    {
        // The lines the plugin logs meanwhile go where this plugin's host sends its lines, as in process.
        let result: Result<WireReader, PluginError> = PluginLog.routing(logRoute) {
            do throws(PluginError) { return .success(try unroutedCall(kind, what, payload, member: member)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private func unroutedCall(_ kind: SandboxMessageKind, _ what: String, _ payload: WireWriter, member: Int) throws(PluginError)
        -> WireReader
    {
        if failure == nil, diedOnItsOwn.withLock({ $0 }) { _ = fail(.closed, in: nil, member: member) }
        if failure != nil { throw error(forMember: member) }
        guard let process else { throw fail(.closed, in: what, member: member) }
        do throws(ChannelFailure) {
            try process.requests.send(kind, payload, timeout: timeout)
            while true {
                let message = try process.requests.receive(timeout: timeout)
                try applyWrites(message.pendingWriteBytes, memory: process.memory)
                if message.kind == .reply { return message.payload }
                try serve(message, channel: process.requests)
            }
        } catch {
            throw fail(error, in: what, member: member)
        }
    }

    /// The host's queued-writes path: the sandbox's entries (``SandboxSharedMemory``), each given its performer's
    /// real context, in the order made: runs of writes by id through the host's own `set_properties`, and each
    /// `set_slots` batch applied where it lies in the shared memory (``Scene/setSlotsCheckingEach(_:values:)``):
    /// every slot, count and value read once and what was read checked (range, count, finiteness) and stored, so
    /// a sandbox that writes the memory meanwhile can make the host apply nothing the checks refuse.
    ///
    /// The sandbox checked each batch whole before it queued it (its `set_slots` refuses a bad one as the host's
    /// does, and nothing of it is queued), so an entry the host's checks refuse is a sandbox that broke the
    /// protocol: the writes before the bad one stay applied, and the sandbox is failed as malformed. A batch of a
    /// performer destroyed meanwhile, or made on another thread, is dropped, as the host's `set_slots` would refuse
    /// it.
    /// - Parameter byteCount: The bytes of entries the message's header announced.
    /// - Throws: `.malformed` when the entries do not fit in those bytes, or a batch fails the host's checks.
    private func applyWrites(_ byteCount: Int, memory: SandboxSharedMemory) throws(ChannelFailure) {
        try Self.applyQueuedWrites(UnsafeRawPointer(memory.writes), byteCount: byteCount, contexts: contexts, writes: writes)
    }

    /// ``applyWrites(_:memory:)`` over the entries at `base` (the shared memory's queue, or a test's copy of one).
    /// - Parameters:
    ///   - contexts: The performers' contexts by slot (an entry's tag is its slot + 1).
    ///   - writes: Room for a queue's writes by id, copied out for `set_properties`.
    static func applyQueuedWrites(
        _ base: UnsafeRawPointer, byteCount: Int, contexts: [HostContext], writes: UnsafeMutablePointer<motion_property_write>
    ) throws(ChannelFailure) {
        guard byteCount > 0 else { return }
        guard byteCount <= SandboxSharedMemory.writeBytes else { throw .malformed("\(byteCount) bytes of property writes") }
        let contextCount = contexts.count
        var offset = 0
        var byID = 0
        func flushByID() {
            guard byID > 0 else { return }
            var failedIndex = 0
            _ = HostInterface.table.pointee.set_properties(writes, byID, MemoryLayout<motion_property_write>.stride, &failedIndex)
            byID = 0
        }
        while offset < byteCount {
            guard byteCount - offset >= SandboxSharedMemory.slotBatchHeaderSize else { throw .malformed("a property write cut short") }
            let entry = base + offset
            let tagged = entry.load(as: UInt64.self)
            let slot = Int(truncatingIfNeeded: tagged & ~(1 << 63)) &- 1
            if tagged & (1 << 63) != 0 {
                // A set_slots batch: its sizes read once, and its writes and values read once each where they are.
                let count = Int(entry.load(fromByteOffset: 8, as: UInt32.self))
                let values = Int(entry.load(fromByteOffset: 12, as: UInt32.self))
                let size = SandboxSharedMemory.slotBatchHeaderSize + 8 * (count + values)
                guard size <= byteCount - offset else { throw .malformed("a set_slots batch cut short") }
                flushByID()
                offset += size
                guard slot >= 0, slot < contextCount else { continue }
                let problem = contexts.withUnsafeBufferPointer { contexts -> PropertySlotBatchProblem? in
                    let context = contexts[slot]
                    guard context.isLive, context.isOnSchedulerThread else { return nil }
                    let batch = entry + SandboxSharedMemory.slotBatchHeaderSize
                    return context.withScene { scene in
                        SlotBatch.withSpans(batch, count, (batch + 8 * count).assumingMemoryBound(to: Double.self), values) {
                            scene.setSlotsCheckingEach($0, values: $1)
                        }
                    }
                }
                if let problem { throw .malformed("a set_slots batch that fails the host's checks (\(problem))") }
            } else {
                guard byteCount - offset >= SandboxSharedMemory.idWriteSize else { throw .malformed("a property write cut short") }
                let context = slot >= 0 && slot < contextCount ? contexts[slot] : nil
                let write = writes + byID
                write.pointee.ctx = context?.opaque
                write.pointee.property = entry.load(fromByteOffset: 8, as: Int32.self)
                write.pointee.count = entry.load(fromByteOffset: 12, as: UInt32.self)
                UnsafeMutableRawPointer(write).advanced(by: 16).copyMemory(from: entry + 16, byteCount: 32)
                byID += 1
                offset += SandboxSharedMemory.idWriteSize
            }
        }
        flushByID()
    }

    private func context(_ slot: UInt32?) throws(ChannelFailure) -> HostContext {
        guard let slot, Int(slot) < contexts.count else { throw .malformed("a call for a performer the host never made") }
        return contexts[Int(slot)]
    }

    /// Answers one of the plugin's calls of `motion_host_v1`, made on the sandbox's serving thread, with the
    /// host's own table on the scheduler's thread.
    private func serve(_ message: SandboxMessage, channel: SandboxChannel) throws(ChannelFailure) {
        var input = message.payload
        let host = HostInterface.table.pointee
        switch message.kind {
        case .flushWrites:
            try channel.send(.reply)
        case .setProperty:
            let context = try context(input.u32())
            guard let id = input.i32(), let count = input.u32(), count <= UInt32(MOTION_PROPERTY_MAX_COMPONENTS) else {
                throw .malformed("set_property")
            }
            var values = [Double](repeating: 0, count: Int(count))
            for i in 0..<Int(count) {
                guard let value = input.f64() else { throw .malformed("set_property") }
                values[i] = value
            }
            var out = WireWriter()
            out.i32(host.set_property(context.opaque, id, values, count))
            try channel.send(.reply, out)
        case .propertySlot:
            let context = try context(input.u32())
            guard let property = input.i32() else { throw .malformed("slot") }
            var out = WireWriter()
            out.i32(HostInterface.slotsExtension.pointee.slot(context.opaque, property))
            try channel.send(.reply, out)
        case .propertyID:
            let context = try context(input.u32())
            guard let name = input.string() else { throw .malformed("property_id") }
            var out = WireWriter()
            out.i32(host.property_id(context.opaque, name))
            try channel.send(.reply, out)
        case .getProperty:
            let context = try context(input.u32())
            guard let id = input.i32(), let capacity = input.u32() else { throw .malformed("get_property") }
            var values = [Double](repeating: 0, count: Int(MOTION_PROPERTY_MAX_COMPONENTS))
            var count: UInt32 = 0
            let status = values.withUnsafeMutableBufferPointer { buffer in
                host.get_property(
                    context.opaque, id, capacity == 0 ? nil : buffer.baseAddress, min(capacity, UInt32(MOTION_PROPERTY_MAX_COMPONENTS)),
                    &count)
            }
            var out = WireWriter()
            out.i32(status)
            out.u32(count)
            if status == MOTION_OK { for i in 0..<Int(count) { out.f64(values[i]) } }
            try channel.send(.reply, out)
        default:
            guard let out = try Self.serveThreadSafe(message, context: context, tokens: batchTokens) else { return }
            try channel.send(.reply, out)
        }
    }

    /// The [thread-safe] calls, from either channel: the reply's payload, or `nil` for a log line (no reply).
    private static func serveThreadSafe(
        _ message: SandboxMessage, context: (UInt32?) throws(ChannelFailure) -> HostContext, tokens: ProcessLock<BatchTokens>
    ) throws(ChannelFailure) -> WireWriter? {
        var input = message.payload
        let host = HostInterface.table.pointee
        var out = WireWriter()
        switch message.kind {
        case .log:
            guard let level = input.i32(), let line = input.string() else { throw .malformed("log") }
            host.log(level, line)
            return nil
        case .contextLog:
            let context = try context(input.u32())
            guard let level = input.i32(), let line = input.string() else { throw .malformed("log") }
            HostInterface.logExtension.pointee.log(context.opaque, level, line)
            return nil
        case .emit:
            let context = try context(input.u32())
            guard let json = input.data() else { throw .malformed("emit_transaction") }
            var error = motion_error()
            error.struct_size = UInt32(MemoryLayout<motion_error>.size)
            let status = json.withUnsafeBytes { raw in
                host.emit_transaction(context.opaque, raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, &error)
            }
            out.i32(status)
            out.string(status == MOTION_OK ? "" : withUnsafeBytes(of: &error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        case .tokenGenerate:
            let context = try context(input.u32())
            var token: motion_token = 0
            out.i32(host.token_generate(context.opaque, &token))
            out.u64(token)
        case .tokenTerminate:
            let context = try context(input.u32())
            guard let token = input.u64() else { throw .malformed("token_terminate") }
            // A token the sandbox gave during a recreation batch ends the scheduler's token taken for it.
            guard let schedulerToken = tokens.withLock({ $0.schedulerID(terminating: token) }) else {
                out.i32(MOTION_OK)
                break
            }
            out.i32(host.token_terminate(context.opaque, schedulerToken))
        default:
            throw .malformed("a request of kind \(message.kind) from the sandbox")
        }
        return out
    }

    /// Serves the plugin's own threads: their thread-safe calls, on a thread of the host's, until the sandbox
    /// closes the channel (it ended).
    private func startOtherThreadsChannel(
        _ channel: SandboxChannel, memory: SandboxSharedMemory, ended: DispatchSemaphore, name: String
    ) throws(ThreadStartFailure) {
        let shared = sharedContexts
        let died = diedOnItsOwn
        let tokens = batchTokens
        try DetachedThread.start(name: "motion sandbox \(name)") {
            func context(_ slot: UInt32?) throws(ChannelFailure) -> HostContext {
                guard let slot, let context = shared.withLock({ Int(slot) < $0.count ? $0[Int(slot)] : nil }) else {
                    throw .malformed("a call for a performer the host never made")
                }
                return context
            }
            while true {
                do {
                    let message = try channel.receive(timeout: nil)
                    if let out = try IsolatedPlugin.serveThreadSafe(message, context: context, tokens: tokens) { try channel.send(.reply, out) }
                } catch {
                    break
                }
            }
            died.withLock { $0 = true }
            // The scheduler's thread may be waiting for the sandbox's reply: end that wait now.
            cmotionhost_ring_interrupt(memory.sandboxToHost)
            system_close(channel.fd)
            // Its last touch of the shared memory: from here ``SandboxProcess/end()`` may unmap it.
            ended.signal()
        }
    }

    // MARK: A recreation batch (SandboxRecreation)

    /// Sends the batch's parts made and not sent yet, as many as ``SandboxRecreation/windowBytes`` allows (at least
    /// one when none is in flight).
    private func sendRecreationParts(_ process: SandboxProcess) throws(ChannelFailure) {
        guard let batch = recreation else { return }
        while batch.partsSent < batch.parts.count {
            let part = batch.parts[batch.partsSent]
            guard batch.bytesInFlight == 0 || batch.bytesInFlight + part.bytes.count <= SandboxRecreation.windowBytes else { return }
            batch.partsSent += 1
            batch.bytesInFlight += part.bytes.count
            try process.requests.send(.recreate, part, timeout: timeout)
        }
    }

    /// Sends what ``beginRecreation(_:member:)`` made of the batch so far, within the window.
    func sendRecreationParts(member: Int) {
        guard let process, recreation != nil else { return }
        do throws(ChannelFailure) { try sendRecreationParts(process) } catch {
            recreation = nil
            fail(error, in: "create_performer (re-creating the performers, R43)", member: member)
        }
    }

    /// The reply the recreation batch gave to R43's `create` of the performer in `slot`, or `nil` when no batch runs.
    /// - Throws: ``PluginError`` `.sandboxFailed` when the sandbox failed meanwhile, or answered calls other than R43's.
    func batchedReply(_ kind: SandboxMessageKind, slot: UInt32, member: Int) throws(PluginError) -> WireReader? {
        guard recreation != nil else { return nil }
        _ = try takeBatchedCall(slot: slot, plan: nil, name: nil, what: "create_performer", member: member)
        let reply = try readBatchReply(what: "create_performer", member: member)
        var peek = reply
        if peek.bool() != true { recreation?.failedSlots.insert(slot) }
        return reply
    }

    /// The reply the recreation batch gave to R43's plan `plan` (named `name`) for the performer in `slot`, or `nil`
    /// when no batch runs.
    /// - Throws: The plan's encoding error, as the call throws it alone; ``PluginError`` as
    ///   ``batchedReply(_:slot:member:)`` throws it.
    func batchedPlanReply(slot: UInt32, member: Int, plan: Plan, name: String?) throws -> WireReader? {
        guard recreation != nil else { return nil }
        let what = name == nil ? "add_plan" : "add_named_plan"
        let call = try takeBatchedCall(slot: slot, plan: plan, name: name, what: what, member: member)
        if let problem = call.problem { throw problem }
        return try readBatchReply(what: what, member: member)
    }

    /// The batch's next call, checked to be the one R43 makes, and passed.
    private func takeBatchedCall(slot: UInt32, plan: Plan?, name: String?, what: String, member: Int) throws(PluginError)
        -> SandboxRecreation.Call
    {
        if failure != nil { throw error(forMember: member) }
        guard let call = recreation?.nextCall(), call.slot == slot, (call.plan == nil) == (plan == nil), call.name == name,
            plan == nil || call.plan == plan
        else {
            recreation = nil
            throw fail(.malformed("answers to calls the host's re-creation did not make in that order"), in: what, member: member)
        }
        recreation?.position += 1
        return call
    }

    private func readBatchReply(what: String, member: Int) throws(PluginError) -> WireReader {
        let result: Result<WireReader?, PluginError> = PluginLog.routing(logRoute) {
            do throws(PluginError) { return .success(try readBatchEntries(untilReply: true, what: what, member: member)) } catch {
                return .failure(error)
            }
        }
        guard let reply = try result.get() else { throw fail(.malformed("no reply to a call of the re-creation"), in: what, member: member) }
        return reply
    }

    /// Reads what the sandbox sent in order, serving its requests and taking the tokens it listed, until the next
    /// call's reply (`untilReply`), or until the batch's last part has ended.
    private func readBatchEntries(untilReply: Bool, what: String, member: Int) throws(PluginError) -> WireReader? {
        guard let process else { throw fail(.closed, in: what, member: member) }
        do throws(ChannelFailure) {
            while true {
                guard let batch = recreation else { return nil }
                if batch.entryIndex < batch.entries.count {
                    let entry = batch.entries[batch.entryIndex]
                    batch.entryIndex += 1
                    switch entry {
                    case .token(let slot, let id):
                        guard Int(slot) < contexts.count else { throw ChannelFailure.malformed("a token for a performer the host never made") }
                        takeBatchToken(id, context: contexts[Int(slot)])
                        continue
                    case .reply(let reply):
                        guard untilReply else { throw ChannelFailure.malformed("a reply to a call the host's re-creation did not make") }
                        return reply
                    }
                }
                batch.entries.removeAll(keepingCapacity: true)
                batch.entryIndex = 0
                if !untilReply, batch.partsEnded == batch.parts.count { return nil }
                let message = try process.requests.receive(timeout: timeout)
                try applyWrites(message.pendingWriteBytes, memory: process.memory)
                switch message.kind {
                case .recreateResults:
                    var payload = message.payload
                    guard let count = payload.u32() else { throw ChannelFailure.malformed("recreate results") }
                    for _ in 0..<count {
                        switch payload.bool() {
                        case false?:
                            guard let bytes = payload.data() else { throw ChannelFailure.malformed("recreate results") }
                            batch.entries.append(.reply(WireReader(Array(bytes))))
                        case true?:
                            guard let slot = payload.u32(), let id = payload.u64(), id & RecreationBatch.tokenBit != 0 else {
                                throw ChannelFailure.malformed("recreate results")
                            }
                            batch.entries.append(.token(slot: slot, id: id))
                        case nil: throw ChannelFailure.malformed("recreate results")
                        }
                    }
                case .reply:
                    guard batch.partsEnded < batch.partsSent else { throw ChannelFailure.malformed("a reply to no request") }
                    batch.bytesInFlight -= batch.parts[batch.partsEnded].bytes.count
                    batch.partsEnded += 1
                    if batch.partsEnded == batch.parts.count {
                        if untilReply { throw ChannelFailure.malformed("the end of the re-creation before every call's reply") }
                        return nil
                    }
                    try sendRecreationParts(process)
                default:
                    try serve(message, channel: process.requests)
                }
            }
        } catch {
            recreation = nil
            throw fail(error, in: what, member: member)
        }
    }

    /// The scheduler's token for one the sandbox gave during the batch (ended at once if the plugin terminated it
    /// already from a thread of its own).
    private func takeBatchToken(_ id: UInt64, context: HostContext) {
        let token = context.generateToken() ?? 0
        let terminated = batchTokens.withLock { tokens in
            tokens.ids[id] = token
            return tokens.terminatedEarly.remove(id) != nil
        }
        if terminated, token != 0 { _ = context.terminateToken(token) }
    }

    /// Ends a recreation batch after R43: reads the rest of what the sandbox sent for it. A batch R43 did not use up
    /// (it made fewer calls than the outline said, which it never does) fails the sandbox, whose performers then
    /// differ from the host's.
    func endRecreation(member: Int) {
        guard let batch = recreation else { return }
        defer { recreation = nil }
        guard failure == nil else { return }
        if batch.nextCall() != nil {
            fail(.malformed("answers to calls the host's re-creation did not make"), in: "create_performer", member: member)
            return
        }
        PluginLog.routing(logRoute) {
            do throws(PluginError) { _ = try readBatchEntries(untilReply: false, what: "create_performer", member: member) } catch {}
        }
    }

    // MARK: Failure

    /// The error every call to the plugin `member` gets once the sandbox has failed.
    private func error(forMember member: Int) -> PluginError {
        let failure = (member < members.count ? members[member].failure : nil) ?? self.failure!
        let after =
            isRestartDue
            ? "a new one takes over after this commit or frame (restart \(restarts + 1) of \(settings.maxRestarts), onCrash: restart)"
            : "its plan types are not performed any more in this run"
        return PluginError(
            code: .sandboxFailed,
            message:
                "\(failure.call.map { "in \($0)" } ?? "outside any call from the host")\(failure.frame.map { " at frame \($0)" } ?? ""), the plugin's sandbox \(failure.cause); \(after)",
            for: member < members.count ? members[member].manifest : manifest)
    }

    /// Contains a failure: kills and reaps the sandbox, ends its performers' tokens, records and reports it, once
    /// for each member (the one whose call found it first, then the others of its group, in their order).
    /// - Parameter member: The plugin the host was calling (index in ``members``).
    /// - Returns: The error for the call that found it.
    @discardableResult
    private func fail(_ problem: ChannelFailure, in call: String?, member: Int) -> PluginError {
        if failure != nil { return error(forMember: member) }
        var cause: String
        if let process {
            self.process = nil
            let status = process.end()
            switch problem {
            case .timedOut(let seconds):
                cause = "did not answer within \(JSONText.number(seconds)) s (--plugin-timeout) and was killed"
            case .malformed(let what):
                cause = "sent a malformed message (\(what)) and was killed"
            case .closed, .io:
                cause = status.map(describeWaitStatus) ?? "ended"
                if let status, let signal = signalOfWaitStatus(status), let limit = settings.memoryLimit,
                    [SIGSEGV, SIGABRT, SIGKILL, SIGBUS, SIGTRAP, SIGILL].contains(signal)
                {
                    cause += " (it runs with a memoryLimit of \(limit) bytes; an allocation past it fails)"
                }
            }
        } else {
            cause = "\(problem)"
        }
        var ended = [[String]](repeating: [], count: members.count)
        var targets = [[String]](repeating: [], count: members.count)
        for (slot, context) in contexts.enumerated() where context.isLive && UInt32(slot) != slotBeingCreated {
            context.endAllTokens()
            let owner = Int(slotOwners[slot].member)
            let target = context.targetID
            ended[owner].append("\(classNames[Int(slotOwners[slot].className)])@\(target)")
            if !targets[owner].contains(target) { targets[owner].append(target) }
        }
        // A restart (`"onCrash": "restart"`) is the host's: a new sandbox, the performers switched to it (R43).
        let finder = min(member, members.count - 1)
        let order = [finder] + members.indices.filter { $0 != finder }
        for index in order {
            let isFinder = index == finder
            let sharedCause =
                isFinder
                ? cause
                : "\(cause) (\(call.map { "in \($0) of" } ?? "found by") \(members[finder].manifest.id), which runs in the same sandbox, group \(JSONText.quoted(settings.group ?? "")))"
            members[index].failure = PluginFailure(
                pluginID: members[index].manifest.id, manifest: members[index].manifest.url, cause: sharedCause, call: isFinder ? call : nil,
                frame: lastFrame, performers: ended[index], targets: targets[index])
        }
        failure = members[finder].failure
        for index in order { onFailure?(members[index].failure!) }
        return error(forMember: member)
    }

    /// Finds a death between calls (reported by the plugin threads' channel) and contains it.
    func checkForFailure() {
        if failure == nil, diedOnItsOwn.withLock({ $0 }) { fail(.closed, in: nil, member: 0) }
    }

    /// The failure report of the plugin `pluginID` (a member), once the sandbox has failed.
    func failure(ofPlugin pluginID: String) -> PluginFailure? { member(of: pluginID).flatMap { members[$0].failure } }

    // MARK: FrameBatch

    /// How many `update_many` requests this sandbox was sent (for tests: one per run of its performers per frame,
    /// a sandbox group's plugins together).
    private(set) var updateManyRequestCount = 0

    /// One `update_many` request for the whole run (split only past the shared memory's capacity).
    func update(_ members: UnsafeBufferPointer<OpaquePointer>, frame: Frame) {
        lastFrame = frame.index
        updateManyRequestCount &+= 1
        guard failure == nil, let memory = process?.memory else { return }
        var offset = 0
        PluginLog.routing(logRoute) {
            while offset < members.count {
                let count = min(members.count - offset, SandboxSharedMemory.memberCapacity)
                // A member's handle is its slot + 1 (``IsolatedPerformer/frameBatchMember``).
                let slots = memory.members
                members.withMemoryRebound(to: UInt.self) { handles in
                    for i in 0..<count { slots[i] = UInt32(truncatingIfNeeded: handles[offset &+ i] &- 1) }
                }
                var out = WireWriter()
                out.u64(UInt64(frame.index))
                out.f64(frame.time)
                out.f64(frame.delta)
                out.u32(UInt32(count))
                let first = Int(memory.members[0])
                let member = first < slotOwners.count ? Int(slotOwners[first].member) : 0
                guard (try? call(.updateMany, "update_many", out, member: member)) != nil else { return }
                offset += count
            }
        }
    }

    /// Notes the frame a performer is updated for alone (a plugin without `update_many`).
    func noteFrame(_ frame: Frame) { lastFrame = frame.index }
}

/// The sandbox process and the host's ends of its channels and shared memory.
final class SandboxProcess {
    let pid: pid_t
    let requests: SandboxChannel
    let otherThreads: SandboxChannel
    let memory: SandboxSharedMemory
    /// Signalled by the thread that serves the plugin's own threads once it has stopped for good (its last touch of
    /// ``memory`` is the ring interrupt it makes as it ends).
    let otherThreadsEnded = DispatchSemaphore(value: 0)

    init(executable: String, pluginID: String) throws(Errno) {
        let (requestsHost, requestsSandbox) = try system_socketpair()
        let (otherHost, otherSandbox) = try system_socketpair()
        let shared = try system_sharedMemory(named: "motion-sandbox \(pluginID)", size: SandboxSharedMemory.size)
        defer {
            system_close(requestsSandbox)
            system_close(otherSandbox)
            system_close(shared)
        }
        let base = try system_mapShared(shared, size: SandboxSharedMemory.size)
        memory = SandboxSharedMemory(base: base)
        // The host's environment, but no Swift backtracer: a crashing plugin ends its sandbox at once (the filter
        // would refuse to start swift-backtrace anyway), and the host reports the signal.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        // Under a sanitizer (the host's own build, .ci/tsan), a crash must still end the sandbox with its signal:
        // the sanitizer's handlers would report it and die otherwise (they start a symbolizer, which the filter
        // refuses).
        for name in ["TSAN_OPTIONS", "ASAN_OPTIONS"] {
            let signals = "handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigill=0:handle_sigfpe=0"
            environment[name] = environment[name].map { "\($0):\(signals)" } ?? signals
        }
        do {
            pid = try system_spawn(
                executable, arguments: [pluginID], environment: environment.map { "\($0.key)=\($0.value)" },
                given: [requestsSandbox, otherSandbox, shared])
        } catch {
            system_unmap(base, size: SandboxSharedMemory.size)
            system_close(requestsHost)
            system_close(otherHost)
            throw error
        }
        requests = SandboxChannel(
            fd: requestsHost, rings: (send: memory.hostToSandbox, receive: memory.sandboxToHost), ringCapacity: SandboxSharedMemory.ringCapacity,
            spinNanoseconds: SandboxSharedMemory.spinNanoseconds)
        otherThreads = SandboxChannel(fd: otherHost)
    }

    /// Ends the sandbox: SIGKILL, the requests channel closed, the process reaped (no zombie); then, once the thread
    /// serving the plugin's own threads has seen its channel close (it closes that end itself), the shared memory
    /// (about 13 MB) is unmapped. If that thread does not stop within 5 s the mapping is left, never unmapped under
    /// it.
    /// - Returns: The process's raw wait status, or `nil`.
    @discardableResult
    func end() -> Int32? {
        system_kill(pid)
        system_close(requests.fd)
        let status = system_waitForExit(pid)
        if otherThreadsEnded.wait(timeout: .now() + 5) == .success { system_unmap(memory.base, size: SandboxSharedMemory.size) }
        return status
    }
}

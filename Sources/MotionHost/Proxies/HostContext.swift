import CMotionABI
import CMotionHostSupport
import FoundationEssentials
import Glibc
import MotionCore
import MotionFiles
import Synchronization

/// The host's per-performer state behind a `motion_host_context *`: the performer's target, emitter and
/// token generator, and the tokens the plugin holds. The state is an entry of the process's ``ContextTable``; this
/// value is its handle (8 bytes), and the handle is what the plugin gets as its `motion_host_context *` (an opaque
/// pointer it never dereferences, motion/core.h).
///
/// Thread rule: the emitter, token generator, token table and names are safe from any thread (the header's
/// `[thread-safe]` calls, under the table's lock); the target and scene are used on the scheduler's thread only (the
/// header's `[scheduler-thread]` calls check the thread first, which reads only atomics).
///
/// Lifetime: a context is valid from its initializer until ``retire()``, which the proxy calls once the plugin's
/// `destroy_performer` (or a refused `create_performer`) returned. Retiring lets go of the emitter, token generator
/// and tokens, moves the entry to its free (odd) generation and gives it back to the table for a later context, which
/// takes the next (even) one. A handle names its entry's generation: a plugin that calls the host with a retired
/// context afterwards — which the header forbids — gets `MOTION_ERR_SCHEDULER_GONE` (its generation is no longer the
/// entry's, however often the entry was taken again, up to 2^31 times), and a pointer that is no handle at all (an
/// index past the table, an odd generation) gets `MOTION_ERR_INVALID_ARGUMENT` instead of being read. Nothing is kept per retired context (a 144-byte object was, for the life of the process,
/// before).
///
/// Memory: one 72-byte table entry per performer of a plugin, with no heap block of its own (a running TweenKit
/// Tween's context was a 144-byte block, its token a 48-byte object; the entry was 88 bytes before its group): what
/// the performers of one plugin on one scheduler share (the plugin's ``PluginIdentity``, the scheduler's thread and
/// scene, the proxy's plugin and `update_many` flag) is one entry of the table's groups, which the context names by a
/// 4-byte index; the target's name is read from the target, its C copy for `target_name` is made on the first call;
/// the plugin's performer pointer is kept here for the proxy (whose object then holds only the handle); and a token
/// taken on the scheduler's thread is kept as its id alone (``MotionCore/IsActiveTokenGenerator/generateID()``).
struct HostContext: Hashable, Sendable {
    /// The entry's index + 1 in the low 32 bits (so that no handle is 0, which C reads as NULL) and the entry's
    /// generation when the context was made in the high 32: always even (a free entry's is odd, see
    /// ``ContextEntry/generation``).
    let handle: UInt64

    /// How many of a context's most recently terminated tokens it remembers (R33), so that a second
    /// terminate of one of them reports `MOTION_ERR_TOKEN_ALREADY_TERMINATED`; an older one is forgotten
    /// (see ``terminateToken(_:)``), so the table stays this small however many tokens a performer takes.
    static let rememberedTerminations = 1024

    /// A context of a plugin's performer for `target`, whose scheduler runs on the calling thread.
    /// - Parameters:
    ///   - identity: The plugin's, shared by its contexts.
    ///   - batchesFrames: The proxy's ``batchesFrames``.
    ///   - owner: What the proxies of the group share (an ``EntryPlugin``), for ``owner``; retained while an entry
    ///     names the group.
    init(target: Target, identity: PluginIdentity, batchesFrames: Bool = true, owner: AnyObject? = nil) {
        handle = ContextTable.make(target: target, identity: identity, batchesFrames: batchesFrames, owner: owner)
    }

    /// A context with an identity of its own (a declarative performer's, a test's).
    init(target: Target, pluginDescription: String, logRoute: PluginLogRoute? = nil) {
        self.init(target: target, identity: PluginIdentity(description: pluginDescription, logRoute: logRoute))
    }

    private init(handle: UInt64) { self.handle = handle }

    /// The bytes of one context's table entry (its stride in a chunk).
    static let entryBytes = MemoryLayout<ContextEntry>.stride
    /// How many groups are in use (each shared by the contexts of one plugin on one scheduler).
    static var groupCount: Int { ContextTable.lock.withLock { _ in ContextTable.groupsInUse } }
    /// How many group entries the process has made: the most groups that were ever in use at once.
    static var madeGroupCount: Int { ContextTable.lock.withLock { _ in ContextTable.madeGroupCount } }
    /// The index of the context's group (the same for the contexts of one plugin's performers on one scheduler).
    var groupIndex: UInt32 { entry.pointee.group.load(ordering: .relaxed) }
    /// How many table entries the process has made: the most contexts that were ever live at once.
    static var madeEntryCount: Int { ContextTable.madeCount.load(ordering: .acquiring) }
    /// How many entries are free (retired and not taken again).
    static var freeEntryCount: Int { ContextTable.lock.withLock { $0.count } }

    private var index: Int { Int(truncatingIfNeeded: handle & 0xFFFF_FFFF) &- 1 }
    private var generation: UInt32 { UInt32(truncatingIfNeeded: handle &>> 32) }
    private var entry: UnsafeMutablePointer<ContextEntry> { ContextTable.entry(index) }
    /// The entry's group: the one its handle's context made, while ``isLive`` (or, retired, until the entry is taken
    /// again).
    private var group: UnsafeMutablePointer<GroupEntry> { ContextTable.group(entry.pointee.group.load(ordering: .relaxed)) }

    /// Runs `body` with the entry under the table's lock, when the context is live; `nil` once it is retired.
    private func withLiveEntry<R>(_ body: (UnsafeMutablePointer<ContextEntry>) -> R) -> R? {
        ContextTable.lock.withLock { _ in
            let entry = self.entry
            guard entry.pointee.generation.load(ordering: .relaxed) == generation else { return nil }
            return body(entry)
        }
    }

    /// The plugin's identity, shared by all its contexts; `nil` once retired.
    var identity: PluginIdentity? { withLiveEntry { ContextTable.group($0.pointee.group.load(ordering: .relaxed)).pointee.identity } ?? nil }
    /// Who the plugin is, for messages: `plugin id (manifest path)`; empty once retired.
    var pluginDescription: String { identity?.description ?? "" }
    /// Where the plugin's host sends its lines (the `motion.log/1` extension logs through it), if it has one.
    var logRoute: PluginLogRoute? { identity?.logRoute }

    /// The target's name (its ``TargetID``'s string: no copy), readable from any thread; empty once retired.
    var targetID: String { withLiveEntry { $0.pointee.target.takeUnretainedValue().id.name } ?? "" }

    /// The plugin's name and the target's, for a log line of the plugin's: also once retired, until the entry is
    /// taken by a later context (the longest free first; motion/log.h); then `nil`.
    var logAttribution: (plugin: String, target: String, route: PluginLogRoute?)? {
        ContextTable.lock.withLock { _ in
            let entry = self.entry
            let current = entry.pointee.generation.load(ordering: .relaxed)
            let identity = ContextTable.group(entry.pointee.group.load(ordering: .relaxed)).pointee.identity
            if current == generation {
                return (identity?.description ?? "", entry.pointee.target.takeUnretainedValue().id.name, identity?.logRoute)
            }
            guard current == generation &+ 1, let name = entry.pointee.more?.retiredTargetName else { return nil }
            return (identity?.description ?? "", name, identity?.logRoute)
        }
    }

    /// The target's name as a C string, valid for the context's life (`target_name`), made on the first call; ""
    /// once retired.
    var targetName: UnsafePointer<CChar> {
        withLiveEntry { entry in
            let more = ContextTable.rarer(entry)
            if let name = more.cTargetName { return UnsafePointer(name) }
            let name = strdup(entry.pointee.target.takeUnretainedValue().id.name)!
            more.cTargetName = name
            return UnsafePointer(name)
        } ?? emptyCString
    }

    /// Whether the performer still exists. A relaxed load: on the scheduler's thread it is written in the
    /// same thread's order; from another thread only the thread-safe calls use it, and they lock too.
    @inline(__always)
    var isLive: Bool { entry.pointee.generation.load(ordering: .relaxed) == generation }

    /// The thread of the context's scheduler (its group's: an atomic of an entry that is never freed, so that a call
    /// from any thread may read it).
    var schedulerThread: pthread_t { group.pointee.thread.load(ordering: .relaxed) }

    // pthread_t is an integer on Linux: comparing directly saves a call per property access.
    var isOnSchedulerThread: Bool { pthread_self() == schedulerThread }

    /// Whether the scheduler may update the performer with others of its plugin in one `update_many` call (the
    /// proxy's flag). Scheduler's thread.
    var batchesFrames: Bool { group.pointee.batchesFrames }

    /// The `owner` the context was made with (its proxy's plugin), retained. Scheduler's thread, while ``isLive``.
    var owner: AnyObject? { group.pointee.owner }

    /// The plugin's performer of this context (`create_performer`'s result), kept for its proxy. Scheduler's thread,
    /// while ``isLive``.
    var performer: OpaquePointer? {
        get { entry.pointee.performer }
        nonmutating set { entry.pointee.performer = newValue }
    }

    /// The emitter, set on the scheduler's thread before the first plan (R11); `nil` once retired.
    var emitter: TransactionEmitter? {
        get { withLiveEntry { $0.pointee.emitter } ?? nil }
        nonmutating set { _ = withLiveEntry { $0.pointee.emitter = newValue } }
    }

    /// The token generator, set on the scheduler's thread before the first plan (R11); `nil` once retired.
    var tokenGenerator: IsActiveTokenGenerator? {
        get { withLiveEntry { $0.pointee.tokenGenerator } ?? nil }
        nonmutating set { _ = withLiveEntry { $0.pointee.tokenGenerator = newValue } }
    }

    /// Marks the context gone once its performer is destroyed, drops what it held and gives its entry back to the
    /// table (see the type's Lifetime note). Call once, on the scheduler's thread, after `destroy_performer` (or a
    /// failed `create_performer`) returned; a second call does nothing.
    func retire() {
        let index = self.index
        let released = ContextTable.lock.withLock { free -> (ContextRarer?, Unmanaged<Target>)? in
            let entry = self.entry
            guard entry.pointee.generation.load(ordering: .relaxed) == generation else { return nil }
            entry.pointee.generation.store(generation &+ 1, ordering: .releasing)
            let held = (entry.pointee.more, entry.pointee.target)
            // Until the entry is taken again, a late log line is still attributed (motion/log.h): the identity stays,
            // and the target's name is kept (the target itself is let go).
            let retired = ContextRarer()
            retired.retiredTargetName = entry.pointee.target.takeUnretainedValue().id.name
            entry.pointee.more = retired
            (entry.pointee.emitter, entry.pointee.tokenGenerator, entry.pointee.token, entry.pointee.performer) = (nil, nil, 0, nil)
            free.append(UInt32(index))
            return held
        }
        // Freed outside the lock: the C name, the token objects, the target if no one else holds it.
        released?.1.release()
    }

    /// Ends every token the plugin still holds through this context, as the host does for a performer that goes
    /// away (R37): for an isolated plugin whose sandbox failed, whose performers can end nothing any more.
    /// - Returns: How many tokens were ended.
    @discardableResult
    func endAllTokens() -> Int {
        let held = withLiveEntry { entry -> (ids: [motion_token], objects: [IsActiveToken], generator: IsActiveTokenGenerator?) in
            var ids = entry.pointee.token == 0 ? [] : [entry.pointee.token]
            var objects: [IsActiveToken] = []
            if let more = entry.pointee.more {
                ids += more.ids
                objects = Array(more.objects.values)
                (more.ids, more.objects) = ([], [:])
            }
            entry.pointee.token = 0
            return (ids, objects, entry.pointee.tokenGenerator)
        }
        guard let held else { return 0 }
        // In the order they were taken (ids grow), as the scheduler ends them.
        var ended = held.ids.map { (id: $0, object: IsActiveToken?.none) } + held.objects.map { (id: $0.id, object: $0) }
        ended.sort { $0.id < $1.id }
        for token in ended {
            if let object = token.object {
                try? object.terminate()
            } else {
                _ = held.generator?.terminateOnAnyThread(tokenID: token.id)
            }
        }
        return ended.count
    }

    /// Runs `body` with the target borrowed. Scheduler's thread, while ``isLive``.
    @inline(__always)
    func withTarget<R>(_ body: (Target) -> R) -> R { entry.pointee.target._withUnsafeGuaranteedRef(body) }

    /// Runs `body` with the scene borrowed. Scheduler's thread, while ``isLive``.
    @inline(__always)
    func withScene<R>(_ body: (Scene) -> R) -> R { group.pointee.scene.unsafelyUnwrapped._withUnsafeGuaranteedRef(body) }

    /// The pointer handed to the plugin: the handle, never NULL. The plugin never dereferences it (motion/core.h).
    var opaque: OpaquePointer { OpaquePointer(bitPattern: UInt(handle))! }

    /// The context a plugin's pointer names, or `nil` for NULL or a pointer that names no entry of the table (a
    /// retired context's still names its entry: ``isLive`` tells).
    @inline(__always)
    static func from(_ pointer: OpaquePointer?) -> HostContext? {
        guard let pointer else { return nil }
        let handle = UInt64(UInt(bitPattern: pointer))
        let index = Int(truncatingIfNeeded: handle & 0xFFFF_FFFF) &- 1
        // Every entry below the count is made before the count is stored (releasing). An odd generation is a free
        // entry's, never a context's: matched, it would pass as live and reach the target the entry let go.
        guard index >= 0, index < ContextTable.madeCount.load(ordering: .acquiring), handle & 1 << 32 == 0 else { return nil }
        return HostContext(handle: handle)
    }

    /// Runs `body` with the context behind `pointer`, or answers `otherwise` for one that names none: the
    /// per-frame property calls go through here.
    @inline(__always)
    static func borrowing<R>(_ pointer: OpaquePointer?, otherwise: R, _ body: (HostContext) -> R) -> R {
        guard let context = from(pointer) else { return otherwise }
        return body(context)
    }

    // MARK: Tokens ([thread-safe])

    /// How many terminated tokens the context remembers now (at most ``rememberedTerminations``).
    var rememberedTerminationCount: Int { withLiveEntry { $0.pointee.more?.terminated.count ?? 0 } ?? 0 }

    /// How many tokens the context holds as objects (taken off the scheduler's thread); the others are ids.
    var heldTokenObjectCount: Int { withLiveEntry { $0.pointee.more?.objects.count ?? 0 } ?? 0 }

    /// A new token, or `nil` when the scheduler or the performer is gone. On the scheduler's thread the token is
    /// taken by id (no object); on another, as an object (``MotionCore/IsActiveTokenGenerator/generate()``).
    func generateToken() -> motion_token? {
        guard let generator = tokenGenerator else { return nil }
        if isOnSchedulerThread {
            // Only this thread retires the context, so it is still live once the id is taken.
            guard let id = generator.generateID() else { return nil }
            let kept: Void? = withLiveEntry { entry in
                if entry.pointee.token == 0 { entry.pointee.token = id } else { ContextTable.rarer(entry).ids.append(id) }
            }
            return kept == nil ? nil : id
        }
        guard let token = generator.generate() else { return nil }
        // Retired meanwhile: the token is the scheduler's to end (it is gone or going).
        let kept: Void? = withLiveEntry { ContextTable.rarer($0).objects[token.id] = token }
        return kept == nil ? nil : token.id
    }

    /// Terminates a token generated through this context (R33, R36, R37).
    /// - Returns: `MOTION_OK`; `MOTION_ERR_TOKEN_ALREADY_TERMINATED` for one of the last
    ///   ``rememberedTerminations`` tokens terminated through this context; `MOTION_ERR_UNKNOWN_TOKEN` for
    ///   0, an id never generated here, or a token terminated longer ago than that (forgotten: either way
    ///   the call changes nothing); `MOTION_ERR_SCHEDULER_GONE` once the scheduler or the performer is gone.
    func terminateToken(_ id: motion_token) -> motion_status {
        enum Found { case object(IsActiveToken), id(IsActiveTokenGenerator?), terminated, unknown }
        let found: Found? = withLiveEntry { entry in
            let held: Found?
            if id != 0, entry.pointee.token == id {
                entry.pointee.token = 0
                held = .id(entry.pointee.tokenGenerator)
            } else if let object = entry.pointee.more?.objects.removeValue(forKey: id) {
                held = .object(object)
            } else if let more = entry.pointee.more, let found = more.ids.firstIndex(of: id) {
                more.ids.remove(at: found)
                held = .id(entry.pointee.tokenGenerator)
            } else {
                held = nil
            }
            if let held {
                ContextTable.rarer(entry).rememberTermination(id)
                return held
            }
            return id != 0 && entry.pointee.more?.terminated.contains(id) == true ? .terminated : .unknown
        }
        switch found {
        case nil: return MOTION_ERR_SCHEDULER_GONE
        case .unknown: return MOTION_ERR_UNKNOWN_TOKEN
        case .terminated:
            HostDiagnostics.recordDoubleTermination()
            return MOTION_ERR_TOKEN_ALREADY_TERMINATED
        case .id(let generator):
            // False: the scheduler ended it already, going away or replacing the performer (R37, R43).
            return generator?.terminateOnAnyThread(tokenID: id) == true ? MOTION_OK : MOTION_ERR_SCHEDULER_GONE
        case .object(let token):
            do {
                try token.terminate()
                return MOTION_OK
            } catch {
                // Terminated by the host already: the scheduler went away and ended it (R37).
                return MOTION_ERR_SCHEDULER_GONE
            }
        }
    }
}

/// "" for `target_name` of NULL or of a retired context, as the header promises.
nonisolated(unsafe) let emptyCString: UnsafePointer<CChar> = {
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    pointer.pointee = 0
    return UnsafePointer(pointer)
}()

/// One context's state in the ``ContextTable`` (72 bytes).
///
/// Invariants: `generation` and `group` are written under the table's lock and read anywhere (atomics); `target`
/// and `performer` are written under the lock when the entry is taken (and `performer` by its proxy on the
/// scheduler's thread) and read on the context's scheduler thread only; the rest is read and written under the lock
/// only. An entry with an odd generation is free (in the free list); its group and `more` stay for late log lines of
/// its last context.
private struct ContextEntry: ~Copyable {
    /// The generation of the entry's current context (even), or, between contexts, the odd one between its last
    /// context's and its next one's: no handle names it, so a handle guessed one generation on from a retired one
    /// is refused (``HostContext/from(_:)``) rather than taken for live while the entry is free.
    let generation: Atomic<UInt32>
    /// The index of the entry's group in the table's groups (what the contexts of one plugin on one scheduler share).
    let group: Atomic<UInt32>
    /// The performer's target, retained (so that it can be read until the context retires, also while its
    /// scheduler goes away). Left as it is, released, when the context retires.
    var target: Unmanaged<Target>
    var emitter: TransactionEmitter?
    var tokenGenerator: IsActiveTokenGenerator?
    /// The first token the plugin holds, taken by id on the scheduler's thread, or 0: a running performer usually
    /// holds one. Any more, and tokens taken as objects, are in ``more``.
    var token: motion_token
    /// What few performers need (a second token, a terminated one, the target's C name), made on first use.
    var more: ContextRarer?
    /// The plugin's performer, for an entry plugin's proxy (``HostContext/performer``); `nil` for others.
    var performer: OpaquePointer?
}

/// What the contexts of one plugin's performers on one scheduler share, an entry of the ``ContextTable``'s groups
/// (where each context kept the thread, scene, identity and `update_many` flag, and its proxy the plugin, before).
///
/// Invariants: `thread` is an atomic, read anywhere (a group entry is never freed, only taken again); the rest is
/// written under the table's lock while no entry names the group (`references` 0) and read on the scheduler's thread
/// by the contexts that name it, or under the lock.
private struct GroupEntry: ~Copyable {
    /// The scheduler's thread (a `pthread_t`).
    let thread: Atomic<pthread_t>
    /// The scheduler's scene, unretained: the scheduler holds the scene, and the performer lives no longer than the
    /// scheduler (R42). `nil` in a group no entry names.
    var scene: Unmanaged<Scene>?
    var identity: PluginIdentity?
    /// The proxies' plugin (an ``EntryPlugin``), retained, or `nil`.
    var owner: AnyObject?
    var batchesFrames: Bool
    /// How many context entries name the group: live ones, and retired ones until they are taken again.
    var references: Int
}

/// The parts of a context's state that a running performer with one token does not use.
private final class ContextRarer {
    /// The tokens held by id besides ``ContextEntry/token``, in the order taken.
    var ids: [motion_token] = []
    /// The tokens held as objects (taken off the scheduler's thread), by id.
    var objects: [motion_token: IsActiveToken] = [:]
    /// The last ``HostContext/rememberedTerminations`` tokens terminated through this context, oldest first from
    /// `next` (a ring).
    var terminated: [motion_token] = []
    var next = 0
    /// The target's name as a C string for `target_name`, made on its first call and kept for the context's
    /// life (the header promises it stays valid as long as the context).
    var cTargetName: UnsafeMutablePointer<CChar>?
    /// A retired context's target name, for its late log lines while its entry is free.
    var retiredTargetName: String?

    func rememberTermination(_ id: motion_token) {
        if terminated.count < HostContext.rememberedTerminations {
            terminated.append(id)
        } else {
            terminated[next] = id
            next = (next + 1) % HostContext.rememberedTerminations
        }
    }

    deinit { free(cTargetName) }
}

/// Every host context of the process: entries in chunks of 4,096 that are made on demand and never moved or freed,
/// so that a handle's entry can be found from any thread with no lock (``HostContext/from(_:)``), and a retired
/// context's entry is taken again by a later one (a later generation), the longest retired first.
///
/// Invariants: entries below ``madeCount`` are initialised, and their chunks' pointers written, before the count is
/// stored; the free list holds each retired entry once. At most 2^26 contexts are live at once.
private enum ContextTable {
    static let chunkBits = 12
    static let chunkMask = 1 << chunkBits - 1
    static let chunkLimit = 1 << 14

    /// The chunks' pointers (16,384 of them, 128 KiB, whose pages are touched as chunks are made).
    nonisolated(unsafe) static let chunks: UnsafeMutablePointer<UnsafeMutablePointer<ContextEntry>?> = {
        let chunks = UnsafeMutablePointer<UnsafeMutablePointer<ContextEntry>?>.allocate(capacity: chunkLimit)
        chunks.initialize(repeating: nil, count: chunkLimit)
        return chunks
    }()

    /// How many entries were ever made.
    static let madeCount = Atomic<Int>(0)

    /// Guards the entries' locked fields; holds the free list: the indices of retired entries.
    static let lock = ProcessLock(FreeList())

    /// The retired entries' indices, oldest first: an entry is taken again as late as it can be, so that a late
    /// log line of its last context is attributed for as long as can be.
    struct FreeList {
        private var indices: [UInt32] = []
        private var head = 0

        mutating func append(_ index: UInt32) { indices.append(index) }

        mutating func popFirst() -> UInt32? {
            guard head < indices.count else { return nil }
            defer {
                head += 1
                // The taken half is dropped once it is most of the array.
                if head >= 1024, head * 2 >= indices.count {
                    indices.removeFirst(head)
                    head = 0
                }
            }
            return indices[head]
        }

        var count: Int { indices.count - head }
    }

    @inline(__always)
    static func entry(_ index: Int) -> UnsafeMutablePointer<ContextEntry> {
        chunks[index &>> chunkBits].unsafelyUnwrapped + (index & chunkMask)
    }

    /// Takes an entry for a new context on the calling thread's scheduler and returns its handle.
    static func make(target: Target, identity: PluginIdentity, batchesFrames: Bool, owner: AnyObject?) -> UInt64 {
        let thread = pthread_self()
        let scene = Unmanaged.passUnretained(target.scene)
        var released: (ContextRarer?, Released?) = (nil, nil)
        defer { _ = released }
        return lock.withLock { free in
            let group = takeGroup(thread: thread, scene: scene, identity: identity, batchesFrames: batchesFrames, owner: owner)
            let index: Int
            if let retired = free.popFirst() {
                index = Int(retired)
                let entry = self.entry(index)
                // The previous context's group and name (for its late lines) go, the group's objects outside the lock.
                released = (entry.pointee.more, dropGroup(entry.pointee.group.load(ordering: .relaxed)))
                entry.pointee.group.store(group, ordering: .relaxed)
                entry.pointee.target = .passRetained(target)
                (entry.pointee.more, entry.pointee.performer) = (nil, nil)
                // From the free (odd) generation to the new context's (even), once the entry is the new context's.
                entry.pointee.generation.store(entry.pointee.generation.load(ordering: .relaxed) &+ 1, ordering: .releasing)
            } else {
                index = madeCount.load(ordering: .relaxed)
                precondition(index < chunkLimit << chunkBits, "the host holds at most \(chunkLimit << chunkBits) plugin performers at once")
                if index & chunkMask == 0 { chunks[index &>> chunkBits] = .allocate(capacity: 1 << chunkBits) }
                entry(index).initialize(
                    to: ContextEntry(
                        generation: Atomic(0), group: Atomic(group), target: .passRetained(target), emitter: nil, tokenGenerator: nil,
                        token: 0, more: nil, performer: nil))
                madeCount.store(index + 1, ordering: .releasing)
            }
            let generation = entry(index).pointee.generation.load(ordering: .relaxed)
            return UInt64(generation) << 32 | UInt64(index + 1)
        }
    }

    // MARK: Groups

    /// The groups' chunks of 4,096 entries (made on demand, never moved or freed: a group's thread may be read from
    /// any thread; at most one group per context, so as many chunks as the contexts'), and how many groups were ever
    /// made. Under the lock, but for the chunks' pointers of made groups.
    static let groupChunkBits = chunkBits
    nonisolated(unsafe) static let groupChunks: UnsafeMutablePointer<UnsafeMutablePointer<GroupEntry>?> = {
        let chunks = UnsafeMutablePointer<UnsafeMutablePointer<GroupEntry>?>.allocate(capacity: chunkLimit)
        chunks.initialize(repeating: nil, count: chunkLimit)
        return chunks
    }()
    nonisolated(unsafe) static var madeGroupCount = 0
    /// Groups no entry names, to be taken again. Under the lock.
    nonisolated(unsafe) static var freeGroups: [UInt32] = []
    /// The group taken last, the one the next context most likely shares (the same plugin on the same scheduler).
    nonisolated(unsafe) static var lastGroup: UInt32?
    /// The groups in use by what they share, so that schedulers making performers on several threads at once still
    /// share one group each. Under the lock.
    nonisolated(unsafe) static var groupsByKey: [GroupKey: UInt32] = [:]

    /// What a group's contexts share, as a dictionary key: the identity and owner are held by the group while it is
    /// in use (so no other object takes their addresses meanwhile); a scene at the address of one that has gone is
    /// the same value for a group.
    struct GroupKey: Hashable {
        let identity: ObjectIdentifier
        let owner: ObjectIdentifier?
        let thread: pthread_t
        let scene: UnsafeMutableRawPointer
        let batchesFrames: Bool
    }

    static var groupsInUse: Int { madeGroupCount - freeGroups.count }

    /// What a group no entry names any more let go of, to release outside the lock.
    struct Released {
        let identity: PluginIdentity?
        let owner: AnyObject?
    }

    @inline(__always)
    static func group(_ index: UInt32) -> UnsafeMutablePointer<GroupEntry> {
        groupChunks[Int(index) &>> groupChunkBits].unsafelyUnwrapped + (Int(index) & (1 << groupChunkBits - 1))
    }

    /// The group of these (one more entry names it), found or made. Under the lock.
    private static func takeGroup(
        thread: pthread_t, scene: Unmanaged<Scene>, identity: PluginIdentity, batchesFrames: Bool, owner: AnyObject?
    ) -> UInt32 {
        if let last = lastGroup {
            let group = self.group(last)
            if group.pointee.references > 0, group.pointee.thread.load(ordering: .relaxed) == thread,
                group.pointee.scene?.toOpaque() == scene.toOpaque(), group.pointee.identity === identity,
                group.pointee.owner === owner, group.pointee.batchesFrames == batchesFrames
            {
                group.pointee.references += 1
                return last
            }
        }
        let key = GroupKey(
            identity: ObjectIdentifier(identity), owner: owner.map { ObjectIdentifier($0) }, thread: thread, scene: scene.toOpaque(),
            batchesFrames: batchesFrames)
        if let known = groupsByKey[key] {
            group(known).pointee.references += 1
            lastGroup = known
            return known
        }
        let index: UInt32
        if let free = freeGroups.popLast() {
            index = free
            let group = self.group(free)
            group.pointee.thread.store(thread, ordering: .relaxed)
            (group.pointee.scene, group.pointee.identity, group.pointee.owner) = (scene, identity, owner)
            (group.pointee.batchesFrames, group.pointee.references) = (batchesFrames, 1)
        } else {
            index = UInt32(madeGroupCount)
            if madeGroupCount & (1 << groupChunkBits - 1) == 0 {
                groupChunks[madeGroupCount &>> groupChunkBits] = .allocate(capacity: 1 << groupChunkBits)
            }
            group(index).initialize(
                to: GroupEntry(thread: Atomic(thread), scene: scene, identity: identity, owner: owner, batchesFrames: batchesFrames, references: 1))
            madeGroupCount += 1
        }
        groupsByKey[key] = index
        lastGroup = index
        return index
    }

    /// One entry fewer names the group; the group's objects when that was the last (the group is free). Under the lock.
    private static func dropGroup(_ index: UInt32) -> Released? {
        let group = self.group(index)
        group.pointee.references -= 1
        guard group.pointee.references == 0 else { return nil }
        let released = Released(identity: group.pointee.identity, owner: group.pointee.owner)
        if let identity = group.pointee.identity, let scene = group.pointee.scene {
            groupsByKey[
                GroupKey(
                    identity: ObjectIdentifier(identity), owner: group.pointee.owner.map { ObjectIdentifier($0) },
                    thread: group.pointee.thread.load(ordering: .relaxed), scene: scene.toOpaque(), batchesFrames: group.pointee.batchesFrames)] = nil
        }
        (group.pointee.scene, group.pointee.identity, group.pointee.owner) = (nil, nil, nil)
        freeGroups.append(index)
        return released
    }

    /// The entry's rarer parts, made on first use. Under the lock.
    static func rarer(_ entry: UnsafeMutablePointer<ContextEntry>) -> ContextRarer {
        if let more = entry.pointee.more { return more }
        let more = ContextRarer()
        entry.pointee.more = more
        return more
    }
}

/// Who a plugin is, for the host contexts of its performers: its name for messages and where its log lines go. One
/// per loaded plugin (``EntryPlugin/identity``, an isolated plugin's member), shared by every context.
///
/// Thread rule: immutable; safe from any thread.
final class PluginIdentity: Sendable {
    /// `plugin id (manifest path)`.
    let description: String
    /// Where the plugin's host sends its lines, if it has one.
    let logRoute: PluginLogRoute?

    init(description: String, logRoute: PluginLogRoute?) {
        self.description = description
        self.logRoute = logRoute
    }
}

/// Where plugin log lines go (`motion_host_v1.log`).
///
/// `log` takes no context, so a line is attributed by the thread it is logged on: while the host is
/// calling into a plugin on a thread (the entry, `create_performer`, plans, frames, samples, destroy), the
/// call's ``PluginLogRoute`` is the thread's, and the line goes to the sink of the ``PluginHost`` that made
/// the call (and, during the entry call, is kept as the entry's own words). A line logged on a thread the
/// host is not calling in on (a plugin's own thread) cannot be attributed: it goes to the process's
/// default sink, ``setSink(_:)``, or to standard error.
///
/// Thread rule: safe from any thread.
public enum PluginLog {
    /// A log line's level, `MOTION_LOG_*` in the C ABI.
    public enum Level: Int32, Sendable, CustomStringConvertible {
        case debug = 0, info, warning, error
        public var description: String { ["debug", "info", "warning", "error"][Int(rawValue)] }
    }

    /// A function that receives plugin log lines, already made safe for one line (``sanitized(_:)``).
    public typealias Sink = @Sendable (Level, String) -> Void

    private static let defaultSink = ProcessLock<Sink?>(nil)

    /// Sets the process's default sink: it receives the lines of hosts without a sink of their own and
    /// the lines no host call can be blamed for; `nil` writes warnings and errors to standard error.
    public static func setSink(_ newSink: Sink?) {
        defaultSink.withLock { $0 = newSink }
    }

    /// A plugin's text made safe for one terminal line: control characters (newlines, escape sequences)
    /// become visible `\u{..}` escapes.
    static func sanitized(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Runs `body` (a call into a plugin) with `route` as the calling thread's route (a C `_Thread_local`,
    /// `cmotionhost_exchange_log_route`: the plugin call the host is making on it); the previous route comes back
    /// afterwards (calls nest: a plugin's emission reaches another plugin).
    @inline(__always)
    static func routing<R>(_ route: PluginLogRoute, _ body: () throws -> R) rethrows -> R {
        let previous = cmotionhost_exchange_log_route(Unmanaged.passUnretained(route).toOpaque())
        defer { cmotionhost_exchange_log_route(previous) }
        return try body()
    }

    static func write(_ level: Level, _ rawMessage: String) {
        let message = sanitized(rawMessage)
        if let raw = cmotionhost_current_log_route() {
            let route = Unmanaged<PluginLogRoute>.fromOpaque(raw).takeUnretainedValue()
            route.capture(level, message)
            if let sink = route.sink {
                sink(level, message)
                return
            }
        }
        if let current = defaultSink.withLock({ $0 }) {
            current(level, message)
        } else if level.rawValue >= Level.warning.rawValue {
            StandardStream.error.write("plugin \(level): \(message)\n")
        }
    }
}

/// Where the log lines of one host's calls into a plugin go: the host's sink (`nil`: the process's
/// default), and, for an entry call, the lines themselves, so that a refusal quotes the plugin's own
/// words for that call.
///
/// Thread rule: a route is the calling thread's only while a call runs (``PluginLog/routing(_:_:)``);
/// the captured lines are touched on that thread alone. `@unchecked Sendable` for that reason.
final class PluginLogRoute: @unchecked Sendable {
    let sink: PluginLog.Sink?
    private let isCapturing: Bool
    /// The lines logged on the call's thread during the call, when capturing.
    private(set) var captured: [(level: PluginLog.Level, message: String)] = []

    init(sink: PluginLog.Sink?, capturing: Bool = false) {
        self.sink = sink
        self.isCapturing = capturing
    }

    func capture(_ level: PluginLog.Level, _ message: String) {
        if isCapturing { captured.append((level, message)) }
    }

    /// The line a refusal quotes: the last error logged during the call, else its last line.
    var reason: String? { (captured.last { $0.level == .error } ?? captured.last)?.message }
}

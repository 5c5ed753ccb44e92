import CMotionABI
import CMotionHostSupport
import CSeccomp
import FoundationEssentials
import Glibc
import MotionCore
import MotionFiles
import Synchronization

/// The sandbox side of an isolated plugin: the `motion-sandbox` process, one per isolated plugin or sandbox group
/// (``PluginIsolation/group``: each `load` request adds a plugin, each `create` names its plugin).
///
/// It is started by the host (``IsolatedPlugin``) with descriptor 5 the shared memory (``SandboxSharedMemory``),
/// whose rings carry its request channel (the host's calls, and the plugin's calls made on the thread that serves
/// them), 4 the socket of the plugin's own threads' channel (whose end of file also says the host is gone), and 3 a
/// socket kept for the request channel's descriptor layout (no data crosses it). It closes every other descriptor, waits for the `load` request,
/// confines itself (``SandboxConfinement``: the memory limit, `PR_SET_NO_NEW_PRIVS`, a seccomp filter), then
/// loads the library exactly as the host would (``LibraryLoader``: the trust checks and the sealed copy), calls
/// its entry and checks it (``EntryRegistry``, ``EntryPlugin``), and from then on calls the plugin as the
/// in-process host does (``EntryPerformer``), answering the plugin's calls of `motion_host_v1` by forwarding them
/// to the host; property writes are queued in shared memory and travel with the next message.
///
/// Thread rule: the thread that runs ``main()`` is the plugin's scheduler thread; the host functions the header
/// marks [thread-safe] are forwarded from any other thread over the second channel.
public enum SandboxServer {
    /// Serves the host until it closes the connection; never returns.
    public static func main() -> Never {
        cmotionhost_close_descriptors_from(6)
        let memory: UnsafeMutableRawPointer
        do { memory = try system_mapShared(5, size: SandboxSharedMemory.size) } catch {
            StandardStream.error.write("motion-sandbox: cannot map the shared memory (descriptor 5): \(error)\n")
            exit(70)
        }
        // A host that ends (or is killed) while the plugin is busy, e.g. hanging, must not leave this process behind:
        // a thread waits for the host's end of the second channel to close, and ends the process then.
        do {
            try DetachedThread.start(name: "motion-sandbox host watcher") {
                while !system_waitForHangUp(4) {}
                _exit(0)
            }
        } catch {
            StandardStream.error.write("motion-sandbox: \(error)\n")
            exit(70)
        }
        let server = Server(memory: SandboxSharedMemory(base: memory))
        Server.current = server
        PluginLog.setSink { level, line in Server.current?.forwardLog(level, line) }
        server.serve()
    }
}

/// The sandbox's context behind a `motion_host_context *`: the performer's slot (the host's number for it), its
/// target's name and the property names interned in its scene. Kept for the life of the process once retired,
/// as the host keeps its own.
final class SandboxContext: @unchecked Sendable {
    // @unchecked: immutable but for `live` (atomic), the scene's interned ids and the property slots (scheduler
    // thread only).
    let slot: UInt32
    /// Property id → the host's property slot of this performer's target, as resolved through this context.
    var propertySlots: [motion_property_id: motion_property_slot] = [:]
    let scene: SandboxScene
    let targetName: UnsafeMutablePointer<CChar>
    let live = Atomic<Bool>(true)

    init(slot: UInt32, scene: SandboxScene, targetName: String) {
        self.slot = slot
        self.scene = scene
        self.targetName = strdup(targetName)
        _ = Unmanaged.passRetained(self)
    }

    var isLive: Bool { live.load(ordering: .relaxed) }
    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    @inline(__always)
    static func borrowing<R>(_ pointer: OpaquePointer?, otherwise: R, _ body: (SandboxContext) -> R) -> R {
        guard let pointer else { return otherwise }
        return Unmanaged<SandboxContext>.fromOpaque(UnsafeRawPointer(pointer))._withUnsafeGuaranteedRef(body)
    }
}

/// The property names interned in one of the host's scenes, as far as this sandbox has asked for them: a write
/// with an id interned here is checked and queued without a round trip.
final class SandboxScene {
    var ids: [String: motion_property_id] = [:]
    var known: [Bool] = []
    /// The property slots resolved through this sandbox in the scene: a batch of writes to them is checked here.
    var knownSlots: [Bool] = []

    func isKnownSlot(_ slot: motion_property_slot) -> Bool { slot >= 0 && Int(slot) < knownSlots.count && knownSlots[Int(slot)] }

    func rememberSlot(_ slot: motion_property_slot) {
        guard slot >= 0 else { return }
        if Int(slot) >= knownSlots.count { knownSlots.append(contentsOf: repeatElement(false, count: Int(slot) + 1 - knownSlots.count)) }
        knownSlots[Int(slot)] = true
    }

    func isKnown(_ id: motion_property_id) -> Bool { id >= 0 && Int(id) < known.count && known[Int(id)] }

    func remember(_ name: String, _ id: motion_property_id) {
        guard id >= 0 else { return }
        ids[name] = id
        if Int(id) >= known.count { known.append(contentsOf: repeatElement(false, count: Int(id) + 1 - known.count)) }
        known[Int(id)] = true
    }
}

private final class Server: @unchecked Sendable {
    // @unchecked: the scheduler-thread state is touched on the serving thread only; `other` is behind its lock.
    nonisolated(unsafe) static var current: Server?

    let requests: SandboxChannel
    let other = ProcessLock(SandboxChannel(fd: 4))
    let memory: SandboxSharedMemory
    let schedulerThread = pthread_self()
    /// The plugins this sandbox loaded, in the order of the host's `load` requests: one, or the members of a
    /// sandbox group (``PluginIsolation/group``), each the host's member index.
    var plugins: [EntryPlugin] = []
    /// The first plugin (the only one outside a group).
    var plugin: EntryPlugin? { plugins.first }
    /// Each performer slot's plugin, an index into ``plugins``.
    var slotPlugins: [Int] = []
    var performers: [OpaquePointer?] = []
    var contexts: [SandboxContext] = []
    var scenes: [UInt32: SandboxScene] = [:]
    /// The bytes of property writes queued in shared memory since the last message to the host.
    var pendingWriteBytes = 0
    /// Property values the host sent with the plan being handed over (``IsolatedPerformer``'s prefetch), by
    /// performer slot and property id; valid until this sandbox next sends the host anything, and kept up to date
    /// with the plugin's own writes. `count` 0: the target has no value.
    var prefetched: [(slot: UInt32, id: motion_property_id, count: UInt32, values: (Double, Double, Double, Double))] = []
    let members = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: SandboxSharedMemory.memberCapacity)
    /// The `recreate` batch being made (from its first part to its last), or `nil`.
    var batch: RecreationBatch?

    init(memory: SandboxSharedMemory) {
        self.memory = memory
        requests = SandboxChannel(
            fd: 3, rings: (send: memory.sandboxToHost, receive: memory.hostToSandbox), ringCapacity: SandboxSharedMemory.ringCapacity,
            spinNanoseconds: SandboxSharedMemory.spinNanoseconds)
    }

    var isOnSchedulerThread: Bool { pthread_self() == schedulerThread }

    // MARK: Serving the host

    func serve() -> Never {
        while true {
            let message: SandboxMessage
            do { message = try requests.receive(timeout: nil) } catch {
                // The host closed the connection (it is done, or gone): nothing is left to do.
                exit(0)
            }
            handle(message)
        }
    }

    func quit(_ why: String) -> Never {
        StandardStream.error.write("motion-sandbox: \(why)\n")
        exit(70)
    }

    /// Sends a message to the host on the serving thread, with the queued writes before it. In a `recreate` batch, the
    /// reply of the call being made is kept for the batch's results instead, and the results kept so far go first.
    func send(_ kind: SandboxMessageKind, _ payload: WireWriter = WireWriter()) {
        if let batch, batch.nesting == 0 {
            if kind == .reply, batch.isInCall {
                batch.isInCall = false
                // The call's writes reach the host before its end does, as in process.
                if pendingWriteBytes > 0 { _ = call(.flushWrites, WireWriter()) }
                batch.addResult(payload)
                return
            }
            // One-way messages carry no writes: this side goes on at once and would overwrite them before the host
            // applied them (the host reads messages as R43 gets to them).
            if (kind == .log || kind == .contextLog), pendingWriteBytes > 0 { _ = call(.flushWrites, WireWriter()) }
            flushResults()
        }
        let pending = pendingWriteBytes
        pendingWriteBytes = 0
        if !prefetched.isEmpty { prefetched.removeAll(keepingCapacity: true) }
        do { try requests.send(kind, pendingWriteBytes: pending, payload) } catch { exit(0) }
    }

    /// A request to the host from the serving thread; serves the host's nested requests until its reply.
    func call(_ kind: SandboxMessageKind, _ payload: WireWriter) -> WireReader {
        send(kind, payload)
        while true {
            let message: SandboxMessage
            do { message = try requests.receive(timeout: nil) } catch { exit(0) }
            if message.kind == .reply { return message.payload }
            // A request of the host's made while it answers this one is answered at once, not kept for a batch.
            batch?.nesting += 1
            handle(message)
            batch?.nesting -= 1
        }
    }

    // MARK: A recreation batch (R43 in one request)

    /// Sends the batch's results kept so far, if any, as one `recreateResults` message (which carries no writes).
    func flushResults() {
        guard let batch, batch.count > 0 else { return }
        var out = WireWriter(capacity: batch.results.bytes.count + 4)
        out.u32(UInt32(batch.count))
        out.bytes += batch.results.bytes
        batch.clearResults()
        do { try requests.send(.recreateResults, pendingWriteBytes: 0, out) } catch { exit(0) }
    }

    /// One part of a `recreate` request: each call made as it is made alone, its reply kept; a performer whose
    /// `create` failed in the batch gets none of its plans (R43 gives it none); then the results and the part's reply.
    func recreate(_ input: inout WireReader) {
        guard let isLast = input.bool(), let count = input.u32() else { quit("a malformed recreate request") }
        let batch = self.batch ?? RecreationBatch()
        self.batch = batch
        for _ in 0..<count {
            guard let rawKind = input.u32(), let kind = SandboxMessageKind(rawValue: rawKind), RecreationBatch.callKinds.contains(kind),
                let payload = input.data()
            else { quit("a malformed recreate request") }
            let item = WireReader(Array(payload))
            var peek = item
            if kind != .create, let slot = peek.u32(), batch.failedSlots.contains(slot) { continue }
            batch.isInCall = true
            handle(SandboxMessage(kind: kind, pendingWriteBytes: 0, payload: item))
            if batch.isInCall { quit("a call of a recreate request gave no reply") }
            if batch.results.bytes.count >= RecreationBatch.resultBytesPerMessage { flushResults() }
        }
        flushResults()
        if isLast { self.batch = nil }
        send(.reply)
    }

    /// A request to the host from one of the plugin's own threads (one at a time, over the second channel).
    func callFromOtherThread(_ kind: SandboxMessageKind, _ payload: WireWriter, expectsReply: Bool = true) -> WireReader? {
        other.withLock { channel in
            do {
                try channel.send(kind, payload)
                guard expectsReply else { return nil }
                let reply = try channel.receive(timeout: nil)
                return reply.kind == .reply ? reply.payload : nil
            } catch { return nil }
        }
    }

    /// A fresh error out-parameter: one per call, since calls nest (a nested call must not touch the outer one's).
    static func makeError() -> motion_error {
        var error = motion_error()
        error.struct_size = UInt32(MemoryLayout<motion_error>.size)
        return error
    }

    static func text(of error: motion_error) -> String {
        var copy = error
        return withUnsafeBytes(of: &copy.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    func replyStatus(_ status: motion_status, _ error: motion_error) {
        var out = WireWriter()
        out.i32(status)
        out.string(status == MOTION_OK ? "" : Self.text(of: error))
        send(.reply, out)
    }

    /// The plugin a performer slot was created by (the request's slot was checked by ``performer(_:)`` first).
    func plugin(ofSlot slot: UInt32?) -> EntryPlugin { plugins[slotPlugins[Int(slot!)]] }

    func performer(_ slot: UInt32?) -> OpaquePointer {
        guard let slot, Int(slot) < performers.count, let performer = performers[Int(slot)] else {
            quit("the host named a performer this sandbox does not have")
        }
        return performer
    }

    /// Reads the prefetched property values after a plan, remembering their names' ids in the performer's scene.
    func readPrefetch(_ input: inout WireReader, slot: UInt32) {
        guard let count = input.u32() else { quit("a malformed plan request") }
        let scene = contexts[Int(slot)].scene
        for _ in 0..<count {
            guard let name = input.string(), let id = input.i32(), let components = input.u32(),
                components <= UInt32(MOTION_PROPERTY_MAX_COMPONENTS)
            else { quit("a malformed plan request") }
            var values: (Double, Double, Double, Double) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &values) { raw in
                for i in 0..<Int(components) { raw.storeBytes(of: input.f64() ?? 0, toByteOffset: 8 * i, as: Double.self) }
            }
            if !scene.isKnown(id) { scene.remember(name, id) }
            // In a batch, a value the plugin wrote since the host read it is asked for again.
            if let batch, batch.hasWrittenBySlot || batch.writtenProperties.contains(id) { continue }
            prefetched.append((slot, id, components, values))
        }
        // A batch's call gives the slots of those properties too (motion/slots.h's slot(), as the host would answer).
        guard let slotCount = input.u32() else { return }
        let context = contexts[Int(slot)]
        for _ in 0..<slotCount {
            guard let property = input.i32(), let propertySlot = input.i32(), propertySlot >= 0 else { quit("a malformed plan request") }
            context.propertySlots[property] = propertySlot
            scene.rememberSlot(propertySlot)
        }
    }

    /// The plan's fields for the host's plan-field readers while the plugin takes it, as the in-process host
    /// registers a plan in flight: read once here instead of parsed again for every field.
    func withPlanInFlight<R>(_ json: ArraySlice<UInt8>, _ body: (UnsafePointer<CChar>?, Int) -> R) -> R {
        json.withUnsafeBytes { raw in
            let chars = UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: CChar.self), count: raw.count)
            guard case .object(var fields)? = try? JSONParser.parse(raw), case .string(let type)? = fields["type"] else {
                return body(chars.baseAddress, chars.count)
            }
            fields["type"] = nil
            return PlansInFlight.with(Plan(type: type, fields: fields), bytes: chars) { body(chars.baseAddress, chars.count) }
        }
    }

    func handle(_ message: SandboxMessage) {
        var input = message.payload
        switch message.kind {
        case .load: load(&input)
        case .create: create(&input)
        case .addPlan:
            let slot = input.u32()
            let performer = performer(slot)
            guard let json = input.data() else { quit("a malformed add_plan request") }
            readPrefetch(&input, slot: slot!)
            var error = Self.makeError()
            let status = withPlanInFlight(json) { bytes, count in plugin(ofSlot: slot).table.pointee.add_plan(performer, bytes, count, &error) }
            replyStatus(status, error)
        case .addNamedPlan:
            let slot = input.u32()
            let performer = performer(slot)
            guard let name = input.string(), let json = input.data() else { quit("a malformed add_named_plan request") }
            readPrefetch(&input, slot: slot!)
            var error = Self.makeError()
            let status = name.withCString { namePointer in
                withPlanInFlight(json) { bytes, count in
                    plugin(ofSlot: slot).table.pointee.add_named_plan(performer, namePointer, bytes, count, &error)
                }
            }
            replyStatus(status, error)
        case .addPlanByHandle:
            let slot = input.u32()
            let performer = performer(slot)
            guard let plan = input.planBytes(), let add = plugin(ofSlot: slot).planHandles?.pointee.add_plan else {
                quit("a malformed add_plan request by handle")
            }
            readPrefetch(&input, slot: slot!)
            var error = Self.makeError()
            let status = input.withBytes(plan) { bytes in SandboxPlans.withHandle(bytes) { add(performer, $0, &error) } }
            guard let status else { quit("a malformed add_plan request by handle") }
            replyStatus(status, error)
        case .addNamedPlanByHandle:
            let slot = input.u32()
            let performer = performer(slot)
            guard let name = input.string(), let plan = input.planBytes(), let add = plugin(ofSlot: slot).planHandles?.pointee.add_named_plan
            else { quit("a malformed add_named_plan request by handle") }
            readPrefetch(&input, slot: slot!)
            var error = Self.makeError()
            let status = name.withCString { namePointer in
                input.withBytes(plan) { bytes in SandboxPlans.withHandle(bytes) { add(performer, namePointer, $0, &error) } }
            }
            guard let status else { quit("a malformed add_named_plan request by handle") }
            replyStatus(status, error)
        case .removeNamedPlan:
            let slot = input.u32()
            let performer = performer(slot)
            guard let name = input.string() else { quit("a malformed remove_named_plan request") }
            var error = Self.makeError()
            let status = name.withCString { plugin(ofSlot: slot).table.pointee.remove_named_plan(performer, $0, &error) }
            replyStatus(status, error)
        case .destroy:
            guard let slot = input.u32(), Int(slot) < performers.count else { quit("a malformed destroy request") }
            // A performer a restarted sandbox could not make again has nothing to destroy.
            if let performer = performers[Int(slot)] {
                plugin(ofSlot: slot).table.pointee.destroy_performer(performer)
                performers[Int(slot)] = nil
                contexts[Int(slot)].live.store(false, ordering: .releasing)
            }
            send(.reply)
        case .updateMany: updateMany(&input)
        case .recreate: recreate(&input)
        case .update:
            let slot = input.u32()
            let performer = performer(slot)
            guard let index = input.u64(), let time = input.f64(), let delta = input.f64() else { quit("a malformed update request") }
            var frame = motion_frame(struct_size: UInt32(MemoryLayout<motion_frame>.size), index: index, time: time, delta: delta)
            plugin(ofSlot: slot).frames?.pointee.update(performer, &frame)
            send(.reply)
        case .receiveSample:
            let slot = input.u32()
            let performer = performer(slot)
            guard let bytes = input.data(), bytes.count == MemoryLayout<motion_device_motion_sample>.size else {
                quit("a malformed device-motion sample")
            }
            var sample = motion_device_motion_sample()
            withUnsafeMutableBytes(of: &sample) { raw in raw.copyBytes(from: bytes) }
            plugin(ofSlot: slot).deviceMotion?.pointee.receive(performer, &sample)
            send(.reply)
        default:
            quit("the host sent a request of kind \(message.kind) this sandbox does not serve")
        }
    }

    /// The `update_many` request: the members from shared memory, the plugin's call, and the reply with its queued
    /// writes. Never inlined: `Benchmarks/callgrind-tweens.sh` counts the sandbox's side of a frame inside it.
    @inline(never)
    func updateMany(_ input: inout WireReader) {
        guard let index = input.u64(), let time = input.f64(), let delta = input.f64(), let count = input.u32(),
            Int(count) <= SandboxSharedMemory.memberCapacity, count > 0
        else { quit("a malformed update_many request") }
        for i in 0..<Int(count) { members[i] = performer(memory.members[i]) }
        var frame = motion_frame(struct_size: UInt32(MemoryLayout<motion_frame>.size), index: index, time: time, delta: delta)
        if plugins.count == 1 {
            plugins[0].updateMany?(members, Int(count), &frame)
        } else {
            updateGroupMembers(count: Int(count), &frame)
        }
        send(.reply)
    }

    /// A sandbox group's `update_many` request: its members (slots of several plugins, in the scheduler's order)
    /// split into runs of one plugin each, and one `update_many` call per run, in order, so each plugin sees what
    /// it would in a sandbox of its own.
    func updateGroupMembers(count: Int, _ frame: inout motion_frame) {
        var start = 0
        while start < count {
            let owner = slotPlugins[Int(memory.members[start])]
            var end = start + 1
            while end < count, slotPlugins[Int(memory.members[end])] == owner { end += 1 }
            plugins[owner].updateMany?(members + start, end - start, &frame)
            start = end
        }
    }

    /// The `load` request: confinement, then the library with the host's trust checks, its entry and the ABI
    /// checks. The reply is the plugin's description, or the ``PluginError`` the host would have met.
    func load(_ input: inout WireReader) {
        guard let manifestPath = input.string(), let libraryCount = input.u32() else { quit("a malformed load request") }
        var libraryPaths: [URL] = []
        for _ in 0..<libraryCount {
            guard let path = input.string() else { quit("a malformed load request") }
            libraryPaths.append(URL(fileURLWithPath: path, isDirectory: true))
        }
        guard let extraCount = input.u32() else { quit("a malformed load request") }
        var extra: [URL] = []
        for _ in 0..<extraCount {
            guard let path = input.string() else { quit("a malformed load request") }
            extra.append(URL(fileURLWithPath: path, isDirectory: true))
        }
        guard let pinCount = input.u32() else { quit("a malformed load request") }
        var pins: [String: String] = [:]
        for _ in 0..<pinCount {
            guard let key = input.string(), let hash = input.string() else { quit("a malformed load request") }
            pins[key] = hash
        }
        guard let requiresPins = input.bool(), let memoryLimit = input.u64() else { quit("a malformed load request") }
        var out = WireWriter()
        // A sandbox group's process is confined once, before its first library; its later loads are confined already.
        if plugins.isEmpty, let problem = SandboxConfinement.apply(memoryLimit: memoryLimit == 0 ? nil : Int(memoryLimit)) {
            out.bool(false)
            out.string(PluginError.Code.loadFailed.description)
            out.string("the sandbox could not confine itself: \(problem)")
            send(.reply, out)
            return
        }
        do throws(PluginError) {
            let manifest: PluginManifest
            do {
                manifest = try PluginManifest.load(contentsOf: URL(fileURLWithPath: manifestPath))
            } catch {
                throw PluginError(code: .loadFailed, message: "the sandbox cannot read the manifest: \(error)", manifest: nil, library: nil)
            }
            let loader = LibraryLoader(
                configuration: HostConfiguration(libraryPaths: libraryPaths, pins: pins, requiresPins: requiresPins),
                extraLibraryDirectories: extra)
            let library = try loader.load(manifest)
            let symbol = try library.requiredSymbol(MOTION_PLUGIN_ENTRY_SYMBOL, for: manifest)
            let cName = EntryPlugin.makeCName(name: manifest.id, manifest: manifest.url)
            let outcome = EntryRegistry.call(
                unsafeBitCast(symbol, to: motion_plugin_entry_fn.self), cName: cName, logSink: nil, host: SandboxHostInterface.table)
            let plugin = try EntryPlugin(
                outcome: outcome, name: manifest.id, cName: cName, expectedID: manifest.id, manifest: manifest.url,
                library: manifest.library, logSink: nil)
            plugins.append(plugin)
            out.bool(true)
            out.string(plugin.pluginID)
            out.u32(plugin.abiVersion)
            out.bool(plugin.hasFrames)
            out.bool(plugin.updateMany != nil)
            out.bool(plugin.hasDeviceMotion)
            out.u32(UInt32(plugin.extensionProblems.count))
            for problem in plugin.extensionProblems { out.string(problem) }
            let mismatches = plugin.capabilityMismatches(with: manifest)
            out.u32(UInt32(mismatches.count))
            for mismatch in mismatches { out.string(mismatch) }
            // What was loaded, for the host's reload and its `reload` line.
            out.string(library.resolvedPath)
            out.string(loader.sha256(of: library, manifest: manifest) ?? "")
            out.u64(library.key.device)
            out.u64(library.key.inode)
            out.bool(plugin.planHandles != nil)
        } catch {
            out = WireWriter()
            out.bool(false)
            out.string(error.code.description)
            out.string(error.message)
        }
        send(.reply, out)
    }

    func create(_ input: inout WireReader) {
        guard let slot = input.u32(), let sceneKey = input.u32(), let className = input.string(), let targetName = input.string(),
            Int(slot) >= contexts.count
        else { quit("a malformed create request") }
        // The plugin of a sandbox group's member (the host's member index, after the names; 0 outside a group).
        let member = Int(input.u32() ?? 0)
        guard member < plugins.count else { quit("a create request for a plugin this sandbox did not load") }
        let plugin = plugins[member]
        // A restarted sandbox re-creates the performers that still exist, in order, under their old slots.
        while contexts.count < Int(slot) {
            let gone = SandboxContext(slot: UInt32(contexts.count), scene: SandboxScene(), targetName: "")
            gone.live.store(false, ordering: .releasing)
            contexts.append(gone)
            performers.append(nil)
            slotPlugins.append(0)
        }
        let scene = scenes[sceneKey] ?? SandboxScene()
        scenes[sceneKey] = scene
        let context = SandboxContext(slot: slot, scene: scene, targetName: targetName)
        contexts.append(context)
        slotPlugins.append(member)
        var error = Self.makeError()
        let created = className.withCString { plugin.table.pointee.create_performer($0, context.targetName, context.opaque, &error) }
        performers.append(created)
        var out = WireWriter()
        out.bool(created != nil)
        if created == nil {
            batch?.failedSlots.insert(slot)
            context.live.store(false, ordering: .releasing)
            out.i32(error.status)
            out.string(Self.text(of: error))
        }
        send(.reply, out)
    }

    // MARK: The plugin's log lines

    func forwardLog(_ level: PluginLog.Level, _ line: String) {
        var out = WireWriter()
        out.i32(level.rawValue)
        out.string(line)
        if isOnSchedulerThread {
            send(.log, out)
        } else {
            _ = callFromOtherThread(.log, out, expectsReply: false)
        }
    }

    // MARK: Property writes

    /// Queues one checked write by id in shared memory, handing the queue over first when it is full.
    @inline(__always)
    func queue(slot: UInt32, property: motion_property_id, values: UnsafePointer<Double>, count: UInt32) {
        if !prefetched.isEmpty { dropPrefetched(property: property) }
        batch?.writtenProperties.insert(property)
        if pendingWriteBytes + SandboxSharedMemory.idWriteSize > SandboxSharedMemory.writeBytes {
            _ = call(.flushWrites, WireWriter())
        }
        let record = memory.writes + pendingWriteBytes
        record.storeBytes(of: UInt64(slot) + 1, as: UInt64.self)
        record.storeBytes(of: property, toByteOffset: 8, as: Int32.self)
        record.storeBytes(of: count, toByteOffset: 12, as: UInt32.self)
        (record + 16).copyMemory(from: values, byteCount: Int(count) * 8)
        pendingWriteBytes += SandboxSharedMemory.idWriteSize
    }

    /// Queues a checked `set_slots` batch in shared memory as one entry (its writes and values copied as they are),
    /// handing the queue over first when it would not fit; a batch larger than the whole queue goes in parts.
    func queueSlots(slot: UInt32, _ writes: UnsafePointer<motion_slot_write>, _ count: Int, _ values: UnsafePointer<Double>) {
        if !prefetched.isEmpty { prefetched.removeAll(keepingCapacity: true) }
        batch?.hasWrittenBySlot = true
        var first = 0
        var valueOffset = 0
        while first < count {
            // As many of the remaining writes as fit in the queue's free room (all of them, unless the batch is huge).
            var room = (SandboxSharedMemory.writeBytes - pendingWriteBytes - SandboxSharedMemory.slotBatchHeaderSize) / 8
            if room < 1 + Int(MOTION_PROPERTY_MAX_COMPONENTS), pendingWriteBytes > 0 {
                _ = call(.flushWrites, WireWriter())
                room = (SandboxSharedMemory.writeBytes - SandboxSharedMemory.slotBatchHeaderSize) / 8
            }
            var end = first
            var valueCount = 0
            while end < count, 1 + Int(writes[end].count) <= room {
                room -= 1 + Int(writes[end].count)
                valueCount += Int(writes[end].count)
                end += 1
            }
            if end == first {
                _ = call(.flushWrites, WireWriter())
                continue
            }
            let entry = memory.writes + pendingWriteBytes
            entry.storeBytes(of: (UInt64(slot) + 1) | 1 << 63, as: UInt64.self)
            entry.storeBytes(of: UInt32(end - first), toByteOffset: 8, as: UInt32.self)
            entry.storeBytes(of: UInt32(valueCount), toByteOffset: 12, as: UInt32.self)
            let writeBytes = (end - first) * MemoryLayout<motion_slot_write>.stride
            (entry + SandboxSharedMemory.slotBatchHeaderSize).copyMemory(from: writes + first, byteCount: writeBytes)
            (entry + SandboxSharedMemory.slotBatchHeaderSize + writeBytes).copyMemory(from: values + valueOffset, byteCount: valueCount * 8)
            pendingWriteBytes += SandboxSharedMemory.slotBatchHeaderSize + writeBytes + valueCount * 8
            first = end
            valueOffset += valueCount
        }
    }

    /// A write of the plugin's own to a prefetched property drops it (whatever the target: a write through another
    /// performer's context may be to the same one), so the next read asks the host, after the write.
    func dropPrefetched(property: motion_property_id) {
        prefetched.removeAll { $0.id == property }
    }

    /// A read answered from the prefetched values, with the host's statuses, or `nil` when it is not there.
    func prefetchedValue(
        slot: UInt32, id: motion_property_id, values: UnsafeMutablePointer<Double>?, capacity: UInt32, countOut: UnsafeMutablePointer<UInt32>
    ) -> motion_status? {
        guard let entry = prefetched.first(where: { $0.slot == slot && $0.id == id }) else { return nil }
        guard entry.count > 0 else {
            countOut.pointee = 0
            return MOTION_ERR_UNKNOWN_PROPERTY
        }
        countOut.pointee = entry.count
        guard let values, capacity >= entry.count else { return MOTION_ERR_BUFFER_TOO_SMALL }
        withUnsafeBytes(of: entry.values) { raw in
            for i in 0..<Int(entry.count) { values[i] = raw.load(fromByteOffset: 8 * i, as: Double.self) }
        }
        return MOTION_OK
    }

    /// One write's checks, in the order and with the statuses of the host's `set_property`; a write with an id
    /// this sandbox has not seen interned is made at once through the host, which knows.
    func setProperty(_ ctx: OpaquePointer?, _ id: motion_property_id, _ values: UnsafePointer<Double>?, _ count: UInt32) -> motion_status {
        guard let ctx, let values, count &- 1 < UInt32(MOTION_PROPERTY_MAX_COMPONENTS) else { return MOTION_ERR_INVALID_ARGUMENT }
        for i in 0..<Int(count) where !values[i].isFinite { return MOTION_ERR_INVALID_ARGUMENT }
        return SandboxContext.borrowing(ctx, otherwise: MOTION_ERR_INVALID_ARGUMENT) { context in
            guard context.isLive else { return MOTION_ERR_SCHEDULER_GONE }
            guard isOnSchedulerThread else { return MOTION_ERR_WRONG_THREAD }
            if context.scene.isKnown(id) {
                queue(slot: context.slot, property: id, values: values, count: count)
                return MOTION_OK
            }
            batch?.writtenProperties.insert(id)
            var out = WireWriter()
            out.u32(context.slot)
            out.i32(id)
            out.u32(count)
            for i in 0..<Int(count) { out.f64(values[i]) }
            var reply = call(.setProperty, out)
            return reply.i32() ?? MOTION_ERR_INTERNAL
        }
    }
}

/// The `motion_host_v1` a sandboxed plugin receives: the in-process host's checks, made here where they need
/// nothing of the host, and the rest forwarded to the host, which calls its own table with the performer's real
/// context. The plan-field readers are the host's own (they read only the JSON they are given).
enum SandboxHostInterface {
    nonisolated(unsafe) static let table: UnsafeMutablePointer<motion_host_v1> = {
        let host = HostInterface.table.pointee
        let table = UnsafeMutablePointer<motion_host_v1>.allocate(capacity: 1)
        table.initialize(
            to: motion_host_v1(
                struct_size: UInt32(MemoryLayout<motion_host_v1>.size),
                abi_version: UInt32(MOTION_ABI_VERSION),
                log: sandboxLog,
                emit_transaction: sandboxEmitTransaction,
                token_generate: sandboxTokenGenerate,
                token_terminate: sandboxTokenTerminate,
                property_id: sandboxPropertyID,
                get_property: sandboxGetProperty,
                set_property: sandboxSetProperty,
                target_name: sandboxTargetName,
                plan_number: host.plan_number,
                plan_numbers: host.plan_numbers,
                plan_string: host.plan_string,
                plan_value_json: host.plan_value_json,
                set_properties: sandboxSetProperties,
                get_extension: sandboxGetExtension))
        return table
    }()

    nonisolated(unsafe) static let slotsExtension: UnsafeMutablePointer<motion_property_slots_v1> = {
        let table = UnsafeMutablePointer<motion_property_slots_v1>.allocate(capacity: 1)
        table.initialize(
            to: motion_property_slots_v1(
                struct_size: UInt32(MemoryLayout<motion_property_slots_v1>.size), slot: sandboxSlot, set_slots: sandboxSetSlots))
        return table
    }()

    nonisolated(unsafe) static let logExtension: UnsafeMutablePointer<motion_log_v1> = {
        let table = UnsafeMutablePointer<motion_log_v1>.allocate(capacity: 1)
        table.initialize(to: motion_log_v1(struct_size: UInt32(MemoryLayout<motion_log_v1>.size), log: sandboxContextLog))
        return table
    }()
}

/// The server; set before the plugin is loaded, so never `nil` in a host function.
private var server: Server { Server.current! }

/// A thread-safe call: over the serving channel on the serving thread (the host answers on its scheduler
/// thread, as in process), else over the plugin threads' channel (the host answers on a thread of its own).
private func forward(_ kind: SandboxMessageKind, _ payload: WireWriter) -> WireReader? {
    server.isOnSchedulerThread ? server.call(kind, payload) : server.callFromOtherThread(kind, payload)
}

private let sandboxLog: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { level, message in
    guard let message else { return }
    PluginLog.write(PluginLog.Level(rawValue: level) ?? .info, String(cString: message))
}

private let sandboxContextLog: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?) -> Void = { ctx, level, message in
    guard let message else { return }
    guard let context = SandboxContext.borrowing(ctx, otherwise: nil, { $0 }) else {
        PluginLog.write(PluginLog.Level(rawValue: level) ?? .info, String(cString: message))
        return
    }
    var out = WireWriter()
    out.u32(context.slot)
    out.i32(level)
    out.string(String(cString: message))
    if server.isOnSchedulerThread {
        server.send(.contextLog, out)
    } else {
        _ = server.callFromOtherThread(.contextLog, out, expectsReply: false)
    }
}

private let sandboxGetExtension: @convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer? = { id in
    guard let id else { return nil }
    if strcmp(id, MOTION_HOST_EXTENSION_LOG) == 0 { return UnsafeRawPointer(SandboxHostInterface.logExtension) }
    if strcmp(id, MOTION_HOST_EXTENSION_PROPERTY_SLOTS) == 0 { return UnsafeRawPointer(SandboxHostInterface.slotsExtension) }
    // Plans by handle, read in place from the binary form the host sent, as the host's own extension reads them.
    if strcmp(id, MOTION_HOST_EXTENSION_PLANS) == 0 { return UnsafeRawPointer(SandboxPlans.table) }
    return nil
}

/// `motion_property_slots_v1.slot`: the host's answer, once per (performer, property), then from the context.
private let sandboxSlot: @convention(c) (OpaquePointer?, motion_property_id) -> motion_property_slot = { ctx, property in
    SandboxContext.borrowing(ctx, otherwise: MOTION_ERR_INVALID_ARGUMENT) { context in
        guard context.isLive else { return MOTION_ERR_SCHEDULER_GONE }
        guard server.isOnSchedulerThread else { return MOTION_ERR_WRONG_THREAD }
        if let slot = context.propertySlots[property] { return slot }
        var out = WireWriter()
        out.u32(context.slot)
        out.i32(property)
        var reply = server.call(.propertySlot, out)
        let slot = reply.i32() ?? MOTION_ERR_INTERNAL
        if slot >= 0 {
            context.propertySlots[property] = slot
            context.scene.rememberSlot(slot)
        }
        return slot
    }
}

/// `motion_property_slots_v1.set_slots`: every check of the host's, in its order, before anything is queued
/// (nothing of a failing batch is); the writes then travel with the next message, as set_properties' do. A batch
/// with a slot this plugin did not get from slot() is refused with MOTION_ERR_UNKNOWN_PROPERTY.
private let sandboxSetSlots:
    @convention(c) (OpaquePointer?, UnsafePointer<motion_slot_write>?, Int, UnsafePointer<Double>?, Int, UnsafeMutablePointer<Int>?) ->
        motion_status = { ctx, writes, count, values, valueCount, failedIndexOut in
            guard let ctx, count >= 0, valueCount >= 0, count == 0 || (writes != nil && values != nil) else { return MOTION_ERR_INVALID_ARGUMENT }
            let server = server
            return SandboxContext.borrowing(ctx, otherwise: MOTION_ERR_INVALID_ARGUMENT) { context in
                guard context.isLive else { return MOTION_ERR_SCHEDULER_GONE }
                guard server.isOnSchedulerThread else { return MOTION_ERR_WRONG_THREAD }
                // The host's checks, in its order; a slot not made by slot() through this sandbox is unknown
                // here (a slot number the plugin did not get from slot() may be one the host has; it is refused
                // all the same).
                let scene = context.scene
                // The known slots read in place for the batch: per write one unsigned compare and one load.
                let problem = scene.knownSlots.withUnsafeBufferPointer { known in
                    let knownCount = UInt32(truncatingIfNeeded: known.count)
                    return SlotBatch.problem(writes, count, values, valueCount) { UInt32(bitPattern: $0) < knownCount && known[Int($0)] }
                }
                if let (status, index) = problem {
                    failedIndexOut?.pointee = index
                    return status
                }
                guard let writes, let values else { return MOTION_OK }
                server.queueSlots(slot: context.slot, writes, count, values)
                return MOTION_OK
            }
        }

private let sandboxEmitTransaction:
    @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int, UnsafeMutablePointer<motion_error>?) -> motion_status = {
        ctx, json, length, errorOut in
        guard let context = SandboxContext.borrowing(ctx, otherwise: nil, { $0 }), let json, length > 0 else {
            fill(errorOut, MOTION_ERR_INVALID_ARGUMENT, "emit_transaction needs a context and a non-empty JSON buffer")
            return MOTION_ERR_INVALID_ARGUMENT
        }
        guard context.isLive else {
            fill(errorOut, MOTION_ERR_SCHEDULER_GONE, "the performer of this context was destroyed; nothing was emitted")
            return MOTION_ERR_SCHEDULER_GONE
        }
        // The caps first, here: a transaction over them never crosses to the host.
        if let problem = EmissionLimits.problem(json: UnsafeRawBufferPointer(start: json, count: length)) {
            fill(errorOut, MOTION_ERR_TOO_LARGE, problem)
            return MOTION_ERR_TOO_LARGE
        }
        var out = WireWriter()
        out.u32(context.slot)
        out.data(UnsafeRawBufferPointer(start: json, count: length))
        guard var reply = forward(.emit, out), let status = reply.i32(), let message = reply.string() else {
            fill(errorOut, MOTION_ERR_SCHEDULER_GONE, "the host is gone; nothing was emitted")
            return MOTION_ERR_SCHEDULER_GONE
        }
        if status != MOTION_OK { fill(errorOut, status, message) }
        return status
    }

private let sandboxTokenGenerate: @convention(c) (OpaquePointer?, UnsafeMutablePointer<motion_token>?) -> motion_status = {
    ctx, tokenOut in
    guard let context = SandboxContext.borrowing(ctx, otherwise: nil, { $0 }), let tokenOut else { return MOTION_ERR_INVALID_ARGUMENT }
    guard context.isLive else {
        tokenOut.pointee = 0
        return MOTION_ERR_SCHEDULER_GONE
    }
    // In a recreate batch, the token is the sandbox's own id, and the host takes the scheduler's for it when it reads
    // the batch's results, in their order (``SandboxRecreation``): no round trip per performer.
    if server.isOnSchedulerThread, let batch = server.batch, batch.nesting == 0 {
        tokenOut.pointee = batch.addToken(slot: context.slot)
        return MOTION_OK
    }
    var out = WireWriter()
    out.u32(context.slot)
    guard var reply = forward(.tokenGenerate, out), let status = reply.i32(), let token = reply.u64() else {
        tokenOut.pointee = 0
        return MOTION_ERR_SCHEDULER_GONE
    }
    tokenOut.pointee = token
    return status
}

private let sandboxTokenTerminate: @convention(c) (OpaquePointer?, motion_token) -> motion_status = { ctx, token in
    guard let context = SandboxContext.borrowing(ctx, otherwise: nil, { $0 }) else { return MOTION_ERR_INVALID_ARGUMENT }
    guard context.isLive else { return MOTION_ERR_SCHEDULER_GONE }
    var out = WireWriter()
    out.u32(context.slot)
    out.u64(token)
    guard var reply = forward(.tokenTerminate, out), let status = reply.i32() else { return MOTION_ERR_SCHEDULER_GONE }
    return status
}

private let sandboxPropertyID: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> motion_property_id = { ctx, name in
    guard let name, name.pointee != 0 else { return MOTION_ERR_INVALID_ARGUMENT }
    return SandboxContext.borrowing(ctx, otherwise: MOTION_ERR_INVALID_ARGUMENT) { context in
        guard context.isLive else { return MOTION_ERR_SCHEDULER_GONE }
        guard server.isOnSchedulerThread else { return MOTION_ERR_WRONG_THREAD }
        let text = String(cString: name)
        if let id = context.scene.ids[text] { return id }
        var out = WireWriter()
        out.u32(context.slot)
        out.string(text)
        var reply = server.call(.propertyID, out)
        let id = reply.i32() ?? MOTION_ERR_INTERNAL
        context.scene.remember(text, id)
        return id
    }
}

private let sandboxGetProperty:
    @convention(c) (OpaquePointer?, motion_property_id, UnsafeMutablePointer<Double>?, UInt32, UnsafeMutablePointer<UInt32>?) ->
        motion_status = { ctx, id, values, capacity, countOut in
            guard let countOut else { return MOTION_ERR_INVALID_ARGUMENT }
            return SandboxContext.borrowing(ctx, otherwise: MOTION_ERR_INVALID_ARGUMENT) { context in
                guard context.isLive else {
                    countOut.pointee = 0
                    return MOTION_ERR_SCHEDULER_GONE
                }
                guard server.isOnSchedulerThread else { return MOTION_ERR_WRONG_THREAD }
                if let status = server.prefetchedValue(slot: context.slot, id: id, values: values, capacity: capacity, countOut: countOut) {
                    return status
                }
                var out = WireWriter()
                out.u32(context.slot)
                out.i32(id)
                out.u32(values == nil ? 0 : capacity)
                var reply = server.call(.getProperty, out)
                guard let status = reply.i32(), let count = reply.u32() else { return MOTION_ERR_INTERNAL }
                countOut.pointee = count
                if status == MOTION_OK, let values {
                    for i in 0..<Int(min(count, capacity)) { values[i] = reply.f64() ?? 0 }
                }
                return status
            }
        }

private let sandboxSetProperty: @convention(c) (OpaquePointer?, motion_property_id, UnsafePointer<Double>?, UInt32) -> motion_status = {
    ctx, id, values, count in
    server.setProperty(ctx, id, values, count)
}

private let sandboxSetProperties: @convention(c) (UnsafePointer<motion_property_write>?, Int, Int, UnsafeMutablePointer<Int>?) -> motion_status = {
    writes, count, writeSize, failedIndexOut in
    guard count != 0 else { return MOTION_OK }
    guard let writes, count > 0, writeSize >= MemoryLayout<motion_property_write>.size,
        writeSize % MemoryLayout<motion_property_write>.alignment == 0, count <= Int.max / writeSize
    else {
        failedIndexOut?.pointee = 0
        return MOTION_ERR_INVALID_ARGUMENT
    }
    let server = server
    var firstFailure = MOTION_OK
    var write = UnsafeRawPointer(writes)
    let valuesOffset = MemoryLayout<motion_property_write>.offset(of: \.values)!
    for index in 0..<count {
        let entry = write.assumingMemoryBound(to: motion_property_write.self)
        let status = server.setProperty(
            entry.pointee.ctx, entry.pointee.property, (write + valuesOffset).assumingMemoryBound(to: Double.self), entry.pointee.count)
        if status != MOTION_OK, firstFailure == MOTION_OK {
            firstFailure = status
            failedIndexOut?.pointee = index
        }
        write += writeSize
    }
    return firstFailure
}

private let sandboxTargetName: @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>? = { ctx in
    SandboxContext.borrowing(ctx, otherwise: UnsafePointer(SandboxContext.empty)) { context in
        context.isLive ? UnsafePointer(context.targetName) : UnsafePointer(SandboxContext.empty)
    }
}

extension SandboxContext {
    /// "" for `target_name` of a NULL or retired context, as the header promises.
    nonisolated(unsafe) static let empty: UnsafeMutablePointer<CChar> = {
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        pointer.pointee = 0
        return pointer
    }()
}

/// The sandbox's side of a `recreate` batch (``SandboxMessageKind/recreate``): the replies of its calls and the tokens
/// its plugin took, kept in order until they are sent (``SandboxMessageKind/recreateResults``).
final class RecreationBatch {
    /// The kinds of call a batch holds.
    static let callKinds: Set<SandboxMessageKind> = [.create, .addPlan, .addNamedPlan, .addPlanByHandle, .addNamedPlanByHandle]
    /// Results are sent once they reach this many bytes (a few hundred calls: the host uses them while the sandbox
    /// makes the next ones), and before any other message.
    static let resultBytesPerMessage = 4 << 10
    /// Bit 63: a token id the sandbox gave during a batch (the scheduler's never reach it); the host keeps the
    /// scheduler's id for each (``SandboxRecreation``).
    static let tokenBit: UInt64 = 1 << 63

    private(set) var results = WireWriter(capacity: resultBytesPerMessage + 4096)
    private(set) var count = 0
    /// Whether a call of the batch is being made (its reply is kept, not sent).
    var isInCall = false
    /// How deep the host's own requests, made while it answers one of the sandbox's, are nested (answered at once).
    var nesting = 0
    /// The performers whose `create` failed in this batch: their plans are not given.
    var failedSlots: Set<UInt32> = []
    /// The property ids the plugin wrote by id during the batch, and whether it wrote by slot: the values the host
    /// read for later calls before the batch are stale for those, and asked for again.
    var writtenProperties: Set<motion_property_id> = []
    var hasWrittenBySlot = false
    /// The next token id the sandbox gives (within the process, with ``tokenBit``).
    nonisolated(unsafe) private static var nextToken: UInt64 = 1

    func addResult(_ reply: WireWriter) {
        results.bytes.append(0)
        reply.bytes.withUnsafeBytes { results.data($0) }
        count += 1
    }

    /// A token id for a `token_generate` of the performer in `slot`, recorded for the host.
    func addToken(slot: UInt32) -> motion_token {
        let token = Self.tokenBit | Self.nextToken
        Self.nextToken += 1
        results.bytes.append(1)
        results.u32(slot)
        results.u64(token)
        count += 1
        return token
    }

    func clearResults() {
        results.bytes.removeAll(keepingCapacity: true)
        count = 0
    }
}

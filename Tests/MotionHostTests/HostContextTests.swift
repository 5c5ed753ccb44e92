import CMotionABI
import Foundation
import MotionCore
import Synchronization
import Testing

@testable import MotionHost

/// A performer that only keeps the token generator the scheduler hands it.
private final class GeneratorKeeper: ContinuousPerforming {
    var generator: IsActiveTokenGenerator?
    func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
    func addPlan(_ plan: Plan) throws {}
}

@Suite("A host context's tokens and lifetime")
struct HostContextTests {
    /// A context over a scheduler's real token generator.
    func context() throws -> (HostContext, Scheduler) {
        let scene = Scene(targets: ["t"])
        let registry = InProcessRegistry()
        let keeper = GeneratorKeeper()
        registry.register(planTypes: ["Keep"], className: "Keeper") { _ in keeper }
        let scheduler = Scheduler(scene: scene, registry: registry)
        try scheduler.commit(Transaction([.add(Plan(type: "Keep"), target: "t")]))
        let context = HostContext(target: try #require(scene.target("t")), pluginDescription: "test")
        context.tokenGenerator = keeper.generator
        return (context, scheduler)
    }

    @Test("several tokens held at once end in any order, each once, and the rest are ended with the context (R32, R33, R37)")
    func severalTokensEndInAnyOrder() throws {
        let (context, scheduler) = try context()
        let tokens = try (0..<4).map { _ in try #require(context.generateToken()) }
        #expect(Set(tokens).count == 4 && scheduler.isActive)
        // The first held (kept inline) after another, then one of the others twice.
        #expect(context.terminateToken(tokens[1]) == MOTION_OK)
        #expect(context.terminateToken(tokens[0]) == MOTION_OK)
        #expect(context.terminateToken(tokens[0]) == MOTION_ERR_TOKEN_ALREADY_TERMINATED)
        #expect(context.terminateToken(tokens[3]) == MOTION_OK)
        #expect(context.terminateToken(tokens[3]) == MOTION_ERR_TOKEN_ALREADY_TERMINATED)
        #expect(context.terminateToken(999_999) == MOTION_ERR_UNKNOWN_TOKEN)
        // A new token is held again after the first was ended; then two remain, and the context ends both.
        let later = try #require(context.generateToken())
        #expect(!tokens.contains(later))
        #expect(context.endAllTokens() == 2)
        #expect(!scheduler.isActive)
        #expect(context.endAllTokens() == 0)
    }

    @Test("the terminated tokens a context remembers are bounded; recent double terminations are still reported (R33)")
    func terminatedTokensAreBounded() throws {
        let (context, scheduler) = try context()
        var ids: [motion_token] = []
        for _ in 0..<5_000 {
            let id = try #require(context.generateToken())
            #expect(context.terminateToken(id) == MOTION_OK)
            ids.append(id)
        }
        #expect(context.rememberedTerminationCount == HostContext.rememberedTerminations)
        // The latest 1024 are remembered: a second terminate is MOTION_ERR_TOKEN_ALREADY_TERMINATED.
        #expect(context.terminateToken(ids[ids.count - 1]) == MOTION_ERR_TOKEN_ALREADY_TERMINATED)
        #expect(context.terminateToken(ids[ids.count - HostContext.rememberedTerminations]) == MOTION_ERR_TOKEN_ALREADY_TERMINATED)
        // An older one is forgotten: no effect either way, reported as unknown.
        #expect(context.terminateToken(ids[ids.count - HostContext.rememberedTerminations - 1]) == MOTION_ERR_UNKNOWN_TOKEN)
        #expect(context.terminateToken(0) == MOTION_ERR_UNKNOWN_TOKEN)
        #expect(!scheduler.isActive)
        #expect(scheduler.outstandingTokenCount == 0)
    }

    @Test("a retired context answers every host call with MOTION_ERR_SCHEDULER_GONE and does nothing")
    func retiredContextIsGone() throws {
        let (context, scheduler) = try context()
        let held = try #require(context.generateToken())
        #expect(scheduler.isActive)
        context.retire()
        let host = HostInterface.table.pointee
        var token: motion_token = 99
        #expect(host.token_generate(context.opaque, &token) == MOTION_ERR_SCHEDULER_GONE)
        #expect(token == 0)
        #expect(host.token_terminate(context.opaque, held) == MOTION_ERR_SCHEDULER_GONE)
        #expect(host.property_id(context.opaque, "p") == MOTION_ERR_SCHEDULER_GONE)
        var value = 1.0
        #expect(host.set_property(context.opaque, 0, &value, 1) == MOTION_ERR_SCHEDULER_GONE)
        var count: UInt32 = 7
        #expect(host.get_property(context.opaque, 0, &value, 1, &count) == MOTION_ERR_SCHEDULER_GONE)
        #expect(count == 0)
        let json = #"{"operations":[]}"#
        #expect(host.emit_transaction(context.opaque, json, json.utf8.count, nil) == MOTION_ERR_SCHEDULER_GONE)
        #expect(host.target_name(context.opaque).map { String(cString: $0) } == "")
        // The token the context held is the scheduler's to end, not the plugin's any more.
        #expect(scheduler.isActive)
    }
}

@Suite("Host contexts in the process's table (issue 12: no memory kept per retired context)")
struct HostContextTableTests {
    @Test("a retired context's entry is taken again by later contexts, and the retired handle stays gone (its generation)")
    func retiredEntriesAreReused() throws {
        let scene = Scene(targets: ["card"])
        let target = try #require(scene.target("card"))
        let first = HostContext(target: target, pluginDescription: "test")
        first.retire()
        let made = HostContext.madeEntryCount
        var last = first
        for _ in 0..<10_000 {
            last = HostContext(target: target, pluginDescription: "test")
            last.retire()
        }
        // Kept forever, 10,000 retired contexts would be 10,000 more; other tests make contexts meanwhile.
        #expect(HostContext.madeEntryCount - made < 1_000)
        let live = HostContext(target: target, pluginDescription: "test")
        defer { live.retire() }
        #expect(live.isLive && !first.isLive && !last.isLive)
        #expect(live != first && live != last)
        let host = HostInterface.table.pointee
        var value = 1.0
        #expect(host.set_property(first.opaque, 0, &value, 1) == MOTION_ERR_SCHEDULER_GONE)
        #expect(host.property_id(first.opaque, "x") == MOTION_ERR_SCHEDULER_GONE)
        #expect(host.target_name(first.opaque).map { String(cString: $0) } == "")
        #expect(host.target_name(live.opaque).map { String(cString: $0) } == "card")
        #expect(host.property_id(live.opaque, "x") >= 0)
    }

    @Test("a retired context's handle with the next generation (never handed out while the entry is free) is refused, and writes nothing")
    func nextGenerationOfAFreeEntryIsRefused() throws {
        let scene = Scene(targets: ["card"])
        let target = try #require(scene.target("card"))
        target.setValue(PropertyValue(1.0), forName: "x")
        let context = HostContext(target: target, pluginDescription: "test")
        let host = HostInterface.table.pointee
        let property = host.property_id(context.opaque, "x")
        #expect(property >= 0)
        context.retire()
        // What a plugin may guess: its own retired handle, one generation on.
        let forged = OpaquePointer(bitPattern: UInt(context.handle &+ 1 << 32))
        var value = 5.0
        #expect(host.set_property(forged, property, &value, 1) == MOTION_ERR_INVALID_ARGUMENT)
        var count: UInt32 = 7
        #expect(host.get_property(forged, property, &value, 1, &count) == MOTION_ERR_INVALID_ARGUMENT)
        #expect(host.property_id(forged, "x") == MOTION_ERR_INVALID_ARGUMENT)
        #expect(target["x"] == PropertyValue(1.0))
    }

    @Test("a pointer that is no host context is refused with MOTION_ERR_INVALID_ARGUMENT, never read")
    func foreignPointerIsRefused() {
        let host = HostInterface.table.pointee
        // An index far past any entry the process made.
        let foreign = OpaquePointer(bitPattern: 0x0000_7F00_FFFF_FFF0)
        var value = 1.0
        #expect(host.set_property(foreign, 0, &value, 1) == MOTION_ERR_INVALID_ARGUMENT)
        #expect(host.property_id(foreign, "x") == MOTION_ERR_INVALID_ARGUMENT)
        var token: motion_token = 0
        #expect(host.token_generate(foreign, &token) == MOTION_ERR_INVALID_ARGUMENT)
        #expect(host.token_terminate(foreign, 1) == MOTION_ERR_INVALID_ARGUMENT)
        #expect(host.target_name(foreign).map { String(cString: $0) } == "")
    }

    @Test(
        "the contexts of one plugin on one scheduler share one group (its thread, scene and identity); another plugin's, and another thread's, have their own; a group no entry names is taken again"
    )
    func contextsShareAGroupPerPluginAndScheduler() throws {
        let scene = Scene(targets: ["a", "b"])
        let (a, b) = (try #require(scene.target("a")), try #require(scene.target("b")))
        let identity = PluginIdentity(description: "group test", logRoute: nil)
        let first = HostContext(target: a, identity: identity)
        let second = HostContext(target: b, identity: identity)
        let otherPlugin = HostContext(target: b, identity: PluginIdentity(description: "other", logRoute: nil))
        defer { [first, second, otherPlugin].forEach { $0.retire() } }
        #expect(first.groupIndex == second.groupIndex)
        #expect(otherPlugin.groupIndex != first.groupIndex)
        #expect(first.identity === identity && second.identity === identity)
        #expect(first.schedulerThread == pthread_self())
        #expect(first.withScene { $0 === scene } && second.withTarget { $0 === b })
        // A context made on another thread (its scheduler's) is in a group of that thread.
        let elsewhere = Mutex<(group: UInt32, isThatThread: Bool)?>(nil)
        // The same target (read on that thread only while this one waits): only the thread differs.
        nonisolated(unsafe) let sameTarget = a
        let thread = Thread {
            let context = HostContext(target: sameTarget, identity: identity)
            elsewhere.withLock { $0 = (context.groupIndex, context.schedulerThread == pthread_self() && context.isOnSchedulerThread) }
            context.retire()
        }
        thread.start()
        var waited = 0
        while !thread.isFinished, waited < 500 {
            usleep(10_000)
            waited += 1
        }
        let made = try #require(elsewhere.withLock { $0 })
        #expect(made.group != first.groupIndex && made.isThatThread)
        #expect(first.isOnSchedulerThread)
        // 2,000 plugins' contexts made and retired one after another: each retired entry is taken again, and the group
        // it named with it, so the groups made grow by far less (other tests make groups meanwhile).
        let groups = HostContext.madeGroupCount
        for index in 0..<2_000 {
            HostContext(target: a, identity: PluginIdentity(description: "plugin \(index)", logRoute: nil)).retire()
        }
        #expect(HostContext.madeGroupCount - groups < 1_000)
    }

    @Test("a token taken on the scheduler's thread is held as an id, and another thread may end it (R36)")
    func tokenByIDEndsFromAnotherThread() throws {
        let (context, scheduler) = try HostContextTests().context()
        let token = try #require(context.generateToken())
        #expect(context.heldTokenObjectCount == 0)
        #expect(scheduler.isActive)
        let status = Mutex<motion_status>(MOTION_ERR_INTERNAL)
        let thread = Thread { status.withLock { $0 = HostInterface.table.pointee.token_terminate(context.opaque, token) } }
        thread.start()
        var waited = 0
        while !thread.isFinished, waited < 500 {
            usleep(10_000)
            waited += 1
        }
        #expect(status.withLock { $0 } == MOTION_OK)
        // Delivered at the scheduler's next turn, on its thread.
        #expect(scheduler.isActive)
        scheduler.processPendingWork()
        #expect(!scheduler.isActive)
        #expect(context.terminateToken(token) == MOTION_ERR_TOKEN_ALREADY_TERMINATED)
    }

    @Test("a token taken on another thread is held as an object and ends on the scheduler's thread (R36)")
    func tokenFromAnotherThreadIsAnObject() throws {
        let (context, scheduler) = try HostContextTests().context()
        let token = Mutex<motion_token>(0)
        let thread = Thread { token.withLock { _ = HostInterface.table.pointee.token_generate(context.opaque, &$0) } }
        thread.start()
        var waited = 0
        while !thread.isFinished, waited < 500 {
            usleep(10_000)
            waited += 1
        }
        let id = token.withLock { $0 }
        #expect(id != 0)
        #expect(context.heldTokenObjectCount == 1)
        scheduler.processPendingWork()
        #expect(scheduler.isActive)
        #expect(context.terminateToken(id) == MOTION_OK)
        #expect(context.heldTokenObjectCount == 0)
        #expect(!scheduler.isActive)
    }
}

import CMotionABI
import Foundation
import MotionCore
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

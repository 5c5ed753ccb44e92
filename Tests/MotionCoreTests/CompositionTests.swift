import Foundation
import MotionCore
import MotionTesting
import Testing

@Suite("Composition")
struct CompositionTests {
    @Test func emittedPlanIsPerformedBeforeTheOuterCommitReturns() throws {  // R22
        let h = Harness()
        try h.commit { $0.add(emitPlan(adding: plan("Record", ["n": 7]), to: "a"), to: "a") }
        let calls = h.calls.filter { !$0.hasPrefix("emitter") && !$0.hasPrefix("tokens") }
        #expect(calls.count == 4)
        #expect(calls[0] == "create EmittingPerformer@a")
        #expect(calls[1].hasPrefix("add EmittingPerformer@a"))
        #expect(calls[2] == "create RecordingPerformer@a")
        #expect(calls[3] == #"add RecordingPerformer@a {"n":7,"type":"Record"}"#)
    }

    @Test func emittedPlansAreTracedAndCountedForActivity() throws {  // R23
        let h = Harness()
        try h.commit { $0.add(emitPlan(adding: plan("HoldTokens", ["count": 1]), to: "a"), to: "a") }
        #expect(h.scheduler.isActive)
        let kinds = h.tracer.events.map { event -> String in
            switch event {
            case .committed: "commit"
            case .emitted: "emit"
            case .performerCreated(let p): "create \(p.className)"
            case .planAdded(let plan, _): "add \(plan.type)"
            case .tokenGenerated: "token"
            case .activityChanged(let a): a ? "active" : "idle"
            default: "other"
            }
        }
        #expect(
            kinds == [
                "commit", "create EmittingPerformer", "emit", "create TokenPerformer", "token", "active",
                "add HoldTokens", "add Emit",
            ])
    }

    @Test func emittingToAnotherTargetWorksAndIsTracedAsSuch() throws {  // R24
        let h = Harness()
        try h.commit {
            $0.add(emitPlan(adding: plan("Record"), to: "a"), to: "a")
            $0.add(emitPlan(adding: plan("Record"), to: "a"), to: "b")
        }
        let crossings = h.tracer.events.compactMap { event -> Bool? in
            if case .emitted(_, _, let crosses) = event { return crosses }
            return nil
        }
        #expect(crossings == [false, true])
        #expect(h.log.entries(startingWith: "add RecordingPerformer@a").count == 2)
    }

    @Test func emissionCycleFailsNamingTheChain() throws {  // R25
        let h = Harness()
        // Emit(a) emits Record(b) and Emit(a) again: a cycle on (Emit, a).
        let inner = emitPlan(adding: plan("Record"), to: "b")
        let outer = emitPlan(adding: inner, to: "a")
        var failure: CommitError?
        do { try h.commit { $0.add(outer, to: "a") } } catch { failure = error }
        let error = try #require(failure)
        #expect(error.code == .emissionCycle)
        #expect(error.emissionChain == ["Emit", "Emit"])
        #expect(error.operationIndex == 0)
        #expect(error.message.contains("Emit → Emit"))
        // The scheduler is still usable afterwards.
        try h.commit { $0.add(plan("Record"), to: "b") }
    }

    @Test func emissionDeeperThanTheBoundFails() throws {  // R25
        let targets = (0...40).map { "t\($0)" }
        let h = Harness()
        for t in targets { h.scene.addTarget(TargetID(t)) }
        var p = plan("Record")
        for t in targets.reversed() { p = emitPlan(adding: p, to: t) }
        var failure: CommitError?
        do { try h.commit { $0.add(p, to: "a") } } catch { failure = error }
        let error = try #require(failure)
        #expect(error.code == .emissionTooDeep)
        #expect(error.emissionChain.count == Scheduler.maximumEmissionDepth + 1)
    }

    @Test func emitterAfterTheSchedulerIsGoneDoesNothingAndSaysSo() throws {  // R26
        var h: Harness? = Harness()
        try h!.commit { $0.add(plan("Emit"), to: "a") }
        let performer = try #require(h!.scheduler.performer(forTarget: "a", className: "EmittingPerformer") as? EmittingPerformer)
        let log = h!.log
        h = nil
        var transaction = Transaction()
        transaction.add(plan("Record"), to: "a")
        #expect(try performer.emitNow(transaction) == false)
        #expect(!log.all.contains { $0.hasPrefix("add RecordingPerformer") })
    }

    @Test func emitterAndTokenGeneratorOfAPerformerThatFailedToBeMadeDoNothing() throws {  // R12, R26
        // The factory keeps what its context gave it, then fails: no performer exists, so what it kept
        // must change nothing later (it must not act for the next performer made in the place it was given).
        final class Kept { var context: PerformerContext? }
        let kept = Kept()
        let h = Harness { log in
            let registry = TestPerformers.makeRegistry(log: log)
            registry.register(planTypes: ["Fail"], className: "FailingPerformer") { context in
                kept.context = context
                throw CommitError(code: .performerRefused, message: "refused on purpose")
            }
            return registry
        }
        #expect(throws: CommitError.self) { try h.commit { $0.add(plan("Fail"), to: "a") } }
        try h.commit { $0.add(plan("Record"), to: "b") }
        let context = try #require(kept.context)
        var transaction = Transaction()
        transaction.add(plan("Record", ["n": 1]), to: "a")
        _ = try context.emitter.emit(transaction)
        let token = try #require(context.tokenGenerator.generate())
        #expect(h.log.entries(startingWith: "add RecordingPerformer@a").isEmpty)
        #expect(h.scheduler.performerDescriptions.map(\.description) == ["RecordingPerformer@b"])
        #expect(!h.scheduler.isActive)
        #expect(token.isTerminated)
    }

    @Test func aFactoryThatEmitsAnAddWhileItIsMadeKeepsItsOwnPlace() throws {  // R5, R22, R32
        // The factory emits (its context's emitter works at once on the scheduler's thread): the performer
        // its emission makes is created first. The outer performer must still get its own plan, tokens and
        // name, not the inner one's place.
        final class Outer: ContinuousPerforming {
            var plans = 0
            var generator: IsActiveTokenGenerator?
            var token: IsActiveToken?
            func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
            func addPlan(_ plan: Plan) throws { plans += 1 }
        }
        let h = Harness { log in
            let registry = TestPerformers.makeRegistry(log: log)
            registry.register(planTypes: ["EmitWhileMade"], className: "EmitWhileMadePerformer") { context in
                let early = Outer()
                early.token = context.tokenGenerator.generate()
                var transaction = Transaction()
                transaction.add(plan("Record", ["inner": 1]), to: "b")
                _ = try context.emitter.emit(transaction)
                // After the inner performer is made, this one's emission is still its own.
                transaction = Transaction()
                transaction.add(plan("RecordOther"), to: "a")
                _ = try context.emitter.emit(transaction)
                return early
            }
            return registry
        }
        try h.commit { $0.add(plan("EmitWhileMade"), to: "a") }
        #expect(
            h.scheduler.performerDescriptions.map(\.description) == [
                "RecordingPerformer@b", "OtherRecordingPerformer@a", "EmitWhileMadePerformer@a",
            ])
        #expect(h.log.entries(startingWith: "add RecordingPerformer@b").count == 1)
        #expect(h.log.entries(startingWith: "add OtherRecordingPerformer@a").count == 1)
        let outer = try #require(h.scheduler.performer(forTarget: "a", className: "EmitWhileMadePerformer") as? Outer)
        #expect(outer.plans == 1)
        #expect(outer.token?.isTerminated == false)
        #expect(h.scheduler.tokenHolders.map(\.performer.description) == ["EmitWhileMadePerformer@a"])
        try outer.token?.terminate()
        #expect(!h.scheduler.isActive && h.scheduler.tokenHolders.isEmpty)
        try h.commit { $0.add(plan("EmitWhileMade"), to: "a") }
        try h.commit { $0.add(plan("Record", ["inner": 2]), to: "b") }
        #expect(h.scheduler.performerCount == 3)
        #expect(outer.plans == 2)
        #expect(h.log.entries(startingWith: "add RecordingPerformer@b").count == 2)
    }

    @Test func emissionFromAnotherThreadIsAppliedAtTheNextTurnInOrder() async throws {
        let h = Harness()
        try h.commit { $0.add(plan("Emit"), to: "a") }
        let performer = try #require(h.scheduler.performer(forTarget: "a", className: "EmittingPerformer") as? EmittingPerformer)
        let emitter = try #require(performer.emitter)
        let thread = Thread {
            for n in 1...3 {
                var t = Transaction()
                t.add(Plan(type: "Record", fields: ["n": .number(Double(n))]), to: "b")
                _ = try? emitter.emit(t)
            }
        }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        #expect(h.log.entries(startingWith: "add RecordingPerformer@b").isEmpty)
        h.scheduler.processPendingWork()
        #expect(
            h.log.entries(startingWith: "add RecordingPerformer@b")
                == [1, 2, 3].map {
                    #"add RecordingPerformer@b {"n":\#($0),"type":"Record"}"#
                })
    }

    @Test func performerThatHandlesAFailedEmissionDoesNotFailItsOperation() throws {  // R22, the header's emit_transaction
        let h = Harness { log in
            let registry = TestPerformers.makeRegistry(log: log)
            registry.register(planTypes: ["EmitAndHandle"], className: "HandlingPerformer") { HandlingPerformer(context: $0) }
            return registry
        }
        try h.commit {
            $0.add(plan("EmitAndHandle"), to: "a")
            $0.add(plan("Record"), to: "b")
        }
        let performer = try #require(h.scheduler.performer(forTarget: "a", className: "HandlingPerformer") as? HandlingPerformer)
        #expect(performer.handled?.code == .unknownPlanType)
        #expect(h.calls.contains("add RecordingPerformer@b {\"type\":\"Record\"}"))
    }
}

/// `EmitAndHandle`: emits a plan type nobody performs, keeps the error and returns normally.
final class HandlingPerformer: ComposablePerforming {
    var emitter: TransactionEmitter?
    private(set) var handled: CommitError?
    init(context: PerformerContext) {}
    func setEmitter(_ emitter: TransactionEmitter) { self.emitter = emitter }
    func addPlan(_ plan: Plan) throws {
        var transaction = Transaction()
        transaction.add(Plan(type: "NoSuchPlan"), to: "a")
        do {
            try emitter?.emit(transaction)
        } catch {
            handled = error
        }
    }
}

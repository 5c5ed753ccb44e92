import Foundation
import MotionCore
import MotionTesting
import Testing

@Suite("Continuous performance and activity")
struct ActivityTests {
    @Test func newSchedulerIsIdle() {  // R27
        #expect(Harness().scheduler.isActive == false)
    }

    @Test func plansWithoutTokensLeaveTheSchedulerIdle() throws {  // R28
        let h = Harness()
        let observer = RecordingActivityObserver()
        h.scheduler.addActivityObserver(observer)
        try h.commit { $0.add(plan("Record"), to: "a") }
        #expect(!h.scheduler.isActive)
        #expect(observer.transitions.isEmpty)
    }

    @Test func tokenGeneratedAndTerminatedAtOnceGoesIdleActiveIdle() throws {  // R29
        let h = Harness()
        let observer = RecordingActivityObserver()
        h.scheduler.addActivityObserver(observer)
        try h.commit { $0.add(plan("HoldTokens", ["count": 1, "terminateAfterFrames": 0]), to: "a") }
        #expect(observer.transitions == [true, false])
        #expect(!h.scheduler.isActive)
    }

    @Test func outstandingTokenKeepsTheSchedulerActive() throws {  // R30
        let h = Harness()
        try h.commit { $0.add(plan("HoldTokens", ["count": 1]), to: "a") }
        for i in 0..<5 { h.scheduler.advanceFrame(to: Double(i) / 60) }
        #expect(h.scheduler.isActive)
    }

    @Test func tokenHoldersNameThePerformersThatKeepTheSchedulerActive() throws {  // R30
        let h = Harness()
        try h.commit {
            $0.add(plan("HoldTokens", ["count": 2]), to: "b")
            $0.add(plan("Record"), to: "a")
            $0.add(plan("HoldTokens", ["count": 1]), to: "a")
        }
        #expect(h.scheduler.tokenHolders.map { "\($0.performer) \($0.tokens)" } == ["TokenPerformer@b 2", "TokenPerformer@a 1"])
        #expect(h.scheduler.outstandingTokenCount == 3)
    }

    @Test func activeWhileAnyTokenOfAnyPerformerOnAnyTargetIsOutstanding() throws {  // R31
        let h = Harness()
        try h.commit {
            $0.add(plan("HoldTokens", ["count": 1, "terminateAfterFrames": 1]), to: "a")
            $0.add(plan("HoldTokens", ["count": 1, "terminateAfterFrames": 3]), to: "b")
        }
        h.scheduler.advanceFrame(to: 0)
        #expect(h.scheduler.outstandingTokenCount == 1)
        #expect(h.scheduler.isActive)
        h.scheduler.advanceFrame(to: 1.0 / 60)
        h.scheduler.advanceFrame(to: 2.0 / 60)
        #expect(!h.scheduler.isActive)
    }

    @Test func performerMayHoldSeveralTokens() throws {  // R32
        let h = Harness()
        try h.commit { $0.add(plan("HoldTokens", ["count": 3]), to: "a") }
        #expect(h.scheduler.outstandingTokenCount == 3)
    }

    @Test func severalTokensOfOnePerformerEndInAnyOrderAndKeepTheirIDs() throws {  // R32, R33
        // The scheduler keeps a performer's first token in its record and the others aside: ending them out
        // of order must count each once and leave the performer's count right.
        let h = Harness()
        try h.commit { $0.add(plan("HoldTokens", ["count": 3]), to: "a") }
        let performer = try #require(h.scheduler.performer(forTarget: "a", className: "TokenPerformer") as? TokenPerformer)
        let ids = performer.tokens.map(\.id)
        #expect(Set(ids).count == 3 && !ids.contains(0))
        try performer.tokens[1].terminate()
        try performer.tokens[0].terminate()
        #expect(h.scheduler.tokenHolders.map(\.tokens) == [1])
        #expect(performer.tokens.map(\.isTerminated) == [true, true, false])
        #expect(performer.tokens.map(\.id) == ids)
        let second = #expect(throws: TokenError.self) { try performer.tokens[1].terminate() }
        #expect(second?.code == .alreadyTerminated && second?.tokenID == ids[1])
        try performer.tokens[2].terminate()
        #expect(h.scheduler.outstandingTokenCount == 0)
        #expect(!h.scheduler.isActive)
        #expect(h.scheduler.tokenHolders.isEmpty)
    }

    @Test func terminatingATokenTwiceIsAnErrorAndCountsOnce() throws {  // R33
        let h = Harness()
        try h.commit { $0.add(plan("HoldTokens", ["count": 2]), to: "a") }
        let performer = try #require(h.scheduler.performer(forTarget: "a", className: "TokenPerformer") as? TokenPerformer)
        try performer.tokens[0].terminate()
        #expect(h.scheduler.outstandingTokenCount == 1)
        #expect(throws: TokenError.self) { try performer.tokens[0].terminate() }
        #expect(h.scheduler.outstandingTokenCount == 1)
        #expect(h.scheduler.isActive)
    }

    @Test func generatingATokenAfterTheSchedulerIsGoneReturnsNone() throws {  // R34
        var h: Harness? = Harness()
        try h!.commit { $0.add(plan("HoldTokens", ["count": 0]), to: "a") }
        let performer = try #require(h!.scheduler.performer(forTarget: "a", className: "TokenPerformer") as? TokenPerformer)
        let generator = try #require(performer.tokenGenerator)
        h = nil
        #expect(generator.generate() == nil)
    }

    @Test func observersAreToldOnlyOnTransitions() throws {  // R35
        let h = Harness()
        let observer = RecordingActivityObserver()
        h.scheduler.addActivityObserver(observer)
        try h.commit {
            $0.add(plan("HoldTokens", ["count": 2, "terminateAfterFrames": 1]), to: "a")
            $0.add(plan("HoldTokens", ["count": 1, "terminateAfterFrames": 2]), to: "b")
        }
        #expect(observer.transitions == [true])
        h.scheduler.advanceFrame(to: 0)
        #expect(observer.transitions == [true])
        h.scheduler.advanceFrame(to: 1.0 / 60)
        #expect(observer.transitions == [true, false])
    }

    @Test func tokenTerminatedOnAnotherThreadIsDeliveredOnTheSchedulersThread() throws {  // R36
        let h = Harness()
        let schedulerThread = pthread_self()
        var deliveredOnSchedulerThread: [Bool] = []
        let observer = ActivityObserverClosure { _ in
            deliveredOnSchedulerThread.append(pthread_equal(pthread_self(), schedulerThread) != 0)
        }
        h.scheduler.addActivityObserver(observer)
        try h.commit { $0.add(plan("HoldTokens", ["count": 1]), to: "a") }
        let performer = try #require(h.scheduler.performer(forTarget: "a", className: "TokenPerformer") as? TokenPerformer)
        let token = performer.tokens[0]
        let thread = Thread { try? token.terminate() }
        thread.start()
        while !thread.isFinished { usleep(1000) }
        #expect(token.isTerminated)
        #expect(h.scheduler.isActive)  // not yet delivered
        h.scheduler.processPendingWork()
        #expect(!h.scheduler.isActive)
        #expect(deliveredOnSchedulerThread == [true, true])
    }

    @Test func tokensOfADestroyedSchedulerAreTerminatedAndReported() throws {  // R37
        let tracer = RecordingTracer()
        var tokens: [IsActiveToken] = []
        do {
            let h = Harness()
            h.scheduler.addTracer(tracer)
            try h.commit { $0.add(plan("HoldTokens", ["count": 2]), to: "a") }
            tokens = (h.scheduler.performer(forTarget: "a", className: "TokenPerformer") as? TokenPerformer)?.tokens ?? []
        }
        #expect(tokens.count == 2)
        #expect(tokens.allSatisfy { $0.isTerminated })
        let terminated = tracer.events.filter { if case .tokenTerminated = $0 { true } else { false } }
        #expect(terminated.count == 2)
        #expect(tracer.events.last == .activityChanged(isActive: false))
    }

    @Test func frameUpdatedPerformersAreUpdatedOnlyWhileHoldingAToken() throws {
        let h = Harness()
        try h.commit { $0.add(plan("HoldTokens", ["count": 1, "terminateAfterFrames": 2]), to: "a") }
        for i in 0..<5 { h.scheduler.advanceFrame(to: Double(i) * 0.1) }
        #expect(h.log.entries(startingWith: "update ") == ["update TokenPerformer@a 0", "update TokenPerformer@a 1"])
        #expect(h.scheduler.frameUpdatedPerformerCount == 0)
    }

    @Test func tokenTakenWhileThePerformerIsCreatedCountsOnceItExists() throws {  // R11, R30
        final class Eager: Performer {
            let token: IsActiveToken?
            init(_ context: PerformerContext) { token = context.tokenGenerator.generate() }
            func addPlan(_ plan: Plan) throws {}
        }
        var made: [Eager] = []
        let h = Harness { log in
            let registry = TestPerformers.makeRegistry(log: log)
            registry.register(planTypes: ["Eager"], className: "EagerPerformer") { context in
                let eager = Eager(context)
                made.append(eager)
                return eager
            }
            return registry
        }
        try h.commit { $0.add(plan("Eager"), to: "a") }
        #expect(h.scheduler.isActive)
        #expect(h.tracer.lines.firstIndex { $0.hasPrefix("create EagerPerformer@a") }! < h.tracer.lines.firstIndex { $0.hasPrefix("token") }!)
        try made.first?.token?.terminate()
        #expect(!h.scheduler.isActive)
    }
}

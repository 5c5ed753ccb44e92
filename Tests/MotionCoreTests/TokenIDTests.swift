import Foundation
import MotionCore
import MotionTesting
import Testing

/// Is-active tokens taken by id (`IsActiveTokenGenerator.generateID()`, no token object): the same tokens as
/// `generate()` gives, for R27–R37.
@Suite("Is-active tokens taken by id")
struct TokenIDTests {
    /// A frame-updated performer that hands its token generator to the test and counts its frames.
    final class IDTokenPerformer: FrameUpdating {
        var generator: IsActiveTokenGenerator?
        var frames = 0
        /// Ids taken while its class made it (the factory's context), if the test asks.
        var takenInFactory: UInt64?
        func addPlan(_ plan: Plan) throws {}
        func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
        func update(frame: Frame) { frames += 1 }
    }

    /// A scheduler over targets `a` and `b` whose `Hold` plans are performed by an ``IDTokenPerformer``.
    final class Fixture {
        let scene = Scene(targets: ["a", "b"])
        let tracer = RecordingTracer()
        let observer = RecordingActivityObserver()
        let registry = InProcessRegistry()
        var scheduler: Scheduler?
        /// Whether the factory takes a token by id (and ends it at once when `endsInFactory`).
        var takesInFactory = false
        var endsInFactory = false

        init() {
            registry.register(planTypes: ["Hold"], className: "IDTokenPerformer") { [unowned self] context in
                let performer = IDTokenPerformer()
                if takesInFactory {
                    performer.takenInFactory = context.tokenGenerator.generateID()
                    if endsInFactory, let id = performer.takenInFactory { try context.tokenGenerator.terminate(tokenID: id) }
                }
                return performer
            }
            let scheduler = Scheduler(scene: scene, registry: registry)
            scheduler.addTracer(tracer)
            scheduler.addActivityObserver(observer)
            self.scheduler = scheduler
        }

        func performer(_ target: TargetID) throws -> IDTokenPerformer {
            try #require(scheduler?.performer(forTarget: target, className: "IDTokenPerformer") as? IDTokenPerformer)
        }

        func hold(on target: TargetID) throws -> IsActiveTokenGenerator {
            try scheduler?.commit(Transaction([.add(Plan(type: "Hold"), target: target)]))
            return try #require(try performer(target).generator)
        }

        var tokenEvents: [String] {
            tracer.events.compactMap { event in
                switch event {
                case .tokenGenerated(let id, let performer): "generated \(id) \(performer)"
                case .tokenTerminated(let id, let performer): "terminated \(id) \(performer)"
                default: nil
                }
            }
        }
    }

    @Test func aTokenTakenByIDMakesTheSchedulerActiveUntilItEndsOnce() throws {  // R29, R30, R33, R35
        let f = Fixture()
        let generator = try f.hold(on: "a")
        let id = try #require(generator.generateID())
        #expect(id != 0)
        #expect(f.scheduler?.isActive == true && f.scheduler?.outstandingTokenCount == 1)
        try generator.terminate(tokenID: id)
        #expect(f.scheduler?.isActive == false)
        let second = #expect(throws: TokenError.self) { try generator.terminate(tokenID: id) }
        #expect(second?.code == .alreadyTerminated && second?.tokenID == id)
        #expect(f.scheduler?.outstandingTokenCount == 0)
        #expect(f.observer.transitions == [true, false])
        #expect(f.tokenEvents == ["generated \(id) IDTokenPerformer@a", "terminated \(id) IDTokenPerformer@a"])
    }

    @Test func idsAndObjectsMixOnOnePerformerAndAnotherPerformersIDEndsNothing() throws {  // R31, R32, R33
        let f = Fixture()
        let a = try f.hold(on: "a")
        let b = try f.hold(on: "b")
        let first = try #require(a.generateID())
        let object = try #require(a.generate())
        let third = try #require(a.generateID())
        let onB = try #require(b.generateID())
        #expect(Set([first, object.id, third, onB]).count == 4)
        #expect(f.scheduler?.tokenHolders.map { "\($0.performer) \($0.tokens)" } == ["IDTokenPerformer@a 3", "IDTokenPerformer@b 1"])
        // b's generator cannot end a's token.
        #expect(throws: TokenError.self) { try b.terminate(tokenID: third) }
        try a.terminate(tokenID: third)
        // An object's id ends the object's token: the object knows it.
        try a.terminate(tokenID: object.id)
        #expect(object.isTerminated)
        #expect(throws: TokenError.self) { try object.terminate() }
        try a.terminate(tokenID: first)
        #expect(f.scheduler?.isActive == true)  // b's token
        try b.terminate(tokenID: onB)
        #expect(f.scheduler?.isActive == false && f.observer.transitions == [true, false])
    }

    @Test func aPerformerHoldingATokenByIDIsUpdatedEachFrameUntilItEnds() throws {
        let f = Fixture()
        let generator = try f.hold(on: "a")
        let id = try #require(generator.generateID())
        f.scheduler?.advanceFrame(to: 0)
        f.scheduler?.advanceFrame(to: 1.0 / 60)
        #expect(try f.performer("a").frames == 2 && f.scheduler?.frameUpdatedPerformerCount == 1)
        try generator.terminate(tokenID: id)
        f.scheduler?.advanceFrame(to: 2.0 / 60)
        #expect(try f.performer("a").frames == 2 && f.scheduler?.frameUpdatedPerformerCount == 0)
    }

    @Test func tokensByIDOfAGoneSchedulerAreEndedAndReportedAndNoMoreAreTaken() throws {  // R34, R37
        let f = Fixture()
        let generator = try f.hold(on: "a")
        let ids = [try #require(generator.generateID()), try #require(generator.generateID())]
        f.scheduler = nil
        #expect(f.tokenEvents.suffix(2) == ids.map { "terminated \($0) IDTokenPerformer@a" })
        #expect(f.tracer.events.last == .activityChanged(isActive: false))
        #expect(generator.generateID() == nil)
        let late = #expect(throws: TokenError.self) { try generator.terminate(tokenID: ids[0]) }
        #expect(late?.code == .schedulerGone)
    }

    @Test func offTheSchedulersThreadNoTokenIsTakenOrEndedByID() throws {  // the thread rule
        let f = Fixture()
        let generator = try f.hold(on: "a")
        let id = try #require(generator.generateID())
        // What the other thread saw, behind a pthread lock (which the Thread Sanitizer sees, Documentation/PITFALLS.md).
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var taken: UInt64? = 1
            var error: TokenError?
            var isDone = false
        }
        let seen = Seen()
        let thread = Thread {
            let taken = generator.generateID()
            var error: TokenError?
            do { try generator.terminate(tokenID: id) } catch let caught { error = caught as? TokenError }
            seen.lock.withLock { (seen.taken, seen.error, seen.isDone) = (taken, error, true) }
        }
        thread.start()
        for _ in 0..<5000 where !seen.lock.withLock({ seen.isDone }) { usleep(1000) }
        seen.lock.withLock {
            #expect(seen.isDone)
            #expect(seen.taken == nil && seen.error?.code == .wrongThread)
        }
        #expect(f.scheduler?.outstandingTokenCount == 1)
    }

    @Test(arguments: [false, true])
    func aTokenTakenByIDInTheFactoryCountsOnceThePerformerIsMade(endsInFactory: Bool) throws {  // R11, R29
        let f = Fixture()
        f.takesInFactory = true
        f.endsInFactory = endsInFactory
        let generator = try f.hold(on: "a")
        let id = try #require(try f.performer("a").takenInFactory)
        #expect(f.scheduler?.outstandingTokenCount == (endsInFactory ? 0 : 1))
        #expect(f.tokenEvents == (endsInFactory ? [] : ["generated \(id) IDTokenPerformer@a"]))
        if endsInFactory {
            #expect(throws: TokenError.self) { try generator.terminate(tokenID: id) }
        } else {
            try generator.terminate(tokenID: id)
            #expect(f.scheduler?.isActive == false)
        }
    }

    @Test func aReplacedPerformersTokensByIDAreEndedAndItsGeneratorTakesNoMore() throws {  // R43
        let f = Fixture()
        f.scheduler?.recordsPlansForRecreation = true
        let old = try f.hold(on: "a")
        let id = try #require(old.generateID())
        let performerClass = try #require(f.registry.performerClass(forPlanType: "Hold"))
        let recreation = try #require(try f.scheduler?.recreatePerformers(of: [performerClass]))
        #expect(recreation.recreated.count == 1)
        #expect(f.tokenEvents == ["generated \(id) IDTokenPerformer@a", "terminated \(id) IDTokenPerformer@a"])
        #expect(old.generateID() == nil)
        #expect(throws: TokenError.self) { try old.terminate(tokenID: id) }
        #expect(f.scheduler?.isActive == false)
    }

    /// Runs `body` on a thread of its own and waits for it (at most 5 s).
    private func onAnotherThread(_ body: @escaping @Sendable () -> Void) throws {
        let done = NSCondition()
        nonisolated(unsafe) var isDone = false
        let thread = Thread {
            body()
            done.withLock {
                isDone = true; done.signal()
            }
        }
        thread.start()
        let deadline = Date(timeIntervalSinceNow: 5)
        let finished = done.withLock {
            while !isDone, done.wait(until: deadline) {}
            return isDone
        }
        try #require(finished)
    }

    @Test func aLateEndByIDFromAnotherThreadLeavesNothingWaitingOnceItsTurnComes() throws {  // R33, R36
        // The host's contexts end ids from any thread; the scheduler had ended this one already (the performer
        // ended it on its thread). The late end used to be kept forever, as if its token were still on the way.
        let f = Fixture()
        let generator = try f.hold(on: "a")
        let id = try #require(generator.generateID())
        try generator.terminate(tokenID: id)
        try onAnotherThread { #expect(generator.terminateOnAnyThread(tokenID: id)) }
        #expect(f.scheduler?.processPendingWork().isEmpty == true)
        #expect(f.scheduler?.terminationsAwaitingTheirToken == 0)
        #expect(f.tokenEvents == ["generated \(id) IDTokenPerformer@a", "terminated \(id) IDTokenPerformer@a"])
        #expect(f.scheduler?.isActive == false)
    }

    @Test func aTokenTakenAndEndedOnAnotherThreadForAReplacedPerformerLeavesNothingWaiting() throws {  // R36, R43
        // Both arrive after the performer was replaced: the token is let go on arrival, and its end used to be kept
        // forever, waiting for a token that had come already (a plugin's thread during a hot reload).
        let f = Fixture()
        f.scheduler?.recordsPlansForRecreation = true
        let old = try f.hold(on: "a")
        try onAnotherThread {
            let token = old.generate()
            #expect(token != nil)
            #expect(throws: Never.self) { try token?.terminate() }
        }
        let performerClass = try #require(f.registry.performerClass(forPlanType: "Hold"))
        _ = try #require(try f.scheduler?.recreatePerformers(of: [performerClass]))
        #expect(f.scheduler?.processPendingWork().isEmpty == true)
        #expect(f.scheduler?.terminationsAwaitingTheirToken == 0)
        #expect(f.tokenEvents.isEmpty)
        #expect(f.scheduler?.isActive == false && f.scheduler?.outstandingTokenCount == 0)
    }
}

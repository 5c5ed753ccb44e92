import Foundation
import MotionCore
import MotionTesting
import Testing

/// R43: `recreatePerformers(of:)` replaces the performers of some classes by new ones made by the same
/// classes (a rebuilt plugin, a restarted sandbox) and gives them their plans again.
@Suite("Re-creating performers (R43)")
struct RecreationTests {
    // The plan log is opt-in: kept by default it grew with every plain add, for ever (review of R43).
    @Test func withoutRecordingPlansRecreationIsRefusedAndNoPlanIsKept() throws {
        let f = Fixture()
        f.scheduler.recordsPlansForRecreation = false
        var transaction = Transaction()
        transaction.add(Plan(type: "Record", fields: ["n": 1]), to: "a")
        try f.scheduler.commit(transaction)
        #expect(throws: CommitError.self) { try f.scheduler.recreatePerformers(of: [f.performerClass("Record")]) }
        do {
            try f.scheduler.recreatePerformers(of: [f.performerClass("Record")])
        } catch {
            #expect(error.code == .unsupportedOperation)
            #expect(error.message.contains("recordsPlansForRecreation"))
        }
    }

    /// A harness whose registry the test keeps, to name the classes to re-create.
    final class Fixture {
        let log = CallLog()
        let registry: InProcessRegistry
        let harness: Harness
        var scheduler: Scheduler { harness.scheduler }

        init(extra: ((InProcessRegistry, CallLog) -> Void)? = nil) {
            let log = log
            let registry = TestPerformers.makeRegistry(log: log)
            extra?(registry, log)
            self.registry = registry
            harness = Harness(registry: { _ in registry })
            harness.scheduler.recordsPlansForRecreation = true
        }

        func performerClass(_ planType: String) -> PerformerClass { registry.performerClass(forPlanType: planType)! }

        /// The calls logged since `reset()`, without the trace lines.
        var calls: [String] { log.all }
    }

    @Test func aRecreatedBatchedPerformerWithTheSameMemberHandleInANewBatchIsUpdatedOnceByTheNewBatch() throws {  // R43
        // An isolated plugin's members are named by slot (slot 0 is handle 1) in each sandbox's batch: after a
        // restart the new performer has the same handle in a new batch. Its predecessor's frame slot must go.
        final class Log { var lines: [String] = [] }
        final class Batch: FrameBatch {
            let generation: Int
            let log: Log
            init(_ generation: Int, log: Log) {
                self.generation = generation
                self.log = log
            }
            func update(_ members: UnsafeBufferPointer<OpaquePointer>, frame: Frame) {
                log.lines.append("batch \(generation) members \(members.map { Int(bitPattern: UnsafeRawPointer($0)) }) @\(frame.index)")
            }
        }
        final class Slotted: BatchedFrameUpdating {
            let frameBatch: (any FrameBatch)?
            var generator: IsActiveTokenGenerator?
            var token: IsActiveToken?
            init(batch: Batch) { frameBatch = batch }
            var frameBatchMember: OpaquePointer { OpaquePointer(bitPattern: 1)! }
            func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
            func addPlan(_ plan: Plan) throws { if token == nil { token = generator?.generate() } }
            func update(frame: Frame) {}
        }
        final class Generation {
            var count = 0
            weak var first: Batch?
        }
        let log = Log()
        let generation = Generation()
        let f = Fixture { registry, _ in
            registry.register(planTypes: ["Slotted"], className: "Slotted") { _ in
                generation.count += 1
                let batch = Batch(generation.count, log: log)
                if generation.count == 1 { generation.first = batch }
                return Slotted(batch: batch)
            }
        }
        try f.harness.commit { $0.add(plan("Slotted"), to: "a") }
        f.scheduler.advanceFrame(to: 0)
        let result = try f.scheduler.recreatePerformers(of: [f.performerClass("Slotted")])
        #expect(result.recreated.map(\.description) == ["Slotted@a"] && result.failures.isEmpty)
        f.scheduler.advanceFrame(to: 1)
        #expect(log.lines == ["batch 1 members [1] @0", "batch 2 members [1] @1"])
        #expect(f.scheduler.frameUpdatedPerformerCount == 1)
        // The replaced batch (an isolated plugin's ended sandbox, with its megabytes of write buffers) is let go:
        // each restart or reload kept one before.
        #expect(generation.first == nil)
        for _ in 0..<3 { try f.scheduler.recreatePerformers(of: [f.performerClass("Slotted")]) }
        f.scheduler.advanceFrame(to: 2)
        #expect(log.lines.last == "batch 5 members [1] @2")
    }

    @Test func recreatedPerformerGetsEveryPlanAgainInOrderNamedPlansByName() throws {  // R43
        let f = Fixture()
        try f.harness.commit {
            $0.add(plan("Record", ["n": 1]), to: "a")
            $0.add(plan("Record", ["n": 2]), named: "x", to: "a")
            $0.add(plan("RecordToo", ["n": 3]), to: "a")
        }
        f.log.reset()
        let result = try f.scheduler.recreatePerformers(of: [f.performerClass("Record")])
        #expect(result.recreated.map(\.description) == ["RecordingPerformer@a"])
        #expect(result.readdedPlanCount == 3)
        #expect(result.failures.isEmpty)
        // The new performer is made first (the old one is kept if that fails), then the old one goes, then
        // the plans come again in their order, the named one under its name.
        #expect(
            f.calls == [
                "create RecordingPerformer@a", "emitter RecordingPerformer@a", "tokens RecordingPerformer@a",
                "destroy RecordingPerformer@a",
                #"add RecordingPerformer@a {"n":1,"type":"Record"}"#,
                #"addNamed RecordingPerformer@a x {"n":2,"type":"Record"}"#,
                #"add RecordingPerformer@a {"n":3,"type":"RecordToo"}"#,
            ])
    }

    @Test func theOutlineListsWhatRecreationWillCallInItsOrderAndChangesNothing() throws {  // R43
        let f = Fixture()
        try f.harness.commit {
            $0.add(plan("Record", ["n": 1]), to: "b")
            $0.add(plan("Record", ["n": 2]), named: "x", to: "a")
            $0.add(plan("Record", ["n": 3]), named: "y", to: "a")
            $0.add(plan("Record", ["n": 4]), named: "x", to: "a")
            $0.removePlan(named: "y", from: "a")
            $0.add(plan("RecordToo", ["n": 5]), to: "a")
        }
        f.log.reset()
        let outline = f.scheduler.recreationOutline(of: [f.performerClass("Record")])
        #expect(f.calls.isEmpty)
        // In creation order (b first); each performer's held plans in order, named ones under their names, a removed
        // name left out: what R43 gives the new performers, as it gives them.
        #expect(outline.map(\.target.id.name) == ["b", "a"])
        #expect(outline.map { $0.plans.map(\.name) } == [[nil], ["x", nil]])
        #expect(outline[1].plans.compactMap(\.plan?.fields["n"]) == [4, 5])
        f.performerClass("Record").preparationDidChange()
        #expect(f.scheduler.recreationOutline(of: [f.performerClass("Record")])[0].plans.map { $0.plan == nil } == [true])
        f.scheduler.recordsPlansForRecreation = false
        #expect(f.scheduler.recreationOutline(of: [f.performerClass("Record")]).isEmpty)
    }

    @Test func removedNamesAreNotReaddedAndAReplacedNameComesBackWithItsLatestPlan() throws {  // R43
        let f = Fixture()
        try f.harness.commit {
            $0.add(plan("Record", ["v": 1]), named: "x", to: "a")
            $0.add(plan("Record", ["v": 1]), named: "y", to: "a")
            $0.add(plan("Record", ["v": 2]), named: "x", to: "a")
            $0.removePlan(named: "y", from: "a")
        }
        f.log.reset()
        try f.scheduler.recreatePerformers(of: [f.performerClass("Record")])
        #expect(f.log.entries(startingWith: "add") == [#"addNamed RecordingPerformer@a x {"type":"Record","v":2}"#])
        // The name now belongs to the new performer: removing it reaches that one, once.
        f.log.reset()
        try f.harness.commit { $0.removePlan(named: "x", from: "a") }
        #expect(f.calls == ["removeNamed RecordingPerformer@a x"])
    }

    @Test func targetValuesAreKeptAndOtherClassesAreLeftAlone() throws {  // R43
        let f = Fixture()
        try f.harness.commit {
            $0.add(plan("Record"), to: "a")
            $0.add(plan("RecordOther"), to: "a")
            $0.add(plan("SetValue", ["property": "opacity", "value": 0.25]), to: "b")
        }
        // What the performers did to the targets since (here: a value moved on by hand) stays.
        f.harness.scene.target("a")!.setValue(PropertyValue(0.75), forName: "opacity")
        _ = f.harness.scene.drainChanges()
        let before = f.scheduler.performerDescriptions
        f.log.reset()
        try f.scheduler.recreatePerformers(of: [f.performerClass("Record")])
        #expect(f.harness.scene.target("a")!["opacity"] == PropertyValue(0.75))
        #expect(f.harness.scene.target("b")!["opacity"] == PropertyValue(0.25))
        #expect(f.harness.scene.drainChanges().isEmpty)
        #expect(!f.calls.contains { $0.contains("OtherRecordingPerformer") || $0.contains("SetValuePerformer") })
        #expect(f.scheduler.performerDescriptions == before)  // the new one takes the old one's place
    }

    @Test func theOldPerformersTokensAreEndedAndItsGeneratorIsDeadAfterwards() throws {  // R43, R37
        let f = Fixture()
        let observer = RecordingActivityObserver()
        f.scheduler.addActivityObserver(observer)
        try f.harness.commit { $0.add(plan("HoldTokens", ["count": 2]), to: "a") }
        let old = try #require(f.scheduler.performer(forTarget: "a", className: "TokenPerformer") as? TokenPerformer)
        let oldTokens = old.tokens
        let oldGenerator = try #require(old.tokenGenerator)
        f.harness.tracer.reset()
        try f.scheduler.recreatePerformers(of: [f.performerClass("HoldTokens")])
        let new = try #require(f.scheduler.performer(forTarget: "a", className: "TokenPerformer") as? TokenPerformer)
        #expect(new !== old)
        let allEnded = oldTokens.allSatisfy { $0.isTerminated }
        #expect(oldTokens.count == 2 && allEnded)
        var secondTermination: TokenError?
        do { try oldTokens[0].terminate() } catch { secondTermination = error }
        #expect(secondTermination?.code == .alreadyTerminated)  // ended by the scheduler already
        // The new performer took two tokens of its own when its plan came again; activity never wavered.
        #expect(f.scheduler.outstandingTokenCount == 2)
        #expect(observer.transitions == [true])
        let ended = oldTokens.map { "token \($0.id) terminated TokenPerformer@a" }
        #expect(Array(f.harness.tracer.lines.prefix(4)) == ended + ["destroy TokenPerformer@a", "create TokenPerformer@a"])
        // A token the replaced performer asks for now counts for nothing.
        let late = oldGenerator.generate()
        #expect(f.scheduler.outstandingTokenCount == 2)
        #expect(late.map { $0.isTerminated } ?? true)
        // Only the new performer is updated per frame, once.
        f.log.reset()
        f.scheduler.advanceFrame(to: 0)
        #expect(f.log.entries(startingWith: "update") == ["update TokenPerformer@a 0"])
    }

    @Test func eachReplacedPerformerEndsItsOwnTokensInTheOrderTheyWereTaken() throws {  // R43, R37
        // The replaced performers' tokens are found in one pass, not by a scan of every token per performer: each
        // performer must still end exactly its own, before it is destroyed.
        let f = Fixture()
        try f.harness.commit {
            $0.add(plan("HoldTokens", ["count": 2]), to: "a")
            $0.add(plan("HoldTokens", ["count": 3]), to: "b")
        }
        let a = try #require(f.scheduler.performer(forTarget: "a", className: "TokenPerformer") as? TokenPerformer)
        let b = try #require(f.scheduler.performer(forTarget: "b", className: "TokenPerformer") as? TokenPerformer)
        let (aTokens, bTokens) = (a.tokens, b.tokens)
        #expect(f.scheduler.outstandingTokenCount == 5)
        f.harness.tracer.reset()
        try f.scheduler.recreatePerformers(of: [f.performerClass("HoldTokens")])
        let ended = { (tokens: [IsActiveToken], target: String) in tokens.map { "token \($0.id) terminated TokenPerformer@\(target)" } }
        #expect(
            Array(f.harness.tracer.lines.prefix(9))
                == ended(aTokens, "a") + ["destroy TokenPerformer@a", "create TokenPerformer@a"]
                + ended(bTokens, "b") + ["destroy TokenPerformer@b", "create TokenPerformer@b"])
        #expect((aTokens + bTokens).allSatisfy { $0.isTerminated })
        // The new performers took theirs again with their plans: 2 + 3.
        #expect(f.scheduler.outstandingTokenCount == 5)
    }

    /// A class whose factory makes what `version` says: the same class with new code, as after a reload.
    final class Versioned {
        var version = 1
        var refusesMakes = false
        let log: CallLog
        init(log: CallLog) { self.log = log }
    }

    /// Holds a token per plan in version 1; in version 2 takes none and refuses plans with `"bad": true`.
    final class VersionedPerformer: ContinuousPerforming {
        let version: Int
        let log: CallLog
        var generator: IsActiveTokenGenerator?
        init(version: Int, log: CallLog) {
            self.version = version
            self.log = log
        }
        func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
        func addPlan(_ plan: Plan) throws {
            if version == 2, plan["bad"]?.bool == true { throw TestError("version 2 refuses bad plans") }
            log.append("v\(version) add \(plan["n"]?.number ?? 0)")
            if version == 1 { _ = generator?.generate() }
        }
    }

    struct TestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private func versionedFixture() -> (Fixture, Versioned) {
        var versioned: Versioned!
        let f = Fixture { registry, log in
            let v = Versioned(log: log)
            versioned = v
            registry.register(planTypes: ["Versioned"], className: "VersionedPerformer") { _ in
                if v.refusesMakes { throw TestError("the new library has no such class") }
                return VersionedPerformer(version: v.version, log: log)
            }
        }
        return (f, versioned)
    }

    @Test func newCodeRunsTheOldPlansAndActivityIsReportedOnceWhereItEnds() throws {  // R43
        let (f, versioned) = versionedFixture()
        let observer = RecordingActivityObserver()
        f.scheduler.addActivityObserver(observer)
        try f.harness.commit {
            $0.add(plan("Versioned", ["n": 1]), to: "a")
            $0.add(plan("Versioned", ["n": 2]), to: "b")
        }
        #expect(f.scheduler.outstandingTokenCount == 2)
        versioned.version = 2
        f.log.reset()
        let result = try f.scheduler.recreatePerformers(of: [f.performerClass("Versioned")])
        #expect(result.recreated.map(\.description) == ["VersionedPerformer@a", "VersionedPerformer@b"])
        #expect(f.calls == ["v2 add 1.0", "v2 add 2.0"])
        // Version 2 takes no tokens: the old ones ended, and the scheduler reported idle once, at the end.
        #expect(f.scheduler.outstandingTokenCount == 0)
        #expect(observer.transitions == [true, false])
    }

    @Test func aPerformerThatCannotBeMadeAgainIsKeptAndAPlanTheNewOneRefusesIsDropped() throws {  // R43
        let (f, versioned) = versionedFixture()
        try f.harness.commit {
            $0.add(plan("Versioned", ["n": 1]), to: "a")
            $0.add(plan("Versioned", ["n": 2, "bad": true]), to: "a")
            $0.add(plan("Versioned", ["n": 3]), to: "a")
        }
        let original = try #require(f.scheduler.performer(forTarget: "a", className: "VersionedPerformer"))
        versioned.refusesMakes = true
        let kept = try f.scheduler.recreatePerformers(of: [f.performerClass("Versioned")])
        #expect(kept.recreated.isEmpty)
        #expect(kept.failures.count == 1)
        #expect(kept.failures.first?.target == "a")
        #expect(kept.failures.first?.description.contains("was kept") == true)
        #expect(kept.failures.first?.description.contains("the new library has no such class") == true)
        #expect(f.scheduler.performer(forTarget: "a", className: "VersionedPerformer") === original)
        #expect(f.scheduler.outstandingTokenCount == 3)

        versioned.refusesMakes = false
        versioned.version = 2
        f.log.reset()
        let result = try f.scheduler.recreatePerformers(of: [f.performerClass("Versioned")])
        #expect(f.calls == ["v2 add 1.0", "v2 add 3.0"])
        #expect(result.readdedPlanCount == 2)
        #expect(result.failures.map(\.planType) == ["Versioned"])
        #expect(result.failures.first?.description.contains("version 2 refuses bad plans") == true)
        // The refused plan is no longer held: a second re-creation does not try it again.
        f.log.reset()
        let again = try f.scheduler.recreatePerformers(of: [f.performerClass("Versioned")])
        #expect(again.failures.isEmpty)
        #expect(f.calls == ["v2 add 1.0", "v2 add 3.0"])
    }

    @Test func whatARecreatedPerformerEmitsWhileItsPlansComeAgainIsNotPerformed() throws {  // R43
        let f = Fixture()
        try f.harness.commit { $0.add(emitPlan(adding: plan("Record"), to: "b"), to: "a") }
        #expect(f.log.entries(startingWith: "add RecordingPerformer@b").count == 1)
        f.log.reset()
        try f.scheduler.recreatePerformers(of: [f.performerClass("Emit"), f.performerClass("Record")])
        // The Emit plan came again to the new emitting performer, whose emission did nothing: the Record plan
        // it first emitted is re-added once, as a plan the recording performer on b held.
        #expect(f.log.entries(startingWith: "add EmittingPerformer@a").count == 1)
        #expect(f.log.entries(startingWith: "add RecordingPerformer@b") == [#"add RecordingPerformer@b {"type":"Record"}"#])
        let emitter = try #require(f.scheduler.performer(forTarget: "a", className: "EmittingPerformer") as? EmittingPerformer)
        #expect(emitter.lastEmitResult == true)
        // After it, emissions are performed again.
        f.log.reset()
        _ = try emitter.emitNow(Transaction([.add(plan("Record", ["n": 9]), target: "b")]))
        #expect(f.log.entries(startingWith: "add RecordingPerformer@b") == [#"add RecordingPerformer@b {"n":9,"type":"Record"}"#])
    }

    @Test func aReplacedPerformersEmitterDoesNothingAfterwards() throws {  // R43
        let f = Fixture()
        try f.harness.commit { $0.add(emitPlan(adding: plan("Record"), to: "b"), to: "a") }
        let old = try #require(f.scheduler.performer(forTarget: "a", className: "EmittingPerformer") as? EmittingPerformer)
        try f.scheduler.recreatePerformers(of: [f.performerClass("Emit")])
        f.log.reset()
        f.harness.tracer.reset()
        // On the scheduler's thread (performed at once) and queued from another (performed at the next turn).
        _ = try old.emitNow(Transaction([.add(plan("Record", ["n": 1]), target: "b")]))
        let emitter = try #require(old.emitter)
        let emitted = DispatchSemaphore(value: 0)
        Thread {
            _ = try? emitter.emit(Transaction([.add(plan("Record", ["n": 2]), target: "b")]))
            emitted.signal()
        }.start()
        #expect(emitted.wait(timeout: .now() + 10) == .success)
        f.scheduler.processPendingWork()
        #expect(f.log.entries(startingWith: "add RecordingPerformer@b").isEmpty)
        #expect(!f.harness.tracer.lines.contains { $0.hasPrefix("emit by") })
    }

    @Test func recreatingFromInsideAPerformerCallIsRefusedAndChangesNothing() throws {  // R43
        final class Box { weak var scheduler: Scheduler? }
        let box = Box()
        final class Recreator: Performer {
            let box: Box
            let performerClass: () -> PerformerClass
            var error: CommitError?
            init(box: Box, performerClass: @escaping () -> PerformerClass) {
                self.box = box
                self.performerClass = performerClass
            }
            func addPlan(_ plan: Plan) throws {
                do {
                    try box.scheduler?.recreatePerformers(of: [performerClass()])
                } catch {
                    self.error = error
                }
            }
        }
        var registryRef: InProcessRegistry?
        let f = Fixture { registry, _ in
            registryRef = registry
            registry.register(planTypes: ["Recreate"], className: "Recreator") { _ in
                Recreator(box: box) { registryRef!.performerClass(forPlanType: "Recreate")! }
            }
        }
        box.scheduler = f.scheduler
        try f.harness.commit { $0.add(plan("Recreate"), to: "a") }
        let performer = try #require(f.scheduler.performer(forTarget: "a", className: "Recreator") as? Recreator)
        #expect(performer.error?.code == .unsupportedOperation)
        #expect(f.scheduler.performer(forTarget: "a", className: "Recreator") === performer)
    }

    @Test func recreatingAClassWithoutPerformersDoesNothing() throws {  // R43
        let f = Fixture()
        try f.harness.commit { $0.add(plan("Record"), to: "a") }
        f.log.reset()
        let result = try f.scheduler.recreatePerformers(of: [f.performerClass("HoldTokens")])
        #expect(result.recreated.isEmpty && result.failures.isEmpty)
        #expect(f.calls.isEmpty)
    }
}

/// R43 with a class that prepares its plans: re-added plans keep the form their commit prepared while the class's
/// preparation is unchanged, and are prepared again once it changes.
@Suite("Re-creating performers with prepared plans (R43)")
struct RecreationPreparationTests {
    final class Preparing {
        var defaultD: JSONValue = 1
        var preparations = 0
        var seen: [String] = []
    }

    final class Performer: NamedPlanPerforming {
        let state: Preparing
        init(_ state: Preparing) { self.state = state }
        func addPlan(_ plan: Plan) throws { state.seen.append(Self.text(plan)) }
        func addPlan(_ plan: Plan, named name: String) throws { state.seen.append("\(name): " + Self.text(plan)) }
        static func text(_ plan: Plan) -> String {
            func number(_ value: JSONValue?) -> String { if case .number(let x)? = value { "\(Int(x))" } else { "?" } }
            return "n=\(number(plan["n"])) d=\(number(plan["d"]))"
        }
        func removePlan(named name: String) throws {}
    }

    func makeFixture() -> (RecreationTests.Fixture, Preparing, PerformerClass) {
        let state = Preparing()
        let performerClass = PerformerClass(
            name: "Preparing",
            preparePlan: { plan in
                state.preparations += 1
                var fields = plan.fields
                if fields["d"] == nil { fields["d"] = state.defaultD }
                return Plan(type: plan.type, fields: fields)
            },
            make: { _ in Performer(state) })
        let f = RecreationTests.Fixture { registry, _ in registry.register(performerClass, for: ["Prepared"]) }
        return (f, state, performerClass)
    }

    @Test func plansOfAClassWhosePreparationDidNotChangeAreGivenAgainAsTheirCommitPreparedThem() throws {  // R43
        let (f, state, performerClass) = makeFixture()
        try f.harness.commit {
            $0.add(plan("Prepared", ["n": 1]), to: "a")
            $0.add(plan("Prepared", ["n": 2]), named: "x", to: "a")
        }
        #expect(state.preparations == 2)
        state.seen = []
        // A rule that changed without the class saying so is not applied: the kept, checked form is given.
        state.defaultD = 7
        let result = try f.scheduler.recreatePerformers(of: [performerClass])
        #expect(result.readdedPlanCount == 2)
        #expect(result.reusedPreparationCount == 2)
        #expect(state.preparations == 2)
        #expect(state.seen == ["n=1 d=1", "x: n=2 d=1"])
    }

    @Test func plansOfAClassWhosePreparationChangedArePreparedAgainWithTheNewRules() throws {  // R43
        let (f, state, performerClass) = makeFixture()
        try f.harness.commit {
            $0.add(plan("Prepared", ["n": 1]), to: "a")
            $0.add(plan("Prepared", ["n": 2, "d": 5]), named: "x", to: "a")
        }
        state.seen = []
        state.defaultD = 7
        performerClass.preparationDidChange()
        let result = try f.scheduler.recreatePerformers(of: [performerClass])
        #expect(result.readdedPlanCount == 2)
        #expect(result.reusedPreparationCount == 0)
        #expect(state.preparations == 4)
        // The new default fills only the field the commit left out; a field given stays as given.
        #expect(state.seen == ["n=1 d=7", "x: n=2 d=5"])
        // Prepared again, the plans are kept in the new form: the next re-creation gives that one.
        state.seen = []
        let again = try f.scheduler.recreatePerformers(of: [performerClass])
        #expect(again.reusedPreparationCount == 2)
        #expect(state.preparations == 4)
        #expect(state.seen == ["n=1 d=7", "x: n=2 d=5"])
    }
}

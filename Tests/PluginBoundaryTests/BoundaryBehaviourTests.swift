import Foundation
import MotionCore
import MotionHost
import MotionTesting
import Testing

/// The runtime behaviours of Documentation/RUNTIME.md, run against in-process performers and against the same
/// performers loaded from a C plugin (`libFixtureTestPerformers.so`, through `motion_plugin.h`): both
/// must give the same calls, traces and activity.
@Suite("Runtime behaviours across the plugin boundary", .serialized)
struct BoundaryBehaviourTests {
    static let sources = PerformerSource.allCases

    /// One scenario: transactions committed in turn (a failing commit is recorded, not fatal).
    struct Scenario: CustomTestStringConvertible, Sendable {
        let name: String
        let commits: [@Sendable (inout Transaction) -> Void]
        var testDescription: String { name }
    }

    static let scenarios: [Scenario] = [
        Scenario(
            name: "R4 operations in order across targets",
            commits: [
                {
                    $0.add(plan("Record", ["n": 1]), to: "a"); $0.add(plan("Record", ["n": 2]), to: "b"); $0.add(plan("Record", ["n": 3]), to: "a")
                }
            ]),
        Scenario(
            name: "R5 R9 two plans, one performer",
            commits: [
                { $0.add(plan("Record", ["n": 1]), to: "a") }, { $0.add(plan("Record", ["n": 2]), to: "a") },
            ]),
        Scenario(
            name: "R6 two performer types on one target",
            commits: [
                {
                    $0.add(plan("Record"), to: "a"); $0.add(plan("RecordOther"), to: "a")
                }
            ]),
        Scenario(
            name: "R7 one plan type on two targets",
            commits: [
                {
                    $0.add(plan("Record"), to: "a"); $0.add(plan("Record"), to: "b")
                }
            ]),
        Scenario(
            name: "R8 plan types of one class share a performer",
            commits: [
                {
                    $0.add(plan("Record"), to: "a"); $0.add(plan("RecordToo"), to: "a")
                }
            ]),
        Scenario(
            name: "R12 unknown plan type keeps earlier operations",
            commits: [
                {
                    $0.add(plan("Record"), to: "a"); $0.add(plan("Recrod"), to: "a"); $0.add(plan("Record"), to: "b")
                },
                { $0.add(plan("Record"), to: "b") },
            ]),
        Scenario(name: "R12 performer refuses a plan", commits: [{ $0.add(plan("SetValue", ["value": 1]), to: "a") }]),
        Scenario(
            name: "R13 R14 named add then remove",
            commits: [
                {
                    $0.add(plan("Record"), named: "drag", to: "a"); $0.removePlan(named: "drag", from: "a")
                }
            ]),
        Scenario(name: "R15 removing a name never added", commits: [{ $0.removePlan(named: "ghost", from: "a") }]),
        Scenario(
            name: "R16 re-adding a name",
            commits: [
                { $0.add(plan("Record", ["n": 1]), named: "x", to: "a") }, { $0.add(plan("Record", ["n": 2]), named: "x", to: "a") },
            ]),
        Scenario(
            name: "R17 a name reused by another performer type",
            commits: [
                { $0.add(plan("Record"), named: "x", to: "a") }, { $0.add(plan("RecordOther"), named: "x", to: "a") },
            ]),
        Scenario(
            name: "R18 names are case-sensitive",
            commits: [{ t in for n in ["one", "One", "ONE", "1"] { t.add(plan("Record"), named: n, to: "a") } }]),
        Scenario(
            name: "R19 names are scoped per target",
            commits: [
                {
                    $0.add(plan("Record"), named: "x", to: "a"); $0.add(plan("Record"), named: "x", to: "b")
                }
            ]),
        Scenario(
            name: "R21 empty names are rejected", commits: [{ $0.add(plan("Record"), named: "", to: "a") }, { $0.removePlan(named: "", from: "a") }]),
        Scenario(
            name: "R22 R23 emitted plan performed before commit returns",
            commits: [
                { $0.add(emitPlan(adding: plan("HoldTokens", ["count": 1]), to: "a"), to: "a") }
            ]),
        Scenario(name: "R24 emission to another target", commits: [{ $0.add(emitPlan(adding: plan("Record"), to: "a"), to: "b") }]),
        Scenario(
            name: "R25 emission cycle",
            commits: [
                { $0.add(emitPlan(adding: emitPlan(adding: plan("Record"), to: "b"), to: "a"), to: "a") }, { $0.add(plan("Record"), to: "b") },
            ]),
        Scenario(
            name: "R29 token generated and terminated at once",
            commits: [{ $0.add(plan("HoldTokens", ["count": 1, "terminateAfterFrames": 0]), to: "a") }]),
        Scenario(
            name: "R31 R32 R35 several tokens on several targets",
            commits: [
                {
                    $0.add(plan("HoldTokens", ["count": 2, "terminateAfterFrames": 1]), to: "a");
                    $0.add(plan("HoldTokens", ["count": 1, "terminateAfterFrames": 3]), to: "b")
                }
            ]),
    ]

    /// Runs a scenario, then five frames; returns the calls, the trace lines and the activity transitions.
    static func run(_ scenario: Scenario, on source: PerformerSource) throws -> (
        calls: [String], traces: [String], activity: [Bool], errors: [String]
    ) {
        let h = try BoundaryHarness(source)
        let observer = RecordingActivityObserver()
        h.scheduler.addActivityObserver(observer)
        var errors: [String] = []
        for build in scenario.commits {
            do { try h.commit(build) } catch {
                errors.append("\(error.code) op \(error.operationIndex ?? -1) applied \(error.appliedOperationCount)")
            }
        }
        for i in 0..<5 { h.scheduler.advanceFrame(to: Double(i) / 60) }
        return (h.calls, h.tracer.lines, observer.transitions, errors)
    }

    @Test(
        "the same calls, traces, activity and errors in-process, through the plugin, and through the plugin isolated",
        arguments: scenarios, [PerformerSource.plugin, .isolated])
    func pluginPerformersBehaveAsInProcessOnes(scenario: Scenario, source: PerformerSource) throws {
        let inProcess = try Self.run(scenario, on: .inProcess)
        let plugin = try Self.run(scenario, on: source)
        #expect(!inProcess.calls.isEmpty || scenario.name.hasPrefix("R15") || scenario.name.hasPrefix("R21"))
        #expect(plugin.calls == inProcess.calls)
        #expect(plugin.traces == inProcess.traces)
        #expect(plugin.activity == inProcess.activity)
        #expect(plugin.errors == inProcess.errors)
    }

    @Test("R3 R10 a plugin's property writes are visible when commit returns; the last value wins", arguments: sources)
    func setValueIsSynchronousAndTheLastWins(source: PerformerSource) throws {
        let h = try BoundaryHarness(source)
        try h.commit { for v in [0.1, 0.7, 0.3] { $0.add(plan("SetValue", ["property": "opacity", "value": .number(v)]), to: "a") } }
        #expect(h.scene.target("a")?["opacity"] == 0.3)
        try h.commit { $0.add(plan("SetVector", ["property": "position", "value": [1, 2]]), to: "b") }
        #expect(h.scene.target("b")?["position"] == [1, 2])
    }

    @Test("R11 the token generator and emitter are there for the first plan", arguments: sources)
    func tokenGeneratorAndEmitterArriveBeforeTheFirstPlan(source: PerformerSource) throws {
        let h = try BoundaryHarness(source)
        try h.commit {
            $0.add(plan("HoldTokens", ["count": 1]), to: "a")
            $0.add(emitPlan(adding: plan("Record"), to: "b"), to: "a")
        }
        #expect(h.scheduler.outstandingTokenCount == 1)
        #expect(h.calls(startingWith: "add RecordingPerformer@b").count == 1)
    }

    @Test("R12 unknown plan type: the error names operation, target and plan type", arguments: sources)
    func unknownPlanTypeErrorNamesOperationTargetAndType(source: PerformerSource) throws {
        let h = try BoundaryHarness(source)
        var failure: CommitError?
        do {
            try h.commit {
                $0.add(plan("Record"), to: "a"); $0.add(plan("Recrod"), to: "a")
            }
        } catch { failure = error }
        let error = try #require(failure)
        #expect(error.code == .unknownPlanType)
        #expect(error.description.hasPrefix(#"operation 1, target "a", plan type "Recrod""#))
        #expect(error.message.contains(#"did you mean "Record"?"#))
        #expect(error.appliedOperationCount == 1)
    }

    @Test("R12 a plugin whose library fails to load fails the commit naming the cause", arguments: [PerformerSource.plugin, .isolated])
    func libraryThatFailsToLoadFailsTheCommit(source: PerformerSource) throws {
        let h = try BoundaryHarness(source, extraManifests: ["wrong-abi-major.json"])
        var failure: CommitError?
        do {
            try h.commit {
                $0.add(plan("Record"), to: "a"); $0.add(plan("FromTheFuture"), to: "b")
            }
        } catch { failure = error }
        let error = try #require(failure)
        #expect(error.code == .performerUnavailable)
        #expect(error.planType == "FromTheFuture")
        #expect(error.target == "b")
        #expect(error.message.contains("built for ABI 2.0; this host speaks ABI 1.4"))
        #expect(error.appliedOperationCount == 1)
        #expect(h.calls(startingWith: "add RecordingPerformer@a").count == 1)
    }

    @Test("R25 an emission cycle through the plugin names the chain", arguments: sources)
    func emissionCycleNamesTheChain(source: PerformerSource) throws {
        let h = try BoundaryHarness(source)
        var failure: CommitError?
        do {
            try h.commit { $0.add(emitPlan(adding: emitPlan(adding: plan("Record"), to: "b"), to: "a"), to: "a") }
        } catch { failure = error }
        let error = try #require(failure)
        #expect(error.code == .emissionCycle)
        #expect(error.emissionChain == ["Emit", "Emit"])
    }

    @Test("R30 R37 tokens held by plugin performers keep the scheduler active and end with it", arguments: sources)
    func outstandingTokensEndWithTheScheduler(source: PerformerSource) throws {
        let tracer = RecordingTracer()
        let log: CallLog
        do {
            let h = try BoundaryHarness(source)
            log = h.log
            h.scheduler.addTracer(tracer)
            try h.commit { $0.add(plan("HoldTokens", ["count": 2]), to: "a") }
            for i in 0..<10 { h.scheduler.advanceFrame(to: Double(i) / 60) }
            #expect(h.scheduler.isActive)
            #expect(h.scheduler.outstandingTokenCount == 2)
        }
        let terminated = tracer.events.filter { if case .tokenTerminated = $0 { true } else { false } }
        #expect(terminated.count == 2)
        #expect(tracer.events.last == .activityChanged(isActive: false))
        #expect(log.all.last == "destroy TokenPerformer@a")  // R42: performers end with their scheduler
    }

    @Test("R41 a scheduler with plugin performers is freed when the last reference goes", arguments: sources)
    func schedulerWithPluginPerformersIsFreed(source: PerformerSource) throws {
        weak var weakScheduler: Scheduler?
        do {
            let h = try BoundaryHarness(source)
            weakScheduler = h.scheduler
            try h.commit {
                $0.add(plan("HoldTokens", ["count": 1]), to: "a")
                $0.add(emitPlan(adding: plan("Record"), to: "a"), to: "b")
            }
        }
        #expect(weakScheduler == nil)
    }

    @Test("an emitted transaction keeps every digit of its numbers", arguments: sources)
    func emittedTransactionKeepsItsNumbers(source: PerformerSource) throws {
        let h = try BoundaryHarness(source)
        let values: [Double] = [0.30000000000000004, 1.0000000000000002, 2.2250738585072014e-308]
        try h.commit {
            $0.add(
                emitPlan(adding: plan("SetVector", ["property": "p", "value": .array(values.map { .number($0) })]), to: "b"),
                to: "a")
        }
        let set = try #require(h.scene.target("b")?["p"])
        #expect((0..<values.count).map { set[$0].bitPattern } == values.map(\.bitPattern), "\(set)")
    }
}

/// Token misuse and plugin-owned threads, through the fixture plugin `libFixtureTokenMisuse.so`.
@Suite("Is-active tokens across the plugin boundary", .serialized)
struct BoundaryTokenTests {
    static let sources = [PerformerSource.plugin, .isolated]

    func harness(_ source: PerformerSource) throws -> (Scene, Scheduler) {
        let scene = Scene(targets: ["t"])
        return (scene, Scheduler(scene: scene, registry: try Self.host(source)))
    }

    static func host(_ source: PerformerSource) throws -> PluginHost {
        let manifest = try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/plugins/token-misuse.json"))
        let configuration = source == .isolated ? HostConfiguration(plugins: ["*": .process]) : .empty
        return PluginHost(
            catalog: PluginCatalog(plugins: [manifest]),
            loader: LibraryLoader(configuration: configuration, extraLibraryDirectories: [productsDirectory]))
    }

    @Test("R33 terminating a token twice returns MOTION_ERR_TOKEN_ALREADY_TERMINATED and counts once", arguments: sources)
    func doubleTerminationIsAnErrorStatus(source: PerformerSource) throws {
        let (scene, scheduler) = try harness(source)
        let observer = RecordingActivityObserver()
        scheduler.addActivityObserver(observer)
        try scheduler.commit(Transaction([.add(Plan(type: "MisuseTokens"), target: "t")]))
        #expect(scene.target("t")?["secondTerminateStatus"] == -5)  // MOTION_ERR_TOKEN_ALREADY_TERMINATED
        #expect(observer.transitions == [true, false])
        #expect(!scheduler.isActive)
    }

    @Test("inside update_many a write the host would refuse is refused at once in the SDK; the good ones arrive", arguments: sources)
    func refusedWritesInsideUpdateMany(source: PerformerSource) throws {
        let (scene, scheduler) = try harness(source)
        try scheduler.commit(Transaction([.add(Plan(type: "BadWrites"), target: "t")]))
        scheduler.advanceFrame(to: 0)
        let target = try #require(scene.target("t"))
        // MOTION_ERR_INVALID_ARGUMENT (-1) for each; the status writes and `after`, queued, all arrived.
        #expect([target["nanStatus"], target["infinityStatus"], target["fiveStatus"]] == [-1, -1, -1])
        #expect(target["after"] == 1)
        #expect(target["bad"] == nil)
        #expect(!scheduler.isActive)
    }

    @Test("a write queued in an add_plan nested in update_many reaches the host before add_plan returns", arguments: sources)
    func nestedAddPlanHandsItsQueuedWriteOver(source: PerformerSource) throws {
        let scene = Scene(targets: ["t"])
        var seen: [PropertyValue?] = []
        let readers = InProcessRegistry()
        readers.register(planTypes: ["ReadP"], className: "Reader") { context in
            ReaderOfP(target: context.target) { seen.append($0) }
        }
        let scheduler = Scheduler(scene: scene, registry: RegistryChain([readers, try Self.host(source)]))
        try scheduler.commit(Transaction([.add(Plan(type: "NestWrites"), target: "t")]))
        scheduler.advanceFrame(to: 0)
        #expect(seen == [7])
        #expect(scene.target("t")?["p"] == 7)
        #expect(!scheduler.isActive)
    }

    @Test("R36 a token terminated on a plugin's own thread is delivered at the scheduler's next turn", arguments: sources)
    func tokenTerminatedOnAPluginThread(source: PerformerSource) throws {
        let (_, scheduler) = try harness(source)
        let schedulerThread = pthread_self()
        var onSchedulerThread: [Bool] = []
        let observer = ActivityObserverClosure { _ in onSchedulerThread.append(pthread_equal(pthread_self(), schedulerThread) != 0) }
        scheduler.addActivityObserver(observer)
        try scheduler.commit(Transaction([.add(Plan(type: "TerminateOnWorker", fields: ["delay": 0.01]), target: "t")]))
        #expect(scheduler.isActive)
        var waited = 0
        while scheduler.isActive, waited < 500 {
            usleep(2_000)
            waited += 1
            scheduler.processPendingWork()
        }
        #expect(!scheduler.isActive)
        #expect(onSchedulerThread == [true, true])
    }

    @Test("R23 emitting an undeclared plan type fails with MOTION_ERR_UNKNOWN_PLAN_TYPE inside the plugin, which handles it", arguments: sources)
    func emittingAnUnknownPlanTypeIsReportedToThePlugin(source: PerformerSource) throws {
        let (scene, scheduler) = try harness(source)
        // The plugin records the status and returns MOTION_OK: the header says the commit then succeeds.
        try scheduler.commit(Transaction([.add(Plan(type: "EmitUnknownPlan"), target: "t")]))
        #expect(scene.target("t")?["emissionStatus"] == -4)  // MOTION_ERR_UNKNOWN_PLAN_TYPE
    }
}

/// Reads its target's "p" when it gets a plan.
final class ReaderOfP: Performer {
    let target: Target
    let report: (PropertyValue?) -> Void
    init(target: Target, report: @escaping (PropertyValue?) -> Void) {
        self.target = target
        self.report = report
    }
    func addPlan(_ plan: Plan) throws { report(target["p"]) }
}

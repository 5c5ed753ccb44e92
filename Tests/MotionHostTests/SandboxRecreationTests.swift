import Foundation
import MotionCore
import MotionFiles
import Testing

@testable import MotionHost

/// R43 for an isolated plugin's new sandbox in one request (SandboxRecreation): a reload of many performers is a
/// few messages each way, not a few per performer, and means what R43 means in process.
@Suite struct SandboxRecreationTests {
    static let pluginID = "org.example.reloadable"

    /// The reload fixture on `count` targets `t0`, `t1`, … each given `Step {level, value: i}` (its index), in
    /// process or isolated.
    final class Run {
        let builds: ReloadableBuilds
        let host: PluginHost
        let scene = Scene()
        let scheduler: Scheduler
        let count: Int
        private var frame = 0

        init(targets count: Int, isolated: Bool) throws {
            self.count = count
            builds = try ReloadableBuilds()
            let manifest = try PluginManifest.load(contentsOf: builds.manifestURL)
            let configuration = isolated ? HostConfiguration(plugins: ["*": PluginIsolation(mode: .process)]) : HostConfiguration()
            host = PluginHost(catalog: PluginCatalog(plugins: [manifest]), loader: LibraryLoader(configuration: configuration), logSink: { _, _ in })
            for index in 0..<count { scene.addTarget(TargetID("t\(index)"), properties: ["level": PropertyValue(0)]) }
            scheduler = Scheduler(scene: scene, registry: host)
            scheduler.recordsPlansForRecreation = true
            var transaction = Transaction()
            for index in 0..<count {
                transaction.add(Plan(type: "Step", fields: ["property": "level", "value": .number(Double(index))]), to: TargetID("t\(index)"))
            }
            try scheduler.commit(transaction)
            advance()
        }

        func advance() {
            scheduler.advanceFrame(to: Double(frame) / 60)
            frame += 1
        }

        func level(_ index: Int) -> Double? { scene.target(TargetID("t\(index)"))?["level"]?.scalar }

        /// The running sandbox's ring reads since it started: the host's (the sandbox's messages) and the sandbox's (the
        /// host's messages).
        func reads() throws -> (host: UInt64, sandbox: UInt64) {
            let counts = try #require(host.currentSandbox(ofPlugin: SandboxRecreationTests.pluginID)?.waitCounts)
            return (counts.host.reads, counts.sandbox.reads)
        }
    }

    @Test func anIsolatedReloadOf300PerformersIsAFewMessagesEachWayNotSomePerPerformer() throws {
        let run = try Run(targets: 300, isolated: true)
        let basis = try #require(run.host.reloadBasis(ofPlugin: Self.pluginID))
        try run.builds.install(offset: 100)
        let prepared = basis.prepare()
        guard case .sandbox(_, _, let fresh)? = try? prepared.peekStage(), let loaded = fresh.waitCounts else {
            Issue.record("the preparation started no sandbox")
            return
        }
        let reload = try #require(try run.host.reload(prepared, in: run.scheduler))
        #expect(run.host.currentSandbox(ofPlugin: Self.pluginID) === fresh)
        let after = try run.reads()
        // One create and one plan per performer, and the plugin's token_generate in add_plan: three round trips a
        // performer before (over 900 reads each way); the request, its results and its reply now.
        #expect(after.sandbox - loaded.sandbox.reads <= 8, "the sandbox read \(after.sandbox - loaded.sandbox.reads) times for the switch")
        #expect(after.host - loaded.host.reads <= 8, "the host read \(after.host - loaded.host.reads) times for the switch")
        #expect(reload.recreation.recreated.count == 300 && reload.recreation.readdedPlanCount == 300)
        #expect(reload.recreation.failures.isEmpty)
        #expect(run.scheduler.isActive)  // each new performer took its token (the sandbox's id, the scheduler's token)
        run.advance()
        #expect((0..<300).allSatisfy { run.level($0) == Double($0 + 100) })
    }

    @Test(arguments: [false, true])
    func aNewBuildThatCannotMakeOnePerformerKeepsThatOneAndReplacesTheOthers(isolated: Bool) throws {
        let run = try Run(targets: 3, isolated: isolated)
        #expect(run.level(1) == 1)
        try run.builds.install(offset: 100, refusedTarget: "t1")
        let reload = try #require(try run.host.reload(pluginID: Self.pluginID, in: run.scheduler))
        // R43: the old t1 performer is kept, unchanged, and the failure says so; the others are new and have their plans.
        #expect(reload.recreation.recreated.map(\.target.name) == ["t0", "t2"])
        #expect(reload.recreation.readdedPlanCount == 2)
        #expect(reload.recreation.failures.count == 1)
        let failure = try #require(reload.recreation.failures.first)
        #expect(failure.target?.name == "t1")
        #expect(failure.message.contains("was kept") && failure.message.contains("this build makes no performer for t1"), "\(failure.message)")
        run.advance()
        #expect(run.level(0) == 100)
        #expect(run.level(1) == 1)  // the old build's performer, still running (in its old sandbox when isolated)
        #expect(run.level(2) == 102)
        if isolated {
            // The old sandbox still runs for the performer it kept.
            #expect(run.host.isolatedPlugins.count == 2)
        }
    }

    @Test func namedAndPlainPlansOfOnePerformerAreGivenAgainInOrderAndARemovedNameIsNot() throws {
        let run = try Run(targets: 2, isolated: true)
        var transaction = Transaction()
        transaction.add(Plan(type: "Step", fields: ["property": "level", "value": 7]), named: "a", to: "t0")
        transaction.add(Plan(type: "Step", fields: ["property": "level", "value": 9]), named: "b", to: "t0")
        transaction.add(Plan(type: "Step", fields: ["property": "level", "value": 8]), named: "a", to: "t0")
        try run.scheduler.commit(transaction)
        var removal = Transaction()
        removal.removePlan(named: "b", from: "t0")
        try run.scheduler.commit(removal)
        run.advance()
        // The fixture sets each plan's property in the order it holds them: the plain 0, then "a" (now 8).
        #expect(run.level(0) == 8)
        try run.builds.install(offset: 100)
        let reload = try #require(try run.host.reload(pluginID: Self.pluginID, in: run.scheduler))
        #expect(reload.recreation.readdedPlanCount == 3)  // t0: the plain plan and "a"; t1: its plain plan
        run.advance()
        #expect(run.level(0) == 108)
        #expect(run.level(1) == 101)
        // Named plans keep their names: removing "a" now leaves the plain plan's value.
        var second = Transaction()
        second.removePlan(named: "a", from: "t0")
        try run.scheduler.commit(second)
        run.advance()
        #expect(run.level(0) == 100)
    }

    @Test func aNewSandboxThatCrashesMidBatchIsReportedAndTheOldPerformersGoOn() throws {
        let run = try Run(targets: 3, isolated: true)
        try run.builds.install(offset: 100, crashTarget: "t1")
        let started = Date()
        let reload = try #require(try run.host.reload(pluginID: Self.pluginID, in: run.scheduler))
        #expect(Date().timeIntervalSince(started) < 5)  // found when the sandbox closed, not after a time-out
        // The sandbox made t0's performer and then died making t1's, before it had sent t0's reply: to the host no
        // create succeeded, so R43 keeps every old performer and reports each (the sandbox's failure the cause).
        #expect(reload.recreation.recreated.isEmpty)
        #expect(reload.recreation.failures.map { $0.target?.name } == ["t0", "t1", "t2"])
        #expect(reload.recreation.failures.allSatisfy { $0.message.contains("was kept") && $0.message.contains("SIGABRT") })
        let failure = try #require(run.host.takeFailures().first)
        #expect(failure.pluginID == Self.pluginID && failure.cause.contains("SIGABRT"), "\(failure)")
        #expect(failure.call?.contains("create_performer") == true, "\(failure)")
        run.advance()
        #expect(run.level(0) == 0 && run.level(1) == 1 && run.level(2) == 2)  // the old build's performers, in the old sandbox
        #expect(run.host.isolatedPlugins.contains { $0.isRunning })
    }

    @Test func aNewSandboxThatHangsMidBatchIsKilledAfterThePluginTimeoutAndTheOldPerformersGoOn() throws {
        let run = try Run(targets: 3, isolated: true)
        run.host.pluginTimeout = 0.5
        try run.builds.install(offset: 100, hangTarget: "t1")
        let started = Date()
        let reload = try #require(try run.host.reload(pluginID: Self.pluginID, in: run.scheduler))
        // The deadline applies to each message of the batch: one wait of 0.5 s, then every later call fails at once.
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(reload.recreation.recreated.isEmpty)
        #expect(reload.recreation.failures.count == 3)
        let failure = try #require(run.host.takeFailures().first)
        #expect(failure.cause.contains("did not answer within 0.5 s"), "\(failure)")
        run.advance()
        #expect(run.level(0) == 0 && run.level(1) == 1 && run.level(2) == 2)
    }
}

import Foundation
import MotionCore
import MotionTesting
import Testing

@Suite("Observers, tracers and lifetime")
struct ObserverAndLifetimeTests {
    @Test func observersAllReceiveRemovedOnesNothingAndDuplicatesOnce() throws {  // R38
        let h = Harness()
        let first = RecordingActivityObserver()
        let second = RecordingActivityObserver()
        let removed = RecordingActivityObserver()
        h.scheduler.addActivityObserver(first)
        h.scheduler.addActivityObserver(first)
        h.scheduler.addActivityObserver(second)
        h.scheduler.addActivityObserver(removed)
        h.scheduler.removeActivityObserver(removed)
        try h.commit { $0.add(plan("HoldTokens", ["count": 1, "terminateAfterFrames": 0]), to: "a") }
        #expect(first.transitions == [true, false])
        #expect(second.transitions == [true, false])
        #expect(removed.transitions.isEmpty)
    }

    @Test func eventOrderPerOperation() throws {  // R39
        let h = Harness()
        try h.commit { $0.add(plan("Record"), to: "a") }
        try h.commit { $0.add(plan("Record"), named: "x", to: "a") }
        try h.commit { $0.add(plan("RecordOther"), named: "x", to: "a") }
        let lines = h.log.all.filter { !$0.hasPrefix("emitter") && !$0.hasPrefix("tokens") && !$0.hasPrefix("trace commit") }
        #expect(
            lines == [
                "create RecordingPerformer@a",
                "trace create RecordingPerformer@a",
                #"add RecordingPerformer@a {"type":"Record"}"#,
                #"trace add RecordingPerformer@a {"type":"Record"}"#,
                #"addNamed RecordingPerformer@a x {"type":"Record"}"#,
                #"trace add named "x" RecordingPerformer@a {"type":"Record"}"#,
                "removeNamed RecordingPerformer@a x",
                #"trace remove named "x" RecordingPerformer@a"#,
                "create OtherRecordingPerformer@a",
                "trace create OtherRecordingPerformer@a",
                #"addNamed OtherRecordingPerformer@a x {"type":"RecordOther"}"#,
                #"trace add named "x" OtherRecordingPerformer@a {"type":"RecordOther"}"#,
            ])
    }

    @Test func tracerSeesEveryKindOfEventAndConsoleTracerPrintsOneLineEach() throws {  // R40
        var printed: [String] = []
        let h = Harness()
        h.scheduler.addTracer(ConsoleTracer { printed.append($0) })
        try h.commit {
            $0.add(plan("Record"), named: "x", to: "a")
            $0.removePlan(named: "x", from: "a")
            $0.add(emitPlan(adding: plan("HoldTokens", ["count": 1, "terminateAfterFrames": 0]), to: "b"), to: "a")
        }
        let lines = h.tracer.lines
        for prefix in [
            "commit", "create", "add named", "remove named", "emit by", "token 1 generated", "token 1 terminated", "active", "idle", "add ",
        ] {
            #expect(lines.contains { $0.hasPrefix(prefix) }, "no \(prefix) event")
        }
        #expect(printed.count == lines.count)
        #expect(printed.allSatisfy { $0.hasPrefix("[motion] ") && !$0.contains("\n") })
        #expect(lines.contains { $0.hasPrefix("emit by EmittingPerformer@a (to other targets)") })
    }

    @Test func schedulerIsFreedWhenTheLastOutsideReferenceGoes() throws {  // R41
        weak var weakScheduler: Scheduler?
        var tokens: [IsActiveToken] = []
        do {
            let h = Harness()
            weakScheduler = h.scheduler
            try h.commit {
                $0.add(plan("HoldTokens", ["count": 1]), to: "a")
                $0.add(emitPlan(adding: plan("Record"), to: "a"), to: "b")
            }
            tokens = (h.scheduler.performer(forTarget: "a", className: "TokenPerformer") as? TokenPerformer)?.tokens ?? []
        }
        #expect(weakScheduler == nil)
        #expect(tokens.count == 1)
    }

    @Test func performersLiveAsLongAsTheirSchedulerAndTargetsAsLongAsTheScene() throws {  // R42
        weak var weakPerformer: RecordingPerformer?
        weak var weakTarget: Target?
        var h: Harness? = Harness()
        try h!.commit { $0.add(plan("Record"), to: "a") }
        weakPerformer = h!.scheduler.performer(forTarget: "a", className: "RecordingPerformer") as? RecordingPerformer
        weakTarget = h!.scene.target("a")
        #expect(weakPerformer != nil)
        let log = h!.log
        h = nil
        #expect(weakPerformer == nil)
        #expect(weakTarget == nil)
        #expect(log.all.last == "destroy RecordingPerformer@a")
    }
}

/// R42 with the scheduler holding the last reference to its scene: its performers go first, while the scene is
/// still there, so a performer (an in-process one, or a plugin's in `destroy_performer`, whose context is valid until
/// it returns, motion/core.h) may read its target as it goes. The order Swift releases a class's stored properties
/// in is not the order a deinit needs (a debug build released the scene first, and the target's unowned scene
/// trapped).
@Suite("A scheduler's performers go before its scene")
struct SceneOutlivesPerformersTests {
    final class Reader: Performer {
        let context: PerformerContext
        let seen: Box
        init(_ context: PerformerContext, seen: Box) {
            self.context = context
            self.seen = seen
        }
        func addPlan(_ plan: Plan) throws {}
        deinit { seen.value = context.target["x"]?.scalar }
    }
    final class Box { var value: Double? }

    @Test func aPerformerGoingWithTheLastReferenceToItsSceneStillReadsItsTarget() throws {
        let seen = Box()
        weak var weakScene: Scene?
        do {
            let registry = InProcessRegistry()
            registry.register(planTypes: ["Read"], className: "Reader") { Reader($0, seen: seen) }
            var scheduler: Scheduler? = {
                let scene = Scene()
                _ = scene.addTarget(TargetID("a"), properties: ["x": 0.25])
                weakScene = scene
                return Scheduler(scene: scene, registry: registry)
            }()
            try scheduler?.commit(Transaction([.add(Plan(type: "Read"), target: "a")]))
            #expect(weakScene != nil)
            scheduler = nil
        }
        #expect(seen.value == 0.25)
        #expect(weakScene == nil)
    }
}

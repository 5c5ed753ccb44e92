import Foundation
import Testing

@testable import MotionCore

/// A scene's `Target` objects are made when code asks for one, once, and kept: a scene whose performers work by
/// index (members of a shared performer) makes none.
@Suite("Target objects made when asked")
struct LazyTargetTests {
    @Test func targetsAddedInBulkHaveNamesIndicesAndValuesButNoObjectUntilAsked() {
        let scene = Scene()
        scene.addTargets(["a", "b", "c"], properties: ["x": 1, "y": [2, 3]])
        #expect(scene.targetCount == 3)
        #expect((0..<3).map { scene.targetID(at: $0) } == ["a", "b", "c"])
        #expect(scene.targetIndex(of: "b") == 1)
        #expect(scene.targetIndex(of: "B") == nil)
        let y = scene.slot(for: scene.propertyID("y"), ofTargetAt: 2)
        #expect(scene.value(at: y) == PropertyValue([2, 3]))
        #expect(scene.madeTargetObjectCount == 0)
        // Asked for, an object is made once and is the same by every way of asking.
        let b = scene.target(at: 1)
        #expect(b.id == "b")
        #expect(b.index == 1)
        #expect(b["x"] == 1)
        #expect(scene.madeTargetObjectCount == 1)
        #expect(scene.target("b") === b)
        #expect(scene.addTarget("b", properties: ["x": 5]) === b)
        #expect(b["x"] == 5)
        #expect(scene.targets.map(\.id) == ["a", "b", "c"])
        #expect(scene.targets[1] === b)
        #expect(scene.madeTargetObjectCount == 3)
    }

    @Test func indexedDrainNamesTargetsByIndexAndMakesNoObject() {
        let scene = Scene()
        scene.addTargets(["a", "b"], properties: ["x": 0])
        let slot = scene.slot(for: scene.propertyID("x"), ofTargetAt: 1)
        scene.setScalar(4, at: slot)
        var drained: [String] = []
        scene.drainIndexedChanges { target, property, value in
            drained.append("\(scene.targetID(at: target).name) \(scene.propertyName(property) ?? "?") \(value.scalar)")
        }
        #expect(drained == ["b x 4.0"])
        #expect(scene.madeTargetObjectCount == 0)
        // The object drain makes the changed target's object.
        scene.setScalar(5, at: slot)
        var targets: [Target] = []
        scene.drainChanges { target, _, _ in targets.append(target) }
        #expect(targets.map(\.id) == ["b"])
        #expect(targets.first === scene.target(at: 1))
        #expect(scene.madeTargetObjectCount == 1)
    }

    @Test func aRecreationOutlineMakesTheObjectsOfItsOwnTargetsOnly() throws {  // R43
        // The outline of an isolated reload (one entry per performer replaced) read `scene.targets` per entry: every
        // target's object made, each time, so replacing 1,000 performers made a million objects and a reload of an
        // isolated TweenKit took 3.5 frames instead of 2.2.
        final class Plain: Performer {
            func addPlan(_ plan: Plan) throws {}
        }
        let registry = InProcessRegistry()
        registry.register(planTypes: ["Plain"], className: "Plain") { _ in Plain() }
        let scene = Scene()
        scene.addTargets((0..<1_000).map { TargetID("t\($0)") }, properties: [:])
        let scheduler = Scheduler(scene: scene, registry: registry)
        scheduler.recordsPlansForRecreation = true
        var transaction = Transaction()
        transaction.add(Plan(type: "Plain"), to: "t7")
        transaction.add(Plan(type: "Plain"), to: "t900")
        try scheduler.commit(transaction)
        let made = scene.madeTargetObjectCount
        #expect(made <= 2)
        let performerClass = try #require(registry.performerClass(forPlanType: "Plain"))
        let outline = scheduler.recreationOutline(of: [performerClass])
        #expect(outline.map(\.target.id) == ["t7", "t900"])
        #expect(scene.madeTargetObjectCount == 2)
    }

    @Test func membersOfASharedPerformerMakeNoTargetObjectAndPerformerObjectsDo() throws {
        final class Shared: SharedPerformer {
            var targets: [Int] = []
            func makeMember(_ context: PerformerContext) throws -> PerformerMember {
                targets.append(context.targetIndex)
                return PerformerMember(rawValue: UInt64(targets.count - 1))
            }
            func addPlan(_ plan: Plan, to member: PerformerMember) throws {}
            func destroyMember(_ member: PerformerMember) {}
        }
        final class Plain: Performer {
            func addPlan(_ plan: Plan) throws {}
        }
        let shared = Shared()
        let registry = InProcessRegistry()
        registry.registerMembers(planTypes: ["Shared"], className: "Shared", sharedPerformer: { _ in shared })
        registry.register(planTypes: ["Plain"], className: "Plain") { context in
            #expect(context.target.id == context.targetID)
            return Plain()
        }
        let scene = Scene(targets: ["a", "b", "c"])
        let scheduler = Scheduler(scene: scene, registry: registry)
        var transaction = Transaction()
        transaction.add(Plan(type: "Shared"), to: "c")
        transaction.add(Plan(type: "Shared"), to: "a")
        try scheduler.commit(transaction)
        #expect(shared.targets == [2, 0])
        #expect(scene.madeTargetObjectCount == 0)
        #expect(scheduler.performerDescriptions.map(\.description) == ["Shared@c", "Shared@a"])
        transaction = Transaction()
        transaction.add(Plan(type: "Plain"), to: "b")
        try scheduler.commit(transaction)
        #expect(scene.madeTargetObjectCount == 1)
        // An unknown target still names the scene's targets.
        transaction = Transaction()
        transaction.add(Plan(type: "Shared"), to: "d")
        do {
            try scheduler.commit(transaction)
            Issue.record("a plan for an unknown target was committed")
        } catch {
            #expect(error.code == .unknownTarget)
            #expect(error.message.contains("Known targets: a, b, c."))
        }
    }

    @Test func namesAreFoundAcrossTheListsChunksAndATargetsNameIsReadableWhileTargetsAreAdded() async {
        // Chunks of 64, 128, 256 ... names: indices 63/64 and 191/192 are chunk edges.
        let names = TargetNames()
        for i in 0..<1000 { names.append(TargetID("t\(i)")) }
        #expect(names.count == 1000)
        #expect([0, 63, 64, 191, 192, 999].map { names[$0].name } == ["t0", "t63", "t64", "t191", "t192", "t999"])
        // Another thread reads a target's name while this one adds thousands more (the plugin host's log lines).
        let scene = Scene()
        scene.addTargets(["first"])
        // A Target is not Sendable: its name is the one member documented as readable from any thread.
        struct Handed: @unchecked Sendable { let target: Target }
        let first = Handed(target: scene.target(at: 0))
        let reader = Task.detached {
            var reads = 0
            for _ in 0..<20_000 where first.target.id == "first" { reads += 1 }
            return reads
        }
        scene.addTargets((0..<20_000).lazy.map { TargetID("card\($0)") })
        #expect(await reader.value == 20_000)
        #expect(scene.targetCount == 20_001)
        #expect(scene.targetIndex(of: "card19999") == 20_000)
        #expect(scene.targetID(at: 4097).name == "card4096")
    }
}

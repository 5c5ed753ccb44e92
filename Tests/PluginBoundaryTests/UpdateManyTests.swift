import Foundation
import MotionCore
import MotionHost
import Testing

/// `motion_frames_v1.update_many` through the real host: TweenKit's performers, with an in-process
/// performer between two runs of them in the scheduler's update order.
@Suite("update_many through the host")
struct UpdateManyTests {
    /// Records, on each frame, the "x" of the targets it watches.
    final class Watcher: FrameUpdating {
        let scene: Scene
        var generator: IsActiveTokenGenerator?
        var token: IsActiveToken?
        var seen: [[Double?]] = []
        init(scene: Scene) { self.scene = scene }
        func setIsActiveTokenGenerator(_ generator: IsActiveTokenGenerator) { self.generator = generator }
        func addPlan(_ plan: Plan) throws { token = generator?.generate() }
        func update(frame: Frame) {
            seen.append(["t0", "t1", "t2", "t3"].map { scene.target(TargetID($0))?["x"]?.scalar })
        }
    }

    @Test("each run of a plugin's performers is one call in its place: a performer between runs sees the first run's writes only")
    func runsKeepTheUpdateOrder() throws {
        let scene = Scene(targets: ["w"])
        // The tweens' targets have x (-1 until a tween writes it): a plan must name a property its target has.
        for name in ["t0", "t1", "t2", "t3"] { scene.addTarget(TargetID(name), properties: ["x": -1]) }
        var watcher: Watcher?
        let watchers = InProcessRegistry()
        watchers.register(planTypes: ["Watch"], className: "Watcher") { _ in
            let made = Watcher(scene: scene)
            watcher = made
            return made
        }
        let manifest = try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("manifests/tweenkit.json"))
        let plugins = PluginHost(catalog: PluginCatalog(plugins: [manifest]), loader: LibraryLoader(extraLibraryDirectories: [productsDirectory]))
        let scheduler = Scheduler(scene: scene, registry: RegistryChain([watchers, plugins]))
        let tween = Plan(type: "Tween", fields: ["property": "x", "from": [0], "to": [60], "duration": 1, "timing": "linear"])
        try scheduler.commit(
            Transaction([
                .add(tween, target: "t0"), .add(tween, target: "t1"), .add(Plan(type: "Watch"), target: "w"), .add(tween, target: "t2"),
                .add(tween, target: "t3"),
            ]))
        scheduler.advanceFrame(to: 0)
        scheduler.advanceFrame(to: 0.5)
        #expect(watcher?.seen == [[0, 0, -1, -1], [30, 30, 0, 0]])
        #expect(["t0", "t1", "t2", "t3"].map { scene.target(TargetID($0))?["x"]?.scalar } == [30, 30, 30, 30])
        scheduler.advanceFrame(to: 1)
        #expect(scheduler.frameUpdatedPerformerCount == 1)  // the tweens are done; only the watcher runs
    }
}

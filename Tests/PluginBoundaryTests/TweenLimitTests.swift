import CTweenLimit
import Foundation
import MotionCore
import MotionHost
import Testing

/// The benchmark's hand-written limit (Benchmarks/TweenLimit) does exactly the work of TweenKit's Tween:
/// frame by frame, the same values bit for bit and the same changes, so the benchmark compares like with like.
@Suite struct TweenLimitTests {
    @Test func theCLoopGivesTheRuntimesTweenResultsBitForBit() throws {
        let timings: [(String, ctweenlimit_curve)] = [
            ("linear", CTWEENLIMIT_LINEAR), ("easeIn", CTWEENLIMIT_EASE_IN), ("easeOut", CTWEENLIMIT_EASE_OUT),
            ("easeInOut", CTWEENLIMIT_EASE_IN_OUT),
        ]
        let count = 24
        let scene = Scene()
        for i in 0..<count { scene.addTarget(TargetID("t\(i)"), properties: ["x": 0]) }
        let manifest = try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("manifests/tweenkit.json"))
        let host = PluginHost(catalog: PluginCatalog(plugins: [manifest]), loader: LibraryLoader(extraLibraryDirectories: [productsDirectory]))
        let scheduler = Scheduler(scene: scene, registry: host)
        let limit = try #require(ctweenlimit_create(count))
        defer { ctweenlimit_destroy(limit) }
        var transaction = Transaction()
        for i in 0..<count {
            // Durations of 0 to 0.55 s (some end inside a frame, one at once), delays of 0 to 0.1 s.
            let (name, curve) = timings[i % timings.count]
            let from = Double(i) * 0.37 - 3, to = 1000 - Double(i) * 13.1
            let duration = Double(i % 12) * 0.05, delay = Double(i % 5) * 0.025
            transaction.add(
                Plan(
                    type: "Tween",
                    fields: [
                        "property": "x", "from": [.number(from)], "to": [.number(to)], "duration": .number(duration),
                        "delay": .number(delay), "timing": .string(name),
                    ]), to: TargetID("t\(i)"))
            ctweenlimit_set(limit, i, from, to, duration, delay, curve)
        }
        try scheduler.commit(transaction)
        var time = 0.0
        var frames = 0
        while scheduler.isActive || ctweenlimit_running(limit) > 0 {
            try #require(frames < 120, "the tweens should all end within 0.7 s")
            scheduler.advanceFrame(to: time)
            var runtimeChanges: Set<Int> = []
            scene.drainChanges { target, _, _ in runtimeChanges.insert(Int(target.id.name.dropFirst())!) }
            let changed = ctweenlimit_frame(limit, time)
            let limitChanges = Set((0..<changed).map { Int(ctweenlimit_changes(limit)[$0]) })
            #expect(limitChanges == runtimeChanges, "frame \(frames)")
            for i in 0..<count {
                let runtime = try #require(scene.target(TargetID("t\(i)"))?["x"]?.scalar)
                #expect(
                    runtime.bitPattern == ctweenlimit_values(limit)[i].bitPattern,
                    "frame \(frames), tween \(i): runtime \(runtime), limit \(ctweenlimit_values(limit)[i])")
            }
            time += 1.0 / 60
            frames += 1
        }
        #expect(frames > 30)
        #expect(ctweenlimit_running(limit) == 0)
    }
}

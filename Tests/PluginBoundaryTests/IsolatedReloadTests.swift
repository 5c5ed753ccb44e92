import Foundation
import MotionCore
import MotionHost
import Testing

/// A hot reload of TweenKit with running Tweens, in process and isolated: the isolated one's switch to its new sandbox
/// is one request (R43's calls batched), and the Tweens go on, end and let their tokens go as in process.
@Suite("A reloaded isolated TweenKit goes on as an in-process one does")
struct IsolatedReloadTests {
    static let tweens = 200

    /// Every change over `tweens` Tweens of 0.5 s, a reload of TweenKit (a copy of its library with 8 more bytes) at
    /// frame 10, then frames until frame 45, and whether the scheduler is idle after; with the isolated host's ring
    /// reads for the switch (0 in process).
    func run(isolated: Bool) throws -> (lines: [String], isIdle: Bool, readsForSwitch: (host: UInt64, sandbox: UInt64)) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("isolated-reload-\(getpid())-\(isolated)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifestURL = folder.appendingPathComponent("tweenkit.json")
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("manifests/tweenkit.json"), to: manifestURL)
        let original = try Data(contentsOf: productsDirectory.appendingPathComponent("libTweenKit.so"))
        let library = folder.appendingPathComponent("libTweenKit.so")
        try original.write(to: library)
        chmod(library.path, 0o755)
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [try PluginManifest.load(contentsOf: manifestURL)]),
            loader: LibraryLoader(configuration: HostConfiguration(plugins: isolated ? ["*": .process] : [:])), logSink: { _, _ in })
        host.pluginTimeout = 10
        let scene = Scene()
        for index in 0..<Self.tweens { scene.addTarget(TargetID("t\(index)"), properties: ["x": 0]) }
        let scheduler = Scheduler(scene: scene, registry: host)
        scheduler.recordsPlansForRecreation = true
        var transaction = Transaction()
        for index in 0..<Self.tweens {
            transaction.add(
                Plan(type: "Tween", fields: ["property": "x", "to": [.number(Double(index))], "duration": 0.5, "timing": "linear"]),
                to: TargetID("t\(index)"))
        }
        try scheduler.commit(transaction)
        var lines = Isolation.changeLines(of: scene, advancing: scheduler, frames: 10)
        var rebuilt = original
        rebuilt.append(contentsOf: [1, 2, 3, 4, 5, 6, 7, 8])
        let staged = folder.appendingPathComponent(".libTweenKit.so.tmp")
        try rebuilt.write(to: staged)
        chmod(staged.path, 0o755)
        #expect(rename(staged.path, library.path) == 0)
        let reload = try #require(try host.reload(pluginID: "org.motion.tweenkit", in: scheduler))
        #expect(reload.isNewLibrary && reload.recreation.readdedPlanCount == Self.tweens && reload.recreation.failures.isEmpty)
        var reads: (host: UInt64, sandbox: UInt64) = (0, 0)
        if isolated {
            // Only the new sandbox runs now; its reads since it started: its load and the switch.
            let sandboxes = host.sandboxWaitStatistics()
            #expect(sandboxes.count == 1)
            if let counts = sandboxes.first { reads = (counts.host.reads, counts.sandbox.reads) }
        }
        for i in 10..<45 {
            scheduler.advanceFrame(to: Double(i) / 60)
            for change in scene.drainChanges() {
                lines.append("\(i) \(change.target.name) \((0..<change.value.count).map { change.value[$0].bitPattern })")
            }
        }
        return (lines, !scheduler.isActive, reads)
    }

    @Test("the same changes in process and isolated across the reload, and every token ends (the sandbox's ids translated)")
    func isolatedReloadMatchesInProcess() throws {
        let inProcess = try run(isolated: false)
        let isolated = try run(isolated: true)
        #expect(inProcess.lines.count > Self.tweens * 10)
        #expect(isolated.lines == inProcess.lines)
        let isInProcessIdle = inProcess.isIdle
        #expect(isInProcessIdle)
        // Each Tween's token, taken in the batch under the sandbox's id, is ended by its Tween through that id.
        let isIsolatedIdle = isolated.isIdle
        #expect(isIsolatedIdle)
        // The new sandbox's reads from its start to the end of the switch: its load, then one request (its results
        // and its reply). A round trip per call (create, add_plan, slot, token_generate) was 800 reads each way.
        #expect(isolated.readsForSwitch.sandbox <= 10, "\(isolated.readsForSwitch)")
        #expect(isolated.readsForSwitch.host <= 10, "\(isolated.readsForSwitch)")
    }
}

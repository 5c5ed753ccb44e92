import Foundation
import MotionCore
import Testing

@testable import MotionHost

/// How the host and a sandbox wait for each other's messages in their shared rings: long enough spins that two
/// processes on two cores keep each other awake (waking one that slept costs tens of µs on a virtual CPU), and
/// no spinning while there is nothing to wait for.
@Suite("An isolated plugin's waits spin while answers come, and sleep when idle", .serialized)
struct SandboxWaitTests {
    /// (spin budget, the wait it had, the next budget), ns, with the limit of 100 µs
    /// (`SandboxSharedMemory.spinNanoseconds`).
    @Test(
        "the spin budget after a wait: up at once to twice the wait + 1 µs, down by an eighth, halved after a wait past the limit",
        arguments: [
            // A wait caught by a short spin keeps the budget above it.
            (2_000, 1_500, 4_000),
            // A peer that slept took a 40 µs wake-up: the next spin covers it (under the old limit of 10 µs it
            // fell to nothing, and both sides slept on every leg).
            (2_000, 40_000, 81_000),
            // Within the limit but far under the budget: an eighth of the way down.
            (81_000, 3_000, 81_000 - (81_000 - 7_000) / 8),
            // Never above the limit.
            (50_000, 90_000, 100_000),
            // A wait past the limit (a peer waiting for a core, an idle host): halved.
            (80_000, 150_000, 40_000),
            (1, 50_000_000, 0),
        ])
    func spinBudget(budget: UInt64, waited: UInt64, next: UInt64) {
        #expect(SandboxSharedMemory.spinNanoseconds == 100_000)
        #expect(SandboxSharedMemory.nextSpinNanoseconds(budget: budget, waited: waited) == next)
    }

    /// The CPU time of every thread of process `pid` so far, seconds (`/proc/PID/task/*/schedstat`, whose first field
    /// is the time on a CPU in ns).
    static func cpuSeconds(ofProcess pid: pid_t) throws -> Double {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return try tasks.reduce(0) { total, task in
            let line = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)
            let nanoseconds = try #require(line.split(separator: " ").first.flatMap { Double($0) }, "schedstat: \(line)")
            return total + nanoseconds / 1e9
        }
    }

    @Test("after 3,000 quick round trips (the spin budget at its highest) an idle sandbox uses under 10 ms of CPU in 1 s")
    func anIdleSandboxSleeps() throws {
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("manifests/tweenkit.json"))]),
            loader: LibraryLoader(configuration: HostConfiguration(plugins: ["*": .process]), extraLibraryDirectories: [productsDirectory]),
            logSink: { _, _ in })
        let scene = Scene()
        for i in 0..<10 { scene.addTarget(TargetID("t\(i)"), properties: ["x": 0]) }
        let scheduler = Scheduler(scene: scene, registry: host)
        for i in 0..<3_000 {
            try scheduler.commit(
                Transaction([
                    .add(
                        Plan(type: "Tween", fields: ["property": "x", "to": [.number(Double(i % 7))], "duration": 0.5]),
                        target: TargetID("t\(i % 10)"))
                ]))
        }
        let pid = try #require(host.currentSandbox(ofPlugin: "org.motion.tweenkit")?.sandboxProcess?.pid)
        let before = try Self.cpuSeconds(ofProcess: pid)
        Thread.sleep(forTimeInterval: 1)
        let used = try Self.cpuSeconds(ofProcess: pid) - before
        // At most one spin of the limit (100 µs) and the wake-ups of its 50 ms sleep slices (20 in 1 s); a sandbox
        // that kept spinning would use about 1 s.
        #expect(used < 0.010, "the idle sandbox used \(used * 1000) ms of CPU in 1 s")
        // The plans did reach the sandbox: the first frame moves the targets.
        scheduler.advanceFrame(to: 0)
        scheduler.advanceFrame(to: 0.25)
        #expect(scene.target(TargetID("t1"))?["x"] != PropertyValue(0.0))
    }
}

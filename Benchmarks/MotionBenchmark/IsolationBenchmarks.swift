import Foundation
import MotionCore
import MotionHost
import Synchronization

/// What isolating a plugin in a sandbox process costs: its frame tick and plan commits beside the in-process
/// plugin's, how long a sandbox takes to start, and how soon a sandbox that dies between frames is reported.
enum IsolationBenchmarks {
    /// The sample plugins' host with every plugin isolated (`"plugins": {"*": {"isolation": "process"}}`).
    /// `MOTION_BENCHMARK_PLUGIN_TIMEOUT` (seconds) replaces the default plugin timeout of 10 s: a sandbox started under
    /// valgrind on a busy machine can take longer than that to load (`Benchmarks/callgrind-tweens.sh` sets it).
    static func makeIsolatedHost(manifests: [PluginManifest]? = nil) throws -> PluginHost {
        let plugins = try manifests ?? ["tweenkit.json", "cperformers.json", "cdeclarative.json"].map(PluginBenchmarks.manifest)
        let host = PluginHost(
            catalog: PluginCatalog(plugins: plugins),
            loader: LibraryLoader(
                configuration: HostConfiguration(plugins: ["*": .process]), extraLibraryDirectories: [PluginBenchmarks.productsDirectory]))
        if let seconds = ProcessInfo.processInfo.environment["MOTION_BENCHMARK_PLUGIN_TIMEOUT"].flatMap(Double.init) {
            host.pluginTimeout = seconds
        }
        return host
    }

    /// Milliseconds for `starts` sandboxes of TweenKit, one after another, each in a new host: spawning
    /// `motion-sandbox`, its confinement, the library's trust checks and sealed copy, `dlopen`, entry and ABI
    /// checks, and the reply. Returns the median and the largest.
    static func sandboxStartMilliseconds(starts: Int = 21) throws -> (median: Double, largest: Double) {
        let manifest = try PluginBenchmarks.manifest("tweenkit.json")
        var times: [Double] = []
        for _ in 0..<starts + 1 {
            let host = try makeIsolatedHost(manifests: [manifest])
            let start = DispatchTime.now().uptimeNanoseconds
            try host.prepare(manifest)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        times.removeFirst()  // the first start reads the files from disk
        times.sort()
        return (times[times.count / 2], times.last!)
    }

    /// How soon a sandbox that crashes on a thread of its own, between the host's calls, is reported: `runs`
    /// times, a fixture (`CrashLater`) crashes at a random moment while a real-time frame loop at `frameRate`
    /// runs and asks the host for failures at every frame boundary; the latency is from the moment the plugin
    /// logged just before crashing (`CLOCK_MONOTONIC`, shared by both processes) to the frame that reported it.
    /// - Returns: The median and the largest latency, milliseconds.
    static func crashDetectionMilliseconds(runs: Int = 11, frameRate: Double = 60) throws -> (median: Double, largest: Double) {
        let manifest = try PluginManifest.load(
            contentsOf: PluginBenchmarks.manifestsDirectory.deletingLastPathComponent().appendingPathComponent(
                "Tests/Fixtures/plugins/isolation/confinement.json"))
        let crashedAt = Mutex<UInt64?>(nil)
        PluginLog.setSink { _, line in
            guard let range = line.range(of: "crashing at ") else { return }
            crashedAt.withLock { $0 = UInt64(line[range.upperBound...]) }
        }
        defer { PluginLog.setSink(nil) }
        var latencies: [Double] = []
        for run in 0..<runs {
            crashedAt.withLock { $0 = nil }
            let host = try makeIsolatedHost(manifests: [manifest])
            let scheduler = Scheduler(scene: Scene(targets: ["p"]), registry: host)
            let delay = 5 + (run * 37) % 50  // spread over three frame periods
            try scheduler.commit(Transaction([.add(Plan(type: "CrashLater", fields: ["milliseconds": .number(Double(delay))]), target: "p")]))
            let period = UInt64(1e9 / frameRate)
            var next = monotonicNanoseconds()
            var frame = 0
            while frame < 600 {
                next += period
                while monotonicNanoseconds() < next { usleep(200) }
                scheduler.advanceFrame(to: Double(frame) / frameRate)
                frame += 1
                if !host.takeFailures().isEmpty {
                    let reported = monotonicNanoseconds()
                    guard let crashed = crashedAt.withLock({ $0 }) else { throw BenchmarkError("the fixture did not log its crash") }
                    latencies.append(Double(reported - crashed) / 1e6)
                    break
                }
            }
            guard latencies.count == run + 1 else { throw BenchmarkError("the crash was not reported within 10 s") }
        }
        latencies.sort()
        return (latencies[latencies.count / 2], latencies.last!)
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

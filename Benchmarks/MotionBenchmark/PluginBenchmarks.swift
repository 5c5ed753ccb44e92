import Foundation
import MotionCore
import MotionHost

/// The plugin boundary's cost, measured beside the same work done in-process.
struct PluginBenchmarks {
    /// The repository's manifests (the benchmark runs from the repository root; see README).
    static let manifestsDirectory: URL = {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("manifests")
        if FileManager.default.fileExists(atPath: cwd.path) { return cwd }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("manifests")
    }()

    /// The folder of this executable, where `swift build -c release` puts the plugin libraries.
    static let productsDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    static func manifest(_ name: String) throws -> PluginManifest {
        try PluginManifest.load(contentsOf: manifestsDirectory.appendingPathComponent(name))
    }

    /// A plugin host over the sample manifests, libraries from this executable's folder.
    static func makeHost() throws -> PluginHost {
        let manifests = try ["tweenkit.json", "cperformers.json", "cdeclarative.json"].map(manifest)
        return PluginHost(catalog: PluginCatalog(plugins: manifests), loader: LibraryLoader(extraLibraryDirectories: [productsDirectory]))
    }

    /// A scene of `count` targets, each with a `Tween` long enough to run through every measured frame,
    /// performed by `registry`; returns a function that runs `frames` frames.
    static func runningTweens(registry: any PerformerRegistry, count: Int) throws -> (Int) throws -> Void {
        let scene = tweenScene(count: count)
        let scheduler = try committingTweens(to: scene, registry: registry)
        var time = 0.0
        scheduler.advanceFrame(to: time)
        return { frames in
            var changes = 0
            for _ in 0..<frames {
                time += 1.0 / 60
                scheduler.advanceFrame(to: time)
                scene.drainIndexedChanges { _, _, _ in changes += 1 }
            }
            // Every tween must still run, and must have moved its target on every frame.
            guard scheduler.frameUpdatedPerformerCount == count, changes == frames * count else {
                throw BenchmarkError("\(scheduler.frameUpdatedPerformerCount) of \(count) tweens ran, \(changes) of \(frames * count) changes")
            }
        }
    }

    /// `count` targets `card0`, `card1`, ..., each with `x` 0 (the host refuses a plan naming a property its
    /// target lacks).
    static func tweenScene(count: Int) -> Scene {
        let scene = Scene()
        // No `Target` objects: a performer that needs one (the plugin host's) makes it.
        scene.addTargets((0..<count).lazy.map { TargetID("card\($0)") }, properties: ["x": 0])
        return scene
    }

    /// A scheduler over `scene` with a `Tween` committed to each target, performed by `registry`.
    static func committingTweens(to scene: Scene, registry: any PerformerRegistry) throws -> Scheduler {
        let scheduler = Scheduler(scene: scene, registry: registry)
        // In transactions of 1,000 plans: the memory column is what running Tweens hold, not a transaction of a
        // million plans waiting to be committed.
        for chunk in stride(from: 0, to: scene.targetCount, by: 1000) {
            var transaction = Transaction()
            for i in chunk..<min(chunk + 1000, scene.targetCount) {
                // "from" 0: every frame moves every target, so every frame records a change per target.
                let plan = Plan(type: "Tween", fields: ["property": "x", "from": [0], "to": [1000], "duration": 3000, "timing": "easeInOut"])
                transaction.add(plan, to: TargetID("card\(i)"))
            }
            try scheduler.commit(transaction)
        }
        return scheduler
    }

    /// Per-frame costs of several registries measured side by side: each one's median, and each one's
    /// ratio to the first as the median of the per-round ratios (adjacent measurements share the
    /// machine's state, so a noisy neighbour moves both sides of a round's ratio alike).
    struct FrameCosts {
        /// Median nanoseconds per performer per frame, per registry.
        var medians: [Double]
        /// Median over rounds of (this registry's time / the first registry's time), per registry.
        var ratios: [Double]
    }

    /// Nanoseconds per performer per frame for each registry, measured in rounds that run every registry
    /// once, in an order that alternates from round to round; see ``FrameCosts``.
    static func tweenFrameCosts(registries: [any PerformerRegistry], performers count: Int = 10_000, frames: Int = 60, rounds: Int = 21) throws
        -> FrameCosts
    {
        try tweenFrameCosts(runs: registries.map { try runningTweens(registry: $0, count: count) }, performers: count, frames: frames, rounds: rounds)
    }

    /// As ``tweenFrameCosts(registries:performers:frames:rounds:)``, for runners made already (a registry's
    /// ``runningTweens(registry:count:)`` or the C limit's ``LimitBenchmarks/runningTweens(count:)``).
    static func tweenFrameCosts(runs: [(Int) throws -> Void], performers count: Int, frames: Int = 60, rounds: Int = 21) throws
        -> FrameCosts
    {
        for run in runs { try run(frames) }  // warm-up
        var times = Array(repeating: [Double](), count: runs.count)
        for round in 0..<rounds {
            let order = round % 2 == 0 ? Array(runs.indices) : runs.indices.reversed()
            for i in order {
                let start = DispatchTime.now().uptimeNanoseconds
                try runs[i](frames)
                times[i].append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(frames * count))
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return FrameCosts(
            medians: times.map(median),
            ratios: times.map { series in median(zip(series, times[0]).map { $0 / $1 }) })
    }

    /// Nanoseconds per performer per frame with `count` running `Tween`s performed by `registry`.
    static func tweenFrameCost(registry: any PerformerRegistry, performers count: Int = 10_000) throws -> Double {
        try tweenFrameCosts(registries: [registry], performers: count).medians[0]
    }

    /// The in-process `Tween` performer as a registry.
    static func inProcessTweens() -> InProcessRegistry { InProcessTweenPerformer.registry() }

    /// Plans per second committed to existing performers of `registry`, one plan per transaction, plans
    /// cycling over 100 targets (manifest validation, JSON across the boundary, the plugin's parsing).
    /// - Parameter reportsRuns: whether to write each timed run's wall-clock and CPU time (the thread's
    ///   `CLOCK_THREAD_CPUTIME_ID`) and its involuntary context switches to standard error: on this shared machine a run
    ///   whose wall time is far above its CPU time shared its core with another process.
    static func plansPerSecond(registry: any PerformerRegistry, plans: Int = 100_000, reportsRuns: Bool = false, plan: (Int) -> Plan) throws
        -> Double
    {
        let scene = Scene()
        for i in 0..<100 { scene.addTarget(TargetID("t\(i)"), properties: ["x": 0, "level": 0]) }
        let scheduler = Scheduler(scene: scene, registry: registry)
        let targets = (0..<100).map { TargetID("t\($0)") }
        var time = 0.0
        var run = 0
        let seconds = try medianSeconds(runs: 5) {
            let cpuStart = threadCPUSeconds()
            let switchesStart = involuntaryContextSwitches()
            let start = DispatchTime.now().uptimeNanoseconds
            for i in 0..<plans {
                try scheduler.commit(Transaction([.add(plan(i), target: targets[i % 100])]))
            }
            time += 10
            scheduler.advanceFrame(to: time)  // lets performers finish and drop what they accumulated
            scheduler.advanceFrame(to: time + 10)
            if reportsRuns {
                let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                let cpu = threadCPUSeconds() - cpuStart
                let line = String(
                    format: "%@ run: %.0f plans/s by wall time (%.3f s), %.0f by CPU time (%.3f s), %d involuntary context switches, CPU %d\n",
                    run == 0 ? "warm-up" : "timed \(run)", Double(plans) / wall, wall, Double(plans) / cpu, cpu,
                    involuntaryContextSwitches() - switchesStart, lastCPU())
                FileHandle.standardError.write(Data(line.utf8))
            }
            run += 1
        }
        return Double(plans) / seconds
    }

    /// The calling thread's CPU time in seconds (`CLOCK_THREAD_CPUTIME_ID`).
    static func threadCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The CPU the calling thread last ran on (`/proc/thread-self/stat`'s field 39; `sched_getcpu` is a GNU extension
    /// the Glibc module does not import), -1 if unreadable.
    static func lastCPU() -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8), let close = stat.lastIndex(of: ")")
        else { return -1 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 36 ? Int(fields[36]) ?? -1 : -1
    }

    /// The calling thread's involuntary context switches so far (`getrusage(RUSAGE_THREAD)`'s `ru_nivcsw`).
    static func involuntaryContextSwitches() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD, which Glibc's module does not import (a GNU extension)
        return usage.ru_nivcsw
    }

    /// Seconds for one library's trust checks, `dlopen`, entry and ABI check, in this (fresh) process.
    static func measureLoad(manifestName: String) throws -> Double {
        let host = try makeHost()
        let start = DispatchTime.now().uptimeNanoseconds
        try host.load(try manifest(manifestName))
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Median over `runs` fresh processes of ``measureLoad(manifestName:)`` (a library loads once per process).
    static func freshProcessLoadSeconds(manifestName: String, runs: Int = 7) throws -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let output = try runFreshProcess(arguments: ["--measure-load", manifestName])
            guard let seconds = Double(output) else { throw BenchmarkError("the load measurement printed \"\(output)\"") }
            times.append(seconds)
        }
        return times.sorted()[times.count / 2]
    }

    /// The frame tick of `count` running Tweens in-process and through TweenKit, measured in `processes`
    /// fresh processes (`--profile-tweens COUNT alternating`, 21 alternating rounds each): the ratio
    /// moves from process to process (by ±0.05 on this project's machine) more than between the rounds
    /// of one, and a fresh process is not shaped by the measurements before it. Per process: median ns
    /// per performer per frame of each side and the median of the rounds' ratios.
    static func freshProcessTweenFrameCosts(count: Int = 10_000, processes: Int = 7) throws
        -> [(inProcess: Double, plugin: Double, ratio: Double, isolated: Double, isolatedRatio: Double)]
    {
        try (0..<processes).map { _ in
            let output = try runFreshProcess(arguments: ["--profile-tweens", String(count), "alternating"])
            // "in-process X plugin Y ratio Z isolated W ratio V"
            let words = output.split(separator: " ")
            guard words.count == 10, let inProcess = Double(words[1]), let plugin = Double(words[3]), let ratio = Double(words[5]),
                let isolated = Double(words[7]), let isolatedRatio = Double(words[9])
            else { throw BenchmarkError("the frame measurement printed \"\(output)\"") }
            return (inProcess, plugin, ratio, isolated, isolatedRatio)
        }
    }

    /// The frame tick at one scale, in one fresh process (`--profile-scale COUNT`): the C limit, the in-process
    /// Tween and TweenKit, alternating, each with its ratio to the limit and its resident memory per performer
    /// (``profileScale(count:)``).
    static func freshProcessScale(count: Int) throws -> [(name: String, nanoseconds: Double, ratio: Double, bytes: Double)] {
        let output = try runFreshProcess(arguments: ["--profile-scale", String(count)])
        return try output.split(separator: "\n").map { line in
            let words = line.split(separator: " ")
            guard words.count == 4, let ns = Double(words[1]), let ratio = Double(words[2]), let bytes = Double(words[3]) else {
                throw BenchmarkError("the scale measurement printed \"\(output)\"")
            }
            return (String(words[0]), ns, ratio, bytes)
        }
    }

    /// How many Tweens each side of ``profileScale(count:)`` runs, one frame, and lets go of before its memory is
    /// measured: few, so that what they free and the measured scene takes again is a fraction of a byte per Tween.
    static let warmUpCount = 10

    /// `--profile-scale COUNT` in this process: lines "side ns ratio-to-limit bytes-per-performer".
    ///
    /// The memory column is what a running Tween adds to the process: the growth of the resident set (`VmRSS`)
    /// while that side's scene of `count` Tweens is set up and runs its first frame that moves every Tween (so
    /// the change log's pages count), over `count`. What a process pays once per side is left out: each side first
    /// sets up ``warmUpCount`` Tweens of its own, runs a frame of them and lets them go (kept, TweenKit's batch would
    /// span two schedulers and take its slower path): its code's pages, touched for the first time (a megabyte in
    /// process, about 105 bytes a Tween at 10,000), the plugin's library, the runtime's type metadata. Before, the
    /// column counted those and stopped before the first frame.
    static func profileScale(count: Int) throws -> String {
        var bytes: [Double] = []
        func measured(_ make: (Int) throws -> (Int) throws -> Void) throws -> (Int) throws -> Void {
            try make(warmUpCount)(1)
            // Its first read of /proc touches about 400 KB that are the process's, not the Tweens'.
            _ = LimitBenchmarks.residentBytes()
            let before = LimitBenchmarks.residentBytes()
            let run = try make(count)
            try run(1)
            bytes.append(Double(LimitBenchmarks.residentBytes() - before) / Double(count))
            return run
        }
        let host = try makeHost()
        let runs = [
            try measured { try LimitBenchmarks.runningTweens(count: $0) },
            try measured { try runningTweens(registry: inProcessTweens(), count: $0) },
            try measured { try runningTweens(registry: host, count: $0) },
        ]
        // Fewer frames and rounds at the large scales, so a run stays within seconds.
        let frames = count >= 1_000_000 ? 6 : count >= 100_000 ? 20 : 60
        let rounds = count >= 1_000_000 ? 5 : count >= 100_000 ? 9 : 21
        let costs = try tweenFrameCosts(runs: runs, performers: count, frames: frames, rounds: rounds)
        return zip(["limit", "in-process", "plugin"], costs.medians.indices).map { name, i in
            "\(name) \(costs.medians[i]) \(costs.ratios[i]) \(bytes[i])"
        }.joined(separator: "\n")
    }

    /// `--profile-memory COUNT [SIDE]` in this process: heap bytes per running Tween, all in, and what part of them
    /// the scene (its targets, with `x`), the committed plans (scheduler and performers: for a plugin, the host's
    /// proxies and contexts and the plugin's own performers, which allocate from the same heap) and the first frames
    /// (the Tweens' start, then a frame that moves every one and is drained: the change log) take; then the resident
    /// bytes per Tween of the whole set-up. `SIDE`: `in-process` (the default), `plugin` (TweenKit in this process) or
    /// `isolated` (TweenKit in its sandbox, whose memory is its own process's and not counted here: this is the host's
    /// side alone). What the process pays once is paid before the first count, as in ``profileScale(count:)``: the
    /// plugin's library is loaded (and its sandbox started), and ``warmUpCount`` Tweens are set up, run a frame and
    /// are let go.
    static func profileMemory(count: Int, side: String = "in-process") throws -> String {
        let registry: any PerformerRegistry
        switch side {
        case "in-process": registry = inProcessTweens()
        case "plugin": registry = try makeHost()
        case "isolated": registry = try IsolationBenchmarks.makeIsolatedHost()
        default: throw BenchmarkError("--profile-memory: unknown side \"\(side)\"; expected in-process, plugin or isolated")
        }
        // The library loaded (and the sandbox started), the code run once, before counting: what is counted grows
        // with the Tweens.
        try runningTweens(registry: registry, count: warmUpCount)(1)
        _ = LimitBenchmarks.residentBytes()  // its first read touches about 400 KB that are the process's
        let (heap, resident) = (LimitBenchmarks.heapBytes(), LimitBenchmarks.residentBytes())
        let (anonymous, file) = (LimitBenchmarks.residentBytes("RssAnon"), LimitBenchmarks.residentBytes("RssFile"))
        let scene = tweenScene(count: count)
        let afterScene = LimitBenchmarks.heapBytes()
        let scheduler = try committingTweens(to: scene, registry: registry)
        let afterCommit = LimitBenchmarks.heapBytes()
        scheduler.advanceFrame(to: 0)
        scheduler.advanceFrame(to: 1.0 / 60)
        var changes = 0
        scene.drainIndexedChanges { _, _, _ in changes += 1 }
        let afterFrame = LimitBenchmarks.heapBytes()
        let residentAfter = LimitBenchmarks.residentBytes()
        let (anonymousAfter, fileAfter) = (LimitBenchmarks.residentBytes("RssAnon"), LimitBenchmarks.residentBytes("RssFile"))
        guard scheduler.frameUpdatedPerformerCount == count, changes == count else {
            throw BenchmarkError("\(scheduler.frameUpdatedPerformerCount) of \(count) tweens run, \(changes) moved")
        }
        func perTween(_ bytes: Int) -> String { format(Double(bytes) / Double(count), 1) }
        return """
            heap bytes per running \(side) Tween, \(count.formatted()) Tweens: \(perTween(afterFrame - heap)) (scene \(perTween(afterScene - heap)), \
            scheduler and performers \(perTween(afterCommit - afterScene)), first frames \(perTween(afterFrame - afterCommit))); \
            resident \(perTween(residentAfter - resident)) (anonymous \(perTween(anonymousAfter - anonymous)), \
            files \(perTween(fileAfter - file)))
            """
    }

    /// Runs this benchmark again with `arguments` and returns what it printed, trimmed.
    private static func runFreshProcess(arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        process.currentDirectoryURL = manifestsDirectory.deletingLastPathComponent()
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("motion-benchmark \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

// motion-benchmark: the runtime's and the plugin boundary's speed, measured side by side in one run.
// From the repository root:
//     swift build -c release && .build/release/motion-benchmark
// One measurement alone, for a profiler (perf record …):
//     motion-benchmark --profile-tweens [COUNT] [in-process|plugin|isolated|limit|both|alternating]   frame tick of running Tweens
//     motion-benchmark --profile-plans [isolated] [PLANS]                  Tween plans committed to TweenKit
//     motion-benchmark --profile-json-plans                                JSON transactions (10 plans each) decoded + committed
import Foundation
import MotionCore
import MotionHost

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--measure-load" {
    print(try PluginBenchmarks.measureLoad(manifestName: CommandLine.arguments[2]))
    exit(0)
}

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--profile-scale", let count = Int(CommandLine.arguments[2]) {
    print(try PluginBenchmarks.profileScale(count: count))
    exit(0)
}

if (3...4).contains(CommandLine.arguments.count), CommandLine.arguments[1] == "--profile-memory", let count = Int(CommandLine.arguments[2]) {
    print(try PluginBenchmarks.profileMemory(count: count, side: CommandLine.arguments.count == 4 ? CommandLine.arguments[3] : "in-process"))
    exit(0)
}

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "--profile-tweens" {
    let arguments = CommandLine.arguments
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000
    let side = arguments.count > 3 ? arguments[3] : "both"
    if side == "limit" {
        let run = try LimitBenchmarks.runningTweens(count: count)
        let seconds = try medianSeconds(runs: 21) { try run(60) }
        print("limit", seconds * 1e9 / Double(60 * count))
        exit(0)
    }
    if side == "alternating" {
        let registries: [any PerformerRegistry] = [
            PluginBenchmarks.inProcessTweens(), try PluginBenchmarks.makeHost(), try IsolationBenchmarks.makeIsolatedHost(),
        ]
        let costs = try PluginBenchmarks.tweenFrameCosts(registries: registries, performers: count)
        print(
            "in-process", costs.medians[0], "plugin", costs.medians[1], "ratio", costs.ratios[1], "isolated", costs.medians[2], "ratio",
            costs.ratios[2])
        exit(0)
    }
    if side == "isolated" {
        // The host outlives the run, so that its sandbox ends by seeing the host go (an exit a profiler in it,
        // valgrind --trace-children=yes, writes its counts at), not by the SIGKILL of the host's shut-down.
        let host = try IsolationBenchmarks.makeIsolatedHost()
        print("isolated", try PluginBenchmarks.tweenFrameCost(registry: host, performers: count))
        withExtendedLifetime(host) { exit(0) }
    }
    if side != "plugin" { print("in-process", try PluginBenchmarks.tweenFrameCost(registry: PluginBenchmarks.inProcessTweens(), performers: count)) }
    if side != "in-process" { print("plugin", try PluginBenchmarks.tweenFrameCost(registry: try PluginBenchmarks.makeHost(), performers: count)) }
    exit(0)
}

if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--profile-typed-plans" {
    print(try RuntimeBenchmarks.typedPlansPerSecond())
    exit(0)
}

if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--profile-frame-updated" {
    print(try RuntimeBenchmarks.frameCost())
    exit(0)
}

if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--profile-json-plans" {
    print(try RuntimeBenchmarks.jsonPlansPerSecond())
    exit(0)
}

// `--profile-plans [isolated] [PLANS]`: PLANS per run (100,000), 1 warm-up + 5 runs; Benchmarks/callgrind-plans.sh
// passes a small PLANS.
if (2...4).contains(CommandLine.arguments.count), CommandLine.arguments[1] == "--profile-plans" {
    let options = CommandLine.arguments.dropFirst(2)
    let host = options.contains("isolated") ? try IsolationBenchmarks.makeIsolatedHost() : try PluginBenchmarks.makeHost()
    // No time limit on the sandbox's answers: under valgrind (Benchmarks/callgrind-isolated-plans.sh) its load alone
    // can take longer than the default 10 s on a busy machine.
    host.pluginTimeout = nil
    let count = options.compactMap { Int($0) }.first ?? 100_000
    print(
        try PluginBenchmarks.plansPerSecond(registry: host, plans: count, reportsRuns: true) {
            Plan(type: "Tween", fields: ["property": "x", "to": [.number(Double($0 % 7))], "duration": 0.5])
        })
    // Where an isolated round trip's time went, on standard error: each side's waits for the other's messages.
    for statistics in host.sandboxWaitStatistics() {
        for (side, waits) in [("host", statistics.host), ("sandbox", statistics.sandbox)] {
            let reads = Double(waits.reads)
            func percent(_ count: UInt64) -> String { String(format: "%.1f%%", 100 * Double(count) / reads) }
            func microseconds(_ seconds: Double) -> String { String(format: "%.2f µs", 1e6 * seconds / reads) }
            let line =
                "\(statistics.pluginID) \(side) waits: \(waits.reads) reads, \(percent(waits.ready)) at once, "
                + "\(percent(waits.spun)) caught spinning, \(percent(waits.slept)) slept (woken \(waits.wakes) times); "
                + "\(microseconds(waits.spinSeconds)) spun, \(microseconds(waits.sleepSeconds)) asleep per read; "
                + "\(percent(waits.sameCPU)) began with the other side's last write from this CPU\n"
            FileHandle.standardError.write(Data(line.utf8))
            // The distributions, bucket by bucket (upper bounds in µs): how long the waits took, and how long a woken
            // side took to run again after the other side's futex wake.
            for (name, histogram) in [("wait", waits.waitHistogram), ("wake-up latency", waits.wakeHistogram)] {
                let total = histogram.reduce(0, +)
                guard total > 0 else { continue }
                let buckets = zip(SandboxWaitStatistics.Side.bucketBounds, histogram).filter { $0.1 > 0 }.map { bound, count in
                    let label = bound.isInfinite ? "more" : String(format: "<%g", bound * 1e6)
                    return "\(label) \(String(format: "%.1f%%", 100 * Double(count) / Double(total)))"
                }
                FileHandle.standardError.write(Data("  \(side) \(name) (\(total), µs): \(buckets.joined(separator: ", "))\n".utf8))
            }
        }
    }
    exit(0)
}

let usage = """
    usage: motion-benchmark                      the whole table (run from the repository root, release build)
           motion-benchmark --profile-tweens [COUNT] [in-process|plugin|isolated|limit|both|alternating]
                                                 the frame tick of COUNT (10000) running Tweens, for a profiler
           motion-benchmark --profile-memory COUNT [in-process|plugin|isolated]
                                                 heap bytes per running Tween (the host's process), and where they are
           motion-benchmark --profile-scale COUNT
                                                 the limit, in-process and plugin ticks at one scale, with memory
           motion-benchmark --profile-plans [isolated] [PLANS]
                                                 Tween plans committed to TweenKit (in its sandbox), PLANS (100000)
                                                 per run, for a profiler; isolated, each side's waits on stderr
           motion-benchmark --profile-typed-plans
                                                 typed Swift plans committed, one per transaction, for a profiler
           motion-benchmark --profile-frame-updated
                                                 the frame tick of 10,000 plain frame-updated performers, for a profiler
           motion-benchmark --profile-json-plans JSON transactions (10 plans each) decoded and committed, for a profiler
           motion-benchmark --measure-load MANIFEST
                                                 one library's trust checks + dlopen + entry + ABI, in ms
    """
if CommandLine.arguments.count == 2, ["--help", "-h"].contains(CommandLine.arguments[1]) {
    print(usage)
    exit(0)
}
if CommandLine.arguments.count > 1 {
    let given = CommandLine.arguments.dropFirst().joined(separator: " ")
    FileHandle.standardError.write(Data("error: unknown arguments \(given)\n\(usage)\n".utf8))
    exit(64)  // EX_USAGE, as motion-host exits on a usage error
}

let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
print(
    "motion-benchmark — medians of several runs after a warm-up; \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(load)\n"
)

var runtime = Table(header: ["runtime (in-process)", "result"])
runtime.add(["typed Swift plans committed", "\(format(try RuntimeBenchmarks.typedPlansPerSecond())) plans/s"])
runtime.add(["JSON transactions committed (10 plans each)", "\(format(try RuntimeBenchmarks.jsonPlansPerSecond())) plans/s"])
runtime.add(["frame tick, 10,000 frame-updated performers", "\(format(try RuntimeBenchmarks.frameCost(), 1)) ns per performer per frame"])
print(runtime.render())
print()

let tweenRuns = try PluginBenchmarks.freshProcessTweenFrameCosts()
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let ratios = tweenRuns.map(\.ratio).sorted()
var frames = Table(header: [
    "frame tick, 10,000 running Tweens (\(tweenRuns.count) processes × 21 alternating rounds)", "ns per performer per frame",
    "ratio (median of processes)", "range",
])
frames.add(["in-process Tween performer", format(median(tweenRuns.map(\.inProcess)), 1), "1.00", ""])
frames.add([
    "TweenKit plugin (Swift SDK, C ABI)", format(median(tweenRuns.map(\.plugin)), 1), format(median(ratios), 2),
    "\(format(ratios.first!, 2))–\(format(ratios.last!, 2))",
])
let isolatedRatios = tweenRuns.map(\.isolatedRatio).sorted()
frames.add([
    "TweenKit isolated (sandbox process, one update_many request per frame)", format(median(tweenRuns.map(\.isolated)), 1),
    format(median(isolatedRatios), 2), "\(format(isolatedRatios.first!, 2))–\(format(isolatedRatios.last!, 2))",
])
print(frames.render())
print()

var scales = Table(header: [
    "frame tick by scale (one process per scale, alternating)", "ns per performer per frame", "÷ C limit", "resident bytes per performer",
])
for count in [100, 10_000, 100_000, 1_000_000] {
    for side in try PluginBenchmarks.freshProcessScale(count: count) {
        let name =
            switch side.name {
            case "limit": "hand-written C loop (structure of arrays), \(count.formatted()) Tweens"
            case "in-process": "in-process Tween performer, \(count.formatted())"
            default: "TweenKit plugin, \(count.formatted())"
            }
        scales.add([name, format(side.nanoseconds, 1), format(side.ratio, 2), format(side.bytes, 0)])
    }
}
print(scales.render())
print()

let host = try PluginBenchmarks.makeHost()
var plans = Table(header: ["plans committed to a plugin (validated against the manifest)", "plans/s"])
plans.add([
    "Tween → TweenKit (Swift SDK, fields read by the host)",
    format(
        try PluginBenchmarks.plansPerSecond(registry: host) {
            Plan(type: "Tween", fields: ["property": "x", "to": [.number(Double($0 % 7))], "duration": 0.5])
        }),
])
plans.add([
    "Nudge → CPerformers (C, fields read by the host)",
    format(
        try PluginBenchmarks.plansPerSecond(registry: host) {
            Plan(type: "Nudge", fields: ["property": "x", "by": [1], "duration": .number(0.1 + Double($0 % 3))])
        }),
])
plans.add([
    "SetLevel → CDeclarative (libffi call, no JSON)",
    format(
        try PluginBenchmarks.plansPerSecond(registry: host) {
            Plan(type: "SetLevel", fields: ["property": "level", "level": .number(Double($0 % 10)), "steps": 0, "clamp": true])
        }),
])
plans.add([
    "Tween → TweenKit isolated (one request per plan to its sandbox)",
    format(
        try PluginBenchmarks.plansPerSecond(registry: try IsolationBenchmarks.makeIsolatedHost()) {
            Plan(type: "Tween", fields: ["property": "x", "to": [.number(Double($0 % 7))], "duration": 0.5])
        }),
])
print(plans.render())
print()

var isolation = Table(header: ["an isolated plugin's sandbox", "median", "largest"])
let starts = try IsolationBenchmarks.sandboxStartMilliseconds()
isolation.add([
    "start: spawn motion-sandbox, confine, trust checks + sealed copy + dlopen + entry + ABI (TweenKit, 21 starts)",
    "\(format(starts.median, 2)) ms", "\(format(starts.largest, 2)) ms",
])
let detection = try IsolationBenchmarks.crashDetectionMilliseconds()
isolation.add([
    "a crash between frames reported (60 fps real-time loop, 11 crashes; one frame period is 16.67 ms)",
    "\(format(detection.median, 2)) ms", "\(format(detection.largest, 2)) ms",
])
print(isolation.render())
print()

var loading = Table(header: ["one library, fresh process", "trust checks + dlopen + entry + ABI"])
for name in ["tweenkit.json", "cperformers.json", "cdeclarative.json"] {
    loading.add([name, "\(format(try PluginBenchmarks.freshProcessLoadSeconds(manifestName: name) * 1000, 2)) ms"])
}
print(loading.render())

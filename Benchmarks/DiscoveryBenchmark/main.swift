// discovery-benchmark: MotionHost's manifest discovery side by side with lilv, LV2's reference host
// library, plus plan validation cost.
//
//   swift build -c release --product discovery-benchmark
//   .build/release/discovery-benchmark [--plugins 1000] [--runs 11] [--baseline OTHER-BUILD]
//
// --baseline names another build of this benchmark (say, of the main branch, copied aside): its `--list` is
// then timed as a whole process too, alternating with this build's and `lv2ls` run by run, so that a change
// is measured side by side under the same load.
//
// Generates N JSON manifests and N equivalent LV2 bundles (each plugin: one plan type with 6 numeric
// fields with unit, default, minimum, maximum ↔ 6 control input ports with the same) in a temporary
// folder, then prints a table of medians over several runs. lilv rows need `apt-get install -y
// lilv-utils liblilv-dev` (they are skipped, with a note, without them).
//
// Internal modes (used to time MotionHost as a whole process, as `lv2ls` is):
//   discovery-benchmark --list FOLDER [--cache FILE]     prints every plugin id and plan type
//   discovery-benchmark --describe FOLDER [--cache FILE] prints every field of every plugin

import FoundationEssentials
import Glibc
import MotionCore
import MotionFiles
import MotionHost

// MARK: Arguments

let arguments = Array(CommandLine.arguments.dropFirst())

@MainActor func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

if let folder = option("--list") {
    let cache = option("--cache").map { DiscoveryCache(url: URL(fileURLWithPath: $0)) }
    let catalog = PluginCatalog.discover(
        searchPath: PluginSearchPath(directories: [URL(fileURLWithPath: folder)]), cache: cache)
    var out = ""
    for plugin in catalog.plugins {
        out += plugin.id
        for type in plugin.planTypes { out += " " + type }
        out += "\n"
    }
    StandardStream.output.write(out)
    exit(0)
}

if let folder = option("--describe") {
    let cache = option("--cache").map { DiscoveryCache(url: URL(fileURLWithPath: $0)) }
    let catalog = PluginCatalog.discover(
        searchPath: PluginSearchPath(directories: [URL(fileURLWithPath: folder)]), cache: cache)
    var out = ""
    for plugin in catalog.plugins {
        out += "\(plugin.id) \(plugin.name)\n"
        for performer in plugin.performers {
            for plan in performer.plans {
                for field in plan.fields {
                    out += "  \(plan.type).\(field.name) \(field.expectation)"
                    if let value = field.defaultValue?.number { out += " default \(value)" }
                    out += "\n"
                }
            }
        }
    }
    StandardStream.output.write(out)
    exit(0)
}

let pluginCount = Int(option("--plugins") ?? "") ?? 1000
let runs = max(3, Int(option("--runs") ?? "") ?? 11)

// MARK: Fixtures

let root = FileManager.default.temporaryDirectory.appendingPathComponent(
    "motion-discovery-benchmark-\(ProcessInfo.processInfo.processIdentifier)")
let manifestFolder = root.appendingPathComponent("manifests")
let lv2Folder = root.appendingPathComponent("lv2")
let cacheFile = root.appendingPathComponent("cache/discovery.cache")
try FileManager.default.createDirectory(at: manifestFolder, withIntermediateDirectories: true)
try FileManager.default.createDirectory(at: lv2Folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }

let fieldNames = ["gain", "rate", "depth", "offset", "attack", "release"]
let units = ["dB", "Hz", "ratio", "s", "s", "s"]
let lv2Units = ["db", "hz", "coef", "s", "s", "s"]

for n in 0..<pluginCount {
    let tag = String(cFormat: "%04d", n)
    var fields: [String] = []
    var ports: [String] = []
    for (k, name) in fieldNames.enumerated() {
        let low = Double(k) * -1
        let high = Double(k + 1) * 10
        let value = (low + high) / 2
        fields.append(
            "{\"name\": \"\(name)\", \"type\": \"number\", \"unit\": \"\(units[k])\", \"default\": \(value), \"minimum\": \(low), \"maximum\": \(high), \"summary\": \"The \(name) of plugin \(tag).\"}"
        )
        ports.append(
            """
                [
                    a lv2:InputPort , lv2:ControlPort ;
                    lv2:index \(k) ;
                    lv2:symbol "\(name)" ;
                    lv2:name "\(name.capitalized)" ;
                    lv2:default \(value) ;
                    lv2:minimum \(low) ;
                    lv2:maximum \(high) ;
                    units:unit units:\(lv2Units[k]) ;
                    rdfs:comment "The \(name) of plugin \(tag)."
                ]
            """)
    }
    let manifest = """
        {
          "manifestVersion": 1,
          "id": "org.bench.plugin\(tag)",
          "name": "Plugin \(tag)",
          "version": "1.0.\(n)",
          "abiVersion": "1.0",
          "library": "libplugin\(tag).so",
          "summary": "Benchmark plugin \(tag).",
          "performers": [
            {
              "class": "Performer\(tag)",
              "interface": "entry",
              "capabilities": ["frames"],
              "plans": [
                {
                  "type": "Plan\(tag)",
                  "summary": "Plan \(tag).",
                  "fields": [
                    \(fields.joined(separator: ",\n            "))
                  ]
                }
              ]
            }
          ]
        }
        """
    try manifest.write(
        to: manifestFolder.appendingPathComponent("plugin\(tag).json"), atomically: false, encoding: .utf8)

    let bundle = lv2Folder.appendingPathComponent("plugin\(tag).lv2")
    try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
    let prefixes = """
        @prefix lv2: <http://lv2plug.in/ns/lv2core#> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        @prefix doap: <http://usefulinc.com/ns/doap#> .
        @prefix units: <http://lv2plug.in/ns/extensions/units#> .

        """
    try
        (prefixes + """
            <urn:bench:plugin\(tag)>
                a lv2:Plugin ;
                lv2:binary <libplugin\(tag).so> ;
                rdfs:seeAlso <plugin.ttl> .

            """).write(to: bundle.appendingPathComponent("manifest.ttl"), atomically: false, encoding: .utf8)
    try
        (prefixes + """
            <urn:bench:plugin\(tag)>
                a lv2:Plugin ;
                doap:name "Plugin \(tag)" ;
                rdfs:comment "Benchmark plugin \(tag)." ;
                lv2:port
            \(ports.joined(separator: " ,\n")) .

            """).write(to: bundle.appendingPathComponent("plugin.ttl"), atomically: false, encoding: .utf8)
}

// MARK: Timing

/// The 1-, 5- and 15-minute load averages (`/proc/loadavg`): the machine is shared, so timings need it beside them.
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3)
        .joined(separator: " ")
}
let loadAtStart = loadAverage()

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func time(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return milliseconds(clock.now - start)
}

/// The CPU time (user + system, ms, from `wait4`'s `rusage`) of the last program ``runProcess(_:_:environment:)``
/// ran: on a shared machine a process that uses both cores can win on wall time when the load is low and lose
/// when it is high, so the table gives both.
var lastProcessCPUTime = 0.0

func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1e3 + Double(time.tv_usec) / 1e3 }

/// Runs a program to completion with `posix_spawn` (Foundation's `Process` adds several milliseconds of
/// its own per launch), stdout captured in a file; returns wall time in ms and the output.
@MainActor func runProcess(_ path: String, _ args: [String], environment: [String: String]? = nil) throws -> (Double, String) {
    let outputPath = root.appendingPathComponent("spawn-output.txt").path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    var status: Int32 = 0
    let elapsed = try time {
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw BenchmarkError(description: "cannot run \(path) (posix_spawn: \(spawned))")
        }
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
        lastProcessCPUTime = milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime)
    }
    guard status == 0 else {
        throw BenchmarkError(description: "\(path) failed (wait status \(status))")
    }
    return (elapsed, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
}

/// A program the benchmark runs could not be started or failed.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
}

func which(_ program: String) -> String? {
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let path = "\(folder)/\(program)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

struct Row {
    var name: String
    var motion: Double?
    var lilv: Double?
    var note: String
}

var rows: [Row] = []
let searchPath = PluginSearchPath(directories: [manifestFolder])
let cache = DiscoveryCache(url: cacheFile)

var sink = 0.0
@MainActor func listing(cache: DiscoveryCache?) -> Int {
    let catalog = PluginCatalog.discover(searchPath: searchPath, cache: cache)
    var count = 0
    for plugin in catalog.plugins { count += plugin.id.utf8.count + plugin.planTypes.count }
    precondition(
        catalog.plugins.count == pluginCount && catalog.problems.isEmpty,
        "benchmark manifests must all be valid: \(catalog.problems.first.map { "\($0)" } ?? "")")
    return count
}

@MainActor func describeAll(cache: DiscoveryCache?) -> Double {
    let catalog = PluginCatalog.discover(searchPath: searchPath, cache: cache)
    var checksum = 0.0
    var text = 0
    for plugin in catalog.plugins {
        text += plugin.id.utf8.count + plugin.name.utf8.count
        for performer in plugin.performers {
            for plan in performer.plans {
                for field in plan.fields {
                    text += field.name.utf8.count + (field.unit?.utf8.count ?? 0) + (field.summary?.utf8.count ?? 0)
                    checksum += (field.defaultValue?.number ?? 0) + (field.minimum ?? 0) + (field.maximum ?? 0)
                }
            }
        }
    }
    precondition(catalog.plugins.count == pluginCount)
    return checksum + Double(text) * 0
}

// Warm up the file cache and the code once.
_ = listing(cache: nil)

let coldList = median((0..<runs).map { _ in time { sink += Double(listing(cache: nil)) } })
let coldDescribe = median((0..<runs).map { _ in time { sink += describeAll(cache: nil) } })
_ = listing(cache: cache)  // writes the cache
let warmList = median((0..<runs).map { _ in time { sink += Double(listing(cache: cache)) } })
let warmDescribe = median((0..<runs).map { _ in time { sink += describeAll(cache: cache) } })

// MARK: lilv

var lv2lsTime: Double?
var lilvDescribeTime: Double?
var lilvDescribeInProcess: Double?
var notes: [String] = []
let lv2Environment = ProcessInfo.processInfo.environment.merging(["LV2_PATH": lv2Folder.path]) { $1 }

let lv2lsPath = which("lv2ls")
if let lv2ls = lv2lsPath {
    let (_, output) = try runProcess(lv2ls, [], environment: lv2Environment)
    let listed = output.split(separator: "\n").count
    if listed != pluginCount { notes.append("lv2ls listed \(listed) plugins, expected \(pluginCount)") }
} else {
    notes.append("lv2ls not found: apt-get install -y lilv-utils")
}

let sourceCandidates = [
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("lilv-describe.c"),
    URL(fileURLWithPath: "Benchmarks/DiscoveryBenchmark/lilv-describe.c"),
]
if let source = sourceCandidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }),
    let cc = which("cc"), let pkgConfig = which("pkg-config"),
    let flags = try? runProcess(pkgConfig, ["--cflags", "--libs", "lilv-0"]).1
{
    let binary = root.appendingPathComponent("lilv-describe")
    let compile =
        ["-O2", "-o", binary.path, source.path]
        + flags.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    _ = try runProcess(cc, compile)
    var wall: [Double] = []
    var inside: [Double] = []
    for _ in 0..<runs {
        let (elapsed, output) = try runProcess(binary.path, [], environment: lv2Environment)
        let parts = output.split(whereSeparator: { $0 == " " || $0 == "\n" })
        if let plugins = parts.first.flatMap({ Int($0) }), plugins != pluginCount {
            notes.append("lilv-describe saw \(plugins) plugins, expected \(pluginCount)")
        }
        if parts.count >= 2, let ports = Int(parts[1]), ports != pluginCount * 6 {
            notes.append("lilv-describe read \(ports) ports, expected \(pluginCount * 6)")
        }
        wall.append(elapsed)
        if let last = parts.last, let ms = Double(last) { inside.append(ms) }
    }
    lilvDescribeTime = median(wall)
    lilvDescribeInProcess = inside.isEmpty ? nil : median(inside)
} else {
    notes.append("lilv-describe not built: needs cc, pkg-config and liblilv-dev (apt-get install -y liblilv-dev)")
}

// MARK: MotionHost as a whole process

let me = ProcessInfo.processInfo.arguments[0]
let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? me
// Listing without the cache, against lv2ls (and a baseline build), alternating run by run.
let baselinePath = option("--baseline")
var listTimes: [Double] = []
var lv2lsTimes: [Double] = []
var baselineTimes: [Double] = []
if let baselinePath {
    let (mine, theirs) = (
        try runProcess(selfPath, ["--list", manifestFolder.path]).1, try runProcess(baselinePath, ["--list", manifestFolder.path]).1
    )
    if mine != theirs { notes.append("the baseline build lists other plugins than this build") }
}
var listCPU: [Double] = []
var lv2lsCPU: [Double] = []
var baselineCPU: [Double] = []
for _ in 0..<runs {
    listTimes.append(try runProcess(selfPath, ["--list", manifestFolder.path]).0)
    listCPU.append(lastProcessCPUTime)
    if let lv2ls = lv2lsPath {
        lv2lsTimes.append(try runProcess(lv2ls, [], environment: lv2Environment).0)
        lv2lsCPU.append(lastProcessCPUTime)
    }
    if let baselinePath {
        baselineTimes.append(try runProcess(baselinePath, ["--list", manifestFolder.path]).0)
        baselineCPU.append(lastProcessCPUTime)
    }
}
let processList = median(listTimes)
lv2lsTime = lv2lsTimes.isEmpty ? nil : median(lv2lsTimes)
let baselineList = baselineTimes.isEmpty ? nil : median(baselineTimes)
let processListCPU = median(listCPU)
let lv2lsCPUTime = lv2lsCPU.isEmpty ? nil : median(lv2lsCPU)
let baselineListCPU = baselineCPU.isEmpty ? nil : median(baselineCPU)
let processListCached = median(
    try (0..<runs).map { _ in try runProcess(selfPath, ["--list", manifestFolder.path, "--cache", cacheFile.path]).0 })
let processDescribe = median(
    try (0..<runs).map { _ in try runProcess(selfPath, ["--describe", manifestFolder.path]).0 })
let processDescribeCached = median(
    try (0..<runs).map { _ in
        try runProcess(selfPath, ["--describe", manifestFolder.path, "--cache", cacheFile.path]).0
    })

// MARK: Plan validation

let declaration = PlanManifest(
    type: "Tween",
    fields: [
        FieldManifest(name: "property", type: .string, required: true),
        FieldManifest(name: "to", type: .vector, required: true),
        FieldManifest(name: "duration", type: .number, unit: "s", defaultValue: 0.3, minimum: 0, maximum: 3600),
        FieldManifest(name: "delay", type: .number, unit: "s", defaultValue: 0, minimum: 0),
        FieldManifest(
            name: "timing", type: .string, defaultValue: "easeInOut",
            enumValues: ["linear", "easeIn", "easeOut", "easeInOut"]),
        FieldManifest(name: "repeats", type: .integer, defaultValue: 1, minimum: 1, maximum: 100),
    ])
let completePlan = Plan(
    type: "Tween",
    fields: ["property": "opacity", "to": [1], "duration": 0.5, "delay": 0, "timing": "linear", "repeats": 2])
let partialPlan = Plan(type: "Tween", fields: ["property": "opacity", "to": [1], "duration": 0.5, "timing": "linear"])

@MainActor func nanosecondsPerValidation(_ plan: Plan) -> Double {
    let iterations = 1_000_000
    var count = 0
    let ms = time {
        for _ in 0..<iterations {
            if let validated = try? declaration.validate(plan) { count += validated.type.utf8.count }
        }
    }
    precondition(count == iterations * 5)
    return ms * 1e6 / Double(iterations)
}

let validateComplete = median((0..<5).map { _ in nanosecondsPerValidation(completePlan) })
let validatePartial = median((0..<5).map { _ in nanosecondsPerValidation(partialPlan) })

// MARK: Table

func format(_ ms: Double?) -> String { ms.map { String(cFormat: "%.1f ms", $0) } ?? "–" }
func ratio(_ motion: Double, _ lilv: Double?) -> String {
    guard let lilv else { return "–" }
    return String(cFormat: "%.1f×", lilv / motion)
}

print(
    "Discovery: \(pluginCount) plugins × 6 numeric fields (JSON manifests vs LV2 bundles); median of \(runs) runs; \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(loadAtStart) at the start, \(loadAverage()) at the end"
)
print("")
print("| measurement | MotionHost | lilv | lilv ÷ MotionHost |")
print("|---|---:|---:|---:|")
print("| listing, in-process, no cache (discover + ids + plan types) | \(format(coldList)) | | |")
print("| listing, in-process, discovery cache | \(format(warmList)) | | |")
print(
    "| listing, whole process, no cache (vs `lv2ls`) | \(format(processList)) | \(format(lv2lsTime)) | \(ratio(processList, lv2lsTime)) |"
)
if let baselineList {
    print(
        "| listing, whole process, no cache, the baseline build (vs `lv2ls`) | \(format(baselineList)) | \(format(lv2lsTime)) | \(ratio(baselineList, lv2lsTime)) |"
    )
}
print(
    "| listing, whole process, no cache, CPU time (vs `lv2ls`) | \(format(processListCPU)) | \(format(lv2lsCPUTime)) | \(ratio(processListCPU, lv2lsCPUTime)) |"
)
if let baselineListCPU {
    print(
        "| listing, whole process, no cache, CPU time, the baseline build (vs `lv2ls`) | \(format(baselineListCPU)) | \(format(lv2lsCPUTime)) | \(ratio(baselineListCPU, lv2lsCPUTime)) |"
    )
}
print(
    "| listing, whole process, discovery cache (vs `lv2ls`) | \(format(processListCached)) | \(format(lv2lsTime)) | \(ratio(processListCached, lv2lsTime)) |"
)
print(
    "| describe-all, in-process, no cache (vs lilv in-process) | \(format(coldDescribe)) | \(format(lilvDescribeInProcess)) | \(ratio(coldDescribe, lilvDescribeInProcess)) |"
)
print(
    "| describe-all, in-process, discovery cache (vs lilv in-process) | \(format(warmDescribe)) | \(format(lilvDescribeInProcess)) | \(ratio(warmDescribe, lilvDescribeInProcess)) |"
)
print(
    "| describe-all, whole process, no cache (vs `lilv-describe`) | \(format(processDescribe)) | \(format(lilvDescribeTime)) | \(ratio(processDescribe, lilvDescribeTime)) |"
)
print(
    "| describe-all, whole process, discovery cache (vs `lilv-describe`) | \(format(processDescribeCached)) | \(format(lilvDescribeTime)) | \(ratio(processDescribeCached, lilvDescribeTime)) |"
)
print("")
print("Plan validation (6-field Tween plan, PlanManifest.validate):")
print(
    String(
        cFormat: "  all fields given: %.0f ns per plan; 2 defaults filled in: %.0f ns per plan", validateComplete,
        validatePartial))
for note in notes { print("note: \(note)") }
if sink.isNaN { print(sink) }

// cli-benchmark: `motion-host run` as a whole process at scale (issue 12, "the CLI grows linearly").
//
//   swift build -c release && .build/release/cli-benchmark [--targets 10000,100000] [--runs 5] [--seconds 2]
//
// From the repository root (the release `motion-host` beside this binary reads `manifests/`). Generates, in a
// temporary folder, one scene per count: N targets, each with an `opacity` and one `Tween` of it from 0 to 1
// over `--seconds` (2 s) at 60 fps, all committed in one transaction at 0 s, the TweenKit plugin performing
// them. Runs `motion-host run SCENE --plugin-path manifests --output FILE` on each as a whole process (JSON
// Lines to a file in the temporary folder), the counts alternating within each round, and prints the median
// wall time, frames per second (the run's frames ÷ wall time, so scene reading, commit and start-up count),
// and the ratio of the largest count's wall time to the smallest's (the median of the rounds' ratios).
// Each run's timeline is checked: exit status 0, a summary line with the expected frame count, and a last
// frame line that names the last target.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

if arguments.contains("--help") {
    print("usage: cli-benchmark [--targets 10000,100000] [--runs 5] [--seconds 2]")
    exit(0)
}
let counts = (option("--targets") ?? "10000,100000").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
let runs = max(1, Int(option("--runs") ?? "") ?? 5)
let seconds = Double(option("--seconds") ?? "") ?? 2
let frameRate = 60
let frames = Int((seconds * Double(frameRate)).rounded(.down)) + 1
guard !counts.isEmpty, seconds > 0 else {
    FileHandle.standardError.write(Data("cli-benchmark: --targets needs counts > 0 and --seconds a number > 0\n".utf8))
    exit(64)
}

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3)
        .joined(separator: " ")
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("cli-benchmark: \(message)\n".utf8))
    exit(1)
}

// MARK: Scenes

let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cli-benchmark-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

/// A scene of `count` targets, each with a Tween of its opacity over the run.
func writeScene(count: Int) throws -> URL {
    var text = #"{"sceneVersion": 1, "name": "\#(count) tweens", "frameRate": \#(frameRate), "duration": \#(seconds),"#
    text += "\n \"targets\": ["
    for i in 0..<count {
        if i > 0 { text += ",\n  " }
        text += #"{"name": "t\#(i)", "properties": {"opacity": 0}}"#
    }
    text += "],\n \"transactions\": [{\"at\": 0, \"operations\": ["
    for i in 0..<count {
        if i > 0 { text += ",\n  " }
        text +=
            #"{"op": "add", "target": "t\#(i)", "plan": {"type": "Tween", "property": "opacity", "to": [1], "duration": \#(seconds)}}"#
    }
    text += "]}]}\n"
    let url = folder.appendingPathComponent("scene-\(count).json")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
}

let host = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    .appendingPathComponent("motion-host")
guard FileManager.default.isExecutableFile(atPath: host.path) else {
    fail("no motion-host at \(host.path); build it first: swift build -c release")
}
guard FileManager.default.fileExists(atPath: "manifests/tweenkit.json") else {
    fail("run from the repository root (manifests/tweenkit.json is not here)")
}

// MARK: Runs

/// The CPU time (user + system, seconds) of the children that have ended so far (`getrusage(RUSAGE_CHILDREN)`).
func childrenCPUTime() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Runs `motion-host run` on a scene; returns its wall time and CPU time, seconds, after checking the timeline.
func run(scene: URL, count: Int) throws -> (wall: Double, cpu: Double) {
    let output = folder.appendingPathComponent("timeline-\(count).jsonl")
    let process = Process()
    process.executableURL = host
    process.arguments = ["run", scene.path, "--plugin-path", "manifests", "--output", output.path]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let cpuBefore = childrenCPUTime()
    let start = now()
    try process.run()
    process.waitUntilExit()
    let wall = now() - start
    let cpu = childrenCPUTime() - cpuBefore
    guard process.terminationStatus == 0 else { fail("motion-host run \(scene.path) exited \(process.terminationStatus)") }
    let text = try String(contentsOf: output, encoding: .utf8)
    let lines = text.split(separator: "\n")
    guard let summary = lines.last, summary.hasPrefix("{\"summary\":{\"frames\":\(frames),") else {
        fail("\(output.path): the summary does not say \(frames) frames")
    }
    guard let lastFrame = lines.dropLast().last(where: { $0.hasPrefix("{\"frame\":") }),
        lastFrame.contains("\"t\(count - 1)\":{\"opacity\":1}")
    else {
        fail("\(output.path): the last frame line does not bring t\(count - 1) to opacity 1")
    }
    try? FileManager.default.removeItem(at: output)
    return (wall, cpu)
}

print("cli-benchmark — medians of \(runs) rounds (the counts alternating); 2 cores, load average \(loadAverage())")
let scenes = try counts.map { try writeScene(count: $0) }
var walls = Array(repeating: [Double](), count: counts.count)
var cpus = walls
_ = try run(scene: scenes[0], count: counts[0])  // warm-up: page cache, plugin library
for round in 0..<runs {
    let order = round % 2 == 0 ? Array(counts.indices) : Array(counts.indices.reversed())
    for i in order {
        let (wall, cpu) = try run(scene: scenes[i], count: counts[i])
        walls[i].append(wall)
        cpus[i].append(cpu)
    }
}

func grouped(_ n: Int) -> String {
    let digits = String(n)
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0, (digits.count - i) % 3 == 0 { out += "," }
        out.append(c)
    }
    return out
}

var rows: [[String]] = [["", "wall time", "frames/s", "ns per target per frame", "CPU time (user + system)"]]
rows[0][0] = "motion-host run, one \(seconds) s Tween per target, \(frameRate) fps (\(frames) frames), JSON Lines to a file"
for (i, count) in counts.enumerated() {
    let wall = median(walls[i])
    rows.append([
        "\(grouped(count)) targets", String(format: "%.3f s", wall), String(format: "%.1f", Double(frames) / wall),
        String(format: "%.0f", wall * 1e9 / Double(frames * count)), String(format: "%.3f s", median(cpus[i])),
    ])
}
if counts.count > 1 {
    let last = counts.count - 1
    let ratios = (0..<runs).map { walls[last][$0] / walls[0][$0] }
    let cpuRatios = (0..<runs).map { cpus[last][$0] / cpus[0][$0] }
    rows.append([
        "\(grouped(counts[last])) ÷ \(grouped(counts[0])) (median of the rounds' ratios; linear: \(counts[last] / counts[0])×)",
        String(format: "%.2f×", median(ratios)), "", String(format: "range %.2f–%.2f", ratios.min()!, ratios.max()!),
        String(format: "%.2f× (%.2f–%.2f)", median(cpuRatios), cpuRatios.min()!, cpuRatios.max()!),
    ])
}
let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max()! }
func line(_ cells: [String]) -> String {
    "| " + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
}
print(line(rows[0]))
print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
for row in rows.dropFirst() { print(line(row)) }
print("load average at the end: \(loadAverage())")

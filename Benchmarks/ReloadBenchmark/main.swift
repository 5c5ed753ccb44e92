// reload-benchmark: issue 14's hot-reload goal, "a reload of a changed plugin applied within 2 frames of the
// library being complete on disk", measured against the release `motion-host serve --watch` at 60 fps and
// printed as a table. From the repository root:
//     swift build -c release && .build/release/reload-benchmark [--reloads N] [--only TEXT]
// For each plugin (the C Setter, the Swift Pulse, TweenKit running 1,000 Tweens; then the Setter and TweenKit
// isolated, `--isolate`, where a reload starts a new sandbox and switches the performers to it), in a folder of its own
// with its manifest and a copy of its release library: N times, at a random phase of the frame, a new copy of
// the library (the same code with 8 distinct bytes appended, so its SHA-256 differs and it is loaded
// again) is written beside it and renamed over it, as a linker does; the time runs from that rename to the
// `reload` line appearing in the timeline file (flushed at the end of the frame that applied it).
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
if arguments.contains("--help") {
    print("usage: reload-benchmark [--reloads N (20)] [--only TEXT (the rows whose plugin column contains TEXT)]")
    exit(0)
}
let reloads = arguments.firstIndex(of: "--reloads").flatMap { Int(arguments[$0 + 1]) } ?? 20
let only = arguments.firstIndex(of: "--only").map { arguments[$0 + 1] }
let frameRate = 60.0
let framePeriod = 1 / frameRate
let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

/// One plugin to reload: its manifest in the repository, its library, and a scene that uses it.
struct Case {
    let name: String
    let manifest: String
    let library: String
    let targets: [String]
    let operations: [String]
    /// The plugin id to run in a sandbox (`--isolate`), if any.
    var isolate: String? = nil
}

let tweens = 1000
let setter = Case(
    name: "Setter (C), 1 performer", manifest: "Examples/Plugins/setter.json", library: "libSetter.so",
    targets: [#"{"name": "t", "properties": {"level": 0}}"#],
    operations: [#"{"op": "add", "target": "t", "plan": {"type": "Set", "property": "level", "value": 1}}"#])
let tweenKit = Case(
    name: "TweenKit (Swift), \(tweens) running Tweens", manifest: "manifests/tweenkit.json", library: "libTweenKit.so",
    targets: (0..<tweens).map { #"{"name": "t\#($0)", "properties": {"x": 0}}"# },
    operations: (0..<tweens).map {
        #"{"op": "add", "target": "t\#($0)", "plan": {"type": "Tween", "property": "x", "to": [1000000], "duration": 3600, "timing": "linear"}}"#
    })
let cases = [
    setter,
    Case(
        name: "Pulse (Swift), 1 performer", manifest: "Examples/Plugins/pulse.json", library: "libPulse.so",
        targets: [#"{"name": "card", "properties": {"scale": 1}}"#],
        operations: [
            #"{"op": "addNamed", "target": "card", "name": "pulse", "plan": {"type": "Pulse", "property": "scale", "duration": 60}}"#
        ]),
    tweenKit,
    Case(
        name: "Setter isolated, 1 performer", manifest: setter.manifest, library: setter.library, targets: setter.targets,
        operations: setter.operations, isolate: "org.example.setter"),
    Case(
        name: "TweenKit isolated, \(tweens) running Tweens", manifest: tweenKit.manifest, library: tweenKit.library,
        targets: tweenKit.targets, operations: tweenKit.operations, isolate: "org.motion.tweenkit"),
]

/// The timeline file's lines that contain `marker`, counted as the file grows.
final class TimelineTail {
    let url: URL
    private var handle: FileHandle?
    private var pending = Data()

    init(_ url: URL) { self.url = url }

    /// Reads what was appended since the last call; returns the complete lines among it.
    func newLines() -> [String] {
        if handle == nil { handle = try? FileHandle(forReadingFrom: url) }
        guard let handle, let data = try? handle.readToEnd(), !data.isEmpty else { return [] }
        pending.append(data)
        guard let last = pending.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        let complete = pending[..<last]
        pending = Data(pending[(last + 1)...])
        return complete.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    }
}

struct Row {
    let name: String
    let librarySize: Int
    var latencies: [Double] = []
    var frames: [Int] = []
    var droppedFrames = "?"
}

func measure(_ benchmark: Case) throws -> Row {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "reload-benchmark-\(getpid())-\(benchmark.library)\(benchmark.isolate == nil ? "" : "-isolated")")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    chmod(folder.path, 0o755)
    let manifestName = URL(fileURLWithPath: benchmark.manifest).lastPathComponent
    try FileManager.default.copyItem(atPath: benchmark.manifest, toPath: folder.appendingPathComponent(manifestName).path)
    let original = try Data(contentsOf: products.appendingPathComponent(benchmark.library))
    let library = folder.appendingPathComponent(benchmark.library)
    try original.write(to: library)
    chmod(library.path, 0o755)
    let scene = """
        {"sceneVersion": 1, "name": "reload benchmark", "frameRate": \(Int(frameRate)), "duration": 10,
         "targets": [\(benchmark.targets.joined(separator: ","))],
         "transactions": [{"at": 0, "operations": [\(benchmark.operations.joined(separator: ","))]}]}
        """
    try scene.write(to: folder.appendingPathComponent("scene.json"), atomically: true, encoding: .utf8)
    let output = folder.appendingPathComponent("timeline.jsonl")
    let errors = folder.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)

    let serve = Process()
    serve.executableURL = products.appendingPathComponent("motion-host")
    serve.arguments =
        [
            "serve", "scene.json", "--plugin-path", ".", "--watch", "--listen", "127.0.0.1:0", "--output", output.path,
        ] + (benchmark.isolate.map { ["--isolate", $0] } ?? [])
    serve.currentDirectoryURL = folder
    serve.standardError = try FileHandle(forWritingTo: errors)
    serve.standardOutput = FileHandle.nullDevice
    try serve.run()
    defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
    let tail = TimelineTail(output)
    // Wait until the plugin is loaded and watched: the commit at 0 s, then a few frames.
    var started = false
    for _ in 0..<3000 where !started {
        started = tail.newLines().contains { $0.hasPrefix("{\"activity\"") || $0.hasPrefix("{\"frame\"") }
        if !started { usleep(10_000) }
    }
    guard started else {
        throw BenchmarkError("\(benchmark.name): serve did not start: \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
    }
    usleep(200_000)

    var row = Row(name: benchmark.name, librarySize: original.count)
    let staged = folder.appendingPathComponent(".\(benchmark.library).tmp")
    for i in 1...reloads {
        usleep(UInt32.random(in: 150_000..<250_000))  // a random phase within the frame period
        var copy = original
        withUnsafeBytes(of: UInt64(i).littleEndian) { copy.append(contentsOf: $0) }
        try copy.write(to: staged)
        chmod(staged.path, 0o755)
        let renamed = now()
        guard rename(staged.path, library.path) == 0 else { throw BenchmarkError("rename failed: \(errno)") }
        var line: String?
        while line == nil, now() - renamed < 10 {
            line = tail.newLines().first { $0.hasPrefix("{\"reload\"") || $0.hasPrefix("{\"error\"") }
            if line == nil { usleep(200) }
        }
        let seen = now()
        guard let line, line.hasPrefix("{\"reload\"") else {
            throw BenchmarkError("\(benchmark.name): reload \(i): \(line ?? "no reload line within 10 s")")
        }
        row.latencies.append(seen - renamed)
        if let range = line.range(of: "\"frame\":") {
            row.frames.append(Int(line[range.upperBound...].prefix { $0.isNumber }) ?? -1)
        }
    }
    kill(serve.processIdentifier, SIGTERM)
    serve.waitUntilExit()
    let rest = tail.newLines().last { $0.hasPrefix("{\"summary\"") } ?? ""
    if let range = rest.range(of: "\"droppedFrames\":") { row.droppedFrames = String(rest[range.upperBound...].prefix { $0.isNumber }) }
    return row
}

var load = [Double](repeating: 0, count: 3)
_ = getloadavg(&load, 3)
print(
    "reload-benchmark — load average \(load.map { String(format: "%.2f", $0) }.joined(separator: " ")); \(ProcessInfo.processInfo.activeProcessorCount) cores; \(Int(frameRate)) fps; \(reloads) reloads per plugin"
)
print("| plugin | library | rename → reload line, ms: p50 | max | in frame periods: p50 | max | frames dropped in the run | goal |")
print("|---|---|---|---|---|---|---|---|")
for benchmark in cases where only.map({ benchmark.name.contains($0) }) ?? true {
    let row = try measure(benchmark)
    let p50 = percentile(row.latencies, 0.5)
    let worst = row.latencies.max() ?? .nan
    print(
        "| \(row.name) | \(row.librarySize / 1024) KiB | \(String(format: "%.2f", p50 * 1000)) | \(String(format: "%.2f", worst * 1000)) | \(String(format: "%.2f", p50 / framePeriod)) | \(String(format: "%.2f", worst / framePeriod)) | \(row.droppedFrames) | ≤ 2 frames |"
    )
}

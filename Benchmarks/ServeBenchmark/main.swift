// serve-benchmark: the live host's goals (issue 13), measured over real loopback sockets against the
// release `motion-host serve`, printed as a table. From the repository root:
//     swift build -c release && .build/release/serve-benchmark [--seconds S] [--clients N] [--rate R]
// 1. Commit latency at 60 fps with 1,000 running Tweens: from POST /transactions sent to the frame line
//    with its change received on a WebSocket (goal: p99 ≤ one frame period + 2 ms).
// 2. Sensor Logger pushes at 100 Hz × 4 sensors (totalacceleration, gyroscope, magnetometer, accelerometer),
//    batched every 200 ms as the app pushes, for --sensor-seconds (10): every device-motion sample delivered
//    to the performers, in order, none dropped, as a device-motion performer (the echo fixture, which counts
//    the samples it receives and those out of order) and GET /state's deviceMotion counts report it.
// 3. N WebSocket clients (16) sending R transactions/s in total (10,000) for S seconds (30): every one
//    answered (committed or refused), none lost; missed frame deadlines (droppedFrames) ≤ 0.1 %.
import Foundation
import LoopbackTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

func argument(_ name: String, _ fallback: Double) -> Double {
    let arguments = CommandLine.arguments
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let value = Double(arguments[i + 1]) else {
        return fallback
    }
    return value
}
if CommandLine.arguments.contains("--help") {
    print(
        "usage: serve-benchmark [--seconds S (30)] [--clients N (16)] [--rate R transactions/s (10000)] [--tweens T (1000)] [--sensor-seconds S (10)]"
    )
    exit(0)
}
let seconds = argument("--seconds", 30)
let clients = Int(argument("--clients", 16))
let rate = argument("--rate", 10_000)
let tweens = Int(argument("--tweens", 1000))
let sensorSeconds = argument("--sensor-seconds", 10)
let frameRate = 60.0

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

/// A scene of `tweens` targets, each with an hour-long Tween, and a `probe` target with a level.
func writeScene() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-benchmark-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var targets = (0..<tweens).map { "{\"name\": \"t\($0)\", \"properties\": {\"x\": 0}}" }
    targets.append("{\"name\": \"probe\", \"properties\": {\"level\": 0}}")
    targets.append("{\"name\": \"phone\", \"properties\": {\"samples\": 0, \"outOfOrder\": 0, \"timestamp\": 0}}")
    var operations = (0..<tweens).map {
        "{\"op\": \"add\", \"target\": \"t\($0)\", \"plan\": {\"type\": \"Tween\", \"property\": \"x\", \"to\": [1000000], \"duration\": 3600, \"timing\": \"linear\"}}"
    }
    operations.append("{\"op\": \"add\", \"target\": \"phone\", \"plan\": {\"type\": \"EchoDeviceMotion\"}}")
    let scene = """
        {"sceneVersion": 1, "name": "serve benchmark", "frameRate": \(Int(frameRate)), "duration": 10,
         "targets": [\(targets.joined(separator: ","))],
         "transactions": [{"at": 0, "operations": [\(operations.joined(separator: ","))]}]}
        """
    let url = folder.appendingPathComponent("scene.json")
    try scene.write(to: url, atomically: true, encoding: .utf8)
    return url
}

/// Starts the release motion-host next to this binary; returns it and its port.
func startServe(scene: URL) throws -> (Process, Int, URL) {
    let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("motion-host")
    let errors = scene.deletingLastPathComponent().appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    let process = Process()
    process.executableURL = binary
    process.arguments = [
        "serve", scene.path, "--plugin-path", "manifests", "--plugin-path", "Tests/Fixtures/plugins", "--listen",
        "127.0.0.1:0", "--device-motion", "sensorlogger",
    ]
    process.standardError = try FileHandle(forWritingTo: errors)
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    for _ in 0..<2000 {
        let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        if let line = text.split(separator: "\n").first, line.hasPrefix("listening on"), text.contains("\n"),
            let port = Int(line.split(separator: ":").last ?? "")
        {
            return (process, port, errors)
        }
        usleep(10_000)
    }
    process.terminate()
    throw ClientError("motion-host serve did not start (run from the repository root): \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
}

/// Whether `text` holds `marker`, searched as bytes (the first byte with `memchr`, the rest with `memcmp`).
/// Foundation's `String.contains` took 1.3 ms on a frame line of 1,000 targets, which the measured latency
/// paid once or twice per probe.
func contains(_ text: String, _ marker: String) -> Bool {
    var text = text
    var marker = marker
    return text.withUTF8 { t in
        marker.withUTF8 { m in
            guard let mBase = m.baseAddress, let tBase = t.baseAddress, m.count <= t.count else { return m.isEmpty }
            var offset = 0
            while offset + m.count <= t.count {
                guard let hit = memchr(tBase + offset, Int32(mBase.pointee), t.count - m.count + 1 - offset) else {
                    return false
                }
                let at = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self))
                if memcmp(at, mBase, m.count) == 0 { return true }
                offset = at - tBase + 1
            }
            return false
        }
    }
}

func setLevel(_ level: Int) -> String {
    "{\"operations\": [{\"op\": \"add\", \"target\": \"probe\", \"plan\": {\"type\": \"SetLevel\", \"property\": \"level\", \"level\": \(level)}}]}"
}

let scene = try writeScene()
let (serve, port, _) = try startServe(scene: scene)
let host = "127.0.0.1:\(port)"
defer {
    if serve.isRunning { kill(serve.processIdentifier, SIGKILL) }
    try? FileManager.default.removeItem(at: scene.deletingLastPathComponent())
}

// Wait until the Tweens run (the scene's transaction is committed at 0 s).
let watcher = try LoopbackClient(port: port, readTimeout: 30)
guard try watcher.upgrade("/timeline", host: host).status == 101 else { throw ClientError("no timeline WebSocket") }
_ = try watcher.readText { $0["frame"] != nil }

// 1. Commit latency.
let probes = max(60, Int(seconds * 10))
let poster = try LoopbackClient(port: port)
var commitLatencies: [Double] = []
var answerLatencies: [Double] = []
for i in 1...probes {
    usleep(UInt32.random(in: 0..<16_667))  // a random phase within the frame period
    let body = Array(setLevel(i).utf8)
    let sent = now()
    let response = try poster.request("POST", "/transactions", host: host, headers: ["Content-Type": "application/json"], body: body)
    answerLatencies.append(now() - sent)
    guard response.status == 200 else { throw ClientError("probe \(i): \(response.status) \(response.text)") }
    let marker = "\"probe\":{\"level\":\(i)}"
    while true {
        guard case .text(let line) = try watcher.readMessage() else { throw ClientError("timeline closed") }
        if contains(line, marker) { break }
    }
    commitLatencies.append(now() - sent)
}

// 2. Sensor Logger pushes: 100 Hz × 4 sensors, one push every 200 ms (20 readings of each), in real time.
func state() throws -> [String: Any] {
    try LoopbackClient(port: port).request("GET", "/state", host: host).json()
}
func phoneValue(_ state: [String: Any], _ name: String) -> Double? {
    ((state["targets"] as? [String: [String: Any]])?["phone"]?[name] as? Double)
}
let pushPeriod = 0.2
let ticksPerPush = 20
let pushes = Int((sensorSeconds / pushPeriod).rounded())
let pusher = try LoopbackClient(port: port)
var readingsPushed = 0
var samplesMade = 0
var pushFailures: [String] = []
let epoch = Int64(Date().timeIntervalSince1970 * 1e9)
let pushStart = now()
for k in 0..<pushes {
    let wait = pushStart + Double(k + 1) * pushPeriod - now()
    if wait > 0 { usleep(UInt32(wait * 1e6)) }
    var payload: [String] = []
    for tick in 0..<ticksPerPush {
        let i = k * ticksPerPush + tick
        let time = epoch + Int64(i) * 10_000_000
        let phase = Double(i) * 0.05
        func reading(_ name: String, _ x: Double, _ y: Double, _ z: Double) -> String {
            "{\"name\": \"\(name)\", \"time\": \(time), \"values\": {\"x\": \(x), \"y\": \(y), \"z\": \(z)}}"
        }
        payload.append(reading("gyroscope", 0.1 * sin(phase), 0.05, -0.02))
        payload.append(reading("magnetometer", 20, 0.5 * cos(phase), -40))
        payload.append(reading("totalacceleration", 0.2 * sin(phase), 0.1, 9.81))
        payload.append(reading("accelerometer", 0.2 * sin(phase), 0.1, 0))
    }
    readingsPushed += payload.count
    let body = Array(
        "{\"messageId\": \(k), \"sessionId\": \"serve-benchmark\", \"deviceId\": \"bench\", \"payload\": [\(payload.joined(separator: ","))]}".utf8)
    let answer = try pusher.request(
        "POST", "/sensorlogger", host: host, headers: ["Content-Type": "application/json"], body: body)
    guard answer.status == 200, let counts = try? answer.json() else {
        pushFailures.append("push \(k): \(answer.status) \(answer.text)")
        continue
    }
    samplesMade += counts["deviceMotionSamples"] as? Int ?? 0
}
// The last push plays over the next interval: wait until nothing is waiting (at most 3 s).
var sensorState = try state()
for _ in 0..<300 {
    if ((sensorState["deviceMotion"] as? [String: Any])?["waiting"] as? Int) == 0 { break }
    usleep(10_000)
    sensorState = try state()
}
let hostCounts = sensorState["deviceMotion"] as? [String: Any] ?? [:]
let echoed = phoneValue(sensorState, "samples").map { Int($0) } ?? -1
let echoedOutOfOrder = phoneValue(sensorState, "outOfOrder").map { Int($0) } ?? -1
let expectedSamples = pushes * ticksPerPush

// 3. Many WebSocket clients at a total rate.
let perClient = rate / Double(clients)
let sentCount = Atomic<Int>(0)
let answeredCount = Atomic<Int>(0)
let committedCount = Atomic<Int>(0)
let group = DispatchGroup()
let failures = Mutex<[String]>([])
for c in 0..<clients {
    let client = try LoopbackClient(port: port, readTimeout: 30)
    guard try client.upgrade("/timeline", host: host).status == 101 else { throw ClientError("client \(c) refused") }
    let total = Int(perClient * seconds)
    let reader = Thread {
        var answered = 0
        while answered < total {
            guard let message = try? client.readMessage() else {
                failures.withLock { $0.append("client \(c): the socket failed after \(answered) answers") }
                break
            }
            guard case .text(let text) = message else {
                failures.withLock { $0.append("client \(c): closed after \(answered) answers: \(message)") }
                break
            }
            guard text.hasPrefix("{\"id\"") else { continue }
            answered += 1
            answeredCount.add(1, ordering: .relaxed)
            if contains(text, "\"committed\"") { committedCount.add(1, ordering: .relaxed) }
        }
        group.leave()
    }
    group.enter()
    reader.start()
    let sender = Thread {
        let start = now()
        for k in 0..<total {
            let due = start + Double(k) / perClient
            let wait = due - now()
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
            do {
                try client.sendText("{\"id\": \(k), \"transaction\": \(setLevel(k))}")
                sentCount.add(1, ordering: .relaxed)
            } catch {
                failures.withLock { $0.append("client \(c): send failed: \(error)") }
                break
            }
        }
    }
    sender.start()
}
let loadStart = now()
let finished = group.wait(timeout: .now() + seconds + 30)
let loadSeconds = now() - loadStart

// Stop and read the summary's dropped frames (on a fresh subscriber: the first one read nothing during the
// load and was dropped as too slow).
let closing = try LoopbackClient(port: port, readTimeout: 30)
guard try closing.upgrade("/timeline", host: host).status == 101 else { throw ClientError("no timeline WebSocket") }
_ = try? LoopbackClient(port: port).request("POST", "/shutdown", host: host)
var summary: [String: Any] = [:]
while let message = try? closing.readMessage(), case .text(let line) = message {
    if line.hasPrefix("{\"summary\""),
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [String: Any]]
    {
        summary = object["summary"] ?? [:]
        break
    }
}
serve.waitUntilExit()

let period = 1000 / frameRate
let frames = summary["frames"] as? Int ?? 0
let dropped = summary["droppedFrames"] as? Int ?? -1
func ms(_ s: Double) -> String { String(format: "%.2f", s * 1000) }
var load = [Double](repeating: 0, count: 3)
_ = getloadavg(&load, 3)
print("load average \(String(format: "%.2f %.2f %.2f", load[0], load[1], load[2])); \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("| measurement | p50 | p99 | max | goal |")
print("|---|---|---|---|---|")
func row(_ name: String, _ values: [Double], goal: String) {
    let cells = [ms(percentile(values, 0.5)), ms(percentile(values, 0.99)), ms(values.max() ?? .nan)]
    print("| \(name) | " + cells.joined(separator: " | ") + " | \(goal) |")
}
row(
    "commit latency, POST sent → frame line on a WebSocket, \(tweens) Tweens at 60 fps (\(commitLatencies.count) probes), ms",
    commitLatencies, goal: "p99 ≤ \(String(format: "%.2f", period + 2))")
row("POST /transactions answered (after the commit), ms", answerLatencies, goal: "—")
print("")
print("| load | value | goal |")
print("|---|---|---|")
print(
    "| WebSocket clients × transactions/s × seconds | \(clients) × \(Int(rate)) × \(Int(seconds)) (took \(String(format: "%.1f", loadSeconds)) s) | 16 × 10,000 × 30 |"
)
let counts = [
    sentCount.load(ordering: .relaxed), answeredCount.load(ordering: .relaxed), committedCount.load(ordering: .relaxed),
].map(String.init)
print("| transactions sent / answered / committed | \(counts.joined(separator: " / ")) | every one answered |")
print(
    "| frames / dropped (missed deadlines) | \(frames) / \(dropped) (\(frames > 0 ? String(format: "%.3f", 100 * Double(dropped) / Double(frames)) : "?") %) | ≤ 0.1 % |"
)
print("")
print("| Sensor Logger pushes, 100 Hz × 4 sensors every 200 ms for \(Int(sensorSeconds)) s | value | goal |")
print("|---|---|---|")
print(
    "| readings pushed / device-motion samples made (expected) | \(readingsPushed) / \(samplesMade) (\(expectedSamples)) | one sample per totalacceleration reading |"
)
let hostDelivered = hostCounts["delivered"] as? Int ?? -1
print(
    "| delivered to performers: the echo performer received / the host handed over | \(echoed) / \(hostDelivered) | every sample (\(samplesMade)) |"
)
print(
    "| out of order: at the performer / at the host; late readings | \(echoedOutOfOrder) / \(hostCounts["outOfOrder"] as? Int ?? -1); \(hostCounts["late"] as? Int ?? -1) | 0 / 0; 0 |"
)
print("| dropped (made − received by the performer) | \(samplesMade - echoed) | 0 |")
var problems = failures.withLock { $0 }
problems += pushFailures
if finished == .timedOut || !problems.isEmpty {
    print("problems: " + (finished == .timedOut ? "the load did not finish in time; " : "") + problems.prefix(5).joined(separator: "; "))
}

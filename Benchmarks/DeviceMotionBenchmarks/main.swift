// Reading and fusion speed over the real recordings in ../shared/data.
// Run: swift run -c release device-motion-benchmark [DATA_FOLDER]
import DeviceMotion
import Foundation

/// The data folder: the argument, or the first `shared/data` found walking up from the current folder.
func dataFolder() -> URL? {
    if CommandLine.arguments.count > 1 { return URL(fileURLWithPath: CommandLine.arguments[1]) }
    var folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    while folder.path != "/" {
        let candidate = folder.appendingPathComponent("shared/data")
        if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        folder = folder.deletingLastPathComponent()
    }
    return nil
}

/// The best of `repetitions` runs of `body`, seconds.
func best(_ repetitions: Int, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<repetitions {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    return best
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

guard let data = dataFolder() else {
    FileHandle.standardError.write(Data("no shared/data folder found; pass its path as the argument\n".utf8))
    exit(1)
}
let inputs = [
    "iphone-devicemotion/walk.csv", "android-sensorlogger", "iphone4s-coremotion-logger", "xio-imu/sensor_data.csv",
    "broad/02_undisturbed_slow_rotation_B.csv",
]
print("| recording | format | rows | read rows/s | device motion (frame) | fused samples/s |")
print("|---|---|---:|---:|---|---:|")
for input in inputs {
    let url = data.appendingPathComponent(input)
    let recording = try Recording.read(contentsOf: url)
    let rows = max(
        recording.recordedDeviceMotion.count, recording.accelerometerData.count, recording.partialDeviceMotion.count)
    let readTime = try best(5) { _ = try Recording.read(contentsOf: url) }
    var fusion = "n/a"
    var fusedRate = "n/a"
    let frame: ReferenceFrame? =
        recording.availableReferenceFrames.contains(.xMagneticNorthZVertical)
        ? .xMagneticNorthZVertical : recording.availableReferenceFrames.first
    if let frame, recording.recordedDeviceMotion.isEmpty {
        let samples = try recording.deviceMotion(referenceFrame: frame).count
        let fuseTime = try best(5) { _ = try recording.deviceMotion(referenceFrame: frame) }
        fusion = frame.name
        fusedRate = String(format: "%.2f M", Double(samples) / fuseTime / 1e6)
    }
    print(
        "| \(pad(input, 42)) | \(recording.format.rawValue) | \(rows) | "
            + String(format: "%.2f M", Double(rows) / readTime / 1e6) + " | \(fusion) | \(fusedRate) |")
}
let sample = DeviceMotion(
    attitude: Attitude(quaternion: Quaternion(x: 0.1, y: 0.2, z: 0.3, w: 0.927)),
    gravity: Acceleration(x: 0, y: 0, z: -1),
    userAcceleration: .zero, rotationRate: .zero, timestamp: 1)
for format in DeviceMotionFormat.allCases {
    let count = 200_000
    let time = best(3) {
        var bytes = 0
        for _ in 0..<count { bytes &+= sample.formatted(as: format).utf8.count }
        precondition(bytes > 0)
    }
    print(
        "| formatting | \(format.rawValue) | \(count) | " + String(format: "%.2f M", Double(count) / time / 1e6)
            + " | | |")
}

// BROAD's error metric (broad/PROVENANCE.txt) for the 9-axis `xMagneticNorthZVertical` device motion, whose
// North-West-Up attitude is turned into East-North-Up with a +90° turn about z.
print("")
print("| BROAD trial | total RMSE (°) | heading RMSE (°) | inclination RMSE (°) |")
print("|---|---:|---:|---:|")
let trials = (try? FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("broad").path)) ?? []
for trial in trials.filter({ $0.hasSuffix(".csv") }).sorted() {
    let recording = try Recording.read(contentsOf: data.appendingPathComponent("broad/\(trial)"))
    let motion = try recording.deviceMotion(referenceFrame: .xMagneticNorthZVertical)
    var sums = SIMD3<Double>()
    var count = 0.0
    for (sample, reference) in zip(motion, recording.referenceOrientations) where reference.isMovement {
        guard let q = reference.quaternion else { continue }
        let e = Quaternion.aboutZ(.pi / 2) * sample.attitude.quaternion * q.conjugate
        let total = 2 * acos(min(1, abs(e.w)))
        let heading = 2 * atan(abs(e.z / e.w))
        let inclination = 2 * acos(min(1, (e.w * e.w + e.z * e.z).squareRoot()))
        sums += SIMD3(total * total, heading * heading, inclination * inclination)
        count += 1
    }
    let rmse = (sums / count).squareRoot() * 180 / .pi
    print("| \(trial) | " + String(format: "%.2f | %.2f | %.2f |", rmse.x, rmse.y, rmse.z))
}

// attitude-benchmark: runs AttitudeEstimator (9-axis and 6-axis) on the BROAD trials and prints the BROAD
// error metric (total / heading / inclination RMSE, degrees) and the speed (samples/s on one core).
//
// Usage: swift run -c release attitude-benchmark [--data DIR] [--runs N] [--tsv]
//   --data DIR  folder with the BROAD CSV files (default: <package root>/../shared/data/broad)
//   --runs N    timed runs per trial and mode, the median is reported (default 7)
//   --set NAME=VALUE  change one Configuration field (tuning studies; see `tunable`)
//   --tsv       machine-readable output: trial, mode, total, heading, inclination, samples/s
import AttitudeEvaluation
import DeviceMotion
import Foundation
@preconcurrency import Glibc

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

var dataDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("../shared/data/broad").standardized
var runs = 7
var isTSV = false
/// Configuration fields that `--set NAME=VALUE` may change, for sensitivity studies.
let tunable: [String: WritableKeyPath<AttitudeEstimator.Configuration, Double>] = [
    "accelerationTimeConstant": \.accelerationTimeConstant,
    "magnetometerTimeConstant": \.magnetometerTimeConstant,
    "maximumMagnetometerTimeConstant": \.maximumMagnetometerTimeConstant,
    "headingBiasReference": \.headingBiasReference,
    "biasSigmaMotion": \.biasSigmaMotion,
    "biasForgettingTime": \.biasForgettingTime,
    "magneticNormThreshold": \.magneticNormThreshold,
    "magneticDipThreshold": \.magneticDipThreshold,
]
nonisolated(unsafe) var overrides: [(WritableKeyPath<AttitudeEstimator.Configuration, Double>, Double)] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--data":
        guard let value = arguments.popFirst() else { fail("error: --data needs a folder", status: 64) }
        dataDirectory = URL(fileURLWithPath: value)
    case "--runs":
        guard let value = arguments.popFirst(), let n = Int(value), n > 0 else {
            fail("error: --runs needs a positive integer", status: 64)
        }
        runs = n
    case "--set":
        guard let value = arguments.popFirst(), let eq = value.firstIndex(of: "="),
            let path = tunable[String(value[..<eq])], let number = Double(value[value.index(after: eq)...])
        else {
            fail("error: --set needs NAME=NUMBER with NAME one of \(tunable.keys.sorted())", status: 64)
        }
        overrides.append((path, number))
    case "--tsv":
        isTSV = true
    case "-h", "--help":
        print("USAGE: attitude-benchmark [--data DIR] [--runs N] [--tsv]")
        exit(0)
    default:
        fail("error: unknown argument '\(argument)'. To fix, see --help.", status: 64)
    }
}

let files: [URL]
do {
    files = try FileManager.default.contentsOfDirectory(at: dataDirectory, includingPropertiesForKeys: nil)
        .filter { $0.pathExtension == "csv" }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
} catch {
    fail("error: cannot list \(dataDirectory.path): \(error). To fix, pass --data DIR.", status: 1)
}
if files.isEmpty { fail("error: no .csv files in \(dataDirectory.path). To fix, pass --data DIR.", status: 1) }

/// Runs the estimator over a whole trial, storing every output quaternion.
@inline(never)
func estimate(_ trial: BROADTrial, usesMagnetometer: Bool, into output: inout [Quaternion]) {
    var configuration = AttitudeEstimator.Configuration(
        sampleInterval: 1 / BROADTrial.samplingRate, usesMagnetometer: usesMagnetometer)
    for (path, value) in overrides { configuration[keyPath: path] = value }
    var estimator = AttitudeEstimator(configuration)
    trial.gyroscope.withUnsafeBufferPointer { gyr in
        trial.accelerometer.withUnsafeBufferPointer { acc in
            trial.magnetometer.withUnsafeBufferPointer { mag in
                output.withUnsafeMutableBufferPointer { out in
                    for i in 0..<gyr.count {
                        estimator.update(gyroscope: gyr[i], accelerometer: acc[i], magnetometer: mag[i])
                        out[i] = estimator.quaternion
                    }
                }
            }
        }
    }
}

func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

if !isTSV {
    print(
        "AttitudeEstimator on BROAD (\(dataDirectory.path)); RMSE over movement rows, degrees; median of \(runs) runs")
    print("trial".padding(toLength: 40, withPad: " ", startingAt: 0) + "mode   total  heading  incl.   Msamples/s")
}
for file in files {
    let trial: BROADTrial
    do { trial = try BROADTrial(contentsOf: file) } catch { fail("error: \(error)", status: 1) }
    for usesMagnetometer in [true, false] {
        var output = [Quaternion](repeating: .identity, count: trial.count)
        var rates: [Double] = []
        for _ in 0..<runs {
            let clock = ContinuousClock()
            let start = clock.now
            estimate(trial, usesMagnetometer: usesMagnetometer, into: &output)
            let elapsed = clock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            rates.append(Double(trial.count) / seconds)
        }
        let errors = BROADErrors(estimates: output, trial: trial, removingMeanHeading: !usesMagnetometer)
        let mode = usesMagnetometer ? "9D" : "6D"
        let rate = median(rates)
        if isTSV {
            print(
                [
                    trial.name, mode, String(errors.total), String(errors.heading), String(errors.inclination),
                    String(rate),
                ]
                .joined(separator: "\t"))
        } else {
            let cells = [errors.total, errors.heading, errors.inclination].map { String(format: "%7.2f", $0) }
            print(
                trial.name.padding(toLength: 40, withPad: " ", startingAt: 0) + mode + " "
                    + cells.joined(separator: "  ")
                    + String(format: "  %8.2f", rate / 1e6))
        }
    }
}

import Foundation
import Testing

/// The device-motion examples (`Examples/tilt-card.json`, `Examples/shake-to-reset.json`) run by the built
/// `motion-host` with the sample plugins (`manifests/`: DeviceMotionKit and TweenKit), checked against
/// values computed here from the recording excerpts the scenes replay.
@Suite("Device-motion examples")
struct DeviceMotionExampleTests {
    /// The repository root (data: the examples and manifests).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs an example from the repository root with `--plugin-path manifests`.
    static func runExample(_ name: String) throws -> [[String: Any]] {
        let result = try MotionHost.run(["run", "Examples/\(name)", "--plugin-path", "manifests"], in: root)
        #expect(result.status == 0, "\(result.standardError)")
        return try result.jsonLines()
    }

    /// The value a property holds after frame `frame`: its last change at or before that frame.
    static func value(_ lines: [[String: Any]], _ target: String, _ property: String, atFrame frame: Int) -> Any? {
        var latest: Any?
        for line in lines {
            guard let index = line["frame"] as? Int, line["changes"] != nil, index <= frame else { continue }
            if let changes = line["changes"] as? [String: [String: Any]], let value = changes[target]?[property] {
                latest = value
            }
        }
        return latest
    }

    /// The frames at which a target's property changed.
    static func changeFrames(_ lines: [[String: Any]], _ target: String, _ property: String) -> [Int] {
        lines.compactMap { line in
            guard let changes = line["changes"] as? [String: [String: Any]], changes[target]?[property] != nil else {
                return nil
            }
            return line["frame"] as? Int
        }
    }

    /// The rows of a CSV file as dictionaries keyed by the header.
    static func csvRows(_ path: String) throws -> [[String: Double]] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        let header = lines.removeFirst().split(separator: ",").map(String.init)
        return lines.map { line in
            Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: ",").map { Double($0) ?? .nan }))
        }
    }

    // MARK: tilt-card

    /// One row of the iPhone excerpt: time since its first row (s), roll and pitch (rad, Core Motion's
    /// formulas), and gravity · userAcceleration (g).
    struct IPhoneSample {
        var time: Double
        var roll: Double
        var pitch: Double
        var vertical: Double
    }

    static func iPhoneSamples() throws -> [IPhoneSample] {
        let rows = try csvRows("Examples/recordings/iphone-walk-excerpt/walk-2s-14s.csv")
        let origin = try #require(rows.first?["timestamp"])
        return rows.map { row in
            let (x, y, z, w) = (
                row["attitude.quaternion.x"]!, row["attitude.quaternion.y"]!, row["attitude.quaternion.z"]!,
                row["attitude.quaternion.w"]!
            )
            let vertical =
                row["gravity.x"]! * row["userAcceleration.x"]! + row["gravity.y"]! * row["userAcceleration.y"]!
                + row["gravity.z"]! * row["userAcceleration.z"]!
            return IPhoneSample(
                time: row["timestamp"]! - origin, roll: atan2(2 * (w * y - x * z), 1 - 2 * (x * x + y * y)),
                pitch: asin(2 * (w * x + y * z)), vertical: vertical)
        }
    }

    /// The last sample delivered before frame `frame` at 60 fps (samples whose time ≤ the frame's).
    static func lastSample(_ samples: [IPhoneSample], beforeFrame frame: Int) throws -> IPhoneSample {
        try #require(samples.last { $0.time <= Double(frame) / 60 + 1e-9 })
    }

    @Test(arguments: [1, 60, 137, 300, 451, 600, 720])
    func tiltFollowsTheRecordingsRollAndPitch(frame: Int) throws {
        let lines = try Self.runExample("tilt-card.json")
        let samples = try Self.iPhoneSamples()
        let first = samples[0]
        let sample = try Self.lastSample(samples, beforeFrame: frame)
        // The scene: gain 0.5, maximumAngle 0.6 rad, parallax 40 pt/rad, maximumOffset 30 pt, base (160, 240),
        // angles relative to the first sample.
        let roll = remainder(sample.roll - first.roll, 2 * .pi)
        let pitch = sample.pitch - first.pitch
        let clamp = { (value: Double, limit: Double) in min(limit, max(-limit, value)) }
        let rotation = try #require(Self.value(lines, "card", "rotation", atFrame: frame) as? [Double])
        let expected = [clamp(0.5 * pitch, 0.6), clamp(0.5 * roll, 0.6), 0]
        #expect(zip(rotation, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "\(rotation) vs \(expected)")
        let position = try #require(Self.value(lines, "card", "position", atFrame: frame) as? [Double])
        let expectedPosition = [160 + clamp(40 * roll, 30), 240 + clamp(40 * pitch, 30)]
        #expect(
            zip(position, expectedPosition).allSatisfy { abs($0 - $1) < 1e-9 }, "\(position) vs \(expectedPosition)")
        let vertical = try #require(Self.value(lines, "card", "verticalAcceleration", atFrame: frame) as? Double)
        #expect(abs(vertical - sample.vertical) < 1e-12, "\(vertical) vs \(sample.vertical)")
    }

    @Test func tiltCardIsActiveForTheWholeRecordingAndMovesEveryFrame() throws {
        let lines = try Self.runExample("tilt-card.json")
        // The recording runs 11.99 s at 100 Hz: every 60 fps frame from 1 on gets a new sample.
        #expect(Self.changeFrames(lines, "card", "verticalAcceleration") == Array(0...720))
        let activity = lines.compactMap { $0["activity"] as? String }
        #expect(activity == ["active"])
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["frames"] as? Int == 721)
        // The tilt really moves: rotation about y spans more than 0.5 rad over the run.
        let rolls = lines.compactMap { (($0["changes"] as? [String: [String: Any]])?["card"]?["rotation"] as? [Double])?[1] }
        #expect((rolls.max() ?? 0) - (rolls.min() ?? 0) > 0.5)
    }

    // MARK: shake-to-reset

    @Test func shakeDetectorFiresAtTheRecordingsBurstAndResetsTheCard() throws {
        // The scene's detector: |userAcceleration| > 0.5 g for ≥ 0.015 s, cooldown 2 s, on the stream
        // `motion-host device-motion` prints for the excerpt (6-axis fusion, xArbitraryZVertical).
        let stream = try MotionHost.run(
            ["device-motion", "Examples/recordings/android-sensorlogger-excerpt", "--reference-frame", "xArbitraryZVertical"],
            in: Self.root)
        #expect(stream.status == 0, "\(stream.standardError)")
        let samples = try stream.jsonLines().map { line -> (time: Double, magnitude: Double) in
            let a = try #require(line["userAcceleration"] as? [String: Double])
            return (try #require(line["timestamp"] as? Double), (a["x"]! * a["x"]! + a["y"]! * a["y"]! + a["z"]! * a["z"]!).squareRoot())
        }
        let origin = try #require(samples.first?.time)
        var shakes: [Double] = []
        var since: Double?
        var hasFired = false
        var quietUntil = -Double.infinity
        for sample in samples {
            if sample.magnitude > 0.5 {
                let start = since ?? sample.time
                since = start
                if !hasFired, sample.time - start >= 0.015, sample.time >= quietUntil {
                    hasFired = true
                    quietUntil = sample.time + 2
                    shakes.append(sample.time)
                }
            } else {
                since = nil
                hasFired = false
            }
        }
        // One burst in the excerpt: 221.628–221.648 s of the original recording.
        #expect(shakes.count == 1)
        let shake = try #require(shakes.first)
        #expect(abs(shake - 221.648) < 0.005, "shake at \(shake)")
        // The raw linear acceleration (Accelerometer.csv, m/s²) agrees: above 0.5 g there too.
        let raw = try Self.csvRows("Examples/recordings/android-sensorlogger-excerpt/Accelerometer.csv")
        let rawAtShake = try #require(raw.min { abs($0["seconds_elapsed"]! - shake) < abs($1["seconds_elapsed"]! - shake) })
        let rawMagnitude =
            (rawAtShake["x"]! * rawAtShake["x"]! + rawAtShake["y"]! * rawAtShake["y"]! + rawAtShake["z"]! * rawAtShake["z"]!).squareRoot() / 9.80665
        #expect(rawMagnitude > 0.5)

        let lines = try Self.runExample("shake-to-reset.json")
        let expectedFrame = Int(((shake - origin) * 60 - 1e-6).rounded(.up))
        // The card sits at (120, −60) after its 1 s tween until the emitted SpringTo moves it back.
        let moves = Self.changeFrames(lines, "card", "position")
        let resetStart = try #require(moves.first { $0 > 60 })
        #expect(abs(resetStart - expectedFrame) <= 1, "reset at frame \(resetStart), shake at frame \(expectedFrame)")
        #expect(Self.value(lines, "card", "position", atFrame: resetStart - 1) as? [Double] == [120, -60])
        let rotationMoves = Self.changeFrames(lines, "card", "rotation")
        #expect(rotationMoves.first { $0 > 60 }.map { abs($0 - expectedFrame) <= 1 } == true)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        let final = try #require((summary["finalValues"] as? [String: [String: Any]])?["card"])
        let position = try #require(final["position"] as? [Double])
        #expect(position.allSatisfy { abs($0) < 0.01 }, "\(position)")
        #expect(final["rotation"] as? Double == 0)
    }
}

import DeviceMotion
import FoundationEssentials
import MotionCore
import MotionFiles

/// `motion-host device-motion RECORDING`: prints a recording's Core Motion `DeviceMotion` stream, one
/// sample per line, estimating attitude where the recording holds only raw sensors. The samples are read
/// through the `MotionManager` client (``readDeviceMotion(of:referenceFrame:)``); a CoreMotion-Data-Logger
/// pair, which the client cannot stream (no attitude), prints its partial samples from the recording.
/// - Parameter values: The `recording` argument, `--reference-frame` (default: the first frame the
///   recording supports), `--format jsonl|csv` (default jsonl).
/// - Returns: The exit status, 0.
/// - Throws: ``MotionHostError`` naming the recording file, line and column of a malformed row, or an
///   unrecognised format, or a reference frame the recording cannot give.
func runDeviceMotion(_ values: ParsedValues) throws -> Int32 {
    let path = values.argument("recording") ?? ""
    let recording: Recording
    do {
        recording = try Recording.read(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw MotionHostError(.unreadableFile, "\(error)", underlying: error)
    }
    let frame: ReferenceFrame
    if let name = values.value("reference-frame") {
        guard let named = ReferenceFrame(name: name) else {
            throw MotionHostError(.invalidScene, file: path, "unknown reference frame \"\(name)\"")
        }
        frame = named
    } else if let first = recording.availableReferenceFrames.first {
        frame = first
    } else if !recording.partialDeviceMotion.isEmpty {
        // A CoreMotion-Data-Logger pair: user acceleration and rotation rate, no attitude or gravity. Print
        // what it has, and say so.
        CommandLineTool.writeStandardError(
            "note: \(path): \(recording.contentsDescription); printing the fields it has (timestamp, userAcceleration, rotationRate), without attitude or gravity\n"
        )
        writePartialSamples(recording.partialDeviceMotion, csv: values.value("format") == "csv")
        return 0
    } else {
        throw MotionHostError(
            .notAvailable, file: path,
            "no attitude can be given for this recording: \(recording.contentsDescription). To fix, use a recording with attitude, or with accelerometer and gyroscope samples (the attitude is then estimated)"
        )
    }
    let samples: [DeviceMotion]
    do {
        samples = try readDeviceMotion(of: recording, referenceFrame: frame)
    } catch {
        throw MotionHostError(.notAvailable, "\(error)", underlying: error)
    }
    let format: DeviceMotionFormat = values.value("format") == "csv" ? .csv : .json
    var out = ""
    out.reserveCapacity(1 << 16)
    if let header = format.header { out += header + "\n" }
    for sample in samples {
        out += sample.formatted(as: format)
        out += "\n"
        if out.utf8.count > 60_000 {
            StandardStream.output.write(out)
            out.removeAll(keepingCapacity: true)
        }
    }
    StandardStream.output.write(out)
    return 0
}

/// Prints samples that lack attitude and gravity, one per line: JSON with the keys a full sample uses, or CSV
/// under `timestamp,userAcceleration.x,…,rotationRate.z` (an absent field's cells empty).
private func writePartialSamples(_ samples: [PartialDeviceMotion], csv: Bool) {
    func number(_ value: Double) -> String { JSONText.number(value) }
    var out = csv ? "timestamp,userAcceleration.x,userAcceleration.y,userAcceleration.z,rotationRate.x,rotationRate.y,rotationRate.z\n" : ""
    for sample in samples {
        let acceleration = sample.userAcceleration.map { [$0.x, $0.y, $0.z] }
        let rotation = sample.rotationRate.map { [$0.x, $0.y, $0.z] }
        if csv {
            let cells = [[number(sample.timestamp)], acceleration?.map(number) ?? ["", "", ""], rotation?.map(number) ?? ["", "", ""]]
            out += cells.joined().joined(separator: ",") + "\n"
        } else {
            func vector(_ v: [Double]) -> String { "{\"x\":\(number(v[0])),\"y\":\(number(v[1])),\"z\":\(number(v[2]))}" }
            var fields = ["\"timestamp\":\(number(sample.timestamp))"]
            if let acceleration { fields.append("\"userAcceleration\":\(vector(acceleration))") }
            if let rotation { fields.append("\"rotationRate\":\(vector(rotation))") }
            out += "{" + fields.joined(separator: ",") + "}\n"
        }
    }
    StandardStream.output.write(out)
}

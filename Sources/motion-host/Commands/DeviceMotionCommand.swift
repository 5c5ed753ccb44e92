import DeviceMotion
import Foundation

/// `motion-host device-motion RECORDING`: prints a recording's Core Motion `DeviceMotion` stream, one
/// sample per line, estimating attitude where the recording holds only raw sensors.
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
    } else {
        throw MotionHostError(.notAvailable, file: path, "no attitude can be given for this recording: \(recording.contentsDescription)")
    }
    let samples: [DeviceMotion]
    do {
        samples = try recording.deviceMotion(referenceFrame: frame)
    } catch {
        throw MotionHostError(.notAvailable, "\(error)", underlying: error)
    }
    let format: DeviceMotionFormat = values.value("format") == "csv" ? .csv : .json
    var out = ""
    out.reserveCapacity(1 << 16)
    if let header = format.header { out += header + "\n" }
    let stdout = FileHandle.standardOutput
    for sample in samples {
        out += sample.formatted(as: format)
        out += "\n"
        if out.utf8.count > 60_000 {
            stdout.write(Data(out.utf8))
            out.removeAll(keepingCapacity: true)
        }
    }
    stdout.write(Data(out.utf8))
    return 0
}

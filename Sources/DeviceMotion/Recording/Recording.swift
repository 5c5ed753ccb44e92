import FoundationEssentials
import MotionFiles

/// The recording formats this library reads, each from a real app or dataset (see `shared/data/*/PROVENANCE.txt`).
public enum RecordingFormat: String, Hashable, Sendable, CaseIterable, Codable {
    /// One CSV of `CMDeviceMotion` samples in Core Motion's units (mPower/ResearchKit layout): header
    /// `timestamp,attitude.quaternion.x,…,magneticField.accuracy`.
    case iPhoneDeviceMotionCSV
    /// A "Sensor Logger" app export folder: `TotalAcceleration.csv`, `Gyroscope.csv`, `Magnetometer.csv`,
    /// `Gravity.csv`, `Accelerometer.csv` (header `time,seconds_elapsed,z,y,x`) and `Metadata.csv`.
    case sensorLoggerExport
    /// A CoreMotion-Data-Logger pair of header-less logs, `rotationRate_<when>.txt` and
    /// `userAcceleration_<when>.txt`, lines `timestamp,x,y,z`.
    case coreMotionDataLogger
    /// An x-io Technologies IMU CSV: header `Time (s),Gyroscope X (deg/s),…,Magnetometer Z (uT)`.
    case xioIMUCSV
    /// A BROAD benchmark trial CSV: header `time_s,acc_x_mps2,…,ref_qz`.
    case broadCSV

    /// A one-line description with the shape that identifies the format.
    public var summary: String {
        switch self {
        case .iPhoneDeviceMotionCSV:
            "iPhone CMDeviceMotion CSV (header `timestamp,attitude.quaternion.x,…`)"
        case .sensorLoggerExport:
            "Sensor Logger export folder (`TotalAcceleration.csv`, `Gyroscope.csv`, … with header `time,seconds_elapsed,z,y,x`, and `Metadata.csv`)"
        case .coreMotionDataLogger:
            "CoreMotion-Data-Logger pair (`rotationRate_*.txt` + `userAcceleration_*.txt`, lines `timestamp,x,y,z`)"
        case .xioIMUCSV:
            "x-io IMU CSV (header `Time (s),Gyroscope X (deg/s),…`)"
        case .broadCSV:
            "BROAD CSV (header `time_s,acc_x_mps2,…`)"
        }
    }
}

/// A recording of device motion read from one of the `RecordingFormat`s, converted to Core Motion's units,
/// axes and signs (g with gravity pointing down, rad/s, µT, seconds).
///
/// A format fills the sample arrays it has:
///
/// | format | `accelerometerData` | `gyroData` | `magnetometerData` | `recordedDeviceMotion` | `partialDeviceMotion` | `referenceOrientations` |
/// |---|---|---|---|---|---|---|
/// | iPhone CMDeviceMotion CSV | | | | ✓ | | |
/// | Sensor Logger export | ✓ (TotalAcceleration) | ✓ | ✓ | | gravity + user acceleration | |
/// | CoreMotion-Data-Logger | | | | | rotation rate + user acceleration | |
/// | x-io IMU CSV | ✓ | ✓ | ✓ | | | |
/// | BROAD CSV | ✓ | ✓ | ✓ | | | ✓ (optical, IMU → ENU) |
///
/// `deviceMotion(referenceFrame:)` turns any of them into `DeviceMotion` values.
///
/// Thread rule: a value type; safe to use from any thread.
public struct Recording: Sendable {
    /// The format the recording was read as.
    public var format: RecordingFormat
    /// The file or folder that was read.
    public var url: URL
    /// Every file that was read, in reading order.
    public var files: [URL]
    /// Raw accelerometer samples (gravity included), g, Core Motion's sign.
    public var accelerometerData: [AccelerometerData]
    /// Raw gyroscope samples, rad/s.
    public var gyroData: [GyroData]
    /// Raw magnetometer samples, µT.
    public var magnetometerData: [MagnetometerData]
    /// Complete device-motion samples as the recording holds them (formats with attitude).
    public var recordedDeviceMotion: [DeviceMotion]
    /// The reference frame of `recordedDeviceMotion`, when there are any.
    public var recordedReferenceFrame: ReferenceFrame?
    /// Parts of device-motion samples, when the recording holds parts only (see `PartialDeviceMotion`).
    public var partialDeviceMotion: [PartialDeviceMotion]
    /// Ground-truth orientations (BROAD only).
    public var referenceOrientations: [ReferenceOrientation]

    /// Creates a recording from samples already in Core Motion's units (for tests and generated data).
    /// - Parameters:
    ///   - format: The format it stands for.
    ///   - url: Where it came from.
    ///   - files: The files it was read from.
    ///   - accelerometerData: g, Core Motion's sign.
    ///   - gyroData: rad/s.
    ///   - magnetometerData: µT.
    ///   - recordedDeviceMotion: Complete samples.
    ///   - recordedReferenceFrame: Their frame.
    ///   - partialDeviceMotion: Partial samples.
    ///   - referenceOrientations: Ground truth.
    public init(
        format: RecordingFormat,
        url: URL,
        files: [URL] = [],
        accelerometerData: [AccelerometerData] = [],
        gyroData: [GyroData] = [],
        magnetometerData: [MagnetometerData] = [],
        recordedDeviceMotion: [DeviceMotion] = [],
        recordedReferenceFrame: ReferenceFrame? = nil,
        partialDeviceMotion: [PartialDeviceMotion] = [],
        referenceOrientations: [ReferenceOrientation] = []
    ) {
        self.format = format
        self.url = url
        self.files = files
        self.accelerometerData = accelerometerData
        self.gyroData = gyroData
        self.magnetometerData = magnetometerData
        self.recordedDeviceMotion = recordedDeviceMotion
        self.recordedReferenceFrame = recordedReferenceFrame
        self.partialDeviceMotion = partialDeviceMotion
        self.referenceOrientations = referenceOrientations
    }

    /// Reads a recording, detecting its format from the header of the file (or the files in the folder).
    ///
    /// Accepts a file of any `RecordingFormat`; for a Sensor Logger export, its folder or any of its sensor
    /// CSVs; for a CoreMotion-Data-Logger pair, either file of the pair or the folder holding one pair.
    /// - Parameter url: A file or folder URL.
    /// - Returns: The recording in Core Motion's units and signs.
    /// - Throws: `RecordingError` with code `unreadableFile`, `unrecognizedFormat` ("not a recognised
    ///   recording format: expected one of …"), `missingColumn`, `malformedRow` (with line and column),
    ///   `mismatchedFiles` or `emptyRecording`.
    public static func read(contentsOf url: URL) throws(RecordingError) -> Recording {
        var isDirectory: Bool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw RecordingError(
                .unreadableFile, "no such file or folder. To fix, check the path", path: url.path)
        }
        let recording: Recording
        if isDirectory {
            if SensorLoggerReader.isExportFolder(url) {
                recording = try SensorLoggerReader.read(folder: url)
            } else if let pair = CoreMotionDataLoggerReader.pair(inFolder: url) {
                recording = try CoreMotionDataLoggerReader.read(pair, url: url)
            } else {
                throw unrecognized(url, found: "a folder with no recording files")
            }
        } else {
            var scanner = try CSVScanner(contentsOf: url)
            guard scanner.nextLine() else { throw unrecognized(url, found: "an empty file") }
            let header = scanner.texts.map { $0.trimmingWhitespace() }
            let name = url.lastPathComponent
            if header.contains("attitude.quaternion.w") {
                recording = try IPhoneDeviceMotionReader.read(&scanner, header: header, url: url)
            } else if header.first == "time" && header.contains("seconds_elapsed") {
                recording = try SensorLoggerReader.read(folder: url.deletingLastPathComponent())
            } else if header.first == "Time (s)" && header.contains("Gyroscope X (deg/s)") {
                recording = try XIOIMUReader.read(&scanner, header: header, url: url)
            } else if header.first == "time_s" && header.contains("acc_x_mps2") {
                recording = try BROADReader.read(&scanner, header: header, url: url)
            } else if let pair = CoreMotionDataLoggerReader.pair(forFile: url),
                scanner.fieldCount == 4, (0..<4).allSatisfy({ (try? scanner.number($0, "")) != nil })
            {
                recording = try CoreMotionDataLoggerReader.read(pair, url: url)
            } else {
                let shown = header.joined(separator: ",")
                throw unrecognized(url, found: "\(name) starting \"\(shown.prefix(80))\"")
            }
        }
        guard recording.sampleCount > 0 else {
            throw RecordingError(
                .emptyRecording, "the \(recording.format.summary) holds no samples. To fix, record some data",
                path: url.path)
        }
        return recording
    }

    private static func unrecognized(_ url: URL, found: String) -> RecordingError {
        let expected = RecordingFormat.allCases.map(\.summary).joined(separator: "; ")
        return RecordingError(
            .unrecognizedFormat,
            "not a recognised recording format: expected one of \(expected); found \(found). "
                + "To fix, pass a recording in one of these formats",
            path: url.path)
    }

    /// The number of samples in all arrays together.
    public var sampleCount: Int {
        accelerometerData.count + gyroData.count + magnetometerData.count + recordedDeviceMotion.count
            + partialDeviceMotion.count
    }

    /// The earliest and latest timestamps of any sample, seconds, or `nil` for an empty recording.
    public var timeRange: ClosedRange<Double>? {
        let firsts = [
            accelerometerData.first?.timestamp, gyroData.first?.timestamp, magnetometerData.first?.timestamp,
            recordedDeviceMotion.first?.timestamp, partialDeviceMotion.first?.timestamp,
        ].compactMap { $0 }
        let lasts = [
            accelerometerData.last?.timestamp, gyroData.last?.timestamp, magnetometerData.last?.timestamp,
            recordedDeviceMotion.last?.timestamp, partialDeviceMotion.last?.timestamp,
        ].compactMap { $0 }
        guard let start = firsts.min(), let end = lasts.max(), start <= end else { return nil }
        return start...end
    }
}

import FoundationEssentials

/// Reads a "Sensor Logger" app export folder.
///
/// Every sensor file has the header `time,seconds_elapsed,z,y,x` (columns found by name, so the z,y,x order
/// does not matter): `time` in Unix nanoseconds, `seconds_elapsed` since the recording started (used as the
/// timestamp). `Metadata.csv` gives the platform, which decides the sign:
/// - Android: accelerations are specific force in m/s² (+g on the axis pointing up); Core Motion's value is
///   `−value / 9.80665`.
/// - iOS: Sensor Logger writes Core Motion's sign scaled to m/s²; Core Motion's value is `value / 9.80665`.
/// Gyroscope (rad/s) and magnetometer (µT) keep their values on both.
enum SensorLoggerReader {
    static let sensorFiles = [
        "TotalAcceleration.csv", "Gyroscope.csv", "Magnetometer.csv", "Gravity.csv", "Accelerometer.csv",
    ]

    static func isExportFolder(_ folder: URL) -> Bool {
        sensorFiles.contains { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
    }

    private struct Row {
        var time: Int64
        var seconds: Double
        var vector: SIMD3<Double>
    }

    static func read(folder: URL) throws(RecordingError) -> Recording {
        guard isExportFolder(folder) else {
            throw RecordingError(
                .unrecognizedFormat,
                "not a recognised recording format: a Sensor Logger export folder holds at least one of "
                    + "\(sensorFiles.joined(separator: ", ")). To fix, pass the export folder itself",
                path: folder.path)
        }
        var recording = Recording(format: .sensorLoggerExport, url: folder)
        let metadata = folder.appendingPathComponent("Metadata.csv")
        let platform = try readPlatform(metadata)
        recording.files.append(metadata)
        let isAndroid = platform == "android"

        func rows(_ name: String) throws(RecordingError) -> [Row]? {
            let url = folder.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            recording.files.append(url)
            return try readRows(url)
        }
        for row in try rows("TotalAcceleration.csv") ?? [] {
            recording.accelerometerData.append(
                AccelerometerData(acceleration: SensorLoggerUnits.acceleration(row.vector, isAndroid: isAndroid), timestamp: row.seconds))
        }
        for row in try rows("Gyroscope.csv") ?? [] {
            recording.gyroData.append(GyroData(rotationRate: RotationRate(row.vector), timestamp: row.seconds))
        }
        for row in try rows("Magnetometer.csv") ?? [] {
            recording.magnetometerData.append(
                MagnetometerData(magneticField: MagneticField(row.vector), timestamp: row.seconds))
        }
        // Gravity.csv and Accelerometer.csv (linear acceleration) share timestamps: join them on `time`.
        let gravity = try rows("Gravity.csv") ?? []
        let linear = try rows("Accelerometer.csv") ?? []
        var joined: [Int64: PartialDeviceMotion] = [:]
        for row in gravity {
            joined[row.time, default: PartialDeviceMotion(timestamp: row.seconds)].gravity =
                SensorLoggerUnits.acceleration(row.vector, isAndroid: isAndroid)
        }
        for row in linear {
            joined[row.time, default: PartialDeviceMotion(timestamp: row.seconds)].userAcceleration =
                SensorLoggerUnits.acceleration(row.vector, isAndroid: isAndroid)
        }
        recording.partialDeviceMotion = joined.keys.sorted().map { joined[$0]! }
        return recording
    }

    private static func readPlatform(_ url: URL) throws(RecordingError) -> String {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw RecordingError(
                .mismatchedFiles,
                "the Sensor Logger export has no Metadata.csv, which gives the platform and so the sign of the "
                    + "accelerations (Android and iOS differ). To fix, copy Metadata.csv from the same export",
                path: url.path)
        }
        var scanner = try CSVScanner(contentsOf: url)
        guard scanner.nextLine() else {
            throw RecordingError(.malformedRow, "Metadata.csv is empty; expected a header and one row", path: url.path)
        }
        let header = scanner.texts
        let column = try HeaderColumns(header: header, path: url.path, format: .sensorLoggerExport).index("platform")
        guard scanner.nextLine(), column < scanner.fieldCount else {
            throw RecordingError(
                .malformedRow, "Metadata.csv has no value for \"platform\"; expected \"android\" or \"ios\"",
                path: url.path, line: scanner.lineNumber, column: column + 1)
        }
        let platform = scanner.text(column).lowercased()
        guard platform == "android" || platform == "ios" else {
            throw scanner.malformed(column, "platform", expected: "\"android\" or \"ios\"")
        }
        return platform
    }

    private static func readRows(_ url: URL) throws(RecordingError) -> [Row] {
        var scanner = try CSVScanner(contentsOf: url)
        guard scanner.nextLine() else { return [] }
        let header = scanner.texts
        let columns = HeaderColumns(header: header, path: url.path, format: .sensorLoggerExport)
        let c = try columns.indices(["time", "seconds_elapsed", "x", "y", "z"])
        var rows: [Row] = []
        while scanner.nextLine() {
            try scanner.expectFieldCount(header.count, what: "one per header column")
            let seconds = try scanner.number(c[1], "seconds_elapsed")
            try scanner.checkTimestamp(seconds, field: c[1], "seconds_elapsed")
            rows.append(
                Row(
                    time: try scanner.integer(c[0], "time"), seconds: seconds,
                    vector: SIMD3(
                        try scanner.number(c[2], "x"), try scanner.number(c[3], "y"), try scanner.number(c[4], "z"))))
        }
        return rows
    }
}

/// Sensor Logger's units and signs as Core Motion's, for its CSV exports and its HTTP push alike.
package enum SensorLoggerUnits {
    /// An acceleration (accelerometer, gravity, total acceleration) in Core Motion's units and sign.
    /// - Parameters:
    ///   - vector: Sensor Logger's value, m/s² (x, y, z in the device's axes, the same on both platforms).
    ///   - isAndroid: Android writes specific force (+g on the axis pointing up); iOS writes Core Motion's
    ///     sign scaled to m/s².
    /// - Returns: g, Core Motion's sign: `−value / 9.80665` on Android, `value / 9.80665` on iOS.
    package static func acceleration(_ vector: SIMD3<Double>, isAndroid: Bool) -> Acceleration {
        Acceleration(vector * ((isAndroid ? -1 : 1) / standardGravity))
    }
}

import FoundationEssentials

/// Reads an x-io Technologies IMU CSV: gyroscope deg/s, accelerometer g (specific-force sign), magnetometer µT.
enum XIOIMUReader {
    static let names = [
        "Time (s)", "Gyroscope X (deg/s)", "Gyroscope Y (deg/s)", "Gyroscope Z (deg/s)", "Accelerometer X (g)",
        "Accelerometer Y (g)", "Accelerometer Z (g)", "Magnetometer X (uT)", "Magnetometer Y (uT)",
        "Magnetometer Z (uT)",
    ]

    static func read(_ scanner: inout CSVScanner, header: [String], url: URL) throws(RecordingError) -> Recording {
        let c = try HeaderColumns(header: header, path: url.path, format: .xioIMUCSV).indices(names)
        let radiansPerDegree = Double.pi / 180
        var recording = Recording(format: .xioIMUCSV, url: url, files: [url])
        var v = [Double](repeating: 0, count: c.count)
        while scanner.nextLine() {
            try scanner.expectFieldCount(header.count, what: "one per header column")
            for (k, index) in c.enumerated() { v[k] = try scanner.number(index, names[k]) }
            try scanner.checkTimestamp(v[0], field: c[0], names[0])
            let t = v[0]
            recording.gyroData.append(
                GyroData(rotationRate: RotationRate(SIMD3(v[1], v[2], v[3]) * radiansPerDegree), timestamp: t))
            // +1 g on z lying flat (specific force); Core Motion reads -1 g there.
            recording.accelerometerData.append(
                AccelerometerData(acceleration: Acceleration(x: -v[4], y: -v[5], z: -v[6]), timestamp: t))
            recording.magnetometerData.append(
                MagnetometerData(magneticField: MagneticField(x: v[7], y: v[8], z: v[9]), timestamp: t))
        }
        return recording
    }
}

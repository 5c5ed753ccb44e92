import FoundationEssentials

/// Reads a BROAD benchmark trial CSV: accelerometer m/s² (specific-force sign), gyroscope rad/s,
/// magnetometer µT, movement flag and optical reference quaternion (w first, IMU → ENU).
enum BROADReader {
    static let names = [
        "time_s", "acc_x_mps2", "acc_y_mps2", "acc_z_mps2", "gyr_x_radps", "gyr_y_radps", "gyr_z_radps", "mag_x_uT",
        "mag_y_uT", "mag_z_uT", "movement",
    ]
    static let referenceNames = ["ref_qw", "ref_qx", "ref_qy", "ref_qz"]

    static func read(_ scanner: inout CSVScanner, header: [String], url: URL) throws(RecordingError) -> Recording {
        let columns = HeaderColumns(header: header, path: url.path, format: .broadCSV)
        let c = try columns.indices(names)
        let r = try columns.indices(referenceNames)
        var recording = Recording(format: .broadCSV, url: url, files: [url])
        var v = [Double](repeating: 0, count: c.count)
        var q = [Double?](repeating: nil, count: 4)
        while scanner.nextLine() {
            try scanner.expectFieldCount(header.count, what: "one per header column")
            for (k, index) in c.enumerated() { v[k] = try scanner.number(index, names[k]) }
            try scanner.checkTimestamp(v[0], field: c[0], names[0])
            for (k, index) in r.enumerated() { q[k] = try scanner.optionalNumber(index, referenceNames[k]) }
            let t = v[0]
            // Specific force in m/s² (+9.81 on the axis pointing up) → Core Motion's g, pointing down.
            recording.accelerometerData.append(
                AccelerometerData(acceleration: Acceleration(SIMD3(v[1], v[2], v[3]) / -standardGravity), timestamp: t))
            recording.gyroData.append(GyroData(rotationRate: RotationRate(x: v[4], y: v[5], z: v[6]), timestamp: t))
            recording.magnetometerData.append(
                MagnetometerData(magneticField: MagneticField(x: v[7], y: v[8], z: v[9]), timestamp: t))
            guard v[10] == 0 || v[10] == 1 else {
                throw scanner.malformed(c[10], "movement", expected: "0 or 1")
            }
            var reference: Quaternion?
            if let w = q[0], let x = q[1], let y = q[2], let z = q[3] {
                reference = Quaternion(x: x, y: y, z: z, w: w)
            } else if let missing = q.firstIndex(where: { $0 == nil }), q.contains(where: { $0 != nil }) {
                throw scanner.malformed(
                    r[missing], referenceNames[missing],
                    expected: "a number, as the other ref_q fields of the row have one")
            }
            recording.referenceOrientations.append(
                ReferenceOrientation(quaternion: reference, isMovement: v[10] == 1, timestamp: t))
        }
        return recording
    }
}

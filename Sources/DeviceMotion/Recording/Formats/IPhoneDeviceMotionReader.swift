import FoundationEssentials

/// Reads an iPhone CMDeviceMotion CSV (columns named after Core Motion's properties, Core Motion's units).
enum IPhoneDeviceMotionReader {
    static func read(_ scanner: inout CSVScanner, header: [String], url: URL) throws(RecordingError) -> Recording {
        let columns = HeaderColumns(header: header, path: url.path, format: .iPhoneDeviceMotionCSV)
        let names = [
            "timestamp", "attitude.quaternion.x", "attitude.quaternion.y", "attitude.quaternion.z",
            "attitude.quaternion.w", "gravity.x", "gravity.y", "gravity.z", "userAcceleration.x",
            "userAcceleration.y", "userAcceleration.z", "rotationRate.x", "rotationRate.y", "rotationRate.z",
        ]
        let c = try columns.indices(names)
        let fieldNames = ["magneticField.field.x", "magneticField.field.y", "magneticField.field.z"]
        let field = fieldNames.compactMap(columns.optionalIndex)
        let accuracy = columns.optionalIndex("magneticField.accuracy")
        let heading = columns.optionalIndex("heading")
        var samples: [DeviceMotion] = []
        var v = [Double](repeating: 0, count: c.count)
        while scanner.nextLine() {
            try scanner.expectFieldCount(header.count, what: "one per header column")
            for (k, index) in c.enumerated() { v[k] = try scanner.number(index, names[k]) }
            try scanner.checkTimestamp(v[0], field: c[0], names[0])
            var magneticField = CalibratedMagneticField.unavailable
            if field.count == 3 {
                magneticField.field = MagneticField(
                    x: try scanner.number(field[0], fieldNames[0]), y: try scanner.number(field[1], fieldNames[1]),
                    z: try scanner.number(field[2], fieldNames[2]))
            }
            if let accuracy {
                let raw = try scanner.number(accuracy, "magneticField.accuracy")
                guard let value = MagneticFieldCalibrationAccuracy(rawValue: Int32(exactly: raw) ?? 99) else {
                    throw scanner.malformed(
                        accuracy, "magneticField.accuracy",
                        expected: "-1, 0, 1 or 2 (CMMagneticFieldCalibrationAccuracy)")
                }
                magneticField.accuracy = value
            }
            samples.append(
                DeviceMotion(
                    attitude: Attitude(quaternion: Quaternion(x: v[1], y: v[2], z: v[3], w: v[4])),
                    gravity: Acceleration(x: v[5], y: v[6], z: v[7]),
                    userAcceleration: Acceleration(x: v[8], y: v[9], z: v[10]),
                    rotationRate: RotationRate(x: v[11], y: v[12], z: v[13]),
                    magneticField: magneticField,
                    heading: try heading.map { index throws(RecordingError) in try scanner.number(index, "heading") }
                        ?? -1,
                    timestamp: v[0]))
        }
        // The files do not record the frame; attitudes recorded without the magnetometer (accuracy -1, field 0)
        // are in Core Motion's default frame, and this library offers them in that frame only.
        return Recording(
            format: .iPhoneDeviceMotionCSV, url: url, files: [url], recordedDeviceMotion: samples,
            recordedReferenceFrame: .xArbitraryZVertical)
    }
}

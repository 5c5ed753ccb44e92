import DeviceMotion
import Foundation
import Testing

@Suite("Recording readers: real rows pinned in Core Motion's units and signs")
struct RecordingFormatTests {
    @Test func iPhoneCSVReadsCoreMotionFieldsAsRecorded() throws {
        let recording = try TestData.recording("iphone-devicemotion/walk.csv")
        #expect(recording.format == .iPhoneDeviceMotionCSV)
        #expect(recording.recordedDeviceMotion.count == 2991)
        #expect(recording.accelerometerData.isEmpty)
        let first = recording.recordedDeviceMotion[0]
        #expect(first.timestamp == 0)
        #expect(
            first.attitude.quaternion
                == Quaternion(
                    x: -0.6276235425295336, y: 0.35564840436071943, z: -0.0033458630586380364, w: 0.6925255999158049))
        #expect(first.gravity == Acceleration(x: 0.4883913695812225, y: 0.871670663356781, z: 0.04079419746994972))
        #expect(
            first.userAcceleration
                == Acceleration(x: -0.10966821759939197, y: -0.2066010683774948, z: 0.04528063163161279))
        #expect(
            first.rotationRate
                == RotationRate(x: 0.33771270513534557, y: 1.8162667751312258, z: -0.13574083149433136))
        #expect(first.magneticField == CalibratedMagneticField(field: .zero, accuracy: .uncalibrated))
        #expect(first.heading == -1)
        #expect(recording.recordedDeviceMotion[1].timestamp == 0.00998000000254251)
        #expect(try recording.deviceMotion(referenceFrame: .xArbitraryZVertical) == recording.recordedDeviceMotion)
    }

    @Test func sensorLoggerExportConvertsAndroidMetresPerSecondSquaredToCoreMotionG() throws {
        let recording = try TestData.recording("android-sensorlogger")
        #expect(recording.format == .sensorLoggerExport)
        #expect(recording.accelerometerData.count == 4445)
        #expect(recording.gyroData.count == 4449)
        #expect(recording.magnetometerData.count == 4449)
        #expect(recording.files.count == 6)
        // TotalAcceleration row 1: z=9.706093788146973, y=-0.040701430290937424, x=0.1364694982767105 m/s²,
        // Android sign → Core Motion g = −value / 9.80665, columns z,y,x → x,y,z.
        let accel = recording.accelerometerData[0]
        #expect(accel.timestamp == 150.01954833984374)
        #expect(abs(accel.acceleration.x - -0.013916015996972515) < 1e-15)
        #expect(abs(accel.acceleration.y - 0.0041503908359059845) < 1e-15)
        #expect(abs(accel.acceleration.z - -0.9897461200457826) < 1e-15)
        // Gyroscope keeps its sign and unit, reordered: z=-0.003054326167330146, y=0, x=-0.006108652334660292.
        #expect(
            recording.gyroData[0]
                == GyroData(
                    rotationRate: RotationRate(x: -0.006108652334660292, y: 0, z: -0.003054326167330146),
                    timestamp: 150.00429150390624))
        #expect(
            recording.magnetometerData[0].magneticField
                == MagneticField(x: -5.87999963760376, y: 9.300000190734863, z: 6.839999675750732))
        // Gravity and linear acceleration, joined on `time`, in Core Motion's sign.
        let partial = recording.partialDeviceMotion[0]
        let gravity = try #require(partial.gravity)
        let user = try #require(partial.userAcceleration)
        #expect(
            maxDifference(gravity.vector, SIMD3(-0.013630010463528294, 0.004157082314505446, -0.9998984898774644))
                < 1e-15)
        #expect(
            maxDifference(user.vector, SIMD3(-0.00028600553344422215, -6.691478599461245e-06, 0.010152369831681898))
                < 1e-15)
        #expect(recording.partialDeviceMotion.count == 4445)
        // gravity + user acceleration = the accelerometer reading (to the app's own 1e-4 m/s²).
        #expect(maxDifference(gravity.vector + user.vector, accel.acceleration.vector) < 2e-5)
    }

    @Test func sensorLoggerExportIsFoundFromAnyOfItsCSVFiles() throws {
        let recording = try TestData.recording("android-sensorlogger/Gyroscope.csv")
        #expect(recording.format == .sensorLoggerExport)
        #expect(recording.accelerometerData.count == 4445)
    }

    @Test func coreMotionDataLoggerPairHoldsRotationRateAndUserAccelerationOnly() throws {
        let recording = try TestData.recording(
            "iphone4s-coremotion-logger/userAcceleration_10_28_11_10_54_28_AM_EDT.txt")
        #expect(recording.format == .coreMotionDataLogger)
        #expect(recording.partialDeviceMotion.count == 3820)
        #expect(
            recording.partialDeviceMotion[0]
                == PartialDeviceMotion(
                    userAcceleration: Acceleration(x: -0.065686, y: -0.046375, z: 0.056379),
                    rotationRate: RotationRate(x: -0.095856, y: 0.135729, z: 0.172877), timestamp: 38672.799784))
        #expect(recording.partialDeviceMotion.allSatisfy { $0.gravity == nil })
        #expect(recording.availableReferenceFrames.isEmpty)
        #expect(recording.contentsDescription.contains("rotation rate"))
        #expect(recording.contentsDescription.contains("no attitude, gravity or device motion can be computed"))
        let error = try #require(throws: RecordingError.self) {
            try recording.deviceMotion(referenceFrame: .xArbitraryZVertical)
        }
        #expect(error.code == .attitudeUnavailable)
        #expect(error.message.contains("user acceleration without gravity"))
    }

    @Test func coreMotionDataLoggerFolderIsReadAsItsPair() throws {
        let recording = try TestData.recording("iphone4s-coremotion-logger")
        #expect(recording.format == .coreMotionDataLogger)
        #expect(recording.files.map(\.lastPathComponent).first == "rotationRate_10_28_11_10_54_28_AM_EDT.txt")
    }

    @Test func xioCSVConvertsDegreesPerSecondAndSpecificForce() throws {
        let recording = try TestData.recording("xio-imu/sensor_data.csv")
        #expect(recording.format == .xioIMUCSV)
        #expect(recording.accelerometerData.count == 13514)
        // Row 1: gyro (0.01644619, -0.1517251, 0.1080897) deg/s × π/180.
        let gyro = recording.gyroData[0].rotationRate.vector
        #expect(maxDifference(gyro, SIMD3(0.0002870401649085662, -0.0026481025529176486, 0.001886521152492915)) < 1e-15)
        // Accelerometer +0.997 g on z lying flat (specific force) → Core Motion −0.997 g.
        #expect(
            recording.accelerometerData[0].acceleration == Acceleration(x: -0.001015204, y: 0.02045836, z: -0.9970807))
        #expect(recording.magnetometerData[0].magneticField == MagneticField(x: 15.3017, y: 0.4328527, z: -41.06483))
        #expect(recording.accelerometerData[1].timestamp == 0.010078907)
    }

    @Test func broadCSVConvertsUnitsAndKeepsTheOpticalReference() throws {
        let recording = try TestData.recording("broad/02_undisturbed_slow_rotation_B.csv")
        #expect(recording.format == .broadCSV)
        #expect(recording.accelerometerData.count == 53240)
        #expect(recording.referenceOrientations.count == 53240)
        // Row 1: acc (0.08701729, 0.1129342, 9.850261) m/s², +g up → Core Motion g, pointing down.
        let accel = recording.accelerometerData[0].acceleration.vector
        #expect(maxDifference(accel, SIMD3(-0.008873294142240215, -0.011516083473969195, -1.0044470843764182)) < 1e-15)
        #expect(recording.gyroData[0].rotationRate == RotationRate(x: 0.003195698, y: 0.003195698, z: 0))
        #expect(recording.magnetometerData[0].magneticField == MagneticField(x: 0.4058261, y: 16.16334, z: -42.70474))
        #expect(recording.referenceOrientations[0].quaternion == nil)
        #expect(recording.referenceOrientations[0].isMovement == false)
        // Line 1235 (row 1234, t = 4.3155 s) is the first with a reference: w first in the file.
        let reference = recording.referenceOrientations[1233]
        #expect(reference.timestamp == 4.3155)
        #expect(reference.quaternion == Quaternion(x: 0.002730144, y: -0.001447202, z: -0.01282238, w: 0.999913))
        #expect(recording.gyroData[1233].rotationRate.y == -3.913601e-19)
    }

    @Test func availableReferenceFramesFollowTheSensorsPresent() throws {
        #expect(
            try TestData.recording("iphone-devicemotion/rest_tremor.csv").availableReferenceFrames == [
                .xArbitraryZVertical
            ])
        #expect(
            try TestData.recording("xio-imu/sensor_data.csv").availableReferenceFrames
                == [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical])
    }

    @Test func trueNorthIsUnavailableOnLinux() throws {
        let recording = try TestData.recording("xio-imu/sensor_data.csv")
        let error = try #require(throws: RecordingError.self) {
            try recording.deviceMotion(referenceFrame: .xTrueNorthZVertical)
        }
        #expect(error.code == .referenceFrameUnavailable)
        #expect(error.message.contains("no location service on Linux"))
    }

    @Test func recordedAttitudesAreOfferedInTheirOwnFrameOnly() throws {
        let recording = try TestData.recording("iphone-devicemotion/rest_tremor.csv")
        let error = try #require(throws: RecordingError.self) {
            try recording.deviceMotion(referenceFrame: .xMagneticNorthZVertical)
        }
        #expect(error.code == .referenceFrameUnavailable)
        #expect(error.message.contains("cannot be re-referenced to xMagneticNorthZVertical"))
    }

    @Test func magneticNorthWithoutMagnetometerIsAClearError() throws {
        var recording = try TestData.recording("xio-imu/sensor_data.csv")
        recording.magnetometerData = []
        let error = try #require(throws: RecordingError.self) {
            try recording.deviceMotion(referenceFrame: .xMagneticNorthZVertical)
        }
        #expect(error.code == .referenceFrameUnavailable)
        #expect(error.message.contains("needs magnetometer samples"))
    }
}

@Suite("Recording readers: bad input")
struct RecordingBadInputTests {
    static let iPhoneHeader =
        "timestamp,attitude.quaternion.x,attitude.quaternion.y,attitude.quaternion.z,attitude.quaternion.w,"
        + "gravity.x,gravity.y,gravity.z,userAcceleration.x,userAcceleration.y,userAcceleration.z,"
        + "rotationRate.x,rotationRate.y,rotationRate.z,magneticField.field.x,magneticField.field.y,"
        + "magneticField.field.z,magneticField.accuracy"
    static let iPhoneRow = "0.5,0,0,0,1,0,0,-1,0,0,0,0,0,0,0,0,0,-1"

    func write(_ text: String, name: String) throws -> URL {
        let url = try TestData.temporaryFolder().appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    func readError(_ url: URL) throws -> RecordingError {
        try #require(throws: RecordingError.self) { try Recording.read(contentsOf: url) }
    }

    @Test func unknownHeaderIsNotARecognisedFormat() throws {
        let url = try write("a,b,c\n1,2,3\n", name: "mystery.csv")
        let error = try readError(url)
        #expect(error.code == .unrecognizedFormat)
        #expect(error.message.hasPrefix("not a recognised recording format: expected one of iPhone CMDeviceMotion CSV"))
        #expect(error.message.contains("BROAD CSV"))
        #expect(error.message.contains("found mystery.csv starting \"a,b,c\""))
        #expect(error.path == url.path)
    }

    @Test func emptyFileIsNotARecognisedFormat() throws {
        let error = try readError(try write("", name: "empty.csv"))
        #expect(error.code == .unrecognizedFormat)
        #expect(error.message.contains("found an empty file"))
    }

    @Test func missingFileIsUnreadable() throws {
        let error = try readError(URL(fileURLWithPath: "/nonexistent/recording.csv"))
        #expect(error.code == .unreadableFile)
        #expect(error.description == "/nonexistent/recording.csv: no such file or folder. To fix, check the path")
    }

    @Test(arguments: [
        ("abc", "\"abc\""), ("", "an empty field"), ("nan", "\"nan\""), ("0x1p3", "\"0x1p3\""), (" 1", "\" 1\""),
        ("1.5.2", "\"1.5.2\""), ("inf", "\"inf\""),
    ])
    func malformedNumberNamesLineColumnAndExpectation(field: String, shown: String) throws {
        var fields = Self.iPhoneRow.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        fields[4] = field
        let text = [Self.iPhoneHeader, Self.iPhoneRow, fields.joined(separator: ",")].joined(separator: "\n")
        let url = try write(text, name: "bad.csv")
        let error = try readError(url)
        #expect(error.code == .malformedRow)
        #expect(error.line == 3)
        #expect(error.column == 5)
        #expect(
            error.message
                == "column 5 (attitude.quaternion.w): expected a finite decimal number, found \(shown). "
                + "To fix, correct or remove this line")
        #expect(error.description.hasPrefix("\(url.path):3:5: column 5"))
    }

    @Test func rowWithTooFewFieldsNamesTheFirstMissingColumn() throws {
        let url = try write([Self.iPhoneHeader, "0.5,0,0,0,1"].joined(separator: "\r\n"), name: "short.csv")
        let error = try readError(url)
        #expect(error.code == .malformedRow)
        #expect(error.line == 2)
        #expect(error.column == 6)
        #expect(error.message.hasPrefix("expected 18 comma-separated fields (one per header column), found 5"))
    }

    @Test func accuracyOutsideCoreMotionsValuesIsMalformed() throws {
        let row = Self.iPhoneRow.dropLast(2) + "3"
        let error = try readError(try write(Self.iPhoneHeader + "\n" + row, name: "accuracy.csv"))
        #expect(error.code == .malformedRow)
        #expect(error.column == 18)
        #expect(error.message.contains("expected -1, 0, 1 or 2 (CMMagneticFieldCalibrationAccuracy)"))
    }

    @Test func headerWithoutARequiredColumnIsReported() throws {
        let header = Self.iPhoneHeader.replacingOccurrences(of: "gravity.y,", with: "")
        let error = try readError(try write(header + "\n", name: "nogravity.csv"))
        #expect(error.code == .missingColumn)
        #expect(error.line == 1)
        #expect(error.message.hasPrefix("the header has no column \"gravity.y\""))
    }

    @Test func headerOnlyIsAnEmptyRecording() throws {
        let error = try readError(try write(Self.iPhoneHeader + "\n", name: "headeronly.csv"))
        #expect(error.code == .emptyRecording)
    }

    @Test func broadRowWithPartOfTheReferenceIsMalformed() throws {
        let header =
            "time_s,acc_x_mps2,acc_y_mps2,acc_z_mps2,gyr_x_radps,gyr_y_radps,gyr_z_radps,mag_x_uT,mag_y_uT,"
            + "mag_z_uT,movement,ref_qw,ref_qx,ref_qy,ref_qz"
        let text = header + "\n0,0,0,9.8,0,0,0,1,2,3,1,1,0,,0\n"
        let error = try readError(try write(text, name: "broad.csv"))
        #expect(error.code == .malformedRow)
        #expect(error.line == 2)
        #expect(error.column == 14)
        #expect(error.message.contains("(ref_qy): expected a number, as the other ref_q fields of the row have one"))
    }

    @Test func loggerPairWithDifferentTimestampsIsMismatched() throws {
        let folder = try TestData.temporaryFolder()
        try Data("1.0,0.1,0.2,0.3\n2.0,0.1,0.2,0.3\n".utf8).write(
            to: folder.appendingPathComponent("rotationRate_x.txt"))
        try Data("1.0,0.1,0.2,0.3\n2.5,0.1,0.2,0.3\n".utf8).write(
            to: folder.appendingPathComponent("userAcceleration_x.txt"))
        let error = try readError(folder.appendingPathComponent("rotationRate_x.txt"))
        #expect(error.code == .mismatchedFiles)
        #expect(error.line == 2)
        #expect(error.path.hasSuffix("userAcceleration_x.txt"))
    }

    @Test func loggerFileWithoutItsPartnerIsMismatched() throws {
        let folder = try TestData.temporaryFolder()
        let url = folder.appendingPathComponent("rotationRate_y.txt")
        try Data("1.0,0.1,0.2,0.3\n".utf8).write(to: url)
        let error = try readError(url)
        #expect(error.code == .mismatchedFiles)
        #expect(error.message.contains("userAcceleration_y.txt is missing"))
    }

    @Test func sensorLoggerFolderWithoutMetadataCannotTellTheSign() throws {
        let folder = try TestData.temporaryFolder()
        try Data("time,seconds_elapsed,z,y,x\n1,0.1,9.8,0,0\n".utf8).write(
            to: folder.appendingPathComponent("TotalAcceleration.csv"))
        let error = try readError(folder)
        #expect(error.code == .mismatchedFiles)
        #expect(error.message.contains("no Metadata.csv"))
    }

    @Test func sensorLoggerTimeMustBeAWholeNumber() throws {
        let folder = try TestData.temporaryFolder()
        try Data("version,platform\n3,android\n".utf8).write(to: folder.appendingPathComponent("Metadata.csv"))
        try Data("time,seconds_elapsed,z,y,x\n1,0.1,9.8,0,0\n2.5,0.2,9.8,0,0\n".utf8).write(
            to: folder.appendingPathComponent("Gyroscope.csv"))
        let error = try readError(folder)
        #expect(error.code == .malformedRow)
        #expect(error.line == 3)
        #expect(error.column == 1)
        #expect(error.message.contains("(time): expected a whole number"))
    }

    @Test func iOSSensorLoggerExportKeepsTheSign() throws {
        let folder = try TestData.temporaryFolder()
        try Data("version,platform\n3,ios\n".utf8).write(to: folder.appendingPathComponent("Metadata.csv"))
        try Data("time,seconds_elapsed,z,y,x\n1,0.1,-9.80665,0,0\n".utf8).write(
            to: folder.appendingPathComponent("TotalAcceleration.csv"))
        let recording = try Recording.read(contentsOf: folder)
        #expect(
            recording.accelerometerData == [
                AccelerometerData(acceleration: Acceleration(x: 0, y: 0, z: -1), timestamp: 0.1)
            ])
    }
}

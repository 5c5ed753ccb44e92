import DeviceMotion
import Foundation
import Testing

/// A fake `/sys/bus/iio/devices` tree, laid out as the kernel's sysfs-bus-iio ABI describes.
struct FakeSysfs {
    let root: URL

    init() throws {
        root = try TestData.temporaryFolder().appendingPathComponent("devices")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Creates `iio:deviceN` with a name and attribute files.
    @discardableResult
    func device(_ index: Int, name: String, _ attributes: [String: String]) throws -> URL {
        let url = root.appendingPathComponent("iio:device\(index)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data("\(name)\n".utf8).write(to: url.appendingPathComponent("name"))
        for (file, value) in attributes { try Data("\(value)\n".utf8).write(to: url.appendingPathComponent(file)) }
        return url
    }

    /// A BMI160-like combined accelerometer + gyroscope and an AK8975-like magnetometer.
    static func phone() throws -> FakeSysfs {
        let sysfs = try FakeSysfs()
        try sysfs.device(
            0, name: "bmi160",
            [
                "in_accel_x_raw": "-20", "in_accel_y_raw": "40", "in_accel_z_raw": "16384",
                "in_accel_scale": "0.000598550", "in_accel_z_offset": "16",
                "in_anglvel_x_raw": "100", "in_anglvel_y_raw": "-50", "in_anglvel_z_raw": "0",
                "in_anglvel_scale": "0.001065264", "sampling_frequency": "100.000000",
            ])
        try sysfs.device(
            1, name: "ak8975",
            [
                "in_magn_x_raw": "200", "in_magn_y_raw": "-100", "in_magn_z_raw": "-400",
                "in_magn_x_scale": "0.001", "in_magn_y_scale": "0.002", "in_magn_z_scale": "0.001",
                "in_mount_matrix": "0, 1, 0; 1, 0, 0; 0, 0, -1",
            ])
        try sysfs.device(2, name: "als", ["in_illuminance_raw": "30"])
        return sysfs
    }
}

@Suite("Linux IIO reader over a fake sysfs tree")
struct IIOTests {
    @Test func devicesArePickedByTheirChannels() throws {
        let reader = try IIOSensorReader(root: FakeSysfs.phone().root)
        #expect(reader.devices.map(\.name) == ["bmi160", "ak8975", "als"])
        #expect(reader.device(for: .accel)?.name == "bmi160")
        #expect(reader.device(for: .anglvel)?.name == "bmi160")
        #expect(reader.device(for: .magn)?.name == "ak8975")
        #expect(reader.devices[2].channelTypes.isEmpty)
    }

    @Test func accelerometerIsRawPlusOffsetTimesScaleInCoreMotionsGAndSign() throws {
        let reader = try IIOSensorReader(root: FakeSysfs.phone().root)
        let sample = try reader.readAccelerometer(timestamp: 7)
        // (raw + offset) × scale in m/s², specific force → −value / 9.80665 g.
        let expected = SIMD3(-20.0, 40.0, 16384.0 + 16.0) * 0.000598550 / -9.80665
        #expect(maxDifference(sample.acceleration.vector, expected) < 1e-15)
        #expect(abs(sample.acceleration.z - -1.000976) < 1e-6)  // lying face up reads about −1 g
        #expect(sample.timestamp == 7)
    }

    @Test func gyroscopeIsInRadiansPerSecond() throws {
        let reader = try IIOSensorReader(root: FakeSysfs.phone().root)
        let rate = try reader.readGyro(timestamp: 0).rotationRate
        #expect(maxDifference(rate.vector, SIMD3(0.1065264, -0.0532632, 0)) < 1e-15)
    }

    @Test func magnetometerAppliesPerAxisScaleMountMatrixAndGaussToMicrotesla() throws {
        let reader = try IIOSensorReader(root: FakeSysfs.phone().root)
        #expect(
            try reader.mountMatrix(of: .magn)
                == RotationMatrix(m11: 0, m12: 1, m13: 0, m21: 1, m22: 0, m23: 0, m31: 0, m32: 0, m33: -1))
        let field = try reader.readMagnetometer(timestamp: 0).magneticField
        // Sensor axes (0.2, −0.2, −0.4) G; M swaps x and y and flips z; × 100 µT/G.
        #expect(maxDifference(field.vector, SIMD3(-20, 20, 40)) < 1e-12)
    }

    @Test func deviceNamesChooseAmongSeveralDevices() throws {
        let sysfs = try FakeSysfs.phone()
        try sysfs.device(
            3, name: "accel_3d",
            ["in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "-1", "in_accel_scale": "9.80665"])
        let reader = try IIOSensorReader(root: sysfs.root, deviceNames: ["accel_3d", "bmi160"])
        #expect(reader.device(for: .accel)?.name == "accel_3d")
        #expect(reader.device(for: .anglvel)?.name == "bmi160")
        #expect(reader.device(for: .magn) == nil)
        #expect(try reader.readAccelerometer(timestamp: 0).acceleration == Acceleration(x: -0.0, y: -0.0, z: 1))
        let error = try #require(throws: IIOError.self) { try reader.readMagnetometer(timestamp: 0) }
        #expect(error.code == .noSensor)
    }

    @Test func samplingFrequencyIsReadAndSetWhereWritable() throws {
        let sysfs = try FakeSysfs.phone()
        let reader = try IIOSensorReader(root: sysfs.root)
        #expect(try reader.samplingFrequency(of: .accel) == 100)
        try reader.setSamplingFrequency(200, of: .anglvel)
        #expect(try reader.samplingFrequency(of: .accel) == 200)  // shared by the device's channels
        #expect(try reader.samplingFrequency(of: .magn) == nil)
        let error = try #require(throws: IIOError.self) { try reader.setSamplingFrequency(10, of: .magn) }
        #expect(error.code == .notWritable)
        let file = sysfs.root.appendingPathComponent("iio:device0/sampling_frequency")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file.path)
        if !FileManager.default.isWritableFile(atPath: file.path) {  // root may write read-only files anyway
            let readOnly = try #require(throws: IIOError.self) { try reader.setSamplingFrequency(50, of: .accel) }
            #expect(readOnly.code == .notWritable)
        }
    }

    @Test func malformedAttributesAreReportedWithTheirPath() throws {
        let sysfs = try FakeSysfs.phone()
        try Data("twelve\n".utf8).write(to: sysfs.root.appendingPathComponent("iio:device0/in_accel_y_raw"))
        try Data("1, 0; 0, 1\n".utf8).write(to: sysfs.root.appendingPathComponent("iio:device1/in_mount_matrix"))
        let reader = try IIOSensorReader(root: sysfs.root)
        let number = try #require(throws: IIOError.self) { try reader.readAccelerometer(timestamp: 0) }
        #expect(number.code == .malformedAttribute)
        #expect(number.path.hasSuffix("iio:device0/in_accel_y_raw"))
        #expect(number.message == "expected a decimal number, found \"twelve\"")
        let matrix = try #require(throws: IIOError.self) { try reader.readMagnetometer(timestamp: 0) }
        #expect(matrix.code == .malformedAttribute)
        #expect(matrix.message.contains("nine numbers"))
    }

    @Test func anEmptyRootHasNoDevices() throws {
        let error = try #require(throws: IIOError.self) { try IIOSensorReader(root: FakeSysfs().root) }
        #expect(error.code == .noDevices)
        let missing = try #require(throws: IIOError.self) {
            try IIOSensorReader(root: URL(fileURLWithPath: "/nonexistent/iio"))
        }
        #expect(missing.code == .noDevices)
        #expect(missing.message.hasPrefix("no such folder: the kernel shows no IIO sensors here. To fix, "))
        #expect(missing.underlying == nil)
    }
}

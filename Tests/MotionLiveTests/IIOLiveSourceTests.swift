import DeviceMotion
import Foundation
import MotionLive
import Synchronization
import Testing

/// A fake `/sys/bus/iio/devices` folder (sysfs-bus-iio's layout): one BMI160-like accelerometer and
/// gyroscope lying face up, optionally an AK8975-like magnetometer.
struct FakeIIODevices {
    let root: URL

    init(magnetometer: Bool = false, gyroscope: Bool = true) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("iio-\(UUID().uuidString)/devices")
        var imu = [
            "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "16384", "in_accel_scale": "0.000598550",
        ]
        if gyroscope {
            imu.merge(["in_anglvel_x_raw": "0", "in_anglvel_y_raw": "0", "in_anglvel_z_raw": "100", "in_anglvel_scale": "0.001"]) { $1 }
        }
        try device(0, name: "bmi160", imu)
        if magnetometer {
            try device(1, name: "ak8975", ["in_magn_x_raw": "20", "in_magn_y_raw": "0", "in_magn_z_raw": "-40", "in_magn_scale": "0.01"])
        }
    }

    func device(_ index: Int, name: String, _ attributes: [String: String]) throws {
        let url = root.appendingPathComponent("iio:device\(index)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data("\(name)\n".utf8).write(to: url.appendingPathComponent("name"))
        for (file, value) in attributes { try set(file, value, device: index) }
    }

    func set(_ file: String, _ value: String, device index: Int = 0) throws {
        try Data("\(value)\n".utf8).write(to: root.appendingPathComponent("iio:device\(index)/\(file)"))
    }

    func remove() { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
}

/// `serve --device-motion iio[:DEVICE]`'s source, over a fake sysfs tree.
@Suite struct IIOLiveSourceTests {
    /// Takes samples until `count` were taken (at most 10 s). The source polls on a thread of its own, so
    /// this may block the test's thread.
    private func take(_ source: IIOLiveSource, count: Int) -> [DeviceMotion] {
        var samples: [DeviceMotion] = []
        let deadline = Date().addingTimeInterval(10)
        while samples.count < count, Date() < deadline {
            let taken = source.takeSamples()
            if let failure = taken.failure { Issue.record("the polling failed: \(failure)") }
            samples += taken.samples
            usleep(5_000)
        }
        return samples
    }

    @Test func samplesArePolledFusedAndStampedWithTheFrameLoopsClock() throws {
        let tree = try FakeIIODevices()
        defer { tree.remove() }
        let ticks = Atomic<UInt64>(5_000_000_000)
        // Every reading of the clock is 1 ms later: stamps must come from this clock, in order.
        let source = try IIOLiveSource(
            device: tree.root.path, referenceFrame: .xArbitraryZVertical, interval: 0.002,
            now: { ticks.add(1_000_000, ordering: .relaxed).newValue })
        source.start()
        let samples = take(source, count: 20)
        source.stop()
        #expect(samples.count >= 20)
        let stamps = samples.map(\.timestamp)
        #expect(stamps.first.map { $0 > 5 && $0 < 6 } == true)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
        // Lying face up: gravity −z in g; the gyroscope's 100 × 0.001 rad/s about z.
        let last = try #require(samples.last)
        #expect(abs(last.gravity.z - -1) < 0.01)
        #expect(abs(last.rotationRate.z - 0.1) < 1e-12)
    }

    @Test func oneDevicesFolderOrItsNameChoosesIt() throws {
        let tree = try FakeIIODevices(magnetometer: true)
        defer { tree.remove() }
        let byFolder = try IIOLiveSource(
            device: tree.root.appendingPathComponent("iio:device0").path, referenceFrame: .xArbitraryZVertical)
        #expect(byFolder.reader.device(for: .accel)?.name == "bmi160")
        #expect(byFolder.reader.device(for: .magn) == nil)
        let all = try IIOLiveSource(device: tree.root.path, referenceFrame: .xMagneticNorthZVertical)
        #expect(all.reader.device(for: .magn)?.name == "ak8975")
    }

    @Test func aMissingOrUnreadableDeviceIsOneLineNamingItAndWhatToDo() throws {
        let tree = try FakeIIODevices(gyroscope: false)
        defer { tree.remove() }
        let noGyroscope = try #require(throws: LiveRefusal.self) {
            try IIOLiveSource(device: tree.root.path, referenceFrame: .xArbitraryZVertical)
        }
        #expect(
            noGyroscope.message
                == "\(tree.root.path): no device has gyroscope channels (in_anglvel_x_raw, _y_raw, _z_raw); found iio:device0 (bmi160). To fix, load the sensor's driver, name other devices (iio:NAME,NAME) or use another device-motion source"
        )
        let full = try FakeIIODevices()
        defer { full.remove() }
        let noMagnetometer9Axis = try #require(throws: LiveRefusal.self) {
            try IIOLiveSource(device: full.root.path, referenceFrame: .xMagneticNorthZVertical)
        }
        #expect(
            noMagnetometer9Axis.message.hasPrefix(
                "\(full.root.path): no device has magnetometer channels (in_magn_x_raw, _y_raw, _z_raw), which the reference frame xMagneticNorthZVertical needs"
            ))
        #expect(noMagnetometer9Axis.message.hasSuffix("use xArbitraryZVertical"))

        let byName = try #require(throws: LiveRefusal.self) {
            try IIOLiveSource(device: "bmi999", referenceFrame: .xArbitraryZVertical)
        }
        #expect(byName.message.hasPrefix("/sys/bus/iio/devices: "))

        let missingFolder = try #require(throws: LiveRefusal.self) {
            try IIOLiveSource(device: "/nonexistent/iio", referenceFrame: .xArbitraryZVertical)
        }
        #expect(missingFolder.message.hasPrefix("/nonexistent/iio: no such folder. To fix, "))

        try full.set("in_accel_y_raw", "twelve")
        let unreadable = try #require(throws: LiveRefusal.self) {
            try IIOLiveSource(device: full.root.path, referenceFrame: .xArbitraryZVertical)
        }
        #expect(unreadable.message == "\(full.root.path)/iio:device0/in_accel_y_raw: expected a decimal number, found \"twelve\"")
        for message in [noGyroscope, noMagnetometer9Axis, byName, missingFolder, unreadable].map(\.message) {
            #expect(!message.contains("\n"))
        }
    }

    @Test func aDeviceThatStopsBeingReadableEndsThePollingWithItsError() throws {
        let tree = try FakeIIODevices()
        defer { tree.remove() }
        let source = try IIOLiveSource(device: tree.root.path, referenceFrame: .xArbitraryZVertical, interval: 0.002)
        source.start()
        #expect(take(source, count: 3).count >= 3)
        try FileManager.default.removeItem(at: tree.root.appendingPathComponent("iio:device0/in_anglvel_z_raw"))
        var failure: String?
        let deadline = Date().addingTimeInterval(10)
        while failure == nil, Date() < deadline {
            failure = source.takeSamples().failure
            usleep(5_000)
        }
        source.stop()
        #expect(failure?.hasPrefix("\(tree.root.path)/iio:device0/in_anglvel_z_raw: cannot read the attribute") == true)
        #expect(failure?.contains("Device motion stopped") == true)
        #expect(source.takeSamples().failure == nil)  // reported once
    }
}

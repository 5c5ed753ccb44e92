import DeviceMotion
import Foundation
import Testing

@Suite("DeviceMotion as JSON and CSV")
struct FormattingTests {
    static let sample = DeviceMotion(
        attitude: Attitude(quaternion: Quaternion(x: 0.5, y: -0.5, z: 0.5, w: 0.5)),
        gravity: Acceleration(x: 1, y: 2, z: 3),
        userAcceleration: Acceleration(x: 4, y: 5, z: 6),
        rotationRate: RotationRate(x: 0.1, y: -0.2, z: 0.3),
        magneticField: CalibratedMagneticField(field: MagneticField(x: 10, y: 20, z: -30), accuracy: .high),
        heading: 271.5,
        timestamp: 12.25)

    @Test func csvRowFollowsTheHeader() {
        #expect(
            Self.sample.formatted(as: .csv)
                == "12.25,0.5,-0.5,0.5,0.5,1.0,2.0,3.0,4.0,5.0,6.0,0.1,-0.2,0.3,10.0,20.0,-30.0,2,271.5")
        #expect(DeviceMotionFormat.csv.header?.split(separator: ",").count == 19)
        #expect(DeviceMotionFormat.json.header == nil)
    }

    @Test func jsonObjectHasCoreMotionsKeysAndDecodesBack() throws {
        let text = Self.sample.formatted(as: .json)
        #expect(
            text.hasPrefix(
                "{\"timestamp\":12.25,\"attitude\":{\"quaternion\":{\"x\":0.5,\"y\":-0.5,\"z\":0.5,\"w\":0.5},"))
        #expect(
            text.hasSuffix(
                "\"magneticField\":{\"field\":{\"x\":10.0,\"y\":20.0,\"z\":-30.0},\"accuracy\":2},\"heading\":271.5}"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let attitude = try #require(object["attitude"] as? [String: Any])
        #expect(attitude["pitch"] as? Double == Self.sample.attitude.pitch)
        #expect(try JSONDecoder().decode(DeviceMotion.self, from: Data(text.utf8)) == Self.sample)
    }

    @Test func nonFiniteNumbersBecomeNullOrEmpty() {
        var sample = Self.sample
        sample.heading = .nan
        #expect(sample.formatted(as: .json).hasSuffix("\"heading\":null}"))
        #expect(sample.formatted(as: .csv).hasSuffix(",2,"))
    }

    @Test func csvOutputReadsBackAsAnIPhoneRecording() throws {
        let motion = try TestData.recording("xio-imu/sensor_data.csv").deviceMotion(
            referenceFrame: .xMagneticNorthZVertical)
        let text = ([DeviceMotionFormat.csv.header!] + motion.prefix(50).map { $0.formatted(as: .csv) })
            .joined(separator: "\n")
        let url = try TestData.temporaryFolder().appendingPathComponent("fused.csv")
        try Data(text.utf8).write(to: url)
        let back = try Recording.read(contentsOf: url)
        #expect(back.format == .iPhoneDeviceMotionCSV)
        #expect(back.recordedDeviceMotion == Array(motion.prefix(50)))
    }
}

import DeviceMotion
import Foundation
import Testing

/// The recording excerpts under Examples/recordings read with the same readers as the originals.
@Suite struct ExampleRecordingTests {
    static let recordings = packageRoot.appendingPathComponent("Examples/recordings")

    @Test func iPhoneWalkExcerptReadsAsRecordedDeviceMotion() throws {
        let recording = try Recording.read(
            contentsOf: Self.recordings.appendingPathComponent("iphone-walk-excerpt/walk-2s-14s.csv"))
        #expect(recording.format == .iPhoneDeviceMotionCSV)
        let samples = try recording.deviceMotion(referenceFrame: .xArbitraryZVertical)
        #expect(samples.count == 1200)
        // The excerpt's first row, as written in the CSV (Core Motion units, copied unchanged).
        let first = try #require(samples.first)
        #expect(first.timestamp == 2.009762416681042)
        #expect(first.attitude.quaternion.x == 0.40525488312337504)
        #expect(first.gravity.x == 0.7298291921615601)
        #expect(first.userAcceleration.z == 0.06937924027442932)
        #expect(try #require(samples.last).timestamp == 13.998443374992348)
    }

    @Test func androidSensorLoggerExcerptReadsWithItsMetadata() throws {
        let recording = try Recording.read(
            contentsOf: Self.recordings.appendingPathComponent("android-sensorlogger-excerpt"))
        #expect(recording.format == .sensorLoggerExport)
        #expect(recording.files.map(\.lastPathComponent).contains("Metadata.csv"))
        // TotalAcceleration.csv, first row: z, y, x in m/s² with the Android sign → Core Motion's −value / 9.80665.
        let first = try #require(recording.accelerometerData.first)
        #expect(first.timestamp == 216.01717065429688)
        #expect(abs(first.acceleration.x - -0.395043283700943 / 9.80665) < 1e-12)
        #expect(abs(first.acceleration.y - -0.9552865028381348 / 9.80665) < 1e-12)
        #expect(abs(first.acceleration.z - -9.5408935546875 / 9.80665) < 1e-12)
        #expect(recording.accelerometerData.count == 394)
        let samples = try recording.deviceMotion(referenceFrame: .xArbitraryZVertical)
        #expect(samples.count == 394)
    }
}

import DeviceMotion
import Foundation
import LoopbackTesting
import MotionLive
import Testing

private func push(_ payload: String, extra: String = "") -> [UInt8] {
    Array(#"{"messageId": 3, "sessionId": "s", "deviceId": "d"\#(extra), "payload": [\#(payload)]}"#.utf8)
}

private func reading(_ name: String, _ time: Int64, _ x: Double, _ y: Double, _ z: Double) -> String {
    #"{"name": "\#(name)", "time": \#(time), "values": {"x": \#(x), "y": \#(y), "z": \#(z)}}"#
}

@Suite struct SensorLoggerPushTests {
    @Test func aPushIsReadInTimeOrderAndUnusedSensorsAreCounted() throws {
        let body = push(
            [
                reading("gyroscope", 2_000, 0.1, 0.2, 0.3), reading("totalacceleration", 1_000, 0, 0, 9.80665),
                #"{"name": "barometer", "time": 1500, "values": {"pressure": 1013}}"#,
                reading("gravity", 1_000, 0, 0, 9.8), #"{"name": "orientation", "time": 1000, "values": {"qx": 0}}"#,
            ].joined(separator: ","))
        let parsed = try SensorLoggerPush(parsing: body)
        #expect(parsed.messageID == 3)
        #expect(parsed.sessionID == "s")
        #expect(parsed.samples.map(\.sensor) == [.totalAcceleration, .gyroscope])
        #expect(parsed.samples.map(\.time) == [1_000, 2_000])
        #expect(parsed.samples[1].vector == SIMD3(0.1, 0.2, 0.3))
        #expect(parsed.ignored == ["barometer": 1, "gravity": 1, "orientation": 1])
    }

    @Test(arguments: [
        (#"{"payload": 3}"#, "$.payload: expected an array of readings, found 3"),
        (#"{"messageId": 1}"#, "$.payload: missing; this field is required"),
        (#"{"messageId": "x", "payload": []}"#, "$.messageId: expected an integer, found \"x\""),
        (
            #"{"payload": [{"name": "gyroscope", "time": 1, "values": {"x": 1, "y": "a", "z": 0}}]}"#,
            "$.payload[0].values.y: expected a number, found \"a\""
        ),
        (
            #"{"payload": [{"name": "gyroscope", "values": {"x": 1, "y": 1, "z": 0}}]}"#,
            "$.payload[0].time: expected nanoseconds since the Unix epoch (a number ≥ 0), found nothing"
        ),
        (#"{"payload": [{"time": 1, "values": {}}]}"#, "$.payload[0].name: expected a sensor name such as \"accelerometer\""),
        (#"[1]"#, "$: expected an object {\"messageId\", \"sessionId\", \"deviceId\", \"payload\": [...]}"),
    ])
    func aMalformedPushIsRefusedNamingTheField(body: String, message: String) {
        #expect(throws: LiveRefusal(400, message)) { _ = try SensorLoggerPush(parsing: Array(body.utf8)) }
    }

    @Test func anAndroidPhoneAtRestHasGravityDownAndNoUserAcceleration() throws {
        var stream = try #require(SensorLoggerStream(referenceFrame: .xArbitraryZVertical, isAndroid: true))
        let readings = (0..<50).flatMap { i -> [String] in
            let t = 1_679_068_463_000_000_000 + Int64(i) * 10_000_000
            return [reading("gyroscope", t, 0, 0, 0), reading("totalacceleration", t, 0, 0, 9.80665)]
        }
        let samples = stream.add(try SensorLoggerPush(parsing: push(readings.joined(separator: ","))))
        #expect(samples.count == 50)
        #expect(samples.first?.timestamp == 0)
        // Epoch nanoseconds pass through a JSON number (a Double): exact to about 256 ns at today's dates.
        #expect(abs((samples.last?.timestamp ?? 0) - 0.49) < 1e-6)
        let last = try #require(samples.last)
        // Android's +g up is Core Motion's −1 g on z for a phone lying flat.
        #expect(abs(last.gravity.z + 1) < 1e-6)
        #expect(abs(last.userAcceleration.z) < 1e-6)
        // An older push is late: skipped and counted, time never runs back.
        let late = stream.add(
            try SensorLoggerPush(parsing: push(reading("totalacceleration", 1_679_068_463_000_000_000, 0, 0, 9.8))))
        #expect(late.isEmpty)
        #expect(stream.lateSamples == 1)
    }

    @Test func pushesGoThroughTheServerAndABadOneIsRefusedWhole() throws {
        var limits = LiveLimits()
        limits.sensorPushBytes = 4096
        let server = try TestServer(limits: limits, acceptsSensorPushes: true)
        defer { server.stop() }
        let json = ["Content-Type": "application/json"]
        let good = try LoopbackClient(port: server.port).request(
            "POST", "/sensorlogger", host: server.host, headers: json, body: push(reading("gyroscope", 5, 1, 2, 3)))
        #expect(good.status == 200)
        #expect(try good.json()["accepted"] as? Int == 1)
        let bad = try LoopbackClient(port: server.port).request(
            "POST", "/sensorlogger", host: server.host, headers: json,
            body: push(reading("gyroscope", 6, 1, 2, 3) + #", {"name": "gyroscope", "time": 7, "values": {"x": 1}}"#))
        #expect(bad.status == 400)
        #expect(try bad.json()["error"] as? String == "$.payload[1].values.y: expected a number, found nothing")
        let large = try LoopbackClient(port: server.port).request(
            "POST", "/sensorlogger", host: server.host, headers: json,
            body: push(Array(repeating: reading("gyroscope", 5, 1, 2, 3), count: 100).joined(separator: ",")))
        #expect(large.status == 413)
        // Only the good push reached the frame loop, and nothing of it was lost.
        #expect(server.pushes.withLock { $0.map(\.samples.count) } == [1])
    }
}

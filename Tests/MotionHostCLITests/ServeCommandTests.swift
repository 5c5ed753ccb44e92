import Foundation
import LoopbackTesting
import Testing

/// The package root (examples and manifests are data).
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private let json = ["Content-Type": "application/json"]

private func springTo(_ x: Int, _ y: Int, target: String = "card", type: String = "SpringTo") -> [UInt8] {
    Array(
        #"{"operations": [{"op": "add", "target": "\#(target)", "plan": {"type": "\#(type)", "property": "position", "destination": [\#(x), \#(y)]}}]}"#
            .utf8)
}

/// `motion-host run --realtime` and `motion-host serve`, through the built binary and real loopback sockets.
@Suite struct ServeCommandTests {
    @Test func realTimeLetsATokenEndedByAPluginThreadReachIdle() throws {
        // On the simulated clock the 2 s safety limit passes in milliseconds, before the worker's 60 ms.
        let simulated = try MotionHost.runScene(["worker-token.json"])
        #expect(simulated.status == 1)
        #expect(simulated.standardError.contains("not idle by the safety limit"))
        let live = try MotionHost.runScene(["worker-token.json", "--realtime"])
        #expect(live.status == 0, "\(live.standardError)")
        let summary = try #require(try live.jsonLines().last?["summary"] as? [String: Any])
        #expect(summary["stoppedBecause"] as? String == "idle")
        #expect(summary["droppedFrames"] is Int)
        // At 60 fps, 60 ms is at least 3 frames (frame times 0, 1/60, ...).
        #expect((summary["frames"] as? Int ?? 0) >= 4)
        #expect(simulated.outputLines.last?.contains("droppedFrames") == false)
    }

    @Test func aServedSceneTakesTransactionsAndStopsOnShutdown() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("timeline.jsonl")
        // Its one scene transaction is at 0 s, so whatever comes over the wire is committed after it.
        let serve = try ServeProcess(
            [MotionHost.fixture("serve-card.json"), "--plugin-path", "manifests", "--output", output.path], in: root)
        #expect(serve.standardErrorText.hasPrefix("listening on http://127.0.0.1:\(serve.port)\n"))

        let timeline = try serve.connect()
        #expect(try timeline.upgrade("/timeline", host: serve.host).status == 101)
        let header = try timeline.readText { _ in true }
        #expect(header["timeline"] as? Int == 1)

        let committed = try serve.connect().request(
            "POST", "/transactions", host: serve.host, headers: json, body: springTo(10, 20))
        #expect(committed.status == 200, "\(committed.text)")
        let frame = try #require(try committed.json()["frame"] as? Int)
        #expect(try committed.json()["committed"] as? Bool == true)
        // The card follows: a later frame line moves its position towards (10, 20).
        let moved = try timeline.readText { line in
            guard let index = line["frame"] as? Int, index > frame,
                let changes = line["changes"] as? [String: [String: Any]],
                let position = changes["card"]?["position"] as? [Double]
            else { return false }
            return abs(position[0] - 10) < 1 && abs(position[1] - 20) < 1
        }
        #expect(moved["time"] is Double)

        let state = try serve.connect().request("GET", "/state", host: serve.host)
        #expect(state.status == 200)
        let stateObject = try state.json()
        #expect((stateObject["frame"] as? Int ?? 0) > frame)
        let card = try #require((stateObject["targets"] as? [String: [String: Any]])?["card"])
        #expect((0...1).contains(card["opacity"] as? Double ?? -1))
        #expect((card["position"] as? [Double])?.count == 2)
        #expect(Set(card.keys) == ["opacity", "position"])

        let unknownTarget = try serve.connect().request(
            "POST", "/transactions", host: serve.host, headers: json, body: springTo(1, 1, target: "crad"))
        #expect(unknownTarget.status == 400)
        #expect(
            try unknownTarget.json()["error"] as? String
                == "$.operations[0].target: no target named \"crad\" in $.targets (did you mean \"card\"?); known targets: card")
        let unknownPlan = try serve.connect().request(
            "POST", "/transactions", host: serve.host, headers: json, body: springTo(1, 1, type: "SpringToo"))
        #expect(unknownPlan.status == 422)
        let message = try #require(try unknownPlan.json()["error"] as? String)
        #expect(message.hasPrefix("frame "))
        #expect(
            message.contains(
                "operation 0, target \"card\", plan type \"SpringToo\": no manifest on the plugin search path declares plan type \"SpringToo\""))

        // Over the WebSocket too.
        try timeline.sendText(
            #"{"id": "w1", "transaction": {"operations": [{"op": "add", "target": "card", "plan": {"type": "FadeOut", "duration": 0.1}}]}}"#)
        let answer = try timeline.readText { $0["id"] as? String == "w1" }
        #expect(answer["committed"] is Int)

        let shutdown = try serve.connect().request("POST", "/shutdown", host: serve.host)
        #expect(shutdown.status == 200)
        #expect(try shutdown.json()["shutdown"] as? Bool == true)
        let summaryMessage = try timeline.readText { $0["summary"] != nil }
        #expect((summaryMessage["summary"] as? [String: Any])?["stoppedBecause"] as? String == "shutdown")
        #expect(serve.stop() == 0)

        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: [String: Any]])["summary"]
        #expect(summary?["stoppedBecause"] as? String == "shutdown")
        #expect(summary?["committedTransactions"] as? Int == 1)
        // The wire's: the POST and the WebSocket one committed, the unknown plan type failed (the unknown
        // target was refused before the scheduler saw it).
        #expect(summary?["wireTransactions"] as? [String: Int] == ["committed": 2, "failed": 1])
        #expect(summary?["droppedFrames"] is Int)
        // Trace lines only with --trace.
        #expect(!lines.contains { $0.hasPrefix("{\"trace\"") })
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalStopsServeAtAFrameBoundary(signal: Int32) throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("timeline.jsonl")
        let serve = try ServeProcess(
            ["Examples/card-spring.json", "--plugin-path", "manifests", "-o", output.path, "--trace"], in: root)
        #expect(try serve.connect().request("GET", "/state", host: serve.host).status == 200)
        #expect(serve.stop(signal: signal) == 0)
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text.split(separator: "\n").last?.contains("\"stoppedBecause\":\"interrupted\"") == true)
        #expect(text.contains("{\"trace\":\"committed\""))
    }

    @Test func theTokenComesFromTheEnvironmentToo() throws {
        let serve = try ServeProcess(
            ["Examples/card-spring.json", "--plugin-path", "manifests"], in: root,
            environment: ["MOTION_HOST_TOKEN": "from-env"])
        #expect(try serve.connect().request("GET", "/state", host: serve.host).status == 401)
        #expect(
            try serve.connect().request(
                "GET", "/state", host: serve.host, headers: ["Authorization": "Bearer from-env"]
            ).status == 200)
        #expect(try serve.connect().request("GET", "/", host: serve.host).status == 200)
        #expect(serve.stop(signal: SIGTERM) == 0)
    }

    @Test func anAddressOtherMachinesReachNeedsAToken() throws {
        let result = try MotionHost.run(
            ["serve", "Examples/card-spring.json", "--plugin-path", "manifests", "--listen", "0.0.0.0:0"], in: root,
            environment: ["MOTION_HOST_TOKEN": nil])
        #expect(result.status == 64)
        #expect(
            result.errorLines.first
                == "error: The value '0.0.0.0:0' is invalid for '--listen <host:port>': listening on 0.0.0.0 lets other machines connect, so it needs a token. To fix, pass --token T (or set MOTION_HOST_TOKEN), or listen on 127.0.0.1"
        )
        #expect(!result.standardError.contains("listening on http"))
    }
}

/// `serve --device-motion sensorlogger` and the replay script.
@Suite struct LiveDeviceMotionTests {
    @Test func theReplayScriptMakesShakeToResetFireLive() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("timeline.jsonl")
        let serve = try ServeProcess(
            [
                "Examples/shake-to-reset.json", "--plugin-path", "manifests", "--device-motion", "sensorlogger",
                "--trace", "-o", output.path,
            ], in: root)
        let replay = Process()
        replay.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        replay.arguments = [root.appendingPathComponent("Examples/sensorlogger-replay.py").path, "http://\(serve.host)"]
        let pipe = Pipe()
        replay.standardOutput = pipe
        replay.standardError = pipe
        try replay.run()
        replay.waitUntilExit()
        let said = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(replay.terminationStatus == 0, "\(said)")
        #expect(said.hasPrefix("pushed 1972 readings in 40 messages"))
        // The last push's samples play over the next batch interval; then stop.
        usleep(400_000)
        #expect(try serve.connect().request("POST", "/shutdown", host: serve.host).status == 200)
        #expect(serve.stop() == 0)
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        let emitted = lines.filter { $0.contains("\"trace\":\"emitted\"") && $0.contains("ShakeDetectorPerformer@phone") }
        #expect(emitted.count == 1)
        #expect(emitted.first?.contains("\"destination\":[0,0]") == true)
    }

    @Test func withoutTheFlagPushesAreRefusedSayingSo() throws {
        let serve = try ServeProcess([MotionHost.fixture("serve-card.json"), "--plugin-path", "manifests"], in: root)
        let refused = try serve.connect().request(
            "POST", "/sensorlogger", host: serve.host, headers: json, body: Array(#"{"payload": []}"#.utf8))
        #expect(refused.status == 409)
        #expect((try refused.json()["error"] as? String)?.contains("--device-motion sensorlogger") == true)
        #expect(serve.stop(signal: SIGINT) == 0)
    }
}

extension LiveDeviceMotionTests {
    @Test func aRecordingGivenOnTheCommandLinePlaysInRealTime() throws {
        let serve = try ServeProcess(
            [
                MotionHost.fixture("tilt-no-recording.json"), "--plugin-path", "manifests", "--device-motion",
                "Examples/recordings/iphone-walk-excerpt/walk-2s-14s.csv",
            ], in: root)
        let timeline = try serve.connect()
        #expect(try timeline.upgrade("/timeline", host: serve.host).status == 101)
        let tilted = try timeline.readText { line in
            ((line["changes"] as? [String: [String: Any]])?["card"]?["rotation"] as? [Double])?.contains { $0 != 0 } == true
        }
        #expect(tilted["frame"] is Int)
        #expect(serve.stop(signal: SIGTERM) == 0)
    }

    @Test(arguments: [
        (
            "iio:/nonexistent/iio",
            "/nonexistent/iio: no such folder. To fix, give a devices folder laid out as /sys/bus/iio/devices, one device's folder in it, or device names"
        ),
        ("sensorlogger:windows", "expected sensorlogger, sensorlogger:ios, iio[:DEVICE] or a recording file"),
        ("no/such/recording.csv", "no recording at this path"),
    ])
    func aBadDeviceMotionSourceIsAUsageError(value: String, reason: String) throws {
        let result = try MotionHost.run(
            ["serve", MotionHost.fixture("serve-card.json"), "--plugin-path", "manifests", "--device-motion", value], in: root)
        #expect(result.status == 64)
        #expect(result.errorLines.first == "error: The value '\(value)' is invalid for '--device-motion <source>': \(reason)")
    }
}

/// What fails once serve runs is reported and serve goes on: a scene transaction whose performer fails with
/// the transaction it emitted, a transaction emitted from a plugin's thread, a transaction from the wire.
/// Transactions from the wire are `commit` lines in the timeline, as the scene's are, with their source.
@Suite struct ServeFailureTests {
    private static let emissions = MotionHost.pluginFixtures.appendingPathComponent("emissions").path

    @Test func failedAndEmittedTransactionsAreErrorLinesAndServeGoesOn() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("timeline.jsonl")
        let serve = try ServeProcess(
            [
                MotionHost.fixture("serve-failures.json"), "--plugin-path", MotionHost.pluginFixtures.path,
                "--plugin-path", Self.emissions, "-o", output.path,
            ], in: root)
        let timeline = try serve.connect()
        #expect(try timeline.upgrade("/timeline", host: serve.host).status == 101)
        // The scene's third transaction (0.1 s) is committed after the two failures at 0 s.
        _ = try timeline.readText { ($0["changes"] as? [String: [String: Any]])?["t"]?["level"] as? Double == 1 }

        let refused = try serve.connect().request(
            "POST", "/transactions", host: serve.host, headers: json,
            body: Array(
                #"{"operations": [{"op": "add", "target": "t", "plan": {"type": "Emit", "transaction": {"operations": [{"op": "add", "target": "t", "plan": {"type": "NoSuchPlanAtAll"}}]}}}]}"#
                    .utf8))
        #expect(refused.status == 422)
        try timeline.sendText(
            #"{"id": 7, "transaction": {"operations": [{"op": "add", "target": "t", "plan": {"type": "SetValue", "property": "opacity", "value": 0.25}}]}}"#
        )
        let answer = try timeline.readText { $0["id"] as? Int == 7 }
        let committedFrame = try #require(answer["committed"] as? Int)
        let state = try serve.connect().request("GET", "/state", host: serve.host)
        #expect(state.status == 200)
        #expect(((try state.json()["targets"] as? [String: [String: Any]])?["t"]?["opacity"] as? Double) == 0.25)
        let stateTime = try #require(try state.json()["time"] as? Double)
        #expect(try serve.connect().request("POST", "/shutdown", host: serve.host).status == 200)
        #expect(serve.stop() == 0)

        // Standard error: one line per failure, in order, and serve went on.
        let errors = serve.standardErrorText.split(separator: "\n").filter { $0.hasPrefix("error: ") }
        #expect(errors.count == 3, "\(serve.standardErrorText)")
        #expect(
            errors.first?.hasPrefix(
                "error: \(MotionHost.fixture("serve-failures.json")): $.transactions[0] (at 0 s, frame 0): operation 0, target \"t\", plan type \"Emit\""
            )
                == true)
        #expect(errors.dropFirst().first?.contains("a transaction emitted from another thread failed") == true)
        #expect(errors.dropFirst().first?.contains("NoSuchPlanEither") == true)
        #expect(
            errors.last?.contains(
                "transaction 0 from POST /transactions (arrived at ") == true)
        #expect(errors.last?.contains("NoSuchPlanAtAll") == true)

        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.filter { $0["error"] != nil }.count == 3)
        // Wire transactions are commit lines with their source, numbered among themselves, arrival times
        // on the run's clock: after the start, in order, about when the later state request was answered (a
        // frame runs a little after it was due, so an arrival may follow the due time of the frame that
        // commits it; a wrong clock origin would be hours off).
        let wire = lines.filter { $0["commit"] != nil && $0["source"] != nil }
        #expect(wire.map { $0["source"] as? String } == ["http", "websocket"])
        #expect(wire.map { $0["commit"] as? Int } == [0, 1])
        #expect(wire.last?["frame"] as? Int == committedFrame)
        for line in wire {
            let at = try #require(line["at"] as? Double)
            #expect(at > 0 && at < stateTime + 1)
        }
        #expect((wire.first?["at"] as? Double ?? .infinity) < (wire.last?["at"] as? Double ?? 0))
        let errorAfterHTTP = try #require(lines.firstIndex { ($0["error"] as? String)?.contains("NoSuchPlanAtAll") == true })
        #expect(lines[errorAfterHTTP - 1]["source"] as? String == "http")
        // No trace lines for them without --trace: the commit lines are the record.
        #expect(!lines.contains { $0["trace"] != nil })
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["stoppedBecause"] as? String == "shutdown")
        #expect(summary["committedTransactions"] as? Int == 2)
        let final = try #require((summary["finalValues"] as? [String: [String: Any]])?["t"])
        // The emitted SetValue before the failing operation stays applied, then the wire's 0.25 replaced it.
        #expect(final["opacity"] as? Double == 0.25)
        #expect(final["level"] as? Double == 1)
    }
}

/// `serve --device-motion iio[:DEVICE]` over a fake sysfs tree (a devices folder given as DEVICE).
@Suite struct LiveIIOTests {
    /// A devices folder with one accelerometer and gyroscope lying face up (`accel` false: gyroscope only).
    private func devices(in folder: URL, accel: Bool = true) throws -> URL {
        let device = folder.appendingPathComponent("devices/iio:device0")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        var files = [
            "name": "bmi160", "in_anglvel_x_raw": "0", "in_anglvel_y_raw": "0", "in_anglvel_z_raw": "0",
            "in_anglvel_scale": "0.001",
        ]
        if accel {
            files.merge(["in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "16384", "in_accel_scale": "0.000598550"]) { $1 }
        }
        for (file, value) in files { try Data("\(value)\n".utf8).write(to: device.appendingPathComponent(file)) }
        return device.deletingLastPathComponent()
    }

    @Test func polledSamplesReachThePerformersInOrderAtTheirOwnTimes() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try devices(in: folder)
        let serve = try ServeProcess(
            [
                MotionHost.fixture("iio-echo.json"), "--plugin-path", MotionHost.pluginFixtures.path, "--device-motion",
                "iio:\(root.path)",
            ], in: root)
        let timeline = try serve.connect()
        #expect(try timeline.upgrade("/timeline", host: serve.host).status == 101)
        _ = try timeline.readText { (($0["changes"] as? [String: [String: Any]])?["phone"]?["samples"] as? Double ?? 0) >= 20 }
        let state = try serve.connect().request("GET", "/state", host: serve.host).json()
        #expect(serve.stop(signal: SIGTERM) == 0)

        let deviceMotion = try #require(state["deviceMotion"] as? [String: Any])
        #expect(deviceMotion["source"] as? String == "iio")
        let delivered = try #require(deviceMotion["delivered"] as? Int)
        // Observed at the performer: every sample handed over reached it, none out of order.
        let phone = try #require((state["targets"] as? [String: [String: Any]])?["phone"])
        #expect(phone["samples"] as? Double == Double(delivered))
        #expect(deviceMotion["deliveredToPerformers"] as? Int == delivered)
        #expect(phone["outOfOrder"] as? Double == 0)
        #expect(deviceMotion["outOfOrder"] as? Int == 0)
        #expect((deviceMotion["samples"] as? Int ?? 0) == delivered + (deviceMotion["waiting"] as? Int ?? -1))
        // Its own time on the host's clock: read before the frame that delivered it, after the start.
        let sampleTime = try #require(phone["timestamp"] as? Double)
        let time = try #require(state["time"] as? Double)
        #expect(sampleTime > 0 && sampleTime <= time)
        // Face up: gravity along −z.
        #expect(abs(((phone["gravity"] as? [Double]) ?? [])[2] - -1) < 0.05)
    }

    @Test func aDeviceThatStopsBeingReadableIsAnErrorLineAndServeGoesOn() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try devices(in: folder)
        let output = folder.appendingPathComponent("timeline.jsonl")
        let serve = try ServeProcess(
            [
                MotionHost.fixture("iio-echo.json"), "--plugin-path", MotionHost.pluginFixtures.path, "--device-motion",
                "iio:\(root.path)", "-o", output.path,
            ], in: root)
        let timeline = try serve.connect()
        #expect(try timeline.upgrade("/timeline", host: serve.host).status == 101)
        _ = try timeline.readText { (($0["changes"] as? [String: [String: Any]])?["phone"]?["samples"] as? Double ?? 0) >= 5 }
        try FileManager.default.removeItem(at: root.appendingPathComponent("iio:device0/in_anglvel_z_raw"))
        let error = try timeline.readText { $0["error"] != nil }
        let message = try #require(error["error"] as? String)
        #expect(message.hasPrefix("frame \(error["frame"] as? Int ?? -1) (t = "))
        #expect(message.contains("s): --device-motion \(root.path)/iio:device0/in_anglvel_z_raw: cannot read the attribute"))
        #expect(message.hasSuffix("Device motion stopped (it was polled every 0.01 s)"))
        // serve goes on: it answers, and no sample is delivered after the failure.
        let before = try serve.connect().request("GET", "/state", host: serve.host).json()
        usleep(100_000)
        let after = try serve.connect().request("GET", "/state", host: serve.host).json()
        #expect((after["frame"] as? Int ?? 0) > (before["frame"] as? Int ?? 0))
        let delivered = { (state: [String: Any]) in (state["deviceMotion"] as? [String: Any])?["delivered"] as? Int }
        #expect(delivered(after) != nil && delivered(after) == delivered(before))
        #expect(serve.stop(signal: SIGINT) == 0)
        #expect(serve.standardErrorText.split(separator: "\n").filter { $0.hasPrefix("error: ") }.count == 1)
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("{\"error\"") }.count == 1)
        #expect(lines.last?.contains("\"stoppedBecause\":\"interrupted\"") == true)
    }

    @Test func aDeviceWithoutAnAccelerometerIsAUsageErrorNamingIt() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = try devices(in: folder, accel: false)
        let result = try MotionHost.run(
            [
                "serve", MotionHost.fixture("iio-echo.json"), "--plugin-path", MotionHost.pluginFixtures.path,
                "--device-motion", "iio:\(root.path)/iio:device0",
            ], in: root)
        #expect(result.status == 64)
        #expect(
            result.errorLines.first
                == "error: The value 'iio:\(root.path)/iio:device0' is invalid for '--device-motion <source>': \(root.path): no device has accelerometer channels (in_accel_x_raw, _y_raw, _z_raw); found iio:device0 (bmi160). To fix, load the sensor's driver, name other devices (iio:NAME,NAME) or use another device-motion source"
        )
        #expect(!result.standardError.contains("listening on"))
    }
}

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
            "iio",
            "expected sensorlogger, sensorlogger:ios or a recording file (IIO sensors are not served live yet; record them with device-motion first)"
        ),
        ("sensorlogger:windows", "expected sensorlogger, sensorlogger:ios or a recording file"),
        ("no/such/recording.csv", "no recording at this path"),
    ])
    func aBadDeviceMotionSourceIsAUsageError(value: String, reason: String) throws {
        let result = try MotionHost.run(
            ["serve", MotionHost.fixture("serve-card.json"), "--plugin-path", "manifests", "--device-motion", value], in: root)
        #expect(result.status == 64)
        #expect(result.errorLines.first == "error: The value '\(value)' is invalid for '--device-motion <source>': \(reason)")
    }
}

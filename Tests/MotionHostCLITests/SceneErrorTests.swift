import Foundation
import Testing

@Suite("Scene errors")
struct SceneErrorTests {
    @Test(arguments: [
        ("missing.json", "error: missing.json: no such file. To fix, check the path of the scene"),
        (".", "error: .: the scene is a folder, not a regular file; the host reads only regular files"),
        (
            "invalid-json.json",
            "error: invalid-json.json: invalid JSON at line 3, column 15: invalid value"
        ),
        ("bad-at.json", "error: bad-at.json: $.transactions[2].at: expected a number ≥ 0 (seconds), found \"soon\""),
        (
            "misspelt-field.json",
            "error: misspelt-field.json: $.frameRte: unknown field (did you mean \"frameRate\"?); known fields: sceneVersion, name, frameRate, duration, maximumDuration, units, targets, deviceMotion, transactions"
        ),
        (
            "unknown-target.json",
            "error: unknown-target.json: $.transactions[0].operations[0].target: no target named \"crad\" in $.targets (did you mean \"card\"?); known targets: card"
        ),
        (
            "missing-recording.json",
            "error: missing-recording.json: $.deviceMotion.recording: no file at \"recordings/nowhere.csv\""
        ),
    ])
    func badSceneFailsWithOneLineNamingFileAndField(file: String, message: String) throws {
        let result = try MotionHost.runScene([file])
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.hasPrefix(message) == true, "\(result.standardError)")
    }

    @Test(arguments: [
        (
            "{\"sceneVersion\": 2, \"duration\": 1, \"targets\": [], \"transactions\": []}",
            "$.sceneVersion: expected 1 (the scene version this host reads), found 2"
        ),
        ("{\"sceneVersion\": 1, \"targets\": [], \"transactions\": []}", "$.duration: missing; this field is required"),
        (
            "{\"sceneVersion\": 1, \"duration\": \"forever\", \"targets\": [], \"transactions\": []}",
            "$.duration: expected a number in 0...86400 (seconds) or \"untilIdle\", found \"forever\""
        ),
        (
            "{\"sceneVersion\": 1, \"duration\": 1, \"frameRate\": 0, \"targets\": [], \"transactions\": []}",
            "$.frameRate: expected a number > 0 and ≤ 1000 (frames per second), found 0"
        ),
        (
            "{\"sceneVersion\": 1, \"duration\": 1, \"targets\": [{\"name\": \"a\", \"properties\": {\"p\": [1, 2, 3, 4, 5]}}], \"transactions\": []}",
            "$.targets[0].properties.p: expected a number or an array of 1 to 4 numbers, found [1, 2, 3, 4, 5]"
        ),
        (
            "{\"sceneVersion\": 1, \"duration\": 1, \"targets\": [{\"name\": \"a\"}, {\"name\": \"a\"}], \"transactions\": []}",
            "$.targets[1].name: the target name \"a\" is used twice"
        ),
        (
            "{\"sceneVersion\": 1, \"duration\": 1, \"targets\": [{\"name\": \"a\"}], \"transactions\": [{\"at\": 0, \"operations\": [{\"op\": \"ad\", \"target\": \"a\"}]}]}",
            "$.transactions[0].operations[0].op: expected \"add\", \"addNamed\" or \"removeNamed\", found \"ad\" (did you mean \"add\"?)"
        ),
        (
            "{\"sceneVersion\": 1, \"duration\": 1, \"targets\": [{\"name\": \"a\"}], \"transactions\": [{\"at\": 0, \"operations\": [{\"op\": \"add\", \"target\": \"a\", \"plan\": {\"value\": 1}}]}]}",
            "$.transactions[0].operations[0].plan.type: missing; this field is required"
        ),
        (
            "{\"sceneVersion\": 1 \"duration\": 1}",
            "invalid JSON at line 1, column 20: expected ',' or '}' after an object member"
        ),
        // The column counts Unicode scalars, not UTF-8 bytes.
        (
            "{\"name\": \"ü→\" \"duration\": 1}",
            "invalid JSON at line 1, column 15: expected ',' or '}' after an object member"
        ),
        (
            "{\"sceneVersion\": 1,\n \"duration\": ",
            "invalid JSON at line 2, column 14: unexpected end of file during JSON parse"
        ),
        ("", "invalid JSON: the file is empty"),
        // simdjson says a number is wrong but not where: the scanner finds the value (not the text in a string).
        (
            "{\"sceneVersion\": 1,\n \"note\": \"1e400 or \\\" 1e400 \", \"frameRate\": 1e400}",
            "invalid JSON at line 2, column 45: number 1e400 is out of range for a 64-bit float (at most about 1.8e308)"
        ),
    ])
    func fieldErrorsNameTheJSONPath(json: String, message: String) throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(json.utf8).write(to: folder.appendingPathComponent("scene.json"))
        let result = try MotionHost.runScene(["scene.json"], in: folder)
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.hasPrefix("error: scene.json: \(message)") == true, "\(result.standardError)")
    }

    @Test func unknownPlanTypeFailsWithTheCommitErrorAfterWritingTheTimelineSoFar() throws {
        let result = try MotionHost.runScene(["unknown-plan.json"])
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "error: unknown-plan.json: $.transactions[1] (at 0.5 s, frame 5): operation 0, target \"card\", plan type \"SetValu\": no manifest on the plugin search path declares plan type \"SetValu\" (did you mean \"SetValue\"?); known plan types: BadWrites, BatchOfOne, Count, CrashOnCreate, EchoDeviceMotion, Emit, EmitUnknownPlan, Fault, FromTheFuture, HangOnAdd, HoldTokens, MisuseTokens, NestWrites, NeverLoaded, Probe, Quiet, ReadingProbe, Record, RecordOther, RecordToo, Refused, SetP, SetValue, SetVector, TerminateOnWorker. To fix, install the plugin or add its folder with --plugin-path or MOTION_PLUGIN_PATH\n"
        )
        let lines = try result.jsonLines()
        // The first transaction's change was written before the failure.
        #expect(
            (lines.first { $0["frame"] as? Int == 0 && $0["changes"] != nil }?["changes"] as? [String: [String: Double]])
                == ["card": ["opacity": 0.25]])
        let error = try #require(lines.first { $0["error"] != nil })
        #expect((error["error"] as? String)?.contains("plan type \"SetValu\"") == true)
        #expect(error["frame"] as? Int == 5)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["stoppedBecause"] as? String == "error")
        #expect(summary["committedTransactions"] as? Int == 1)
    }

    @Test func untilIdleRunStillActiveAtItsSafetyLimitFails() throws {
        let result = try MotionHost.runScene(["never-idle.json"])
        #expect(result.status == 1)
        #expect(
            result.standardError.hasPrefix(
                "error: never-idle.json: $.maximumDuration: the run was not idle by the safety limit of 0.5 s (1 is-active token still held, by TokenPerformer@card)."
            ))
        let summary = try #require(try result.jsonLines().last?["summary"] as? [String: Any])
        #expect(summary["stoppedBecause"] as? String == "safetyLimit")
        #expect(summary["activity"] as? String == "active")
        #expect(summary["frames"] as? Int == 6)
    }

    @Test(arguments: [["--output", "no/such/folder/out.jsonl"], ["--plot", "no/such/folder/out.svg"]])
    func unwritableOutputFailsBeforeTheRunNamingTheFile(option: [String]) throws {
        let result = try MotionHost.runScene(["basic.json"] + option)
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(
            result.standardError
                == "error: \(option[1]): cannot create the output file: No such file or directory\n")
    }

    @Test func performerThatHandlesAFailedEmissionDoesNotFailTheRun() throws {
        // EmitUnknownPlan emits a plan type nobody performs, records the status and returns MOTION_OK.
        let result = try MotionHost.runScene(["handled-emission.json"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = try result.jsonLines()
        #expect(!lines.contains { $0["error"] != nil })
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["committedTransactions"] as? Int == 1)
        #expect(summary["stoppedBecause"] as? String == "duration")
        #expect((summary["finalValues"] as? [String: [String: Double]])?["t"]?["emissionStatus"] == -4)
    }

    @Test func queuedEmissionThatFailsIsReportedAndTheRunGoesOn() throws {
        let emissions = MotionHost.pluginFixtures.appendingPathComponent("emissions").path
        let result = try MotionHost.runScene(["queued-emission.json", "--plugin-path", emissions])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.errorLines.count == 1)
        #expect(
            result.errorLines.first?.hasPrefix(
                "error: queued-emission.json: frame 0 (t = 0 s): a transaction emitted from another thread failed after its first operation was applied (it stays applied): "
            ) == true, "\(result.standardError)")
        #expect(result.errorLines.first?.contains("plan type \"NoSuchPlan\"") == true)
        let lines = try result.jsonLines()
        let error = try #require(lines.first { $0["error"] != nil })
        #expect(error["frame"] as? Int == 0)
        // The operation before the failing one was applied (frame 0), and the run went on to frame 3's commit.
        let changes = lines.compactMap { line -> (Int, Double)? in
            guard let frame = line["frame"] as? Int, let value = (line["changes"] as? [String: [String: Double]])?["t"]?["opacity"] else {
                return nil
            }
            return (frame, value)
        }
        #expect(changes.map(\.0) == [0, 3])
        #expect(changes.map(\.1) == [0.5, 1])
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["committedTransactions"] as? Int == 2)
        #expect(summary["frames"] as? Int == 6)
        #expect(summary["stoppedBecause"] as? String == "duration")
    }

    @Test func refusedTransactionWithAnAppliedOperationCountsAsPartlyCommitted() throws {
        let result = try MotionHost.runScene(["partly-committed.json"])
        #expect(result.status == 1)
        #expect(
            result.standardError.hasPrefix(
                "error: partly-committed.json: $.transactions[0] (at 0.2 s, frame 2) after its first operation was applied (it stays applied): operation 1, target \"card\", plan type \"SetValu\""
            ), "\(result.standardError)")
        let lines = try result.jsonLines()
        #expect((lines.first { $0["changes"] != nil }?["changes"] as? [String: [String: Double]]) == ["card": ["opacity": 0.25]])
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["committedTransactions"] as? Int == 0)
        #expect(summary["partlyCommittedTransactions"] as? Int == 1)
    }
}

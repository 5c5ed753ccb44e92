import Foundation
import Testing

/// `--isolate`: a plugin in a sandbox that crashes or hangs ends its own performers; the run goes on, writes an
/// `error` line, lists the failure in the summary and exits with status 2.
@Suite("Isolated plugins in motion-host run")
struct IsolationCommandTests {
    /// A scene of two targets: `a` with a Fault (faults.json), `b` with a Quiet of the same plugin and a Tween of
    /// its opacity (TweenKit, in process), which runs through every frame.
    private func sceneFolder(fault: String, atFrame: Int) throws -> URL {
        let folder = try MotionHost.temporaryFolder()
        let scene = """
            {"sceneVersion":1,"name":"isolated faults","frameRate":60,"duration":0.2,
             "targets":[{"name":"a","properties":{"n":-1}},{"name":"b","properties":{"opacity":0}}],
             "transactions":[{"at":0,"operations":[
               {"op":"add","target":"a","plan":{"type":"Fault","atFrame":\(atFrame),"fault":"\(fault)"}},
               {"op":"add","target":"b","plan":{"type":"Quiet"}},
               {"op":"add","target":"b","plan":{"type":"Tween","property":"opacity","to":[1],"duration":0.3}}]}]}
            """
        try Data(scene.utf8).write(to: folder.appendingPathComponent("scene.json"))
        return folder
    }

    @Test(arguments: [
        ("segv", "was killed by signal 11 (SIGSEGV)", ["--isolate", "all"]),
        (
            "hang", "did not answer within 0.5 s (--plugin-timeout) and was killed",
            ["--isolate", "org.motion.fixtures.faults", "--plugin-timeout", "0.5"]
        ),
    ])
    func aFailingIsolatedPluginEndsItsPerformersAndTheRunGoesOn(fault: String, cause: String, options: [String]) throws {
        let folder = try sceneFolder(fault: fault, atFrame: 3)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifests = MotionHost.pluginFixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("manifests")
        let result = try MotionHost.runScene(["--plugin-path", manifests.path, folder.appendingPathComponent("scene.json").path] + options)
        #expect(result.status == 2, "\(result.standardError)")
        let lines = try result.jsonLines()
        let errors = lines.compactMap { $0["error"] as? String }
        #expect(errors.count == 1, "\(errors)")
        let error = try #require(errors.first)
        #expect(error.contains("scene.json: frame 3 (t = 0.05 s): plugin org.motion.fixtures.faults ("), "\(error)")
        #expect(error.contains("in update at frame 3, its sandbox \(cause); its performers Faulty@a, Faulty@b (targets a, b) stopped"), "\(error)")
        let errorLine = try #require(lines.first { $0["error"] != nil })
        #expect(errorLine["frame"] as? Int == 3)
        // Frames 0, 1 and 2 moved a's n; nothing after the failure did.
        let changedN = lines.compactMap { line -> Int? in
            guard let changes = line["changes"] as? [String: Any], (changes["a"] as? [String: Any])?["n"] != nil else { return nil }
            return line["frame"] as? Int
        }
        #expect(changedN == [0, 1, 2])
        // b's Tween, of another plugin, went on to the end.
        let changedOpacity = lines.compactMap { line -> Int? in
            guard let changes = line["changes"] as? [String: Any], (changes["b"] as? [String: Any])?["opacity"] != nil else { return nil }
            return line["frame"] as? Int
        }
        #expect(changedOpacity == Array(1...12))
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect((summary["pluginFailures"] as? [String])?.count == 1)
        #expect(result.standardError.contains("scene.json: frame 3 (t = 0.05 s): plugin org.motion.fixtures.faults"), "\(result.standardError)")
    }
}

/// `"onCrash": "restart"` in a run: the crash is an `error` line at its frame, and a new sandbox goes on with the
/// performers re-created and their plans given again (R43).
@Suite("A restarted sandbox in motion-host run")
struct IsolationRestartCommandTests {
    @Test func aCrashedPluginIsRestartedWithItsPlansAndTheRunGoesOn() throws {
        let scene = """
            {"sceneVersion":1,"name":"restart","frameRate":60,"duration":0.1,
             "targets":[{"name":"a","properties":{"n":-1}},{"name":"b","properties":{"n":-1}}],
             "transactions":[{"at":0,"operations":[
               {"op":"add","target":"a","plan":{"type":"Fault","atFrame":2,"fault":"segv"}},
               {"op":"addNamed","target":"b","name":"steady","plan":{"type":"Fault","atFrame":-1}}]}]}
            """
        let result = try MotionHost.runScene(
            scene, configuration: #"{"configurationVersion": 1, "plugins": {"*": {"isolation": "process", "onCrash": "restart", "maxRestarts": 1}}}"#)
        #expect(result.status == 2, "\(result.standardError)")
        let lines = try result.jsonLines()
        let errors = lines.compactMap { $0["error"] as? String }
        #expect(errors.count == 1, "\(errors)")
        #expect(
            errors.first?.contains(
                "in update at frame 2, its sandbox was killed by signal 11 (SIGSEGV); its performers Faulty@a, Faulty@b (targets a, b) stopped; a new sandbox re-created them and re-added their 2 plans (onCrash: restart)"
            ) == true, "\(errors)")
        // Both performers write their frame's index into n on every frame, before and after the restart.
        for target in ["a", "b"] {
            let frames = lines.compactMap { line -> Int? in
                guard let changes = line["changes"] as? [String: Any], (changes[target] as? [String: Any])?["n"] != nil else { return nil }
                return line["frame"] as? Int
            }
            #expect(frames == [0, 1, 3, 4, 5, 6], "\(target): \(frames)")
        }
    }
}

/// `plugins validate --isolate`: the plan checks run with the plugin in a sandbox, so a crash there fails one check
/// and the others still run.
@Suite("plugins validate --isolate")
struct ValidateIsolatedTests {
    @Test func aPluginThatCrashesOnCreateFailsOneCheckAndTheRestRun() throws {
        let manifest = MotionHost.pluginFixtures.appendingPathComponent("crash-on-create.json").path
        let result = try MotionHost.run(["plugins", "validate", manifest, "--isolate", "all", "--timeout", "20"])
        #expect(result.status == 1)
        let lines = result.outputLines
        #expect(
            lines.contains { $0.contains("PASS sandbox (isolation: process): motion-sandbox started, confined, loaded and entered the library in") })
        #expect(
            lines.contains {
                $0.contains("FAIL default plan CrashOnCreate:")
                    && $0.contains("in create_performer, the plugin's sandbox was killed by signal 11 (SIGSEGV)")
            }, "\(lines)")
        // In process the crash ends the child that runs the checks; isolated, the checks after it run.
        #expect(lines.contains { $0.contains("PASS destroy performers") }, "\(lines)")
        #expect(lines.last == "1 plugin, 13 checks: 12 passed, 1 failed")
    }
}

/// `"group"` in a run's configuration: two plugins in one sandbox process; its crash is an `error` line for each, both
/// counted in the summary's `pluginFailures`, and the run goes on.
@Suite("A sandbox group in motion-host run")
struct SandboxGroupCommandTests {
    @Test func aCrashOfAGroupsSandboxEndsBothPluginsWithALineEach() throws {
        let scene = """
            {"sceneVersion":1,"name":"group","frameRate":60,"duration":0.1,
             "targets":[{"name":"a","properties":{"n":-1}},{"name":"b","properties":{"opacity":0}}],
             "transactions":[{"at":0,"operations":[
               {"op":"add","target":"a","plan":{"type":"Fault","atFrame":2,"fault":"segv"}},
               {"op":"add","target":"b","plan":{"type":"HoldTokens","count":1}}]}]}
            """
        let member = #"{"isolation": "process", "group": "fixtures"}"#
        let result = try MotionHost.runScene(
            scene,
            configuration:
                #"{"configurationVersion": 1, "plugins": {"org.motion.fixtures.faults": \#(member), "org.motion.fixtures.test-performers": \#(member)}}"#
        )
        #expect(result.status == 2, "\(result.standardError)")
        let lines = try result.jsonLines()
        let errors = lines.compactMap { $0["error"] as? String }
        #expect(errors.count == 2, "\(errors)")
        #expect(
            errors.first?.contains(
                "plugin org.motion.fixtures.faults (") == true
                && errors.first?.contains(
                    "in update at frame 2, its sandbox was killed by signal 11 (SIGSEGV); its performers Faulty@a (targets a) stopped") == true,
            "\(errors)")
        #expect(
            errors.last?.contains(
                "plugin org.motion.fixtures.test-performers (") == true
                && errors.last?.contains(
                    "outside any call from the host at frame 2, its sandbox was killed by signal 11 (SIGSEGV) (in update of org.motion.fixtures.faults, which runs in the same sandbox, group \"fixtures\"); its performers TokenPerformer@b (targets b) stopped"
                ) == true, "\(errors)")
        #expect(lines.compactMap { $0["error"] != nil ? $0["frame"] as? Int : nil } == [2, 2])
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect((summary["pluginFailures"] as? [String])?.count == 2)
    }

    @Test func groupMembersThatDisagreeAreAConfigurationError() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(
            #"{"configurationVersion": 1, "plugins": {"org.a.one": {"isolation": "process", "group": "g"}, "org.a.two": {"isolation": "process", "group": "g", "maxRestarts": 1}}}"#
                .utf8
        ).write(to: folder.appendingPathComponent("host.json"))
        let result = try MotionHost.run(["plugins", "list", "--config", folder.appendingPathComponent("host.json").path])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(
            result.standardError.contains(
                #"host.json: $.plugins["org.a.two"].group: plugins "org.a.one" and "org.a.two" share the sandbox group "g", one process, but not its settings: memoryLimit none, onCrash fail, maxRestarts 3 against memoryLimit none, onCrash fail, maxRestarts 1"#
            ), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
    }
}

extension MotionHost {
    /// Runs a scene given as JSON text with a host configuration given as JSON text (`--config`), both written to a
    /// temporary folder as `scene.json` and `host.json`, which is removed after the run.
    static func runScene(_ scene: String, configuration: String) throws -> MotionHostResult {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(scene.utf8).write(to: folder.appendingPathComponent("scene.json"))
        try Data(configuration.utf8).write(to: folder.appendingPathComponent("host.json"))
        return try runScene([folder.appendingPathComponent("scene.json").path, "--config", folder.appendingPathComponent("host.json").path])
    }
}

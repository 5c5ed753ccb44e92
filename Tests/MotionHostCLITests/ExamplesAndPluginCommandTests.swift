import Foundation
import Testing

/// The package root (examples and manifests are data).
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Example 1 and the commands around plugins and recordings, run through the built binary.
@Suite struct ExamplesAndPluginCommandTests {
    @Test func cardFadesInSpringsAndSettlesAtTheRetargetedDestination() throws {
        let result = try MotionHost.run(["run", "Examples/card-spring.json", "--plugin-path", "manifests"], in: root)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = try result.jsonLines()
        let frames = lines.compactMap { line -> (time: Double, card: [String: Any])? in
            guard let time = line["time"] as? Double, let changes = line["changes"] as? [String: Any],
                let card = changes["card"] as? [String: Any]
            else { return nil }
            return (time, card)
        }
        // FadeIn (composition: it emits a Tween of opacity) reaches 1 at its 0.4 s duration and stays.
        let opacities = frames.compactMap { frame in (frame.card["opacity"] as? Double).map { (frame.time, $0) } }
        #expect(opacities.last?.1 == 1)
        #expect(opacities.allSatisfy { $0.0 <= 0.4 + 1e-9 })
        // The spring heads for [240, 120] until the re-target at 0.25 s, then settles at [60, 300].
        let positions = frames.compactMap { frame in (frame.card["position"] as? [Double]).map { (frame.time, $0) } }
        let beforeRetarget = try #require(positions.last { $0.0 < 0.25 })
        #expect(beforeRetarget.1[0] > 150 && beforeRetarget.1[1] > 80)
        let summary = try #require(lines.last?["summary"] as? [String: Any])
        #expect(summary["stoppedBecause"] as? String == "idle")
        let final = try #require((summary["finalValues"] as? [String: [String: Any]])?["card"])
        #expect(final["position"] as? [Double] == [60, 300])
        #expect(final["opacity"] as? Double == 1)
        // Active from the first frame until the spring is at rest within its threshold, then idle once.
        #expect(lines.compactMap { $0["activity"] as? String } == ["active", "idle"])
        let secondToLast = try #require(positions.dropLast().last)
        #expect(abs(secondToLast.1[0] - 60) < 0.01 && abs(secondToLast.1[1] - 300) < 0.01)
    }

    @Test func planFailingItsSchemaFailsTheRunNamingFieldAndRange() throws {
        let folder = try MotionHost.temporaryFolder()
        let scene = folder.appendingPathComponent("bad-plan.json")
        try Data(
            #"{"sceneVersion":1,"duration":1,"targets":[{"name":"card","properties":{"opacity":0}}],"transactions":[{"at":0,"operations":[{"op":"add","target":"card","plan":{"type":"FadeIn","duration":-1}}]}]}"#
                .utf8
        ).write(to: scene)
        let result = try MotionHost.run(["run", scene.path, "--plugin-path", root.appendingPathComponent("manifests").path])
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1)
        #expect(
            result.standardError.hasSuffix(
                #"operation 0, target "card", plan type "FadeIn": field "duration": expected a number in 0...3600 (s), found -1"# + "\n"))
    }

    @Test func pluginsListAndDescribeComeFromManifestsAlone() throws {
        let list = try MotionHost.run(["plugins", "list", "--plugin-path", "manifests", "--format", "json"], in: root)
        #expect(list.status == 0)
        let ids = try list.jsonLines().compactMap { $0["id"] as? String }.sorted()
        #expect(ids == ["org.motion.cdeclarative", "org.motion.cperformers", "org.motion.devicemotionkit", "org.motion.tweenkit"])
        let describe = try MotionHost.run(["plugins", "describe", "SpringTo", "--plugin-path", "manifests"], in: root)
        #expect(describe.status == 0)
        #expect(describe.standardOutput.contains("stiffness       a number in 0.001...1000000; default 342"))
        let unknown = try MotionHost.run(["plugins", "describe", "SpringToo", "--plugin-path", "manifests"], in: root)
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains(#"no manifest on the plugin search path declares plan type "SpringToo" (did you mean "SpringTo"?)"#))
    }

    @Test func validatePassesTheSamplesAndReportsBrokenPluginsWithoutCrashing() throws {
        let samples = try MotionHost.run(["plugins", "validate", "manifests", "--scan-time-limit", busyMachineScanLimit], in: root)
        #expect(samples.status == 0, "\(samples.standardOutput)")
        #expect(samples.outputLines.last?.hasSuffix("0 failed") == true)
        // TweenKit (Swift SDK) and CPerformers offer ABI 1.1's update_many.
        #expect(samples.outputLines.filter { $0.contains("PASS extensions: motion.frames/1 (with update_many)") }.count >= 2)
        #expect(samples.outputLines.contains { $0.hasPrefix("manifests/tweenkit.json: PASS update_many matches update: the same properties") })
        let broken = try MotionHost.run(["plugins", "validate", "Tests/Fixtures/plugins", "--timeout", "3"], in: root)
        #expect(broken.status == 1)
        let out = broken.standardOutput
        #expect(out.contains("crash-on-create.json: FAIL default plan CrashOnCreate: the plugin crashed the child process with signal 11 (SIGSEGV)"))
        #expect(out.contains("hang-on-add.json: FAIL default plan HangOnAdd: timed out after 3 s; the plugin hangs"))
        #expect(out.contains("wrong-abi-major.json: FAIL load") && out.contains("built for ABI 2.0; this host speaks ABI 1.4"))
        #expect(out.contains("no-entry-symbol.json: FAIL load") && out.contains("does not export motion_plugin_entry"))
        #expect(
            out.contains(
                "update-many-mismatch.json: FAIL update_many matches update: after frame 1, property opacity is 1.0 through update_many but 0.0 through update"
            ))
        // A refusal says what the plugin logged, once.
        #expect(out.contains("motion_plugin_entry returned NULL; it logged: org.motion.fixtures.refuses: refusing to load"))
    }

    /// `plugins validate` on a copy of `manifests/<name>` with `text` replaced by `replacement`.
    private func validateSample(_ name: String, replacing text: String, with replacement: String) throws -> MotionHostResult {
        let source = try String(contentsOf: root.appendingPathComponent("manifests/\(name)"), encoding: .utf8)
        let changed = source.replacingOccurrences(of: text, with: replacement)
        try #require(changed != source)
        let manifest = try MotionHost.temporaryFolder().appendingPathComponent(name)
        try changed.write(to: manifest, atomically: true, encoding: .utf8)
        return try MotionHost.run(["plugins", "validate", manifest.path, "--scan-time-limit", busyMachineScanLimit], in: root)
    }

    @Test func theScanTimeCheckFailsPastItsLimitAndTheLimitIsChecked() throws {
        // A limit no load and entry can meet: the check fails, naming the limit and how to raise it.
        let strict = try MotionHost.run(["plugins", "validate", "manifests/tweenkit.json", "--scan-time-limit", "0.000001"], in: root)
        #expect(strict.status == 1)
        let line = try #require(strict.outputLines.first { $0.contains("scan time") })
        #expect(line.hasPrefix("manifests/tweenkit.json: FAIL scan time: "), "\(line)")
        #expect(line.hasSuffix(" ms, over the 1e-06 ms limit (plugins validate --scan-time-limit MS)"), "\(line)")
        #expect(strict.outputLines.last?.hasSuffix(" 1 failed") == true)
        let generous = try MotionHost.run(["plugins", "validate", "manifests/tweenkit.json", "--scan-time-limit", "60000"], in: root)
        #expect(generous.outputLines.contains { $0.hasPrefix("manifests/tweenkit.json: PASS scan time: ") })
        for bad in ["0", "-5", "fast", "inf"] {
            let refused = try MotionHost.run(["plugins", "validate", "manifests/tweenkit.json", "--scan-time-limit", bad], in: root)
            #expect(refused.status != 0)
            #expect(refused.standardError.contains("The value '\(bad)' is invalid for '--scan-time-limit <ms>': expected milliseconds > 0"))
        }
    }

    @Test func validateFailsAnExtensionNoPerformerDeclares() throws {
        // CPerformers offers motion.frames/1; this copy of its manifest declares no performer "frames".
        let result = try validateSample(
            "cperformers.json", replacing: #""capabilities": ["frames", "tokens"]"#, with: #""capabilities": ["tokens"]"#)
        #expect(result.status == 1)
        #expect(
            result.standardOutput.contains(
                "FAIL extensions: the library offers motion.frames/1, but no performer declares the capability frames"),
            "\(result.standardOutput)")
    }

    @Test func runRefusesAPluginWhoseManifestOmitsTheFramesItsLibraryOffers() throws {
        // The same copy of CPerformers' manifest, used by a run: refused as validate refuses it.
        let source = try String(contentsOf: root.appendingPathComponent("manifests/cperformers.json"), encoding: .utf8)
        let changed = source.replacingOccurrences(
            of: #""capabilities": ["frames", "tokens"]"#, with: #""capabilities": ["tokens"]"#)
        try #require(changed != source)
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try changed.write(to: folder.appendingPathComponent("cperformers.json"), atomically: true, encoding: .utf8)
        let scene = folder.appendingPathComponent("nudge.json")
        try Data(
            #"{"sceneVersion": 1, "duration": 0.1, "targets": [{"name": "dot", "properties": {"x": [0]}}], "transactions": [{"at": 0, "operations": [{"op": "add", "target": "dot", "plan": {"type": "Nudge", "property": "x", "by": [1]}}]}]}"#
                .utf8
        ).write(to: scene)
        let result = try MotionHost.run(["run", scene.path, "--plugin-path", folder.path], in: root)
        #expect(result.status == 1)
        #expect(
            result.errorLines.first?.contains(
                "the manifest does not describe the library, so it is not used: the library offers motion.frames/1, but no performer declares the capability frames"
            ) == true, "\(result.standardError)")
    }

    @Test func validateFailsACapabilityAPerformerUsesButDoesNotDeclare() throws {
        // FadePerformer emits a Tween; this copy of TweenKit's manifest takes its "composition" away.
        let result = try validateSample(
            "tweenkit.json", replacing: #""capabilities": ["composition"]"#, with: #""capabilities": []"#)
        #expect(result.status == 1)
        #expect(
            result.standardOutput.contains(
                "FAIL capabilities declare what performers did: FadePerformer emitted a transaction but does not declare the capability composition"
            ), "\(result.standardOutput)")
    }

    @Test func validateSaysACapabilityDeclaredButNotSeen() throws {
        // FadePerformer takes no token of its own; this copy of TweenKit's manifest says it does.
        let result = try validateSample(
            "tweenkit.json", replacing: #""capabilities": ["composition"]"#, with: #""capabilities": ["composition", "tokens"]"#)
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(
            result.standardOutput.contains(
                "PASS capabilities declare what performers did: seen and declared: tokens, composition; declared, not seen with the default plans: FadePerformer tokens"
            ), "\(result.standardOutput)")
    }

    @Test func recordingInAnUnknownFormatIsNamedInOneLine() throws {
        let result = try MotionHost.run(["device-motion", "README.md"], in: root)
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1)
        #expect(result.standardError.hasPrefix("error: ") && result.standardError.contains("README.md: not a recognised recording format"))
    }

    @Test func malformedRecordingRowIsNamedByFileLineAndColumn() throws {
        let folder = try MotionHost.temporaryFolder()
        let recording = folder.appendingPathComponent("broken.csv")
        let source = try String(contentsOf: root.appendingPathComponent("Examples/recordings/iphone-walk-excerpt/walk-2s-14s.csv"), encoding: .utf8)
        var lines = source.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).prefix(5).map(String.init)
        try #require(lines.count == 5)
        var fields = lines[3].split(separator: ",").map(String.init)
        fields[2] = "oops"
        lines[3] = fields.joined(separator: ",")
        try Data(lines.joined(separator: "\n").utf8).write(to: recording)
        let result = try MotionHost.run(["device-motion", recording.path])
        #expect(result.status == 1)
        #expect(result.standardError.contains("broken.csv:4:3:"))
    }

    @Test func deviceMotionPrintsOneCoreMotionSamplePerLine() throws {
        let result = try MotionHost.run(
            ["device-motion", "Examples/recordings/iphone-walk-excerpt/walk-2s-14s.csv", "--format", "csv"], in: root)
        #expect(result.status == 0)
        #expect(result.outputLines.first?.hasPrefix("timestamp,attitude.quaternion.x,") == true)
        #expect(result.outputLines.count == 1201)  // header + 1200 samples
    }

    @Test func recordingGoingBackInTimeIsMalformed() throws {
        let folder = try MotionHost.temporaryFolder()
        let recording = folder.appendingPathComponent("backwards.csv")
        let source = try String(contentsOf: root.appendingPathComponent("Examples/recordings/iphone-walk-excerpt/walk-2s-14s.csv"), encoding: .utf8)
        var lines = source.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).prefix(8).map(String.init)
        lines.swapAt(3, 4)
        try Data(lines.joined(separator: "\n").utf8).write(to: recording)
        let result = try MotionHost.run(["device-motion", recording.path])
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1)
        #expect(result.standardError.contains("backwards.csv:5:1: column 1 (timestamp): the timestamp"))
    }

    @Test func plotMustBeAnSVGFile() throws {
        let result = try MotionHost.run(["run", "Examples/card-spring.json", "--plugin-path", "manifests", "--plot", "card.png"], in: root)
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("error: The value 'card.png' is invalid for '--plot <file.svg>'"))
    }

    @Test func pluginThatCrashesTheHostIsNamedInOneLine() throws {
        let folder = try MotionHost.temporaryFolder()
        let scene = folder.appendingPathComponent("crash.json")
        try Data(
            #"{"sceneVersion":1,"duration":0.1,"targets":[{"name":"t","properties":{}}],"transactions":[{"at":0,"operations":[{"op":"add","target":"t","plan":{"type":"CrashOnCreate"}}]}]}"#
                .utf8
        ).write(to: scene)
        let result = try MotionHost.run(["run", scene.path, "--plugin-path", MotionHost.pluginFixtures.path])
        #expect(result.status != 0)
        let line = try #require(result.errorLines.first { $0.hasPrefix("error: plugin ") })
        #expect(line.hasPrefix("error: plugin org.motion.fixtures.crash-on-create ("))
        #expect(line.contains("crash-on-create.json) crashed the host (signal 11)"))
    }
}

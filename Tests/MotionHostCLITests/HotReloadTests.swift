import Foundation
import Testing

/// `serve --watch` and `run --realtime --watch` end to end (issue 14's hot reload): the built `motion-host`
/// over a plugin folder holding the reload fixture (`Tests/Fixtures/reload/reloadable.c`, plan `Step`: each
/// frame sets the plan's property to its value plus the build's offset), whose library the test replaces by
/// other builds while the host runs.
@Suite struct HotReloadTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A plugin folder with the fixture's manifest, a first build (offset 0) and a scene: target `t` gets a
    /// `Step` on `level` (value 5) and a named one, `n`, on `other` (value 7) at 0 s.
    final class PluginFolder {
        let url: URL
        var library: URL { url.appendingPathComponent("libreloadable.so") }
        var output: URL { url.appendingPathComponent("timeline.jsonl") }

        init() throws {
            url = try MotionHost.temporaryFolder()
            chmod(url.path, 0o755)
            try FileManager.default.copyItem(
                at: HotReloadTests.packageRoot.appendingPathComponent("Tests/Fixtures/reload/reloadable.json"),
                to: url.appendingPathComponent("reloadable.json"))
            try Data(
                #"""
                {"sceneVersion": 1, "name": "reload", "frameRate": 60, "duration": 30,
                 "targets": [{"name": "t", "properties": {"level": 0, "other": 0}}],
                 "transactions": [{"at": 0, "operations": [
                   {"op": "add", "target": "t", "plan": {"type": "Step", "property": "level", "value": 5}},
                   {"op": "addNamed", "target": "t", "name": "n", "plan": {"type": "Step", "property": "other", "value": 7}}]}]}
                """#.utf8
            ).write(to: url.appendingPathComponent("scene.json"))
            try install(offset: 0)
        }

        deinit { try? FileManager.default.removeItem(at: url) }

        /// Builds a variant beside the library, then renames it over the library, as a linker does.
        func install(offset: Int, refuses: Bool = false) throws {
            let staged = url.appendingPathComponent(".libreloadable.so.tmp")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments =
                [
                    "cc", "-shared", "-fPIC", "-fvisibility=hidden", "-Wl,--no-undefined", "-Wl,-soname,libreloadable.so",
                    "-I", HotReloadTests.packageRoot.appendingPathComponent("Sources/CMotionABI/include").path,
                    HotReloadTests.packageRoot.appendingPathComponent("Tests/Fixtures/reload/reloadable.c").path,
                    "-o", staged.path, "-DSTEP_OFFSET=\(offset)",
                ] + (refuses ? ["-DREFUSE"] : [])
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "cc failed for the reload fixture")
            chmod(staged.path, 0o755)
            try #require(rename(staged.path, library.path) == 0)
        }

        /// The timeline's lines so far, decoded (a last line still being written is left out).
        func lines() -> [[String: Any]] {
            guard let text = try? String(contentsOf: output, encoding: .utf8) else { return [] }
            return text.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }

        /// Waits (polling, up to `seconds`) for a timeline line that satisfies `predicate`.
        func waitForLine(seconds: Double = 20, _ predicate: ([String: Any]) -> Bool) -> [String: Any]? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let line = lines().first(where: predicate) { return line }
                usleep(20_000)
            }
            return nil
        }

        /// Waits for a frame line whose change of `property` on `t` is `value`, after frame `after`.
        func waitForValue(_ property: String, _ value: Double, after frame: Int = -1) -> [String: Any]? {
            waitForLine { line in
                guard let changes = line["changes"] as? [String: Any], let t = changes["t"] as? [String: Any],
                    (line["frame"] as? Int ?? -1) > frame
                else { return false }
                return (t[property] as? Double) == value
            }
        }
    }

    /// The SHA-256 of a file, from coreutils.
    private func sha256(of file: URL) throws -> String {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", file.path]
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(text.prefix(64))
    }

    @Test func serveWatchRunsARebuiltLibraryWithTheSamePlansNamedOnesByName() throws {
        let folder = try PluginFolder()
        let serve = try ServeProcess(
            ["scene.json", "--plugin-path", ".", "--watch", "--output", folder.output.path], in: folder.url)
        let first = try #require(folder.waitForValue("level", 5), "the first build never set level: \(serve.standardErrorText)")
        #expect(((first["changes"] as? [String: Any])?["t"] as? [String: Any])?["other"] as? Double == 7)

        try folder.install(offset: 100)
        let reload = try #require(folder.waitForLine { $0["reload"] != nil }, "no reload line: \(serve.standardErrorText)")
        #expect(reload["reload"] as? String == "org.example.reloadable")
        #expect(reload["manifest"] as? String == "./reloadable.json")
        #expect(reload["library"] as? String == folder.library.resolvingSymlinksInPath().path)
        #expect(reload["sha256"] as? String == (try sha256(of: folder.library)))
        #expect(reload["performers"] as? Int == 1)
        #expect(reload["plans"] as? Int == 2)
        #expect(reload["failures"] as? Int == 0)
        let reloadFrame = try #require(reload["frame"] as? Int)
        // The new code sets both values from the re-added plans, the named one included.
        let after = try #require(folder.waitForValue("level", 105, after: reloadFrame - 1))
        #expect(((after["changes"] as? [String: Any])?["t"] as? [String: Any])?["other"] as? Double == 107)
        #expect(serve.stop(signal: SIGTERM) == 0)
        let summary = try #require(folder.lines().last?["summary"] as? [String: Any])
        #expect(summary["stoppedBecause"] as? String == "interrupted")
    }

    // Issue 14's goal (applied within 2 frames of the library being complete): a reload prepared while the frame loop
    // waits is applied then and its line written at once, not with the next frame's lines.
    @Test func aReloadPreparedBetweenFramesIsAppliedAndWrittenBeforeTheNextFrame() throws {
        let folder = try PluginFolder()
        // One frame every 4 s: frame 1 (at 4 s) starts the watch; the new build lands well before frame 2 (at 8 s).
        let scene = folder.url.appendingPathComponent("scene.json")
        let text = try String(contentsOf: scene, encoding: .utf8).replacing(#""frameRate": 60"#, with: #""frameRate": 0.25"#)
        try Data(text.utf8).write(to: scene)
        let serve = try ServeProcess(
            ["scene.json", "--plugin-path", ".", "--watch", "--output", folder.output.path], in: folder.url)
        _ = try #require(folder.waitForValue("level", 5), "the first build never set level: \(serve.standardErrorText)")
        usleep(4_600_000)
        try folder.install(offset: 100)
        let reload = try #require(folder.waitForLine(seconds: 10) { $0["reload"] != nil }, "no reload line: \(serve.standardErrorText)")
        // Seen before frame 2 ran: that frame's values (the new code's) are not in the file yet.
        #expect(!folder.lines().contains { ($0["frame"] as? Int ?? -1) >= 2 && $0["changes"] != nil })
        #expect(reload["frame"] as? Int == 2)
        #expect(reload["time"] as? Double == 8)
        #expect(reload["plans"] as? Int == 2)
        let after = try #require(folder.waitForValue("level", 105, after: 1), "the new build did not run: \(serve.standardErrorText)")
        #expect(after["frame"] as? Int == 2)
        #expect(serve.stop(signal: SIGTERM) == 0)
    }

    @Test func aBuildWhoseEntryRefusesIsReportedAndTheOldCodeKeepsRunning() throws {
        let folder = try PluginFolder()
        let serve = try ServeProcess(
            ["scene.json", "--plugin-path", ".", "--watch", "--output", folder.output.path], in: folder.url)
        _ = try #require(folder.waitForValue("level", 5), "the first build never set level: \(serve.standardErrorText)")

        try folder.install(offset: 100, refuses: true)
        let error = try #require(folder.waitForLine { $0["error"] != nil }, "no error line: \(serve.standardErrorText)")
        let message = try #require(error["error"] as? String)
        #expect(message.contains("plugin org.example.reloadable was not reloaded, its old code keeps running"))
        #expect(message.contains("./reloadable.json: library \"libreloadable.so\": motion_plugin_entry returned NULL"))
        #expect(serve.standardErrorText.contains("error: frame "))
        // The old code still runs: the state keeps its values, and the next good build is taken.
        let state = try serve.connect().request("GET", "/state", host: serve.host)
        #expect(state.text.contains(#""t":{"level":5,"other":7}"#))
        try folder.install(offset: 200)
        _ = try #require(folder.waitForValue("level", 205), "the good build was not taken: \(serve.standardErrorText)")
        #expect(folder.lines().filter { $0["reload"] != nil }.count == 1)
        #expect(serve.stop(signal: SIGTERM) == 0)
    }

    /// `motion-host run scene.json --realtime --watch --duration 4` in `folder`, its standard error discarded.
    static func startRealTimeWatchRun(in folder: PluginFolder) throws -> Process {
        let process = Process()
        process.executableURL = MotionHost.executable
        process.arguments = [
            "run", "scene.json", "--plugin-path", ".", "--realtime", "--watch", "--duration", "4", "--output", folder.output.path,
        ]
        process.currentDirectoryURL = folder.url
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func runWatchReloadsInARealTimeRun() throws {
        let folder = try PluginFolder()
        let process = try Self.startRealTimeWatchRun(in: folder)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        _ = try #require(folder.waitForValue("level", 5))
        try folder.install(offset: 100)
        _ = try #require(folder.waitForLine { $0["reload"] != nil })
        let deadline = Date().addingTimeInterval(40)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        // Reading terminationStatus of a process still running traps (and ends every test of the run).
        try #require(!process.isRunning, "the run did not end within 40 s")
        #expect(process.terminationStatus == 0)
        let summary = try #require(folder.lines().last?["summary"] as? [String: Any])
        #expect((summary["finalValues"] as? [String: Any])?["t"] as? [String: Double] == ["level": 105, "other": 107])
    }

    @Test func aReloadPreparedAfterTheLastFrameIsNotAppliedToAFrameTheRunNeverHas() throws {
        // One frame every 4 s for 4 s: frames 0 (at 0 s) and 1 (at 4 s); the loop then waits for frame 2 (at 8 s),
        // which the run does not have. A build landing in that wait is not applied, and no reload line names frame 2.
        let folder = try PluginFolder()
        let scene = folder.url.appendingPathComponent("scene.json")
        let text = try String(contentsOf: scene, encoding: .utf8).replacing(#""frameRate": 60"#, with: #""frameRate": 0.25"#)
        try Data(text.utf8).write(to: scene)
        let process = try Self.startRealTimeWatchRun(in: folder)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        _ = try #require(folder.waitForValue("level", 5))
        usleep(4_600_000)  // frame 1 (at 4 s) has run
        try folder.install(offset: 100)
        let deadline = Date().addingTimeInterval(40)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        // Reading terminationStatus of a process still running traps (and ends every test of the run).
        try #require(!process.isRunning, "the run did not end within 40 s")
        #expect(process.terminationStatus == 0)
        #expect(folder.lines().filter { $0["reload"] != nil }.map { $0["frame"] as? Int ?? -1 } == [])
        let summary = try #require(folder.lines().last?["summary"] as? [String: Any])
        #expect(summary["frames"] as? Int == 2)
        #expect((summary["finalValues"] as? [String: Any])?["t"] as? [String: Double] == ["level": 5, "other": 7])
    }

    @Test func aSwiftPluginLoadedTwiceRunsItsNewCopy() throws {
        // The README's Pulse, copied with its manifest; "rebuilt" as the same code with bytes appended, so that
        // a second Swift library of the same module and soname is loaded beside the first.
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        chmod(folder.path, 0o755)
        try FileManager.default.copyItem(
            at: Self.packageRoot.appendingPathComponent("Examples/Plugins/pulse.json"), to: folder.appendingPathComponent("pulse.json"))
        let built = try Data(contentsOf: MotionHost.executable.deletingLastPathComponent().appendingPathComponent("libPulse.so"))
        let library = folder.appendingPathComponent("libPulse.so")
        try built.write(to: library)
        try Data(
            #"""
            {"sceneVersion": 1, "name": "pulse", "frameRate": 60, "duration": 30,
             "targets": [{"name": "card", "properties": {"scale": 1}}],
             "transactions": [{"at": 0, "operations": [{"op": "addNamed", "target": "card", "name": "pulse",
               "plan": {"type": "Pulse", "property": "scale", "amplitude": 0.5, "duration": 0.2}}]}]}
            """#.utf8
        ).write(to: folder.appendingPathComponent("scene.json"))
        let output = folder.appendingPathComponent("timeline.jsonl")
        let serve = try ServeProcess(["scene.json", "--plugin-path", ".", "--watch", "--output", output.path], in: folder)
        func lines() -> [[String: Any]] {
            ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }
        func wait(_ predicate: ([String: Any]) -> Bool) -> [String: Any]? {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if let line = lines().first(where: predicate) { return line }
                usleep(20_000)
            }
            return nil
        }
        _ = try #require(wait { $0["activity"] as? String == "idle" }, "the first pulse did not end: \(serve.standardErrorText)")
        let staged = folder.appendingPathComponent(".libPulse.so.tmp")
        try (built + Data("reloaded".utf8)).write(to: staged)
        try #require(rename(staged.path, library.path) == 0)
        let reload = try #require(wait { $0["reload"] != nil }, "no reload line: \(serve.standardErrorText)")
        #expect(reload["reload"] as? String == "org.example.pulse")
        #expect(reload["performers"] as? Int == 1 && reload["plans"] as? Int == 1 && reload["failures"] as? Int == 0)
        // The new copy's performer got the named Pulse again and pulses anew, then ends it.
        let frame = try #require(reload["frame"] as? Int)
        let pulsing = wait { line in
            guard (line["frame"] as? Int ?? -1) >= frame, let changes = line["changes"] as? [String: Any] else { return false }
            return ((changes["card"] as? [String: Any])?["scale"] as? Double ?? 1) > 1.2
        }
        #expect(pulsing != nil)
        #expect(wait { ($0["frame"] as? Int ?? -1) >= frame && $0["activity"] as? String == "idle" } != nil)
        #expect(serve.stop(signal: SIGTERM) == 0)
        #expect(!serve.standardErrorText.contains("error"))
    }

    @Test func theREADMEsWalkThroughEditAppliesToThePulseExample() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let pulse = try String(contentsOf: Self.packageRoot.appendingPathComponent("Examples/Plugins/Pulse/Pulse.swift"), encoding: .utf8)
        #expect(readme.contains("change `current.base.map { $0 + offset }`\nto `current.base.map { $0 - offset }`"))
        #expect(pulse.contains("try? context.setValue(current.base.map { $0 + offset }, of: current.property)"))
        // The walk-through's scene grows the card by half and back.
        let result = try MotionHost.run(
            ["run", "Examples/pulse-card.json", "--plugin-path", "Examples/Plugins"], in: Self.packageRoot)
        #expect(result.status == 0)
        let scales = try result.jsonLines().compactMap { line in
            ((line["changes"] as? [String: Any])?["card"] as? [String: Any])?["scale"] as? Double
        }
        #expect(abs((scales.max() ?? 0) - 1.5) < 0.01)
        #expect(scales.last == 1)
    }

    @Test func runWatchWithoutRealtimeIsAUsageError() throws {
        let result = try MotionHost.runScene(["basic.json", "--watch"])
        #expect(result.status == 64)
        #expect(
            result.errorLines.first
                == "error: '--watch' reloads plugins rebuilt while a run goes on in real time; add '--realtime' (a simulated run is over before a rebuild could land), or use 'serve --watch'"
        )
    }
}

/// Hot reload of an isolated plugin: a new sandbox for the new library, the performers switched to it, the old
/// sandbox ended.
@Suite struct IsolatedHotReloadTests {
    /// The children of a process, from `/proc/PID/task/*/children`, each with its state letter (`Z`: a zombie) and
    /// command name.
    static func children(of pid: pid_t) -> [(pid: pid_t, state: String, name: String)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var result: [(pid: pid_t, state: String, name: String)] = []
        for task in tasks {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            for field in text.split(separator: " ") {
                guard let child = pid_t(field.trimmingCharacters(in: .whitespacesAndNewlines)) else { continue }
                let stat = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)) ?? ""
                // "PID (comm) STATE ...": the name may hold spaces, the state follows the last ")".
                guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
                let name = String(stat[stat.index(after: open)..<close])
                let state = String(stat[stat.index(close, offsetBy: 2)...].prefix(1))
                result.append((child, state, name))
            }
        }
        return result
    }

    /// Waits (polling, up to 10 s) until `serve` has exactly one child, a running sandbox other than `other`.
    static func waitForOneSandbox(of pid: pid_t, other: pid_t? = nil) -> [(pid: pid_t, state: String, name: String)] {
        let deadline = Date().addingTimeInterval(10)
        var found = children(of: pid)
        while Date() < deadline {
            found = children(of: pid)
            if found.count == 1, found[0].state != "Z", found[0].pid != other { break }
            usleep(20_000)
        }
        return found
    }

    @Test func anIsolatedPluginReloadsInANewSandboxAndTheOldOneEnds() throws {
        let folder = try HotReloadTests.PluginFolder()
        let serve = try ServeProcess(
            ["scene.json", "--plugin-path", ".", "--watch", "--isolate", "org.example.reloadable", "--output", folder.output.path],
            in: folder.url)
        _ = try #require(folder.waitForValue("level", 5), "the first build never set level: \(serve.standardErrorText)")
        let first = Self.waitForOneSandbox(of: serve.process.processIdentifier)
        try #require(first.count == 1, "serve's children before the reload: \(first)")
        #expect(first[0].name == "motion-sandbox")

        try folder.install(offset: 100)
        let reload = try #require(folder.waitForLine { $0["reload"] != nil }, "no reload line: \(serve.standardErrorText)")
        #expect(reload["reload"] as? String == "org.example.reloadable")
        #expect(reload["library"] as? String == folder.library.resolvingSymlinksInPath().path)
        #expect(reload["performers"] as? Int == 1)
        #expect(reload["plans"] as? Int == 2)
        #expect(reload["failures"] as? Int == 0)
        let reloadFrame = try #require(reload["frame"] as? Int)
        // The new sandbox's code runs both re-added plans, the named one by name, from the values the old one left.
        let after = try #require(folder.waitForValue("level", 105, after: reloadFrame - 1))
        #expect(((after["changes"] as? [String: Any])?["t"] as? [String: Any])?["other"] as? Double == 107)
        // One child: the new sandbox; the old one was reaped (no zombie).
        let second = Self.waitForOneSandbox(of: serve.process.processIdentifier, other: first[0].pid)
        #expect(second.count == 1 && second[0].pid != first[0].pid && second[0].state != "Z", "serve's children after the reload: \(second)")

        // A build whose entry refuses: its sandbox is ended, the running one keeps the old code, and an error line says why.
        try folder.install(offset: 200, refuses: true)
        let error = try #require(folder.waitForLine { $0["error"] != nil }, "no error line: \(serve.standardErrorText)")
        let message = try #require(error["error"] as? String)
        #expect(message.contains("plugin org.example.reloadable was not reloaded, its old code keeps running"))
        #expect(message.contains("motion_plugin_entry returned NULL"))
        let third = Self.waitForOneSandbox(of: serve.process.processIdentifier)
        #expect(third.count == 1 && third[0].pid == second[0].pid, "serve's children after a refused reload: \(third)")
        let state = try serve.connect().request("GET", "/state", host: serve.host)
        #expect(state.text.contains(#""t":{"level":105,"other":107}"#))
        #expect(serve.stop(signal: SIGTERM) == 0)
        #expect(folder.lines().filter { $0["reload"] != nil }.count == 1)
    }
}

extension HotReloadTests {
    @Test(arguments: [false, true])
    func aPluginWhoseFirstLoadFailedLoadsOnceItsLibraryIsFixed(isolated: Bool) throws {
        let folder = try PluginFolder()
        try folder.install(offset: 0, refuses: true)
        let serve = try ServeProcess(
            ["scene.json", "--plugin-path", ".", "--watch", "--output", folder.output.path]
                + (isolated ? ["--isolate", "org.example.reloadable"] : []), in: folder.url)
        // The scene's transaction fails: the entry refuses.
        let refused = try #require(folder.waitForLine { $0["error"] != nil }, "no error line: \(serve.standardErrorText)")
        #expect((refused["error"] as? String)?.contains("motion_plugin_entry returned NULL") == true, "\(refused)")

        try folder.install(offset: 100)
        let reload = try #require(folder.waitForLine { $0["reload"] != nil }, "no reload line: \(serve.standardErrorText)")
        #expect(reload["reload"] as? String == "org.example.reloadable")
        #expect(reload["performers"] as? Int == 0)
        #expect(reload["library"] as? String == folder.library.resolvingSymlinksInPath().path)
        // Plans committed from now on run the fixed build.
        let committed = try serve.connect().request(
            "POST", "/transactions", host: serve.host, headers: ["Content-Type": "application/json"],
            body: Array(#"{"operations": [{"op": "add", "target": "t", "plan": {"type": "Step", "property": "level", "value": 5}}]}"#.utf8))
        #expect(committed.status == 200, "\(committed.text)")
        _ = try #require(folder.waitForValue("level", 105), "the fixed build did not run the plan: \(serve.standardErrorText)")
        #expect(serve.stop(signal: SIGTERM) == 0)
    }
}

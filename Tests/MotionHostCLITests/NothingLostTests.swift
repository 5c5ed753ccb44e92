import Foundation
import Testing

/// A run that fails keeps everything it did: crashes, hangs and interruptions of `motion-host run`, with
/// the fixture plugin Tests/Fixtures/plugins/faults.json (plan `Fault`: sets `n` to the frame index every
/// frame and fails as `fault` says in the update of frame `atFrame`; plan `Quiet`: holds a token, changes
/// nothing).
@Suite("Nothing lost when a run fails")
struct NothingLostTests {
    /// A folder holding `scene.json`: one target `a` (`n` starts at -1, so frame 0 changes it) and the
    /// given plans added at 0 s.
    private func sceneFolder(plans: [String], frameRate: Int = 60, duration: String = "10") throws -> URL {
        let folder = try MotionHost.temporaryFolder()
        let operations = plans.map { #"{"op":"add","target":"a","plan":\#($0)}"# }.joined(separator: ",")
        let scene = """
            {"sceneVersion":1,"name":"faults","frameRate":\(frameRate),"duration":\(duration),
             "targets":[{"name":"a","properties":{"n":-1}}],
             "transactions":[{"at":0,"operations":[\(operations)]}]}
            """
        try Data(scene.utf8).write(to: folder.appendingPathComponent("scene.json"))
        return folder
    }

    private func runArguments(_ folder: URL, _ extra: [String]) -> [String] {
        ["run", "--plugin-path", MotionHost.pluginFixtures.path, folder.appendingPathComponent("scene.json").path] + extra
    }

    private func frameLines(_ lines: [[String: Any]]) -> [Int] { lines.compactMap { $0["changes"] != nil ? $0["frame"] as? Int : nil } }

    @Test(arguments: [("segv", SIGSEGV), ("abort", SIGABRT)])
    func aPluginThatCrashesInAFrameLeavesEveryFrameLineAndAnErrorLine(fault: String, signal: Int32) throws {
        let folder = try sceneFolder(plans: [#"{"type":"Fault","atFrame":300,"fault":"\#(fault)"}"#])
        defer { try? FileManager.default.removeItem(at: folder) }
        let timeline = folder.appendingPathComponent("timeline.jsonl")
        let child = try ChildProcess(runArguments(folder, ["--output", timeline.path]))
        try #require(child.waitForExit(seconds: 60), "motion-host did not end")
        #expect(child.process.terminationReason == .uncaughtSignal)
        #expect(child.process.terminationStatus == signal)

        let lines = try jsonLines(ofFile: timeline)
        #expect(frameLines(lines) == Array(0..<300))
        let last = try #require(lines.last)
        let error = try #require(last["error"] as? String, "the last line is not an error line: \(last)")
        #expect(error.hasPrefix("plugin org.motion.fixtures.faults ("), "\(error)")
        #expect(error.contains("faults.json) crashed the host (signal \(signal)) in update at frame 300"), "\(error)")
        #expect(last["frame"] as? Int == 300)
        #expect(last["time"] as? Double == 5)
        let stderrLine = try #require(child.standardError.split(separator: "\n").first { $0.hasPrefix("error: plugin ") })
        #expect(String(stderrLine) == "error: " + error)
    }

    @Test(arguments: [
        ("threadSegv", "in the plugin's own code outside any call from the host"),
        ("threadHostCall", "in the host's code called from that thread (its stack returns into the plugin"),
    ])
    func aCrashOnAPluginsOwnThreadNamesThePluginAndKeepsTheTimeline(fault: String, where place: String) throws {
        let folder = try sceneFolder(plans: [#"{"type":"Fault","atFrame":40,"fault":"\#(fault)"}"#])
        defer { try? FileManager.default.removeItem(at: folder) }
        let child = try ChildProcess(runArguments(folder, []))
        try #require(child.waitForExit(seconds: 60), "motion-host did not end")
        #expect(child.process.terminationStatus == SIGSEGV)

        let lines = try MotionHostResult(status: 0, standardOutput: child.standardOutput, standardError: "").jsonLines()
        #expect(frameLines(lines) == Array(0..<40))
        let error = try #require(lines.last?["error"] as? String, "no error line last: \(lines.last ?? [:])")
        #expect(error.hasPrefix("a thread of plugin org.motion.fixtures.faults ("), "\(error)")
        #expect(error.contains("faults.json) crashed the host (signal 11) at frame 40, \(place)"), "\(error)")
        #expect(lines.last?["frame"] as? Int == 40)
        #expect(child.standardError.contains("error: " + error))
    }

    @Test func frameLinesReachTheFileAsEachFrameEnds() throws {
        // The plugin hangs in frame 30 and the watchdog is off: the 30 frames before must already be in the file.
        let folder = try sceneFolder(plans: [#"{"type":"Fault","atFrame":30,"fault":"hang"}"#])
        defer { try? FileManager.default.removeItem(at: folder) }
        let timeline = folder.appendingPathComponent("timeline.jsonl")
        let child = try ChildProcess(runArguments(folder, ["--output", timeline.path, "--plugin-timeout", "0"]))
        let visible = eventually(within: 30) { ((try? jsonLines(ofFile: timeline)).map(frameLines) ?? []).count == 30 }
        #expect(child.process.isRunning, "the watchdog is off, so the run hangs")
        child.send(SIGKILL)
        _ = child.waitForExit(seconds: 10)
        #expect(visible, "frame lines did not reach the file while the run went on")
        #expect(try frameLines(jsonLines(ofFile: timeline)) == Array(0..<30))
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func anInterruptionStopsAtAFrameBoundaryAndWritesTheSummary(signal: Int32, status: Int32) throws {
        // 86 400 s at 1000 fps: far longer than the test waits.
        let folder = try sceneFolder(plans: [#"{"type":"Fault"}"#], frameRate: 1000, duration: "86400")
        defer { try? FileManager.default.removeItem(at: folder) }
        let timeline = folder.appendingPathComponent("timeline.jsonl")
        let child = try ChildProcess(runArguments(folder, ["--output", timeline.path]))
        let started = eventually(within: 30) { ((try? FileManager.default.attributesOfItem(atPath: timeline.path)[.size] as? Int) ?? 0) > 1000 }
        try #require(started, "the run wrote nothing")
        child.send(signal)
        try #require(child.waitForExit(seconds: 30), "motion-host did not stop after the signal")
        #expect(child.process.terminationReason == .exit)
        #expect(child.process.terminationStatus == status)

        let lines = try jsonLines(ofFile: timeline)
        let summary = try #require(lines.last?["summary"] as? [String: Any], "the last line is not the summary")
        #expect(summary["stoppedBecause"] as? String == "interrupted")
        let frames = frameLines(lines)
        // Every frame that ran is in the timeline, and it ended at a frame boundary.
        #expect(summary["frames"] as? Int == frames.count)
        #expect(frames == Array(0..<frames.count))
        #expect(((summary["finalValues"] as? [String: Any])?["a"] as? [String: Any])?["n"] as? Int == frames.count - 1)
    }

    @Test func aPluginThatHangsInAFrameIsReportedByTheWatchdog() throws {
        let folder = try sceneFolder(plans: [#"{"type":"Fault","atFrame":30,"fault":"hang"}"#])
        defer { try? FileManager.default.removeItem(at: folder) }
        let timeline = folder.appendingPathComponent("timeline.jsonl")
        let child = try ChildProcess(runArguments(folder, ["--output", timeline.path, "--plugin-timeout", "1"]))
        try #require(child.waitForExit(seconds: 30), "motion-host hung")
        #expect(child.process.terminationReason == .exit)
        #expect(child.process.terminationStatus == 1)
        let message =
            "plugin org.motion.fixtures.faults (\(MotionHost.pluginFixtures.path)/faults.json) did not return from update at frame 30 within 1 s (--plugin-timeout)"
        #expect(child.standardError.hasPrefix("error: " + message), "\(child.standardError)")

        let lines = try jsonLines(ofFile: timeline)
        #expect(frameLines(lines) == Array(0..<30))
        let error = try #require(lines.last?["error"] as? String)
        #expect(error.hasPrefix(message))
        #expect(lines.last?["frame"] as? Int == 30)
    }

    @Test func pluginTimeoutMustBeSecondsOrZero() throws {
        let result = try MotionHost.run(["run", "basic.json", "--plugin-timeout", "-1"])
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("error: The value '-1' is invalid for '--plugin-timeout <s>'"))
    }

    @Test func theSummaryIsTheLastLineWhenTokensAreHeldToTheEndOfAFixedRun() throws {
        // Tokens still held when a fixed duration ends are terminated as the scheduler goes away: after
        // the summary, so none of it may be written.
        let folder = try sceneFolder(
            plans: [#"{"type":"Quiet"}"#, #"{"type":"Fault"}"#], duration: "0.5")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try MotionHost.run(runArguments(folder, ["--trace"]))
        #expect(result.status == 0, "\(result.standardError)")
        let lines = try result.jsonLines()
        let summary = try #require(lines.last?["summary"] as? [String: Any], "the last line is not the summary: \(lines.last ?? [:])")
        #expect(summary["activity"] as? String == "active")
        #expect(lines.filter { $0["summary"] != nil }.count == 1)
        #expect(!lines.contains { $0["trace"] as? String == "tokenTerminated" })
    }
}

/// Where `--output` and `--plot` write: a FIFO or a device stays what it is; a regular file is written.
@Suite("Output files")
struct OutputFileTests {
    private let scene = MotionHost.fixture("basic.json")

    private func isFIFO(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
    }

    @Test(arguments: ["--output", "--plot"])
    func aFIFOStaysAFIFOAndItsReaderGetsEverything(option: String) throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent(option == "--plot" ? "plot.svg" : "timeline.jsonl").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // The reader is a process (cat, its output in a file), so a test that fails (the FIFO replaced, its
        // reader never unblocked) can still end it.
        let reader = try ChildProcess([fifo], executable: URL(fileURLWithPath: "/bin/cat"))
        let host = try ChildProcess(
            ["run", "--plugin-path", MotionHost.pluginFixtures.path, scene, option, fifo]
                + (option == "--plot" ? ["--output", folder.appendingPathComponent("timeline.jsonl").path] : []))
        let hostEnded = host.waitForExit(seconds: 60)
        let readerEnded = reader.waitForExit(seconds: 10)
        #expect(hostEnded)
        #expect(host.process.terminationStatus == 0, "\(host.standardError)")
        #expect(isFIFO(fifo), "the FIFO was replaced")
        #expect(readerEnded, "the reader of the FIFO got no end of file")
        let text = reader.standardOutput
        if option == "--plot" {
            #expect(text.hasPrefix("<svg") || text.hasPrefix("<?xml"), "\(text.prefix(80))")
            #expect(text.hasSuffix("</svg>\n"))
        } else {
            #expect(text.hasPrefix(#"{"timeline":1,"#))
            #expect(text.split(separator: "\n").last?.hasPrefix(#"{"summary":"#) == true)
        }
    }

    @Test func aRegularTimelineFileIsWrittenInPlace() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let timeline = folder.appendingPathComponent("timeline.jsonl").path
        try Data("old contents, longer than nothing\n".utf8).write(to: URL(fileURLWithPath: timeline))
        // A second name for the same file: written in place, both names see the timeline.
        let link = folder.appendingPathComponent("link.jsonl").path
        try #require(Glibc.link(timeline, link) == 0)
        let result = try MotionHost.run(["run", "--plugin-path", MotionHost.pluginFixtures.path, scene, "--output", timeline])
        #expect(result.status == 0, "\(result.standardError)")
        let text = try String(contentsOfFile: link, encoding: .utf8)
        #expect(text.hasPrefix(#"{"timeline":1,"#))
        #expect(text == (try String(contentsOfFile: timeline, encoding: .utf8)))
    }

    @Test func aPlotReplacesARegularFileWhole() throws {
        let folder = try MotionHost.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plot = folder.appendingPathComponent("plot.svg").path
        let result = try MotionHost.run([
            "run", "--plugin-path", MotionHost.pluginFixtures.path, scene, "--output", folder.appendingPathComponent("timeline.jsonl").path, "--plot",
            plot,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try String(contentsOfFile: plot, encoding: .utf8).hasSuffix("</svg>\n"))
        // No temporary file is left beside it, and it has a new file's mode (0666 less the umask), not 0600.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["plot.svg", "timeline.jsonl"])
        let mask = umask(0)
        umask(mask)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: plot)[.posixPermissions] as? Int)
        #expect(mode == 0o666 & ~Int(mask))
    }
}

import CMotionHostSupport
import Dispatch
import FoundationEssentials
import Glibc
import MotionCore
import MotionFiles
import MotionHost

/// `motion-host run SCENE`: loads a scene, runs it and writes its timeline (and plot).
enum RunCommand {
    /// Runs the command.
    /// - Parameter values: The parsed `run` command line.
    /// - Returns: 0 when the run completed; 2 when it completed but an isolated plugin failed (its performers ended,
    ///   the rest went on: the `error` lines and the summary's `pluginFailures` say which); 130 or 143 when SIGINT or SIGTERM stopped it at a frame
    ///   boundary (128 + the signal, as a shell reports a process ended by it; the summary says
    ///   `interrupted`). A plugin call that does not return within `--plugin-timeout` seconds ends the process
    ///   with status 1 from the watchdog thread, and a plugin that crashes the host ends it with its signal,
    ///   each after writing the buffered timeline and a last `error` line (CMotionHostSupport).
    /// - Throws: ``UsageError`` for a bad option value; ``MotionHostError`` for a scene, registry,
    ///   commit or output failure (after writing what the run produced).
    static func run(_ values: ParsedValues) throws -> Int32 {
        let scenePath = values.argument("scene")!
        let outputPath = values.value("output")
        let format = values.value("format") ?? (outputPath?.lowercased().hasSuffix(".csv") == true ? "csv" : "jsonl")
        let isTracing = values.flag("trace")
        if isTracing, format != "jsonl" {
            throw UsageError(
                message:
                    "'--trace' writes trace lines, which only the jsonl format has; drop '--trace' or use '--format jsonl'",
                commandPath: values.commandPath)
        }
        let frameRateOverride = try values.value("fps").map { text throws(UsageError) in
            guard let n = Double(text), n > 0, n <= 1000 else {
                throw UsageError(
                    message: "The value '\(text)' is invalid for '--fps <n>': expected a number > 0 and ≤ 1000",
                    commandPath: values.commandPath)
            }
            return n
        }
        let durationOverride = try values.value("duration").map { text throws(UsageError) -> SceneDuration in
            if text == "untilIdle" { return .untilIdle }
            guard let s = Double(text), s >= 0, s <= SceneDocument.longestRun else {
                throw UsageError(
                    message:
                        "The value '\(text)' is invalid for '--duration <s>': expected seconds in 0...86400 or untilIdle",
                    commandPath: values.commandPath)
            }
            return .seconds(s)
        }

        let pluginTimeout =
            try values.value("plugin-timeout").map { text throws(UsageError) in
                guard let s = Double(text), s >= 0, s <= SceneDocument.longestRun else {
                    throw UsageError(
                        message:
                            "The value '\(text)' is invalid for '--plugin-timeout <s>': expected seconds in 0...86400 (0 turns the watchdog off)",
                        commandPath: values.commandPath)
                }
                return s
            } ?? 10

        if values.flag("watch"), !values.flag("realtime") {
            throw UsageError(
                message:
                    "'--watch' reloads plugins rebuilt while a run goes on in real time; add '--realtime' (a simulated run is over before a rebuild could land), or use 'serve --watch'",
                commandPath: values.commandPath)
        }
        if let plot = values.value("plot"), !plot.lowercased().hasSuffix(".svg") {
            throw UsageError(
                message: "The value '\(plot)' is invalid for '--plot <file.svg>': the plot is SVG, so give a file name ending in .svg",
                commandPath: values.commandPath)
        }
        let document = try SceneDecoder.load(path: scenePath)
        let settings = RunSettings(
            frameRate: frameRateOverride ?? document.frameRate, duration: durationOverride ?? document.duration,
            maximumDuration: document.maximumDuration, isTracing: isTracing)
        let registry = try makeRegistry(
            pluginPaths: values.values("plugin-path"), configPath: values.value("config"), isolate: values.values("isolate"),
            pluginTimeout: pluginTimeout > 0 ? pluginTimeout : nil, commandPath: values.commandPath)
        let runner = SceneRunner(document: document, settings: settings, registry: registry)
        if let host = registry as? PluginHost {
            runner.takePluginFailures = { host.takeFailures(restartingIn: $0) }
            runner.keepsPlansForRestarts = host.keepsPlansForRestarts
            runner.takePendingWorkFailures = { host.takePendingWorkFailures() }
        }
        if values.flag("realtime") { runner.clock = RealTimeFrameClock(frameRate: settings.frameRate) }
        if values.flag("watch") { runner.hotReload = try HotReload(registry: registry) }
        if let source = document.deviceMotion {
            runner.hooks.append(try makeDeviceMotionHook(for: source, scenePath: scenePath))
        } else if let host = registry as? PluginHost {
            // A performer that reacts to device motion does nothing without a source: say so up front.
            let planTypes = Set(document.transactions.flatMap { $0.transaction.operations.compactMap { $0.plan?.type } })
            let needing = planTypes.filter { host.catalog.entry(forPlanType: $0)?.performer.capabilities.contains(.deviceMotion) == true }
            if !needing.isEmpty {
                CommandLineTool.writeStandardError(
                    "warning: \(scenePath): plan type\(needing.count == 1 ? "" : "s") \(needing.sorted().joined(separator: ", ")) react\(needing.count == 1 ? "s" : "") to device motion, but the scene has no deviceMotion source; add one to make \(needing.count == 1 ? "it" : "them") move\n"
                )
            }
        }

        let output = try outputPath.map { path throws(MotionHostError) in try TextOutput(path: path) } ?? TextOutput()
        runner.sinks.append(
            format == "csv" ? CSVTimelineWriter(output: output) : JSONLinesTimelineWriter(output: output))
        // Checked now, so an unwritable plot path fails before the run, not after it.
        let plotOutput = try values.value("plot").map { path throws(MotionHostError) in try WholeFileOutput(path: path) }
        let plot = plotOutput.map { _ in PlotRecorder() }
        if let plot { runner.sinks.append(plot) }
        let progress = ProgressLine(settings: settings)
        runner.onError = { CommandLineTool.writeStandardError("error: \($0)\n") }
        // Nothing lost when a run fails: every frame's lines reach the file as the frame ends, and a fatal
        // signal or the watchdog writes what is buffered plus a last error line (the frame it names is
        // published as each frame begins).
        output.attachLastWords(takesErrorLine: format == "jsonl")
        runner.onFrameStart = { point in cmotionhost_timeline_set_point(Int64(point.frame), JSONLinesTimelineWriter.stamp(point)) }
        runner.onFrame = { point in
            output.flush()
            progress.update(point)
        }
        runner.onLinesBetweenFrames = { output.flush() }
        cmotionhost_install_interrupt_handler()
        runner.isInterrupted = { cmotionhost_interruption() != 0 }
        if pluginTimeout > 0 {
            let description = "\(JSONText.number(pluginTimeout)) s"
            guard cmotionhost_start_watchdog(pluginTimeout, description) else {
                throw MotionHostError(.notAvailable, "cannot start the plugin watchdog thread: \(String(cString: strerror(errno)))")
            }
        }

        var runError: MotionHostError?
        var summary: TimelineSummary?
        do {
            summary = try runner.run()
        } catch {
            runError = error
        }
        progress.finish()
        try output.close()
        if let plot, let plotOutput { try plotOutput.write(SVGPlot(recording: plot).render()) }
        if let runError { throw runError }
        if summary?.stopReason == .interrupted { return 128 + cmotionhost_interruption() }
        if !runner.pluginFailures.isEmpty { return 2 }
        if let summary, summary.committedTransactions < document.transactions.count {
            let skipped = document.transactions.count - summary.committedTransactions
            CommandLineTool.writeStandardError(
                "warning: \(scenePath): \(skipped) transaction\(skipped == 1 ? " was" : "s were") not committed: the run ended at \(JSONText.number(summary.duration)) s, before their time\n"
            )
        }
        return 0
    }
}

/// A progress line on standard error — only when it is a terminal and the run has taken more than a
/// second of wall time — redrawn at most ten times a second and cleared at the end.
final class ProgressLine {
    private let isEnabled: Bool
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDrawn: UInt64 = 0
    private var hasDrawn = false
    private let endTime: Double?

    /// A progress line for a run with these settings.
    init(settings: RunSettings) {
        isEnabled = isatty(STDERR_FILENO) == 1
        if case .seconds(let s) = settings.duration { endTime = s } else { endTime = nil }
    }

    /// Called after every frame.
    func update(_ point: TimelinePoint) {
        guard isEnabled, point.frame % 32 == 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - start > 1_000_000_000, now - lastDrawn > 100_000_000 else { return }
        lastDrawn = now
        hasDrawn = true
        var text = "\rmotion-host: frame \(point.frame), t = \(String(cFormat: "%.2f", point.time)) s"
        if let endTime, endTime > 0 {
            text += " of \(JSONText.number(endTime)) s (\(Int(100 * point.time / endTime))%)"
        }
        CommandLineTool.writeStandardError(text + "\u{1B}[K")
    }

    /// Clears the line if it was drawn.
    func finish() {
        if hasDrawn { CommandLineTool.writeStandardError("\r\u{1B}[K") }
    }
}

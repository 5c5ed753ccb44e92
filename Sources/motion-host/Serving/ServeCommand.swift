import CMotionHostSupport
import DeviceMotion
import Dispatch
import FoundationEssentials
import Glibc
import MotionCore
import MotionHost
import MotionLive

/// `motion-host serve SCENE`: runs a scene in real time until stopped, with the live host's endpoints
/// (see ``LiveServer``) on `--listen`.
///
/// Standard error's first line is `listening on http://HOST:PORT` (the real port). SIGINT, SIGTERM or
/// `POST /shutdown` stop the run at a frame boundary: the summary is written (`stoppedBecause`
/// `interrupted` or `shutdown`), the sockets are closed, and the exit status is 0.
enum ServeCommand {
    /// The default `--listen` address.
    static let defaultListen = "127.0.0.1:8765"

    /// Runs the command.
    /// - Parameter values: The parsed `serve` command line.
    /// - Returns: 0 when stopped by a signal or `POST /shutdown`.
    /// - Throws: ``UsageError`` for a bad option value (a non-loopback `--listen` without a token, an
    ///   `iio` device that is missing or unreadable, too); ``MotionHostError`` for a scene, registry, listen
    ///   or output failure. A transaction that fails once running (the scene's, one from the wire, one a
    ///   performer emitted) is an `error` line and a line on standard error, and serve goes on.
    static func run(_ values: ParsedValues) throws -> Int32 {
        let scenePath = values.argument("scene")!
        let listenText = values.value("listen") ?? defaultListen
        let token = values.value("token") ?? ProcessInfo.processInfo.environment["MOTION_HOST_TOKEN"]
        var configuration: LiveServerConfiguration
        do throws(LiveRefusal) {
            configuration = try LiveServerConfiguration(listen: try ListenAddress(parsing: listenText), token: token)
        } catch {
            throw UsageError(
                message: "The value '\(listenText)' is invalid for '--listen <host:port>': \(error.message)",
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

        let document = try SceneDecoder.load(path: scenePath)
        let deviceMotion = try values.value("device-motion").map { text throws(UsageError) in
            try DeviceMotionChoice(text, scene: document, commandPath: values.commandPath)
        }
        if case .sensorLogger = deviceMotion { configuration.acceptsSensorPushes = true }
        let frameRate = frameRateOverride ?? document.frameRate
        let targetNames = SceneTargetNames(document.targets.map(\.name))
        let server = LiveServer(configuration: configuration) { (root) throws(LiveRefusal) -> Transaction in
            do throws(SceneFieldError) {
                return try SceneDecoder.transaction(root, targetNames: targetNames)
            } catch {
                throw LiveRefusal(400, error.text)
            }
        }
        do throws(LiveRefusal) {
            try server.start()
        } catch {
            throw MotionHostError(.unwritableOutput, file: nil, "--listen \(listenText): \(error.message)")
        }
        defer { server.stop() }
        CommandLineTool.writeStandardError("listening on http://\(server.address)\n")

        let registry = try makeRegistry(
            pluginPaths: values.values("plugin-path"), configPath: values.value("config"), isolate: values.values("isolate"),
            commandPath: values.commandPath)
        // Always traced, for `?trace=1` subscribers; the --output file has trace lines only with --trace.
        let settings = RunSettings(
            frameRate: frameRate, duration: .untilStopped, maximumDuration: document.maximumDuration, isTracing: true)
        let runner = SceneRunner(document: document, settings: settings, registry: registry)
        if let host = registry as? PluginHost {
            runner.takePluginFailures = { host.takeFailures(restartingIn: $0) }
            runner.keepsPlansForRestarts = host.keepsPlansForRestarts
            runner.takePendingWorkFailures = { host.takePendingWorkFailures() }
        }
        if values.flag("watch") {
            runner.hotReload = try HotReload(registry: registry)
            runner.onError = { CommandLineTool.writeStandardError("error: \($0)\n") }
        }
        let clock = RealTimeFrameClock(frameRate: frameRate)
        runner.clock = clock
        var sensorFeed: LiveDeviceMotionFeed?
        switch deviceMotion {
        case .sensorLogger(let frame, let isAndroid):
            sensorFeed = LiveDeviceMotionFeed(referenceFrame: frame, isAndroid: isAndroid)
        case .iio(let source):
            sensorFeed = LiveDeviceMotionFeed(iio: source) { Double(clock.clock.dueTime(ofFrame: 0)) / 1e9 }
        case .recording(let source):
            runner.hooks.append(try makeDeviceMotionHook(for: source, scenePath: scenePath))
        case nil:
            if let source = document.deviceMotion {
                runner.hooks.append(try makeDeviceMotionHook(for: source, scenePath: scenePath))
            }
        }
        runner.hooks.insert(
            LiveFrameHook(server: server, runner: runner, clock: clock, frameRate: frameRate, sensorFeed: sensorFeed),
            at: 0)

        let live = LiveTimelineOutput(server: server)
        runner.sinks.append(
            TraceFilteringSink(JSONLinesTimelineWriter(output: live)) { [server] in server.hasTraceSubscribers })
        let output = try values.value("output").map { path throws(MotionHostError) in try TextOutput(path: path) }
        if let output {
            let writer = JSONLinesTimelineWriter(output: output)
            runner.sinks.append(values.flag("trace") ? writer : TraceFilteringSink(writer))
        }
        // Every frame's lines go out at once; the file is flushed too, so a crash keeps what was written.
        runner.onFrame = { _ in
            live.flush()
            output?.flush()
        }
        runner.onLinesBetweenFrames = {
            live.flush()
            output?.flush()
        }

        // As in run: a failure that does not end the run (a queued emission, a wire transaction, a device that
        // stopped) is an error line in the timeline and one on standard error.
        runner.onError = { CommandLineTool.writeStandardError("error: \($0)\n") }
        // A live host stays up: a scene transaction that fails (or whose performer fails with an emission)
        // is reported the same way, and the scene's later transactions and the wire go on.
        runner.keepsRunningAfterFailedCommits = true
        runner.takesOutsideTransactions = true
        defer { sensorFeed?.stop() }
        let signals = StopSignals { clock.requestStop(.interrupted) }
        defer { signals.cancel() }
        var runError: MotionHostError?
        do {
            _ = try runner.run()
        } catch {
            runError = error
        }
        live.flush()
        try output?.close()
        if let runError { throw runError }
        return runner.pluginFailures.isEmpty ? 0 : 2
    }
}

/// SIGINT and SIGTERM, caught on a dispatch queue (not in a signal handler) while `serve` runs.
final class StopSignals {
    private let sources: [any DispatchSourceSignal]

    /// Catches the signals and calls `stop` for each one.
    init(stop: @escaping @Sendable () -> Void) {
        // Inherited blocked, they would stay pending and serve would never stop (seen when started by a test).
        cmotionhost_unblock_interrupts()
        let queue = DispatchQueue(label: "motion-host.signals")
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: stop)
            source.resume()
            return source
        }
    }

    /// Stops catching them (the default actions return).
    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// `serve --device-motion SOURCE`, which replaces the scene's own `deviceMotion.recording`.
enum DeviceMotionChoice {
    /// `sensorlogger` (an Android phone) or `sensorlogger:ios`: `POST /sensorlogger` pushes.
    case sensorLogger(ReferenceFrame, isAndroid: Bool)
    /// A recording file or folder, played in real time.
    case recording(DeviceMotionSource)
    /// `iio` or `iio:DEVICE`: the kernel's IIO sensors, polled at 100 Hz (``IIOLiveSource``).
    case iio(IIOLiveSource)

    /// Reads the option; the reference frame is the scene's `deviceMotion.referenceFrame`, else
    /// `xArbitraryZVertical`.
    /// - Throws: ``UsageError`` naming the value and what is expected.
    init(_ text: String, scene: SceneDocument, commandPath: [String]) throws(UsageError) {
        let frameName = scene.deviceMotion?.referenceFrame ?? "xArbitraryZVertical"
        guard let frame = ReferenceFrame(name: frameName), frame != .xTrueNorthZVertical || !text.hasPrefix("sensorlogger")
        else {
            throw UsageError(
                message:
                    "The value '\(text)' is invalid for '--device-motion <source>': the scene's reference frame \(frameName) needs a location, which Sensor Logger pushes do not give; use xMagneticNorthZVertical",
                commandPath: commandPath)
        }
        switch text {
        case "sensorlogger", "sensorlogger:android": self = .sensorLogger(frame, isAndroid: true)
        case "sensorlogger:ios": self = .sensorLogger(frame, isAndroid: false)
        case "iio",
            _ where text.hasPrefix("iio:"):
            do throws(LiveRefusal) {
                self = .iio(try IIOLiveSource(device: text == "iio" ? nil : String(text.dropFirst(4)), referenceFrame: frame))
            } catch {
                throw UsageError(
                    message: "The value '\(text)' is invalid for '--device-motion <source>': \(error.message)",
                    commandPath: commandPath)
            }
        default:
            guard !text.hasPrefix("sensorlogger") else {
                throw UsageError(
                    message:
                        "The value '\(text)' is invalid for '--device-motion <source>': expected sensorlogger, sensorlogger:ios, iio[:DEVICE] or a recording file",
                    commandPath: commandPath)
            }
            guard FileManager.default.fileExists(atPath: text) else {
                throw UsageError(
                    message: "The value '\(text)' is invalid for '--device-motion <source>': no recording at this path",
                    commandPath: commandPath)
            }
            self = .recording(DeviceMotionSource(recording: text, resolvedPath: text, referenceFrame: frameName))
        }
    }
}

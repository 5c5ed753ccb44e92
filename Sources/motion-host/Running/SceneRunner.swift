import MotionCore
import MotionHost

/// Called once per frame, after the frame's scene transactions were committed and before the
/// scheduler's performer updates: the place to deliver device-motion samples for that frame.
protocol FrameHook: AnyObject {
    /// Prepares a frame.
    /// - Parameters:
    ///   - time: The frame's time, seconds since the start of the run.
    ///   - scheduler: The run's scheduler (on its thread).
    /// - Throws: Any error; the run fails with it, naming the frame.
    func beforeFrame(time: Double, scheduler: Scheduler) throws
}

/// The settings of one run: a scene's values, possibly overridden on the command line.
struct RunSettings {
    /// Frames per second.
    var frameRate: Double
    /// The run length.
    var duration: SceneDuration
    /// The safety limit of an `untilIdle` run, seconds.
    var maximumDuration: Double
    /// Whether every tracer event goes to the timeline.
    var isTracing: Bool
}

/// Runs a scene on a simulated clock, frame by frame, and streams its timeline to sinks.
///
/// Frame `i` is at `i / frameRate` seconds. Each frame:
/// 0. with ``hotReload`` (`--watch`), plugins whose files changed are reloaded (a `reload` or `error` line);
/// 1. every scene transaction due (its `at` ≤ the frame's time, within 1 ns) and not yet committed is
///    committed, in time order and then file order;
/// 2. every ``FrameHook`` runs (`beforeFrame(time:scheduler:)`);
/// 3. `scheduler.advanceFrame(to:)` applies pending work and updates the active performers; a queued
///    emission (made on another thread) that fails is reported (an `error` line, ``onError``) and the run
///    goes on;
/// 4. `scene.drainChanges()` gives the frame's changes, written if there are any.
///
/// Activity transitions and (when tracing) tracer events are written as they happen, at the frame in
/// which they happen. The run stops after the last frame whose time is ≤ the duration, or, for
/// `untilIdle`, after the first frame that ends idle with every transaction committed; an `untilIdle`
/// run still going past `maximumDuration` fails. ``isInterrupted`` is asked at every frame boundary.
final class SceneRunner {
    /// The scene being run.
    let document: SceneDocument
    /// Frame rate, duration and tracing.
    let settings: RunSettings
    /// Where plan types find their performers.
    let registry: any PerformerRegistry
    /// Called before each frame's performer updates.
    var hooks: [any FrameHook] = []
    /// Where the timeline goes.
    var sinks: [any TimelineSink] = []
    /// Called after every frame (for the progress line and the per-frame flush of the timeline).
    var onFrame: ((TimelinePoint) -> Void)?
    /// Called with each failure that does not end the run (a queued emission that failed), after its
    /// `error` line was written: the CLI prints it to standard error.
    var onError: ((MotionHostError) -> Void)?
    /// Scene transactions that failed after some of their operations were applied (R12).
    private var partlyCommitted = 0
    /// Whether a scene transaction that fails (its own plan, or a transaction one of its performers
    /// emitted and then failed with) is reported (an `error` line, ``onError``) and the run goes on, instead
    /// of ending the run: `serve` stays up, `run` stops.
    var keepsRunningAfterFailedCommits = false
    /// Scene transactions that failed when ``keepsRunningAfterFailedCommits`` let the run go on.
    private var failedCommits = 0
    /// Transactions committed from outside the scene so far (``commitFromOutside(_:source:arrivedAt:scheduler:)``).
    private var outsideCommits = 0
    /// How many of those failed.
    private var failedOutsideCommits = 0
    /// Whether the run takes transactions from outside the scene (`serve`): its summary then counts them
    /// (`wireTransactions`), zero or not.
    var takesOutsideTransactions = false
    /// Paces the frames: simulated (as fast as they run) unless replaced, e.g. by a ``RealTimeFrameClock``.
    var clock: any FrameClock = SimulatedFrameClock()
    /// Called as every frame begins, before anything of it is written (to publish the frame to the
    /// timeline's last words).
    var onFrameStart: ((TimelinePoint) -> Void)?
    /// Asked at every frame boundary: `true` stops the run there, with the summary's `stoppedBecause`
    /// `interrupted` (SIGINT, SIGTERM).
    var isInterrupted: () -> Bool = { false }
    /// Asked after every commit and every frame, with the run's scheduler (between frames, on its thread): the
    /// isolated plugins that failed since the last call (their performers have ended already, or were re-created in a
    /// restarted sandbox, ``PluginHost/takeFailures(restartingIn:)``). Each is written as an `error` line and listed in
    /// the summary; the run goes on.
    var takePluginFailures: (Scheduler) -> [PluginFailure] = { _ in [] }
    /// Whether the scheduler keeps its performers' plans for R43 though there is no ``hotReload``: a plugin that is
    /// restarted after a crash (`"onCrash": "restart"`) is given them again.
    var keepsPlansForRestarts = false
    /// Asked with ``takePluginFailures`` and after reloads: queued work (a transaction emitted on another thread) that
    /// a reload or restart performed before it replaced performers, and that failed
    /// (``PluginHost/takePendingWorkFailures()``); each is reported as a queued emission that failed in a frame.
    var takePendingWorkFailures: () -> [CommitError] = { [] }
    /// The failures written so far.
    private(set) var pluginFailures: [PluginFailure] = []
    /// `--watch`: reloads changed plugins as each frame begins, before its transactions, and, with a clock that
    /// waits for its frames (``FrameClock/requestWorkBetweenFrames``), as soon as a reload is prepared while it waits:
    /// then the `reload` line names the frame that comes next and is written at once (``onLinesBetweenFrames``).
    var hotReload: HotReload?
    /// Called after lines were written between two frames (a reload applied while the clock waited), so that the
    /// command passes them on at once rather than with the next frame's (``onFrame``).
    var onLinesBetweenFrames: (() -> Void)?

    private var point = TimelinePoint(frame: 0, time: 0)
    /// Each target's index in the scene (and the header), by the target object's identity.
    private var targetIndices: [ObjectIdentifier: Int32] = [:]
    /// The scene's targets' identities, in scene order.
    private var sceneTargets: [ObjectIdentifier] = []
    /// The storage of a frame's changes, reused from frame to frame (`nil` before the run and while lent).
    private var frameChanges: TimelineChanges?
    /// Set once the summary is written: events after it (the scheduler terminating tokens as it goes
    /// away) are not part of the timeline.
    private var isFinished = false

    /// A runner; nothing runs until ``run()``.
    init(document: SceneDocument, settings: RunSettings, registry: any PerformerRegistry) {
        self.document = document
        self.settings = settings
        self.registry = registry
    }

    /// Runs the scene to its end.
    /// - Returns: The summary also written to the sinks.
    /// - Throws: ``MotionHostError`` `.commitFailed`, `.emissionFailed` or `.safetyLimit` (or a hook's
    ///   failure), after the timeline up to the failure, a failure line and the summary were written.
    func run() throws(MotionHostError) -> TimelineSummary {
        let scene = Scene()
        for target in document.targets {
            scene.addTarget(
                TargetID(target.name), properties: Dictionary(target.properties.map { ($0.name, $0.value) }) { $1 })
        }
        sceneTargets = scene.targets.map(ObjectIdentifier.init)
        for (i, target) in sceneTargets.enumerated() { targetIndices[target] = Int32(i) }
        frameChanges = TimelineChanges(
            names: TimelineNames(targets: document.targets.map(\.name)) { scene.propertyName($0) })
        let scheduler = Scheduler(scene: scene, registry: registry)
        // Hot reload gives re-created performers their plans again (R43): only then are they kept.
        scheduler.recordsPlansForRecreation = hotReload != nil || keepsPlansForRestarts
        let relay = EventRelay(runner: self)
        scheduler.addActivityObserver(relay)
        // Always a tracer: emissions reach the sinks (a plot marks them); every event only with --trace.
        scheduler.addTracer(relay)

        let header = TimelineHeader(
            scenePath: document.path, name: document.name, frameRate: settings.frameRate,
            duration: settings.duration, maximumDuration: settings.maximumDuration, targets: document.targets,
            units: document.units)
        for sink in sinks { sink.begin(header) }

        // Stable: equal times keep file order.
        let due = document.transactions.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map(\.element)
        var next = 0
        var frame = 0
        let tolerance = 1e-9
        clock.start()
        // A reload prepared while the clock waits is applied then, not at the next frame's start (issue 14's goal:
        // applied within 2 frames of the library being complete on disk).
        if let hotReload, let request = clock.requestWorkBetweenFrames { hotReload.setOnPreparedWork(request) }
        defer { hotReload?.setOnPreparedWork(nil) }
        while true {
            let time = Double(frame) / settings.frameRate
            if case .seconds(let duration) = settings.duration, time > duration + tolerance { break }
            point = TimelinePoint(frame: frame, time: time)
            if isInterrupted() {
                return finish(scene: scene, scheduler: scheduler, committed: next, frames: frame, reason: .interrupted)
            }
            onFrameStart?(point)
            if let hotReload { applyReloads(hotReload, scheduler: scheduler) }
            if settings.duration == .untilIdle, time > settings.maximumDuration + tolerance {
                let remaining = due.count - next
                let reason =
                    remaining > 0
                    ? "\(remaining) transaction\(remaining == 1 ? "" : "s") not yet committed"
                    : "\(scheduler.outstandingTokenCount) is-active token\(scheduler.outstandingTokenCount == 1 ? "" : "s") still held, by "
                        + scheduler.tokenHolders.map { "\($0.performer)" + ($0.tokens > 1 ? " (\($0.tokens))" : "") }.joined(separator: ", ")
                throw fail(
                    MotionHostError(
                        .safetyLimit, file: document.path,
                        "$.maximumDuration: the run was not idle by the safety limit of \(JSONText.number(settings.maximumDuration)) s (\(reason)). To fix, raise maximumDuration, or check that every performer terminates its is-active tokens."
                    ),
                    scene: scene, scheduler: scheduler, committed: next, frames: frame)
            }
            while next < due.count, due[next].at <= time + tolerance {
                let timed = due[next]
                let commit = TimelineCommit(index: timed.index, at: timed.at, transaction: timed.transaction)
                for sink in sinks { sink.commit(commit, at: point) }
                do {
                    try scheduler.commit(timed.transaction)
                } catch {
                    reportPluginFailures(scheduler)
                    // Operations before the failing one stay applied (R12): the summary counts the
                    // transaction as partly committed, and the line says how much of it was applied.
                    if error.appliedOperationCount > 0 { partlyCommitted += 1 }
                    let failure = MotionHostError(
                        .commitFailed, file: document.path,
                        "$.transactions[\(timed.index)] (at \(JSONText.number(timed.at)) s, frame \(frame))\(Self.applied(error)): \(error)",
                        underlying: error)
                    guard keepsRunningAfterFailedCommits else {
                        throw fail(failure, scene: scene, scheduler: scheduler, committed: next, frames: frame + 1)
                    }
                    report(failure)
                    failedCommits += 1
                }
                next += 1
                reportPluginFailures(scheduler)
            }
            for hook in hooks {
                do {
                    try hook.beforeFrame(time: time, scheduler: scheduler)
                } catch let error as MotionHostError {
                    throw fail(error, scene: scene, scheduler: scheduler, committed: next, frames: frame + 1)
                } catch {
                    throw fail(
                        MotionHostError(
                            .frameHookFailed, file: document.path,
                            "frame \(frame) (t = \(JSONText.number(time)) s): \(error)",
                            underlying: error),
                        scene: scene, scheduler: scheduler, committed: next, frames: frame + 1)
                }
            }
            // A queued emission (from a plugin's own thread) that fails is the performer's failure, not the
            // run's: the header's emit_transaction said only "queued". Reported, and the run goes on.
            for error in scheduler.advanceFrame(to: time) { report(queuedEmissionFailure(error)) }
            reportPluginFailures(scheduler)
            writeChanges(scene)
            onFrame?(point)
            if settings.duration == .untilIdle, next == due.count, !scheduler.isActive {
                return finish(scene: scene, scheduler: scheduler, committed: next, frames: frame + 1, reason: .idle)
            }
            let upcoming = frame + 1
            let following = clock.nextFrame(after: frame) {
                guard let hotReload, hotReload.hasPreparedWork else { return }
                // After the run's last frame no frame comes: not applied (as a reload at the start of a frame past the
                // duration is not), so that no line names a frame the run does not have.
                let upcomingTime = Double(upcoming) / settings.frameRate
                if case .seconds(let duration) = settings.duration, upcomingTime > duration + tolerance { return }
                // Between frames, before the next one's transactions, as at its start: its lines' point is the next
                // frame's. The run's own point stays the last frame's (the summary counts the frames run from it).
                let last = point
                defer { point = last }
                point = TimelinePoint(frame: upcoming, time: upcomingTime)
                onFrameStart?(point)
                applyReloads(hotReload, scheduler: scheduler)
                reportPluginFailures(scheduler)
                onLinesBetweenFrames?()
            }
            guard let following else {
                return finish(scene: scene, scheduler: scheduler, committed: next, frames: frame + 1, reason: clock.stopReason)
            }
            frame = following
        }
        return finish(scene: scene, scheduler: scheduler, committed: next, frames: point.frame + 1, reason: .duration)
    }

    /// Commits, at the current frame, a transaction that came from outside the scene (`serve`'s wire), as a
    /// scene transaction is committed: its `commit` line first (with its `source`, its number among those
    /// from outside, and the time it arrived), then the commit. A failure does not end the run: operations
    /// before the failing one stay applied (R12), it is an `error` line and ``onError``, and the caller
    /// answers the client with it.
    /// - Parameters:
    ///   - transaction: The transaction (checked against the scene's targets already).
    ///   - source: `"http"` or `"websocket"`.
    ///   - time: When it arrived, seconds on the run's clock.
    ///   - scheduler: The run's scheduler (on its thread), as handed to a ``FrameHook``.
    /// - Returns: `nil` when committed, else the scheduler's error.
    func commitFromOutside(
        _ transaction: Transaction, source: String, arrivedAt time: Double, scheduler: Scheduler
    ) -> CommitError? {
        let index = outsideCommits
        outsideCommits += 1
        let commit = TimelineCommit(index: index, at: time, transaction: transaction, source: source)
        for sink in sinks { sink.commit(commit, at: point) }
        do {
            try scheduler.commit(transaction)
            return nil
        } catch {
            failedOutsideCommits += 1
            report(
                MotionHostError(
                    .commitFailed,
                    "frame \(point.frame) (t = \(JSONText.number(point.time)) s): transaction \(index) from \(source == "http" ? "POST /transactions" : "the timeline WebSocket") (arrived at \(JSONText.number(time)) s) failed\(Self.applied(error)): \(error)",
                    underlying: error))
            return error
        }
    }

    /// `" after its first N operations were applied …"` when a failed transaction had some applied, else "".
    private static func applied(_ error: CommitError) -> String {
        let count = error.appliedOperationCount
        switch count {
        case 0: return ""
        case 1: return " after its first operation was applied (it stays applied)"
        default: return " after its first \(count) operations were applied (they stay applied)"
        }
    }

    /// Writes an `error` line for each isolated plugin that failed since the last look (a restart, if due, is made
    /// there).
    private func reportPluginFailures(_ scheduler: Scheduler) {
        for failure in takePluginFailures(scheduler) {
            pluginFailures.append(failure)
            report(
                MotionHostError(
                    .pluginFailed, file: document.path, "frame \(point.frame) (t = \(JSONText.number(point.time)) s): \(failure)"))
        }
        reportPendingWorkFailures()
    }

    /// Reports the queued emissions that failed when a reload or restart performed them.
    private func reportPendingWorkFailures() {
        for error in takePendingWorkFailures() { report(queuedEmissionFailure(error)) }
    }

    /// The `error` of a transaction emitted on another thread that failed when it was performed.
    private func queuedEmissionFailure(_ error: CommitError) -> MotionHostError {
        MotionHostError(
            .emissionFailed, file: document.path,
            "frame \(point.frame) (t = \(JSONText.number(point.time)) s): a transaction emitted from another thread failed\(Self.applied(error)): \(error)",
            underlying: error)
    }

    /// Reloads the plugins whose files changed: a `reload` line for each one applied, an `error` line (and
    /// ``onError``) for each one refused, whose old code keeps running, and for each performer or plan that
    /// could not be carried over.
    private func applyReloads(_ hotReload: HotReload, scheduler: Scheduler) {
        defer { reportPendingWorkFailures() }
        for outcome in hotReload.apply(scheduler: scheduler) {
            switch outcome {
            case .reloaded(let reload, let manifest):
                let line = TimelineReload(
                    pluginID: reload.pluginID, manifest: manifest, library: reload.libraryPath, sha256: reload.sha256,
                    performers: reload.recreation.recreated.count, plans: reload.recreation.readdedPlanCount,
                    failures: reload.recreation.failures.count)
                for sink in sinks { sink.reload(line, at: point) }
                for failure in reload.recreation.failures {
                    report(
                        MotionHostError(
                            .reloadFailed, file: manifest,
                            "frame \(point.frame) (t = \(JSONText.number(point.time)) s): after plugin \(reload.pluginID) was reloaded, \(failure)",
                            underlying: failure))
                }
            case .refused(let pluginID, let error, let wasLoaded):
                let outcome = wasLoaded ? "was not reloaded, its old code keeps running" : "still does not load (its first load failed)"
                report(
                    MotionHostError(
                        .reloadFailed,
                        "frame \(point.frame) (t = \(JSONText.number(point.time)) s): plugin \(pluginID) \(outcome): \(error)",
                        underlying: error))
            }
        }
    }

    /// A failure that does not end the run: an `error` line in the timeline (at the current frame), and
    /// ``onError``.
    func report(_ error: MotionHostError) {
        for sink in sinks { sink.failure(error.description, at: point) }
        onError?(error)
    }

    /// Hands the frame's changes to the sinks, as target indices and property ids (``TimelineChanges``):
    /// linear in the number of changes, with no string work here.
    private func writeChanges(_ scene: Scene) {
        guard var changes = frameChanges else { return }
        frameChanges = nil  // the sinks get the only reference: no copy when the next frame reuses it
        changes.removeAll()
        // A change's target is usually the one before it or the one after that in scene order (performers
        // update in the order their targets were given plans): check those with one comparison each, and
        // look the target up only when neither matches.
        var last: ObjectIdentifier?
        var index: Int32 = -1
        scene.drainChanges { target, property, value in
            let id = ObjectIdentifier(target)
            if id != last {
                last = id
                let following = Int(index) + 1
                if following < sceneTargets.count, sceneTargets[following] == id {
                    index = Int32(following)
                } else if let found = targetIndices[id] {
                    index = found
                } else {
                    preconditionFailure("a change of a target that is not the scene's (\(target.id.name))")
                }
            }
            changes.append(target: index, property: property, value: value)
        }
        if !changes.isEmpty {
            for sink in sinks { sink.frame(point, changes: changes) }
        }
        frameChanges = changes
    }

    private func fail(
        _ error: MotionHostError, scene: Scene, scheduler: Scheduler, committed: Int, frames: Int
    ) -> MotionHostError {
        writeChanges(scene)
        for sink in sinks { sink.failure(error.description, at: point) }
        let reason: StopReason = error.code == .safetyLimit ? .safetyLimit : .error
        _ = finish(scene: scene, scheduler: scheduler, committed: committed, frames: frames, reason: reason)
        return error
    }

    private func finish(
        scene: Scene, scheduler: Scheduler, committed: Int, frames: Int, reason: StopReason
    ) -> TimelineSummary {
        let summary = TimelineSummary(
            frames: frames, duration: Double(max(frames - 1, 0)) / settings.frameRate,
            committedTransactions: committed - failedCommits,
            partlyCommittedTransactions: partlyCommitted,
            wireTransactions: takesOutsideTransactions
                ? (committed: outsideCommits - failedOutsideCommits, failed: failedOutsideCommits) : nil,
            finalValues: scene.targets.map { target in
                (target.id.name, target.properties.map { ($0.name, $0.value) })
            },
            isActive: scheduler.isActive, stopReason: reason, droppedFrames: clock.droppedFrames,
            pluginFailures: pluginFailures.map(\.description))
        for sink in sinks { sink.end(summary) }
        isFinished = true
        return summary
    }

    fileprivate func relay(activity isActive: Bool) {
        guard !isFinished else { return }
        for sink in sinks { sink.activity(isActive: isActive, at: point) }
    }

    fileprivate func relay(trace event: TraceEvent) {
        guard !isFinished else { return }
        if case .emitted(let transaction, let performer, _) = event {
            for sink in sinks { sink.emitted(transaction, by: performer, at: point) }
        }
        guard settings.isTracing else { return }
        for sink in sinks { sink.trace(event, at: point) }
    }
}

/// Passes the scheduler's activity changes and tracer events to the runner's sinks, stamped with the
/// current frame. Holds the runner weakly: the scheduler holds its observers strongly.
private final class EventRelay: ActivityObserver, Tracer {
    weak var runner: SceneRunner?

    init(runner: SceneRunner) { self.runner = runner }

    func schedulerActivityDidChange(isActive: Bool) { runner?.relay(activity: isActive) }

    func trace(_ event: TraceEvent) { runner?.relay(trace: event) }
}

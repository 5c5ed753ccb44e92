import FoundationEssentials
import MotionCore
import MotionLive

/// `serve`'s frame boundary: before each frame's performer updates, every request that came over the wire
/// since the last frame is taken from the ``LiveServer``'s inbox, in arrival order, on the frame loop's
/// thread (the scheduler's thread), and answered:
/// - a transaction is committed as the runner commits a scene's (a `commit` line with `"source": "http"` or
///   `"websocket"` first, ``SceneRunner/commitFromOutside(_:source:arrivedAt:scheduler:)``) and answered
///   (`200 {"committed": true, "frame": N}`), or refused with the commit's error (`422`, `frame N (t = T s):
///   <the scheduler's error>`; operations before the failing one stay applied, as in a scene; the timeline
///   gets an `error` line and the run goes on);
/// - a state request gets ``stateJSON(frame:time:scheduler:)``;
/// - a shutdown is answered, then the clock stops the run after this frame.
final class LiveFrameHook: FrameHook {
    private let server: LiveServer
    private let clock: RealTimeFrameClock
    private let frameRate: Double
    /// Where Sensor Logger pushes go (`--device-motion sensorlogger`), if anywhere.
    let sensorFeed: LiveDeviceMotionFeed?

    /// The run whose timeline gets the commits (unowned: the runner holds its hooks and outlives them).
    private unowned let runner: SceneRunner

    init(
        server: LiveServer, runner: SceneRunner, clock: RealTimeFrameClock, frameRate: Double,
        sensorFeed: LiveDeviceMotionFeed? = nil
    ) {
        self.server = server
        self.runner = runner
        self.clock = clock
        self.frameRate = frameRate
        self.sensorFeed = sensorFeed
    }

    func beforeFrame(time: Double, scheduler: Scheduler) throws {
        defer {
            if let failure = sensorFeed?.deliver(upTo: time, scheduler: scheduler) {
                runner.report(
                    MotionHostError(
                        .frameHookFailed,
                        "frame \(Int((time * frameRate).rounded())) (t = \(JSONText.number(time)) s): --device-motion \(failure)"))
            }
        }
        let requests = server.drainRequests()
        guard !requests.isEmpty else { return }
        let frame = Int((time * frameRate).rounded())
        for request in requests {
            switch request {
            case .transaction(let transaction, let reply):
                // Arrival on the run's clock: the monotonic time since frame 0 was due.
                let arrived = max(0, (Double(reply.receivedAt) - Double(clock.clock.dueTime(ofFrame: 0))) / 1e9)
                let failure = runner.commitFromOutside(
                    transaction, source: reply.isWebSocket ? "websocket" : "http", arrivedAt: arrived,
                    scheduler: scheduler)
                if let failure {
                    reply.refused(LiveRefusal(422, "frame \(frame) (t = \(JSONText.number(time)) s): \(failure)"))
                } else {
                    reply.committed(frame: frame)
                }
            case .state(let reply):
                reply.succeeded(
                    json: Self.stateJSON(frame: frame, time: time, scheduler: scheduler, deviceMotion: sensorFeed?.stateJSON))
            case .shutdown(let reply):
                reply.succeeded(json: "{\"shutdown\":true,\"frame\":\(frame)}")
                clock.requestStop(.shutdown)
            case .sensorPush(let push, let reply):
                guard let counts = sensorFeed?.add(push, arrivedAt: time) else {
                    reply.refused(LiveRefusal(409, "this server takes no Sensor Logger pushes"))
                    continue
                }
                let ignored = push.ignored.sorted { $0.key < $1.key }.map { "\(JSONText.string($0.key)):\($0.value)" }
                reply.succeeded(
                    json:
                        "{\"accepted\":\(push.samples.count),\"deviceMotionSamples\":\(counts.fused),\"late\":\(counts.late),\"ignored\":{\(ignored.joined(separator: ","))}}"
                )
            }
        }
    }

    /// `GET /state`: `{"frame": N, "time": t, "activity": "active"|"idle", "performers": n,
    /// ("deviceMotion": {...} with a live source,) "targets": {target: {property: value}}}`, values as in the
    /// timeline (a number or an array); `deviceMotion` is ``LiveDeviceMotionFeed/stateJSON``.
    static func stateJSON(frame: Int, time: Double, scheduler: Scheduler, deviceMotion: String? = nil) -> String {
        var json = "{\"frame\":\(frame),\"time\":\(JSONText.number(time))"
        json += ",\"activity\":\"\(scheduler.isActive ? "active" : "idle")\",\"performers\":\(scheduler.performerCount)"
        if let deviceMotion { json += ",\"deviceMotion\":" + deviceMotion }
        json += ",\"targets\":{"
        json += scheduler.scene.targets.map { target in
            JSONText.string(target.id.name) + ":{"
                + target.properties.map { "\(JSONText.string($0.name)):\(JSONLinesTimelineWriter.value($0.value))" }
                .joined(separator: ",") + "}"
        }.joined(separator: ",")
        return json + "}}"
    }
}

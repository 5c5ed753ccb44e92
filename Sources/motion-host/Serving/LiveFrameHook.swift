import Foundation
import MotionCore
import MotionLive

/// `serve`'s frame boundary: before each frame's performer updates, every request that came over the wire
/// since the last frame is taken from the ``LiveServer``'s inbox, in arrival order, on the frame loop's
/// thread (the scheduler's thread), and answered:
/// - a transaction is committed (`200 {"committed": true, "frame": N}`), or refused with the commit's
///   error (`422`, `frame N (t = T s): <the scheduler's error>`; operations before the failing one stay
///   applied, as in a scene);
/// - a state request gets ``stateJSON(frame:time:scheduler:)``;
/// - a shutdown is answered, then the clock stops the run after this frame.
final class LiveFrameHook: FrameHook {
    private let server: LiveServer
    private let clock: RealTimeFrameClock
    private let frameRate: Double
    /// Where Sensor Logger pushes go (`--device-motion sensorlogger`), if anywhere.
    let sensorFeed: LiveDeviceMotionFeed?

    init(server: LiveServer, clock: RealTimeFrameClock, frameRate: Double, sensorFeed: LiveDeviceMotionFeed? = nil) {
        self.server = server
        self.clock = clock
        self.frameRate = frameRate
        self.sensorFeed = sensorFeed
    }

    func beforeFrame(time: Double, scheduler: Scheduler) throws {
        defer { sensorFeed?.deliver(upTo: time, scheduler: scheduler) }
        let requests = server.drainRequests()
        guard !requests.isEmpty else { return }
        let frame = Int((time * frameRate).rounded())
        for request in requests {
            switch request {
            case .transaction(let transaction, let reply):
                do {
                    try scheduler.commit(transaction)
                    reply.committed(frame: frame)
                } catch {
                    reply.refused(LiveRefusal(422, "frame \(frame) (t = \(JSONText.number(time)) s): \(error)"))
                }
            case .state(let reply):
                reply.succeeded(json: Self.stateJSON(frame: frame, time: time, scheduler: scheduler))
            case .shutdown(let reply):
                reply.succeeded(json: "{\"shutdown\":true,\"frame\":\(frame)}")
                clock.requestStop(.shutdown)
            case .sensorPush(let push, let reply):
                guard let sensorFeed else {
                    reply.refused(LiveRefusal(409, "this server takes no Sensor Logger pushes"))
                    continue
                }
                let counts = sensorFeed.add(push, arrivedAt: time)
                let ignored = push.ignored.sorted { $0.key < $1.key }.map { "\(JSONText.string($0.key)):\($0.value)" }
                reply.succeeded(
                    json:
                        "{\"accepted\":\(push.samples.count),\"deviceMotionSamples\":\(counts.fused),\"late\":\(counts.late),\"ignored\":{\(ignored.joined(separator: ","))}}"
                )
            }
        }
    }

    /// `GET /state`: `{"frame": N, "time": t, "activity": "active"|"idle", "performers": n,
    /// "targets": {target: {property: value}}}`, values as in the timeline (a number or an array).
    static func stateJSON(frame: Int, time: Double, scheduler: Scheduler) -> String {
        var json = "{\"frame\":\(frame),\"time\":\(JSONText.number(time))"
        json += ",\"activity\":\"\(scheduler.isActive ? "active" : "idle")\",\"performers\":\(scheduler.performerCount)"
        json += ",\"targets\":{"
        json += scheduler.scene.targets.map { target in
            JSONText.string(target.id.name) + ":{"
                + target.properties.map { "\(JSONText.string($0.name)):\(JSONLinesTimelineWriter.value($0.value))" }
                .joined(separator: ",") + "}"
        }.joined(separator: ",")
        return json + "}}"
    }
}

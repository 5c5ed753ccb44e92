import CMotionABI
import DeviceMotion
import DeviceMotionABI
import Foundation
import MotionCore
import MotionHost
import MotionTesting
import Testing

/// The package root, for the manifests (data only; the built libraries are found next to the test
/// executable, see ``productsDirectory``).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Where `swift build` put `libDeviceMotionKit.so` and `libTweenKit.so`: the folder of the running test
/// executable.
let productsDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

/// A scheduler whose performers come from the real plugin host: DeviceMotionKit (and TweenKit, for the
/// plans a shake emits) loaded with dlopen from the products directory. Samples reach the plugin as
/// `motion_device_motion_sample`s built by DeviceMotionABI and handed over by `deliverDeviceMotion`,
/// exactly as `motion-host` replays a recording.
///
/// The scheduler is made, and committed transactions are performed, on first use after the samples are
/// streamed (see `stream`): the host answers property calls only on the scheduler's thread, and an
/// `await` may resume on another thread, so everything the scheduler does happens in one synchronous
/// stretch after the last `await`.
final class DeviceMotionHarness {
    let scene = Scene()
    private let host: PluginHost
    private var pending: [String] = []
    private var made: Scheduler?
    let tracer = RecordingTracer()
    let activity = RecordingActivityObserver()
    let referenceFrame: ReferenceFrame

    init(
        targets: [(name: String, properties: [String: PropertyValue])],
        referenceFrame: ReferenceFrame = .xArbitraryZVertical
    ) throws {
        for target in targets { scene.addTarget(TargetID(target.name), properties: target.properties) }
        let manifests = try ["devicemotionkit.json", "tweenkit.json"].map { name in
            try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("manifests/\(name)"))
        }
        host = PluginHost(
            catalog: PluginCatalog(plugins: manifests), loader: LibraryLoader(extraLibraryDirectories: [productsDirectory]))
        self.referenceFrame = referenceFrame
    }

    /// The scheduler, made on first use, with the transactions committed so far performed.
    var scheduler: Scheduler {
        if let made { return made }
        let scheduler = Scheduler(scene: scene, registry: host)
        scheduler.addTracer(tracer)
        scheduler.addActivityObserver(activity)
        made = scheduler
        for json in pending {
            do { try scheduler.commit(jsonData: Array(json.utf8)) } catch { Issue.record("commit failed: \(error)") }
        }
        pending.removeAll()
        return scheduler
    }

    /// Commits a transaction given as the runtime's JSON (at once if the scheduler is made, else when it is).
    func commit(_ json: String) throws {
        if let made { try made.commit(jsonData: Array(json.utf8)) } else { pending.append(json) }
    }

    /// Converts one sample with DeviceMotionABI and delivers it to every device-motion performer.
    /// - Returns: How many performers received it.
    @discardableResult
    func deliver(_ motion: DeviceMotion) -> Int {
        var sample = motion_device_motion_sample(motion, referenceFrame: referenceFrame)
        return deliverDeviceMotion(&sample, to: scheduler)
    }

    /// Runs one frame at `time` (s).
    func frame(at time: Double) {
        let errors = scheduler.advanceFrame(to: time)
        #expect(errors.isEmpty, "queued emissions failed: \(errors)")
    }

    /// The components of a target's property, or nil when it has none.
    func value(_ target: String, _ property: String) -> [Double]? {
        scene.target(TargetID(target))?[property]?.components
    }

    /// The transactions performers emitted, in order.
    var emitted: [(transaction: MotionCore.Transaction, by: PerformerDescription)] {
        tracer.events.compactMap { event in
            if case .emitted(let transaction, let by, _) = event { return (transaction, by) }
            return nil
        }
    }

    /// How many is-active tokens were generated and terminated, in trace order.
    var tokenEvents: [String] {
        tracer.events.compactMap { event in
            switch event {
            case .tokenGenerated(_, let performer): "generated \(performer)"
            case .tokenTerminated(_, let performer): "terminated \(performer)"
            default: nil
            }
        }
    }
}

/// Streams samples through a `TestMotionManager`, as Composable Core Motion's README does: the code under
/// test starts device-motion updates, the test sends each sample, and what the stream yields is delivered
/// to the harness's performers. Every sample is received first; then, with no `await` left, each is
/// delivered on this one thread (the host answers property calls only on the scheduler's thread, and an
/// `await` may resume on another).
/// - Parameters:
///   - samples: The samples, in order.
///   - harness: Where each received sample is delivered.
///   - afterEach: Called after each delivery with the sample (for frames or assertions).
func stream(
    _ samples: [DeviceMotion], into harness: DeviceMotionHarness,
    afterEach: (DeviceMotion) throws -> Void = { _ in }
) async throws {
    let test = TestMotionManager()
    let manager = test.manager
    try manager.create("card")
    var updates = manager.startDeviceMotionUpdates("card", harness.referenceFrame).makeAsyncIterator()
    var received: [DeviceMotion] = []
    for sample in samples {
        #expect(test.send(sample) == 1)
        received.append(try #require(try await updates.next()))
    }
    try manager.stopDeviceMotionUpdates("card")
    #expect(received == samples)
    let started = test.requests.map { request -> ReferenceFrame? in
        if case .deviceMotion(let frame, _) = request { return frame }
        return nil
    }
    #expect(started == [harness.referenceFrame])
    for sample in received {
        #expect(harness.deliver(sample) > 0, "no device-motion performer received the sample")
        try afterEach(sample)
    }
}

/// A sample with the given attitude, gravity and user acceleration (rotation rate 0).
func motion(
    attitude: Quaternion = .identity, gravity: (Double, Double, Double) = (0, 0, -1),
    userAcceleration: (Double, Double, Double) = (0, 0, 0), at timestamp: Double
) -> DeviceMotion {
    DeviceMotion(
        attitude: Attitude(quaternion: attitude),
        gravity: Acceleration(x: gravity.0, y: gravity.1, z: gravity.2),
        userAcceleration: Acceleration(x: userAcceleration.0, y: userAcceleration.1, z: userAcceleration.2),
        rotationRate: RotationRate(x: 0, y: 0, z: 0), timestamp: timestamp)
}

/// Whether two vectors agree to `tolerance` in every component.
func isClose(_ a: [Double]?, _ b: [Double], tolerance: Double = 1e-12) -> Bool {
    guard let a, a.count == b.count else { return false }
    return zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
}

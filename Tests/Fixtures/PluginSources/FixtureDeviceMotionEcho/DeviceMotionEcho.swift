// A plugin (through MotionPluginKit) whose performer copies each device-motion sample into properties
// of its target: "gravity" [x, y, z] (g), "rotationRate" [x, y, z] (rad/s), "attitude" [x, y, z, w],
// "heading" (degrees), "referenceFrame", "timestamp" (s), and counts them: "samples" (received) and
// "outOfOrder" (received with a timestamp before the previous one's). It exercises the
// motion.device-motion/1 extension end to end, and lets the live host's tests and benchmark observe what
// reached a performer.
// Manifest: Tests/Fixtures/plugins/device-motion-echo.json.

import MotionPluginKit

/// `{"type": "EchoDeviceMotion"}`: start echoing (the performer echoes from creation; the plan creates it).
struct EchoDeviceMotion: PluginPlan {
    static let type = "EchoDeviceMotion"
}

final class EchoPerformer: PluginPerformer, DeviceMotionReceiving {
    static let planTypes: [any PluginPlan.Type] = [EchoDeviceMotion.self]

    private let context: PerformerContext
    private var samples = 0
    private var outOfOrder = 0
    private var lastTimestamp = -Double.infinity

    init(context: PerformerContext) {
        self.context = context
    }

    func add(_ plan: any PluginPlan) throws {}

    func receive(sample: DeviceMotionSample) {
        samples += 1
        if sample.timestamp < lastTimestamp { outOfOrder += 1 }
        lastTimestamp = sample.timestamp
        do {
            try set("gravity", [sample.gravity.x, sample.gravity.y, sample.gravity.z])
            try set("rotationRate", [sample.rotationRate.x, sample.rotationRate.y, sample.rotationRate.z])
            try set("attitude", [sample.attitude.x, sample.attitude.y, sample.attitude.z, sample.attitude.w])
            try set("heading", [sample.heading])
            try set("referenceFrame", [Double(sample.referenceFrame.rawValue)])
            try set("timestamp", [sample.timestamp])
            try set("samples", [Double(samples)])
            try set("outOfOrder", [Double(outOfOrder)])
        } catch {
            context.log(.error, "cannot echo the sample: \(error)")
        }
    }

    private func set(_ name: String, _ values: [Double]) throws(PluginError) {
        try context.setValue(values, of: context.propertyID(named: name))
    }
}

@c(motion_plugin_entry)
public func motionPluginEntry(_ version: UInt32, _ host: UnsafePointer<motion_host_v1>?)
    -> UnsafePointer<motion_plugin_v1>?
{
    unsafe MotionPlugin(id: "org.motion.fixtures.device-motion-echo", performers: [EchoPerformer.self])
        .export(hostVersion: version, host: host)
}

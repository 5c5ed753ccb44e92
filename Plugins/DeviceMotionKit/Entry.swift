import MotionPluginKit

/// The plugin's only exported symbol (see `Plugins/entry-only.map`).
@c(motion_plugin_entry)
public func motionPluginEntry(_ version: UInt32, _ host: UnsafePointer<motion_host_v1>?)
    -> UnsafePointer<motion_plugin_v1>?
{
    unsafe MotionPlugin(
        id: "org.motion.devicemotionkit",
        performers: [TiltablePerformer.self, VerticalMotionPerformer.self, ShakeDetectorPerformer.self]
    ).export(hostVersion: version, host: host)
}

import MotionPluginKit

/// The plugin's only exported symbol (see `Plugins/entry-only.map`).
@c(motion_plugin_entry)
public func motionPluginEntry(_ version: UInt32, _ host: UnsafePointer<motion_host_v1>?)
    -> UnsafePointer<motion_plugin_v1>?
{
    unsafe MotionPlugin(
        id: "org.motion.tweenkit",
        performers: [TweenPerformer.self, FadePerformer.self, SpringPerformer.self]
    ).export(hostVersion: version, host: host)
}

import MotionCore

/// Makes the frame hook that delivers a scene's device-motion samples to the scheduler before each
/// frame's performer updates.
///
/// The device-motion delivery (recording readers, the `motion.device-motion/1` sample hand-over)
/// replaces this file; in this build a scene with a `deviceMotion` source cannot run.
///
/// - Parameters:
///   - source: The scene's `deviceMotion` source (recording path resolved, reference frame).
///   - scenePath: The scene file's path as given, for error messages.
/// - Returns: The hook the runner calls with each frame's time.
/// - Throws: ``MotionHostError`` `.notAvailable` naming `$.deviceMotion`.
func makeDeviceMotionHook(for source: DeviceMotionSource, scenePath: String) throws(MotionHostError) -> any FrameHook {
    throw MotionHostError(
        .notAvailable, file: scenePath,
        "$.deviceMotion: device-motion playback is not available in this build, so \(JSONText.quoted(source.recording)) cannot be played. To fix, remove deviceMotion from the scene or use a build with device-motion support."
    )
}

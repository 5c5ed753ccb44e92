import MotionPluginKit

/// The is-active token of a device-motion performer: taken on the first sample, held while samples
/// stream, released when no sample arrived for `timeout` seconds of frames, or when the performer's last
/// plan goes (``stop(_:)``).
///
/// Samples arrive before each frame's update (`motion.device-motion/1` is called between frames), so a
/// frame that saw no sample since the previous one counts towards the timeout.
struct StreamActivity {
    private var token = ActivityToken()
    private var sampleArrived = false
    /// The time (s, frame clock) of the last frame that followed a sample.
    private var lastSampleFrameTime: Double?

    /// Whether a token is held.
    var isHeld: Bool { token.isHeld }

    /// Notes a sample and takes a token if none is held.
    /// - Parameter context: the performer's context.
    mutating func sampleReceived(_ context: PerformerContext) {
        sampleArrived = true
        token.hold(context)
    }

    /// Releases the token once `timeout` seconds of frames passed without a sample.
    /// - Parameters:
    ///   - frame: the frame being updated.
    ///   - timeout: s, > 0.
    ///   - context: the performer's context.
    mutating func update(frame: Frame, timeout: Double, _ context: PerformerContext) {
        if sampleArrived || lastSampleFrameTime == nil {
            sampleArrived = false
            lastSampleFrameTime = frame.time
        } else if let last = lastSampleFrameTime, frame.time - last >= timeout - 1e-9 {
            stop(context)
        }
    }

    /// Terminates the token, if any, and forgets the stream.
    /// - Parameter context: the performer's context, for logging a failure.
    mutating func stop(_ context: PerformerContext) {
        sampleArrived = false
        lastSampleFrameTime = nil
        token.release(context)
    }
}

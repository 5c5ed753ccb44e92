import Dispatch
import FoundationEssentials

/// One frame: its index, its time and the time since the previous frame.
///
/// Thread rule: a value type; safe to use from any thread.
public struct Frame: Hashable, Sendable {
    /// The frame's index, counting from 0 for the first frame a scheduler runs.
    public var index: Int
    /// The frame's time, seconds since the clock's origin.
    public var time: Double
    /// Seconds since the previous frame (0 for the first frame).
    public var delta: Double

    /// A frame.
    public init(index: Int, time: Double, delta: Double) {
        self.index = index
        self.time = time
        self.delta = delta
    }
}

/// A source of time for a frame loop, in seconds since the clock's origin.
///
/// Two clocks conform: ``RealTimeClock`` (the system's monotonic clock) and, for tests and simulated runs,
/// DeviceMotion's `SimulatedClock` (a Swift `Clock` that moves only when told; MotionTesting makes it a
/// `FrameClock`). One simulated clock can so pace a recording's replay and a scheduler's frames together.
public protocol FrameClock: AnyObject {
    /// The current time, seconds since the clock's origin.
    var elapsedSeconds: Double { get }
}

/// A clock that reads the system's monotonic clock (`CLOCK_MONOTONIC`), with its origin at creation.
///
/// Thread rule: safe to read from any thread.
public final class RealTimeClock: FrameClock, Sendable {
    private let origin: UInt64

    /// A clock whose origin is now.
    public init() { origin = DispatchTime.now().uptimeNanoseconds }

    /// Seconds since this clock was created.
    public var elapsedSeconds: Double { Double(DispatchTime.now().uptimeNanoseconds - origin) / 1e9 }
}

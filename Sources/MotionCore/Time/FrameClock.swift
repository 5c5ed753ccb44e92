import Foundation

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
public protocol FrameClock: AnyObject {
    /// The current time, seconds since the clock's origin.
    var now: Double { get }
}

/// A clock that moves only when told: for tests and for the CLI's simulated runs.
///
/// Thread rule: use from one thread.
public final class SimulatedClock: FrameClock {
    /// The current time, seconds.
    public private(set) var now: Double

    /// A clock starting at `start` seconds.
    public init(start: Double = 0) { now = start }

    /// Moves the clock forward.
    /// - Parameter seconds: How far, seconds; negative values are ignored.
    public func advance(by seconds: Double) { if seconds > 0 { now += seconds } }

    /// Moves the clock to a time; earlier times are ignored (the clock never goes back).
    public func advance(to time: Double) { if time > now { now = time } }
}

/// A clock that reads the system's monotonic clock (`CLOCK_MONOTONIC`), with its origin at creation.
///
/// Thread rule: safe to read from any thread.
public final class RealTimeClock: FrameClock, Sendable {
    private let origin: UInt64

    /// A clock whose origin is now.
    public init() { origin = DispatchTime.now().uptimeNanoseconds }

    /// Seconds since this clock was created.
    public var now: Double { Double(DispatchTime.now().uptimeNanoseconds - origin) / 1e9 }
}

import MotionLive
import Synchronization

/// Paces a ``SceneRunner``'s frames: the runner asks it for the frame after the one that ran.
protocol FrameClock: AnyObject {
    /// The run starts: frame 0 is due now.
    func start()
    /// Waits until the next frame is due.
    /// - Parameter frame: The frame that just ran.
    /// - Returns: The next frame's index (more than `frame + 1` when frames were dropped), or `nil` to stop
    ///   the run at this frame boundary (its summary says ``stopReason``).
    func nextFrame(after frame: Int) -> Int?
    /// ``nextFrame(after:)``, running `betweenFrames` on this thread while it waits whenever
    /// ``requestWorkBetweenFrames`` was called (a real-time clock; one that does not wait never runs it).
    func nextFrame(after frame: Int, betweenFrames: () -> Void) -> Int?
    /// Asks for the between-frames work from any thread, or `nil` when the clock does not wait.
    var requestWorkBetweenFrames: (@Sendable () -> Void)? { get }
    /// Frames skipped so far, for the summary; `nil` when the clock never skips.
    var droppedFrames: Int? { get }
    /// Why ``nextFrame(after:)`` returned `nil`.
    var stopReason: StopReason { get }
}

extension FrameClock {
    func nextFrame(after frame: Int, betweenFrames: () -> Void) -> Int? { nextFrame(after: frame) }
    var requestWorkBetweenFrames: (@Sendable () -> Void)? { nil }
}

/// `run`'s clock: every frame, one after another, as fast as they compute.
final class SimulatedFrameClock: FrameClock {
    func start() {}
    func nextFrame(after frame: Int) -> Int? { frame + 1 }
    var droppedFrames: Int? { nil }
    var stopReason: StopReason { .duration }
}

/// `run --realtime` and `serve`'s clock: MotionLive's ``RealTimeClock`` (frame *i* due at start + *i* /
/// frameRate, overruns skipped and counted), stoppable from any thread with a reason.
final class RealTimeFrameClock: FrameClock, Sendable {
    /// The monotonic clock underneath.
    let clock: RealTimeClock
    private let reason = Mutex(StopReason.interrupted)

    /// A real-time clock at a frame rate.
    init(frameRate: Double) { clock = RealTimeClock(frameRate: frameRate) }

    func start() { clock.start() }
    func nextFrame(after frame: Int) -> Int? { clock.nextFrame(after: frame) }
    func nextFrame(after frame: Int, betweenFrames: () -> Void) -> Int? { clock.nextFrame(after: frame, betweenFrames: betweenFrames) }
    var requestWorkBetweenFrames: (@Sendable () -> Void)? { { [clock] in clock.requestWorkBetweenFrames() } }
    var droppedFrames: Int? { clock.droppedFrames }
    var stopReason: StopReason { reason.withLock { $0 } }

    /// Stops the run at its next frame boundary (any thread).
    /// - Parameter why: `.interrupted` (a signal) or `.shutdown` (`POST /shutdown`).
    func requestStop(_ why: StopReason) {
        reason.withLock { $0 = why }
        clock.requestStop()
    }
}
